"""CUBIC's periodic loss cycle in closed form: K, the period (with and without fast convergence), the mean window,
the queue range, the utilization condition and the TCP-friendly crossover ([CUBIC] RFC 8312 eqs. (1), (2), (4)).

Every rate comes from :class:`~dwtcp_fluid.models.cubic.CubicFluid`'s right-hand side evaluated with SymPy. The
cycle is the deterministic one of the hybrid model (:mod:`dwtcp_fluid.studies.cubic.analysis`) with synchronized
cuts and the quasi-static queue q = N·W − C·d (the queue settles within an RTT, fast against a cycle of many
RTTs). :func:`closed_form` evaluates the derived expressions for a :class:`~dwtcp_fluid.models.cubic.CubicParams`;
the tests hold the hybrid model's runs and the packet core to them.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import sympy as sp

from ...models.cubic import CubicFluid, CubicParams, friendly_alpha
from ...symbolic.derivation import Derivation, Finding, Step, eq, fmt, identity, numeric, positive, solutions

__all__ = ["cubic", "closed_form"]

t, s, c, beta, W, Wx, N, C, d, B, R, p, Kk = sp.symbols("t s c beta W W_x N C d B R p K", positive=True)
#: Loss window of the whole link (packets): the queue is full when N·W = C·d + B.
W_L = C * d + B


def _k(wmax: Any, cwnd: Any) -> Any:
    return sp.cbrt((wmax - cwnd) / c)


@functools.lru_cache(maxsize=1)
def _forms() -> dict[str, sp.Expr]:
    """The closed forms, as SymPy expressions in (c, β, N, C, d, B, R)."""
    w_star = W_L / N  # per-flow window at the loss, quasi-static queue, τ → 0
    K = _k(w_star, beta * w_star)
    k_fc = _k((1 + beta) / 2 * w_star, beta * w_star)
    idle_t = K - sp.cbrt((w_star - C * d / N) / c)  # time after the cut at which N·W(t) = C·d
    sent_idle = sp.integrate(N * (w_star + c * (t - K) ** 3), (t, 0, idle_t)) / (C * d)
    return {
        "K": K,
        "period": K,
        "period_fc": (2 * k_fc + K) / 2,
        "window_mean": w_star * (3 + beta) / 4,
        "queue_max": B,
        "queue_min": sp.Max(0, beta * W_L - C * d),
        "queue_mean_busy": W_L * (3 + beta) / 4 - C * d,
        "busy_buffer": (1 - beta) / beta * C * d,
        "utilization_idle": (sent_idle + (K - idle_t)) / K,
        "crossover": c / (1 - beta) * (friendly_alpha(beta) / (c * R)) ** sp.Rational(3, 2),
        "period_friendly": _friendly_period(w_star),
    }


def _friendly_period(w_star: Any) -> Any:
    """AIMD(α, β) period with the quasi-static RTT R = max(d, N·W/C): W_est' = α/d while the queue is empty
    (N·W < C·d), then W·W' = α·C/N; from β·W* to W*."""
    alpha = friendly_alpha(beta)
    w_b = sp.Max(beta * w_star, C * d / N)
    t_empty = sp.Max(0, C * d / N - beta * w_star) * d / alpha
    return t_empty + N * (w_star**2 - w_b**2) / (2 * alpha * C)


def closed_form(P: CubicParams) -> dict[str, float]:
    """The cycle's closed form at ``P`` (one group of N flows, synchronized, quasi-static queue, τ → 0).

    Parameters
    ----------
    P : CubicParams
        The setting (its flows are summed into N).

    Returns
    -------
    dict
        ``K``, ``period`` (no fast convergence; s), ``period_fc`` (mean of fast convergence's long/short pair;
        s), ``window_mean`` (per flow, packets), ``queue_min``, ``queue_max``, ``queue_mean`` (packets; the mean
        when the link stays busy, else None), ``utilization`` (1), ``busy_buffer`` (the smallest B that keeps the
        link busy), ``crossover`` (W_x: per-flow loss windows below it are in the TCP-friendly region, RTT
        R = d + B/C), ``friendly`` (whether this setting is) and ``period_friendly`` (the AIMD(α, β) period that
        applies there; s).
    """
    f = _forms()
    vals = {c: P.c, beta: P.beta, N: sum(P.flows), C: P.link.C, d: P.link.d, B: P.buffer, R: P.tau}
    out = {k: float(sp.N(v.subs(vals))) for k, v in f.items() if k != "utilization_idle"}
    busy = P.buffer >= out["busy_buffer"]
    out["utilization"] = 1.0 if busy else float(sp.N(f["utilization_idle"].subs(vals)))
    out["queue_mean"] = out.pop("queue_mean_busy") if busy else None
    w_star = (P.link.C * P.link.d + P.buffer) / sum(P.flows)
    out["friendly"] = w_star <= out["crossover"]
    return out


