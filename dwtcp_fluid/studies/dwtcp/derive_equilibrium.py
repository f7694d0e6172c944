"""DWTCP equilibria, the feedback delay, and the increase phase (15)-(16).

[DWTCP] eqs. (6), (7), (8), (15), (16), from :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid`.
"""

from __future__ import annotations

import sympy as sp

from ...models.dwtcp import DwtcpFluid
from ...params import DWTCP_EVALUATION
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    differs,
    dsolve_equals,
    eq,
    fmt,
    identity,
    positive,
    predicate,
    solutions,
)
from .derive_common import bdp_subs, cite, symbols
from .derive_delay_roots import _char_delayed, delay_margin, delayed_root, kbar_crit_delay

__all__ = ["dwtcp_equilibrium", "dwtcp_increase_phase", "delayed_root", "delay_margin", "kbar_crit_delay"]


def dwtcp_equilibrium() -> Derivation:
    """Equilibria of (6)/(7), the center at (BDP/N, 0), and the delayed linearization; [DWTCP]."""
    s = symbols()
    tau, BDP, N, beta, k, kbar, w, lam = s.tau, s.BDP, s.N, s.beta, s.k, s.kbar, s.wp, s.lam
    m = DwtcpFluid()
    p = {n: getattr(s, n) for n in DwtcpFluid.param_names}
    F_gen = m.sym_rhs(1).subs(bdp_subs(False))
    J_gen = m.jacobian(1).subs(bdp_subs(False))
    J0 = m.jacobian(1).subs(bdp_subs(True))
    eq0 = {s.w: BDP / N, s.q: 0}
    J_eq = sp.simplify(J0.subs(eq0))
    F_kbar = sp.simplify(m.sym_rhs(1).subs(bdp_subs(True)).subs({s.w: BDP / N, s.q: kbar}))
    G, sd = _char_delayed(True)
    G_eq = sp.simplify(G.subs({w: BDP / N, kbar: 0}))
    bb = sp.Symbol("b", positive=True)
    aa, omega = sp.symbols("a omega", positive=True)
    Gb = lam**2 + bb * sp.exp(-lam * sd)
    shift_eq = (-sp.diff(Gb, sd) / sp.diff(Gb, lam)).subs(sd, 0).subs(lam, sp.I * sp.sqrt(bb))
    Gab = lam**2 + aa * lam + bb * sp.exp(-lam * sd)
    lam0 = -aa / 2 + sp.I * omega
    shift_frozen = (-sp.diff(Gab, sd) / sp.diff(Gab, lam)).subs(sd, 0).subs(lam, lam0)
    a_val, b_val = beta * kbar / (tau * BDP), beta * w * N / (tau**2 * BDP)
    r_half, r_two, r_eq = delayed_root(0.001, 0.5), delayed_root(0.001, 2.0), delayed_root(0.001, 0.0)
    n_int = sp.Symbol("n", integer=True, positive=True)
    x_at = sp.Symbol("x", positive=True)
    cross_b = (-sp.diff(Gb, sd) / sp.diff(Gb, lam)).subs(sp.exp(-lam * sd), 1).subs(lam, sp.I * sp.sqrt(bb))
    b_of = omega * sp.sqrt(omega**2 + aa**2)  # |b| = |ω² − i·a·ω| on the imaginary axis
    tau_c = sp.atan(aa / omega) / omega
    e_atan = {sp.exp(-sp.I * sp.atan(aa / omega)): (1 - sp.I * aa / omega) / sp.sqrt(1 + aa**2 / omega**2)}
    G_cross = Gab.subs(bb, b_of).subs({lam: sp.I * omega, sd: tau_c}).subs(e_atan)
    dir_c = (
        (-sp.diff(Gab, sd) / sp.diff(Gab, lam))
        .subs(bb, b_of)
        .subs(lam, sp.I * omega)
        .subs(sd, tau_c)
        .subs(e_atan)
    )
    re_dir = sp.simplify(sp.re(sp.expand_complex(sp.simplify(dir_c))))
    beta_g = DWTCP_EVALUATION.beta_guideline
    kc_001, kc_g = kbar_crit_delay(0.001), kbar_crit_delay(beta_g)
    steps = [
        Step(
            "Equilibria of the decrease phase",
            cite("eq. (6)"),
            "w' = 0 needs w = 0 or q = k, and q' = 0 needs w = BDP/N; w = 0 contradicts q' = 0, so the only"
            " equilibrium is (BDP/N, k) — (BDP/N, 0) for the paper's k = 0.",
            [eq(sp.Matrix([s.w, s.q]), sp.Matrix([BDP / N, k]))],
            solutions(
                lambda: [sp.Matrix([d[s.w], d[s.q]]) for d in sp.solve(list(F_gen), [s.w, s.q], dict=True)],
                [sp.Matrix([BDP / N, k])],
            ),
        ),
        Step(
            "No equilibrium in the increase phase",
            cite("eq. (7)"),
            "In the increase phase w' = (1 + α·S/L)/τ > 0 everywhere.",
            [eq("w'", m.increase_rate(p))],
            positive(m.increase_rate(p)),
        ),
        Step(
            "At the equilibrium the trace of (8) vanishes",
            cite("eqs. (8), (12)"),
            "At (BDP/N, k) the queue is at its target, so k̄ − k = 0 and tr J = 0 for any k.",
            [eq(r"\operatorname{tr} J(BDP/N, k)", 0)],
            identity(J_gen.subs({s.w: BDP / N, s.q: k}).trace(), 0),
        ),
        Step(
            "The equilibrium is a center of the linearization",
            cite("eqs. (8), (11)"),
            "With k = 0, J at (BDP/N, 0) has purely imaginary eigenvalues ±i·√β/τ: a center, not a stable spiral.",
            [eq(r"J(BDP/N, 0)", J_eq)],
            solutions(
                lambda: sp.solve((lam * sp.eye(2) - J_eq).det(), lam),
                [sp.I * sp.sqrt(beta) / tau, -sp.I * sp.sqrt(beta) / tau],
            ),
        ),
        Step(
            "(BDP/N, k̄ > 0) is not an equilibrium",
            cite("eqs. (6), (14)"),
            "At w = BDP/N and q = k̄ > 0 the window still decreases at β·k̄/(N·τ) packets/s; the paper's (14) linearizes"
            " at points that are not equilibria.",
            [eq(sp.Matrix([sp.Symbol("w'"), sp.Symbol("q'")]), F_kbar)],
            positive(-F_kbar[0]),
        ),
        Step(
            "With the Scout delay: the characteristic quasi-polynomial",
            cite("eqs. (6), (8)"),
            "Keeping k̄ = q(t − τ_d), the linearization at (w, k̄) is det(λI − A₀ − A₁e^{−λτ_d}); at the equilibrium it"
            " is λ² + (β/τ²)·e^{−λτ_d}.",
            [eq(r"\chi(\lambda)", G), eq(r"\chi_{eq}(\lambda)", G_eq)],
            identity(G_eq, lam**2 + beta / tau**2 * sp.exp(-lam * sd)),
        ),
        Step(
            "A small delay pushes the center's roots to the right",
            cite("eq. (11)"),
            "For χ = λ² + b·e^{−λτ_d}, implicit differentiation at τ_d = 0, λ = i√b gives dλ/dτ_d = b/2 > 0: any small"
            " Scout delay makes the equilibrium's linearization oscillatory unstable.",
            [eq(r"\left.\frac{d\lambda}{d\tau_d}\right|_{0}", sp.simplify(shift_eq))],
            identity(shift_eq, bb / 2),
        ),
        Step(
            "Delay against damping at q = k̄ > 0",
            cite("eqs. (12), (14)"),
            "For χ = λ² + a·λ + b·e^{−λτ_d} with complex root λ₀ = −a/2 + iω, Re dλ/dτ_d = b/2, so Re λ ≈ (b·τ_d − a)/2:"
            " damped only if a > b·τ_d, i.e. k̄ > w·N·τ_d/τ = BDP·τ_d/τ — a lower bound on k̄, not the upper bound (14).",
            [eq(r"\operatorname{Re}\frac{d\lambda}{d\tau_d}", bb / 2)],
            identity(sp.re(sp.expand_complex(shift_frozen)), bb / 2),
        ),
        Step(
            "First-order threshold",
            cite("eq. (14)"),
            "a = b·τ_d solved for k̄ gives k̄ = w·N·τ_d/τ; at w·N = BDP and τ_d = τ it is k̄ = BDP.",
            [eq(r"\bar{k}_{delay}", w * N * sd / tau)],
            solutions(lambda: sp.solve(a_val - b_val * sd, kbar), [w * N * sd / tau]),
        ),
        Step(
            "At the equilibrium: imaginary-axis crossings",
            cite("eq. (11)"),
            "λ = iω solves λ² + b·e^{−λτ_d} = 0 only if sin ωτ_d = 0 and ω² = b·cos ωτ_d > 0, i.e. ω = √b and"
            " τ_d = 2πn/√b; there it is a root.",
            [eq(r"\chi\left(i\sqrt{b}\right)\Big|_{\tau_d = 2\pi n/\sqrt{b}}", 0)],
            identity(Gb.subs({lam: sp.I * sp.sqrt(bb), sd: 2 * sp.pi * n_int / sp.sqrt(bb)}), 0),
        ),
        Step(
            "At the equilibrium: every crossing goes to the right",
            cite("eq. (11)"),
            "At those crossings Re dλ/dτ_d = 2b/(b·τ_d² + 4) > 0: roots only ever enter Re λ > 0. With step 7 (both"
            " roots move right at τ_d = 0⁺) the equilibrium's delayed linearization is unstable for every τ_d > 0.",
            [
                eq(
                    r"\operatorname{Re}\frac{d\lambda}{d\tau_d}",
                    sp.simplify(sp.re(sp.expand_complex(cross_b))),
                )
            ],
            positive(sp.simplify(sp.re(sp.expand_complex(cross_b)))),
        ),
        Step(
            "At q = k̄ > 0: the exact delay margin",
            cite("eqs. (12), (14)"),
            "For λ² + a·λ + b·e^{−λτ_d}, λ = iω is a root iff b² = ω⁴ + a²ω² and τ_d = atan(a/ω)/ω (+2πn/ω); with"
            " e^{−i·atan x} = (1 − ix)/√(1 + x²) the residual vanishes. For τ_d below this τ_c the roots stay left.",
            [eq(r"\tau_c", tau_c), eq(r"\omega^2", (sp.sqrt(aa**4 + 4 * bb**2) - aa**2) / 2)],
            predicate(
                lambda: (
                    identity(sp.exp(-sp.I * sp.atan(x_at)), (1 - sp.I * x_at) / sp.sqrt(1 + x_at**2)).fn()[0]
                    and identity(G_cross, 0).fn()[0]
                    and identity(b_of**2, omega**4 + aa**2 * omega**2).fn()[0],
                    "lemma and residual both 0",
                ),
                "the lemma e^{−i·atan x} = (1 − ix)/√(1 + x²) (x > 0) and the residual χ(iω) at τ_c, both by simplify",
            ),
        ),
        Step(
            "At q = k̄ > 0: the crossing is destabilizing",
            cite("eqs. (12), (14)"),
            "At (iω, τ_c) Re dλ/dτ_d has numerator ω²(a² + 2ω²) > 0, so beyond τ_c the frozen linearization is unstable.",
            [
                r"\operatorname{Re}\frac{d\lambda}{d\tau_d}\Big|_{\tau_c} = \frac{\omega^2\,(a^2 + 2\omega^2)}"
                r"{(a - \omega\,\operatorname{atan}\frac{a}{\omega})^2 + (a\,\operatorname{atan}\frac{a}{\omega} + 2\omega)^2} > 0"
            ],
            predicate(
                lambda: (
                    identity(sp.numer(sp.together(re_dir)), omega**2 * (aa**2 + 2 * omega**2)).fn()[0]
                    and positive(re_dir).fn()[0],
                    "numerator ω²(a² + 2ω²), expression positive",
                ),
                "numerator by simplify, sign by SymPy's assumptions",
            ),
        ),
        Step(
            "The exact threshold with a one-RTT delay",
            cite("eq. (14)"),
            f"Solving τ_c(k̄) = τ at w·N = BDP (a = β·k̄/(τ·BDP), b = β/τ²): k̄_c = {fmt(kc_001, 6)}·BDP for β = 0.001 and"
            f" {fmt(kc_g, 4)}·BDP for the guideline β = {fmt(beta_g, 4)} (N = {DWTCP_EVALUATION.flows}); the first-order"
            " value is 1·BDP. The frozen, delayed linearization is stable only for k̄ > k̄_c — the opposite direction"
            " from (14).",
            [r"\tau_c(\bar{k}_c) = \tau_d = \tau \;\Rightarrow\; \bar{k}_c \approx BDP"],
            predicate(
                lambda: (
                    abs(kc_001 - 1) < 1e-3
                    and delayed_root(0.001, 0.99 * kc_001).real > 0 > delayed_root(0.001, 1.01 * kc_001).real,
                    f"k̄_c = {fmt(kc_001, 6)}·BDP; Newton roots change sign across it",
                ),
                "brentq on τ_c; Newton roots just below and above k̄_c have real parts of opposite sign",
            ),
        ),
        Step(
            "Newton roots of the delayed equation (β = 0.001, τ_d = τ)",
            cite("eq. (14)"),
            f"Roots near the undelayed ones: Re λ·τ = {fmt(r_eq.real, 4)} at the equilibrium, {fmt(r_half.real, 4)} at"
            f" k̄ = BDP/2 and {fmt(r_two.real, 4)} at k̄ = 2·BDP — unstable below BDP, stable above, as step 8 predicts.",
            [r"\lambda^2 + a\lambda + b e^{-\lambda\tau_d} = 0"],
            predicate(
                lambda: (r_eq.real > 0 and r_half.real > 0 and r_two.real < 0, "signs as predicted"),
                "sympy.nsolve from the undelayed roots; signs of the real parts",
            ),
        ),
    ]
    findings = [
        Finding(
            "Claimed equilibrium (BDP/N, 0)",
            "one stable equilibrium at Q = 0, w = BDP/N; spiral stable",
            "It is the only equilibrium, but there q = k̄ = 0, so tr J = 0 and the eigenvalues are ±i√β/τ: a center of"
            " the linearization, not an asymptotically stable spiral.",
            "refuted",
            "The equilibrium is a center of the linearization",
        ),
        Finding(
            "Linearizing at q = k̄ > 0",
            "(8)-(14) evaluated at w·N = BDP with k̄ > 0",
            "(BDP/N, k̄ > 0) is not an equilibrium (w' = −β·k̄/(N·τ) ≠ 0). (14) describes the local, frozen flow at"
            " non-equilibrium points; it establishes no stability of any equilibrium or orbit.",
            "refuted",
            "(BDP/N, k̄ > 0) is not an equilibrium",
        ),
        Finding(
            "Feedback delay",
            "(3)-(7) carry no delay",
            "With any Scout delay τ_d > 0 the equilibrium's center becomes unstable (roots move right at τ_d = 0⁺ and"
            " every imaginary-axis crossing is to the right). At q = k̄ > 0 the frozen, delayed linearization is"
            " stable only below the exact delay margin τ_c = atan(a/ω)/ω; for τ_d = τ that means k̄ > k̄_c ≈ BDP"
            f" ({fmt(kc_001, 6)}·BDP at β = 0.001) — a lower bound on k̄, where (14) states an upper bound. The"
            " switch at q = k then decides; the delayed switched model is solved by the DDE code.",
            "new finding",
            "Delay against damping at q = k̄ > 0",
        ),
    ]
    return Derivation(
        slug="dwtcp_equilibrium",
        title="DWTCP: equilibria, the center at (BDP/N, 0), and the Scout's feedback delay",
        covers="eqs. (6), (7), (8), (11), (14) and Theorems 1/2 of [DWTCP].",
        findings=findings,
        steps=steps,
        notes=[
            "The delayed analysis linearizes the decrease branch only. The equilibrium lies on the switching surface"
            " q = k, so trajectories near it switch between (6) and (7); the full delayed behaviour is a relay"
            " system with delay and is mapped numerically by the DDE solvers (dwtcp_fluid.dde)."
        ],
    )


