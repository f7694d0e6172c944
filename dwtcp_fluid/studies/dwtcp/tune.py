"""Choose DWTCP's decrease gain β and target K over an operating range on the Scout-faithful busy-period model.

The range is :class:`~dwtcp_fluid.studies.dctcp.tune.TuneRange`'s (capacity, base-RTT interval, flow-count interval, a grid of operating
points). At each point :class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid` ([DWTCP] Algorithm 1, eqs. (1), (2),
the Scout served only in idle time; ``proofs/dwtcp_busy.md``) is run in one batched JAX solve
(:func:`~dwtcp_fluid.studies.dwtcp.analysis_busy_batch.run_busy_batch`, 100 RTTs warm-up, 300 measured) and summarised as the DWTCP
cross-check summarises it (mean and peak queue, amplitude, utilization).

Default objective: minimize the worst-case mean queue over the range subject to utilization ≥ 99 % and a steady
queue (amplitude within the packet classes' oscillation threshold max(5, N) packets) at every point.

Why not gradients. The observables are statistics (means, extremes) of a 300-RTT window of a hybrid delay system:
a switching surface (the Scout late or not), α held at its bounds as sliding modes, the reset rate switched on by
the ripple, and two regimes — a standing queue when Φ(BDP/N) < 1, a cycle otherwise — whose boundary the optimum
sits on or near (the utilization and steadiness constraints bind at the fewest flows, the worst queue is the
standing queue at the most). Across that boundary the mean queue jumps and its derivative does not exist; inside
the cycle regime the window statistics move in steps as crossings enter and leave the window. Implicit
differentiation needs a smooth fixed point or orbit; only the standing queue has one (q* = N·w* − BDP with w* the
root of x/w = β_w·(w + x/(2w))^{3/2}, :func:`~dwtcp_fluid.studies.dwtcp.analysis_busy.standing_queue_point`, independent of K). So the search
is derivative-free: a batched compass search (generalized pattern search) in (log10 β, log10 K) with a filter —
a feasible candidate beats an infeasible one, infeasible ones are ranked by their constraint violation — polling
the last successful move again first (a Hooke-Jeeves pattern move), then the four axis directions in one batched
solve; when none is better, three directions along the constraint boundary
from the axis poll's central differences (simplex gradients of the objective and of the constraint margin: the
feasible set is a thin oblique wedge, more β needing about 1.6× as many decades of K for the same utilization, that
fixed diagonals miss) before the step is halved, until it is below ``min_step`` decades.

Where the runs go. A model run is one candidate at one operating point. The search compares candidates on a working
set of points — first the range's corners (on the default range the worst queue is the standing queue at the most
flows and the longest RTT, and the constraints bind at the fewest flows: all corners) — and caches every
(candidate, point) run. Before each step reduction, and whenever the incumbent has moved a first step from where it
was last checked, the incumbent is run at every point: if its worst value or its constraint violation there differs
from the working set's, the points that differ join the working set and the poll repeats, so the result is certified
over the whole range (its reported value and constraints are over every point). On the default range (9 points)
the corners are the working set throughout: 4 of 9 runs per candidate. An early rejection (a candidate's run at the
incumbent's worst point first, its other points only if it can still win) saved about 3 % of the runs for 1.7× as
many batched solves there, so polls run their candidates' working-set points in one solve.
:func:`grid_search` evaluates the same objective on a (β, K) grid for validation (every candidate at every point).

β is in the paper's byte convention (``DwtcpParams.beta_unit = "bytes"``: β·sqrt(w) with w in bytes), K in
packets; Scouts of 64 bytes, α₀ = 20, a data buffer of 5000 packets (the DWTCP cross-check's settings).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...analysis.tune_objectives import DWTCP_OBJECTIVES
from ...params import DwtcpParams, check_range
from ...results import Result, Status, Summary, new_axes
from ..dctcp.tune import TuneRange
from .tune_search import (  # noqa: F401 (BETA_BOX, K_BOX, GRID, START: this module's public constants)
    _KEYS,
    BETA_BOX,
    GRID,
    K_BOX,
    START,
    _params,
    _terms,
    pair_observables,
    step_rtts,
)

__all__ = ["BETA_BOX", "K_BOX", "GRID", "DwtcpTuneResult", "DwtcpTuneSummary", "tune_points", "step_rtts",
           "pair_observables", "busy_observables", "tune_dwtcp", "grid_search", "guideline_beta"]  # fmt: skip


def guideline_beta(bdp: float, flows: float, packet_size: float = 1500.0) -> dict[str, float]:
    """[DWTCP] section 3.3's guideline β ≈ 1/(2·sqrt(BDP/N)) in the byte convention of β, read two ways.

    ``consistent``: BDP/N in bytes, the unit of w in β·sqrt(w) (the same as BDP/N in packets for β_w);
    ``packets_in_bytes_beta``: BDP/N in packets put into the byte-convention β (``DwtcpParams.beta_guideline``).
    ``bdp`` in packets, ``packet_size`` in bytes.
    """
    x = bdp / flows
    return {
        "consistent": 1.0 / (2.0 * math.sqrt(x * packet_size)),
        "packets_in_bytes_beta": 1.0 / (2.0 * math.sqrt(x)),
    }


def tune_points(rng: TuneRange, beta: np.ndarray, K: np.ndarray) -> list[DwtcpParams]:
    """Every candidate (β[i], K[i]) at every operating point of ``rng``, candidate-major."""
    D, N = rng.grid()
    return [_params(rng, d, n, b, k) for b, k in zip(beta, K, strict=True) for d, n in zip(D, N, strict=True)]


def busy_observables(
    rng: TuneRange, beta: Any, K: Any, *, warmup_rtts: float = 100.0, window_rtts: float = 300.0
) -> dict[str, np.ndarray]:
    """The busy-period model's summary at every (candidate, operating point): arrays (n_candidates, n_points).

    Keys: ``queue_mean``, ``queue_max``, ``amplitude`` (packets), ``utilization``, ``standing`` (the regime is
    the standing queue), ``threshold`` (oscillation threshold max(5, N), packets) and ``ok`` (solver status).
    The step is :func:`step_rtts` of the batch's smallest K (one K per batch: that K's step, as the search uses).
    """
    beta, K = np.atleast_1d(np.asarray(beta, float)), np.atleast_1d(np.asarray(K, float))
    n = rng.grid()[0].size
    o = pair_observables(
        rng, np.repeat(beta, n), np.repeat(K, n), np.tile(np.arange(n), beta.size),
        dt_rtts=step_rtts(rng, float(K.min())), warmup_rtts=warmup_rtts, window_rtts=window_rtts,
    )  # fmt: skip
    return {k: v.reshape(beta.size, n) for k, v in o.items()}


def _merit(o: dict[str, np.ndarray], objective: str, u_min: float, steady: bool) -> tuple[np.ndarray, ...]:
    """Worst-case objective (n,), constraint violation (n,) and signed margin (n,) of candidates observed at points
    (arrays (n, points)): the worst value, the smallest margin of :func:`_terms` and max(−margin, 0)."""
    v, mu, ma = _terms(o, objective, u_min, steady)
    margin = np.minimum(mu, ma).min(axis=1)
    return np.nanmax(v, axis=1), np.maximum(-margin, 0.0), margin


@dataclass(frozen=True)
class DwtcpTuneSummary(Summary):
    """What :meth:`DwtcpTuneResult.summary` reports (queues in packets, β in the byte convention, times in s)."""

    status: Status
    message: str
    objective: str
    objective_description: str
    beta: float
    beta_sqrt_packets: float
    K_packets: float
    d_t_s: dict
    objective_value: float
    utilization_min: float
    utilization_required: float
    amplitude_over_threshold_max: float
    steady_required: bool
    active_constraints: list
    worst_point: dict
    iterations: int
    evaluations: int
    model_runs: int
    working_set: list
    seconds: float
    guideline: dict


@dataclass
class DwtcpTuneResult(Result):
    """The tuned (β, K), the per-point observables there, and the search's path."""

    range: TuneRange
    objective: str
    utilization_min: float
    steady: bool
    beta: float
    K: float
    points_d: np.ndarray
    points_N: np.ndarray
    observables: dict[str, np.ndarray]
    path: np.ndarray  # (moves + 1, 2): (β, K) after each accepted move
    iterations: int
    evaluations: int  # distinct (β, K) candidates run at one or more points
    model_runs: int  # (candidate, operating point) runs: candidates × the points each was run at
    working_set: list[int]  # indices of the points the search compared candidates on
    solves: int  # batched solves (ELEMENTS runs each, padding included)
    seconds: float
    status: np.ndarray = field(default_factory=lambda: np.array([int(Status.OK)]))
    messages: list[str] = field(default_factory=lambda: [""])

    def active(self, tol: float = 2e-3) -> list[str]:
        """Constraints at (or within ``tol`` of) their bound, with the point; box edges."""
        o, out = self.observables, []
        for i in range(self.points_d.size):
            at = f"(d = {self.points_d[i] * 1e6:.0f} us, N = {self.points_N[i]:.0f})"
            if o["utilization"][i] <= self.utilization_min + tol:
                out.append(f"utilization >= {self.utilization_min:g} at {at}")
            if self.steady and o["amplitude"][i] >= o["threshold"][i] * (1 - 0.1):
                out.append(f"amplitude <= {o['threshold'][i]:g} at {at}")
        for name, v, (lo, hi) in (("beta", self.beta, BETA_BOX), ("K", self.K, K_BOX)):
            out += (
                [f"{name} >= {lo:g}"] if v <= lo * 1.05 else [f"{name} <= {hi:g}"] if v >= hi / 1.05 else []
            )
        return out

    def summary(self) -> DwtcpTuneSummary:
        o = self.observables
        v = o["queue_mean"] if self.objective == "mean-queue" else o["queue_max"]
        i = int(np.nanargmax(v))
        worst = {"rtt_s": float(self.points_d[i]), "flows": int(self.points_N[i]),
                 **{k: float(o[k][i]) for k in ("queue_mean", "queue_max", "amplitude", "utilization")},
                 "regime": "standing queue" if o["standing"][i] else "cycle"}  # fmt: skip
        P = tune_points(self.range, np.array([self.beta]), np.array([self.K]))[0]
        C, L = self.range.C, P.link.L
        guide = {}
        for d in self.range.d:
            for n in self.range.N:
                guide[f"rtt={d * 1e6:.0f}us,N={n}"] = guideline_beta(C * d, n, L)
        return DwtcpTuneSummary(
            status=self.status_of(0), message=self.message_of(0), objective=self.objective,
            objective_description=DWTCP_OBJECTIVES[self.objective], beta=self.beta,
            beta_sqrt_packets=P.beta_sqrt_packets, K_packets=self.K,
            d_t_s={f"rtt={d * 1e6:.0f}us": d + self.K / C for d in self.range.d},
            objective_value=float(v[i]), utilization_min=float(np.min(o["utilization"])),
            utilization_required=self.utilization_min,
            amplitude_over_threshold_max=float(np.max(o["amplitude"] / o["threshold"])),
            steady_required=self.steady, active_constraints=self.active(), worst_point=worst,
            iterations=self.iterations, evaluations=self.evaluations, model_runs=self.model_runs,
            working_set=[f"rtt={self.points_d[i] * 1e6:.0f}us,N={self.points_N[i]:.0f}" for i in self.working_set],
            seconds=self.seconds, guideline=guide,
        )  # fmt: skip

    def plot(self, ax: Any = None) -> Any:
        """The search path in the (β, K) plane; returns the axes."""
        ax = new_axes(ax)
        ax.plot(self.path[:, 0], self.path[:, 1], "o-", ms=3, label="compass-search path")
        ax.plot([self.beta], [self.K], "k*", ms=10, label="optimum")
        ax.set(xlabel="β (byte convention)", ylabel="K (packets)", xscale="log", yscale="log")
        ax.legend()
        return ax