def _real(roots: list) -> list:
    """The real roots of a cubic (K is a time: the two complex roots are not)."""
    return [r for r in roots if not r.has(sp.I)]


def _cite(where: str) -> str:
    return f"[CUBIC] {where}"


def cubic() -> Derivation:
    """The CUBIC loss cycle from the hybrid model's flow and jump."""
    m = CubicFluid(groups=1)
    (s1, wmax1, west1, q1), pp = m.symbols()
    F = m.sym_rhs(0)
    f = _forms()
    wc = wmax1 + pp["c"] * s1**3  # the cubic window (C1)
    R1 = pp["d"] + q1 / pp["C"]
    K = f["K"]
    w_star = W_L / N
    wt = w_star + c * (t - K) ** 3
    alpha = friendly_alpha(beta)
    tau = sp.Symbol("tau", positive=True)
    k_fc = _k((1 + beta) / 2 * w_star, beta * w_star)
    star = CubicParams(
        link=CubicParams().link.replace(capacity="950Mbps", rtt="1ms"), flows=(2,), buffer=100.0
    )
    wan = CubicParams(flows=(1,), buffer=200.0)
    steps = [
        Step(
            "Window growth (C1)-(C2)",
            _cite("eq. (1), RFC 8312"),
            "The model's epoch clock runs at s' = 1 and W_max is constant between losses, so the cubic window grows "
            "at 3c·s², zero at the plateau s = 0.",
            [
                eq(
                    r"\frac{d}{dt}\left(W_{max} + c s^3\right)",
                    sp.diff(wc, s1) * F[0] + sp.diff(wc, wmax1) * F[1],
                )
            ],
            identity(sp.diff(wc, s1) * F[0] + sp.diff(wc, wmax1) * F[1], 3 * pp["c"] * s1**2),
        ),
        Step(
            "K after a cut",
            _cite("eq. (2), RFC 8312"),
            "The epoch starts at cwnd = β·W_max on the curve: c(−K)³ + W_max = β·W_max.",
            [eq("K", K.subs(W_L / N, W))],
            solutions(
                lambda: _real(sp.solve(sp.Eq(c * (-Kk) ** 3 + W, beta * W), Kk)),
                [sp.cbrt((1 - beta) * W / c)],
            ),
        ),
        Step(
            "K with fast convergence",
            _cite("eq. (2), RFC 8312 §4.6; RFC 9438"),
            "A loss below the previous W_max sets W_max = W(1 + β)/2 and cwnd = β·W: K = ∛((W_max − cwnd)/c).",
            [eq("K_{fc}", sp.cbrt((1 - beta) * W / (2 * c)))],
            solutions(
                lambda: _real(sp.solve(sp.Eq(c * (-Kk) ** 3 + (1 + beta) * W / 2, beta * W), Kk)),
                [sp.cbrt((1 - beta) * W / (2 * c))],
            ),
        ),
        Step(
            "Loss threshold (C3)",
            "[CUBIC] in the model (C3)",
            "The queue settles where q' = 0, q = N·W − C·d; it is full (a drop-tail loss) at N·W = C·d + B.",
            [eq("q", N * W - C * d), eq("N W_L", W_L)],
            solutions(
                lambda: sp.solve(F[3].subs({s1: 0, wmax1: W, west1: 0}), q1),
                [pp["N_1"] * W - pp["C"] * pp["d"]],
            ),
        ),
        Step(
            "Period without fast convergence",
            _cite("eq. (2), RFC 8312"),
            "Synchronized flows cut at W* = (C·d + B)/N and return to it at the plateau: the period is K(W*).",
            [eq("T", K)],
            identity(wt.subs(t, K), w_star),
        ),
        Step(
            "The detection delay τ keeps the period",
            _cite("RFC 8312 §4.5"),
            "With the loss seen τ = d + B/C late, the fixed point is W* = W_L/N + cτ³: the queue fills at "
            "t = K − τ and the cut falls on the plateau, t = K, so the period is still K(W*).",
            [eq(r"W(K - \tau)", w_star)],
            identity((w_star + c * tau**3) + c * (-tau) ** 3, w_star),
        ),
        Step(
            "Fast convergence alternates two cycles",
            _cite("RFC 8312 §4.6"),
            "τ → 0: after a loss below W_max the window climbs to W_max = W(1 + β)/2 in K_fc and back to W in K_fc "
            "more; that loss is above W_max, so the next cycle is the plain one of length K and ends just below "
            "it. The mean period is (2K_fc + K)/2.",
            [eq(r"\bar T_{fc}", f["period_fc"])],
            identity((1 + beta) / 2 * w_star + c * (2 * k_fc - k_fc) ** 3, w_star),
        ),
        Step(
            "Mean window over a cycle",
            _cite("RFC 8312 §5.1"),
            "The time average of W* + c(t − K)³ over [0, K] with cK³ = (1 − β)W*.",
            [eq(r"\bar W", f["window_mean"])],
            identity(sp.integrate(wt, (t, 0, K)) / K, f["window_mean"]),
        ),
        Step(
            "The response function",
            _cite("RFC 8312 §5.1"),
            "One loss per cycle: 1/p = W̄·K/R packets. Eliminating K gives W̄ = (c(3 + β)/(4(1 − β)))^{1/4}"
            "·(R/p)^{3/4}, RFC 8312's average window.",
            [
                eq(
                    r"\bar W",
                    (c * (3 + beta) / (4 * (1 - beta))) ** sp.Rational(1, 4) * (R / p) ** sp.Rational(3, 4),
                )
            ],
            identity(
                ((3 + beta) / 4 * c * Kk**3 / (1 - beta) * Kk / R).subs(
                    Kk, (4 * (1 - beta) * R / ((3 + beta) * c * p)) ** sp.Rational(1, 4)
                ),
                1 / p,
            ),
        ),
        Step(
            "Queue range",
            "[CUBIC] in the model (C3)",
            "The queue is full (B) at the cut and lowest right after it, where N·β·W* − C·d, or empty.",
            [eq("q_{max}", B), eq("q_{min}", f["queue_min"])],
            identity(N * beta * w_star - C * d, beta * W_L - C * d),
        ),
        Step(
            "The link stays busy iff B ≥ (1 − β)/β · C·d",
            _cite("RFC 8312 §4.5"),
            "After the cut the link is fed β(C·d + B) packets per RTT; it idles unless that covers C·d. At β = 0.7 "
            "that is B ≥ 0.43·BDP (Reno's β = 1/2: B ≥ BDP).",
            [eq("B_{busy}", f["busy_buffer"])],
            solutions(lambda: sp.solve(sp.Eq(beta * (C * d + B), C * d), B), [f["busy_buffer"]]),
        ),
        Step(
            "Mean queue of a busy link",
            "[CUBIC] in the model (C3)",
            "q = N·W − C·d at all times: its mean is N·W̄ − C·d.",
            [eq(r"\bar q", f["queue_mean_busy"])],
            identity(N * f["window_mean"] - C * d, f["queue_mean_busy"]),
        ),
        Step(
            "Utilization of an idling link",
            "[CUBIC] in the model (C3)",
            "Below B_busy the link is fed N·W(t)/d < C until N·W(t) = C·d, at t₀ = K − ∛((W* − C·d/N)/c); the "
            "utilization is the sent fraction. At [DCTCP-WAN]'s WAN dumbbell (950 Mbps, 20 ms, B = 200, one flow, "
            "c = 0.4):",
            [eq("U", fmt(closed_form(wan)["utilization"], 4))],
            numeric(lambda: closed_form(wan)["utilization"], _wan_utilization(wan), rtol=1e-6),
        ),
        Step(
            "W_est grows α per RTT (C2)",
            _cite("eq. (4), RFC 8312"),
            "The model's W_est' = α/R with α = 3(1 − β)/(1 + β).",
            [eq(r"\frac{dW_{est}}{dt}", F[2])],
            identity(F[2], 3 * (1 - pp["beta"]) / ((1 + pp["beta"]) * R1)),
        ),
        Step(
            "α makes the friendly window Reno's",
            _cite("RFC 8312 §4.2"),
            "AIMD(α, β) averages √(α(1 + β)/(2(1 − β)p)); with RFC 8312's α that is Reno's √(3/(2p)).",
            [eq(r"\bar W_{est}", sp.sqrt(sp.Rational(3, 2) / p))],
            identity(sp.sqrt(alpha * (1 + beta) / (2 * (1 - beta) * p)), sp.sqrt(sp.Rational(3, 2) / p)),
        ),
        Step(
            "The TCP-friendly crossover",
            _cite("eq. (4), RFC 8312 §4.2"),
            "The cycle ends in the cubic region iff the cubic window beats W_est at the plateau: β·W* + α·K/R < W*, "
            "i.e. K² > α/(c·R), i.e. W* > W_x.",
            [eq("W_x", f["crossover"])],
            solutions(
                lambda: sp.solve(sp.Eq((1 - beta) * Wx / c, (alpha / (c * R)) ** sp.Rational(3, 2)), Wx),
                [f["crossover"]],
            ),
        ),
        Step(
            "Period in the friendly region",
            _cite("eq. (4), RFC 8312"),
            "There W = W_est grows α/R with R = d while the queue is empty and R = N·W/C once it holds packets: "
            "dW/dt = α/d, then W·dW/dt = α·C/N, from β·W* to W*.",
            [eq("T_f", f["period_friendly"])],
            identity(
                sp.integrate(N * W / (friendly_alpha(beta) * C), (W, C * d / N, w_star)),
                N * (w_star**2 - (C * d / N) ** 2) / (2 * friendly_alpha(beta) * C),
            ),
        ),
        Step(
            "A datacenter star never leaves the friendly region",
            "[DCTCP-WAN] star; [CUBIC] eq. (4)",
            "At 950 Mbps, 1 ms, B = 100 (R = d + B/C = 2.26 ms) W_x is far above any window the path holds: CUBIC "
            "runs as AIMD(α = 0.53, β = 0.7) with the period T_f.",
            [eq("W_x", fmt(closed_form(star)["crossover"], 5)), eq("W^*", fmt((star.bdp + 100.0) / 2, 4))],
            positive(sp.Float(closed_form(star)["crossover"] - (star.bdp + 100.0) / 2)),
        ),
    ]
    wan_u = closed_form(wan)["utilization"]
    findings = [
        Finding(
            "CUBIC 'too aggressive for data centers'",
            "[DCTCP-WAN] §DCTCP versus CUBIC: CUBIC causes a massive throughput drop on loss, and its recovery is too "
            "slow to re-utilize the link",
            "A cut leaves the link idle only when B < (1 − β)/β·C·d = 0.43·BDP. [DCTCP-WAN]'s star (B = 100, BDP = 79) "
            "is far above that: utilization 1.0 in the closed form, the hybrid model and the packet core "
            "(``packet compare-fluid --law cubic``, star-2). At datacenter RTTs CUBIC never leaves its TCP-friendly "
            f"region (W_x ≈ {fmt(closed_form(star)['crossover'], spec='.0f')} packets at the star), so there is no slow cubic recovery either. A drop needs a shallow buffer "
            f"on a long path: the WAN dumbbell (B = 200 < 0.43·1583) keeps {fmt(wan_u, spec='.3f')} of the link in the closed form "
            "(no fast convergence), 0.956 / 0.955 in the packet core / hybrid model (with it; 120 s, slow test).",
            "refuted at the star",
            "The link stays busy iff B ≥ (1 − β)/β · C·d",
        ),
        Finding(
            "CUBIC response function",
            "RFC 8312 §5.1: W̄ = (C(3 + β)/(4(1 − β)))^{1/4}·(RTT/p)^{3/4}",
            "Re-derived from the deterministic cycle (period K, mean window W*(3 + β)/4).",
            "confirmed",
            "The response function",
        ),
        Finding(
            "CUBIC cycle with fast convergence",
            "RFC 8312 §5.1 analyses the cycle with W_max fixed (period K)",
            "Fast convergence (on by default, RFC 8312 §4.6) makes a lone flow's cycle alternate: 2·K_fc = 1.59·K, then "
            "≈ K; the mean period is 1.29·K. Packet core and hybrid model both alternate (compare-fluid wan-1: "
            "period 1.26 vs 1.24 s).",
            "new: left out",
            "Fast convergence alternates two cycles",
        ),
    ]
    return Derivation(
        slug="cubic",
        title="CUBIC: the periodic loss cycle, the queue and the TCP-friendly crossover",
        covers="[CUBIC] RFC 8312 eqs. (1), (2), (4), §4.5-4.6, §5.1 in the hybrid fluid model (C1)-(C3); "
        "[DCTCP-WAN]'s CUBIC claims.",
        findings=findings,
        steps=steps,
    )


def _wan_utilization(P: CubicParams) -> float:
    """The idle-link utilization by quadrature of min(N·W(t), C·d)/(C·d) over one cycle (an independent check)."""
    n, cd = sum(P.flows), P.link.C * P.link.d
    w_star = (cd + P.buffer) / n
    k = math.cbrt((1 - P.beta) * w_star / P.c)
    m = 200_000
    total = 0.0
    for i in range(m):
        tt = (i + 0.5) * k / m
        total += min(n * (w_star + P.c * (tt - k) ** 3), cd) / cd
    return total / m
