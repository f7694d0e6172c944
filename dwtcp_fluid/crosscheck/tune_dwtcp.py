"""Choose DWTCP's decrease gain β and target K over an operating range on the Scout-faithful busy-period model.

The range is :class:`~dwtcp_fluid.analysis.tune.TuneRange`'s (capacity, base-RTT interval, flow-count interval, a grid of operating
points). At each point :class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid` ([DWTCP] Algorithm 1, eqs. (1), (2),
the Scout served only in idle time; ``proofs/dwtcp_busy.md``) is run in one batched JAX solve
(:func:`~dwtcp_fluid.analysis.dwtcp_busy_batch.run_busy_batch`, 100 RTTs warm-up, 300 measured) and summarised as the DWTCP
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
root of x/w = β_w·(w + x/(2w))^{3/2}, :func:`~dwtcp_fluid.analysis.dwtcp_busy.standing_queue_point`, independent of K). So the search
is derivative-free: a batched compass search (generalized pattern search) in (log10 β, log10 K) with a filter —
a feasible candidate beats an infeasible one, infeasible ones are ranked by their constraint violation — polling
the last successful move again first (a Hooke-Jeeves pattern move), then the four axis directions in one batched
solve; when none is better, three directions along the constraint boundary
from the axis poll's central differences (simplex gradients of the objective and of the constraint margin: the
feasible set is a thin oblique wedge, more β needing about 1.6× as many decades of K for the same utilization, that
fixed diagonals miss) before the step is halved, until it is below ``min_step`` decades.
:func:`grid_search` evaluates the same objective on a (β, K) grid for validation.

β is in the paper's byte convention (``DwtcpParams.beta_unit = "bytes"``: β·sqrt(w) with w in bytes), K in
packets; Scouts of 64 bytes, α₀ = 20, a data buffer of 5000 packets (the DWTCP cross-check's settings).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..analysis.tune import TuneRange
from ..analysis.tune_objectives import DWTCP_OBJECTIVES
from ..params import DwtcpParams, LinkParams, check_range
from ..results import Result, Status, Summary, new_axes

__all__ = ["BETA_BOX", "K_BOX", "DwtcpTuneResult", "DwtcpTuneSummary", "tune_points", "busy_observables", "tune_dwtcp",
           "grid_search", "guideline_beta"]  # fmt: skip

#: Search box: β (byte convention) and K (packets). Below K = 20 the busy age's reset rate gap_cap·C/k makes the
#: fixed JAX step (k/(40·BDP) RTTs) too small to afford; above 1000 the target delay exceeds the RTTs of the range.
BETA_BOX = (1e-5, 1e-2)
K_BOX = (20.0, 1000.0)
#: Start: [DWTCP]'s experiments (β = 0.001, K = 100).
START = (1e-3, 100.0)
SCOUT_BYTES, ALPHA0, BUFFER = 64.0, 20.0, 5000
#: Model runs per batched solve of the search: the last batch of a request is padded to it with copies of its
#: last run (computed, never counted), so that every solve has one compiled shape.
ELEMENTS = 12
#: After the working set grows, the search resumes at this many times ``min_step``.
RESTART = 4
_KEYS = ("queue_mean", "queue_max", "amplitude", "utilization", "standing", "threshold", "ok")


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


def _params(rng: TuneRange, d: float, n: float, beta: float, K: float) -> DwtcpParams:
    """One model run's parameters: operating point (RTT d in s, N flows) and candidate (β, K)."""
    link = LinkParams(rng.capacity, float(d), rng.packet_size)
    return DwtcpParams(
        link=link, flows=int(n), beta=float(beta), k=float(K), scout_size=SCOUT_BYTES, alpha0=ALPHA0
    )


def tune_points(rng: TuneRange, beta: np.ndarray, K: np.ndarray) -> list[DwtcpParams]:
    """Every candidate (β[i], K[i]) at every operating point of ``rng``, candidate-major."""
    D, N = rng.grid()
    return [_params(rng, d, n, b, k) for b, k in zip(beta, K, strict=True) for d, n in zip(D, N, strict=True)]


def step_rtts(rng: TuneRange, K: float) -> float:
    """The JAX step (RTTs) for target ``K`` over ``rng``: the range's longest RTT's k/(40·BDP), capped at 1/80 RTT and
    rounded down to 1/80 · 2^-j, so that a candidate's step depends on its K alone (never on its batch-mates) and
    batches share a compiled solver."""
    need = min(1 / 80, float(K) / (40 * rng.C * float(rng.grid()[0].max())))
    return (1 / 80) * 2.0 ** -math.ceil(math.log2((1 / 80) / need) - 1e-12)


