"""Symbols and model-derived expressions shared by the DWTCP derivations ([DWTCP], appendix A).

Everything here comes from :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid`; the only substitution is the paper's
notation BDP = τ·C (packets), i.e. C → BDP/τ, and positive symbols for the window and the queue in the decrease
phase (where k̄ > k ≥ 0 and w > 0).
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import sympy as sp

from ...models.dwtcp import DwtcpFluid

PAPER_DWTCP = "[DWTCP]"


def cite(eqs: str) -> str:
    """``"[DWTCP] eq. (8)"``-style citation."""
    return f"{PAPER_DWTCP} {eqs}"


@functools.cache
def symbols() -> SimpleNamespace:
    """The model's symbols plus BDP, a positive k̄ and a positive window, in one namespace."""
    m = DwtcpFluid()
    (w, q), ps = m.symbols()
    (w_d, q_d) = m.delayed_symbols()
    return SimpleNamespace(
        w=w,
        q=q,
        q_d=q_d,
        w_d=w_d,
        wp=sp.Symbol("w", positive=True),
        kbar=sp.Symbol(r"\bar{k}", positive=True),
        BDP=sp.Symbol("BDP", positive=True),
        lam=sp.Symbol("lambda"),
        t=sp.Symbol("t", positive=True),
        **ps,
    )


def bdp_subs(k_zero: bool = False) -> dict:
    """Substitution C → BDP/τ (and k → 0 for the paper's (6))."""
    s = symbols()
    out = {s.C: s.BDP / s.tau}
    if k_zero:
        out[s.k] = 0
    return out


def decrease_rhs(variant: str = "paper", *, k_zero: bool = True, positive_state: bool = True) -> sp.Matrix:
    """F(w, q) of the decrease phase (u = 1, k̄ = q, undelayed), from the model, in BDP notation."""
    s = symbols()
    F = DwtcpFluid(variant=variant).sym_rhs(1)
    F = F.subs(bdp_subs(k_zero))
    if positive_state:
        F = F.subs({s.w: s.wp, s.q: s.kbar})
    return sp.simplify(F)


def decrease_jacobian(variant: str = "paper", *, k_zero: bool = True) -> sp.Matrix:
    """The frozen Jacobian (8)-style of the decrease phase, from the model, at (w, q = k̄) with w, k̄ > 0."""
    s = symbols()
    J = DwtcpFluid(variant=variant).jacobian(1).subs(bdp_subs(k_zero))
    return sp.simplify(J.subs({s.w: s.wp, s.q: s.kbar}))
