"""The parking lot's mean-field fixed point of the DCTCP network model (:mod:`dwtcp_fluid.models.dctcp_network`).

With the marks replaced by their long-run fractions p_l ∈ (0, 1) (the Filippov reading of the switched model: a
link whose queue rests on its threshold q_l = K_l is marked a fraction p_l of the time), the model's fixed point
is α_i = P_i, W_i = 2/P_i² with P_i = 1 − Π_{l ∈ route i}(1 − p_l), and every bottleneck link full,
Σ_i A_li·N_i·W_i/R_i = C_l, R_i = d_i + Σ_{l ∈ route i} K_l/C_l. ``proofs/multihop.md`` derives it from the model
with SymPy; this module solves the symmetric parking lot (k equal links, N_long long flows over all of them,
N_cross cross flows on each) numerically, where p is one root of a scalar equation.
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy.optimize import brentq

from ..params import check_range

__all__ = ["ParkingLotFixedPoint", "parking_lot_fixed_point"]


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
    hops: int, C: float, K: float, d: float, n_long: int = 1, n_cross: int = 1, *, marks: str = "independent"
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
        Base RTT of every flow, s.
    n_long, n_cross : int
        Long flows, and cross flows per link.
    marks : {"independent", "synchronized"}
        How the hops' marks combine on the long path (see above).

    Raises ValueError when the mark fraction would be ≥ 1 (the links cannot be filled with marks below 1:
    windows below 2 packets, the regime [DCTCP-A] eq. (15) treats separately).
    """
    check_range("hops", hops, lo=1, integer=True)
    C = check_range("C", C, lo=0.0, lo_open=True, why="packets/s")
    K = check_range("K", K, lo=0.0, why="packets")
    d = check_range("d", d, lo=0.0, lo_open=True, why="seconds")
    check_range("n_long", n_long, lo=1, integer=True)
    check_range("n_cross", n_cross, lo=0, integer=True)
    if marks not in ("independent", "synchronized"):
        raise ValueError(f"marks={marks!r} is invalid: accepted 'independent' or 'synchronized'")
    R_long, R_cross = d + hops * K / C, d + K / C
    k_eff = hops if marks == "independent" else 1

    def excess(p: float) -> float:
        P = 1.0 - (1.0 - p) ** k_eff
        return n_long * 2.0 / (P * P * R_long) + n_cross * 2.0 / (p * p * R_cross) - C

    if excess(1.0 - 1e-12) > 0:
        raise ValueError(
            f"C={C!r} is out of range for this load: the fixed point needs a mark fraction >= 1 "
            "(windows below 2 packets)"
        )
    p = brentq(excess, 1e-12, 1.0 - 1e-12, xtol=1e-15, rtol=1e-14)
    P = 1.0 - (1.0 - p) ** k_eff
    W_l, W_c = 2.0 / P**2, 2.0 / p**2
    x_l, x_c = W_l / R_long, W_c / R_cross
    return ParkingLotFixedPoint(hops, p, P, W_l, W_c, R_long, R_cross, x_l, x_c, x_l / C, x_l / x_c)
