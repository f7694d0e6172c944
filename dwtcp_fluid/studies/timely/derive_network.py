"""The TIMELY family over a parking lot: fixed points per law and hop signal, and the patched ones' roots.

Every expression comes from the single definitions: :func:`~dwtcp_fluid.models.timely.band_rate`,
:func:`~dwtcp_fluid.models.timely.rtt_gradient_rate` and :func:`~dwtcp_fluid.models.timely_network.path_signal`
(what :class:`~dwtcp_fluid.models.timely_network.TimelyNetwork` integrates); the numeric fixed point and the roots
come from :mod:`dwtcp_fluid.studies.timely.analysis_network`. The packet-level check is
:mod:`dwtcp_fluid.studies.timely.checks_network`.
"""

from __future__ import annotations

import functools
import types

import numpy as np
import sympy as sp

from ...analysis.charroots import char_roots_multi
from ...models.base import SYMPY_NS
from ...models.dctcp_network import parking_lot_routes
from ...models.timely import band_rate, rtt_gradient_rate
from ...models.timely_network import TimelyNetwork, TimelyNetworkParams, path_signal
from ...symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    differs,
    eq,
    fmt,
    identity,
    positive,
    predicate,
    solutions,
)
from .analysis_network import patched_fixed_point, patched_linearization, patched_rtt

__all__ = ["timely_network"]

#: The numeric setting: 10 Gbps, the packet core's 20 µs base RTT in whole slots (17 × 1.2 µs), [TIMELY]'s gains.
RTT = "20.4us"


def _syms() -> types.SimpleNamespace:
    s = types.SimpleNamespace()
    s.C, s.N0, s.Nc, s.delta, s.beta, s.alpha = sp.symbols("C N_0 N_c delta beta alpha", positive=True)
    s.minRTT, s.rtt_ref, s.d, s.S, s.N_hai = sp.symbols("minRTT RTT_ref d S N_hai", positive=True)
    s.R, s.R0, s.Rc, s.rtt, s.tau, s.r, s.phi = sp.symbols("R R_0 R_c RTT tau r phi", positive=True)
    s.k = sp.Symbol("k", integer=True, positive=True)
    s.g = sp.Symbol("g", real=True)
    s.qup = sp.Symbol("qdot_+", positive=True)  # the hops' common slope while the queues rise
    s.p = {"delta": s.delta, "beta": s.beta, "alpha": s.alpha, "minRTT": s.minRTT, "rtt_ref": s.rtt_ref,
           "N_hai": s.N_hai}  # fmt: skip
    return s


def _phi(signal: str, k: int) -> sp.Expr:
    """f(r, …, r) / r over k equal hop delays, from the model's path_signal."""
    r = sp.Symbol("r", positive=True)
    val, _ = path_signal([r] * k, [sp.Integer(0)] * k, signal, SYMPY_NS)
    return sp.simplify(sp.piecewise_fold(sp.sympify(val)) / r)


@functools.lru_cache(maxsize=8)
def _numbers(hops: int, signal: str, cross: int) -> dict:
    model = TimelyNetwork(parking_lot_routes(hops), patched=True, signal=signal)
    P = TimelyNetworkParams.parking_lot(hops, flows=(1,) + (cross,) * hops, rtt=RTT)
    x = patched_fixed_point(model, P)
    out = {"model": model, "P": P, "x": x, "p": model.numeric_params(P)}
    if signal != "max":
        A0, A1, F0, tau = patched_linearization(model, P, x)
        roots = char_roots_multi(A0, [A1], [np.asarray(tau)], n_roots=4)
        with np.errstate(all="ignore"):  # NumPy's select evaluates every branch of the clipped terms
            jac = model.jacobian_fn()([np.asarray(v) for v in x], out["p"])
        out.update(A0=A0, A1=A1, F0=F0, tau=tau, roots=roots, jac=jac)
    return out


