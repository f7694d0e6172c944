"""DCTCP limit cycles of the normalized model (11)-(14) of 001_2aee9d9fe081c28a.txt (sections 3.1-3.3).

For w̄ > 2 the normalized model has no fixed point and oscillates on a limit cycle. The cycle crosses the
switching plane S = {q̃ = 0} downward at x*_α (t = 0) and upward at x*_β (t = 1 + h_α); the mark reaches the
sources one R* later, so along the cycle the input u(t) = p̃(t − 1) is 1 on [0, 1), 0 on [1, 2 + h_α), 1 again
from one unit after the upward crossing. Because consecutive crossings are more than one unit apart (h_α, h_β > 0)
the delay line holds nothing but "the last crossing was s ago", so the state *at a crossing* is the 3-vector x: the
return map to S is an ordinary map of (W̃, α̃) (q̃ = 0 on S), and its fixed point is the cycle.

:func:`find_limit_cycle` integrates the return map a few times from a sawtooth guess (approach to the attractor),
then solves P(y) = y by Newton with the exact Jacobian of P (the variational equation Φ' = J_F Φ along each half
of the orbit, projected onto S at the end of each half, see :mod:`.floquet`). Every piece of F and J_F comes from
:class:`~dwtcp_fluid.models.dctcp.DctcpNormalized` (never retyped here). With the queue floor of section 3.3.2
(``psi=``) the floor is a sliding mode; Newton then uses a finite-difference Jacobian.

For w̄ ≤ 2 there is no cycle: the finder simulates the model with the reference DDE solver, checks that it settles
at the fixed point (2, 1, 2/w̄ − 1) and returns a :class:`FixedPoint` saying so.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

from ..models.dctcp import DctcpNormalized
from ..params import DctcpParams, check_range

__all__ = [
    "LimitCycle",
    "FixedPoint",
    "CycleStructureError",
    "find_limit_cycle",
    "find_limit_cycle_physical",
    "return_map",
    "half_map",
    "HalfOrbit",
    "MODEL",
    "F_of",
    "J_of",
]

#: The one model definition every function here evaluates (F and J_F come from it).
MODEL = DctcpNormalized()
_RTOL = 1e-11
_ATOL = 1e-12


class CycleStructureError(RuntimeError):
    """The trajectory left the cycle structure the return map assumes (a recrossing within one R*)."""


@functools.lru_cache(maxsize=4)
def _jac_lambdified(u: int) -> Callable[..., np.ndarray]:
    # one lambdified 3x3 matrix from the model's own symbolic Jacobian (faster than entry-wise calls)
    xs, ps = MODEL.symbols()
    J = MODEL.jacobian(u)
    return sp.lambdify(list(xs) + [ps[k] for k in MODEL.param_names], J, modules="numpy")


def F_of(x: np.ndarray, u: int, p: dict[str, float]) -> np.ndarray:
    """F(x, u) of eqs. (11)-(13) of 001_2aee9d9fe081c28a.txt, from :data:`MODEL` (x(t − 1) enters only via u)."""
    return np.array(MODEL.rhs(x, x, float(u), p, np), dtype=float)


def J_of(x: np.ndarray, u: int, p: dict[str, float]) -> np.ndarray:
    """J_F = ∂F/∂x(x, u), 3x3, from :meth:`DctcpNormalized.jacobian` (eqs. (11)-(13) of 001_2aee9d9fe081c28a.txt)."""
    return np.asarray(
        _jac_lambdified(int(u))(x[0], x[1], x[2], *(p[k] for k in MODEL.param_names)), dtype=float
    )


def _params(wbar: float, g: float, psi: float | None) -> dict[str, float]:
    check_range("wbar", wbar, lo=0.0, lo_open=True, why="w̄ = (C·d + K)/N in packets")
    check_range("g", g, lo=0.0, hi=1.0, lo_open=True, why="EWMA gain")
    if psi is not None:
        check_range("psi", psi, lo=0.0, lo_open=True, why="ψ = K/(C·d)")
    return {"wbar": float(wbar), "g": float(g), "psi": float(psi) if psi is not None else 0.0}


@dataclass
class HalfOrbit:
    """One half of the orbit, from a crossing of S to the next crossing in the other direction.

    Times in units of R*. ``phi`` is the state-transition matrix Φ(t_end, 0) of the variational equation,
    ``jint`` the entry-wise integral ∫ J_F ds the paper exponentiates (both None without ``variational``).
    """

    x0: np.ndarray
    x_end: np.ndarray
    t_end: float
    u_first: int
    q_min: float
    q_max: float
    arrivals: float  # ∫ W̃/(w̄(1+q̃)) dt over the half (normalized arrival rate integrated)
    floor_time: float
    phi: np.ndarray | None = None
    jint: np.ndarray | None = None
    t: np.ndarray | None = None
    x: np.ndarray | None = None


def _segment(y0, u, t0, t_end, p, var, floor, stop_dir, dense):
    """Integrate with fixed input u from t0 up to t_end or to a crossing of q̃ = 0 in ``stop_dir``.

    Returns (t, y, crossed, extrema q values, floor time, samples). The floor (if any) is a sliding mode:
    held while the unheld dq̃/dt < 0.
    """
    n = len(y0)
    t, y = t0, y0.copy()
    held = False
    floor_time = 0.0
    extrema: list[float] = []
    ts, xs = [], []
    while True:

        def fun(tt, yy, held=held):
            x = yy[:3]
            f = F_of(x, u, p)
            if held:
                f[2] = 0.0
            out = np.empty(n)
            out[:3] = f
            out[3] = x[0] / (p["wbar"] * (1.0 + x[2]))
            if var:
                J = J_of(x, u, p)
                out[4:13] = (J @ yy[4:13].reshape(3, 3)).ravel()
                out[13:22] = J.ravel()
            return out

        ev_cross = lambda tt, yy: yy[2]  # noqa: E731
        ev_cross.terminal, ev_cross.direction = True, float(stop_dir or 0)
        ev_ext = lambda tt, yy: F_of(yy[:3], u, p)[2]  # noqa: E731
        ev_ext.terminal, ev_ext.direction = False, 0.0
        events = [ev_cross, ev_ext]
        if floor is not None:
            if held:
                ev_f = lambda tt, yy: F_of(yy[:3], u, p)[2]  # noqa: E731  leave when unheld q' turns positive
                ev_f.terminal, ev_f.direction = True, 1.0
            else:
                ev_f = lambda tt, yy: yy[2] - floor  # noqa: E731
                ev_f.terminal, ev_f.direction = True, -1.0
            events.append(ev_f)
        sol = solve_ivp(
            fun, (t, t_end), y, method="DOP853", rtol=_RTOL, atol=_ATOL, events=events, dense_output=dense
        )
        if sol.status == -1 or not np.all(np.isfinite(sol.y[:, -1])):
            raise CycleStructureError(f"integration failed at t={sol.t[-1]!r}: {sol.message}")
        if sol.status == 1 and len(sol.t) >= 2 and sol.t[-1] > sol.t[-2]:
            # the state at a terminal event comes from the dense interpolant (error well above rtol, which
            # would dominate finite differences of the return map); redo the last piece as one controlled step
            te = float(sol.t[-1])
            again = solve_ivp(
                fun, (float(sol.t[-2]), te), sol.y[:, -2], method="DOP853", rtol=_RTOL, atol=_ATOL
            )
            if again.status == 0:
                sol.y[:, -1] = again.y[:, -1]
        if dense:
            ts.append(sol.t)
            xs.append(sol.y[:3].T)
        if not held:
            extrema.extend(float(v[2]) for v in sol.y_events[1])
        else:
            floor_time += float(sol.t[-1] - t)
        t, y = float(sol.t[-1]), sol.y[:, -1].copy()
        if stop_dir is not None and sol.status == 1 and len(sol.t_events[0]):
            y[2] = 0.0
            return t, y, True, extrema, floor_time, ts, xs
        if sol.status == 1 and floor is not None and len(sol.t_events[2]):
            held = not held
            if held:
                y[2] = floor
                extrema.append(floor)
            continue
        return t, y, False, extrema, floor_time, ts, xs


def half_map(
    x0: np.ndarray,
    u_first: int,
    p: dict[str, float],
    *,
    variational: bool = False,
    floor: float | None = None,
    dense: bool = False,
    t_max: float = 1e4,
) -> HalfOrbit:
    """Follow the orbit from a crossing of S at x0 to the next crossing in the other direction.

    The input before the crossing, ``u_first`` (1 after a downward crossing), stays on for one unit (the delay
    R* = 1); then it flips until q̃ crosses 0 again. Normalized model, eqs. (11)-(14) of 001_2aee9d9fe081c28a.txt.
    Raises :class:`CycleStructureError` if q̃ recrosses 0 during the first unit (the return map then needs the
    delay line, not just x) or no crossing comes within ``t_max``.
    """
    y0 = np.zeros(22 if variational else 4)
    y0[:3] = x0
    y0[2] = 0.0
    if variational:
        y0[4:13] = np.eye(3).ravel()
    back_dir = 1 if u_first == 1 else -1  # the crossing that ends this half goes back across S
    t1, y1, crossed, ext1, fl1, ts1, xs1 = _segment(
        y0, u_first, 0.0, 1.0, p, variational, floor, back_dir, dense
    )
    if crossed:
        raise CycleStructureError(
            f"q̃ crossed 0 again at t={t1:.6g} < 1 R* after the crossing at x={np.round(x0, 6).tolist()}"
        )
    t2, y2, crossed, ext2, fl2, ts2, xs2 = _segment(
        y1, 1 - u_first, 1.0, t_max, p, variational, floor, back_dir, dense
    )
    if not crossed:
        raise CycleStructureError(f"no crossing of q̃ = 0 within t_max={t_max:g} R* (no limit cycle)")
    qs = [0.0, float(y1[2]), *ext1, *ext2]
    out = HalfOrbit(
        x0=np.asarray(x0, float).copy(),
        x_end=y2[:3].copy(),
        t_end=t2,
        u_first=u_first,
        q_min=min(qs),
        q_max=max(qs),
        arrivals=float(y2[3]),
        floor_time=fl1 + fl2,
    )
    if variational:
        out.phi = y2[4:13].reshape(3, 3).copy()
        out.jint = y2[13:22].reshape(3, 3).copy()
    if dense:
        out.t = np.concatenate(ts1 + ts2)
        out.x = np.concatenate(xs1 + xs2)
    return out


def return_map(
    y: np.ndarray,
    p: dict[str, float],
    *,
    variational: bool = False,
    floor: float | None = None,
    dense: bool = False,
) -> tuple[HalfOrbit, HalfOrbit]:
    """The two halves of the Poincaré map P of section 3.2 of 001_2aee9d9fe081c28a.txt, started at a downward
    crossing x = (W̃, α̃, 0) with y = (W̃, α̃); P(y) is the second half's ``x_end[:2]``."""
    xa = np.array([y[0], y[1], 0.0])
    first = half_map(xa, 1, p, variational=variational, floor=floor, dense=dense)
    second = half_map(first.x_end, 0, p, variational=variational, floor=floor, dense=dense)
    return first, second


