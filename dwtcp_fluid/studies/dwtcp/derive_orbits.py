"""DWTCP first integrals: closed orbits of the undelayed decrease phase, and where convergence comes from.

[DWTCP] eqs. (3), (6), (7), from :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid`.
"""

from __future__ import annotations

import sympy as sp

from ...models.dwtcp import DwtcpFluid
from ...symbolic.derivation import Derivation, Finding, Step, eq, identity, predicate
from .derive_common import bdp_subs, cite, symbols

__all__ = ["dwtcp_first_integral", "first_integral", "return_map_series"]


def first_integral(variant: str = "paper", phase: str = "decrease") -> sp.Expr:
    """First integral H(w, q) of the undelayed model in one phase (general k), [DWTCP] eqs. (3), (6), (7).

    Decrease ("paper"): H = β(q − k)²/(2τ(BDP + k)) + N·w/τ − C·ln w.
    Decrease ("sqrt"):  H = 2N√w/τ + 2C/√w + β_w/τ·(q − (BDP + k)·ln(BDP + q)).
    Increase:           H = q − (N·w²/(2τ) − C·w)/a, a the increase rate.
    Obtained by separating dq/dw = q'/w' of the model's right-hand side and integrating with SymPy.

    Parameters
    ----------
    variant : str
        The decrease law: "paper" (eq. (6)) or "sqrt" (eq. (3)).
    phase : str
        "decrease" or "increase".
    """
    s = symbols()
    m = DwtcpFluid(variant=variant)
    u = 1 if phase == "decrease" else 0
    F = m.sym_rhs(u)
    w, q = s.w, s.q
    if phase == "increase":
        # w' = a is constant: dq/dw = q'/a, so H = q − ∫q'/a dw.
        return q - sp.integrate(F[1] / F[0], w)
    # Decrease: w' = −G(w)·Φ(q) (G the w-dependent factor) and q' = P(w), so dH = P/G dw + Φ dq is exact.
    wp = sp.Symbol("w", positive=True)
    Phi, G = F[0].subs(w, wp).as_independent(wp, as_Add=False)
    H = sp.integrate(sp.expand(F[1].subs(w, wp) / G), wp) + sp.integrate(-Phi, q)
    return sp.expand(H.subs(wp, w))


def return_map_series(order: int = 4) -> sp.Expr:
    """Series e' = e + c₂e² + … of the return map at the switch (undelayed, k > 0, no floor) in e = 1 − w/w*.

    The increase parabola maps w* (1 − e) to w* (1 + e); the decrease orbit (H of (6)) brings it back to
    w* (1 − e') with x − ln x equal at both ends. [DWTCP] eqs. (6), (7).
    """
    e = sp.Symbol("e", positive=True)
    cs = sp.symbols(f"c2:{order + 1}")
    ep = e + sum(c * e**i for i, c in enumerate(cs, 2))
    phi = lambda x: x - sp.log(x)  # noqa: E731 - H on q = k in units of C·ln, x = w/w*
    ser = sp.series(phi(1 - ep) - phi(1 + e), e, 0, order + 2).removeO()
    sol = sp.solve([ser.coeff(e, i) for i in range(3, order + 2)], cs, dict=True)[0]
    return sp.expand(ep.subs(sol))


