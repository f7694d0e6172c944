"""Theorem 1 of [DCTCP-A] three ways: ρ(Z1·Z2) as written, with true transition matrices, and
from a finite-difference Jacobian of the return map.

Why (a) and (b) differ
----------------------
A small perturbation δx of the cycle evolves by the linear time-varying equation δx' = J_F(x*(t), u(t−1)) δx.
Its solution over a time interval is δx(t) = Φ(t, 0) δx(0), where Φ solves Φ' = J_F Φ, Φ(0) = I. Only when the
matrices J_F(s) at different times commute does Φ(t, 0) equal exp(∫_0^t J_F ds), the formula Theorem 1 writes
(a time-ordered exponential collapses to an ordinary one only in the commuting case). Along the DCTCP cycle they
do not commute: J_F depends on the state, which moves, and on the input u, which switches one R* after each
crossing (J_F(x, 1) has the −α̃/2 and −W̃/2 terms of the mark, J_F(x, 0) has not). The first-order error is half
the integral of the commutators [J(s), J(r)], so (a) is close to (b) when the cycle is short or J varies little,
and can be far off otherwise (large w̄ or g, where α̃ and W̃ swing widely within a half period).

The Poincaré map's Jacobian is exactly Z1·Z2 *with* the transition matrices: Φ carries the perturbation to the
next crossing, and the projection I − F c/(c F) removes the component along the flow that only shifts the
crossing time (the input switches exactly one unit after each crossing for the perturbed orbit too, so Φ has no
jump at the switch). Hence (b) decides stability, and (c), a finite difference of the integrated return map
(no linearization at all), checks (b) independently. (a) is a different matrix; its spectral radius is a number
the paper reports, not a stability certificate. Z1·Z2 has a zero third row (the image of each projection lies in
S), so one multiplier is 0 in every method and ρ is that of the 2x2 block acting on (W̃, α̃).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import expm

from .limit_cycle import LimitCycle
from .return_map import CycleMap, HalfOrbit, normalized_map

__all__ = [
    "TheoremOne",
    "theorem1",
    "paper_z1z2",
    "paper_z1z2_of",
    "true_z1z2",
    "fd_return_jacobian",
    "spectral_radius",
]


def spectral_radius(M: np.ndarray) -> float:
    """max |λ| over the eigenvalues of M."""
    return float(np.max(np.abs(np.linalg.eigvals(np.asarray(M, float)))))


def paper_z1z2_of(cm: CycleMap, first: HalfOrbit, second: HalfOrbit) -> np.ndarray:
    """Z1·Z2 exactly as Theorem 1 of [DCTCP-A] writes it, with exp(∫ J_F ds) (entry-wise integral), for the
    return map ``cm``. ``first`` runs x*_α → x*_β (u = 0 at its end), ``second`` x*_β → x*_α (u = 1)."""
    Z2 = cm.saltation(first.x_end, cm.u_arg(0.0)) @ expm(first.jint)
    Z1 = cm.saltation(second.x_end, cm.u_arg(1.0)) @ expm(second.jint)
    return Z1 @ Z2


def paper_z1z2(first: HalfOrbit, second: HalfOrbit, p: dict[str, float]) -> np.ndarray:
    """:func:`paper_z1z2_of` for the normalized DCTCP model at parameters ``p``."""
    return paper_z1z2_of(normalized_map(p), first, second)


def true_z1z2(first: HalfOrbit, second: HalfOrbit, p: dict[str, float]) -> np.ndarray:
    """Z1·Z2 with the state-transition matrices Φ of Φ' = J_F Φ: the Jacobian of the Poincaré map."""
    return normalized_map(p).monodromy(first, second)


def fd_return_jacobian(cycle: LimitCycle, rel: float = 1e-5) -> np.ndarray:
    """Central finite-difference Jacobian of the return map at x*_α in the coordinates of S, from full nonlinear
    integrations."""
    cm = CycleMap(cycle.model, cycle.params)
    return cm.fd_jacobian(cycle.x_alpha[cm.keep], rel)


@dataclass(frozen=True)
class TheoremOne:
    """ρ of Theorem 1 computed three ways for one cycle."""

    wbar: float | None
    g: float | None
    rho_paper: float  # (a) ρ(Z1 Z2) with exp(∫ J_F ds)
    rho_monodromy: float  # (b) ρ(Z1 Z2) with the transition matrices Φ
    rho_return_map: float  # (c) ρ of the finite-difference Jacobian of the return map
    z_paper: np.ndarray
    z_true: np.ndarray
    jac_fd: np.ndarray

    def as_dict(self) -> dict[str, float | None]:
        return {
            "wbar": self.wbar,
            "g": self.g,
            "rho_paper": self.rho_paper,
            "rho_monodromy": self.rho_monodromy,
            "rho_return_map": self.rho_return_map,
        }


def theorem1(cycle: LimitCycle, *, fd_rel: float = 1e-4) -> TheoremOne:
    """ρ(Z1·Z2) of Theorem 1 of [DCTCP-A]: (a) as written, (b) true transition matrices,
    (c) finite-difference return map. ``cycle`` must be a cycle without a sliding mode (a model may declare a
    bound, e.g. the queue floor of ``psi=``, that the orbit never reaches).

    ``fd_rel`` is the relative step of (c). 1e-4 balances truncation (≤ 2e-9 in ρ on the test grid) against the
    integration and event-location noise, which 1e-5 amplifies.
    """
    if not isinstance(cycle, LimitCycle):
        raise ValueError(f"cycle={cycle!r} is invalid: accepted a LimitCycle (w̄ > 2)")
    if cycle.monodromy is None:
        raise ValueError(
            f"cycle.psi={cycle.psi!r} is invalid here: the cycle is held on its queue floor (q_min="
            f"{cycle.q_min:.6g}, {cycle.floor_time:.3g} R* held per period); Theorem 1 is for a cycle that never "
            "reaches a bound"
        )
    cm = CycleMap(cycle.model, cycle.params)
    first, second = cm.return_map(cycle.x_alpha[cm.keep], variational=True)
    za = paper_z1z2_of(cm, first, second)
    zb = cm.monodromy(first, second)
    jc = fd_return_jacobian(cycle, fd_rel)
    return TheoremOne(
        wbar=cycle.wbar,
        g=cycle.g,
        rho_paper=spectral_radius(za),
        rho_monodromy=spectral_radius(zb),
        rho_return_map=spectral_radius(jc),
        z_paper=za,
        z_true=zb,
        jac_fd=jc,
    )
