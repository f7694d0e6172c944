"""What replaces (14) for the sqrt(w) form (3) and for the inter-packet-gap variant.

Eqs. (3), (5), (8)-(14) and the IPG law of [DWTCP], from the model's ``"sqrt"`` and ``"ipg"``
variants of :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid`.
"""

from __future__ import annotations

import math

import sympy as sp

from ...params import DWTCP_EVALUATION, check_range
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    eq,
    fmt,
    identity,
    positive,
    predicate,
    solutions,
)
from .derive_common import cite, decrease_jacobian, symbols

__all__ = ["dwtcp_variants", "kbar_crit_sqrt", "kbar_crit_ipg"]


def kbar_crit_sqrt(bdp: float, flows: float, beta_w: float) -> float:
    """Spiral/node threshold of the sqrt(w) form (3) at w·N = BDP: (4/3)·BDP^{3/4}·N^{1/4}/√β_w (packets).

    Derived in :func:`dwtcp_variants` from [DWTCP] eq. (3); β_w in the packet convention.
    """
    check_range("bdp", bdp, lo=0.0, lo_open=True)
    check_range("flows", flows, lo=1.0)
    check_range("beta_w", beta_w, lo=0.0, lo_open=True)
    return 4.0 / 3.0 * bdp**0.75 * flows**0.25 / math.sqrt(beta_w)


def kbar_crit_ipg(bdp: float, beta: float) -> float:
    """Spiral/node threshold of the simplified IPG variant at w·N = BDP: (4/β)^{1/3}·BDP (packets)."""
    check_range("bdp", bdp, lo=0.0, lo_open=True)
    check_range("beta", beta, lo=0.0, hi=1.0, lo_open=True)
    return (4.0 / beta) ** (1.0 / 3.0) * bdp