def timely_network() -> Derivation:
    """Fixed points of TIMELY and Patched TIMELY on a parking lot for SUM, MAX and SUM_SQU; patched roots."""
    s = _syms()
    rtt_of = s.rtt_ref * (1 + s.delta / (s.beta * s.R))
    g_rest = lambda: sp.solve(rtt_gradient_rate(s.g, s.tau, 0, s.p), s.g)  # noqa: E731
    band = band_rate(s.R, 0, s.rtt, s.tau, s.p, True, SYMPY_NS)
    Rc = (s.C - s.N0 * s.R0) / s.Nc
    bal = s.d + s.phi * (rtt_of.subs(s.R, Rc) - s.d) - rtt_of.subs(s.R, s.R0)
    dbal_c = sp.diff(bal, s.R0).subs(s.C, s.N0 * s.R0 + s.Nc * s.Rc)  # C − N_0 R_0 = N_c R_c > 0
    R0_inf = s.delta * s.rtt_ref / (s.beta * (s.phi - 1) * (s.rtt_ref - s.d))
    bal_inf = s.d + s.phi * (s.rtt_ref - s.d) - rtt_of.subs(s.R, s.R0)
    phis = {sig: [_phi(sig, k) for k in (2, 3, 4)] for sig in ("sum", "max", "sum_squ")}
    # the long group's and a cross group's relative rate change on TIMELY's decrease branch, g quasi-static
    qd = s.qup / s.C

    def rel_dec(k_hops: int, R: sp.Symbol) -> sp.Expr:
        tau = s.S / R
        g = sp.solve(rtt_gradient_rate(s.g, tau, k_hops * qd, s.p), s.g)[0]
        return sp.simplify(band_rate(R, g, s.rtt, tau, s.p, False, SYMPY_NS).subs(s.g, g) / R)

    gpos = sp.Symbol("g_+", positive=True)
    dec_lim = sp.limit(band_rate(s.R, gpos, s.rtt, s.tau, s.p, False, SYMPY_NS), gpos, 0, dir="+")
    inc_at0 = band_rate(s.R, 0, s.rtt, s.tau, s.p, False, SYMPY_NS)
    n2 = _numbers(2, "sum", 1)
    n2q = _numbers(2, "sum_squ", 1)
    n2m = _numbers(2, "max", 1)
    n3 = _numbers(3, "sum", 2)
    C = n2["p"]["C_1"]
    # the root of the balance from SymPy (a quadratic in R_0) at the numeric setting, against the brentq root
    pn = n2["p"]
    num = {s.C: pn["C_1"], s.N0: 1, s.Nc: 1, s.d: pn["d_1"], s.delta: pn["delta"], s.beta: pn["beta"],
           s.rtt_ref: pn["rtt_ref"]}  # fmt: skip

    def sympy_root(phi: sp.Expr, nums: dict) -> float:
        roots = sp.solve(sp.together(bal.subs(s.phi, phi).subs(nums)).as_numer_denom()[0], s.R0)
        ok = [float(v) for v in roots if v.is_real and 0 < float(v) < float(nums[s.C] / nums[s.N0])]
        if len(ok) != 1:
            raise AssertionError(f"expected one root in (0, C/N_0), got {roots}")
        return ok[0]

    num3 = {**num, s.Nc: 2}
    rows = []
    for n, label in ((n2, "2 hops, SUM"), (n2q, "2 hops, SUM_SQU"), (n3, "3 hops (2 cross flows), SUM")):
        rt = n["roots"]
        lam = complex(np.asarray(rt.roots).ravel()[0])
        rows.append(
            f"| {label} | {fmt(n['x'][0] / C, 4)} | {fmt(float(rt.abscissa), 4)} | {fmt(abs(lam.imag), 5)} |"
        )
    steps = [
        Step(
            "Every gradient rests at g = 0",
            "[PROXY] §2.2, Algorithm 1; eq. (T2) with a path signal",
            "At a fixed point every queue is constant, so every path signal f(q/C) is constant (dRTT_i/dt = 0 for"
            " SUM, MAX and SUM_SQU alike) and the EWMA (T2) rests only at g_i = 0.",
            [eq("g_i^*", 0)],
            solutions(g_rest, [0]),
        ),
        Step(
            "Patched: one path RTT per rate",
            "eq. (T4) at g = 0",
            "As on one link, Patched TIMELY's band law rests at g = 0 at exactly one RTT for a rate R — now the RTT"
            " of the flow's path signal, d_i + f(q/C on its path).",
            [eq(r"RTT(R)", rtt_of)],
            solutions(lambda: sp.solve(band, s.rtt), [rtt_of]),
        ),
        Step(
            "f over k equal hop delays",
            "[PROXY] §3.2 (SUM, MAX, SUM_SQU)",
            "On a symmetric parking lot every hop has the same delay r; the long flow's signal is φ·r with φ = k"
            " (SUM), 1 (MAX), √k (SUM_SQU), from the model's path_signal at k = 2, 3, 4.",
            [eq(r"\varphi_{SUM}, \varphi_{MAX}, \varphi_{SUM\_SQU}", r"k,\ 1,\ \sqrt{k}")],
            identity(
                sp.Matrix([*phis["sum"], *phis["max"], *phis["sum_squ"]]),
                sp.Matrix([2, 3, 4, 1, 1, 1, sp.sqrt(2), sp.sqrt(3), 2]),
            ),
        ),
        Step(
            "The parking lot's balance",
            "eqs. (T1), (T4)",
            "A cross group shares its link with the long group only: R_c = (C − N_0 R_0)/N_c (full link, (T1)),"
            " its hop delay r = RTT(R_c) − d. The long group rests where d + φ·r = RTT(R_0): one equation in R_0.",
            [eq(r"E(R_0)", bal)],
            identity(bal.subs(s.phi, 1).subs(s.R0, s.C / (s.N0 + s.Nc)), 0),
        ),
        Step(
            "MAX: the fair share",
            "[PROXY] §3.2 (MAX)",
            "With φ = 1 the long flow sees the same RTT as every cross flow, so it has the same rate:"
            " R_0 = R_c = C/(N_0 + N_c), the fixed point one link would have.",
            [eq("R_0^*", s.C / (s.N0 + s.Nc))],
            solutions(
                lambda: sp.solve(sp.numer(sp.together(bal.subs(s.phi, 1))), s.R0), [s.C / (s.N0 + s.Nc)]
            ),
        ),
        Step(
            "Every signal: exactly one fixed point",
            "eqs. (T1), (T4)",
            "E rises strictly with R_0 for every φ > 0 (RTT(R) falls with R, and R_c falls with R_0; shown with"
            " C = N_0 R_0 + N_c R_c), from −∞ as R_0 → 0 to +∞ as R_0 → C/N_0: one root. Patched TIMELY keeps its unique fixed point on a network.",
            [eq(r"\frac{dE}{dR_0}", sp.simplify(dbal_c))],
            positive(dbal_c),
        ),
        Step(
            "SUM: the long flow's rate does not grow with the capacity",
            "eqs. (T1), (T4), C → ∞",
            "As C grows R_c → ∞ and RTT(R_c) → RTT_ref, so the balance tends to d + φ(RTT_ref − d) = RTT(R_0):"
            " the long flow keeps a rate R_0^∞ set by δ alone, a vanishing share. With SUM (φ = k) a k-hop flow"
            " gets R_0^∞ = δ·RTT_ref/(β(k − 1)(RTT_ref − d)) — about 2δ at k = 2, d = 20 µs, RTT_ref = 50 µs.",
            [eq(r"R_0^\infty", R0_inf)],
            solutions(lambda: sp.solve(bal_inf, s.R0), [R0_inf]),
        ),
        Step(
            "The root in numbers, against the bracketed one",
            "eqs. (T1), (T4) at 10 Gbps, d = 20.4 µs",
            "SymPy's root of E (a quadratic in R_0) in (0, C/N_0) equals the bracketing solver's"
            " (analysis.timely_network.patched_fixed_point) for SUM at k = 2 and 3 (2 cross flows) and SUM_SQU;"
            " long-flow shares R_0/C shown for SUM, SUM_SQU, MAX (k = 2) and SUM (k = 3).",
            [
                eq(
                    r"R_0^*/C",
                    f"{fmt(n2['x'][0] / C, 4)},\\ {fmt(n2q['x'][0] / C, 4)},\\ {fmt(n2m['x'][0] / C, 4)},"
                    f"\\ {fmt(n3['x'][0] / C, 4)}",
                )
            ],  # fmt: skip
            predicate(
                lambda: (
                    bool(
                        np.isclose(sympy_root(2, num), n2["x"][0], rtol=1e-8)
                        and np.isclose(sympy_root(sp.sqrt(2), num), n2q["x"][0], rtol=1e-8)
                        and np.isclose(sympy_root(3, num3), n3["x"][0], rtol=1e-8)
                        and np.isclose(n2m["x"][0], C / 2, rtol=1e-9)
                    ),
                    "SymPy root = brentq root (rtol 1e-8); MAX = C/2",
                ),
                "SymPy's root of E equals the numeric fixed point",
            ),
        ),
        Step(
            "It is an equilibrium of the network model",
            "eqs. (T1)-(T4) over the routing matrix",
            "TimelyNetwork's right-hand side at the fixed point (with its delayed copy) vanishes, SUM and SUM_SQU"
            " at k = 2 and SUM at k = 3 (packets/s², 1/s, packets/s).",
            [eq(r"\max |F(x^*)|", f"{fmt(max(np.abs(n['F0']).max() for n in (n2, n2q, n3)), 3)}")],
            predicate(
                lambda: (
                    bool(all(np.allclose(n["F0"], 0.0, atol=1e-6 * C) for n in (n2, n2q, n3))),
                    "max |F| ≤ 1e-6·C",
                ),
                "the model's right-hand side is 0 at the fixed point (atol 1e-6·C)",
            ),
        ),
        Step(
            "TIMELY: a one-parameter continuum",
            "eqs. (T1)-(T3); [PROXY] §2.2",
            "TIMELY has no classical fixed point (at g = 0 it adds N·δ, ``proofs/timely.md``); its Filippov"
            " equilibria need full links and every path RTT in [T_low, T_high]. The k link equations leave the long"
            " rate free: a continuum R_c = (C − N_0 R_0)/N_c, R_0 ∈ (0, C/N_0), whatever the signal.",
            [eq("R_c", Rc)],
            solutions(lambda: sp.solve(sp.Eq(s.N0 * s.R0 + s.Nc * s.Rc, s.C), s.Rc), [Rc]),
        ),
        Step(
            "SUM ratchets the long flow down, MAX does not",
            "eqs. (T2), (T3) with τ = S/R",
            "While the queues rise (g > 0) a flow's relative decrease is β times its signal's slope over minRTT"
            " (τ cancels as on one link); on the parking lot the long flow's SUM slope is k times a cross flow's."
            " So d/dt ln(R_0/R_c) = −β(k − 1)q̇/(C·minRTT) < 0 while queues rise, 0 while they fall (equal additive"
            " growth): the split moves only against the long flow. With MAX and hops in step the slopes are equal and the"
            " split is kept; hops out of step (the packet core's) make max's rises outrun each hop's, a ratchet too.",
            [
                eq(
                    r"\frac{\dot R_0}{R_0} - \frac{\dot R_c}{R_c}",
                    sp.factor(rel_dec(2, s.R0) - rel_dec(1, s.Rc)),
                )
            ],
            identity(rel_dec(2, s.R0) - rel_dec(1, s.Rc), -s.beta * s.qup / (s.C * s.minRTT)),
        ),
        Step(
            "No linearization on TIMELY's continuum",
            "eq. (T3) at g = 0",
            "The equilibria lie on the switch g = 0, where dR/dt jumps from N·δ/τ (g ≤ 0) to 0⁺ (g → 0⁺): the"
            " right-hand side has no Jacobian there, and along the continuum a zero root would remain anyway. The"
            " characteristic roots below are Patched TIMELY's only.",
            [eq(r"\lim_{g\to0^+}\dot R,\ \dot R|_{g=0}", sp.Tuple(dec_lim, inc_at0))],
            differs(dec_lim, inc_at0),
        ),
        Step(
            "MAX has no linearization at its symmetric fixed point",
            "[PROXY] §3.2 (MAX)",
            "At the fair fixed point both hops have the same delay, where max(r_1, r_2) has one-sided derivatives 1"
            " and 0 along r_1: not differentiable, so no characteristic equation (the roots are for SUM, SUM_SQU).",
            [eq(r"\partial_{r_1}\max(r_1, r_2)|_{r_1 = r_2^{\pm}}", sp.Tuple(1, 0))],
            differs(*_max_sides()),
        ),
        Step(
            "Patched roots: the unique fixed point is unstable at d = 20 µs",
            "eqs. (T1)-(T4) linearized, one loop delay τ = d",
            "x' = A0·x + A1·x(t − τ) from the model's symbolic Jacobians (A0 + A1 equals the lambdified undelayed"
            " Jacobian); the rightmost roots (char_roots_multi) have positive real parts for every case: the network"
            " oscillates around its unique fixed point as one link does (``proofs/timely.md``).",
            [eq(r"\max\Re\lambda\ (s^{-1})", f"{fmt(float(n2['roots'].abscissa), 4)}")],
            predicate(
                lambda: (
                    bool(
                        all(
                            np.allclose(
                                n["A0"] + n["A1"], n["jac"], rtol=1e-8, atol=1e-9 * np.abs(n["jac"]).max()
                            )
                            and float(n["roots"].abscissa) > 0
                            for n in (n2, n2q, n3)
                        )
                    ),
                    "A0 + A1 = jacobian_fn; abscissa > 0",
                ),
                "A0 + A1 equals the model's undelayed Jacobian and the spectral abscissa is positive",
            ),
        ),
    ]
    findings = [
        Finding(
            "Patched TIMELY over a parking lot: one fixed point per signal, and SUM starves the long flow",
            "[PROXY] §2.4, §3.2: the patch restores a fixed point; signals compared over a path of queues",
            "The fixed point stays unique on a network for SUM, MAX and SUM_SQU (its balance is monotone), but"
            " where it lies depends on the signal: MAX gives the long flow the fair share C/(N_0 + N_c); SUM (what"
            f" an RTT measures) gives it R_0 → δ·RTT_ref/(β(k − 1)(RTT_ref − d)) whatever C: {fmt(n2['x'][0] / C, 2)}"
            f" of 10 Gbps at k = 2 (SUM_SQU {fmt(n2q['x'][0] / C, 2)}). The packet core (timely-patched-hops) shows"
            " it (``crosscheck.timely_network``).",
            "new, checked",
            "SUM: the long flow's rate does not grow with the capacity",
        ),
        Finding(
            "TIMELY over a parking lot: a continuum that SUM ratchets against the long flow",
            "[PROXY] §2.2: TIMELY lacks a fixed point",
            "The Filippov equilibria form a one-parameter family (the long rate free) for every signal; with SUM"
            " every rise of the queues cuts the long flow's share by β(k − 1)q̇/(C·minRTT) relative to a cross flow's"
            " and nothing restores it; with MAX it is kept only while the hops move in step — the packet core's do"
            " not, and its long flow ends at 0.024 of line rate on MAX too, where the fluid DDE keeps 0.41"
            " (``crosscheck.timely_network``). No linearization exists on the continuum.",
            "new, checked",
            "SUM ratchets the long flow down, MAX does not",
        ),
        Finding(
            "Patched TIMELY's network fixed point is unstable at d = 20 µs",
            "[PROXY] §2.4: the patch increases variance",
            f"Rightmost roots {fmt(float(n2['roots'].abscissa), 4)} ± {fmt(abs(complex(np.asarray(n2['roots'].roots).ravel()[0]).imag), 5)}i"
            " 1/s at k = 2 (SUM): the parking lot oscillates around its unique fixed point as one link does.",
            "reproduced (network)",
            "Patched roots: the unique fixed point is unstable at d = 20 µs",
        ),
    ]
    notes = [
        "| Patched parking lot | long share R_0/C | max Re λ (1/s) | Im λ (rad/s) |\n|---|---|---|---|\n"
        + "\n".join(rows)
    ]
    return Derivation(
        slug="timely_network",
        title="The TIMELY family over a parking lot: fixed points per hop signal",
        covers="[TIMELY] Algorithm 1 and Patched TIMELY ([PROXY] §2.2) on [PROXY] §3.2's hop signals, fluid model"
        " of dwtcp_fluid/models/timely_network.py.",
        findings=findings,
        steps=steps,
        notes=notes,
    )


def _max_sides() -> tuple[sp.Expr, sp.Expr]:
    """∂/∂r_1 of the model's MAX signal just above and just below a tie r_1 = r_2."""
    r1, r2, e = sp.symbols("r_1 r_2 epsilon", positive=True)
    val, _ = path_signal([r1, r2], [sp.Integer(0)] * 2, "max", SYMPY_NS)
    d = sp.diff(val, r1)
    return d.subs({r1: r2 + e}).subs(e, sp.Rational(1, 10)), d.subs({r1: r2 - e}).subs(
        {e: sp.Rational(1, 10), r2: 1}
    )


_ = patched_rtt  # the analysis' RTT(R) is the band law's, checked in step 2 against band_rate