def tune_dwtcp(
    rng: TuneRange,
    *,
    objective: str = "mean-queue",
    utilization_min: float = 0.99,
    steady: bool = True,
    beta0: float = START[0],
    K0: float = START[1],
    step0: float = 0.5,
    min_step: float = 0.04,
    maxiter: int = 40,
    warmup_rtts: float = 100.0,
    window_rtts: float = 300.0,
    max_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> DwtcpTuneResult:
    """β and K for DWTCP over an operating range by a batched compass search on the busy-period model, comparing
    candidates on a working set of operating points and certifying the incumbent over every point.

    Parameters
    ----------
    rng : TuneRange
        The operating range and its grid of points.
    objective : str
        One of :data:`~dwtcp_fluid.analysis.tune_objectives.DWTCP_OBJECTIVES` (default "mean-queue").
    utilization_min : float
        Required utilization at every point, in (0, 1].
    steady : bool
        Require a steady queue (amplitude ≤ max(5, N) packets) at every point.
    beta0, K0 : float
        Start (byte-convention β, packets); default [DWTCP]'s β = 0.001, K = 100.
    step0, min_step : float
        First and last poll step in decades of β and K.
    maxiter : int
        Polls (pattern move, axes and boundary directions counted separately).
    warmup_rtts, window_rtts : float
        The model's warm-up and measured RTTs at every point.
    max_seconds : float, optional
        Time budget; default derived from the first evaluation: 4 of them per allowed poll, within [120, 900] s. When it
        runs out the best point so far is returned with status ``BUDGET``.
    progress : callable, optional
        ``progress(polls, maxiter)`` after each poll (and ``(n, n)`` when the search stops after n).
    """
    if not isinstance(rng, TuneRange):
        raise ValueError(f"rng={rng!r} is invalid: accepted a TuneRange")
    if objective not in DWTCP_OBJECTIVES:
        raise ValueError(
            f"objective={objective!r} is out of range: accepted one of {sorted(DWTCP_OBJECTIVES)}"
        )
    u_min = check_range("utilization_min", utilization_min, lo=0.0, hi=1.0, lo_open=True)
    check_range("beta0", beta0, lo=BETA_BOX[0], hi=BETA_BOX[1])
    check_range("K0", K0, lo=K_BOX[0], hi=K_BOX[1], why="packets")
    h = check_range("step0", step0, lo=0.0, lo_open=True, why="decades")
    check_range("min_step", min_step, lo=0.0, hi=h, lo_open=True, why="decades, at most step0")
    from .tune_search import Search, compass

    t0 = time.perf_counter()
    S = Search(rng, objective, u_min, bool(steady), warmup_rtts=warmup_rtts, window_rtts=window_rtts)
    z = np.log10([beta0, K0])
    S.start()
    first = time.perf_counter() - t0
    budget = min(900.0, max(120.0, 4 * maxiter * first)) if max_seconds is None else float(max_seconds)
    path: list[np.ndarray] = [z.copy()]
    z, it = compass(S, z, h, min_step, maxiter, path, deadline=t0 + budget, progress=progress)
    if progress is not None:
        progress(it, it)
    spent = time.perf_counter() > t0 + budget
    kz = S.key(z)  # the point the model ran at (rounded to 1e-9 decade): β and K are reported as run
    val, viol, _ = S.merit(kz, range(S.n))
    obs = {n: np.array([S.cache[(kz, p)][n] for p in range(S.n)]) for n in _KEYS}
    ok = viol == 0 and not spent
    msg = "" if ok else f"no feasible (beta, K) found: constraint violation {viol:.4g} at the best candidate"
    if spent:
        msg = f"time budget of {budget:.3g} s spent after {it} polls; " + (
            msg or "the last point is feasible"
        )
    D, N = rng.grid()
    return DwtcpTuneResult(
        range=rng, objective=objective, utilization_min=u_min, steady=bool(steady), beta=float(10 ** kz[0]),
        K=float(10 ** kz[1]), points_d=D, points_N=N, observables=obs, path=10.0 ** np.array(path),
        iterations=it, evaluations=len({k for k, _ in S.cache}), model_runs=len(S.cache),
        working_set=S.W, solves=S.solves, seconds=time.perf_counter() - t0,
        status=np.array([int(Status.OK if ok else Status.BUDGET if spent else Status.NOT_CONVERGED)]),
        messages=[msg],
    )  # fmt: skip


def grid_search(
    rng: TuneRange, betas: Any, Ks: Any, *, objective: str = "mean-queue", utilization_min: float = 0.99,
    steady: bool = True, warmup_rtts: float = 100.0, window_rtts: float = 300.0,
) -> dict[str, Any]:  # fmt: skip
    """Brute force over the (β, K) grid: the feasible grid optimum, the landscape, evaluation counts and time."""
    BB, KK = np.meshgrid(np.asarray(betas, float), np.asarray(Ks, float), indexing="ij")
    t0 = time.perf_counter()
    val, viol = np.empty(BB.shape), np.empty(BB.shape)
    for j in range(BB.shape[1]):  # one K per batch: the step follows that K, and every batch has one shape
        o = busy_observables(rng, BB[:, j], KK[:, j], warmup_rtts=warmup_rtts, window_rtts=window_rtts)
        val[:, j], viol[:, j], _ = _merit(o, objective, utilization_min, steady)
    val, viol = val.reshape(BB.shape), viol.reshape(BB.shape)
    feas = viol == 0
    masked = np.where(feas, val, np.inf)
    k = np.unravel_index(int(np.argmin(masked)), masked.shape)
    return {
        "beta": float(BB[k]), "K": float(KK[k]), "objective_value": float(val[k]), "feasible": feas,
        "any_feasible": bool(feas.any()), "landscape": val, "violation": viol, "beta_grid": BB, "K_grid": KK,
        "evaluations": BB.size, "model_runs": BB.size * rng.grid()[0].size, "seconds": time.perf_counter() - t0,
    }  # fmt: skip