def pair_observables(
    rng: TuneRange, beta: Any, K: Any, point: Any, *, dt_rtts: float, warmup_rtts: float = 100.0,
    window_rtts: float = 300.0,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The busy-period model's summary for (β[i], K[i]) at operating point ``point[i]`` (an index into
    ``rng.grid()``): one model run per element, in one batched solve with step ``dt_rtts``; keys of
    :func:`busy_observables`, arrays (n,)."""
    from ..analysis.dwtcp_busy_batch import run_busy_batch
    from ..sweep.packet_classes import oscillation_threshold

    D, N = rng.grid()
    idx = np.asarray(point, int)
    pts = [
        _params(rng, D[i], N[i], b, k)
        for b, k, i in zip(np.asarray(beta, float), np.asarray(K, float), idx, strict=True)
    ]
    runs = run_busy_batch(pts, warmup_rtts=warmup_rtts, window_rtts=window_rtts, dt_rtts=dt_rtts)
    out = {k: np.array([r[k] for r in runs], float) for k in _KEYS[:4]}
    out["standing"] = np.array([r["regime"] == "standing queue" for r in runs])
    out["ok"] = np.array([r["status"] == "ok" for r in runs])
    out["threshold"] = np.array([oscillation_threshold(int(N[i]), BUFFER) for i in idx], float)
    return out


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


def _terms(o: dict[str, np.ndarray], objective: str, u_min: float, steady: bool) -> tuple[np.ndarray, ...]:
    """Per model run: the objective's value (packets), the utilization margin utilization − u_min and the
    steadiness margin 0.01·(1 − amplitude/threshold) (+inf without ``steady``): one threshold's worth weighs like
    1 % of utilization. Both margins are −inf where the solve failed."""
    v = o["queue_mean"] if objective == "mean-queue" else o["queue_max"]
    ok = np.asarray(o["ok"], bool)
    mu = np.where(ok, o["utilization"] - u_min, -np.inf)
    ma = np.where(ok, 0.01 * (1 - o["amplitude"] / o["threshold"]) if steady else np.inf, -np.inf)
    return np.asarray(v, float), mu, ma


def _merit(o: dict[str, np.ndarray], objective: str, u_min: float, steady: bool) -> tuple[np.ndarray, ...]:
    """Worst-case objective (n,), constraint violation (n,) and signed margin (n,) of candidates observed at points
    (arrays (n, points)): the worst value, the smallest margin of :func:`_terms` and max(−margin, 0)."""
    v, mu, ma = _terms(o, objective, u_min, steady)
    margin = np.minimum(mu, ma).min(axis=1)
    return np.nanmax(v, axis=1), np.maximum(-margin, 0.0), margin


def _better(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Filter order of (value, violation): feasible first, then the smaller value; infeasible by violation."""
    if a[1] == 0 and b[1] == 0:
        return a[0] < b[0] - 1e-9
    if a[1] == 0 or b[1] == 0:
        return a[1] == 0
    return a[1] < b[1]


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
    log: list = field(default_factory=list)
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


