"""Choose DCTCP's marking threshold K and gain g over an operating range by gradients through the limit cycles.

The range is a capacity C, a base-RTT interval [d_lo, d_hi] and a flow-count interval [N_lo, N_hi]; it is
covered by a small grid of operating points (corners and interior, geometric in d and N). At each point the
DCTCP fluid model of [DCTCP-A] (11)-(14) with the physical queue floor (section 3.3.2) has a limit cycle whose
observables and their exact gradients come from :mod:`.analysis_cycle_grad` (implicit differentiation of the return map).

The default objective: minimize the worst-case mean queue over the operating points, subject to throughput ≥ 99 %
and the return map's multiplier ρ ≤ 0.9 at every point. It is solved in epigraph form — minimize t subject to
obj_i(K, g) ≤ t and the per-point constraints — by SciPy's SLSQP with the exact gradients, in the variables
(K/(C·d_lo), ln g). :func:`grid_search` evaluates the same objective on a (K, g) grid for validation.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...analysis.tune_objectives import OBJECTIVES
from ...params import BOUNDS, LinkParams, check_range
from ...results import Result, Status, Summary, new_axes
from .analysis_cycle_grad import PARAMS, cycle_observables

__all__ = [
    "OBJECTIVES",
    "TuneRange",
    "TuneResult",
    "TuneSummary",
    "tune_dctcp",
    "grid_search",
    "objective_values",
]


_IK, _IG = PARAMS.index("K"), PARAMS.index("g")
_OBS = ("q_min", "q_max", "q_mean", "q_standing", "period", "throughput", "rho")
#: Search box: g in [G_LO, 1], K in [1 packet, 2·C·d_hi].
G_LO = 1e-3


@dataclass(frozen=True)
class TuneRange:
    """An operating range: capacity, base-RTT interval, flow-count interval, and its grid of points.

    Parameters
    ----------
    capacity : str or float
        "10Gbps" or bits/s.
    rtt : (lo, hi)
        Base RTTs ("100us" or seconds), lo ≤ hi.
    flows : (lo, hi)
        Numbers of long-lived flows, integers ≥ 1, lo ≤ hi.
    points : int
        Grid points per axis (2: corners only; 3: corners, edge midpoints and the centre).
    packet_size : str or float
        Bytes per packet.
    """

    capacity: Any = "10Gbps"
    rtt: tuple[Any, Any] = ("100us", "300us")
    flows: tuple[int, int] = (2, 100)
    points: int = 3
    packet_size: Any = 1500.0

    def __post_init__(self) -> None:
        lo, hi = (LinkParams(self.capacity, r, self.packet_size) for r in self.rtt)
        if lo.d > hi.d:
            raise ValueError(f"rtt={self.rtt!r} is out of range: accepted lo <= hi")
        f_lo = int(check_range("flows", self.flows[0], lo=1, integer=True))
        f_hi = int(check_range("flows", self.flows[1], lo=1, integer=True))
        if f_lo > f_hi:
            raise ValueError(f"flows={self.flows!r} is out of range: accepted lo <= hi")
        check_range("points", self.points, lo=2, hi=9, integer=True)
        object.__setattr__(self, "_link", lo)
        object.__setattr__(self, "_d", (lo.d, hi.d))
        object.__setattr__(self, "_n", (f_lo, f_hi))

    @property
    def C(self) -> float:
        """Capacity, packets/s."""
        return self._link.C  # type: ignore[attr-defined]

    @property
    def d(self) -> tuple[float, float]:
        return self._d  # type: ignore[attr-defined]

    @property
    def N(self) -> tuple[int, int]:
        return self._n  # type: ignore[attr-defined]

    def grid(self) -> tuple[np.ndarray, np.ndarray]:
        """Operating points (d, N), flattened: geometric in both, N rounded to integers, duplicates dropped."""
        ds = np.unique(np.geomspace(*self.d, self.points))
        ns = np.unique(np.round(np.geomspace(*self.N, self.points)))
        D, N = np.meshgrid(ds, ns, indexing="ij")
        return D.ravel(), N.ravel()


def objective_values(obs: dict[str, np.ndarray], objective: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-point objective (B,) and its gradient (B, 5) (None without the ``d…`` entries) from
    :func:`.analysis_cycle_grad.cycle_observables` output."""
    d = (lambda k: obs.get("d" + k)) if "dq_mean" in obs else (lambda k: None)  # noqa: E731
    if objective == "mean-queue":
        return obs["q_mean"] - obs["q_standing"], d("q_mean")
    if objective == "max-queue":
        return obs["q_max"] - obs["q_standing"], d("q_max")
    if objective == "swing":
        return obs["q_max"] - obs["q_min"], None if d("q_max") is None else d("q_max") - d("q_min")
    raise ValueError(f"objective={objective!r} is out of range: accepted one of {sorted(OBJECTIVES)}")


