"""The Scout-faithful DWTCP model at many parameter points in one batched JAX solve (for the sweep).

Time unit. Every rate of :class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid` scales as 1/τ at fixed
BDP = C·τ, k, N, β_w and S/L (w' and (log2 α)' ∝ 1/τ; the busy age and k/C ∝ τ; the reset rates G/τ, 2/τ and
gap_cap·C/k ∝ 1/τ; the delays τ and 1.5·τ ∝ τ). So each point is solved with τ = 1 and C = BDP (time in RTTs):
all points share the one-RTT delay, hence one solver call, and times are converted back with each point's τ.
The step is the smallest :func:`~.analysis_busy.jax_step` of the batch, in RTTs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...dde import solve
from ...models.dwtcp_busy import DwtcpBusyFluid
from ...params import DwtcpParams, check_range
from .analysis_busy import busy_history, busy_summary, jax_step

__all__ = ["run_busy_batch", "SAVES_PER_RTT"]

#: Saved samples per RTT (means, extremes and the autocorrelation period are read from them).
SAVES_PER_RTT = 20


def run_busy_batch(
    points: Sequence[DwtcpParams],
    *,
    warmup_rtts: float = 100.0,
    window_rtts: float = 300.0,
    model: DwtcpBusyFluid | None = None,
    dt_rtts: float | None = None,
) -> list[dict[str, Any]]:
    """:func:`~.analysis_busy.run_busy_model` (method "jax") at every point in one batched solve.

    Parameters
    ----------
    points : sequence of DwtcpParams
        Link, N, β, k > 0, S, α₀ per point (any mix of RTTs and capacities).
    warmup_rtts, window_rtts : float
        RTTs excluded at the start and measured after it (window at least 50), the same for every point.
    model : DwtcpBusyFluid, optional
    dt_rtts : float, optional
        Step in RTTs; default the batch's smallest :func:`~.analysis_busy.jax_step`. A larger one is refused (the
        step must resolve every point); a caller that runs many batches passes a fixed smaller step so that the
        compiled solver is reused.

    Returns
    -------
    list of dict
        Per point, the keys of :func:`~.analysis_busy.run_busy_model` (times in seconds); ``status`` is the
        element's solver status ("ok" or its message): a failed element is reported, never summarised silently.
    """
    if not points:
        raise ValueError("points=[] is empty: accepted one or more DwtcpParams")
    check_range("warmup_rtts", warmup_rtts, lo=0.0, why="RTTs")
    check_range("window_rtts", window_rtts, lo=50.0, why="RTTs, at least 50")
    m = model or DwtcpBusyFluid()
    rows = []
    for P in points:
        p = m.numeric_params(P)
        p["tau"], p["C"] = 1.0, float(P.bdp)
        rows.append(p)
    params = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    hist = np.array([busy_history(P, m) for P in points])
    dt = min(jax_step(P, m) / P.tau for P in points)
    if dt_rtts is not None:
        dt = check_range(
            "dt_rtts", dt_rtts, lo=0.0, hi=dt, lo_open=True, why="RTTs, at most the batch's step"
        )
    T = warmup_rtts + window_rtts
    save = max(1, round(1.0 / (dt * SAVES_PER_RTT)))
    sol = solve(m, params, hist, (0.0, T), method="jax", dt=dt, save_every=save, check=False)
    sel = sol.t >= warmup_rtts - 1e-12 * T
    ts = sol.t[sel]
    out = []
    for i, P in enumerate(points):
        status = "ok" if sol.status[i] == 0 else sol.messages[i]
        cr, up = sol.crossings[i], sol.crossing_up[i]
        onsets = np.unique(cr[up & (cr >= warmup_rtts)])
        out.append(
            busy_summary(
                P,
                m,
                sol.params[i],
                ts,
                sol.x[i, sel],
                onsets,
                status,
                window_s=window_rtts * P.tau,
                duration_s=T * P.tau,
                unit_s=P.tau,
            )  # fmt: skip
        )
    return out