class _Search:
    """Cached, batched model runs of (log10 β, log10 K) candidates at operating points, and the working set.

    The cache holds one entry per (candidate, point) run: a candidate's merit over a set of points runs only the
    pairs it lacks, and ``len(cache)`` is the number of model runs. The working set is the operating points the
    search compares candidates on: the worst-value point(s) (``obj_pts``) and the constraints' tightest points
    (``con_pts``) of the start, grown by :meth:`grow` whenever a converged candidate's merit over every point
    differs from its merit over the working set.
    """

    def __init__(self, rng: TuneRange, objective: str, u_min: float, steady: bool, **run: float) -> None:
        self.rng, self.objective, self.u_min, self.steady, self.run = rng, objective, u_min, steady, run
        self.n = rng.grid()[0].size
        self.cache: dict[tuple[tuple[float, float], int], dict[str, Any]] = {}
        self.lo = np.log10([BETA_BOX[0], K_BOX[0]])
        self.hi = np.log10([BETA_BOX[1], K_BOX[1]])
        self.W: list[int] = []
        self.solves = 0
        self.log: list = []

    def key(self, z: np.ndarray) -> tuple[float, float]:
        z = np.clip(z, self.lo, self.hi)
        return (round(float(z[0]), 9), round(float(z[1]), 9))

    def need(self, keys: list[tuple[float, float]], pts: Any) -> None:
        """Run the (candidate, point) pairs not yet cached: grouped by step, ``ELEMENTS`` per batched solve."""
        groups: dict[float, list[tuple[tuple[float, float], int]]] = {}
        for k in dict.fromkeys(keys):
            for p in pts:
                if (k, p) not in self.cache:
                    groups.setdefault(step_rtts(self.rng, 10 ** k[1]), []).append((k, p))
        for dt, pairs in groups.items():
            for s in range(0, len(pairs), ELEMENTS):
                chunk = pairs[s : s + ELEMENTS]
                pad = chunk + [chunk[-1]] * (ELEMENTS - len(chunk))  # computed, never counted
                o = pair_observables(
                    self.rng, [10 ** k[0] for k, _ in pad], [10 ** k[1] for k, _ in pad], [p for _, p in pad],
                    dt_rtts=dt, **self.run,
                )  # fmt: skip
                self.solves += 1
                for j, pair in enumerate(chunk):
                    self.cache[pair] = {n: a[j] for n, a in o.items()}

    def terms(self, k: tuple[float, float], pts: Any) -> tuple[np.ndarray, ...]:
        """:func:`_terms` of candidate ``k`` at ``pts`` (runs what is missing)."""
        pts = list(pts)
        self.need([k], pts)
        o = {n: np.array([self.cache[(k, p)][n] for p in pts]) for n in _KEYS}
        return _terms(o, self.objective, self.u_min, self.steady)

    def merit(self, k: tuple[float, float], pts: Any) -> tuple[float, float, float]:
        """(worst value, violation, margin) of candidate ``k`` over ``pts``."""
        v, mu, ma = self.terms(k, pts)
        margin = float(np.minimum(mu, ma).min())
        return float(np.nanmax(v)), max(-margin, 0.0), margin

    def start(self, k: tuple[float, float]) -> None:
        """The working set from the start's runs at every point: its worst point and each constraint's tightest."""
        v, mu, ma = self.terms(k, range(self.n))
        D, N = self.rng.grid()
        corners = np.isin(D, [D.min(), D.max()]) & np.isin(N, [N.min(), N.max()])
        W = [int(np.nanargmax(v)), int(np.argmin(mu))] + ([int(np.argmin(ma))] if self.steady else [])
        self.W = list(dict.fromkeys(W + [int(i) for i in np.flatnonzero(corners)]))

    def grow(self, k: tuple[float, float]) -> bool:
        """Certify candidate ``k`` over every point; False when its merit there equals its merit over the working
        set, else add the points that differ (a larger value; a violated or, infeasible, a tighter margin)."""
        v, mu, ma = self.terms(k, range(self.n))
        val, _, marg = self.merit(k, self.W)
        m = np.minimum(mu, ma)
        add = [p for p in range(self.n) if p not in self.W and (v[p] > val or m[p] < min(0.0, marg))]
        self.W += add
        return bool(add)

    def poll(
        self, cands: list[np.ndarray], z: np.ndarray, best: tuple[float, float]
    ) -> list[tuple[float, float] | None]:
        """(value, violation) over the working set of each candidate, None for one rejected early: with a feasible
        incumbent ``z``, a candidate whose value at the incumbent's worst point is not below the incumbent's cannot
        win (its worst value over the working set is at least that), so its other points are not run."""
        keys = [self.key(c) for c in cands]
        keep = keys
        if best[1] == 0 and len(self.W) > 1:
            top = [self.W[int(np.nanargmax(self.terms(self.key(z), self.W)[0]))]]
            self.need(keys, top)
            keep = [k for k in keys if float(self.terms(k, top)[0][0]) < best[0] - 1e-9]
        self.need(keep, self.W)
        return [self.merit(k, self.W)[:2] if k in keep else None for k in keys]

    def ridge(self, z: np.ndarray, h: float) -> list[np.ndarray]:
        """Directions along the constraint boundary from the axis poll's central differences (simplex gradients).

        With ∇f and ∇c the difference quotients of the objective and the margin over z ± h·e_i (on the working
        set; the runs an early rejection skipped are made here), the tangent t = −∇f + (∇f·n)·n (n = ∇c/|∇c|)
        follows the boundary downhill; t + k·n for k = 0, 1/2, 1 lean into the feasible side. This is where the
        fixed diagonals fail: more β needs about 1.6× as many decades of K.
        """
        W, g = self.W, np.zeros((2, 2))  # rows: f, margin
        self.need([self.key(z + s * h * e) for e in np.eye(2) for s in (1, -1)], W)
        for i in range(2):
            e = np.eye(2)[i] * h
            ku, kd = self.key(z + e), self.key(z - e)
            up, dn = self.merit(ku, W), self.merit(kd, W)
            # a clipped poll (box edge) or a failed solve gives no usable quotient: that component is left at 0
            if np.isfinite(up[2]) and np.isfinite(dn[2]) and ku != kd:
                span = (ku[i] - kd[i]) or 2 * h
                g[0, i], g[1, i] = (up[0] - dn[0]) / span, (up[2] - dn[2]) / span
        if not (np.linalg.norm(g[1]) > 0 and np.linalg.norm(g[0]) > 0):
            return []
        n = g[1] / np.linalg.norm(g[1])
        t = -g[0] + (g[0] @ n) * n
        t = t / np.linalg.norm(t) if np.linalg.norm(t) > 0 else np.zeros(2)
        out = []
        for k in (0.0, 0.5, 1.0):
            d = t + k * n
            out.append(z + h * d / np.linalg.norm(d))
        return out