def saltation_projection(x: np.ndarray, u: int, p: dict[str, float]) -> np.ndarray:
    """I − F(x, u)·c / (c·F(x, u)), c = [0, 0, 1]: the projection onto S along the flow (Theorem 1 of
    001_2aee9d9fe081c28a.txt); it absorbs the change of the crossing time."""
    f = F_of(x, u, p)
    if abs(f[2]) < 1e-14:
        raise CycleStructureError(f"the orbit is tangent to S at x={x.tolist()} (c·F = {f[2]!r})")
    return np.eye(3) - np.outer(f, np.array([0.0, 0.0, 1.0])) / f[2]


def monodromy(first: HalfOrbit, second: HalfOrbit, p: dict[str, float]) -> np.ndarray:
    """Z1·Z2 with the true state-transition matrices: the Jacobian of the return map (3x3, third row 0)."""
    Z2 = saltation_projection(first.x_end, 0, p) @ first.phi
    Z1 = saltation_projection(second.x_end, 1, p) @ second.phi
    return Z1 @ Z2


@dataclass
class LimitCycle:
    """The limit cycle of the normalized DCTCP model for one (w̄, g) (and optionally ψ for the queue floor).

    Times in units of R*, windows in packets, q̃ in units of C·R* (q = K + q̃·C·R*).
    """

    wbar: float
    g: float
    psi: float | None
    x_alpha: np.ndarray
    x_beta: np.ndarray
    h_alpha: float
    h_beta: float
    period: float
    q_min: float
    q_max: float
    throughput: float
    floor_time: float
    newton_iterations: int
    residual: float
    monodromy: np.ndarray | None
    t: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    x: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 3)))
    regime: str = "limit_cycle"

    @property
    def params(self) -> dict[str, float]:
        return _params(self.wbar, self.g, self.psi)

    @property
    def rho(self) -> float:
        """Spectral radius of the return-map Jacobian (NaN with the floor, where it is not computed)."""
        return (
            float(np.max(np.abs(np.linalg.eigvals(self.monodromy))))
            if self.monodromy is not None
            else math.nan
        )

    def summary(self) -> dict[str, Any]:
        return {
            "regime": self.regime,
            "wbar": self.wbar,
            "g": self.g,
            "psi": self.psi,
            "q_min": self.q_min,
            "q_max": self.q_max,
            "period": self.period,
            "h_alpha": self.h_alpha,
            "h_beta": self.h_beta,
            "throughput": self.throughput,
            "x_alpha": self.x_alpha.tolist(),
            "x_beta": self.x_beta.tolist(),
            "newton_iterations": self.newton_iterations,
            "residual": self.residual,
        }

    def physical(self, params: DctcpParams) -> dict[str, float]:
        """The cycle in physical units for a DCTCP setting with the same w̄ (queue in packets, times in s)."""
        cr = params.link.C * params.R_star
        return {
            "queue_min_packets": params.K + self.q_min * cr,
            "queue_max_packets": params.K + self.q_max * cr,
            "period_s": self.period * params.R_star,
            "throughput_pps": self.throughput * params.link.C,
            "window_min_packets": float(np.min(self.x[:, 0])) if len(self.x) else math.nan,
            "window_max_packets": float(np.max(self.x[:, 0])) if len(self.x) else math.nan,
        }

    def to_dataset(self):
        """The orbit over one period as an ``xarray.Dataset`` (time from x*_α, in units of R*)."""
        import xarray as xr

        from .. import __version__

        coords = {"time": ("time", self.t, {"units": "R*"})}
        units = MODEL.state_units
        data = {n: ("time", self.x[:, i], {"units": units[i]}) for i, n in enumerate(MODEL.states)}
        attrs = {k: v for k, v in self.summary().items() if v is not None and not isinstance(v, list)}
        attrs.update(
            package_version=__version__,
            model=repr(MODEL),
            source="eqs. (11)-(14) of 001_2aee9d9fe081c28a.txt",
            solver=f"solve_ivp DOP853 rtol={_RTOL:g} atol={_ATOL:g}, Newton on the return map",
        )
        return xr.Dataset(data, coords=coords, attrs=attrs)


