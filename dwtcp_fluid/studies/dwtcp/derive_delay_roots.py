"""The delayed linearization of DWTCP's decrease phase in numbers: its characteristic quasi-polynomial, the root
near the undelayed one, the delay margin and the critical k̄ at which a feedback delay τ_d destabilizes it.

[DWTCP] eqs. (6), (8), (10) with the delay of (8) kept; used by the derivation :mod:`.derive_equilibrium`.
"""

from __future__ import annotations

import math

import sympy as sp
from scipy.optimize import brentq

from ...models.dwtcp import DwtcpFluid
from ...params import check_range
from .derive_common import bdp_subs, symbols

__all__ = ["delayed_root", "delay_margin", "kbar_crit_delay"]


def _char_delayed(k_zero: bool = True) -> tuple[sp.Expr, sp.Symbol]:
    """det(λI − A0 − A1·e^{−λ·τ_d}) of the decrease phase with the Scout delay, at a general point (w, q = q_d)."""
    s = symbols()
    sd = sp.Symbol("tau_d", positive=True)
    m = DwtcpFluid(delay_rtts=1.0)
    sub = {**bdp_subs(k_zero), s.w: s.wp, s.q: s.kbar, s.q_d: s.kbar}
    A0 = m.jacobian(1, delayed=True).subs(sub)
    A1 = m.jacobian_delayed(1).subs(sub)
    return sp.expand((s.lam * sp.eye(2) - A0 - A1 * sp.exp(-s.lam * sd)).det()), sd


def delayed_root(beta: float, kbar_over_bdp: float, delay_rtts: float = 1.0) -> complex:
    """Root of the delayed characteristic equation near the undelayed complex root (w·N = BDP, τ = 1, BDP = 1).

    Linearization of [DWTCP] eq. (6) with k̄ = q(t − τ_d) (eq. (8) with the delay kept).

    λ² + a·λ + b·e^{−λ·τ_d} = 0 with a = β·k̄/(τ·BDP), b = β/τ² (the quasi-polynomial of :func:`_char_delayed`);
    solved by Newton's method from the undelayed root. Returns λ in units of 1/τ.

    Parameters
    ----------
    beta : float
        DWTCP's decrease gain β, 0 < beta <= 1.
    kbar_over_bdp : float
        The observed queue k̄ in units of BDP (dimensionless, > 0).
    delay_rtts : float
        The feedback delay τ_d in base RTTs (default 1: one RTT).
    """
    check_range("beta", beta, lo=0.0, hi=1.0, lo_open=True)
    check_range("kbar_over_bdp", kbar_over_bdp, lo=0.0)
    check_range("delay_rtts", delay_rtts, lo=0.0)
    lam = sp.Symbol("lambda")
    a, b = beta * kbar_over_bdp, beta
    G = lam**2 + a * lam + b * sp.exp(-lam * delay_rtts)
    start = complex(-a / 2, (b - a * a / 4) ** 0.5) if b > a * a / 4 else complex(-a / 2, 0.0)
    return complex(sp.nsolve(G, lam, start, prec=30))


def delay_margin(a: float, b: float) -> float:
    """Smallest delay τ_c at which λ² + a·λ + b·e^{−λ·τ_d} has a root on the imaginary axis (a ≥ 0, b > 0).

    τ_c = atan(a/ω)/ω with ω² = (√(a⁴ + 4b²) − a²)/2; roots cross into Re λ > 0 there (linearization of [DWTCP] eq. (6) with k̄ = q(t − τ_d)). τ_c = 0 when a = 0: the equilibrium's center.
    """
    if not (a >= 0 and b > 0):
        raise ValueError(f"(a, b)=({a!r}, {b!r}) is out of range: accepted a >= 0 and b > 0")
    # ω² = (√(a⁴ + 4b²) − a²)/2, written without the cancellation for large a.
    om = math.sqrt(2 * b * b / (math.sqrt(a**4 + 4 * b * b) + a * a))
    return math.atan(a / om) / om


def kbar_crit_delay(beta: float, delay_rtts: float = 1.0) -> float:
    """k̄_c/BDP above which the delayed frozen linearization at w·N = BDP is stable: τ_c(k̄_c) = τ_d.

    With a = β·k̄/(τ·BDP) and b = β/τ² ([DWTCP] eqs. (8), (10) at w·N = BDP), solved by brentq;
    the first-order value is τ_d/τ.

    Parameters
    ----------
    beta : float
        DWTCP's decrease gain β, 0 < beta <= 1.
    delay_rtts : float
        The feedback delay τ_d in base RTTs (default 1).
    """
    if not (0 < beta <= 1):
        raise ValueError(f"beta={beta!r} is out of range: accepted 0 < beta <= 1")
    if not (delay_rtts > 0 and math.isfinite(delay_rtts)):
        raise ValueError(f"delay_rtts={delay_rtts!r} is out of range: accepted 0 < delay_rtts < inf")
    return brentq(lambda r: delay_margin(beta * r, beta) - delay_rtts, 1e-9, 1e4, xtol=1e-14, rtol=1e-14)