def dwtcp_variants() -> Derivation:
    """Linearization of the sqrt(w) form (3) and of the IPG variant; [DWTCP]."""
    s = symbols()
    tau, BDP, N, beta, bw, kbar, w, lam = s.tau, s.BDP, s.N, s.beta, s.beta_w, s.kbar, s.wp, s.lam
    Js = decrease_jacobian("sqrt", k_zero=True)
    tr_s, det_s = Js.trace(), sp.simplify(Js.det())
    disc_s = sp.simplify(tr_s**2 - 4 * det_s)
    pref_s = bw * w / (tau**2 * (BDP + kbar) ** 2)
    kstar_s = sp.Rational(4, 3) * BDP ** sp.Rational(3, 4) * N ** sp.Rational(1, 4) / sp.sqrt(bw)
    Js_eq = sp.simplify(Js.subs({w: BDP / N}).subs(kbar, 0))
    Ji = decrease_jacobian("ipg", k_zero=True)
    tr_i, det_i = Ji.trace(), sp.simplify(Ji.det())
    disc_i = sp.simplify(tr_i**2 - 4 * det_i)
    pref_i = 4 * beta * kbar / (tau**2 * BDP**4)
    kstar_i = (4 / beta) ** sp.Rational(1, 3) * BDP
    Ji_eq = sp.simplify(Ji.subs(kbar, 0))
    P = DWTCP_EVALUATION
    ks_num = kbar_crit_sqrt(P.bdp, P.flows, P.beta_sqrt_packets)
    ki_num = kbar_crit_ipg(P.bdp, P.beta)
    steps = [
        Step(
            "Jacobian of the sqrt(w) form (3)",
            cite("eqs. (3), (8)"),
            "The model's 'sqrt' variant differentiated at (w, q = k̄), k = 0, undelayed.",
            [eq("J_3", Js)],
            positive(-tr_s),
        ),
        Step(
            "sqrt(w) form: the frozen Jacobian is stable for every k̄ > 0",
            cite("eq. (12)"),
            "tr J₃ < 0 (step 1's check) and det J₃ > 0, so both eigenvalues have negative real part, as for (8).",
            [eq(r"\det J_3", det_s)],
            positive(det_s),
        ),
        Step(
            "sqrt(w) form: complex-root condition replacing (13)",
            cite("eq. (13)"),
            "The discriminant is β_w·w/(τ²(BDP + k̄)²) times (9/4)·β_w·k̄² − 4·N·√w·BDP.",
            [eq(r"\Delta_3", disc_s)],
            identity(disc_s, pref_s * (sp.Rational(9, 4) * bw * kbar**2 - 4 * N * sp.sqrt(w) * BDP)),
        ),
        Step(
            "sqrt(w) form: what replaces (14)",
            cite("eq. (14)"),
            "At w = BDP/N the discriminant vanishes at k̄* = (4/3)·BDP^{3/4}·N^{1/4}/√β_w — it now depends on N.",
            [eq(r"\bar{k}^*_3", kstar_s)],
            solutions(lambda: sp.solve((disc_s / pref_s).subs(w, BDP / N), kbar), [kstar_s]),
        ),
        Step(
            "sqrt(w) form: the equilibrium is again a center",
            cite("eq. (11)"),
            "At (BDP/N, 0) the trace vanishes and det > 0: purely imaginary eigenvalues.",
            [eq(r"J_3(BDP/N, 0)", Js_eq)],
            solutions(
                lambda: sp.solve((lam * sp.eye(2) - Js_eq).det(), lam),
                [sp.I * sp.sqrt(Js_eq.det()), -sp.I * sp.sqrt(Js_eq.det())],
            ),
        ),
        Step(
            "Jacobian of the IPG variant",
            cite("IPG law after Algorithm 1, eq. (8)"),
            "The model's 'ipg' variant (−2β(w/τ)(k̄/BDP)² at k = 0) differentiated at (w, q = k̄).",
            [eq("J_{ipg}", Ji)],
            positive(sp.simplify(det_i)),
        ),
        Step(
            "IPG variant: complex-root condition",
            cite("eq. (13)"),
            "The discriminant is 4β·k̄/(τ²·BDP⁴) times β·k̄³ − 4·w·N·BDP².",
            [eq(r"\Delta_{ipg}", disc_i)],
            identity(disc_i, pref_i * (beta * kbar**3 - 4 * w * N * BDP**2)),
        ),
        Step(
            "IPG variant: what replaces (14)",
            cite("eq. (14)"),
            "At w·N = BDP the roots are complex iff k̄ < (4/β)^{1/3}·BDP (≈ 15.9·BDP for β = 0.001).",
            [eq(r"\bar{k}^*_{ipg}", kstar_i)],
            solutions(lambda: sp.solve((disc_i / pref_i).subs(w, BDP / N), kbar), [kstar_i]),
        ),
        Step(
            "IPG variant: the linearization at the equilibrium is nilpotent",
            cite("eq. (11)"),
            "The decrease is quadratic in k̄, so both ∂w'/∂w and ∂w'/∂q vanish at k̄ = 0: J² = 0 and the"
            " linearization decides nothing there (degenerate, not even a center).",
            [eq(r"J_{ipg}(w, 0)", Ji_eq)],
            identity(Ji_eq * Ji_eq, sp.zeros(2)),
        ),
        Step(
            "Thresholds in numbers",
            "section 5.1 of [DWTCP]",
            f"Evaluation setting (BDP = {fmt(P.bdp)} packets, N = {P.flows}): sqrt(w) form with β_w = 0.001·√1500 ="
            f" {fmt(P.beta_sqrt_packets, 4)}: k̄*₃ = {fmt(ks_num, 4)} packets ({fmt(ks_num / P.bdp, 3)}·BDP); IPG with"
            f" β = 0.001: k̄* = {fmt(ki_num, 4)} packets ({fmt(ki_num / P.bdp, 3)}·BDP).",
            [r"\bar{k}^*_3 \approx " + fmt(ks_num, 4) + r",\qquad \bar{k}^*_{ipg} \approx " + fmt(ki_num, 4)],
            predicate(
                lambda: (
                    abs(float(kstar_s.subs({BDP: P.bdp, N: P.flows, bw: P.beta_sqrt_packets})) - ks_num)
                    < 1e-9 * ks_num
                    and abs(float(kstar_i.subs({BDP: P.bdp, beta: P.beta})) - ki_num) < 1e-9 * ki_num,
                    "closed forms and numeric helpers agree",
                ),
                "the derived closed forms evaluated by SymPy equal the numeric helpers",
            ),
        ),
    ]
    findings = [
        Finding(
            "sqrt(w) form (3)",
            "(the analysis drops √w)",
            "Frozen Jacobian stable for every k̄ > 0; spiral iff 9β_w·k̄² < 16·N·√w·BDP, i.e. at w·N = BDP"
            " k̄ < (4/3)·BDP^{3/4}·N^{1/4}/√β_w — N-dependent, and with the byte-convention β_w only"
            f" {fmt(ks_num / P.bdp, 3)}·BDP in the evaluation setting. The equilibrium is a center again.",
            "derived",
            "sqrt(w) form: what replaces (14)",
        ),
        Finding(
            "Inter-packet-gap variant",
            "'similar results'",
            "Spiral iff β·k̄³ < 4·w·N·BDP², i.e. k̄ < (4/β)^{1/3}·BDP at w·N = BDP; the Jacobian at the equilibrium is"
            " nilpotent (degenerate), so no linear statement about the equilibrium is possible.",
            "derived",
            "IPG variant: the linearization at the equilibrium is nilpotent",
        ),
    ]
    return Derivation(
        slug="dwtcp_variants",
        title="DWTCP: the sqrt(w) form (3) and the inter-packet-gap variant — what replaces (14)",
        covers="eq. (3), the IPG law after Algorithm 1, and (8)-(14) redone for both, [DWTCP].",
        findings=findings,
        steps=steps,
    )
