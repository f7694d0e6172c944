"""When is DWTCP stable? The regime boundaries of :class:`~.analysis_regime.DwtcpRegimeModel` in closed form.

Each boundary of the regime model (standing queue, collapse, loss cycle, oscillation, idle link) is derived from the
model's own balance equations with SymPy, in the limit the closed form needs (the busy-period model's ripple and
saw set to 0 where stated), and checked against the vectorized model at sweep points. The measured agreement with
the packet law per (β, K, B) slice is read from ``docs/data/regime-slices.json``
(:func:`dwtcp_fluid.sweep.regime_slices.record_slices`; the slow test ``test_regime_slice_matches_record`` re-runs a
slice and compares).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from ...numtext import num
from ...symbolic.derivation import Derivation, Finding, Step, eq, identity, predicate, solutions
from ...symbolic.recorded import recorded
from .analysis_regime import COLLAPSE, IDLE, OSCILLATION, REGIMES, RIPPLE, STANDING, DwtcpRegimeModel
from .derive_common import cite

__all__ = ["dwtcp_regime", "SLICES_RECORD", "slice_table"]

#: The recorded per-slice agreement (``docs/data/regime-slices.json``).
SLICES_RECORD = "regime-slices"
#: The slices' β.
BETAS = (1e-4, 1e-3, 1e-2)
_L = 1500.0


def slice_table() -> list[dict[str, Any]]:
    """One row per recorded slice: β, K, B, classified points, the regime predictor's agreement, its state accuracy
    over steady runs, the not-stationary count and the packet pass's seconds."""
    rows = []
    for s in recorded(SLICES_RECORD)["slices"]:
        a = s["agreement"]["regime"]
        rows.append(
            {
                "beta": s["beta"],
                "k": s["k"],
                "buffer": s["buffer"],
                "scored": a["scored"],
                "agreement": a["agreement"],
                "steady": a["state"]["steady_points"],
                "queue_within": a["state"]["queue_within"],
                "utilization_within": a["state"]["utilization_within"],
                "not_stationary": s["class_counts"]["not_stationary"],
                "seconds": s["seconds"],
                "scout": s["agreement"].get("scout-faithful", {}).get("agreement"),
                "condition": s["agreement"]["condition"]["agreement"],
                "detail": s.get("regime_detail"),
            }
        )
    return rows


def _span(v: list[float]) -> str:
    """ "a-b" of the rounded extremes of ``v``, one number when they agree."""
    lo, hi = f"{min(v):.0f}", f"{max(v):.0f}"
    return lo if lo == hi else f"{lo}-{hi}"


def _state_finding(rows: list[dict[str, Any]], wander: dict[str, Any] | None) -> str:
    """The finding's sentences on the state misses, from the record's ``regime_detail`` and ``wander``."""
    det = [r["detail"] for r in rows if r["detail"] is not None]
    if not det:
        return ""
    cyc = [REGIMES[IDLE], REGIMES[RIPPLE]]
    steady = sum(d["utilization"][g]["steady"] for d in det for g in cyc)
    missed = sum(d["utilization"][g]["missed"] for d in det for g in cyc)
    other = sum(v["missed"] for d in det for g, v in d["utilization"].items() if g not in cyc)
    text = (
        f" Its utilization misses (by more than 0.03) are in the cycle: {missed} of its {steady} steady runs"
        f" there, {other} elsewhere (notes); there the runs' utilization is their windows' (N·w̄/(BDP + q̄))."
    )
    if wander:
        idle = [p for p in wander["points"] if p["regime"] == REGIMES[IDLE] and p["flows"] > 1]
        spread = [max(p["segments"]) - min(p["segments"]) for p in idle]
        one = [p for p in wander["points"] if p["flows"] == 1]
        if spread:
            text += (
                f" The cycle's utilization is not a stationary quantity to be predicted within 0.03: over one"
                f" {wander['rtts']:.0f}-RTT run at the model's idle link its {wander['segment_rtts']:.0f}-RTT"
                f" windows (the sweep's) differ by {min(spread):.2f} to {max(spread):.2f}"
            )
            if one:
                text += (
                    f", and a single flow locks at {one[0]['run_utilization']:.2f} (the model's"
                    f" {one[0]['model_utilization']:.2f}), where slow start and the first decreases left it"
                )
            text += "."
    for k in sorted({r["k"] for r in rows}):
        low = [
            r["detail"]["relaxation"] for r in rows if r["detail"] and r["k"] == k and r["beta"] == min(BETAS)
        ]
        ns = [d["not_stationary"]["relax_rtts_median"] for d in low if "not_stationary" in d]
        st = [d["steady"]["relax_rtts_median"] for d in low if "steady" in d]
        if ns and st:
            text += (
                f" At β = {min(BETAS):g}, K = {k:g} the not-stationary runs at standing-queue points have a median"
                f" relaxation time T (step 8) of {_span(ns)} base RTTs per slice, the steady ones {_span(st)}."
            )
    return text


