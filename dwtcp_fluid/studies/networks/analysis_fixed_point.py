"""Mean-field fixed point of the DCTCP network model on any routing matrix, with line-rate access links.

The parking lot's reading (:func:`~dwtcp_fluid.studies.networks.analysis_multihop.parking_lot_fixed_point`, derived in
``proofs/multihop.md``) on a general routing: a marking link l rests at q_l = K_l and is marked a fraction p_l of
the time; the hops mark independently, so flow group i sees P_i = 1 − Π_{l ∈ route i}(1 − p_l) and holds
W_i = 2/P_i² at RTT R_i = d_i + Σ_{l ∈ route i, p_l > 0} K_l/C_l. Two additions a general network needs:

* **complementarity**: a link either marks (p_l > 0) and is full, Σ_i A_li N_i x_i = C_l, or does not mark
  (p_l = 0) and carries at most C_l — solved as Fischer–Burmeister equations φ(p_l, 1 − load_l/C_l) = 0,
  φ(a, b) = a + b − √(a² + b²), by bounded least squares;
* **access links**: a flow's rate is capped at its host's line rate ``access`` (packets/s): x_i = min(access,
  W_i/R_i). A flow no marking link constrains runs at line rate. Only ``links`` that can hold a queue take part
  (a port fed by one line-rate link never queues: its p is 0 by construction).

Units: C and access in packets/s, K in packets, d in seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

__all__ = ["NetworkFixedPoint", "network_fixed_point"]


@dataclass(frozen=True)
class NetworkFixedPoint:
    """``p`` per link (mark fraction), ``P``/``W``/``R``/``x`` per group (path mark fraction, window in packets,
    RTT in s, per-flow rate in packets/s), ``load`` per link (packets/s), ``residual`` (max |φ|)."""

    p: np.ndarray
    P: np.ndarray
    W: np.ndarray
    R: np.ndarray
    x: np.ndarray
    load: np.ndarray
    residual: float


def network_fixed_point(
    routes: Sequence[Sequence[int]],
    counts: Sequence[int],
    C: float,
    K: float,
    d: float,
    *,
    access: float | None = None,
    links: Sequence[int] | None = None,
) -> NetworkFixedPoint:
    """Mean-field fixed point (see the module docstring) of groups ``routes`` (link ids) with ``counts`` flows.

    Parameters
    ----------
    routes : sequence of sequences of int
        Links of each flow group.
    counts : sequence of int
        Flows per group.
    C, K, d : float
        Capacity of every link (packets/s), its threshold (packets), every group's base RTT (s).
    access : float, optional
        Line rate of a flow's access link (packets/s); None: no cap.
    links : sequence of int, optional
        The links that can queue and mark (default every link on some route).
    """
    from ...params import check_range

    check_range("C", C, lo=0.0, lo_open=True, why="packets/s")
    check_range("K", K, lo=0.0, why="packets")
    check_range("d", d, lo=0.0, lo_open=True, why="seconds")
    ids = sorted({int(h) for r in routes for h in r}) if links is None else sorted(int(h) for h in links)
    A = np.array([[1.0 if h in r else 0.0 for r in routes] for h in ids]).reshape(len(ids), len(routes))
    N = np.asarray(counts, float)
    cap = np.inf if access is None else float(access)
    if not ids:
        x = np.full(len(routes), cap)
        return NetworkFixedPoint(
            np.zeros(0), np.zeros(len(routes)), x * 0 + np.inf, x * 0 + d, x, np.zeros(0), 0.0
        )

    def state(p: np.ndarray) -> tuple[np.ndarray, ...]:
        P = 1.0 - np.exp(A.T @ np.log1p(-p))
        R = d + (A.T @ (p > 1e-9)) * K / C
        W = 2.0 / np.maximum(P, 1e-12) ** 2
        x = np.minimum(cap, W / R)
        return P, W, R, x, A @ (N * x)

    def fb(p: np.ndarray) -> np.ndarray:
        b = 1.0 - state(p)[4] / C
        return p + b - np.sqrt(p * p + b * b)

    sol = least_squares(fb, np.full(len(ids), 0.05), bounds=(0.0, 0.999), xtol=1e-14, ftol=1e-14, gtol=1e-14)
    p = sol.x
    P, W, R, x, load = state(p)
    return NetworkFixedPoint(p, P, W, R, x, load, float(np.max(np.abs(fb(p)))))