def dwtcp_first_integral() -> Derivation:
    """First integrals of (6), (3) and (7) with dH/dt = 0, and the return map; [DWTCP]."""
    s = symbols()
    tau, BDP, N, beta, k, C = s.tau, s.BDP, s.N, s.beta, s.k, s.C
    w, q = s.w, s.q
    wp = sp.Symbol("w", positive=True)
    grad = lambda H: sp.Matrix([[sp.diff(H, w), sp.diff(H, q)]])  # noqa: E731
    H6 = first_integral("paper")
    H6_ref = beta * (q - k) ** 2 / (2 * tau * (C * tau + k)) + N * w / tau - C * sp.log(w)
    H6_k0 = beta * q**2 / (2 * tau * BDP) + N * w / tau - (BDP / tau) * sp.log(w)
    H3 = first_integral("sqrt")
    Hinc = first_integral("paper", "increase")
    F_dec = DwtcpFluid("paper").sym_rhs(1)
    F_sqrt = DwtcpFluid("sqrt").sym_rhs(1)
    F_inc = DwtcpFluid("paper").sym_rhs(0)
    hess = sp.hessian(H6, (w, q)).subs({w: C * tau / N, q: k})
    phi_f = sp.Function("phi")
    Phi = sp.Integral(phi_f(q), q)
    H_gen = Phi + N * w / tau - C * sp.log(w)
    F_gen = sp.Matrix([-w * phi_f(q), N * w / tau - C])
    e = sp.Symbol("e", positive=True)
    ser = return_map_series(4)
    gap = sp.log(1 + e) - sp.log(1 - e) - 2 * e  # φ(1 − e) − φ(1 + e)
    sgap = sp.Symbol("s", positive=True)
    steps = [
        Step(
            "First integral of the decrease phase (6)",
            cite("eq. (6)"),
            "q' depends on w only and w' = −w·(β/τ)(q − k)/(BDP + k), so dq/dw separates; SymPy's integrals give H,"
            " equal to the completed-square form up to an additive constant (equal gradients).",
            [eq("H", H6_ref.subs(bdp_subs(False))), eq("H_{k=0}", H6_k0)],
            identity(grad(H6), grad(H6_ref)),
        ),
        Step(
            "dH/dt = 0 along (6)",
            cite("eq. (6)"),
            "∇H·F vanishes identically for the model's decrease-phase right-hand side (undelayed, k̄ = q).",
            [eq(r"\dot H", sp.simplify((grad(H6) * F_dec)[0]))],
            identity((grad(H6) * F_dec)[0], 0),
        ),
        Step(
            "Any decrease w' = −w·φ(q) has such an integral",
            cite("eqs. (5), (6)"),
            "For w' = −w·φ(q), H = ∫φ(q)dq + N·w/τ − C·ln w is conserved; this covers (6) for any k and the IPG variant.",
            [eq("H_\\varphi", H_gen)],
            identity((grad(H_gen) * F_gen)[0].doit(), 0),
        ),
        Step(
            "H has a strict minimum at the equilibrium",
            cite("eq. (6)"),
            "∇H = 0 at (C·τ/N, k) = (BDP/N, k) and the Hessian is diag(N²/(C·τ²), β/(τ(BDP + k))), positive"
            " definite: the level sets around it are closed curves, so decrease-phase orbits are closed.",
            [eq(r"\nabla^2 H", sp.simplify(hess.subs(bdp_subs(False))))],
            predicate(
                lambda: (
                    identity(grad(H6).subs({w: C * tau / N, q: k}), sp.zeros(1, 2)).fn()[0]
                    and bool(sp.simplify(hess[0, 0]).is_positive)
                    and bool(sp.simplify(hess[1, 1]).is_positive)
                    and sp.simplify(hess[0, 1]) == 0,
                    "gradient 0, diagonal positive, off-diagonal 0",
                ),
                "∇H = 0 at the equilibrium and the Hessian is diagonal with positive entries",
            ),
        ),
        Step(
            "First integral of the sqrt(w) form (3)",
            cite("eq. (3)"),
            "For w' = −β_w·w^{3/2}(q − k)/(τ(BDP + q)) the same separation gives H₃, and ∇H₃·F = 0.",
            [eq("H_3", H3)],
            identity((grad(H3) * F_sqrt).subs(w, wp)[0], 0),
        ),
        Step(
            "Orbits of the increase phase are parabolas",
            cite("eq. (7)"),
            "With w' = a constant, H_inc = q − (N·w²/(2τ) − C·w)/a is conserved: q is a parabola in w with its vertex at"
            " the fair share w = C·τ/N.",
            [eq("H_{inc}", Hinc.subs(s.s_over_l, sp.Symbol("S") / sp.Symbol("L")))],
            identity((grad(Hinc) * F_inc)[0], 0),
        ),
        Step(
            "The return map at the switch q = k",
            cite("eqs. (6), (7)"),
            "With x = w/w*, the increase parabola maps 1 − e to 1 + e; the decrease orbit returns at 1 − e' with"
            " x − ln x equal at both ends (H on q = k). Series: e' = e − (2/3)e² + …",
            [eq("e'", ser)],
            identity(ser.coeff(e, 2), sp.Rational(-2, 3)),
        ),
        Step(
            "Every cycle moves closer: e' < e",
            cite("eqs. (6), (7)"),
            "φ(1 − e) − φ(1 + e) = ln((1 + e)/(1 − e)) − 2e has derivative 2e²/(1 − e²) > 0 and is 0 at e = 0, so"
            " φ(1 + e) < φ(1 − e) and the return lands closer to w*: convergence, but only algebraic (e_n ≈ 3/(2n)).",
            [eq(r"\frac{d}{de}\left(\varphi(1-e) - \varphi(1+e)\right)", 2 * e**2 / (1 - e**2))],
            predicate(
                lambda: (
                    identity(sp.diff(gap, e), 2 * e**2 / (1 - e**2)).fn()[0]
                    and bool(sp.simplify((2 * e**2 / (1 - e**2)).subs(e, sgap / (1 + sgap))).is_positive),
                    "derivative identity holds and is positive for 0 < e < 1",
                ),
                "derivative identity, and positivity with e = s/(1 + s), s > 0",
            ),
        ),
    ]
    findings = [
        Finding(
            "First integral of (6)",
            "(not in the paper) the decrease phase converges to the equilibrium as a stable spiral",
            "H = β(q − k)²/(2τ(BDP + k)) + N·w/τ − C·ln w (H = β·q²/(2τ·BDP) + N·w/τ − C·ln w at k = 0) is conserved"
            " (dH/dt = 0 checked) and has a strict minimum at (BDP/N, k): undelayed decrease-phase orbits are closed"
            " curves. Nothing inside the decrease phase converges.",
            "new finding",
            "dH/dt = 0 along (6)",
        ),
        Finding(
            "First integral of (3)",
            "(not in the paper)",
            "H₃ = 2N√w/τ + 2C/√w + β_w/τ·(q − (BDP + k)·ln(BDP + q)) is conserved by the sqrt(w) form; same conclusion.",
            "new finding",
            "First integral of the sqrt(w) form (3)",
        ),
        Finding(
            "Where convergence comes from",
            "stable spiral",
            "Only the switch at q = k: the increase parabola is symmetric about w*, the decrease orbit is not (x − ln x),"
            " so each cycle shrinks the excursion e to e − (2/3)e² + …: convergence without delay, but algebraic"
            " (no exponential rate). With the physical floor and k = 0 (the paper's setting) the decrease orbit"
            " reaches q = 0 with w < BDP/N, the increase phase then slides along q = 0 and reaches (BDP/N, 0), the"
            " minimum of H, in finite time: convergence there is due to the floor, not to a spiral.",
            "new finding",
            "Every cycle moves closer: e' < e",
        ),
    ]
    return Derivation(
        slug="dwtcp_first_integral",
        title="DWTCP: first integrals, closed orbits, and convergence through the switch",
        covers="[DWTCP] eqs. (3), (6), (7) (undelayed, as in the paper).",
        findings=findings,
        steps=steps,
    )