def dwtcp_increase_phase() -> Derivation:
    """Increase phase (7): the correct Jacobian against the paper's (15), (16) of [DWTCP]."""
    s = symbols()
    tau, BDP, N, lam, t = s.tau, s.BDP, s.N, s.lam, s.t
    m = DwtcpFluid()
    p = {n: getattr(s, n) for n in DwtcpFluid.param_names}
    J = sp.simplify(m.jacobian(0).subs(bdp_subs(True)))
    J_paper = sp.Matrix([[0, 0], [0, N / tau]])
    a = m.increase_rate(p)
    w0, q0 = sp.symbols("w_0 q_0", positive=True)
    wf, qf = sp.Function("w"), sp.Function("q")
    F0 = m.sym_rhs(0).subs(bdp_subs(True))
    w_t = w0 + a * t
    q_t = q0 + (N * w0 / tau - BDP / tau) * t + N * a * t**2 / (2 * tau)
    t_star = 2 * (BDP - N * w0) / (N * a)
    steps = [
        Step(
            "Jacobian of the increase phase",
            cite("eq. (7)"),
            "w' is constant and q' = N·w/τ − C depends on w only, so ∂q'/∂w = N/τ sits below the diagonal.",
            [eq("J_{inc}", J)],
            identity(J, sp.Matrix([[0, 0], [N / tau, 0]])),
        ),
        Step(
            "The paper's (15) is a different matrix",
            cite("eq. (15)"),
            "(15) puts N/τ on the diagonal (∂q'/∂q), but q' does not depend on q.",
            [eq("J_{(15)}", J_paper)],
            differs(J, J_paper),
        ),
        Step(
            "Eigenvalues {0, 0}",
            cite("eq. (16)"),
            "det(λI − J) = λ², a double root at 0.",
            [eq(r"\det(\lambda I - J_{inc})", sp.expand((lam * sp.eye(2) - J).det()))],
            predicate(
                lambda: (
                    sp.roots(sp.Poly((lam * sp.eye(2) - J).det(), lam)) == {0: 2},
                    "roots {0: multiplicity 2}",
                ),
                "sympy.roots of the characteristic polynomial is {0: 2}",
            ),
        ),
        Step(
            "The paper's (16) is a different polynomial",
            cite("eq. (16)"),
            "(16) gives λ² − N·λ/τ with a root N/τ > 0, which would mean exponential growth; the correct λ² has none.",
            [eq(r"\chi_{(16)}", lam**2 - N * lam / tau)],
            differs((lam * sp.eye(2) - J).det(), lam**2 - N * lam / tau),
        ),
        Step(
            "J is nilpotent: growth is polynomial",
            cite("eq. (7)"),
            "J² = 0, so exp(J·t) = I + J·t: perturbations grow linearly in t, not exponentially.",
            [eq(r"e^{J t}", sp.eye(2) + J * t)],
            identity(
                sp.Matrix.vstack(J * J, (J * t).exp()), sp.Matrix.vstack(sp.zeros(2), sp.eye(2) + J * t)
            ),
        ),
        Step(
            "Exact solution of (7): w linear, q quadratic",
            cite("eq. (7)"),
            "dsolve of w' = (1 + α·S/L)/τ gives w₀ + a·t; then q' = N·w(t)/τ − C integrates to a parabola.",
            [eq("w(t)", w_t), eq("q(t)", q_t)],
            predicate(
                lambda: (
                    dsolve_equals(sp.Eq(wf(t).diff(t), F0[0]), wf(t), {wf(0): w0}, w_t).fn()[0]
                    and dsolve_equals(
                        sp.Eq(qf(t).diff(t), F0[1].subs(s.w, w_t)), qf(t), {qf(0): q0}, q_t
                    ).fn()[0],
                    "dsolve agrees for w and q",
                ),
                "SymPy's dsolve of both equations of (7) with w(0) = w₀, q(0) = q₀",
            ),
        ),
        Step(
            "The increase phase ends in finite time",
            cite("eq. (7)"),
            "Entering at q = q₀ with w₀ < BDP/N, q returns to q₀ at t* = 2(BDP − N·w₀)/(N·a), with w(t*) = 2·BDP/N − w₀:"
            " the parabola is symmetric about the fair share.",
            [eq("t^*", t_star), eq("w(t^*)", sp.simplify(w_t.subs(t, t_star)))],
            predicate(
                lambda: (
                    solutions(lambda: sp.solve(q_t - q0, t), [t_star]).fn()[0]
                    and identity(w_t.subs(t, t_star), 2 * BDP / N - w0).fn()[0],
                    "the only positive root is t*, and w(t*) = 2·BDP/N − w₀",
                ),
                "solve q(t) = q₀ for t > 0, then substitute into w(t)",
            ),
        ),
    ]
    findings = [
        Finding(
            "Increase-phase Jacobian (15)",
            "J = [[0, 0], [0, N/τ]]",
            "Differentiating (7) gives J = [[0, 0], [N/τ, 0]] (∂q'/∂w, not ∂q'/∂q).",
            "corrected",
            "The paper's (15) is a different matrix",
        ),
        Finding(
            "Eigenvalues (16)",
            "λ = 0 and λ = N/τ: 'the increasing phase is not stable'",
            "Both eigenvalues are 0 and J is nilpotent: w grows linearly and q quadratically (exact solution), and the"
            " phase ends at the switch after a finite t*. 'Not stable' only means the phase has no equilibrium.",
            "corrected",
            "J is nilpotent: growth is polynomial",
        ),
    ]
    return Derivation(
        slug="dwtcp_increase_phase",
        title="DWTCP: the increase phase (7) and the paper's (15)-(16)",
        covers="[DWTCP] eqs. (7), (15), (16).",
        findings=findings,
        steps=steps,
    )
