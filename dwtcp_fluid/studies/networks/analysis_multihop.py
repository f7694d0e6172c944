"""The parking lot's mean-field fixed point of the DCTCP network model (:mod:`dwtcp_fluid.models.dctcp_network`).

With the marks replaced by their long-run fractions p_l ∈ (0, 1) (the Filippov reading of the switched model: a
link whose queue rests on its threshold q_l = K_l is marked a fraction p_l of the time), the model's fixed point
is α_i = P_i, W_i = 2/P_i² with P_i = 1 − Π_{l ∈ route i}(1 − p_l), and every bottleneck link full,
Σ_i A_li·N_i·W_i/R_i = C_l, R_i = d_i + Σ_{l ∈ route i} K_l/C_l. ``proofs/multihop.md`` derives it from the model
with SymPy; this module solves the symmetric parking lot (k equal links, N_long long flows over all of them,
N_cross cross flows on each) numerically, where p is one root of a scalar equation.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from ...analysis.charroots import CharRoots, char_roots, char_roots_multi
from ...models.dctcp_network import DctcpNetwork, NetworkParams, parking_lot_routes
from ...params import check_range

__all__ = [
    "ParkingLotFixedPoint",
    "parking_lot_fixed_point",
    "parking_lot_linearization",
    "parking_lot_spectrum",
]


@dataclass(frozen=True)
class ParkingLotFixedPoint:
    """The symmetric parking lot's fixed point: per-link mark fraction, per-flow windows, rates and shares.

    ``p`` (per link), ``P_long`` (path mark fraction of a long flow), ``W_long``/``W_cross`` (packets),
    ``R_long``/``R_cross`` (s), ``x_long``/``x_cross`` (packets/s per flow), ``share_long`` (a long flow's
    rate over C), ``ratio`` (x_long/x_cross).
    """

    hops: int
    p: float
    P_long: float
    W_long: float
    W_cross: float
    R_long: float
    R_cross: float
    x_long: float
    x_cross: float
    share_long: float
    ratio: float


def parking_lot_fixed_point(
    hops: int,
    C: float,
    K: float,
    d: float,
    n_long: int = 1,
    n_cross: int = 1,
    *,
    marks: str = "independent",
    ramp: float = 0.0,
    d_long: float | None = None,
) -> ParkingLotFixedPoint:
    """Solve n_long·2/(P²R_long) + n_cross·2/(p²R_cross) = C for p (C in packets/s, d in s).

    ``marks="independent"``: the hops mark independently, P = 1 − (1 − p)^k (the mean-field reading);
    ``"synchronized"``: the hops' marks coincide in time (equal queues crossing K together, as in the symmetric
    fluid model), so a long flow is marked exactly when a cross flow is, P = p.

    Parameters
    ----------
    hops : int
        Links k crossed by the long flows.
    C : float
        Capacity of every link, packets/s.
    K : float
        Marking threshold of every link, packets (the queue at the fixed point).
    d : float
        Base RTT of every flow, s (of the cross flows when ``d_long`` is given).
    n_long, n_cross : int
        Long flows, and cross flows per link.
    marks : {"independent", "synchronized"}
        How the hops' marks combine on the long path (see above).
    ramp : float
        0: DCTCP's step, queues at K. A ramp width w > 0 (packets, the ``ramp`` variant of the model): the
        queues sit at q* = K + w·(p − 1/2), which enters the RTTs.
    d_long : float, optional
        Base RTT of the long flows, s (default ``d``): unequal RTTs change R_long only, not W = 2/P².

    Raises ValueError when the mark fraction would be ≥ 1 (the links cannot be filled with marks below 1:
    windows below 2 packets, the regime [DCTCP-A] eq. (15) treats separately).
    """
    check_range("hops", hops, lo=1, integer=True)
    C = check_range("C", C, lo=0.0, lo_open=True, why="packets/s")
    K = check_range("K", K, lo=0.0, why="packets")
    d = check_range("d", d, lo=0.0, lo_open=True, why="seconds")
    dl = d if d_long is None else check_range("d_long", d_long, lo=0.0, lo_open=True, why="seconds")
    check_range("n_long", n_long, lo=1, integer=True)
    check_range("n_cross", n_cross, lo=0, integer=True)
    if marks not in ("independent", "synchronized"):
        raise ValueError(f"marks={marks!r} is invalid: accepted 'independent' or 'synchronized'")
    ramp = check_range("ramp", ramp, lo=0.0, why="packets")
    k_eff = hops if marks == "independent" else 1

    def rtts(p: float) -> tuple[float, float]:
        q = max(K + ramp * (p - 0.5), 0.0)
        return dl + hops * q / C, d + q / C

    def excess(p: float) -> float:
        P = 1.0 - (1.0 - p) ** k_eff
        R_long, R_cross = rtts(p)
        return n_long * 2.0 / (P * P * R_long) + n_cross * 2.0 / (p * p * R_cross) - C

    if excess(1.0 - 1e-12) > 0:
        raise ValueError(
            f"C={C!r} is out of range for this load: the fixed point needs a mark fraction >= 1 "
            "(windows below 2 packets)"
        )
    p = brentq(excess, 1e-12, 1.0 - 1e-12, xtol=1e-15, rtol=1e-14)
    P = 1.0 - (1.0 - p) ** k_eff
    R_long, R_cross = rtts(p)
    W_l, W_c = 2.0 / P**2, 2.0 / p**2
    x_l, x_c = W_l / R_long, W_c / R_cross
    return ParkingLotFixedPoint(hops, p, P, W_l, W_c, R_long, R_cross, x_l, x_c, x_l / C, x_l / x_c)


#: The ramp width w as a symbol: one symbolic Jacobian, lambdified once, serves every width.
_RAMP = sp.Symbol("w_ramp", positive=True)


@functools.lru_cache(maxsize=16)
def _jacobians(routes: tuple[tuple[int, ...], ...], group_delays: bool):
    """A0 = ∂F/∂x and A_j = ∂F/∂x(t − τ_j) of the ramp-marking model's one right-hand side (u = 1), lambdified;
    called with the state, every delayed copy, the parameters and the ramp width w."""
    model = DctcpNetwork(routes, ramp=1.0, group_delays=group_delays)
    object.__setattr__(
        model, "ramp", _RAMP
    )  # the width enters the marks as a symbol (validated by the caller)
    xs, ps = model.symbols()
    A0 = model.sym_rhs(1, delayed=True).jacobian(sp.Matrix(xs))
    As = model.jacobians_delayed(1)
    sets = model.delayed_symbol_sets()
    args = list(xs) + [v for c in sets for v in c] + [ps[k] for k in model.param_names] + [_RAMP]
    mods = [{"Heaviside": lambda x, h0=0.5: np.heaviside(x, h0)}, "numpy"]
    return sp.lambdify(args, A0, modules=mods), [sp.lambdify(args, A, modules=mods) for A in As], len(sets)


def parking_lot_linearization(
    hops: int,
    ramp: float,
    *,
    capacity: str = "10Gbps",
    K: float = 65.0,
    rtt: str = "100us",
    g: float = 1 / 16,
    group_delays: bool = False,
) -> tuple[np.ndarray, Any, Any, ParkingLotFixedPoint]:
    """A0, A1 (1/s), τ (s) and the fixed point of the ramp-marking parking lot (one flow per group) at its fixed
    point, from :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork` ([DCTCP-A] (5)-(8) per link). With
    ``group_delays`` A1 and τ are the lists (A_1..A_m) and (τ_1..τ_m) of the per-group delays.

    Parameters
    ----------
    hops : int
        Links k.
    ramp : float
        Ramp width w > 0, packets (the step has no linearization at its fixed point).
    capacity, K, rtt, g
        Link rate, threshold (packets), base RTT and EWMA gain of every link and flow.
    """
    if not ramp > 0:
        raise ValueError(
            f"ramp={ramp!r} is out of range: accepted a width > 0 packets (the step has no Jacobian)"
        )
    model = DctcpNetwork(parking_lot_routes(hops), ramp=float(ramp), group_delays=group_delays)
    P = NetworkParams.parking_lot(hops, capacity=capacity, K=K, rtt=rtt, g=g)
    p = model.numeric_params(P)
    fp = parking_lot_fixed_point(hops, p["C_1"], K, p["d_1"], ramp=ramp)
    q = K + ramp * (fp.p - 0.5)
    x = [fp.W_long] + [fp.W_cross] * hops + [fp.P_long] + [fp.p] * hops + [q] * hops
    f0, fs, k = _jacobians(model.routes, model.group_delays)
    args = x * (1 + k) + [p[name] for name in model.param_names] + [float(ramp)]
    A1 = [np.asarray(f(*args), float) for f in fs]
    taus = [float(t) for t in model.state_delays(p)]
    if k == 1:
        return np.asarray(f0(*args), float), A1[0], taus[0], fp
    return np.asarray(f0(*args), float), A1, taus, fp


def parking_lot_spectrum(hops: int, ramps: np.ndarray, *, n_roots: int = 4, **kw: object) -> CharRoots:
    """Rightmost characteristic roots of det(λI − A0 − A1·e^{−λτ}) of the ramp parking lot, one system per ramp
    width (the matrix quasi-polynomial of the linearized network model; :func:`~dwtcp_fluid.analysis.charroots.char_roots`).

    Parameters
    ----------
    hops : int
        Links k.
    ramps : array_like
        Ramp widths w > 0, packets.
    n_roots : int
        Roots per system.
    **kw
        ``capacity``, ``K``, ``rtt``, ``g``, ``group_delays`` of :func:`parking_lot_linearization`.
    """
    sys_ = [parking_lot_linearization(hops, float(w), **kw) for w in np.atleast_1d(ramps)]  # type: ignore[arg-type]
    A0 = np.stack([s[0] for s in sys_])
    if isinstance(sys_[0][1], list):  # per-group delays: det(λI − A0 − Σ_i A_i e^{−λτ_i})
        As = [np.stack([s[1][i] for s in sys_]) for i in range(len(sys_[0][1]))]
        taus = [np.array([s[2][i] for s in sys_]) for i in range(len(sys_[0][2]))]
        return char_roots_multi(A0, As, taus, n_roots=n_roots)
    A1 = np.stack([s[1] for s in sys_])
    tau = np.array([s[2] for s in sys_])
    return char_roots(A0, A1, tau, n_roots=n_roots)