@dataclass
class FixedPoint:
    """w̄ ≤ 2: the model settles at (W̃, α̃, q̃) = (2, 1, 2/w̄ − 1); there is no cycle (section 3.1)."""

    wbar: float
    g: float
    state: np.ndarray
    final_state: np.ndarray
    distance: float
    t_end: float
    converged: bool
    regime: str = "fixed_point"

    @property
    def message(self) -> str:
        how = "converged" if self.converged else "did NOT converge"
        msg = (
            f"w̄ = {self.wbar:g} ≤ 2: no limit cycle; the trajectory {how} to the fixed point "
            f"(W̃, α̃, q̃) = (2, 1, {self.state[2]:.6g}) (distance {self.distance:.2e} at t = {self.t_end:g} R*)"
        )
        if not self.converged and self.state[2] < 1e-6:
            msg += (
                "; at w̄ = 2 the fixed point lies on the switching plane q̃ = 0: the trajectory approaches it from"
                " above, and once q̃ crosses 0 the large, slow oscillation of w̄ slightly above 2 takes over"
            )
        return msg

    def summary(self) -> dict[str, Any]:
        return {
            "regime": self.regime,
            "wbar": self.wbar,
            "g": self.g,
            "fixed_point": self.state.tolist(),
            "final_state": self.final_state.tolist(),
            "distance": self.distance,
            "converged": self.converged,
            "message": self.message,
        }


