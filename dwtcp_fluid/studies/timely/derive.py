"""TIMELY and Patched TIMELY: the fixed-point set of each fluid model and the stability of the patched one.

Every expression comes from :mod:`dwtcp_fluid.models.timely` (``band_rate``, ``gradient_rate``, ``timely_rate``
and :class:`~dwtcp_fluid.models.timely.TimelyFluid`'s right-hand side and Jacobians); the characteristic roots
come from :mod:`dwtcp_fluid.analysis.charroots`. The packet-level evidence (start rates decide TIMELY's split,
Patched TIMELY equalizes) is measured by :mod:`dwtcp_fluid.studies.timely.checks`.
"""

from __future__ import annotations

import functools
import types

import numpy as np
import sympy as sp

from ...analysis.charroots import char_roots, critical_parameter
from ...models.base import SYMPY_NS
from ...models.timely import TimelyFluid, TimelyParams, band_rate, gradient_rate, gradient_weight, timely_rate
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
    tex_matrix,
    tex_num,
)

__all__ = ["timely", "patched_fixed_point", "patched_linear"]

#: The setting of the numeric steps: 4 flows at 10 Gbps, d = 20 µs, [TIMELY]'s gains, RTT_ref = 50 µs.
SETTING = TimelyParams(flows=(4,))


def _syms() -> types.SimpleNamespace:
    s = types.SimpleNamespace()
    s.C, s.N, s.S, s.delta, s.beta, s.alpha = sp.symbols("C N S delta beta alpha", positive=True)
    s.minRTT, s.rtt_ref, s.N_hai, s.d = sp.symbols("minRTT RTT_ref N_hai d", positive=True)
    s.T_low, s.T_high = sp.symbols("T_low T_high", positive=True)
    s.R, s.Ri, s.Rj, s.rtt, s.tau = sp.symbols("R R_i R_j RTT tau", positive=True)
    s.g, s.qdot = sp.symbols("g qdot", real=True)
    s.p = {
        "C": s.C,
        "delta": s.delta,
        "beta": s.beta,
        "alpha": s.alpha,
        "minRTT": s.minRTT,
        "rtt_ref": s.rtt_ref,
        "N_hai": s.N_hai,
        "T_low": s.T_low,
        "T_high": s.T_high,
    }
    return s