def _compass(
    S: _Search, z: np.ndarray, best: tuple[float, float], h: float, min_step: float, maxiter: int, it: int,
    path: list[np.ndarray], far: float = 0.0,
) -> tuple[np.ndarray, tuple[float, float], int]:  # fmt: skip
    """Compass search with pattern and boundary moves on the working set from ``z`` at step ``h`` until the step is
    below ``min_step`` or ``maxiter`` polls are spent; appends accepted iterates to ``path``."""
    axes = [np.array(v, float) for v in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    last: np.ndarray | None = None  # the last successful displacement, in units of its step
    zc, far = z, far or h
    while h >= min_step and it < maxiter:
        moved = False
        for kind in ("pattern", "axes", "ridge"):
            if kind == "pattern":  # Hooke-Jeeves: repeat the last successful move first (one candidate)
                if last is None:
                    continue
                cands = [np.clip(z + h * last, S.lo, S.hi)]
            elif kind == "axes":
                cands = [np.clip(z + h * e, S.lo, S.hi) for e in axes]
            else:
                cands = [np.clip(c, S.lo, S.hi) for c in S.ridge(z, h)]
                if not cands:
                    break
            it += 1
            n0 = len(S.cache)
            res = S.poll(cands, z, best)
            S.log.append((kind, round(h, 4), len(cands), len(S.cache) - n0, len(S.W), best))
            live = [i for i in range(len(cands)) if res[i] is not None]
            if not live:
                continue
            j = min(live, key=lambda i: (res[i][1], res[i][0]) if res[i][1] > 0 else (-1, res[i][0]))
            if _better(res[j], best):
                last = (cands[j] - z) / h
                z, best, moved = cands[j], res[j], True
                path.append(z.copy())
                break
        # certify the incumbent over every point before the step shrinks and once it is a first step away from
        # where it was last certified; a grown working set re-ranks it and the poll repeats at this step
        if not moved or np.abs(z - zc).max() >= far - 1e-9:
            zc = z
            if S.grow(S.key(z)):
                S.log.append(("grow", S.W))
                best, last = S.merit(S.key(z), S.W)[:2], None
                continue
        if not moved:
            h /= 2
            last = None
    return z, best, it


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
) -> DwtcpTuneResult:
    """β and K for DWTCP over an operating range by a batched compass search on the busy-period model.

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
        Polls (batched solves: pattern move, axes and boundary directions counted separately).
    warmup_rtts, window_rtts : float
        The model's warm-up and measured RTTs at every point.
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
    t0 = time.perf_counter()
    S = _Search(rng, objective, u_min, bool(steady), warmup_rtts=warmup_rtts, window_rtts=window_rtts)
    z = np.log10([beta0, K0])
    S.start(S.key(z))
    path, it = [z.copy()], 0
    z, best, it = _compass(S, z, S.merit(S.key(z), S.W)[:2], h, min_step, maxiter, it, path)
    S.log.append(("start", S.W))
    while S.grow(S.key(z)):
        S.log.append(("grow", S.W))  # certified over every point, or the search resumes on the grown working set
        z, best, it = _compass(S, z, S.merit(S.key(z), S.W)[:2], RESTART * min_step, min_step, maxiter, it, path, h)
    val, viol, _ = S.merit(S.key(z), range(S.n))
    obs = {n: np.array([S.cache[(S.key(z), p)][n] for p in range(S.n)]) for n in _KEYS}
    ok = viol == 0
    msg = "" if ok else f"no feasible (beta, K) found: constraint violation {viol:.4g} at the best candidate"
    D, N = rng.grid()
    return DwtcpTuneResult(
        range=rng, objective=objective, utilization_min=u_min, steady=bool(steady), beta=float(10 ** z[0]),
        K=float(10 ** z[1]), points_d=D, points_N=N, observables=obs, path=10.0 ** np.array(path),
        iterations=it, evaluations=len({k for k, _ in S.cache}), model_runs=len(S.cache),
        working_set=S.W, solves=S.solves, log=S.log, seconds=time.perf_counter() - t0,
        status=np.array([int(Status.OK if ok else Status.NOT_CONVERGED)]), messages=[msg],
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
