"""From the DWTCP window law (1) to the fluid model (3)-(7), with the paper's simplification (5) examined.

[DWTCP] eqs. (1)-(7); docs/equations.md DWTCP notes 1-3 and the Algorithm 1 line 18 note.
"""

from __future__ import annotations

import sympy as sp

from ...models.dwtcp import DwtcpFluid
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    differs,
    eq,
    fmt,
    holds,
    identity,
    numeric,
    positive,
    predicate,
)
from .derive_common import bdp_subs, cite, decrease_rhs, symbols

__all__ = ["dwtcp_fluid_model"]


def dwtcp_fluid_model() -> Derivation:
    """Derivation: law (1) → fluid (3), simplification (5), (6) and (7); [DWTCP] eqs. (1)-(7)."""
    s = symbols()
    L, S, Ws = sp.symbols("L S W_s", positive=True)  # packet size, Scout size (bytes), Scout window
    delta = sp.Symbol("delta", positive=True)
    tau, C, BDP, k, kbar, w = s.tau, s.C, s.BDP, s.k, s.kbar, s.wp
    p = {n: getattr(s, n) for n in DwtcpFluid.param_names}
    # Delays of eq. (4) with C in packets/s (the model's unit): one packet takes 1/C seconds.
    d_s = tau + kbar / C
    d_t = tau + k / C
    sub = bdp_subs()
    paper, sqrtv, ipg = DwtcpFluid("paper"), DwtcpFluid("sqrt"), DwtcpFluid("ipg")
    dec_paper = paper.decrease_rate(w, kbar, p, sp)
    dec_sqrt = sqrtv.decrease_rate(w, kbar, p, sp).subs(s.beta_w, s.beta)
    dec_ipg = ipg.decrease_rate(w, kbar, p, sp)
    inc = paper.increase_rate(p).subs(s.s_over_l, S / L)
    ratio_simpl = dec_paper / (dec_sqrt / sp.sqrt(w))  # (5) against (3) with sqrt(w) dropped
    ratio_variants = dec_paper / dec_sqrt  # (5) against (3), same numerical beta
    # Inter-packet-gap law after Algorithm 1; modelling assumption ipg = delay / Scout window for both.
    ipg_s, ipg_t = d_s / Ws, d_t / Ws
    ipg_cases = [
        2 * s.beta * sp.sqrt(w) * (d_s - d_t) * (ipg_s - ipg_t) / (d_s * ipg_s),
        2 * s.beta * sp.sqrt(w) * (ipg_s - ipg_t) ** 2 / ipg_s**2,
        2 * s.beta * sp.sqrt(w) * (d_s - d_t) ** 2 / d_s**2,
    ]
    n_ack = sp.Symbol("n", positive=True, integer=True)
    Nn = s.N
    guide = 1 / (2 * sp.sqrt(BDP / Nn))  # the paper's guideline beta, section 4.2
    alpha0 = sp.Symbol("alpha_0", positive=True)
    steps = [
        Step(
            "Scout and target delays",
            cite("eq. (4)"),
            "A Scout waits behind k̄ packets and the target allows k, each packet taking 1/C seconds (C in packets/s),"
            " so the relative excess delays are ratios of queue lengths to BDP = τ·C.",
            [
                eq("d_s", d_s),
                eq("d_t", d_t),
                eq((d_s - d_t) / d_t, (kbar - k) / (BDP + k)),
            ],
            identity(((d_s - d_t) / d_t).subs(sub), (kbar - k) / (BDP + k)),
        ),
        Step(
            "Increase: law (1) per RTT becomes the rate (3)/(7)",
            cite("eqs. (1), (3), (7)"),
            "The law adds L + α·S bytes once per RTT τ; in packets of L bytes that is (1 + α·S/L)/τ per second,"
            " which is the model's increase rate (α = 1 in the paper's fluid model).",
            [eq("L w'", (L + s.alpha * S) / tau)],
            identity(inc * L, (L + s.alpha * S) / tau),
        ),
        Step(
            "Decrease: law (1) per RTT becomes the rate (3)",
            cite("eqs. (1), (3)"),
            "A cut of w·β·√w·(d_s − d_t)/d_s applied once per RTT τ is the rate −w·√w·β/τ·(d_s − d_t)/d_s;"
            " the model's 'sqrt' variant is exactly that with (4) substituted (its β_w is this β with w in packets).",
            [eq("w'", -w * sp.sqrt(w) * s.beta / tau * (d_s - d_t) / d_s)],
            identity(dec_sqrt, (-w * sp.sqrt(w) * s.beta / tau * (d_s - d_t) / d_s).subs(sub), subs=sub),
        ),
        Step(
            "The extracted form of (3) is not the law (1)",
            cite("eq. (3)"),
            "The extracted text reads −w·√(w·β)/τ; (1) has β outside the root, so the two differ unless β = 1;"
            " the project uses (1)'s form.",
            [r"-\frac{w\sqrt{w\beta}}{\tau}\;\neq\;-\frac{w\sqrt{w}\,\beta}{\tau}"],
            differs(-w * sp.sqrt(w * s.beta) / tau, -w * sp.sqrt(w) * s.beta / tau),
        ),
        Step(
            "Simplification (5) is the model's 'paper' variant",
            cite("eq. (5)"),
            "Dropping √w and replacing d_s by d_t in the denominator gives −(β·w/τ)·(k̄ − k)/(BDP + k).",
            [eq("w'", -(s.beta * w / tau) * (d_s - d_t) / d_t)],
            identity(dec_paper.subs(sub), (-(s.beta * w / tau) * (d_s - d_t) / d_t).subs(sub)),
        ),
        Step(
            "With k = 0 the decrease phase is (6)",
            cite("eq. (6)"),
            "Setting k = 0 (d_t = τ) in the model's right-hand side with k̄ = q gives the pair (6).",
            [eq(sp.Matrix([sp.Symbol("w'"), sp.Symbol("q'")]), decrease_rhs())],
            identity(
                decrease_rhs(), sp.Matrix([-s.beta * w * kbar / (tau * BDP), s.N * w / tau - BDP / tau])
            ),
        ),
        Step(
            "(5) against (3) without √w: the factor d_s/d_t",
            cite("eq. (5)"),
            "Replacing d_s by d_t multiplies the decrease by d_s/d_t = (BDP + k̄)/(BDP + k).",
            [eq("r", sp.simplify(ratio_simpl.subs(sub)))],
            identity(ratio_simpl.subs(sub), (BDP + kbar) / (BDP + k)),
        ),
        Step(
            "The factor exceeds 1 for every k̄ > k",
            cite("eq. (5)"),
            "Writing k̄ = k + δ with δ > 0, (BDP + k̄)/(BDP + k) − 1 = δ/(BDP + k) > 0: the replacement is more"
            " aggressive everywhere in the decrease phase, as the paper says.",
            [eq("r - 1", delta / (BDP + k))],
            positive(((BDP + kbar) / (BDP + k) - 1).subs(kbar, k + delta)),
        ),
        Step(
            "Dropping √w is not a uniform strengthening",
            cite("eq. (5)"),
            "With the same β, (5) divided by (3) is (BDP + k̄)/((BDP + k)·√w), below 1 as soon as √w exceeds"
            " d_s/d_t — e.g. w = 100 packets, BDP = 83, k = 0, k̄ = 1; so (5) is not more aggressive than (3) in general.",
            [eq("r_{(5)/(3)}", sp.simplify(ratio_variants.subs(sub)))],
            holds(sp.simplify(ratio_variants.subs(sub)).subs({w: 100, kbar: 1, k: 0, BDP: 83}) < 1),
        ),
        Step(
            "Note 1: per-ACK increase +L read literally is slow start",
            cite("Algorithm 1, line 14"),
            "A window of w bytes returns n = w/L data ACKs per RTT; +L on each adds w per RTT (doubling), while"
            " congestion avoidance's +L·L/w per ACK adds L per RTT, the (L + S)/τ of (3).",
            [
                eq(r"\Delta w_{literal}", n_ack * L),
                eq(r"\Delta w_{CA}", n_ack * L * L / w),
            ],
            identity(sp.Matrix([n_ack * L, n_ack * L * L / w]).subs(n_ack, w / L), sp.Matrix([w, L])),
        ),
        Step(
            "Note 2: α doubled on every Scout ACK is unbounded",
            cite("section 3.3"),
            "After n consecutive Scout ACKs α = α₀·2ⁿ, so the per-RTT increase α·S grows without bound; any cap is a"
            " modelling choice (the fluid model (3) fixes α = 1).",
            [eq(r"\alpha_n", alpha0 * 2**n_ack)],
            holds(sp.Equality(sp.limit(alpha0 * 2**n_ack * S, n_ack, sp.oo), sp.oo)),
        ),
        Step(
            "Note 3: the unit of w inside β·√w",
            cite("eq. (1), section 5.1"),
            "With β = 0.001 and a 20-packet window, β·√w is 0.173 with w in bytes (L = 1500) but 0.00447 with w in"
            " packets: β = 0.001 is a byte-convention value, and β_packets = β·√L.",
            [eq(r"\beta\sqrt{20\cdot1500}", sp.Float(0.001 * (30000**0.5), 6))],
            numeric(
                lambda: float(sp.N(sp.Rational(1, 1000) * sp.sqrt(30000))),
                0.17320508075688773,
                how="β·√(w in bytes) for β = 0.001, w = 20 packets of 1500 B equals 0.1732",
            ),
        ),
        Step(
            "Note 3: the guideline β is a packet-convention value",
            cite("section 4.2, guideline β ≈ 1/(2√(BDP/N))"),
            "The largest cut, β·√w (as (d_s − d_t)/d_s → 1), is the paper's 1/2 at the fair share w = BDP/N only with w in packets; with"
            " w in bytes the same β gives β·√(L·BDP/N) = √L/2 ≈ 19.4 > 1 (a cut larger than the window). The paper's"
            " two β values use opposite conventions.",
            [eq(r"\beta_g\sqrt{BDP/N}", sp.Rational(1, 2)), eq(r"\beta_g\sqrt{L\,BDP/N}", sp.sqrt(L) / 2)],
            predicate(
                lambda: (
                    identity(guide * sp.sqrt(BDP / Nn), sp.Rational(1, 2)).fn()[0]
                    and float((guide * sp.sqrt(L * BDP / Nn)).subs(L, 1500)) > 1,
                    f"packets: 1/2; bytes (L = 1500): {fmt(float(sp.sqrt(1500) / 2), 4)}",
                ),
                "β_g·√(BDP/N) simplifies to 1/2, and β_g·√(1500·BDP/N) = √1500/2 exceeds 1",
            ),
        ),
        Step(
            "Algorithm 1, line 18: sendTime − rcvTime is negative",
            cite("Algorithm 1, line 18"),
            "A Scout is received δ > 0 after it is sent, so sendTime − rcvTime = −δ < 0 < d_t and the decrease would"
            " never trigger; rcvTime − sendTime = δ is the delay meant.",
            [r"t_{send} - t_{rcv} = -\delta < 0"],
            holds(sp.StrictLessThan(-delta, 0)),
        ),
        Step(
            "Inter-packet-gap law: the three cases coincide",
            cite("IPG law after Algorithm 1"),
            "With ipg_t = d_t/W_s and the assumption ipg_s = d_s/W_s (the Scout window spreads the delay the same"
            " way), (ipg_s − ipg_t)/ipg_s = (d_s − d_t)/d_s, so the three decrease cases are one expression.",
            [eq(r"\frac{ipg_s - ipg_t}{ipg_s}", (d_s - d_t) / d_s)],
            identity(sp.Matrix(ipg_cases[:2]), sp.Matrix([ipg_cases[2], ipg_cases[2]])),
        ),
        Step(
            "Inter-packet-gap law simplified as (5) is the model's 'ipg' variant",
            cite("eq. (5)"),
            "Dropping √w and using d_t in the denominator, as (5) does, gives w' = −2β·(w/τ)·((k̄ − k)/(BDP + k))².",
            [eq("w'", sp.factor(dec_ipg.subs(sub)))],
            identity(dec_ipg.subs(sub), (-(w / tau) * 2 * s.beta * ((d_s - d_t) / d_t) ** 2).subs(sub)),
        ),
    ]
    findings = [
        Finding(
            "(3) as extracted",
            "w' = −w·√(w·β)/τ·(d_s − d_t)/d_s",
            "The law (1) gives −w·√w·β/τ·(d_s − d_t)/d_s; the extracted root over w·β differs unless β = 1. We use (1).",
            "corrected",
            "The extracted form of (3) is not the law (1)",
        ),
        Finding(
            "(5) is conservative",
            "replacing d_s by d_t makes the decrease more aggressive; stable then, stable for the real law",
            "The replacement multiplies the decrease by (BDP + k̄)/(BDP + k) > 1 for every k̄ > k (checked). But (5)"
            " also drops √w, which with the same β is a weaker decrease for w > (d_s/d_t)²; and 'more aggressive and"
            " stable ⇒ less aggressive stable' is a heuristic, not a theorem (gain changes move eigenvalues both ways).",
            "partly confirmed",
            "The factor exceeds 1 for every k̄ > k",
        ),
        Finding(
            "Note 1 (increase per ACK vs per RTT)",
            "Algorithm 1 line 14: w ← w + l per data ACK",
            "+L per data ACK adds a whole window per RTT (slow start); +L·L/w per ACK gives the +L per RTT of (3).",
            "clarified",
            "Note 1: per-ACK increase +L read literally is slow start",
        ),
        Finding(
            "Note 2 (α bounds)",
            "α doubled on every Scout ACK, halved on loss",
            "Without a cap α = α₀·2ⁿ grows without bound; the fluid model fixes α = 1, the packet law needs a cap.",
            "gap",
            "Note 2: α doubled on every Scout ACK is unbounded",
        ),
        Finding(
            "Note 3 (units of β)",
            "β = 0.001",
            "β·√w = 0.173 with w in bytes, 0.00447 in packets: β = 0.001 is a byte-convention value. The guideline"
            " β ≈ 1/(2√(BDP/N)) is a packet-convention value (β·√w = 1/2 at the fair share; √L/2 ≈ 19 in bytes):"
            " the paper's two β values use opposite conventions.",
            "clarified",
            "Note 3: the unit of w inside β·√w",
        ),
        Finding(
            "Algorithm 1 line 18",
            "d_s = sendTime − rcvTime",
            "That is negative; the delay is rcvTime − sendTime.",
            "corrected",
            "Algorithm 1, line 18: sendTime − rcvTime is negative",
        ),
        Finding(
            "Inter-packet-gap variant",
            "four cases with (d_s − d_t)(ipg_s − ipg_t)/(d_s·ipg_s), factor 2β",
            "With ipg_s/ipg_t = d_s/d_t the three decrease cases coincide; simplified as (5) it is the model's 'ipg'"
            " variant w' = −2β(w/τ)((k̄ − k)/(BDP + k))². See dwtcp_variants.md for its linearization.",
            "modelled",
            "Inter-packet-gap law simplified as (5) is the model's 'ipg' variant",
        ),
    ]
    return Derivation(
        slug="dwtcp_fluid_model",
        title="DWTCP: from the window law (1) to the fluid model (3)-(7)",
        covers="[DWTCP] eqs. (1)-(7) and Algorithm 1; docs/equations.md DWTCP notes 1-3.",
        findings=findings,
        steps=steps,
        notes=[
            "Units: w and q in packets, C in packets/s, BDP = τ·C packets. The model's increase rate is"
            " (1 + α·S/L)/τ packets/s; the paper's (L + S)/τ is the same rate in bytes with α = 1."
        ],
    )