def timely() -> Derivation:
    """TIMELY's fluid model (T1)-(T3): no classical fixed point, a continuum of Filippov equilibria, and rate
    ratios conserved in the segment-limited regime."""
    s = _syms()
    qdot_eq = sp.Eq(s.qdot, 0)
    g_rest = sp.solve(gradient_rate(s.g, s.tau, 0, s.p), s.g)
    inc = band_rate(s.R, 0, s.rtt, s.tau, s.p, False, SYMPY_NS)
    # the g > 0 side, approached from above (a positive symbol resolves the branch before the limit)
    g_pos = sp.Symbol("g_+", positive=True)
    dec_lim = sp.limit(band_rate(s.R, g_pos, s.rtt, s.tau, s.p, False, SYMPY_NS), g_pos, 0, dir="+")
    low = timely_rate(s.R, s.g, s.T_low / 2, s.tau, s.p, False, SYMPY_NS)
    lam = sp.Symbol("lambda", nonnegative=True)
    # Segment-limited regime: τ_i = S/R_i, the gradient at its quasi-static value τ_i·q̇/(C·minRTT) (T2 at rest).
    tau_i, tau_j = s.S / s.Ri, s.S / s.Rj
    g_i = sp.solve(gradient_rate(s.g, tau_i, s.qdot, s.p), s.g)[0]
    g_j = sp.solve(gradient_rate(s.g, tau_j, s.qdot, s.p), s.g)[0]
    qpos = sp.Symbol("qdot_+", positive=True)
    qneg = sp.Symbol("qdot_-", negative=True)

    def rel(R: sp.Expr, tau: sp.Expr, g: sp.Expr, rtt: sp.Expr) -> sp.Expr:
        return band_rate(R, g, rtt, tau, s.p, False, SYMPY_NS) / R

    dec_i = rel(s.Ri, tau_i, g_i.subs(s.qdot, qpos), s.rtt)
    dec_j = rel(s.Rj, tau_j, g_j.subs(s.qdot, qpos), s.rtt)
    inc_i = rel(s.Ri, tau_i, g_i.subs(s.qdot, qneg), s.rtt)
    inc_j = rel(s.Rj, tau_j, g_j.subs(s.qdot, qneg), s.rtt)
    low_i = timely_rate(s.Ri, 0, s.T_low / 2, tau_i, s.p, False, SYMPY_NS) / s.Ri
    low_j = timely_rate(s.Rj, 0, s.T_low / 2, tau_j, s.p, False, SYMPY_NS) / s.Rj
    # T_high = T_low + a positive gap, so that SymPy can order RTT = 2·T_high against both thresholds
    gap = sp.Symbol("Delta_T", positive=True)
    p_ord = {**s.p, "T_high": s.T_low + gap}
    high_rtt = 2 * (s.T_low + gap)
    high_i = timely_rate(s.Ri, 0, high_rtt, tau_i, p_ord, False, SYMPY_NS) / s.Ri
    high_j = timely_rate(s.Rj, 0, high_rtt, tau_j, p_ord, False, SYMPY_NS) / s.Rj
    steps = [
        Step(
            "A constant queue has zero gradient",
            "[PROXY] §2.2, Algorithm 1 lines 1-5; eq. (T2)",
            "A fixed point needs q̇ = 0 (so Σ N_i·R_i = C by (T1)); the EWMA (T2) then rests only at g = 0.",
            [eq("g^*", g_rest[0]), qdot_eq],
            solutions(lambda: g_rest, [0]),
        ),
        Step(
            "Inside the band the rate still grows at g = 0",
            "[PROXY] §2.2, Algorithm 1 (normalized_gradient ≤ 0 → rate + N·δ)",
            "Algorithm 1 tests g ≤ 0, so at the fixed point's g = 0 every flow adds N·δ per update: dR/dt > 0,"
            " and no point with T_low ≤ RTT ≤ T_high is a fixed point.",
            [eq(r"\left.\frac{dR}{dt}\right|_{g=0}", inc)],
            positive(inc),
        ),
        Step(
            "Outside the band there is none either",
            "[PROXY] §2.2, Algorithm 1 (RTT < T_low → rate + δ; RTT > T_high)",
            "Below T_low the rate grows by δ per update; above T_high the decrease −β(1 − T_high/RTT)·R/τ vanishes"
            " only at RTT = T_high, which is not above T_high. So the model has no classical fixed point at all:"
            " [PROXY]'s (and Zhu et al.'s) \"lacks a fixed point\" holds literally.",
            [eq(r"\left.\frac{dR}{dt}\right|_{RTT < T_{low}}", low)],
            positive(low),
        ),
        Step(
            "The decrease vanishes as g → 0⁺",
            "eq. (T3), g > 0 branch",
            "The gradient decrease −β·g·R/τ tends to 0 as g → 0⁺, while the increase N·δ/τ holds for g ≤ 0: the"
            " vector field jumps across g = 0 and the convex hull of its two sides (Filippov) contains 0 —"
            " weight λ = 0 on the increase side.",
            [eq(r"\lim_{g\to 0^+}\frac{dR}{dt}", dec_lim)],
            solutions(lambda: sp.solve(sp.Eq(lam * inc + (1 - lam) * dec_lim, 0), lam), [0]),
        ),
        Step(
            "A continuum of equilibria",
            "eqs. (T1)-(T3)",
            "Every state with Σ N_i·R_i = C, g_i = 0 and C·(T_low − d) ≤ q ≤ C·(T_high − d) is therefore a Filippov"
            " equilibrium: the set has dimension m (the m − 1 free ratios of the rates and the queue). The rate"
            ' split is not fixed by the model: the "infinitely many fixed points" reading is the right one for'
            " the dynamics. Shown for two flows: any R_1 in (0, C) with R_2 = C − R_1 rests.",
            [
                eq(
                    r"\{(R_1, R_2, q)\}",
                    r"\{R_1 + R_2 = C,\ g_1 = g_2 = 0,\ q \in [C(T_{low}-d), C(T_{high}-d)]\}",
                )
            ],
            identity(dec_lim, 0),
        ),
        Step(
            "Rate ratios are conserved while the queue rises",
            "eqs. (T2), (T3) with τ_i = S/R_i",
            "With one update per segment (τ_i = S/R_i ≥ minRTT) the gradient a flow measures over its interval is"
            " g_i = τ_i·q̇/(C·minRTT): a fast flow sees a small gradient per update but updates more often. The"
            " relative decrease (dR_i/dt)/R_i is then the same for every flow.",
            [eq(r"\frac{1}{R_i}\frac{dR_i}{dt}", sp.simplify(dec_i))],
            identity(dec_i, dec_j),
        ),
        Step(
            "and while it falls, and below T_low",
            "eq. (T3), g ≤ 0 and RTT < T_low branches",
            "The additive steps N·δ (band) and δ (below T_low) are taken R_i/S times per second: also the same"
            " relative growth for every flow. So d/dt ln(R_i/R_j) = 0 in all three cases and the split the flows"
            " start with is the split they keep — the continuum is reached along the start rates.",
            [eq(r"\frac{1}{R_i}\frac{dR_i}{dt}", sp.simplify(inc_i))],
            identity(sp.Matrix([inc_i - inc_j, low_i - low_j]), sp.zeros(2, 1)),
        ),
        Step(
            "Only the T_high branch equalizes",
            "[PROXY] §2.2, Algorithm 1 (RTT > T_high)",
            "Above T_high the relative decrease β(1 − T_high/RTT)·R_i/S grows with R_i: the one term that pulls the"
            " rates together, and it acts only when RTT exceeds T_high (shown at RTT = 2·T_high).",
            [eq(r"\frac{\dot R_i}{R_i} - \frac{\dot R_j}{R_j}", sp.factor(high_i - high_j))],
            identity(high_i - high_j, -s.beta * (s.Ri - s.Rj) / (2 * s.S)),
        ),
    ]
    findings = [
        Finding(
            'TIMELY "lacks a fixed point" (Zhu et al., relayed)',
            "[PROXY] §2.2: TIMELY lacks a fixed point, so flows are not guaranteed to converge to the fair share",
            "Both readings are true and they are not in conflict: the fluid model of Algorithm 1 has no classical"
            " fixed point (at g = 0 the rate grows by N·δ), but a continuum of Filippov equilibria Σ N_i·R_i = C,"
            " g = 0, T_low ≤ RTT ≤ T_high, and with one update per segment every branch but T_high conserves the"
            " ratio R_i/R_j. The rate split is set by the start rates, not by the model — what the packet core"
            " shows (``packet.crosscheck_timely``: flows started at 5 % and 40 % of line rate stay apart).",
            "reproduced, sharpened",
            "A continuum of equilibria",
        ),
        Finding(
            "Patched TIMELY restores a fixed point",
            "[PROXY] §2.4: the patch appears to remedy the flow fairness issue but significantly increases variance",
            "The patch makes the fixed point unique — R* = C/N for every flow, RTT* = RTT_ref(1 + Nδ/(βC)) — which is"
            " why the rates equalize (packet core: 5 % and 40 % starts end within the stated tolerance of C/N). But"
            " with [PROXY]'s gains the fixed point is stable only for a feedback delay below τ_c ≈ 3.5 µs; at d ="
            " 20 µs the rightmost roots are 1269 ± 12286i 1/s, an oscillation of period ≈ 0.51 ms: the added"
            " variance is a linear instability of the unique fixed point, not noise.",
            "reproduced, explained",
            "Unstable at d = 20 µs: an oscillation",
        ),
    ]
    return Derivation(
        slug="timely",
        title="TIMELY and Patched TIMELY: fixed points and stability",
        covers="[TIMELY] Algorithm 1 as printed in [PROXY] §2.2, Patched TIMELY (Zhu et al., [PROXY] §2.2, §2.4),"
        " fluid model (T1)-(T4) of dwtcp_fluid/models/timely.py.",
        findings=findings,
        steps=steps + patched_fixed_point() + patched_linear(),
    )


