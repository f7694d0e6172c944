"""DCTCP hybrid model (19)-(27), Theorem 3, the "≤ 1.4×" claim, and RTT fairness (36)-(38).

Sections 4, 5 and appendix C of [DCTCP-A]. The α equation is the model's (6)/(12) with the
square-wave mark of one congestion epoch; (37)-(38) are the model's (5)-(6) with R = RTT_i.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from ...models.dctcp import DctcpFluid
from ...params import check_range
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    dsolve_equals,
    eq,
    fmt,
    identity,
    positive,
    predicate,
    solutions,
)

__all__ = ["dctcp_hybrid", "dctcp_rtt_fairness", "alpha_star", "rate_ratio", "RATIO_W_STARS"]

PAPER_DCTCP = "[DCTCP-A]"

#: W* values of the ratio table in proofs/dctcp_hybrid.md.
RATIO_W_STARS = (2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 1e3, 1e4, 1e5, 1e6)


def _cite(eqs: str) -> str:
    return f"{PAPER_DCTCP} {eqs}"


def _exp_bounds(expr: sp.Expr) -> sp.Expr:
    """Replace each exp(x) of known sign by 1 + h (x > 0) or 1/(1 + h) (x < 0), h > 0 fresh: e^x > 1 for x > 0."""
    reps = {}
    for k, node in enumerate(sorted(expr.atoms(sp.exp), key=sp.default_sort_key)):
        h = sp.Symbol(f"h_{k}", positive=True)
        if node.args[0].is_positive:
            reps[node] = 1 + h
        elif node.args[0].is_negative:
            reps[node] = 1 / (1 + h)
    return expr.xreplace(reps)


def alpha_star(w_star: float, g: float) -> float:
    """Root α* ∈ (0, 1] of α = e^{−g(1 + W*α/2)}(e^g − 1 + α), [DCTCP-A] eq. (23) (brentq).

    Parameters
    ----------
    w_star : float
        The hybrid model's window at which the queue crosses K, W* (packets), > 0.
    g : float
        DCTCP's EWMA gain, 0 < g <= 1.
    """
    if not (w_star > 0 and math.isfinite(w_star)):
        raise ValueError(f"w_star={w_star!r} is out of range: accepted 0 < w_star < inf")
    if not (0 < g <= 1):
        raise ValueError(f"g={g!r} is out of range: accepted 0 < g <= 1")

    def G(a: float) -> float:
        return a - math.exp(-g * (1 + w_star * a / 2)) * (math.expm1(g) + a)

    return brentq(G, 0.0, 1.0, xtol=1e-15, rtol=1e-15)


def rate_ratio(w_star: float, alpha: float) -> tuple[float, float]:
    """(exact, asymptotic) β_TCP/γ, [DCTCP-A] eqs. (25), (26), with β_DCTCP = γ (g ≥ γ).

    exact = log2·(1 + W*α/2) / ((1 + W*/2)·(−log(1 − α/2))); asymptotic (the paper's, "1+" terms dropped)
    = log2·α / (−log(1 − α/2)) ≤ 2·log 2 ≈ 1.386.

    Parameters
    ----------
    w_star : float
        W* (packets), > 0.
    alpha : float
        α* of eq. (23), 0 < alpha <= 1 (:func:`alpha_star`).
    """
    check_range("w_star", w_star, lo=0.0, lo_open=True)
    check_range("alpha", alpha, lo=0.0, hi=1.0, lo_open=True, why="α* of eq. (23)")
    lg = -math.log1p(-alpha / 2)
    return math.log(2) * (1 + w_star * alpha / 2) / ((1 + w_star / 2) * lg), math.log(2) * alpha / lg


@functools.cache
def _ratio_rows() -> list[tuple[float, float, float, float, float, float]]:
    rows = []
    for W in RATIO_W_STARS:
        a0 = (math.sqrt(1 + 2 * W) - 1) / W
        g = 1 / math.sqrt(2 * W)  # the largest g allowed by (22) for N = 2
        ag = alpha_star(W, g)
        rows.append((W, a0, *rate_ratio(W, a0), ag, rate_ratio(W, ag)[0]))
    return rows


def dctcp_hybrid() -> Derivation:
    """Hybrid model: (19), (21) by dsolve, (23), (25), (26), Theorem 3 and the 1.4× claim; [DCTCP-A]."""
    g, a0, t, dT, Ws, Wm = sp.symbols(r"g alpha_0 t \Delta{T} W^* W_max", positive=True)
    i, N = sp.symbols("i N", positive=True, integer=True)
    Wi, ai = sp.IndexedBase("W"), sp.IndexedBase("alpha")
    x = sp.Function("x")
    model = DctcpFluid()
    (Wsym, asym, qsym), pp = model.symbols()
    # The α equation of the model with R = one RTT (time in RTTs, so R = 1) and mark u.
    f_alpha = lambda u, xx: model.rhs((Wsym, xx, 0), (Wsym, xx, 0), u, {**pp, "d": 1, "C": 1}, sp)[1]  # noqa: E731
    x1 = 1 - (1 - a0) * sp.exp(-g * t)
    x1_end = x1.subs(t, 1)
    x2 = x1_end * sp.exp(-g * (t - 1))
    eq21 = sp.exp(-g * dT) * (sp.exp(g) - 1 + a0)
    total = sp.Sum((1 - ai[i] / 2) * Wi[i] + dT - 1, (i, 1, N)).expand()
    total = total.subs(sp.Sum(Wi[i], (i, 1, N)), Wm).doit()
    paper19 = 1 + sp.Sum(Wi[i] * ai[i], (i, 1, N)) / (2 * N)
    al = sp.Symbol("alpha^*", positive=True)
    f23 = sp.exp(-g * (1 + Ws * al / 2)) * (sp.exp(g) - 1 + al)
    e = sp.Symbol("e")
    dev = ((1 - al / 2) * (Ws + e) + (1 + Ws * al / 2) - 1) - Ws
    gamma = -sp.log(1 - al / 2) / (1 + Ws * al / 2)
    beta_tcp = sp.log(2) / (1 + Ws / 2)
    a_small = (sp.sqrt(1 + 2 * Ws) - 1) / Ws
    ser_coeff = sp.series((f23 - al), g, 0, 2).removeO().coeff(g, 1)
    s_ = sp.Symbol("s", positive=True)
    exact = beta_tcp / gamma
    asym = sp.log(2) * al / (-sp.log(1 - al / 2))
    rows = _ratio_rows()
    grid_W = np.geomspace(2, 1e4, 25)
    grid_g = np.geomspace(1e-4, 1.0, 13)

    def theorem3() -> tuple[bool, str]:
        worst = math.inf
        for W in grid_W:
            for gg in grid_g:
                a = alpha_star(float(W), float(gg))
                lo, hi = math.sqrt(1 / (2 * W)) - gg, math.sqrt(2 / W) + gg
                worst = min(worst, a - lo, hi - a)
        return worst > 0, f"smallest margin {fmt(worst, 3)} over 25 W* × 13 g"

    cross = brentq(lambda W: rate_ratio(W, (math.sqrt(1 + 2 * W) - 1) / W)[0] - 1.4, 100, 1e6)
    steps = [
        Step(
            "(19): the epoch length",
            _cite("eqs. (19), (20)"),
            "Summing (20) over the N flows with Σ W_i(T_k) = Σ W_i(T_{k+1}) = W_max and solving for ΔT gives (19).",
            [eq(r"\Delta T_k", paper19)],
            solutions(lambda: sp.solve(total - Wm, dT), [paper19]),
        ),
        Step(
            "The α ODE while marked (0 ≤ t < 1)",
            _cite("eqs. (6), (21)"),
            "The model's α equation with R = 1 RTT and p = 1, solved by dsolve from α(0) = α₀.",
            [eq("x(t)", x1)],
            dsolve_equals(sp.Eq(x(t).diff(t), f_alpha(1, x(t))), x(t), {x(0): a0}, x1),
        ),
        Step(
            "The α ODE while unmarked (1 ≤ t < ΔT)",
            _cite("eqs. (6), (21)"),
            "With p = 0 the model's α decays from its value at t = 1.",
            [eq("x(t)", x2)],
            dsolve_equals(sp.Eq(x(t).diff(t), f_alpha(0, x(t))), x(t), {x(1): x1_end}, x2),
        ),
        Step(
            "(21)",
            _cite("eq. (21)"),
            "Evaluating the second piece at t = ΔT gives α(T_{k+1}) = e^{−gΔT}(e^g − 1 + α(T_k)).",
            [eq(r"\alpha(T_{k+1})", eq21)],
            identity(x2.subs(t, dT), eq21),
        ),
        Step(
            "(23): the symmetric fixed point",
            _cite("eqs. (19), (21), (23)"),
            "With W_i = W*, α_i = α*, (19) gives ΔT = 1 + W*α*/2 and (21) becomes α* = f(α*).",
            [eq(r"\alpha^*", f23)],
            identity(eq21.subs({a0: al, dT: 1 + Ws * al / 2}), f23),
        ),
        Step(
            "(23) has a root in (0, 1)",
            _cite("eq. (23)"),
            "G(α) = α − f(α) has G(0) = −e^{−g}(e^g − 1) < 0 and G(1) = 1 − e^{−gW*/2} > 0.",
            [eq("-G(0)", -(al - f23).subs(al, 0)), eq("G(1)", sp.simplify((al - f23).subs(al, 1)))],
            predicate(
                lambda: (
                    positive(_exp_bounds(sp.expand(-(al - f23).subs(al, 0)))).fn()[0]
                    and positive(_exp_bounds(sp.expand((al - f23).subs(al, 1)))).fn()[0],
                    "G(0) < 0 < G(1)",
                ),
                "signs of G at both ends, with e^x = 1 + h (h > 0) for x > 0",
            ),
        ),
        Step(
            "(25): the window-convergence rate γ",
            _cite("eqs. (20), (25)"),
            "At α = α*, (20) maps a deviation e to (1 − α*/2)·e per epoch of length ΔT = 1 + W*α*/2, so deviations"
            " decay at rate γ = −log(1 − α*/2)/(1 + W*α*/2) per RTT.",
            [eq(r"W_{k+1} - W^*", (1 - al / 2) * e), eq(r"\gamma", gamma)],
            identity(dev, (1 - al / 2) * e),
        ),
        Step(
            "(26): TCP's rate",
            _cite("eq. (26)"),
            "TCP halves (α = 1 in γ): β_TCP = log 2/(1 + W*/2).",
            [eq(r"\beta_{TCP}", beta_tcp)],
            identity(gamma.subs(al, 1), beta_tcp),
        ),
        Step(
            "Small-g limit of (23)",
            _cite("eq. (23)"),
            "The O(g) term of f(α) − α is g·(1 − α − W*α²/2); its positive root is α₀* = (√(1 + 2W*) − 1)/W*.",
            [eq(r"\alpha^*_{g\to0}", a_small)],
            solutions(lambda: sp.solve(ser_coeff, al), [a_small]),
        ),
        Step(
            "Theorem 3 in the small-g limit",
            _cite("Theorem 3"),
            "√(1/(2W*)) < α₀* < √(2/W*) for W* ≥ 2: the upper bound since (1 + √(2W*))² − (1 + 2W*) = 2√(2W*) > 0, the"
            " lower since (9/4)W*² − 2W* > 0 for W* > 8/9.",
            [r"\sqrt{\tfrac{1}{2W^*}} < \alpha^*_{g\to0} < \sqrt{\tfrac{2}{W^*}}"],
            predicate(
                lambda: (
                    identity((1 + sp.sqrt(2 * Ws)) ** 2 - (1 + 2 * Ws), 2 * sp.sqrt(2 * Ws)).fn()[0]
                    and positive(sp.expand((sp.Rational(9, 4) * Ws**2 - 2 * Ws).subs(Ws, 2 + s_))).fn()[0],
                    "both squared inequalities hold",
                ),
                "the squared forms of both bounds, with W* = 2 + s, s > 0",
            ),
        ),
        Step(
            "Theorem 3 numerically",
            _cite("Theorem 3"),
            "α* from (23) by brentq lies strictly inside √(1/(2W*)) − g < α* < √(2/W*) + g on a grid"
            " W* ∈ [2, 10⁴], g ∈ [10⁻⁴, 1].",
            [r"\sqrt{\tfrac{1}{2W^*}} - g < \alpha^* < \sqrt{\tfrac{2}{W^*}} + g"],
            predicate(theorem3, "brentq root of (23) against both bounds on a 25 × 13 log grid"),
        ),
        Step(
            "Exact against asymptotic ratio",
            _cite("eqs. (25), (26)"),
            "β_TCP/γ divided by the paper's asymptotic ratio log2·α*/(−log(1 − α*/2)) is (1 + 2/(W*α*))/(1 + 2/W*),"
            " which exceeds 1 for every α* < 1: the dropped '1+' terms always make the true ratio larger.",
            [eq(r"\frac{\beta_{TCP}/\gamma}{\text{asymptotic}}", (1 + 2 / (Ws * al)) / (1 + 2 / Ws))],
            predicate(
                lambda: (
                    identity(exact / asym, (1 + 2 / (Ws * al)) / (1 + 2 / Ws)).fn()[0]
                    and positive(
                        sp.factor(((1 + 2 / (Ws * al)) / (1 + 2 / Ws) - 1).subs(al, 1 / (1 + s_)))
                    ).fn()[0],
                    "identity holds and the factor exceeds 1 for 0 < α* < 1",
                ),
                "identity, then positivity of factor − 1 with α* = 1/(1 + s), s > 0",
            ),
        ),
        Step(
            "Where the exact ratio drops below 1.4",
            _cite("section 4.2"),
            f"With α* from the small-g limit, β_TCP/γ = 1.4 at W* ≈ {fmt(cross, spec='.0f')}; below that the '≤ 1.4×' claim fails"
            " (table below).",
            [r"\beta_{TCP}/\gamma\,(W^*) = 1.4"],
            predicate(
                lambda: (
                    rows[2][2] > 1.4
                    and rate_ratio(cross * 2, (math.sqrt(1 + 4 * cross) - 1) / (2 * cross))[0] < 1.4,
                    "ratio > 1.4 at W* = 10, < 1.4 beyond the crossing",
                ),
                "brentq crossing of the exact ratio through 1.4",
            ),
        ),
    ]
    table = [
        "| W* | α*(g→0) | exact β_TCP/γ | asymptotic | α*(g = 1/√(2W*)) | exact ratio at that g |",
        "|---|---|---|---|---|---|",
    ]
    for W, a_0, ex, asy, ag, exg in rows:
        table.append(
            f"| {fmt(W, 3)} | {fmt(a_0, 4)} | {fmt(ex, 4)} | {fmt(asy, 4)} | {fmt(ag, 4)} | {fmt(exg, 4)} |"
        )
    findings = [
        Finding(
            "(19), (21), (23), (25), (26)",
            "hybrid model, α recursion, fixed point and rates",
            "(19) from summing (20); (21) by dsolve of the model's α equation over one epoch; (23), (25), (26)"
            " re-derived. (23) has a root in (0, 1) (sign change); small-g root (√(1 + 2W*) − 1)/W*.",
            "confirmed",
            "(21)",
        ),
        Finding(
            "Theorem 3",
            "√(1/(2W*)) − g < α* < √(2/W*) + g for W* ≥ 2",
            "Proved in the g → 0 limit and checked numerically (brentq) on W* ∈ [2, 10⁴], g ∈ [10⁻⁴, 1].",
            "confirmed",
            "Theorem 3 numerically",
        ),
        Finding(
            "'β_TCP < 1.4·β_DCTCP'",
            "DCTCP converges at most 1.4× (2 log 2) slower than TCP",
            "Only asymptotically. Exactly, β_TCP/γ = asymptotic × (1 + 2/(W*α*))/(1 + 2/W*) > asymptotic; it is"
            f" {fmt(rows[2][2], 3)} at W* = 10, {fmt(rows[5][2], 3)} at W* = 100, and falls below 1.4 only for"
            f" W* ≳ {fmt(cross, spec='.0f')}. The bound is not asserted.",
            "refuted for moderate windows",
            "Exact against asymptotic ratio",
        ),
    ]
    return Derivation(
        slug="dctcp_hybrid",
        title="DCTCP: hybrid model (19)-(26), Theorem 3 and the '1.4×' claim",
        covers="eqs. (19)-(26), Theorem 3 (appendix C) and section 4.2 of [DCTCP-A].",
        findings=findings,
        steps=steps,
        notes=[
            "Ratio β_TCP/β_DCTCP with β_DCTCP = γ (the paper's 'g large enough'); asymptotic = log2·α*/(−log(1 − α*/2))"
            " ≤ 2·log 2 = 1.386:",
            "\n".join(table),
        ],
    )


def dctcp_rtt_fairness() -> Derivation:
    """Why (37)-(38) predict equal average windows, and (36) as the per-ACK form of (37); [DCTCP-A]."""
    model = DctcpFluid()
    (W, a, q), pp = model.symbols()
    rtt = sp.Symbol("RTT_i", positive=True)
    u = sp.Symbol("p", nonnegative=True)
    # (37)-(38): the model's (5)-(6) with the queueing delay neglected (q = 0), so R = d = RTT_i.
    F = sp.Matrix(model.rhs((W, a, 0), (W, a, 0), u, {**pp, "d": rtt}, sp)[:2])
    A, P, M = sp.symbols(
        r"\langle\alpha_i\rangle \langle{p}\rangle \langle{W_i\alpha_ip_i}\rangle", positive=True
    )
    Wm = sp.Symbol(r"\langle{W_i}\rangle", positive=True)
    per_ack = W / rtt * (1 / W - a / 2 * u)
    steps = [
        Step(
            "(37)-(38) from the model",
            _cite("eqs. (5), (6), (37), (38)"),
            "Per flow, R = RTT_i when the queueing delay is neglected (q = 0 in R), and the mark is p(t − RTT_i).",
            [eq(r"\left(\frac{dW_i}{dt}, \frac{d\alpha_i}{dt}\right)", F.T)],
            identity(F, sp.Matrix([1 / rtt - W * a * u / (2 * rtt), pp["g"] / rtt * (u - a)])),
        ),
        Step(
            "(36) is (37) per ACK",
            _cite("eqs. (36), (37)"),
            "ACKs arrive at W/RTT_i per second; each changes W by 1/W − (α/2)·p, which integrates to exactly (37).",
            [eq(r"\frac{W}{RTT_i}\left(\frac1W - \frac{\alpha}{2}p\right)", sp.expand(per_ack))],
            identity(per_ack, F[0]),
        ),
        Step(
            "A full window of marks cuts W·α/2",
            _cite("eq. (36)"),
            "W marked ACKs change the window by W·(1/W − α/2) = 1 − W·α/2, DCTCP's cut W·α/2 plus the usual +1.",
            [eq(r"W\left(\frac1W - \frac{\alpha}{2}\right)", 1 - W * a / 2)],
            identity(W * (1 / W - a / 2), (W * (1 - a / 2) + 1) - W),
        ),
        Step(
            "Averaging (38): ⟨α_i⟩ = ⟨p⟩",
            _cite("eq. (38)"),
            "Over a period of a periodic solution ⟨dα_i/dt⟩ = 0; (38) is affine in (α, p) with constant coefficients and a"
            " time shift does not change ⟨p⟩, so g/RTT_i·(⟨p⟩ − ⟨α_i⟩) = 0: ⟨α_i⟩ = ⟨p⟩ for every RTT_i.",
            [eq(r"\langle\alpha_i\rangle", P)],
            solutions(lambda: sp.solve(F[1].subs({u: P, a: A}), A), [P]),
        ),
        Step(
            "Averaging (37): ⟨W_i·α_i·p_i⟩ = 2",
            _cite("eq. (37)"),
            "⟨dW_i/dt⟩ = 0 gives 1/RTT_i − ⟨W_iα_ip_i⟩/(2RTT_i) = 0; RTT_i cancels.",
            [eq(r"\langle W_i\alpha_i p_i\rangle", 2)],
            solutions(lambda: sp.solve((F[0].subs(W * a * u, M)), M), [2]),
        ),
        Step(
            "Equal average windows",
            _cite("section 5"),
            "Treating α_i ≈ ⟨p⟩ and W_i as uncorrelated with p_i (the paper's reasoning), ⟨W_i⟩·⟨p⟩² = 2, the same for"
            " every flow: throughput W_i/RTT_i ∝ 1/RTT_i, linear RTT-fairness.",
            [eq(r"\langle W_i\rangle", 2 / P**2)],
            solutions(lambda: sp.solve(Wm * P * P - 2, Wm), [2 / P**2]),
        ),
    ]
    findings = [
        Finding(
            "RTT fairness (37)-(38)",
            "the fluid model predicts equal average windows (linear RTT-fairness)",
            "Exactly, averaging gives ⟨α_i⟩ = ⟨p⟩ and ⟨W_iα_ip_i⟩ = 2 for every flow, independent of RTT_i. Equal ⟨W_i⟩"
            " follows only if W_i and α_i decorrelate from p_i — the approximation the paper's packet simulations"
            " contradict (worse than linear). (36) is exactly (37) per ACK.",
            "confirmed under the averaging approximation",
            "Equal average windows",
        )
    ]
    return Derivation(
        slug="dctcp_rtt_fairness",
        title="DCTCP: RTT fairness (36)-(38)",
        covers="[DCTCP-A] eqs. (36)-(38), section 5.",
        findings=findings,
        steps=steps,
    )
