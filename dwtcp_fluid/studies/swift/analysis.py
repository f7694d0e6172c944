"""Swift's fluid model at its fixed point: the fixed point (w*, q*) and the linearized decrease branch.

Every expression comes from :mod:`dwtcp_fluid.models.swift` (the target, the decrease rate, the RTT); the roots of
the characteristic equation come from :mod:`dwtcp_fluid.analysis.charroots`. ``proofs/swift.md`` derives the same
quantities symbolically and checks them against these.
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from ...analysis.charroots import char_roots
from ...formulas import swift_flow_scaling
from ...models.base import SYMPY_NS
from ...models.swift import SwiftFluid, SwiftParams, swift_decrease_rate

__all__ = [
    "numeric",
    "fixed_point",
    "linear_system",
    "linear_abscissa",
    "normalized",
    "crossing_frequency",
    "critical_ratio",
    "critical_beta",
]


def numeric(P: SwiftParams) -> dict[str, float]:
    """The model's floats for ``P`` with the groups pooled: ``N`` = Σ N_i (the fixed point is symmetric)."""
    p = SwiftFluid(groups=len(P.flows)).numeric_params(P)
    p["N"] = float(sum(P.flows))
    return p


def fixed_point(P: SwiftParams) -> tuple[float, float]:
    """The fixed point of Swift's fluid model (``proofs/swift.md``).

    Parameters
    ----------
    P : SwiftParams
        The setting (its flow groups are pooled: N = Σ N_i).

    Returns
    -------
    (float, float)
        w*, the root of N·w = C·(T_0 + fs(w)) (strictly increasing in w: fs decreases), and q* = C·(T* − d) − 1,
        the queue whose measured delay equals the target (both in packets).
    """
    p = numeric(P)
    C, N = p["C"], p["N"]

    def fs(w: float) -> float:
        return float(swift_flow_scaling(w, p["fs_range"], p["fs_min"], p["fs_max"], np))

    def g(w: float) -> float:
        return N * w - C * (p["T0"] + fs(w))

    hi = C * (p["T0"] + p["fs_range"]) / N + 1.0
    w = brentq(g, 1e-9, hi, xtol=1e-13, rtol=1e-13)
    return float(w), float(C * (p["T0"] + fs(w) - p["d"]) - 1.0)


@functools.lru_cache(maxsize=64)
def linear_system(P: SwiftParams) -> tuple[np.ndarray, np.ndarray, float]:
    """(A0, A1, d) of x' = A0·x + A1·x(t − d), x = (w, q) − (w*, q*): the decrease branch of (S2) and (S1) for
    N pooled flows, differentiated by SymPy at the fixed point."""
    p = numeric(P)
    w, q, wd, qd = sp.symbols("w q w_d q_d", positive=True)
    m = SwiftFluid(groups=1)
    F = sp.Matrix([swift_decrease_rate(w, wd, m.rtt(qd, p), p, SYMPY_NS), p["N"] * w / m.rtt(q, p) - p["C"]])
    ws, qs = fixed_point(P)
    at = {w: ws, q: qs, wd: ws, qd: qs}
    A0 = np.array(F.jacobian([w, q]).subs(at).evalf(), dtype=float)
    A1 = np.array(F.jacobian([wd, qd]).subs(at).evalf(), dtype=float)
    return A0, A1, float(p["d"])


def linear_abscissa(P: SwiftParams) -> float:
    """The spectral abscissa (1/s) of the linearized decrease branch at the fixed point: < 0 locally stable."""
    A0, A1, d = linear_system(P)
    return float(char_roots(A0, A1, d, n_roots=4).abscissa)


def normalized(P: SwiftParams) -> tuple[float, float, float]:
    """(r, κ, T*) of the setting: r = d/T* (feedback delay over the RTT at the fixed point), κ = −A1[0,0]·T*/β
    (the target's sensitivity to the window, w*·|fs′(w*)|/T*), read from :func:`linear_system`, so that its
    characteristic equation is μ² + μ + β·e^{−μr}·(κμ + κ + 1) = 0 in μ = λ·T* (``proofs/swift.md``)."""
    A0, A1, d = linear_system(P)
    T = -1.0 / A0[1, 1]
    return d / T, -A1[0, 0] * T / float(P.beta), T


def crossing_frequency(beta: float, kappa: float) -> float:
    """ω > 0 (in 1/T*) where μ = iω solves the normalized characteristic equation for some delay: the positive root
    of ω⁴ + (1 − β²κ²)ω² − β²(κ + 1)² = 0."""
    b = 1.0 - beta**2 * kappa**2
    return float(np.sqrt((-b + np.sqrt(b * b + 4.0 * beta**2 * (kappa + 1.0) ** 2)) / 2.0))


def critical_ratio(beta: float, kappa: float) -> float:
    """The smallest r = d/T* at which a pair of roots reaches the imaginary axis:
    r* = (atan(1/ω) + atan(κω/(κ + 1)))/ω at the crossing frequency ω (locally stable for r < r*)."""
    w = crossing_frequency(beta, kappa)
    return float((np.arctan(1.0 / w) + np.arctan(kappa * w / (kappa + 1.0))) / w)


def critical_beta(r: float, kappa: float) -> float:
    """The decrease constant β at which r*(β, κ) = r (r* decreases in β): the stability boundary in β."""
    return float(brentq(lambda b: critical_ratio(b, kappa) - r, 1e-6, 1e3, xtol=1e-13, rtol=1e-12))