def patched_fixed_point() -> list[Step]:
    """Patched TIMELY's band law (T4) at g = 0: one rate for every flow, R* = C/N, RTT* = RTT_ref(1 + Nδ/(βC))."""
    s = _syms()
    f = band_rate(s.R, 0, s.rtt, s.tau, s.p, True, SYMPY_NS)
    R_of_rtt = s.delta * s.rtt_ref / (s.beta * (s.rtt - s.rtt_ref))
    rtt_star = s.rtt_ref * (1 + s.N * s.delta / (s.beta * s.C))
    P = SETTING
    p = TimelyFluid(groups=1, patched=True).numeric_params(P)
    rtt_num = p["rtt_ref"] * (1 + p["N_1"] * p["delta"] / (p["beta"] * p["C"]))
    return [
        Step(
            "The patch weighs the two sides by w(0) = 1/2",
            "[PROXY] §2.2 (gradient weight function); eq. (T4)",
            "w(g) = clip(2g + 1/2, 0, 1) is continuous, so g = 0 is no switch: the increase δ and the RTT-error"
            " decrease enter with weight 1/2 each.",
            [eq("w(0)", gradient_weight(sp.Integer(0), SYMPY_NS))],
            identity(gradient_weight(sp.Integer(0), SYMPY_NS), sp.Rational(1, 2)),
        ),
        Step(
            "One RTT fixes one rate",
            "eq. (T4) at g = 0",
            "dR/dt = 0 at g = 0 has exactly one solution R for a given RTT, the same for every flow (τ_i cancels):"
            " flows that see the same queue must have the same rate.",
            [eq("R(RTT)", R_of_rtt)],
            solutions(lambda: sp.solve(f, s.R), [R_of_rtt]),
        ),
        Step(
            "The unique fixed point",
            "eqs. (T1), (T4)",
            "With Σ R_i = N·R = C (T1), the fair share R* = C/N is the only rate and RTT* = RTT_ref(1 + Nδ/(βC)) the"
            " only RTT: the patch makes the fixed point unique, and it exists inside the band when T_low ≤ RTT* ≤"
            " T_high.",
            [eq(r"RTT^*", rtt_star)],
            solutions(lambda: sp.solve(sp.Eq(s.N * R_of_rtt, s.C), s.rtt), [rtt_star]),
        ),
        Step(
            "It sits just above T_low at [PROXY]'s setting",
            "[PROXY] §2.4 (RTT_ref = 50 µs)",
            f"At 10 Gbps, N = {int(p['N_1'])}, δ = 10 Mb/s, β = 0.8 and RTT_ref = 50 µs = T_low, RTT* exceeds T_low by"
            " Nδ/(βC)·RTT_ref only: the queue rests a fraction of a packet above the T_low switch, so the fixed point"
            " is in the band but at its edge (RTT* in µs).",
            [eq(r"RTT^*", f"{fmt(rtt_num * 1e6)}\\ \\mu s")],
            numeric(lambda: rtt_num * 1e6, 50.0 * (1 + 4 * 10e6 / (0.8 * 10e9)), rtol=1e-9),
        ),
    ]