@dataclass(frozen=True)
class TuneSummary(Summary):
    """What :meth:`TuneResult.summary` reports (queue in packets, times in seconds)."""

    status: Status
    message: str
    objective: str
    objective_description: str
    K_packets: float
    g: float
    objective_value: float
    throughput_min: float
    throughput_required: float
    rho_max: float
    rho_allowed: float
    active_constraints: list
    worst_point: dict
    iterations: int
    cycle_solves: int
    period_maps: int
    seconds: float
    guideline: dict


@dataclass
class TuneResult(Result):
    """The tuned (K, g), the per-point observables there, and the optimizer's path."""

    range: TuneRange
    objective: str
    throughput_min: float
    rho_max: float
    K: float
    g: float
    points_d: np.ndarray
    points_N: np.ndarray
    observables: dict[str, np.ndarray]
    path: np.ndarray  # (iterations + 1, 2): (K, g) after each SLSQP iteration
    iterations: int
    cycle_solves: int
    period_maps: int
    seconds: float
    optimizer_message: str
    status: np.ndarray = field(default_factory=lambda: np.array([int(Status.OK)]))
    messages: list[str] = field(default_factory=lambda: [""])

    def _per_point(self) -> np.ndarray:
        return objective_values(self.observables, self.objective)[0]

    def active(self, rtol: float = 1e-3) -> list[str]:
        """Constraints at their bound (within ``rtol``): 'throughput' or 'rho' with the point, or a box edge."""
        out = []
        for i in range(self.points_d.size):
            at = f"(d = {self.points_d[i] * 1e6:.0f} us, N = {self.points_N[i]:.0f})"
            if self.observables["throughput"][i] <= self.throughput_min + rtol:
                out.append(f"throughput >= {self.throughput_min:g} at {at}")
            if self.observables["rho"][i] >= self.rho_max - rtol:
                out.append(f"rho <= {self.rho_max:g} at {at}")
        if self.g >= 1 - rtol:
            out.append("g <= 1")
        if self.g <= G_LO * (1 + rtol):
            out.append(f"g >= {G_LO:g}")
        return out

    def summary(self) -> TuneSummary:
        from .analysis_guidelines import paper_guideline

        v = self._per_point()
        i = int(np.nanargmax(v))
        worst = {
            "rtt_s": float(self.points_d[i]),
            "flows": int(self.points_N[i]),
            **{k: float(self.observables[k][i]) for k in _OBS},
            "cycle": bool(self.observables["cycle"][i]),
        }
        st = self.status_of(0)
        return TuneSummary(
            status=st, message=self.message_of(0), objective=self.objective,
            objective_description=OBJECTIVES[self.objective], K_packets=self.K, g=self.g,
            objective_value=float(v[i]), throughput_min=float(np.nanmin(self.observables["throughput"])),
            throughput_required=self.throughput_min, rho_max=float(np.nanmax(self.observables["rho"])),
            rho_allowed=self.rho_max, active_constraints=self.active(), worst_point=worst,
            iterations=self.iterations, cycle_solves=self.cycle_solves, period_maps=self.period_maps,
            seconds=self.seconds,
            guideline={f"rtt={d * 1e6:.0f}us": paper_guideline(self.range.C * d) for d in self.range.d},
        )  # fmt: skip

    def to_dataset(self) -> Any:
        """Per-point observables at the optimum as an ``xarray.Dataset`` over ``point``."""
        import xarray as xr

        from ..._provenance import __version__

        units = {
            k: ("s" if k == "period" else "1" if k in ("throughput", "rho") else "packets") for k in _OBS
        }
        data = {k: ("point", np.asarray(self.observables[k]), {"units": u}) for k, u in units.items()}
        coords = {"rtt": ("point", self.points_d, {"units": "s"}), "flows": ("point", self.points_N)}
        attrs = {k: v for k, v in self.summary().to_dict().items() if isinstance(v, int | float | str)}
        attrs["package_version"] = __version__
        return xr.Dataset(data, coords=coords, attrs=attrs)

    def plot(self, ax: Any = None) -> Any:
        """The optimizer's path in the (K, g) plane; returns the axes."""
        ax = new_axes(ax)
        ax.plot(self.path[:, 0], self.path[:, 1], "o-", ms=3, label="SLSQP path")
        ax.plot([self.K], [self.g], "k*", ms=10, label="optimum")
        ax.set(xlabel="K (packets)", ylabel="g", yscale="log")
        ax.legend()
        return ax


class _OutOfTime(Exception):
    """The time budget of :func:`tune_dctcp` ran out (raised at the next new evaluation)."""