def _fixed_point(wbar: float, g: float, t_end: float) -> FixedPoint:
    from ..dde import solve

    p = _params(wbar, g, None)
    star = np.array([2.0, 1.0, 2.0 / wbar - 1.0])
    # start away from the fixed point, with the queue above the threshold (the history then marks, u = 1):
    # starting on q̃ = 0 with dq̃/dt = 0 would be degenerate at w̄ = 2, where the fixed point lies on S
    x0 = star + np.array([-0.5, -0.4, 0.1])
    # α relaxes at rate g/(1 + q̃*) there: simulate at least 30 of those time constants
    t_end = min(1e6, max(t_end, 30.0 * (1.0 + star[2]) / g))
    sol = solve(MODEL, p, x0, (0.0, t_end), method="reference", rtol=1e-9, atol=1e-11)
    xf = sol.x[0, -1]
    dist = float(np.max(np.abs(xf - star)))
    return FixedPoint(wbar, g, star, xf, dist, t_end, bool(sol.ok and dist < 1e-6))


def _sawtooth_guess(wbar: float) -> np.ndarray:
    # α of the sawtooth/hybrid picture ≈ sqrt(2/w̄); W at the downward crossing a bit below w̄
    a = min(1.0, math.sqrt(2.0 / wbar))
    return np.array([wbar * (1.0 - 0.25 * a), a])


