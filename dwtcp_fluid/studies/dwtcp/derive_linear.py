"""DWTCP frozen linearization (8)-(14) and what k̄* = 2·BDP/√β means in numbers.

[DWTCP] eqs. (8)-(14), all from :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid`.
"""

from __future__ import annotations

import math

import sympy as sp

from ...formulas import kbar_star
from ...models.dwtcp import DwtcpFluid
from ...params import DWTCP_EVALUATION
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    eq,
    fmt,
    identity,
    numeric,
    positive,
    predicate,
    solutions,
)
from .derive_common import bdp_subs, cite, decrease_jacobian, symbols

__all__ = ["dwtcp_jacobian", "dwtcp_condition_numbers", "kbar_crit_table"]


def dwtcp_jacobian() -> Derivation:
    """Derivation of the Jacobian (8), (10), roots (11), conditions (12)-(14), [DWTCP] eqs. (8)-(14)."""
    s = symbols()
    tau, BDP, N, beta, kbar, w, lam = s.tau, s.BDP, s.N, s.beta, s.kbar, s.wp, s.lam
    J = decrease_jacobian("paper", k_zero=True)
    J_paper = sp.Matrix([[-beta * kbar / (tau * BDP), -beta * w / (tau * BDP)], [N / tau, 0]])
    # The delayed model: k̄ is q(t − τ_d); ∂/∂q and ∂/∂q(t − τ_d) separate.
    sub = {**bdp_subs(True), s.w: w, s.q: kbar, s.q_d: kbar}
    A0 = sp.simplify(DwtcpFluid(delay_rtts=1.0).jacobian(1, delayed=True).subs(sub))
    A1 = sp.simplify(DwtcpFluid(delay_rtts=1.0).jacobian_delayed(1).subs(sub))
    charpoly = sp.expand((lam * sp.eye(2) - J).det())
    paper10 = lam**2 + lam * beta * kbar / (tau * BDP) + beta * w * N / (tau**2 * BDP)
    b = beta * kbar / (tau * BDP)
    c = beta * w * N / (tau**2 * BDP)
    paper11 = [(-b + sp.sqrt(b**2 - 4 * c)) / 2, (-b - sp.sqrt(b**2 - 4 * c)) / 2]
    tr, det = J.trace(), J.det()
    disc = sp.expand(tr**2 - 4 * det)
    at_eq = {w: BDP / N}
    kstar = 2 * BDP / sp.sqrt(beta)
    node_pt = {w: BDP / N, kbar: 2 * kstar}
    node_roots = [sp.simplify(r.subs(node_pt)) for r in sp.solve(charpoly.subs(node_pt), lam)]
    steps = [
        Step(
            "Jacobian of the decrease phase",
            cite("eq. (8)"),
            "Differentiating the model's decrease-phase right-hand side (k = 0, undelayed, so k̄ = q) in (w, q) gives"
            " the paper's matrix (8).",
            [eq("J", J)],
            identity(J, J_paper),
        ),
        Step(
            "∂w'/∂q in (8) treats k̄ as the queue",
            cite("eqs. (6), (8)"),
            "In the model k̄ is the queue the Scout saw, q(t − τ_d): with the delay kept, ∂w'/∂q(t) = 0 and the entry"
            " −β·w/(τ·BDP) belongs to the delayed Jacobian A₁; (8) holds only for the undelayed model (k̄ = q(t)).",
            [eq("A_0", A0), eq("A_1", A1)],
            identity(A0 + A1, J_paper),
        ),
        Step(
            "Characteristic polynomial",
            cite("eqs. (9), (10)"),
            "det(λI − J) expands to the paper's quadratic (10).",
            [eq(charpoly, 0)],
            identity(charpoly, paper10),
        ),
        Step(
            "Roots",
            cite("eq. (11)"),
            "SymPy's solve of (10) returns exactly the two roots (11).",
            [eq(r"\lambda_{\pm}", paper11[0])],
            solutions(lambda: sp.solve(charpoly, lam), paper11),
        ),
        Step(
            "Trace: the real part condition (12)",
            cite("eq. (12)"),
            "tr J = −β·k̄/(τ·BDP) < 0 for every k̄ > 0 (and = 0 at k̄ = 0).",
            [eq(r"\operatorname{tr} J", tr)],
            positive(-tr),
        ),
        Step(
            "Determinant is positive",
            cite("eq. (10)"),
            "det J = β·w·N/(τ²·BDP) > 0 for all positive parameters.",
            [eq(r"\det J", det)],
            positive(det),
        ),
        Step(
            "Both roots have negative real part for every k̄ > 0",
            cite("eqs. (11)-(13)"),
            "For real roots (tr² ≥ 4 det) √(tr² − 4 det) < |tr| because det > 0, so both are negative; for complex"
            " roots the real part is tr/2 < 0. Stability of the frozen Jacobian therefore never needs (13).",
            [
                r"\lambda_\pm = \tfrac12\left(\operatorname{tr}J \pm \sqrt{(\operatorname{tr}J)^2 - 4\det J}\right),"
                r"\qquad (\operatorname{tr}J)^2 - \left((\operatorname{tr}J)^2 - 4\det J\right) = 4\det J > 0"
            ],
            positive(sp.simplify(tr**2 - disc)),
        ),
        Step(
            "Complex roots: condition (13)",
            cite("eq. (13)"),
            "The discriminant times the positive factor τ²·BDP²/β is β·k̄² − 4·w·N·BDP, so the roots are complex iff"
            " β·k̄² < 4·w·N·BDP.",
            [eq(r"\Delta", disc)],
            identity(disc * tau**2 * BDP**2 / beta, beta * kbar**2 - 4 * w * N * BDP),
        ),
        Step(
            "At w·N = BDP: the threshold (14)",
            cite("eq. (14)"),
            "With w = BDP/N the discriminant vanishes at the single positive k̄* = 2·BDP/√β; below it the roots are"
            " complex (spiral), above it real (node).",
            [eq(r"\bar{k}^*", kstar)],
            solutions(lambda: sp.solve((disc * tau**2 * BDP**2 / beta).subs(at_eq), kbar), [kstar]),
        ),
        Step(
            "Above k̄* the frozen system is a stable node",
            cite("eq. (14)"),
            "At k̄ = 2·k̄* both roots are real and negative: violating (14) changes spiral into node, not stable into"
            " unstable.",
            [eq(r"\lambda_{\pm}", sp.Matrix(node_roots).T)],
            predicate(
                lambda: (
                    all(r.is_real and r.is_negative for r in node_roots) and len(node_roots) == 2,
                    "two real negative roots",
                ),
                "both roots at k̄ = 2·k̄*, w = BDP/N are real and negative (SymPy assumptions)",
            ),
        ),
    ]
    findings = [
        Finding(
            "(8) ∂w'/∂q",
            "∂w'/∂q = −β·w/(τ·BDP)",
            "This entry differentiates k̄, the queue the Scout saw, as if it were q(t). With the Scout's one-RTT delay it"
            " belongs to the delayed Jacobian; (8) is the undelayed (τ_d = 0) linearization.",
            "clarified",
            "∂w'/∂q in (8) treats k̄ as the queue",
        ),
        Finding(
            "(10), (11), (12), (13)",
            "characteristic polynomial, roots, real-part and complex-root conditions",
            "All re-derived from the model and equal to the paper's.",
            "confirmed",
            "Roots",
        ),
        Finding(
            "(14) and Theorems 1/2",
            "DWTCP is (spiral) stable as long as k̄ < 2·BDP/√β",
            "(14) is the condition for complex eigenvalues (spiral vs node). The frozen Jacobian has negative-real-part"
            " eigenvalues for every k̄ > 0 by (12) and det > 0; above k̄* it is a stable node. (14) is not a stability"
            " condition.",
            "refuted as a stability condition",
            "Both roots have negative real part for every k̄ > 0",
        ),
    ]
    return Derivation(
        slug="dwtcp_jacobian",
        title="DWTCP: frozen Jacobian (8), characteristic roots (10)-(11) and conditions (12)-(14)",
        covers="[DWTCP] eqs. (8)-(14), decrease phase (6) with k = 0.",
        findings=findings,
        steps=steps,
        notes=[
            "The Jacobian is evaluated at an arbitrary point (w, q = k̄), as the paper does; that point is an"
            " equilibrium only at k̄ = 0, w = BDP/N (see dwtcp_equilibrium.md)."
        ],
    )


