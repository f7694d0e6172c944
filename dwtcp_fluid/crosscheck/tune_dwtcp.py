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
#: Candidates per batched solve (padded, so that every batch has one compiled shape).
BATCH = 4
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


def tune_points(rng: TuneRange, beta: np.ndarray, K: np.ndarray) -> list[DwtcpParams]:
    D, N = rng.grid()
    return [
        DwtcpParams(
            link=LinkParams(rng.capacity, float(d), rng.packet_size),
            flows=int(n),
            beta=float(b),
            k=float(k),
            scout_size=SCOUT_BYTES,
            alpha0=ALPHA0,
        )  # fmt: skip
        for b, k in zip(beta, K, strict=True)
        for d, n in zip(D, N, strict=True)
    ]


def busy_observables(
    rng: TuneRange, beta: Any, K: Any, *, warmup_rtts: float = 100.0, window_rtts: float = 300.0
) -> dict[str, np.ndarray]:
    """The busy-period model's summary at every (candidate, operating point): arrays (n_candidates, n_points).

    Keys: ``queue_mean``, ``queue_max``, ``amplitude`` (packets), ``utilization``, ``standing`` (the regime is
    the standing queue), ``threshold`` (oscillation threshold max(5, N), packets) and ``ok`` (solver status).
    The step is the batch's smallest JAX step rounded down to 1/80 RTT · 2^-j, so that batches share a compiled
    solver.
    """
    from ..analysis.dwtcp_busy_batch import run_busy_batch
    from ..sweep.packet_classes import oscillation_threshold

    beta, K = np.atleast_1d(np.asarray(beta, float)), np.atleast_1d(np.asarray(K, float))
    D, N = rng.grid()
    need = min(1 / 80, float(K.min()) / (40 * rng.C * float(D.max())))
    dt = (1 / 80) * 2.0 ** -math.ceil(math.log2((1 / 80) / need) - 1e-12)
    runs = run_busy_batch(
        tune_points(rng, beta, K), warmup_rtts=warmup_rtts, window_rtts=window_rtts, dt_rtts=dt
    )
    shape = (beta.size, D.size)
    out = {k: np.array([r[k] for r in runs], float).reshape(shape) for k in _KEYS[:4]}
    out["standing"] = np.array([r["regime"] == "standing queue" for r in runs]).reshape(shape)
    out["ok"] = np.array([r["status"] == "ok" for r in runs]).reshape(shape)
    out["threshold"] = np.broadcast_to([oscillation_threshold(int(n), BUFFER) for n in N], shape).copy()
    return out


def _merit(o: dict[str, np.ndarray], objective: str, u_min: float, steady: bool) -> tuple[np.ndarray, ...]:
    """Worst-case objective (n,), constraint violation (n,) and signed margin (n,) of the candidates.

    The margin is the smallest over the points of utilization − u_min and, with ``steady``, 0.01·(1 − amplitude/
    threshold) (an amplitude 1 % over its threshold weighs like 0.01 % of utilization... × 100: one threshold's
    worth like 1 % of utilization); the violation is max(−margin, 0), infinite where a solve failed.
    """
    v = o["queue_mean"] if objective == "mean-queue" else o["queue_max"]
    margin = (o["utilization"] - u_min).min(axis=1)
    if steady:
        margin = np.minimum(margin, 0.01 * (1 - o["amplitude"] / o["threshold"]).min(axis=1))
    ok = o["ok"].all(axis=1)
    margin = np.where(ok, margin, -np.inf)
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
    evaluations: int  # distinct (β, K) candidates evaluated
    model_runs: int  # candidates × operating points
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
    """Cached, batched evaluations of (log10 β, log10 K) candidates."""

    def __init__(self, rng: TuneRange, objective: str, u_min: float, steady: bool, **run: float) -> None:
        self.rng, self.objective, self.u_min, self.steady, self.run = rng, objective, u_min, steady, run
        self.cache: dict[tuple[float, float], tuple[float, float, float, dict[str, np.ndarray]]] = {}
        self.lo = np.log10([BETA_BOX[0], K_BOX[0]])
        self.hi = np.log10([BETA_BOX[1], K_BOX[1]])

    def key(self, z: np.ndarray) -> tuple[float, float]:
        z = np.clip(z, self.lo, self.hi)
        return (round(float(z[0]), 9), round(float(z[1]), 9))

    def eval(self, zs: list[np.ndarray]) -> list[tuple[float, float]]:
        keys = [self.key(z) for z in zs]
        new = list(dict.fromkeys(k for k in keys if k not in self.cache))
        for s in range(0, len(new), BATCH):
            chunk = new[s : s + BATCH]
            pad = chunk + [chunk[-1]] * (BATCH - len(chunk))
            b, k = (10.0 ** np.array([c[j] for c in pad]) for j in (0, 1))
            o = busy_observables(self.rng, b, k, **self.run)
            val, viol, margin = _merit(o, self.objective, self.u_min, self.steady)
            for j, c in enumerate(chunk):
                self.cache[c] = (
                    float(val[j]),
                    float(viol[j]),
                    float(margin[j]),
                    {n: a[j] for n, a in o.items()},
                )
        return [self.cache[k][:2] for k in keys]

    def ridge(self, z: np.ndarray, h: float) -> list[np.ndarray]:
        """Directions along the constraint boundary from the axis poll's central differences (simplex gradients).

        With ∇f and ∇c the difference quotients of the objective and the margin over z ± h·e_i, the tangent
        t = −∇f + (∇f·n)·n (n = ∇c/|∇c|) follows the boundary downhill; t + k·n for k = 0, 1/2, 1 lean into
        the feasible side. This is where the fixed diagonals fail: more β needs about 1.6× as many decades of K.
        """
        g = np.zeros((2, 2))  # rows: f, margin
        for i in range(2):
            e = np.eye(2)[i] * h
            up, dn = self.cache[self.key(z + e)], self.cache[self.key(z - e)]
            # a clipped poll (box edge) or a failed solve gives no usable quotient: that component is left at 0
            if np.isfinite(up[2]) and np.isfinite(dn[2]) and self.key(z + e) != self.key(z - e):
                span = (self.key(z + e)[i] - self.key(z - e)[i]) or 2 * h
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
    best = S.eval([z])[0]
    path, it = [z.copy()], 0
    axes = [np.array(v, float) for v in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    last: np.ndarray | None = None  # the last successful displacement, in units of its step
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
            res = S.eval(cands)
            j = min(
                range(len(cands)), key=lambda i: (res[i][1], res[i][0]) if res[i][1] > 0 else (-1, res[i][0])
            )
            if _better(res[j], best):
                last = (cands[j] - z) / h
                z, best, moved = cands[j], res[j], True
                path.append(z.copy())
                break
        if not moved:
            h /= 2
            last = None
    val, viol, _, obs = S.cache[S.key(z)]
    ok = viol == 0
    msg = "" if ok else f"no feasible (beta, K) found: constraint violation {viol:.4g} at the best candidate"
    D, N = rng.grid()
    return DwtcpTuneResult(
        range=rng, objective=objective, utilization_min=u_min, steady=bool(steady), beta=float(10 ** z[0]),
        K=float(10 ** z[1]), points_d=D, points_N=N, observables=obs, path=10.0 ** np.array(path),
        iterations=it, evaluations=len(S.cache), model_runs=len(S.cache) * D.size,
        seconds=time.perf_counter() - t0,
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