class _Problem:
    """The epigraph problem in z = (K/(C·d_lo), ln g, t/(C·d_lo)), evaluations cached by (K, g)."""

    def __init__(self, rng: TuneRange, objective: str, thr: float, rho_max: float) -> None:
        self.C = rng.C
        self.D, self.N = rng.grid()
        self.scale = rng.C * rng.d[0]
        self.objective, self.thr, self.rho_max = objective, thr, rho_max
        self.y: np.ndarray | None = None
        self.cache: dict[tuple[float, float], Any] = {}
        self.solves = self.maps = 0
        self.deadline = math.inf

    def eval(self, z: np.ndarray) -> Any:
        key = (float(z[0]), float(z[1]))
        if key not in self.cache:
            if time.perf_counter() > self.deadline:
                raise _OutOfTime
            K, g = z[0] * self.scale, math.exp(z[1])
            o = cycle_observables(K, g, self.N, self.C, self.D, y0=self.y)
            if not np.all(o["status"] == int(Status.OK)) and self.y is not None:
                o = cycle_observables(K, g, self.N, self.C, self.D)  # cold start when the warm one failed
            self.solves += self.D.size
            self.maps += o["evaluations"]
            if np.all(o["status"] == int(Status.OK)):
                self.y = o["y"]
            v, dv = objective_values(o, self.objective)
            self.cache = {key: (o, v, dv)}  # SLSQP asks for values and gradients at the same point
        return self.cache[key]

    def chain(self, dv: np.ndarray, z: np.ndarray) -> np.ndarray:
        """d/d(z0, z1) from d/d(K, g)."""
        return np.stack([dv[:, _IK] * self.scale, dv[:, _IG] * math.exp(z[1])], axis=1)

    def cons(self, z: np.ndarray) -> np.ndarray:
        o, v, _ = self.eval(z)
        return np.concatenate([z[2] - v / self.scale, o["throughput"] - self.thr, self.rho_max - o["rho"]])

    def cons_jac(self, z: np.ndarray) -> np.ndarray:
        o, _, dv = self.eval(z)
        B = self.D.size
        top = np.concatenate([-self.chain(dv, z) / self.scale, np.ones((B, 1))], axis=1)
        mid = np.concatenate([self.chain(o["dthroughput"], z), np.zeros((B, 1))], axis=1)
        bot = np.concatenate([-self.chain(o["drho"], z), np.zeros((B, 1))], axis=1)
        return np.nan_to_num(np.concatenate([top, mid, bot]))