def _grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The default sweep grid (BDP 10…10,000 × N) at β = 1e-4, 1e-3, 1e-2."""
    b, d, n = np.meshgrid(
        [1e-4, 1e-3, 1e-2], np.logspace(1, 4, 25), [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    )
    return b.ravel(), d.ravel(), n.ravel().astype(float)


def _closed_form_check() -> tuple[bool, str]:
    """The vectorized model with ripple = saw = 0 against the closed forms of steps 1-4 at every grid point."""
    m = DwtcpRegimeModel(ripple=0.0, saw=0.0)
    beta, bdp, n = _grid()
    bw = beta * np.sqrt(_L)
    x = bdp / n
    w = m.standing_window(x, bw)
    w_closed = (x / bw) ** 0.4
    err = float(np.max(np.abs(w / w_closed - 1)))
    t_err = float(np.max(np.abs(m.relaxation_rtts(x, bw) / (0.4 * x**-0.2 * bw**-0.8) - 1)))
    out = m.evaluate(beta, bdp, n, k=0.0, buffer=250.0)
    q = n * np.maximum(w_closed, 2.0) - bdp
    over = q >= 250.0
    coll = over & ((bdp + 250.0) / n < m.loss_window)
    stand = ~over & (q >= 0)
    n_star = bdp * bw ** (2 / 3)
    ok_reg = np.array_equal(out["regime"] == COLLAPSE, coll) and np.array_equal(
        out["regime"] == STANDING, stand
    )
    # where the floor does not hold the queue, the standing regime is N > N* (Φ < 1 with c = s = 0)
    free = ~over & (2.0 < x)
    ok_n = np.array_equal(stand[free], (n > n_star)[free])
    ok = err < 1e-12 and t_err < 1e-12 and ok_reg and ok_n
    return ok, (
        f"{beta.size} points: max |w_model/w_closed − 1| = {num(err, 2, atol=1e-12)}, max |T_model/T_closed − 1| = "
        f"{num(t_err, 2, atol=1e-12)};"
        " collapse and standing regimes as the closed"
        f" forms say at every point: {ok_reg}; standing ⇔ N > BDP·β_w^(2/3) where the floor is not binding: {ok_n}"
    )


def _idle_check() -> tuple[bool, str]:
    """The model's idle-link utilization at K = 0 against the closed form (2N/(β_w·x^{3/2}))^{2/7}."""
    m = DwtcpRegimeModel()
    beta, bdp, n = _grid()
    out = m.evaluate(beta, bdp, n, k=0.0, buffer=5000.0)
    idle = out["regime"] == IDLE
    bw = beta * np.sqrt(_L)
    u = (2 * n / (bw * (bdp / n) ** 1.5)) ** (2 / 7)
    err = float(np.max(np.abs(out["utilization"][idle] - u[idle]))) if idle.any() else np.nan
    ok = bool(idle.any()) and err < 1e-9 and bool(np.all(u[idle] < 1))
    return (
        ok,
        f"{int(idle.sum())} idle-link points of {beta.size}: max |u_model − u_closed| = {num(err, 2, atol=1e-9)}",
    )


