"""Limit cycles of switched fluid models: Newton on the return map to the switching surface.

:func:`limit_cycle` works for any model whose delay enters through the switch only (:class:`.return_map.CycleMap`):
it solves P(y) = y for the coordinates y of a downward crossing of S = {σ = 0}, with the exact Jacobian of P (the
variational equation Φ' = J_F Φ along each half of the orbit, projected onto S at the end of each half, see
:mod:`.floquet`) or, when a state is held on a bound somewhere (a sliding mode), a finite-difference Jacobian.

:func:`find_limit_cycle` is the normalized DCTCP model (11)-(14) of [DCTCP-A] (sections 3.1-3.3), the paper's
case. For w̄ > 2 it has no fixed point and oscillates on a cycle that crosses S downward at x*_α (t = 0) and upward
at x*_β (t = 1 + h_α); the mark reaches the sources one R* later, so u(t) = p̃(t − 1) is 1 on [0, 1), 0 on
[1, 2 + h_α), 1 again from one unit after the upward crossing. The finder iterates the return map a few times
from a sawtooth guess, then runs Newton. With the queue floor of section 3.3.2 (``psi=``) the floor is a sliding
mode. For w̄ ≤ 2 there is no cycle: the finder simulates the model with the reference DDE solver, checks that
it settles at the fixed point (2, 1, 2/w̄ − 1) and returns a :class:`FixedPoint` saying so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..formulas import dctcp_fixed_point_normalized
from ..models.base import FluidModel
from ..params import DctcpParams
from ..results import Status
from .cycle_results import CycleSummary, FixedPoint, FixedPointSummary, LimitCycle
from .return_map import (
    MODEL,
    CycleMap,
    F_of,
    HalfOrbit,
    J_of,
    _params,
    half_map,
    monodromy,
    normalized_map,
    return_map,
    saltation_projection,
)

__all__ = [
    "LimitCycle",
    "CycleSummary",
    "FixedPoint",
    "FixedPointSummary",
    "limit_cycle",
    "find_limit_cycle",
    "find_limit_cycle_physical",
    "return_map",
    "half_map",
    "HalfOrbit",
    "MODEL",
    "F_of",
    "J_of",
    "monodromy",
    "saltation_projection",
]


def _failed(cm: CycleMap, y: np.ndarray, status: Status, message: str, it: int, res: float) -> LimitCycle:
    x = cm.lift(y)
    nan = math.nan
    return LimitCycle(
        model=cm.model, params=cm.p, x_alpha=x, x_beta=np.full_like(x, nan), h_alpha=nan, h_beta=nan,
        period=nan, q_min=nan, q_max=nan, throughput=nan, floor_time=nan, newton_iterations=it, residual=res,
        monodromy=None, status=np.array([int(status)]), messages=[message],
    )  # fmt: skip


def _slides(cm: CycleMap, first: HalfOrbit, second: HalfOrbit) -> bool:
    """Whether the orbit is held on a declared bound, or grazes the queue's: then the variational equation
    (hence the exact monodromy) does not describe the return map. A declared bound the orbit stays clear of
    changes nothing."""
    if not cm.bounds:
        return False
    if first.floor_time + second.floor_time > 0:
        return True
    q_min, q_max = min(first.q_min, second.q_min), max(first.q_max, second.q_max)
    for i, b, sign in cm.bounds:
        if i == cm.qi:
            gap = (q_min - b) if sign > 0 else (b - q_max)
            if gap <= 1e-9 * (1.0 + abs(b) + (q_max - q_min)):
                return True
    return False


def limit_cycle(
    model: FluidModel,
    params: Any,
    y0: np.ndarray,
    *,
    approach: int = 4,
    tol: float = 1e-10,
    max_newton: int = 40,
    feasible: Callable[[np.ndarray], bool] | None = None,
) -> LimitCycle:
    """The limit cycle of ``model`` through a downward crossing of its switching surface near ``y0``.

    Parameters
    ----------
    model : FluidModel
        Any model whose delay enters through the switch only (its right-hand side never reads x(t − τ_d)).
    params : parameter object or mapping
    y0 : array (n − 1,)
        Coordinates on S of a guess of the downward crossing (the state without the component σ = 0 is
        solved for: ``CycleMap(model, params).keep`` names them).
    approach : int
        Return-map iterations before Newton.
    tol : float
        Newton stops when max |P(y) − y| < tol·max(1, |y|).
    max_newton : int
        Newton iterations before the status NOT_CONVERGED.
    feasible : callable, optional
        Newton steps are halved until ``feasible(y)`` holds (where a downward crossing exists).

    Returns
    -------
    LimitCycle
        With status OK, or STRUCTURE / NO_CROSSING / NOT_CONVERGED / INTEGRATOR_FAILED and a message.
    """
    cm = CycleMap(model, params)
    y = np.asarray(y0, dtype=float).copy()
    if y.shape != (cm.n - 1,):
        raise ValueError(
            f"y0 has shape {y.shape}: accepted ({cm.n - 1},) (coordinates on the switching surface)"
        )
    # the variational equation does not hold across a sliding mode: where the orbit is held on a bound (or
    # grazes one) the Jacobian is by finite differences; a model that declares a bound its orbit never reaches
    # keeps the exact Jacobian and its Floquet multipliers
    for _ in range(approach):
        first, second = cm.return_map(y)
        if second.status != Status.OK:
            return _failed(cm, y, second.status, second.message, 0, math.inf)
        y = second.x_end[cm.keep]
    it, res = 0, math.inf
    sliding = False
    for it in range(1, max_newton + 1):  # noqa: B007  (it is reported as newton_iterations)
        first, second = cm.return_map(y, variational=True)
        if second.status != Status.OK:
            return _failed(cm, y, second.status, second.message, it, res)
        sliding = _slides(cm, first, second)
        r = second.x_end[cm.keep] - y
        res = float(np.max(np.abs(r)))
        if res < tol * max(1.0, float(np.max(np.abs(y)))):
            break
        if sliding:
            DP = cm.fd_jacobian(y, 1e-6)
        else:
            DP = (cm.monodromy(first, second) @ cm.lift_jacobian(y))[cm.keep]
        step = np.linalg.solve(DP - np.eye(y.size), -r)
        lam = 1.0
        while feasible is not None and lam > 1e-3 and not feasible(y + lam * step):
            lam *= 0.5
        y = y + lam * step
    else:
        msg = f"Newton did not converge for {model.name} at {cm.p}: residual {res:.3e}"
        return _failed(cm, y, Status.NOT_CONVERGED, msg, it, res)
    first, second = cm.return_map(y, variational=True, dense=True)
    sliding = _slides(cm, first, second)
    T = first.t_end + second.t_end
    t = np.concatenate([first.t, first.t_end + second.t])
    x = np.concatenate([first.x, second.x])
    keep = np.concatenate([[True], np.diff(t) > 0])
    return LimitCycle(
        model=model,
        params=cm.p,
        x_alpha=cm.lift(y),
        x_beta=first.x_end.copy(),
        h_alpha=first.t_end - cm.D,
        h_beta=second.t_end - cm.D,
        period=T,
        q_min=min(first.q_min, second.q_min),
        q_max=max(first.q_max, second.q_max),
        throughput=(first.utilization + second.utilization) / T,
        floor_time=first.floor_time + second.floor_time,
        newton_iterations=it,
        residual=res,
        monodromy=None if sliding else cm.monodromy(first, second),
        t=t[keep],
        x=x[keep],
    )


# --- the normalized DCTCP model of [DCTCP-A] ----------------------------------------------------------------


def _fixed_point(wbar: float, g: float, t_end: float) -> FixedPoint:
    from ..dde import solve

    p = _params(wbar, g, None)
    star = dctcp_fixed_point_normalized(wbar)
    # start away from the fixed point, with the queue above the threshold (the history then marks, u = 1):
    # starting on q̃ = 0 with dq̃/dt = 0 would be degenerate at w̄ = 2, where the fixed point lies on S
    x0 = star + np.array([-0.5, -0.4, 0.1])
    # α relaxes at rate g/(1 + q̃*) there: simulate at least 30 of those time constants
    t_end = min(1e6, max(t_end, 30.0 * (1.0 + star[2]) / g))
    sol = solve(MODEL, p, x0, (0.0, t_end), method="reference", rtol=1e-9, atol=1e-11)
    xf = sol.x[0, -1]
    dist = float(np.max(np.abs(xf - star)))
    st = Status.OK if (sol.ok and dist < 1e-6) else Status.NOT_CONVERGED
    return FixedPoint(wbar, g, star, xf, dist, t_end, status=np.array([int(st)]))


def _sawtooth_guess(wbar: float) -> np.ndarray:
    # α of the sawtooth/hybrid picture ≈ sqrt(2/w̄); W at the downward crossing a bit below w̄
    a = min(1.0, math.sqrt(2.0 / wbar))
    return np.array([wbar * (1.0 - 0.25 * a), a])


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
    """Limit cycle of the normalized DCTCP model, [DCTCP-A] eqs. (11)-(14).

    Parameters
    ----------
    wbar : float
        w̄ = (C·d + K)/N, packets (> 0). For w̄ ≤ 2 a :class:`FixedPoint` is returned.
    g : float
        EWMA gain, 0 < g ≤ 1.
    psi : float, optional
        ψ = K/(C·d) > 0: apply the queue floor q̃ ≥ −ψ/(1+ψ) of section 3.3.2 (throughput < 1 when reached).
    approach, tol, max_newton
        As :func:`limit_cycle`.
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

    def feasible(v: np.ndarray) -> bool:
        # where a downward crossing exists: W̃ < w̄, 0 < α̃ ≤ 1
        return bool(0 < v[0] < wbar and 0 < v[1] <= 1.0)

    model = normalized_map(p, floor).model
    return limit_cycle(model, p, y, approach=approach, tol=tol, max_newton=max_newton, feasible=feasible)


def find_limit_cycle_physical(
    params: DctcpParams, *, underflow: bool = True, **kw: Any
) -> LimitCycle | FixedPoint:
    """:func:`find_limit_cycle` for a physical DCTCP setting ``params``: w̄ = (C·d + K)/N, g, and ψ = K/(C·d) when
    ``underflow`` (the queue cannot go below 0; section 3.3.2 of [DCTCP-A]); ``kw`` go to :func:`find_limit_cycle`."""
    if not isinstance(params, DctcpParams):
        raise ValueError(f"params={params!r} is invalid: accepted a DctcpParams")
    psi = params.psi if (underflow and params.K > 0) else None
    return find_limit_cycle(params.wbar, params.g, psi=psi, **kw)
