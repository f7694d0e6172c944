"""The CUBIC hybrid system run to its periodic loss cycle, and what the cycle measures, [CUBIC] RFC 8312.

:func:`run_cubic` alternates the two halves of :mod:`dwtcp_fluid.models.cubic`: the continuous flow (C1)-(C3),
integrated by the event-exact reference DDE solver, which locates the loss as an upward crossing of its switching
surface (the queue reaching the buffer); and the jump :func:`~dwtcp_fluid.models.cubic.cubic_cut`, applied one
feedback delay τ = d + B/C after the located crossing. No root is found here: the crossing times are the solver's.

:func:`cycle_summary` measures the run's last part the way the packet cross-check does
(``studies/cubic/checks.py``): loss-cycle period (mean spacing of the cuts), mean queue, queue range,
utilization and each group's share of the mean window. The closed form of the cycle is derived in
``proofs/cubic.md`` (:mod:`dwtcp_fluid.studies.cubic.derive`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dde import solve
from ...dde.problem import numeric_params
from ...dde.summary import time_mean
from ...models.cubic import CubicFluid, CubicParams, cubic_cut, loss_hits
from ...results import Status

__all__ = ["CubicRun", "run_cubic", "cycle_summary", "cycle_period", "start_state"]


@dataclass(frozen=True)
class CubicRun:
    """A hybrid run: samples ``t`` (s) and ``x`` (shape (T, n), the model's states), the cut times ``cuts`` (s),
    the windows just before each cut ``w_cut`` (shape (cuts, groups), packets), which groups cut ``hit`` (same
    shape, bool), ``status`` and ``message``."""

    model: CubicFluid
    params: dict[str, float]
    t: np.ndarray
    x: np.ndarray
    cuts: np.ndarray
    w_cut: np.ndarray
    hit: np.ndarray
    status: Status
    message: str = ""

    def observables(self) -> dict[str, np.ndarray]:
        """The model's observables at the samples, plus ``windows`` (shape (T, groups), packets)."""
        cols = tuple(self.x.T)
        obs = dict(self.model.observables(cols, self.params, np))
        obs["windows"] = np.stack(self.model.windows(cols, self.params, np), axis=-1)
        return obs


def start_state(model: CubicFluid, p: dict[str, float], windows: Any = None) -> np.ndarray:
    """A congestion-avoidance start: each group at window W_i (default the fair share of C·d + B) just cut, i.e.
    W_max = W_i, cwnd β·W_i, empty queue: the state right after a synchronized loss at the buffer."""
    m = model.groups
    n = np.array([p[f"N_{i + 1}"] for i in range(m)])
    w = np.full(m, (p["C"] * p["d"] + p["B"]) / n.sum()) if windows is None else np.asarray(windows, float)
    x = np.zeros(3 * m + 1)
    x[m : 2 * m] = w  # W_max = W, s = 0 → window W; the cut below makes it β·W with s = −K
    x[2 * m : 3 * m] = 0.0
    return cubic_cut(x, p, m, [True] * m, fast_convergence=False)


def run_cubic(
    params: CubicParams,
    duration: float,
    *,
    x0: Any = None,
    sync: str = "drops",
    samples_per_tau: int = 8,
    max_cuts: int = 10_000,
) -> CubicRun:
    """Run the CUBIC hybrid system for ``duration`` seconds (the module docstring says how).

    Parameters
    ----------
    params : CubicParams
        Link, flows per group, buffer B, c, β, fast convergence.
    duration : float
        Simulated time, seconds.
    x0 : array-like, optional
        Start state (the model's states); default :func:`start_state`, just after a synchronized cut.
    sync : {"drops", "all"}
        ``"drops"``: the groups that cut follow from the packets dropped between the located loss and the cut
        (:func:`~dwtcp_fluid.models.cubic.loss_hits`); ``"all"``: every group cuts at every loss (synchronized).
    samples_per_tau : int
        Output samples per feedback delay τ = d + B/C (the cut instants are added).
    max_cuts : int
        Stop after this many loss events.

    Returns
    -------
    CubicRun
        A solver failure stops the run and sets its status.
    """
    if sync not in ("drops", "all"):
        raise ValueError(f"sync={sync!r} is invalid: accepted 'drops' or 'all'")
    if not (isinstance(duration, int | float) and duration > 0 and np.isfinite(duration)):
        raise ValueError(f"duration={duration!r} is out of range: accepted a finite duration > 0 (seconds)")
    model = CubicFluid(groups=len(params.flows))
    p = numeric_params(model, params)
    m = model.groups
    tau = float(model.delay(p))
    x = start_state(model, p) if x0 is None else np.asarray(x0, dtype=float)
    if x.shape != (len(model.states),):
        raise ValueError(f"x0 has shape {x.shape}: accepted a state of length {len(model.states)}")
    dt_out = tau / samples_per_tau
    chunk = max(50 * tau, 0.5)  # the solver's span when no loss is pending (any length works: it restarts)
    ts, xs = [np.array([0.0])], [x[None, :]]
    cuts: list[float] = []
    wcut: list[list[Any]] = []
    hits: list[list[bool]] = []
    t, pending, t_loss, dropped, carry = 0.0, None, 0.0, 0.0, 0.0
    flows = [p[f"N_{i + 1}"] for i in range(m)]
    status, message = Status.OK, ""
    while t < duration - 1e-12 and len(cuts) < max_cuts:
        t1 = min(duration, pending if pending is not None else t + chunk)
        sol = solve(model, p, x, (t, t1))
        if not sol.ok:
            status, message = Status(int(sol.status[0])), sol.describe()
            break
        if pending is None:
            c, up = sol.crossings[0], sol.crossing_up[0]
            ups = c[up & (c > t)]
            if ups.size:
                t_loss, dropped = float(ups[0]), 0.0
                pending = t_loss + tau
        t_stop = min(t1, pending) if pending is not None else t1
        if pending is not None and t_stop > max(t, t_loss):
            # the fluid the full queue drops between the loss and the cut: excess arrival while q sits at B
            tf = np.linspace(max(t, t_loss), t_stop, 129)
            yf = np.asarray(sol(tf, 0)).T
            excess = sum(n * w for n, w in zip(flows, model.windows(yf, p, np), strict=True))
            excess = excess / (p["d"] + yf[3 * m] / p["C"]) - p["C"]
            dropped += float(
                np.trapezoid(np.where(yf[3 * m] >= p["B"] - 1e-6, np.maximum(excess, 0.0), 0.0), tf)
            )
        grid = np.append(np.arange(t + dt_out, t_stop, dt_out), t_stop)
        ys = np.asarray(sol(grid, 0))
        ts.append(grid)
        xs.append(ys)
        t, x = t_stop, ys[-1]
        if pending is not None and t >= pending - 1e-12:
            w = model.windows(x, p, np)
            hit = [True] * m
            if sync == "drops":
                hit, carry = loss_hits(w, flows, dropped, carry)
            wcut.append(w)
            cuts.append(t)
            hits.append(hit)
            x = cubic_cut(x, p, m, hit, fast_convergence=params.fast_convergence)
            pending = None
    return CubicRun(
        model=model,
        params=p,
        t=np.concatenate(ts),
        x=np.concatenate(xs, axis=0),
        cuts=np.asarray(cuts, dtype=float),
        w_cut=np.asarray(wcut, dtype=float).reshape(len(cuts), m),
        hit=np.asarray(hits, dtype=bool).reshape(len(cuts), m),
        status=status,
        message=message,
    )


def cycle_summary(run: CubicRun, *, last_fraction: float = 0.5) -> dict[str, Any]:
    """Loss-cycle period, queue, utilization and shares of a run over its last part.

    Parameters
    ----------
    run : CubicRun
    last_fraction : float
        The part of the run summarised, 0 < last_fraction ≤ 1.

    Returns
    -------
    dict
        ``period_s`` (s, :func:`cycle_period` of the cuts there; None with fewer than two), ``queue_mean``,
        ``queue_min``, ``queue_max`` (packets), ``utilization`` (1), ``window_mean`` (per flow, packets),
        ``shares`` (each flow's share of the summed mean window), ``cuts``, ``flows_hit`` (mean flows cut per
        loss) and ``status``.
    """
    if not 0 < last_fraction <= 1:
        raise ValueError(f"last_fraction={last_fraction!r} is out of range: accepted 0 < last_fraction <= 1")
    if not run.status.ok:
        nan = float("nan")
        return {"period_s": nan, "queue_mean": nan, "queue_min": nan, "queue_max": nan, "utilization": nan,
                "window_mean": nan, "shares": [], "cuts": 0, "flows_hit": nan, "status": run.status.name.lower()}  # fmt: skip
    t1 = float(run.t[-1])
    t_from = t1 - last_fraction * (t1 - float(run.t[0]))
    sel = run.t >= t_from
    t = run.t[sel]
    obs = run.observables()
    q = obs["queue"][sel]
    w = obs["windows"][sel]
    wm = np.array([time_mean(t, w[:, i]) for i in range(w.shape[1])])
    cuts = run.cuts[run.cuts >= t_from]
    n = np.array([run.params[f"N_{i + 1}"] for i in range(run.model.groups)])
    return {
        "period_s": cycle_period(cuts),
        "queue_mean": time_mean(t, q),
        "queue_min": float(q.min()),
        "queue_max": float(q.max()),
        "utilization": time_mean(t, np.broadcast_to(obs["utilization"][sel], t.shape)),
        "window_mean": float(wm.mean()),
        "shares": np.repeat(wm / (n * wm).sum(), n.astype(int)).tolist(),
        "cuts": int(cuts.size),
        "flows_hit": float((run.hit[run.cuts >= t_from] * n).sum(-1).mean()) if cuts.size else 0.0,
        "status": "ok",
    }


def cycle_period(times: np.ndarray) -> float | None:
    """Mean spacing of loss events (s) over an even number of gaps (the first dropped when odd): fast convergence
    makes the cycle alternate long and short, and an odd count would weigh one kind twice. None with < 2 events."""
    gaps = np.diff(np.asarray(times, dtype=float))
    if gaps.size == 0:
        return None
    if gaps.size % 2 and gaps.size > 1:
        gaps = gaps[1:]
    return float(gaps.mean())