def _fd_jacobian(y, p, floor, rel=1e-6):
    J = np.empty((2, 2))
    for j in range(2):
        dy = np.zeros(2)
        dy[j] = rel * max(abs(y[j]), 1e-3)
        fp = return_map(y + dy, p, floor=floor)[1].x_end[:2]
        fm = return_map(y - dy, p, floor=floor)[1].x_end[:2]
        J[:, j] = (fp - fm) / (2 * dy[j])
    return J


def find_limit_cycle(
    wbar: float,
    g: float,
    *,
    psi: float | None = None,
    approach: int = 4,
    tol: float = 1e-10,
    max_newton: int = 40,
    y0: np.ndarray | None = None,
    fixed_point_time: float = 400.0,
) -> LimitCycle | FixedPoint:
    """Limit cycle of the normalized DCTCP model, eqs. (11)-(14) of 001_2aee9d9fe081c28a.txt.

    Parameters
    ----------
    wbar : float
        w̄ = (C·d + K)/N, packets (> 0). For w̄ ≤ 2 a :class:`FixedPoint` is returned.
    g : float
        EWMA gain, 0 < g ≤ 1.
    psi : float, optional
        ψ = K/(C·d) > 0: apply the queue floor q̃ ≥ −ψ/(1+ψ) of section 3.3.2 (throughput < 1 when reached).
    approach : int
        Return-map iterations from the sawtooth guess before Newton.
    tol : float
        Newton stops when max |P(y) − y| < tol·max(1, |y|).
    y0 : array (2,), optional
        Initial (W̃, α̃) at a downward crossing, instead of the sawtooth guess.
    fixed_point_time : float
        Minimum simulated time (R*) used to confirm the fixed point when w̄ ≤ 2 (at least 30 time constants
        (1 + q̃*)/g of α are simulated).

    Returns
    -------
    LimitCycle or FixedPoint
    """
    p = _params(wbar, g, psi)
    if wbar <= 2.0:
        return _fixed_point(wbar, g, fixed_point_time)
    floor = -psi / (1.0 + psi) if psi is not None else None
    y = _sawtooth_guess(wbar) if y0 is None else np.asarray(y0, float).copy()
    y[0] = min(y[0], wbar * (1.0 - 1e-3))  # a downward crossing needs W̃ < w̄ (dq̃/dt < 0)
    for _ in range(approach):
        y = return_map(y, p, floor=floor)[1].x_end[:2]
    it, res = 0, math.inf
    for it in range(1, max_newton + 1):  # noqa: B007  (it is reported as newton_iterations)
        first, second = return_map(y, p, variational=floor is None, floor=floor)
        r = second.x_end[:2] - y
        res = float(np.max(np.abs(r)))
        if res < tol * max(1.0, float(np.max(np.abs(y)))):
            break
        if floor is None:
            DP = monodromy(first, second, p)[:2, :2]
        else:
            DP = _fd_jacobian(y, p, floor)
        step = np.linalg.solve(DP - np.eye(2), -r)
        # damp steps that would leave the region where a downward crossing exists (W̃ < w̄, 0 < α̃ ≤ 1)
        lam = 1.0
        while lam > 1e-3 and not (0 < y[0] + lam * step[0] < wbar and 0 < y[1] + lam * step[1] <= 1.0):
            lam *= 0.5
        y = y + lam * step
    else:
        raise CycleStructureError(f"Newton did not converge for w̄={wbar!r}, g={g!r}: residual {res:.3e}")
    first, second = return_map(y, p, variational=floor is None, floor=floor, dense=True)
    T = first.t_end + second.t_end
    t = np.concatenate([first.t, first.t_end + second.t])
    x = np.concatenate([first.x, second.x])
    keep = np.concatenate([[True], np.diff(t) > 0])
    return LimitCycle(
        wbar=float(wbar),
        g=float(g),
        psi=None if psi is None else float(psi),
        x_alpha=np.array([y[0], y[1], 0.0]),
        x_beta=first.x_end.copy(),
        h_alpha=first.t_end - 1.0,
        h_beta=second.t_end - 1.0,
        period=T,
        q_min=min(first.q_min, second.q_min),
        q_max=max(first.q_max, second.q_max),
        throughput=(first.arrivals + second.arrivals) / T,
        floor_time=first.floor_time + second.floor_time,
        newton_iterations=it,
        residual=res,
        monodromy=monodromy(first, second, p) if floor is None else None,
        t=t[keep],
        x=x[keep],
    )


def find_limit_cycle_physical(
    params: DctcpParams, *, underflow: bool = True, **kw: Any
) -> LimitCycle | FixedPoint:
    """:func:`find_limit_cycle` for a physical DCTCP setting: w̄ = (C·d + K)/N, g, and ψ = K/(C·d) when
    ``underflow`` (the queue cannot go below 0; section 3.3.2 of 001_2aee9d9fe081c28a.txt)."""
    if not isinstance(params, DctcpParams):
        raise ValueError(f"params={params!r} is invalid: accepted a DctcpParams")
    psi = params.psi if (underflow and params.K > 0) else None
    return find_limit_cycle(params.wbar, params.g, psi=psi, **kw)