def kbar_crit_table() -> list[dict[str, float | str]]:
    """k̄* = 2·BDP/√β ([DWTCP] eq. (14)) for the evaluation setting and several β.

    Returns rows with β, k̄* in packets, k̄*/BDP and k̄* in bytes, for β = 0.001, the guideline β and the byte-
    convention translation β·√L (docs/equations.md, DWTCP note 3).
    """
    P = DWTCP_EVALUATION
    rows = []
    for label, beta in (
        ("β = 0.001 (evaluation)", 0.001),
        (f"guideline 1/(2√(BDP/N)), N = {P.flows}", P.beta_guideline),
        ("β·√L = 0.001·√1500 (byte convention)", 0.001 * math.sqrt(P.link.L)),
    ):
        kc = float(kbar_star(P.bdp, beta))
        rows.append(
            {"case": label, "beta": beta, "kbar_crit": kc, "over_bdp": kc / P.bdp, "bytes": kc * P.link.L}
        )
    return rows


def dwtcp_condition_numbers() -> Derivation:
    """k̄* in numbers against real buffers, [DWTCP] eq. (14)."""
    s = symbols()
    P = DWTCP_EVALUATION
    Nn = sp.Symbol("N", positive=True)
    ratio = 2 / sp.sqrt(s.beta)
    guide = 1 / (2 * sp.sqrt(s.BDP / Nn))
    rows = kbar_crit_table()
    sim_buffer, testbed_buffer = 250.0, 300e3 / P.link.L
    steps = [
        Step(
            "k̄* in units of BDP",
            cite("eq. (14)"),
            "k̄*/BDP = 2/√β depends on β alone; for β = 0.001 it is 63.2.",
            [eq(r"\bar{k}^*/BDP", ratio)],
            numeric(
                lambda: float(ratio.subs(s.beta, sp.Rational(1, 1000))), 2 / math.sqrt(0.001), rtol=1e-12
            ),
        ),
        Step(
            "With the guideline β",
            cite("section 4.2 guideline, eq. (14)"),
            "With β = 1/(2√(BDP/N)), k̄*/BDP = 2√2·(BDP/N)^{1/4}: at least 2√2 ≈ 2.83 whatever N ≤ BDP.",
            [eq(r"\bar{k}^*/BDP", sp.simplify(ratio.subs(s.beta, guide)))],
            identity(ratio.subs(s.beta, guide), 2 * sp.sqrt(2) * (s.BDP / Nn) ** sp.Rational(1, 4)),
        ),
        Step(
            "Against the evaluation buffers",
            "section 5.1 of [DWTCP]",
            f"10 Gbps, τ = 100 µs: BDP = {fmt(P.bdp)} packets; the switch buffer is 250 packets (simulation) or"
            f" 300 KB = {fmt(testbed_buffer)} packets (testbed), so k̄ (a queue) can never reach k̄* for any of the β"
            " in the table.",
            [r"\bar{k} \le \text{buffer} = 250 < \bar{k}^*"],
            predicate(
                lambda: (
                    all(r["kbar_crit"] > max(sim_buffer, testbed_buffer) for r in rows),
                    "min k̄* = " + fmt(min(r["kbar_crit"] for r in rows)) + " packets > 250",
                ),
                "every k̄* in the table exceeds both evaluation buffers",
            ),
        ),
    ]
    table = ["| case | β | k̄* (packets) | k̄*/BDP | k̄* (bytes) |", "|---|---|---|---|---|"]
    for r in rows:
        table.append(
            f"| {r['case']} | {fmt(r['beta'], 4)} | {fmt(r['kbar_crit'], 5)} | {fmt(r['over_bdp'], 4)} |"
            f" {fmt(r['bytes'], 4)} |"
        )
    findings = [
        Finding(
            "k̄* = 2·BDP/√β in numbers",
            "the condition k̄ < 2·BDP/√β guarantees stability",
            f"β = 0.001 gives k̄* = 63.2·BDP ({fmt(rows[0]['kbar_crit'], 4)} packets at 10 Gbps/100 µs), the guideline β"
            f" (N = {P.flows}) {fmt(rows[1]['over_bdp'], 3)}·BDP: far above 250-packet buffers. The condition can never"
            " be violated in practice, so it constrains nothing (and it is a spiral/node boundary anyway).",
            "vacuous in practice",
            "Against the evaluation buffers",
        )
    ]
    return Derivation(
        slug="dwtcp_condition_numbers",
        title="DWTCP: k̄* = 2·BDP/√β in numbers",
        covers="eq. (14) and the evaluation settings (section 5.1) of [DWTCP].",
        findings=findings,
        steps=steps,
        notes=[
            "Evaluation setting (DWTCP_EVALUATION preset), BDP = " + fmt(P.bdp) + " packets:",
            "\n".join(table),
        ],
    )