def tune_dctcp(
    rng: TuneRange,
    *,
    objective: str = "mean-queue",
    throughput_min: float = 0.99,
    rho_max: float = 0.9,
    K0: float | None = None,
    g0: float | None = None,
    maxiter: int = 40,
    max_seconds: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TuneResult:
    """K and g for DCTCP over an operating range by SLSQP with implicit-differentiation gradients.

    Parameters
    ----------
    rng : TuneRange
        The operating range and its grid of points.
    objective : str
        One of :data:`OBJECTIVES` (default "mean-queue": minimize the worst-case mean queue).
    throughput_min : float
        Required throughput at every point, fraction of C in (0, 1].
    rho_max : float
        Largest allowed return-map multiplier ρ (the cycle's contraction per period), in [1e-6, 1)
        (``BOUNDS["rho_max"]``: below that float64 cannot resolve ρ).
    K0, g0 : float, optional
        Start; default the [DCTCP-A] guideline K = 0.17·C·d_hi, g = 1/sqrt(C·d_hi + K).
    maxiter : int
        SLSQP iterations.
    max_seconds : float, optional
        Time budget; default derived from the first evaluation: 4 of them per allowed iteration, within [120, 900] s.
        When it runs out the best point so far is returned with status ``BUDGET`` (an infeasible target otherwise
        spends every iteration on ever harder cycles).
    progress : callable, optional
        ``progress(iterations, maxiter)`` after each SLSQP iteration (and ``(n, n)`` when it stops after n).
    """
    from scipy.optimize import minimize

    if not isinstance(rng, TuneRange):
        raise ValueError(f"rng={rng!r} is invalid: accepted a TuneRange")
    if objective not in OBJECTIVES:
        raise ValueError(f"objective={objective!r} is out of range: accepted one of {sorted(OBJECTIVES)}")
    thr = check_range("throughput_min", throughput_min, lo=0.0, hi=1.0, lo_open=True)
    rmax = BOUNDS["rho_max"].check("rho_max", rho_max)
    prob = _Problem(rng, objective, thr, rmax)
    bdp_hi = rng.C * rng.d[1]
    K0 = 0.17 * bdp_hi if K0 is None else check_range("K0", K0, lo=0.0, lo_open=True)
    g0 = 1 / math.sqrt(bdp_hi + K0) if g0 is None else check_range("g0", g0, lo=G_LO, hi=1.0)
    t_start = time.perf_counter()
    z0 = np.array([K0 / prob.scale, math.log(g0), 0.0])
    _, v0, _ = prob.eval(z0)
    first = time.perf_counter() - t_start
    budget = min(900.0, max(120.0, 4 * maxiter * first)) if max_seconds is None else float(max_seconds)
    prob.deadline = t_start + budget
    z0[2] = np.nanmax(v0) / prob.scale * 1.01
    path = [z0[:2].copy()]
    spent = False

    def step(z: np.ndarray) -> None:
        path.append(np.array(z[:2]))
        if progress is not None:
            progress(len(path) - 1, maxiter)

    if progress is not None:
        progress(0, maxiter)
    try:
        res = minimize(
            lambda z: z[2], z0, jac=lambda z: np.array([0.0, 0.0, 1.0]), method="SLSQP",
            constraints=[{"type": "ineq", "fun": prob.cons, "jac": prob.cons_jac}],
            bounds=[(1.0 / prob.scale, 2 * bdp_hi / prob.scale), (math.log(G_LO), 0.0), (None, None)],
            options={"maxiter": maxiter, "ftol": 1e-6}, callback=lambda z: step(z),
        )  # fmt: skip
        z, nit, message, success = res.x, int(res.nit), str(res.message), bool(res.success)
    except _OutOfTime:
        spent, success = True, False
        z = np.array([*path[-1], z0[2]])
        nit, message = len(path) - 1, f"time budget of {budget:.3g} s spent"
    prob.deadline = math.inf
    if progress is not None:
        progress(nit, nit)
    o, _, _ = prob.eval(z)
    path_arr = np.array([[p[0] * prob.scale, math.exp(p[1])] for p in path])
    feasible = np.all(prob.cons(z) >= -1e-4)
    ok = bool(success or feasible) and np.all(o["status"] == int(Status.OK)) and not spent
    msg = "" if ok else f"SLSQP: {message}" + ("" if feasible else " (constraints violated at the end)")
    return TuneResult(
        range=rng, objective=objective, throughput_min=thr, rho_max=rmax, K=float(z[0] * prob.scale),
        g=float(math.exp(z[1])), points_d=prob.D, points_N=prob.N,
        observables={k: np.asarray(o[k]) for k in _OBS + ("cycle",)},
        path=path_arr, iterations=nit, cycle_solves=prob.solves, period_maps=prob.maps,
        seconds=time.perf_counter() - t_start, optimizer_message=message,
        status=np.array([int(Status.OK if ok else Status.BUDGET if spent else Status.NOT_CONVERGED)]),
        messages=[msg],
    )  # fmt: skip


def grid_search(
    rng: TuneRange, K: np.ndarray, g: np.ndarray, *, objective: str = "mean-queue", throughput_min: float = 0.99,
    rho_max: float = 0.9,
) -> dict[str, Any]:  # fmt: skip
    """Brute force over the (K, g) grid (values only): the feasible grid optimum, the landscape, evaluation counts."""
    D, N = rng.grid()
    KK, GG = np.meshgrid(np.asarray(K, float), np.asarray(g, float), indexing="ij")
    nk, ng, B = KK.shape[0], KK.shape[1], D.size
    t0 = time.perf_counter()
    # one batch: every (K, g) at every operating point, from the sawtooth guess (no warm start to lean on)
    o = cycle_observables(
        np.repeat(KK.ravel(), B), np.repeat(GG.ravel(), B), np.tile(N, nk * ng), rng.C, np.tile(D, nk * ng),
        gradients=False,
    )  # fmt: skip
    v, _ = objective_values(o, objective)
    shape = (nk, ng, B)
    worst = v.reshape(shape).max(axis=2)
    ok = (o["status"] == int(Status.OK)).reshape(shape).all(axis=2)
    feas = ok & (o["throughput"].reshape(shape) >= throughput_min).all(axis=2)
    feas &= (o["rho"].reshape(shape) <= rho_max).all(axis=2)
    masked = np.where(feas, worst, np.inf)
    k = np.unravel_index(int(np.argmin(masked)), masked.shape)
    return {
        "K": float(KK[k]), "g": float(GG[k]), "objective_value": float(worst[k]), "feasible": feas,
        "landscape": np.where(ok, worst, np.nan), "K_grid": KK, "g_grid": GG, "cycle_solves": nk * ng * B,
        "period_maps": int(o["evaluations"]), "seconds": time.perf_counter() - t0,
    }  # fmt: skip