@functools.lru_cache(maxsize=4)
def _linear_system(d: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """A0, A1 of Patched TIMELY (one group of N flows) linearized at its fixed point, feedback delay d (s)."""
    m = TimelyFluid(groups=1, patched=True)
    p = m.numeric_params(SETTING)
    p["d"] = d
    rtt = p["rtt_ref"] * (1 + p["N_1"] * p["delta"] / (p["beta"] * p["C"]))
    x_star = (p["C"] / p["N_1"], 0.0, p["C"] * (rtt - d))
    xs, ps = m.symbols()
    xd = m.delayed_symbols()
    F = m.sym_rhs(delayed=True)
    sub = {
        **{ps[k]: v for k, v in p.items()},
        **dict(zip(xs, x_star, strict=True)),
        **dict(zip(xd, x_star, strict=True)),
    }
    A0 = np.array(F.jacobian(sp.Matrix(xs)).subs(sub).evalf(), dtype=float)
    A1 = np.array(F.jacobian(sp.Matrix(xd)).subs(sub).evalf(), dtype=float)
    F0 = np.array(F.subs(sub).evalf(), dtype=float).ravel()
    return A0, A1, {"x_star": x_star, "rhs": F0, "p": p}


def patched_linear() -> list[Step]:
    """Characteristic roots of Patched TIMELY at its fixed point with the feedback delay d, and the critical d."""
    d0 = float(SETTING.link.d)
    A0, A1, info = _linear_system(d0)
    roots = char_roots(A0, A1, d0, n_roots=4)
    absc = float(roots.abscissa)
    C = info["p"]["C"]

    def system(tau: np.ndarray) -> tuple:
        # the fixed point held, the feedback delay scaled: x' = A0 x + A1 x(t − τ)
        shape = tau.shape
        return np.broadcast_to(A0, shape + A0.shape), np.broadcast_to(A1, shape + A1.shape), tau

    tau_c = float(critical_parameter(system, np.array([1e-7]), np.array([1e-4]), n_scan=48)[0])
    undelayed = np.linalg.eigvals(A0 + A1)
    model = TimelyFluid(groups=1, patched=True)
    jac_undelayed = model.jacobian_fn()([np.asarray(v) for v in info["x_star"]], info["p"])
    lead = roots.roots[np.nanargmax(np.where(roots.converged, roots.roots.real, -np.inf))]
    omega = abs(float(lead.imag))
    return [
        Step(
            "The fixed point is an equilibrium of the model",
            "eqs. (T1), (T2), (T4)",
            "The model's right-hand side, evaluated at (R*, g*, q*) = (C/N, 0, C·(RTT* − d)) with its delayed copy,"
            " vanishes (packets/s², 1/s, packets/s).",
            [
                eq(
                    r"(R^*, g^*, q^*)",
                    r"\left(" + r",\ ".join(tex_num(v, 6) for v in info["x_star"]) + r"\right)",
                )
            ],
            predicate(
                lambda: (
                    bool(np.allclose(info["rhs"], 0.0, atol=1e-6 * C)),
                    f"max |F| = {fmt(np.abs(info['rhs']).max(), 2, atol=1e-6 * C)}",
                ),
                "the lambdified right-hand side is 0 at the fixed point (atol 1e-6·C)",
            ),
        ),
        Step(
            "Linearization with the feedback delay",
            "eqs. (T1), (T2), (T4), linearized",
            "x' = A0·x + A1·x(t − d): the rate reads the RTT d late, the gradient reads the queue slope d late;"
            " both matrices come from the model's symbolic Jacobians.",
            [
                eq("A_0", tex_matrix(np.asarray(A0, dtype=float))),
                eq("A_1", tex_matrix(np.asarray(A1, dtype=float))),
            ],
            predicate(
                lambda: (
                    bool(np.allclose(A0 + A1, jac_undelayed, rtol=1e-9, atol=0.0)),
                    "A0 + A1 = lambdified undelayed Jacobian",
                ),
                "A0 + A1 equals the model's undelayed Jacobian (FluidModel.jacobian_fn, a separate lambdified path)",
            ),
        ),
        Step(
            "Stable without delay",
            "eqs. (T1), (T2), (T4), d → 0",
            "With the delayed state identified with the state, the eigenvalues of A0 + A1 all have negative real"
            " parts: the patch's fixed point is stable as an ODE, but only weakly damped (a complex pair, 1/s).",
            [eq(r"\max \Re\,\mathrm{eig}(A_0 + A_1)", f"{fmt(undelayed.real.max(), 4)}\\ s^{{-1}}")],
            predicate(
                lambda: (bool(undelayed.real.max() < 0), f"max Re = {fmt(undelayed.real.max(), 4)} 1/s"),
                "every eigenvalue of A0 + A1 has a negative real part",
            ),
        ),
        Step(
            "The critical feedback delay",
            "characteristic roots along the delay (Breda et al. pseudospectral + Newton, analysis/charroots.py)",
            "Holding the fixed point and scaling only the feedback delay, the rightmost root of"
            " det(λI − A0 − A1·e^{−λτ}) crosses the imaginary axis at τ_c (scan 0.1 µs - 100 µs, then bisection):"
            " a few µs, far below any datacenter RTT.",
            [eq(r"\tau_c", f"{fmt(tau_c * 1e6, 4)}\\ \\mu s")],
            predicate(
                lambda: (bool(np.isfinite(tau_c) and 0 < tau_c < d0), f"tau_c = {fmt(tau_c * 1e6, 4)} us"),
                "a finite critical delay below the setting's d = 20 µs",
            ),
        ),
        Step(
            "Unstable at d = 20 µs: an oscillation",
            "characteristic roots at the setting",
            "At the setting's delay the rightmost pair has a positive real part: the unique fixed point is locally"
            " unstable and the rates and queue oscillate around it with period ≈ 2π/ω (1/s, s).",
            [
                eq(r"\max \Re\lambda", f"{fmt(absc, 4)}\\ s^{{-1}}"),
                eq(r"2\pi/\omega", f"{fmt(2 * np.pi / omega * 1e3, 4)}\\ ms"),
            ],
            predicate(lambda: (absc > 0, f"spectral abscissa {fmt(absc, 4)} 1/s"), "spectral abscissa > 0"),
        ),
    ]
