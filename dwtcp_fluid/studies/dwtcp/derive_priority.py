"""Scout amplification from priority-queueing theory: the low-priority wait against the high-priority wait.

The switch of the packet core (:mod:`dwtcp_fluid.packet.switch`) is a slotted strict-priority queue: in each slot
the arrivals are enqueued, then one data packet leaves, and only a slot whose data queue is empty (after that
slot's arrivals) serves the queued Scouts. With A data arrivals per slot, independent across slots (mean ρ,
factorial moment m₂ = E[A(A−1)]), this derivation gives the data packets' mean wait W_H, a Scout's mean wait W_L
for a vanishing Scout load, their ratio, and the continuous-time reference: Cobham's non-preemptive M/G/1
priority formula; the last steps check that :mod:`.analysis_priority` (the numbers the study's checks use,
:mod:`.checks_scouts`) is this derivation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import sympy as sp
from scipy import stats

from ...symbolic.derivation import Derivation, Finding, Step, eq, fmt, identity, predicate, solutions
from .analysis_priority import amplification_band, slotted_waits, wait_formulas
from .derive_common import cite

__all__ = ["dwtcp_scout_amplification"]

_rho, _m2 = sp.symbols("rho m_2", positive=True)
_Q = sp.Symbol(r"\bar Q", positive=True)


@functools.cache
def _mid_share(cdf: str) -> float:
    """Fraction of a shipped flow-size CDF's flows between 1 MB and 10 MB (the CDF's linear interpolation)."""
    from ...packet.workloads import load_cdf

    x, p = load_cdf(cdf)
    return float(np.interp(1e7, x, p) - np.interp(1e6, x, p))


def _exprs() -> dict[str, sp.Expr]:
    rho, m2 = _rho, _m2
    EQ = m2 / (2 * (1 - rho))  # mean data queue after service (Lindley second-moment balance)
    WH = EQ + m2 / (2 * rho)  # an arrival waits for the queue and for the arrivals ahead of it in its slot
    WL = (EQ + rho) / (1 - rho)  # Scout: the work found (queue + its slot's arrivals), drained at rate 1 − ρ
    return {"EQ": EQ, "WH": WH, "WL": WL}


def _chain(rho: float, n_max: int = 400) -> tuple[float, float, float]:
    """E[Q], W_H and W_L of the slotted queue with Poisson(ρ) arrivals from its exact Markov chain (truncated at
    ``n_max`` packets, the mass beyond folded into ``n_max``): the stationary distribution of
    Q' = max(Q + A − 1, 0) and the first-passage equations h(0) = 0, h(x) = 1 + E h(x − 1 + A) of a Scout
    that finds x packets, both by linear algebra."""
    n = n_max + 1
    a = stats.poisson.pmf(np.arange(n), rho)
    P = np.zeros((n, n))
    for q in range(n):
        np.add.at(P[q], np.minimum(np.maximum(q + np.arange(n) - 1, 0), n_max), a)
    M = P.T - np.eye(n)
    M[-1, :] = 1.0
    pi = np.linalg.solve(M, np.r_[np.zeros(n - 1), 1.0])
    EQ = float(pi @ np.arange(n))
    X = np.convolve(pi, a)[:n]
    H = np.eye(n) - P  # rows x ≥ 1: h(x) − E h(x − 1 + A) = 1 (row x of P is the law of x − 1 + A)
    H[0, :], H[0, 0] = 0.0, 1.0
    h = np.linalg.solve(H, np.r_[0.0, np.ones(n - 1)])
    return EQ, EQ + rho / 2, float(X @ h)


def _chain_check(rhos: tuple[float, ...]) -> Callable[[], tuple[bool, str]]:
    def fn() -> tuple[bool, str]:
        ok, out = True, []
        for rho in rhos:
            EQ, WH, WL = _chain(rho)
            f = wait_formulas(rho, rho**2)
            for got, want in ((EQ, rho**2 / (2 * (1 - rho))), (WH, f["W_H"]), (WL, f["W_L"])):
                ok = ok and abs(got - want) <= 1e-6 * want
            out.append(
                f"ρ = {rho:g}: E[Q] = {fmt(EQ, 6)}, W_H = {fmt(WH, 6)}, W_L = {fmt(WL, 6)} slots "
                f"(closed forms {fmt(f['W_H'], 6)}, {fmt(f['W_L'], 6)})"
            )
        return ok, "; ".join(out)

    return fn


def dwtcp_scout_amplification() -> Derivation:
    """Slotted strict-priority queue: W_H, W_L, their ratio, and Cobham's formula; the "5-15×" band."""
    rho, m2, Q = _rho, _m2, _Q
    e = _exprs()
    EQ2 = sp.Symbol(r"\overline{Q^2}", positive=True)
    # second-moment balance of Q' = Q + A − 1 + U, U = 1{Q + A = 0}, E[U] = 1 − ρ, U·(Q + A − 1) = −U
    EA2 = m2 + rho
    balance = sp.Eq(EQ2, EQ2 + 2 * Q * (rho - 1) + EA2 - 2 * rho + 1 - (1 - rho))
    W0, lam, S2, sig1, sig2 = sp.symbols("W_0 lambda S_2 sigma_1 sigma_2", positive=True)
    cobham_low = W0 / ((1 - sig1) * (1 - sig2))
    cobham_high = W0 / (1 - sig1)
    cob_L = cobham_low.subs({sig2: sig1}).subs({W0: lam * S2 / 2}).subs({lam: rho, S2: 1, sig1: rho})
    cob_H = cobham_high.subs({W0: lam * S2 / 2}).subs({lam: rho, S2: 1, sig1: rho})
    WHp, WLp = e["WH"].subs(m2, rho**2), e["WL"].subs(m2, rho**2)
    band = amplification_band()
    r = rho

    def solved(v: int) -> tuple[float, float]:
        return (
            float(sp.solve(sp.Eq((2 - r) / (1 - r), v), r)[0]),
            float(sp.solve(sp.Eq(1 / (1 - r), v), r)[0]),
        )

    s5, s15 = solved(5), solved(15)
    s_over_l = sp.Rational(64, 1500)
    soj = (WLp + s_over_l) / (WHp + 1)
    prop = sp.Rational(125, 3)  # 50 µs one way at 10 Gbps with 1,500-byte packets: 41.67 slots
    owd = (WLp + s_over_l + prop) / (WHp + 1 + prop)
    owd09 = float(owd.subs(rho, sp.Rational(9, 10)))

    def ratio(r: float) -> float:
        return float((WLp / WHp).subs(rho, r))

    steps = [
        Step(
            "The data queue: Lindley's recursion, second moment",
            "",
            "After the slot's arrivals A (independent of the queue, mean ρ, E[A(A−1)] = m₂) one packet leaves:"
            " Q' = Q + A − 1 + U with U = 1 when the slot found nothing (E[U] = 1 − ρ from the first moment) and"
            " U·(Q + A − 1) = −U; squaring and taking stationary means leaves one linear equation for E[Q].",
            [eq(r"\mathbb E[Q]", e["EQ"])],
            solutions(lambda: sp.solve(balance, Q), [e["EQ"]]),
        ),
        Step(
            "The data wait W_H: the M/D/1 Pollaczek-Khinchine wait",
            "",
            "An arriving packet waits for the queue it finds and for the packets of its own slot ahead of it"
            " (E[A(A−1)]/(2ρ) in a random order). With Poisson arrivals (m₂ = ρ²) this is the continuous M/D/1"
            " wait λ·E[S²]/(2(1 − ρ)) with S = 1 slot.",
            [eq("W_H", e["WH"]), eq(r"W_H\big|_{m_2=\rho^2}", sp.simplify(WHp))],
            identity(WHp, cob_H),
        ),
        Step(
            "The Scout wait W_L: the work it finds, drained at 1 − ρ",
            cite("§2.1, §3.2 (Link Busyness)"),
            "A Scout is served in the first slot whose data queue is empty after that slot's arrivals. It finds"
            " X = Q + A packets (its own slot's arrivals go first: non-preemptive, slot-granular); each slot"
            " removes one and adds A, so by Wald's identity for this skip-free walk the first empty slot comes"
            " after E[X]/(1 − ρ) slots on average.",
            [eq("W_L", e["WL"]), eq(r"W_L\big|_{m_2=\rho^2}", sp.factor(WLp))],
            identity(WLp, rho * (2 - rho) / (2 * (1 - rho) ** 2)),
        ),
        Step(
            "The closed forms against the exact chain",
            "",
            "The slotted queue with Poisson arrivals is a Markov chain on Q: its stationary distribution (truncated"
            " at 400 packets) gives E[Q] and W_H, and the first-passage equations h(0) = 0,"
            " h(x) = 1 + E h(x − 1 + A) give the Scout's mean wait E h(Q + A), all by linear algebra.",
            ["\\rho \\in \\{0.5, 0.9\\}"],
            predicate(_chain_check((0.5, 0.9)), "closed forms within 1e-6 of the chain"),
        ),
        Step(
            "Cobham's non-preemptive priority formula, low class vanishing",
            "",
            "For a continuous M/G/1 queue with non-preemptive priority classes (Cobham 1954), class k waits"
            " W_k = W₀/((1 − σ_{k−1})(1 − σ_k)), W₀ = Σλ_i E[S_i²]/2, σ_k the load of classes 1..k. Scouts as"
            " class 2 with vanishing load (σ₂ → σ₁ = ρ) and data of deterministic service 1: the Scout waits"
            " W₀/(1 − ρ)², so the amplification is 1/(1 − ρ); the slotted queue's is (2 − ρ)/(1 − ρ), the same as"
            " ρ → 1.",
            [
                eq("W_2", cobham_low),
                eq(r"\frac{W_L}{W_H}\Big|_{\text{Cobham}}", sp.simplify(cob_L / cob_H)),
                eq(r"\frac{W_L}{W_H}\Big|_{\text{slotted}}", sp.simplify(WLp / WHp)),
            ],
            identity(sp.simplify(WLp / WHp) / sp.simplify(cob_L / cob_H), 2 - rho),
        ),
        Step(
            "Where the ratio is 5-15×",
            cite("§3.2, Fig. 2a"),
            "Solving W_L/W_H = 5 and = 15 for the load.",
            [
                rf"\text{{slotted: }} \rho \in [{sp.latex(sp.Rational(3, 4))}, {sp.latex(sp.Rational(13, 14))}]"
                rf"\quad \text{{Cobham: }} \rho \in [{sp.latex(sp.Rational(4, 5))}, {sp.latex(sp.Rational(14, 15))}]"
            ],
            predicate(
                lambda: (
                    np.allclose(
                        [s5[0], s15[0], s5[1], s15[1]],
                        [*band["slotted"], *band["cobham"]],
                        rtol=1e-12,
                        atol=0,
                    )
                    and np.allclose(
                        [s5[0], s15[0], s5[1], s15[1]], [3 / 4, 13 / 14, 4 / 5, 14 / 15], rtol=1e-12
                    ),
                    f"SymPy: slotted {fmt(s5[0], 4)}-{fmt(s15[0], 4)}, Cobham {fmt(s5[1], 4)}-{fmt(s15[1], 4)}; "
                    "the same as analysis_priority.amplification_band",
                ),
                "the band solved by SymPy is the study's",
            ),
        ),
        Step(
            "The study's numbers are these formulas",
            "",
            "The closed forms the packet-core checks compare against (analysis_priority.slotted_waits) are the"
            " expressions derived above.",
            [eq(r"(\mathbb E[Q], W_H, W_L)", sp.Matrix([e["EQ"], e["WH"], e["WL"]]).T)],
            identity(sp.Matrix(slotted_waits(rho, m2)), sp.Matrix([e["EQ"], e["WH"], e["WL"]])),
        ),
        Step(
            "One-way delay with the transmission times",
            cite("§2.1, Fig. 2a (one-way delay)"),
            "Counting the packet's own transmission (1 slot for a 1,500-byte packet, 64/1500 of a slot for a"
            " Scout) the ratio of the queueing parts of the one-way delays is smaller; with the propagation"
            " delay (50 µs one way = 41.7 slots at 10 Gbps) it is smaller still.",
            [
                eq(r"\frac{W_L + s}{W_H + 1}", sp.simplify(soj)),
                eq(r"\frac{W_L + s + P}{W_H + 1 + P}\Big|_{P = 125/3}", sp.simplify(owd)),
            ],
            predicate(
                lambda: (
                    owd09 < float(soj.subs(rho, 0.9)) < float((WLp / WHp).subs(rho, 0.9)),
                    f"ρ = 0.9: waits only {fmt(float((WLp / WHp).subs(rho, 0.9)), 4)}, with transmissions "
                    f"{fmt(float(soj.subs(rho, 0.9)), 4)}, with 50 µs of propagation {fmt(owd09, 3)}",
                ),
                "transmission and propagation shrink the ratio",
            ),
        ),
    ]
    findings = [
        Finding(
            "Scout amplification 5-15× ([DWTCP] §3.2, Fig. 2a)",
            "the Scout delay d_s gets 5-15× the delay of normal traffic as the load increases",
            "For Poisson data and a vanishing Scout load the low-priority wait is (2 − ρ)/(1 − ρ) times the data"
            " wait in the slotted switch (1/(1 − ρ) by Cobham's continuous formula): 5-15× holds for ρ in"
            f" {fmt(band['slotted'][0], 3)}-{fmt(band['slotted'][1], 3)} (Cobham {fmt(band['cobham'][0], 3)}-"
            f"{fmt(band['cobham'][1], 3)}); below it the ratio is smaller ({fmt(ratio(0.5), 3)} at ρ = 0.5), above it"
            f" unbounded ({fmt(ratio(0.99), 3)} at ρ = 0.99). A property of the load, not a constant of the Scout.",
            "depends (load)",
            "Where the ratio is 5-15×",
        ),
        Finding(
            "'one-way delay' 5-15× ([DWTCP] §2.1, Fig. 2a)",
            "Fig. 2a plots the one-way delay (OWD) of LPQ against HPQ packets",
            "Only the queueing parts can differ 5-15×: with the transmissions and a 50 µs one-way propagation delay"
            f" (the paper's 100 µs RTT) the OWD ratio at ρ = 0.9 is {fmt(owd09, 3)}, not {fmt(ratio(0.9), 3)}. The paper"
            " does not say"
            " which delay Fig. 2a divides.",
            "ambiguous",
            "One-way delay with the transmission times",
        ),
        Finding(
            "DCTCP at K = 7: ~15 % ([DWTCP] §2.3, §6.3) vs ≥ 94 % ([DCTCP-A] §3.3)",
            "[DWTCP]: 'significant underutilization (around 15%)' at K = 7 with 10 flows at 10 Gbps;"
            " [DCTCP-A]: throughput above 94 % even as K → 0 (at least 94 % at K = 1 % of the BDP)",
            "The two seeds contradict each other. In the packet core (figure dwtcp_claims, docs/dwtcp-claims.md)"
            " [DCTCP-A] holds: DCTCP stays above 94 % at every K from 4 to 100 at 480 µs (N = 2, 25, g = 0.05),"
            " and loses a few per cent, not 15, at K = 7 with 100 µs and N = 2 or 10 and in the §2.2"
            " microbenchmark. About 15 % is lost only at K = 1 (N = 2, 100 µs: a BDP of 83 packets), where"
            " [DCTCP-A]'s '≥ 94 % at K = 1 % of the BDP' fails too: its fluid analysis assumes large windows.",
            "refuted ([DWTCP] at K = 7); [DCTCP-A] depends on the BDP",
        ),
        Finding(
            "DWTCP's K: 100 or 7 ([DWTCP] §5, §6.2 vs §6.3)",
            "§5 and §6.2 set K = 100 (simulation and testbed); §6.3 compares DCTCP at K = 7 with 'DWTCP's queue"
            " sensitivity parameter K which is set to 7 packets'",
            "The paper's own settings disagree; the claims study runs DWTCP at both (K = 100 and K = 7).",
            "inconsistent",
        ),
        Finding(
            "LPQ size: 500, 600 or 640 bytes ([DWTCP] §1, §3.3, §5, §6.2)",
            "'even LPQ of 500 bytes' (§1); '600 bytes (5-10, 64-byte Scout packets)' (§3.3); '10 Scout packets"
            " (≈ 600bytes)' (§5); '640B (i.e., 10 packets)' (§6.2)",
            "Ten 64-byte Scouts are 640 B and 5-10 Scouts are 320-640 B, so '600 bytes (5-10 Scouts)' and"
            " '10 Scouts ≈ 600 bytes' do not match their own counts; the packet core uses 10 Scouts (640 B).",
            "inconsistent",
        ),
        Finding(
            "Data-mining mean gain over DCTCP: '1x', '97 %' or '1.5x' ([DWTCP] §1, §5, §5.3, Fig. 8)",
            "§1 and the abstract: 'up to 1x (1.7x)' mean for data mining (DCTCP (HPCC)); §5's overview: 'up to"
            " 1.5x at the mean'; §5.3: 'improves the mean by up to 97%'; Fig. 8's caption: 'up to 1x (2.4x)'",
            "A 1× ratio is no gain; a 97 % gain is 1.97× if the gain is (old − new)/new and 33× if it is the"
            " reduction (old − new)/old; 1.5× is neither. The HPCC figure is 1.7× in §1 and 2.4× in Fig. 8. The"
            " leaf-spine claims of docs/dwtcp-claims.md judge the ratio of mean slowdowns against 2× and 1.5×.",
            "inconsistent",
        ),
        Finding(
            "Size bins skip (1 MB, 10 MB] ([DWTCP] §5.3, Figs. 8b-d and 14b-d)",
            "'small flows (0, 100KB], medium flows (100KB, 1MB], and large flows (10MB, inf)'",
            f"Flows of 1-10 MB are in no bin ({_mid_share('websearch'):.0%} of the web-search flows and"
            f" {_mid_share('datamining'):.0%} of the data-mining flows by the packet core's CDFs); the leaf-spine"
            " claims take large as > 1 MB.",
            "gap",
        ),
    ]
    return Derivation(
        slug="dwtcp_scout_amplification",
        title="Scout amplification: the low-priority wait of a slotted strict-priority queue",
        covers="[DWTCP] §2.1, §3.2 and Figs. 2a, 5 against priority-queueing theory (Lindley, Pollaczek-Khinchine,"
        " Cobham's non-preemptive priority formula).",
        findings=findings,
        steps=steps,
        notes=[
            "The packet core's switch is checked against W_H and W_L with open-loop Poisson senders and Scout-only"
            " probes (tests/test_dwtcp_claims.py; dwtcp_fluid/studies/dwtcp/checks_scouts.py)."
        ],
    )