def _oscillation_check() -> tuple[bool, str]:
    """The model's oscillation regime (cycle) against 1 < Φ < (1 + r)/(r − κ), N > B/2, at K = 0 and 100."""
    m = DwtcpRegimeModel()
    beta, bdp, n = _grid()
    agree, total = 0, 0
    for k in (0.0, 100.0):
        thr = np.minimum(np.maximum(5.0, n), 250.0 / 4)
        out = m.evaluate(beta, bdp, n, k=k, buffer=250.0, threshold=thr)
        cyc = ~np.isin(out["regime"], [COLLAPSE, STANDING]) & (out["q_star"] < 250.0)
        r, kap, phi = 2 * thr / n, k / bdp, out["phi"]
        closed = (
            cyc & (phi > 1) & (1 + kap > r) & ((r <= kap) | (phi < (1 + r) / np.maximum(r - kap, 1e-300)))
        )
        model = cyc & (out["regime"] == OSCILLATION)
        agree += int(np.sum(closed == model))
        total += n.size
    return (
        agree == total,
        f"{agree} of {total} points (K = 0, 100; B = 250): the model's oscillation regime as the closed form says",
    )


def dwtcp_regime() -> Derivation:
    """The regime boundaries of DWTCP in β, BDP, N, K, B (and L, through β_w = β·√L), derived and checked."""
    x, w, bw, N, BDP, B, K, b, tau, C, Phi, u = sp.symbols(
        "x w beta_w N BDP B K b tau C Phi u", positive=True
    )
    w_star = (x / bw) ** sp.Rational(2, 5)
    n_c = (BDP + B) ** sp.Rational(5, 3) * bw ** sp.Rational(2, 3) / BDP ** sp.Rational(2, 3)
    n_star = BDP * bw ** sp.Rational(2, 3)
    b_sol = (K / C + tau / Phi) / (1 - 1 / Phi)
    r, kap = sp.symbols("r kappa", positive=True)
    phi_osc = (1 + r) / (r - kap)
    u_idle = (2 * N / (bw * x ** sp.Rational(3, 2))) ** sp.Rational(2, 7)
    rows = slice_table()

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{100 * v:.0f} %"

    agreements = [r_["agreement"] for r_ in rows]
    steps = [
        Step(
            "The standing-queue window",
            cite("Algorithm 1 line 22") + "; eq. (1)",
            "On a link that never idles the Scout is never served and line 18's lateness tends to 1 (dwtcp_busy.md,"
            " step 9): once per base RTT the decrease takes β_w·w^{3/2} (saw 0), while the data ACKs add τ/R = x/w"
            " per base RTT. The balance x/w = β_w·w^{3/2}, i.e. β_w·w^{5/2} = x, has one positive root, the packet"
            " law's window"
            " (dwtcp_packet_law.md): w* = (BDP/(N·β_w))^{2/5}, q* = N·w* − BDP.",
            [eq(sp.Symbol("w^*"), w_star)],
            identity((bw * w ** sp.Rational(5, 2)).subs(w, w_star), x),
        ),
        Step(
            "The standing-queue boundary",
            "this model; the busy-period model's Φ(BDP/N) < 1 with c = s = 0",
            "The rest point holds a queue (q* > 0, w* > x) exactly when the fullest decrease at the fair share,"
            " β_w·x^{3/2}, is below the +1 per RTT: Φ = β_w·x^{3/2} < 1, i.e. N above N* = BDP·β_w^{2/3}."
            " With the ripple c and saw s this is the busy-period criterion Φ(x) < 1 (dwtcp_busy.md, step 11). The"
            " window's one-packet floor keeps at least two packets per flow in flight (the packet its ACK releases"
            " at w = 1), so a queue also stands wherever 2·N > BDP.",
            [eq(sp.Symbol("N^*"), n_star)],
            identity((bw * (BDP / N) ** sp.Rational(3, 2)).subs(N, n_star), 1),
        ),
        Step(
            "The collapse boundary",
            "Algorithm 1 line 22 and the drop-tail buffer (no counterpart in [DWTCP])",
            "The delay decrease holds the windows inside BDP + B only while q* < B; with w* of step 1,"
            " N·w* = BDP + B at N_c below. Above it the buffer, not the delay signal, sets the queue.",
            [eq(sp.Symbol("N_c"), n_c)],
            identity((N * w_star.subs(x, BDP / N)).subs(N, n_c), BDP + B),
        ),
        Step(
            "Collapse or loss cycle",
            "the packet law's loss rule (a loss halves the window; a window lost entirely times out)",
            "Above N_c each flow holds w_B = (BDP + B)/N packets of the pipe and the buffer. Below the model's"
            " loss window (8 packets, between the packet runs' last collapse at w_B = 7.75 and first loss cycle at"
            " 7.92, β = 1e-4, K = 0, B = 250) drops end in timeouts and the queue stays pinned (collapse); above"
            " it a loss halves a window of at least 4 packets, the queue swings across the buffer (oscillation).",
            [r"w_B = \frac{BDP + B}{N} < 8 \iff N > \frac{BDP + B}{8}"],
            identity(sp.solve(sp.Eq((BDP + B) / N, 8), N)[0], (BDP + B) / 8),
        ),
        Step(
            "The cycle's busy age",
            cite("Algorithm 1 line 18") + "; eq. (2)",
            "Without a standing queue the windows cycle through the idle link. At busy age b the pending Scout is"
            " late by (b − K/C)/(τ + b) (d_s = τ + b, d_t = τ + K/C); the fullest decrease is Φ times the +1 per"
            " RTT, so the decrease first matches the growth at lateness 1/Φ, at the busy age below. Meanwhile the N"
            " windows grow by one packet per RTT into the queue, for at most one RTT beyond K/C (the busy age"
            " resets at least once per RTT at the ripple's trough): the swing is N·min(b/τ, 1 + K/BDP), the"
            " amplitude half of it.",
            [eq(sp.Symbol("b"), b_sol)],
            solutions(lambda: sp.solve(sp.Eq((b - K / C) / (tau + b), 1 / Phi), b), [b_sol]),
        ),
        Step(
            "The oscillation boundary",
            "the packet rule's threshold min(max(5, N), B/4) (dwtcp_fluid/judge/classes.py)",
            "The amplitude N·min(b/τ, 1 + κ)/2, κ = K/BDP, exceeds the threshold θ = min(max(5, N), B/4) when"
            " min(b/τ, 1 + κ) > r = 2θ/N: where 1 + κ > r and, by step 5, 1 < Φ < (1 + r)/(r − κ) (every Φ > 1"
            " when κ ≥ r). At K = 0 (r ≥ 2 for N ≤ B/4) only N > B/2 can oscillate, with r = B/(2N); for 5 ≤ N ≤ B/4"
            " (r = 2) a cycle oscillates exactly where K/BDP > 1 and Φ < 3/(2 − K/BDP).",
            [eq(sp.Symbol(r"\Phi_{osc}"), phi_osc)],
            solutions(
                lambda: sp.solve(sp.Eq(((kap + 1 / Phi) / (1 - 1 / Phi)), r), Phi),
                [phi_osc],
            ),
        ),
        Step(
            "The idle link",
            cite("Algorithm 1 line 18") + "; section 3.1 (the Scout is served in an idle slot)",
            "At utilization u < 1 each flow sends a train of u·x packets per RTT; a Scout finds the link busy with"
            " probability u and waits W ~ uniform(0, u·x) slots, late by (W − K)⁺ of τ = BDP slots. The decrease"
            " β_w·(u·x)^{3/2}·u·E[(W − K)⁺]/BDP balances the +1 per RTT at u < 1 where it exceeds 1 at u = 1;"
            " at K = 0 the balance is β_w·x^{3/2}·u^{7/2}/(2N) = 1.",
            [eq(sp.Symbol("u_{K=0}"), u_idle)],
            identity((bw * (u * x) ** sp.Rational(3, 2) * u * (u * x) / (2 * x * N)).subs(u, u_idle), 1),
        ),
        Step(
            "The standing queue's relaxation time",
            cite("Algorithm 1 line 22") + "; this model",
            "Per base RTT the window drifts by g(w) = x/w − β_w·w^{3/2} (step 1's two terms); near w* a deviation"
            " decays as exp(g'(w*)·t), with g'(w*) = −x/w*² − (3/2)·β_w·w*^{1/2} = −(5/2)·x/w*² (β_w·w*^{3/2} ="
            " x/w*). The time constant T = −1/g'(w*) grows as β falls and as the fair share x shrinks: a packet run"
            " must run several T past its warm-up before its window, and hence its queue, is stationary; at β = 1e-4"
            " T reaches 30-90 base RTTs on the default grid (the notes compare it with the runs' lengths).",
            [eq(sp.Symbol("T"), sp.Rational(2, 5) * x ** sp.Rational(-1, 5) * bw ** sp.Rational(-4, 5))],
            identity(
                -1 / sp.diff(x / w - bw * w ** sp.Rational(3, 2), w).subs(w, w_star),
                sp.Rational(2, 5) * x ** sp.Rational(-1, 5) * bw ** sp.Rational(-4, 5),
            ),
        ),
        Step(
            "The closed forms are the model's boundaries",
            "this model",
            "With c = s = 0 the vectorized model (analysis_regime.py) finds the window of step 1 by bisection and"
            " its collapse and standing regimes are those of steps 2-4 at every point of the default grid at three"
            " β; its idle-link utilization is step 7's closed form; its oscillation regime is step 6's; its"
            " relaxation time is step 8's.",
            [r"\text{model} \equiv \text{closed forms}"],
            predicate(
                lambda: tuple(
                    (all(ok for ok, _ in parts), "; ".join(d for _, d in parts))
                    for parts in [[_closed_form_check(), _idle_check(), _oscillation_check()]]
                )[0],
                "the vectorized model against the closed forms",
            ),
        ),
    ]
    findings = [
        Finding(
            "(14) as DWTCP's stability condition",
            "DWTCP is stable as long as k̄ < 2·BDP/√β",
            "DWTCP's regime is set by N against three curves, none of them (14): a standing queue for"
            " N > N* = BDP·β_w^{2/3} (or 2N > BDP), collapse at the buffer for N > N_c = (BDP + B)^{5/3}·β_w^{2/3}/"
            "BDP^{2/3} with (BDP + B)/N < 8, a loss cycle across the buffer above N_c otherwise, and below N* a cycle"
            " through the idle link that oscillates where 1 + K/BDP > r and 1 < Φ < (1 + r)/(r − K/BDP),"
            " r = 2·min(max(5, N), B/4)/N, and idles the link (utilization (2N/(β_w·x^{3/2}))^{2/7} at K = 0) where"
            " β_w·x^{3/2}·(x − K)²/(2x·BDP) > 1. β enters as β_w = β·√L, K only through the cycle, B only through"
            " collapse and oscillation; k̄ nowhere.",
            "replaced",
            "The collapse boundary",
        ),
        Finding(
            "The regime model against the packet law",
            "(the busy-period model: a standing queue for Φ(BDP/N) < 1, else a cycle)",
            f"Over 12 slices β ∈ {{1e-4, 1e-3, 1e-2}} × K ∈ {{0, 100}} × B ∈ {{250, 5000}} of the default grid it"
            f" names the packet run's class (steady, oscillating, collapse) at {pct(min(agreements))} to"
            f" {pct(max(agreements))} of the classified runs (table in the notes; ≥ 90 % in"
            f" {sum(a >= 0.9 for a in agreements)} of 12). Its class misses: the Scout-α cycle at K = 100 (the α·S"
            " increases the model leaves out oscillate the queue by 1-6 packets per flow) and the standing queue's"
            " jitter of 1.2-1.9 packets per flow at β = 1e-4 (above the rule's one packet per flow)."
            + _state_finding(rows, recorded(SLICES_RECORD).get("wander")),
            "partly confirmed",
            "The closed forms are the model's boundaries",
        ),
    ]
    table = [
        "Measured (docs/data/regime-slices.json: the packet pass at every point of the default BDP × N grid, 10 Gbps,"
        " seed 0; scored: steady, oscillating and collapsed runs; state: over the steady runs, mean queue within"
        " max(5 packets, 25 %), utilization within 0.03):",
        "",
        "| β | K | B | scored | class agreement | steady runs | queue within | utilization within |"
        " not stationary | condition (14) | Scout-faithful | packet pass (s) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r_ in rows:
        table.append(
            f"| {r_['beta']:g} | {r_['k']:g} | {r_['buffer']} | {r_['scored']} | {pct(r_['agreement'])} |"
            f" {r_['steady']} | {pct(r_['queue_within'])} | {pct(r_['utilization_within'])} |"
            f" {r_['not_stationary']} | {pct(r_['condition'])} | {pct(r_['scout'])} | {r_['seconds']:.0f} |"
        )
    table.append("")
    table.append(
        "The condition (14) and the Scout-faithful model are scored as the sweep scores them (steady ⇔ predicted"
        " steady, over steady and oscillating runs only); the regime model over every classified run. The packet"
        " pass's seconds are wall time on two shared cores (the load varied between slices). Regimes:"
        f" {', '.join(REGIMES)} (dwtcp_fluid/studies/dwtcp/analysis_regime.py)."
    )
    detail = [
        "Where the state misses (docs/data/regime-slices.json, ``regime_detail``): the steady runs in the model's"
        " cycle (idle link or ripple) and how many of them miss the utilization by more than 0.03, the misses"
        " elsewhere, the share of the steady runs in the cycle whose utilization is their own ACK clock's"
        " N·w̄/(BDP + q̄)"
        " within 0.03 (Little's law with the run's mean window and queue), and at the model's standing-queue points"
        " the median relaxation time T of step 8 (base RTTs) against the median run length (warm-up and window),"
        " for the steady, oscillating and not-stationary runs there:",
        "",
        "| β | K | B | steady in the cycle | utilization missed there | missed elsewhere | N·w̄/(BDP + q̄) within |"
        " T / run, steady | T / run, oscillating | T / run, not stationary |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def relax(d: dict[str, Any], label: str) -> str:
        v = d["relaxation"].get(label)
        return (
            "—" if v is None else f"{v['relax_rtts_median']:.0f} / {v['run_rtts_median']:.0f} ({v['points']})"
        )

    for r_ in rows:
        d = r_["detail"]
        if d is None:
            continue
        u = d["utilization"]
        cyc = [u[REGIMES[IDLE]], u[REGIMES[RIPPLE]]]
        other = sum(v["missed"] for n_, v in u.items() if n_ not in (REGIMES[IDLE], REGIMES[RIPPLE]))
        detail.append(
            f"| {r_['beta']:g} | {r_['k']:g} | {r_['buffer']} | {sum(c['steady'] for c in cyc)} |"
            f" {sum(c['missed'] for c in cyc)} | {other} | {pct(d['little_within'])} | {relax(d, 'steady')} |"
            f" {relax(d, 'oscillating')} | {relax(d, 'not_stationary')} |"
        )
    detail.append("")
    detail.append(
        "The utilization misses are in the cycle (the few elsewhere are steady runs the model calls an oscillation):"
        " at a standing queue the model's utilization 1 is the run's. In the cycle the run's utilization is its windows' (the ACK clock's throughput column), so"
        " the miss is the cycle's mean window: the Scouts leave on a fixed clock of one base RTT while the data"
        " trains keep their phase on an idle link, and the phase at which each flow's Scout meets the trains"
        " (which sets how late it is and so the window at which decrease and growth balance) is left by the"
        " run's history, not by a balance; the idle-link rule of step 7 assumes a uniformly random phase, the"
        " ripple none. A dash: no such run in the slice."
    )
    wander = recorded(SLICES_RECORD).get("wander")
    notes = ["\n".join(table), "\n".join(detail)]
    if wander:
        lines = [
            f"One run, many windows (docs/data/regime-slices.json, ``wander``): β = {wander['beta']:g},"
            f" K = {wander['k']:g}, B = {wander['buffer']}, one run of {wander['rtts']:.0f} base RTTs after the"
            f" warm-up per point, its utilization over consecutive {wander['segment_rtts']:.0f}-RTT windows (the"
            " sweep's measurement window) against the model's:",
            "",
            "| BDP | N | model regime | model utilization | run utilization | its windows: min-max |",
            "|---|---|---|---|---|---|",
        ]
        for p_ in wander["points"]:
            lines.append(
                f"| {p_['bdp']:.0f} | {p_['flows']} | {p_['regime']} | {p_['model_utilization']:.2f} |"
                f" {p_['run_utilization']:.2f} | {min(p_['segments']):.2f}-{max(p_['segments']):.2f} |"
            )
        notes.append("\n".join(lines))
    return Derivation(
        slug="dwtcp_regime",
        title="When is DWTCP stable? The regime boundaries in β, BDP, N, K and B",
        covers="eq. (14) and Algorithm 1 of [DWTCP], the busy-period model and the packet law, with the buffer B.",
        findings=findings,
        steps=steps,
        notes=notes,
    )
