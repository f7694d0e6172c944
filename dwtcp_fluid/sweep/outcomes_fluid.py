"""Delayed-fluid outcome of the DWTCP sweep: what the fluid model actually does at each grid point.

For each grid point (β, BDP, N) the DWTCP fluid model of appendix A of [DWTCP] is run with the
batched JAX solver in three variants (one solver call each):

* ``delayed``: the simplified decrease (5)/(6) with the Scout signal one RTT late, ``DwtcpFluid(delay_rtts=1)``;
* ``sqrt``: the original decrease (3) (β·sqrt(w), byte convention of β) with the same delay;
* ``undelayed``: the paper's model (5)-(7) as analysed, no feedback delay (for contrast).

All three keep the physical queue floor q ≥ 0 and the target k = 0 (d_t = τ, the fluid convention of (6)).

Time unit. The model's rates all scale as 1/τ at fixed BDP = τ·C (w' ∝ 1/τ, q' = (N·w − BDP)/τ, τ_d = τ), so a
point is solved with τ = 1 and C = BDP: time is measured in RTTs, every element of a batch shares one step
(τ/20) whatever its BDP, and periods are converted back to seconds with τ = BDP/C.

Standard start. For t ≤ 0: w = BDP/N (the fair-share window), q = BDP (a standing queue of one BDP, e.g. what a
burst leaves behind), k = 0. Why not w = 2·BDP/N, q = 0: measured on the default grid (β = 0.001), that start
needs a first decrease arc that leaves w ≈ 0.3·BDP/N, then a linear climb at (1 + S/L) packets per RTT before the
queue rises again — about 0.7·BDP/N RTTs, i.e. up to 7,000 RTTs on the default grid, 7× the run length below.
From the standing-queue start the first arc leaves w ≈ (1 − √β)·BDP/N and the climb back takes ≈ √β·BDP/N
RTTs: measured on the default grid (delayed paper variant), the peak queue per 100-RTT window is the same to 1 %
from 300 RTTs on at every point with BDP/N ≥ 0.5 packet (the last to settle: N = 1–2 at BDP ≥ 4,000); where
BDP/N < 0.5 packet (≈ 40 points, N ≫ BDP) the oscillation is irregular (window peaks differ by up to 75 %).

Run length. The delayed cycle's period is ≈ π/√β + 2 RTTs (measured: 102 RTTs at β = 0.001 for w* ≳ 0.5 packets,
independent of N and BDP; 110–290 RTTs where w* < 0.5 packet), so the default is ``DEFAULT_PERIODS`` = 10 such
periods for the smallest β of the batch (1,014 RTTs at β = 0.001): the second half, over which everything is
measured, holds ≈ 5 periods.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..dde.summary import (
    CONVERGED_RTOL,
    STEP_ARTEFACT_W,
    period_from_crossings,
    queue_range_tolerance,
    time_mean,
)
from ..formulas import kbar_star
from ..models.dwtcp import DwtcpFluid
from ..params import DwtcpParams, LinkParams
from ..results import Status

__all__ = [
    "FLUID_VARIANTS",
    "FLUID_VARIABLES",
    "DEFAULT_PERIODS",
    "STEPS_PER_RTT",
    "CONVERGED_RTOL",
    "fluid_outcomes",
    "default_duration_rtts",
    "fluid_batch_bytes",
]

#: Variant prefix → model. The sqrt form uses β·sqrt(w) with β in the byte convention (docs/equations.md note 3).
FLUID_VARIANTS: dict[str, DwtcpFluid] = {
    "delayed": DwtcpFluid("paper", delay_rtts=1.0),
    "sqrt": DwtcpFluid("sqrt", delay_rtts=1.0),
    "undelayed": DwtcpFluid("paper", delay_rtts=0.0),
}
#: Run length in oscillation periods π/√β + 2 RTTs (see the module docstring for the measurement).
DEFAULT_PERIODS = 10
#: Fixed RK4 steps per RTT of the JAX solver: τ/20 (its default for a one-RTT delay) for the delayed variants.
STEPS_PER_RTT = 20
#: The undelayed variant uses τ/40: the one-step overshoot of its switch at q = k = 0 leaves a neutral orbit around
#: (BDP/N, 0) whose size is proportional to the step (see CONVERGED_RTOL); τ/40 halves it.
STEPS_PER_RTT_UNDELAYED = 40
#: Saved samples per RTT (every 4th step): peaks and time means are read from the saved samples.
SAVES_PER_RTT = 5
#: Convergence thresholds: CONVERGED_RTOL, STEP_ARTEFACT_Q and STEP_ARTEFACT_W (defined once, with the solver
#: artefact they cover, in :mod:`dwtcp_fluid.dde.summary`; the simulate commands use the same ones).
#: A run has settled when the peak queue of the third and of the last quarter of the run agree within this.
SETTLED_RTOL = 0.02

_OBS: dict[str, tuple[str, str]] = {
    "kbar_obs": ("observed k̄: peak queue during decrease arcs, second half of the run", "packets"),
    "kbar_max_run": ("peak queue during decrease arcs over the whole run", "packets"),
    "condition_held": ("k̄ < k̄* = 2·BDP/√β held on every decrease arc of the run", "1"),
    "converged": (
        "converged: q and w ranges over the second half below the thresholds of CONVERGED_RTOL",
        "1",
    ),
    "oscillating": ("oscillating: not converged (a limit cycle or an irregular oscillation)", "1"),
    "settled": (f"peak queue of the last two quarters agree within {SETTLED_RTOL:g} (relative)", "1"),
    "q_amplitude": ("(max − min)/2 of the queue, second half", "packets"),
    "w_amplitude": ("(max − min)/2 of the per-flow window, second half", "packets"),
    "period": ("mean spacing of upward crossings of q = k, second half (NaN: fewer than two)", "s"),
    "period_rtts": ("oscillation period in RTTs", "RTT"),
    "utilization": (
        "time-mean link output rate / C, second half (arrival rate while q is on its floor)",
        "1",
    ),
    "queue_mean": ("time-mean queue, second half", "packets"),
    "window_mean": ("time-mean per-flow window, second half", "packets"),
    "status": ("solver status code (0 ok, 1 non-finite, 2 buffer overflow, 3 too many events)", "1"),
}

#: name → (long_name, units) of every variable :func:`fluid_outcomes` returns.
FLUID_VARIABLES: dict[str, tuple[str, str]] = {
    f"{v}_{k}": (f"{v} fluid model: {ln}", u) for v in FLUID_VARIANTS for k, (ln, u) in _OBS.items()
}
FLUID_VARIABLES["duration_rtts"] = ("fluid run length", "RTT")


#: Working memory of one run of a batch: per saved sample the solver's saved (w, q), their float64 copy and the
#: observables' half-run copies and masks (about five float64s), and a fixed part per run. Measured as the growth
#: of peak RSS from a 20-run to a 1000-run batch: 39, 80, 100 and 235 KiB per run at 501, 1001, 2501 and 5071
#: samples (runs of 100, 200, 500 and 1,014 RTTs; the allocator makes each point uncertain by about 30 KiB).
BYTES_PER_SAMPLE = 44
BYTES_PER_RUN = 16 * 1024


def fluid_batch_bytes(n_runs: int, duration_rtts: float) -> float:
    """Peak working memory in bytes of :func:`fluid_outcomes` over ``n_runs`` grid points of ``duration_rtts``
    RTTs (the variants run one after another, so one variant's batch is the peak)."""
    samples = math.ceil(duration_rtts) * SAVES_PER_RTT + 1
    return float(n_runs) * (BYTES_PER_RUN + samples * BYTES_PER_SAMPLE)


def default_duration_rtts(beta: np.ndarray) -> float:
    """Run length in RTTs: ``DEFAULT_PERIODS`` periods π/√β + 2 of the delayed cycle, for the smallest β."""
    return float(math.ceil(DEFAULT_PERIODS * (math.pi / math.sqrt(float(np.min(beta))) + 2.0)))


def _check(beta: Any, bdp: Any, flows: Any, capacity_pps: float) -> tuple[np.ndarray, ...]:
    arrs = [np.atleast_1d(np.asarray(a, dtype=float)) for a in (beta, bdp, flows)]
    for name, a in zip(("beta", "bdp", "flows"), arrs, strict=True):
        if a.ndim != 1:
            raise ValueError(f"{name} has shape {a.shape}: accepted a 1-D array of grid points")
    if len({a.size for a in arrs}) != 1 or arrs[0].size == 0:
        raise ValueError(
            f"beta, bdp, flows have sizes {[a.size for a in arrs]}: accepted non-empty arrays of one length"
        )
    if not (math.isfinite(capacity_pps) and capacity_pps > 0):
        raise ValueError(f"capacity_pps={capacity_pps!r} is out of range: accepted capacity_pps > 0")
    return tuple(arrs)


def _params(
    beta: np.ndarray,
    bdp: np.ndarray,
    flows: np.ndarray,
    capacity_pps: float,
    packet_size: float,
    scout: float,
) -> dict[str, np.ndarray]:
    """Numeric model parameters per point, validated by :class:`DwtcpParams`, rescaled to τ = 1, C = BDP."""
    rows = []
    for b, d, n in zip(beta, bdp, flows, strict=True):
        if not (math.isfinite(d) and d > 0):
            raise ValueError(f"bdp={d!r} is out of range: accepted bdp > 0 packets")
        link = LinkParams(capacity=f"{capacity_pps!r}pps", rtt=d / capacity_pps, packet_size=packet_size)
        P = DwtcpParams(link=link, flows=int(n) if n == round(n) else n, beta=b, k=0.0, scout_size=scout)
        p = FLUID_VARIANTS["delayed"].numeric_params(P)
        p["tau"], p["C"] = 1.0, float(d)  # time in RTTs (module docstring)
        rows.append(p)
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def _decrease_mask(q: np.ndarray, lag: int, q_hist: np.ndarray) -> np.ndarray:
    """u = 1{q(t − τ_d) > 0} on the saved grid (τ_d = ``lag`` samples), with the constant history ``q_hist``."""
    if lag == 0:
        return q > 0
    pad = np.broadcast_to(q_hist[:, None], q.shape[:-1] + (lag,))
    qd = np.concatenate([pad, q[..., :-lag]], axis=-1)
    return qd > 0


def _one_variant(
    model: DwtcpFluid, p: dict[str, np.ndarray], hist: np.ndarray, T: float, tau_s: np.ndarray
) -> dict[str, np.ndarray]:
    from ..dde import solve

    B = hist.shape[0]
    steps = STEPS_PER_RTT if model.delay_rtts > 0 else STEPS_PER_RTT_UNDELAYED
    # exact exits: with k = 0 the switching surface is the queue floor (jax_rk docstring)
    sol = solve(
        model,
        p,
        hist,
        (0.0, T),
        method="jax",
        dt=1.0 / steps,
        save_every=steps // SAVES_PER_RTT,
        exact_exits=True,
        check=False,  # judged by the documented step artefact (queue_range_tolerance), not the 1e-3 check
    )
    t, x = sol.t, np.asarray(sol.x, dtype=float)
    w, q = x[..., 0], x[..., 1]
    lag = round(model.delay_rtts * SAVES_PER_RTT)
    dec = _decrease_mask(q, lag, hist[:, 1])
    half = t >= t[-1] / 2 - 1e-9
    q_dec = np.where(dec, q, 0.0)
    kbar_obs = q_dec[:, half].max(axis=1)
    kbar_run = q_dec.max(axis=1)
    qh, wh, th = q[:, half], w[:, half], t[half]
    bdp, ws = p["C"], p["C"] / p["N"]
    q_rng, w_rng = np.ptp(qh, axis=1), np.ptp(wh, axis=1)
    h = 1.0 / steps
    q_tol = queue_range_tolerance(bdp, p["N"], h, 1 + p["alpha"] * p["s_over_l"])
    converged = (q_rng < q_tol) & (w_rng < np.maximum(CONVERGED_RTOL * ws, STEP_ARTEFACT_W * h))
    n4 = t.size // 4
    peak3, peak4 = q[:, 2 * n4 : 3 * n4].max(axis=1), q[:, 3 * n4 :].max(axis=1)
    settled = converged | (np.abs(peak4 - peak3) <= SETTLED_RTOL * np.maximum(peak4, 1e-12))
    # link output / C: 1 above the floor, the arrival rate N·w/τ (q' + C from the model) while held at q = 0
    arrival = model.rhs((wh, qh), (wh, qh), 0.0, {k: v[:, None] for k, v in p.items()}, np)[1]
    util_t = np.where(qh > 1e-9, 1.0, np.clip((arrival + bdp[:, None]) / bdp[:, None], 0.0, 1.0))
    out: dict[str, np.ndarray] = {
        "kbar_obs": kbar_obs,
        "kbar_max_run": kbar_run,
        "condition_held": kbar_run < kbar_star(bdp, p["beta"]),
        "converged": converged,
        "oscillating": ~converged,
        "settled": settled,
        "q_amplitude": 0.5 * q_rng,
        "w_amplitude": 0.5 * w_rng,
        "utilization": np.array([time_mean(th, util_t[e]) for e in range(B)]),
        "queue_mean": np.array([time_mean(th, qh[e]) for e in range(B)]),
        "window_mean": np.array([time_mean(th, wh[e]) for e in range(B)]),
    }
    per = np.full(B, np.nan)
    for e in range(B):
        if not converged[e]:
            v = period_from_crossings(sol.crossings[e], sol.crossing_up[e], float(t[-1]) / 2)
            per[e] = np.nan if v is None else v
    out["period_rtts"] = per
    out["period"] = per * tau_s
    status = np.asarray(sol.status, dtype=np.int64)
    bad = (status != Status.OK) | ~np.all(np.isfinite(x), axis=(1, 2))
    status = np.where((status == Status.OK) & bad, int(Status.NON_FINITE), status)
    # a failed element never reports a number: NaN for floats, False for flags (with the status saying why)
    for k, v in out.items():
        if v.dtype == bool:
            out[k] = v & ~bad
        else:
            out[k] = np.where(bad, np.nan, v)
    out["status"] = status
    return out


def fluid_outcomes(
    beta: Any,
    bdp: Any,
    flows: Any,
    *,
    capacity_pps: float,
    duration_rtts: float | None = None,
    packet_size: float = 1500.0,
    scout_size: float = 64.0,
    variants: tuple[str, ...] = tuple(FLUID_VARIANTS),
    start: tuple[float, float] = (1.0, 1.0),
) -> dict[str, np.ndarray]:
    """Delayed, sqrt and undelayed DWTCP fluid runs per grid point, [DWTCP] eqs. (3)-(7).

    Parameters
    ----------
    beta, bdp, flows : array_like, shape (B,)
        Grid points: decrease gain β (byte convention), BDP = τ·C in packets, number of flows N.
    capacity_pps : float
        Bottleneck capacity C in packets/s; τ = BDP/C seconds (only used to express periods in seconds).
    duration_rtts : float, optional
        Run length in RTTs; default :func:`default_duration_rtts` (10 delayed-cycle periods, 1,014 at β = 0.001).
    packet_size, scout_size : float
        L and S in bytes: the increase (7) is (1 + S/L) packets per RTT; the sqrt form uses β·sqrt(L).
    variants : tuple of str
        Subset of ``FLUID_VARIANTS`` to run (one batched JAX solve each).
    start : (float, float)
        History for t ≤ 0: w = start[0]·BDP/N, q = start[1]·BDP (default (1, 1): fair-share windows with a
        standing queue of one BDP; see the module docstring for why not (2, 0)). k = 0.

    Returns
    -------
    dict of ndarray, shape (B,)
        ``<variant>_<observable>`` for every variant and observable in :data:`FLUID_VARIABLES`, plus
        ``duration_rtts``. Observables are measured over the second half of the run. An element whose solve
        failed has ``status`` ≠ 0, NaN in every float and False in every flag.
    """
    beta, bdp, flows = _check(beta, bdp, flows, capacity_pps)
    unknown = [v for v in variants if v not in FLUID_VARIANTS]
    if unknown or not variants:
        raise ValueError(
            f"variants={variants!r} is invalid: accepted a non-empty subset of {tuple(FLUID_VARIANTS)}"
        )
    T = default_duration_rtts(beta) if duration_rtts is None else float(duration_rtts)
    if not (math.isfinite(T) and T >= 10):
        raise ValueError(
            f"duration_rtts={duration_rtts!r} is out of range: accepted duration_rtts >= 10 RTTs"
        )
    T = math.ceil(T)  # whole RTTs: the saved grid then holds the one-RTT lag exactly
    if not (len(start) == 2 and start[0] > 0 and start[1] >= 0 and all(math.isfinite(s) for s in start)):
        raise ValueError(f"start={start!r} is out of range: accepted (w/(BDP/N) > 0, q/BDP >= 0)")
    p = _params(beta, bdp, flows, capacity_pps, packet_size, scout_size)
    hist = np.stack([start[0] * bdp / flows, start[1] * bdp], axis=1)
    tau_s = bdp / capacity_pps
    out: dict[str, np.ndarray] = {}
    for v in variants:
        for k, arr in _one_variant(FLUID_VARIANTS[v], p, hist, T, tau_s).items():
            out[f"{v}_{k}"] = arr
    out["duration_rtts"] = np.full(beta.shape, float(T))
    return out
