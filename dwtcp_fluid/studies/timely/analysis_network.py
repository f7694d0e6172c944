"""Patched TIMELY on a parking lot: the unique fixed point of each path signal, its linearization and its roots.

At a fixed point every queue is constant, so every gradient rests at g = 0 ((T2)), where Patched TIMELY's weight
is w(0) = 1/2 and its band law (T4) rests at one RTT per rate: RTT(R) = RTT_ref·(1 + δ/(βR)) (``proofs/
timely_network.md``). On the parking lot each cross group j has link j − 1 to share with the long group only, so
the long group's per-flow rate R_0 fixes everything: R_j = (C_l − N_0 R_0)/N_j, the hop delay r_l = RTT(R_j) − d_j,
q_l = C_l r_l; the long group's own balance d_0 + f(r) = RTT(R_0) is one equation in R_0 whose left side rises and
right side falls with R_0 — one root, found here by bracketing (:func:`scipy.optimize.brentq`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import sympy as sp

from ...analysis.charroots import char_roots_multi
from ...analysis.charroots_result import CharRoots
from ...models.dctcp_network import parking_lot_routes
from ...models.timely_network import TimelyNetwork, TimelyNetworkParams, path_signal

__all__ = ["OutsideBandError", "patched_rtt", "patched_fixed_point", "patched_linearization", "patched_roots"]


class OutsideBandError(ValueError):
    """The parameters put TIMELY's fixed point outside the band (T_low, T_high) the continuum model holds in."""


def patched_rtt(R: Any, p: dict[str, Any]) -> Any:
    """The RTT (s) at which Patched TIMELY's band law (T4) rests at g = 0 for a flow of rate R (packets/s)."""
    return p["rtt_ref"] * (1 + p["delta"] / (p["beta"] * R))


def _check(model: TimelyNetwork) -> int:
    hops = model.links
    if not model.patched or model.routes != parking_lot_routes(hops):
        raise ValueError(
            f"model={model!r} is invalid: accepted a patched TimelyNetwork on parking_lot_routes({hops})"
        )
    return hops


def patched_fixed_point(model: TimelyNetwork, params: TimelyNetworkParams) -> np.ndarray:
    """The fixed point (R_1..R_m, g = 0, q_1..q_L) of a Patched TIMELY parking lot (module docstring).

    Parameters
    ----------
    model : TimelyNetwork
        A patched model on ``parking_lot_routes(k)`` (its signal decides the long group's balance).
    params : TimelyNetworkParams
        The lot's links, groups and gains.

    Returns
    -------
    ndarray
        The state (packets/s, 1, packets). Raises ``ValueError`` when no fixed point lies inside the band
        (T_low, T_high) of every group.
    """
    from scipy.optimize import brentq

    hops = _check(model)
    p = model.numeric_params(params)
    C = [p[f"C_{l + 1}"] for l in range(hops)]
    N = [p[f"N_{i + 1}"] for i in range(hops + 1)]
    d = [p[f"d_{i + 1}"] for i in range(hops + 1)]

    def state(R0: float) -> tuple[list[float], list[float]]:
        R = [R0] + [(C[l] - N[0] * R0) / N[l + 1] for l in range(hops)]
        r = [patched_rtt(R[l + 1], p) - d[l + 1] for l in range(hops)]
        return R, r

    def balance(R0: float) -> float:
        R, r = state(R0)
        s, _ = path_signal(r, [0.0] * hops, model.signal, np)
        return float(d[0] + s - patched_rtt(R0, p))

    hi = min(C) / N[0] * (1 - 1e-12)
    R0 = brentq(balance, 1e-9 * hi, hi, xtol=1e-12 * hi, rtol=1e-14)
    R, r = state(R0)
    rtts = [patched_rtt(v, p) for v in R]
    if min(r) <= 0 or max(rtts) >= p["T_high"] or min(rtts) <= p["T_low"]:
        raise OutsideBandError(
            f"the fixed point's RTTs {[f'{v:.4g}' for v in rtts]} s leave the band (T_low, T_high) = "
            f"({p['T_low']:.4g}, {p['T_high']:.4g}) s or a queue is empty: accepted a base RTT, capacity and "
            "flows whose fixed point lies inside the band"
        )
    return np.array(R + [0.0] * len(R) + [C[l] * r[l] for l in range(hops)])


@functools.lru_cache(maxsize=16)
def _linearization_fns(model: TimelyNetwork) -> tuple[Any, Any, Any, tuple[str, ...]]:
    """∂F/∂x, ∂F/∂x(t − τ) and F of the model's delayed right-hand side, derived once and lambdified; called with
    the state, the delayed state and the parameters (in ``model.param_names`` order)."""
    xs, ps = model.symbols()
    (xd,) = model.delayed_symbol_sets()
    F = model.sym_rhs(delayed=True)
    names = tuple(model.param_names)
    args = [*xs, *xd, *(ps[k] for k in names)]
    fns = [
        sp.lambdify(args, e, modules="numpy")
        for e in (F.jacobian(sp.Matrix(xs)), F.jacobian(sp.Matrix(xd)), F)
    ]
    return fns[0], fns[1], fns[2], names


def patched_linearization(
    model: TimelyNetwork, params: TimelyNetworkParams, x_star: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """A0, A1 of x' = A0·x + A1·x(t − τ) at ``x_star`` from the model's symbolic Jacobians, the right-hand side
    there (≈ 0 at a fixed point) and τ (s). Needs a differentiable signal there: SUM, or SUM_SQU with a queue,
    not MAX at equal hop delays (max is not differentiable where two arguments tie)."""
    if model.group_delays:
        raise ValueError("model.group_delays=True is invalid here: accepted one loop delay τ")
    p = model.numeric_params(params)
    jac0, jac1, rhs, names = _linearization_fns(model)
    args = [*x_star, *x_star, *(p[k] for k in names)]
    with np.errstate(all="ignore"):  # NumPy's select evaluates every branch of the clipped terms
        A0, A1 = np.asarray(jac0(*args), dtype=float), np.asarray(jac1(*args), dtype=float)
        F0 = np.asarray(rhs(*args), dtype=float).ravel()
    return A0, A1, F0, float(p["tau"])


def patched_roots(model: TimelyNetwork, params: TimelyNetworkParams, *, n_roots: int = 4) -> CharRoots:
    """Rightmost characteristic roots det(λI − A0 − A1·e^{−λτ}) = 0 at the Patched fixed point (1/s)."""
    x = patched_fixed_point(model, params)
    A0, A1, _, tau = patched_linearization(model, params, x)
    return char_roots_multi(A0, [A1], [np.asarray(tau)], n_roots=n_roots)
