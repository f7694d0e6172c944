"""The sweep's human summary, printed by ``dwtcp-fluid sweep`` from the same document its ``--json`` prints
(:func:`~dwtcp_fluid.reports.sweep.sweep_report`): the class table, the outcome tables (each evaluator and
predictor against the condition) and the packet pass's cost line. A number the document holds as None (not
finite, or nothing to measure) prints as n/a."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

__all__ = ["print_outcomes", "print_packet", "print_summary"]


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def num(x: float | None, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


def print_summary(s: dict) -> None:
    """The whole human form of a sweep document."""
    con = Console(width=None if sys.stdout.isatty() else 110)
    t = Table(title=f"DWTCP condition sweep: {s['points']} points, β = {', '.join(map(str, s['beta']))}")
    t.add_column("class of the frozen Jacobian (8)")
    t.add_column("points", justify="right")
    t.add_column("share", justify="right")
    for name, n in s["class_counts"].items():
        t.add_row(name, str(n), f"{n / s['points']:.1%}")
    con.print(t)
    con.print(
        f"condition k̄ < 2·BDP/√β holds at {s['condition_true']} points; "
        f"agreement with 'spiral' off the boundary: {num(s['agreement_rate'], '.2%')} "
        f"({s['disagreements']} disagreements, {s['boundary_points']} boundary points not scored)."
    )
    if s["disagreement_examples"]:
        con.print(f"disagreements at e.g.: {s['disagreement_examples']}")
    con.print(
        f"frozen Jacobian asymptotically stable at {pct(s['frozen_asymptotically_stable_fraction'])} of points: "
        "the condition separates spirals from nodes, not stable from unstable (eq. (12))."
    )
    print_outcomes(con, s)
    for b, r in s["kbar_crit_over_bdp"].items():
        con.print(f"β = {b}: k̄* = {r:.1f}·BDP — far above real switch buffers (a few hundred packets).")
    files = [s["dataset"], *s.get("figures", ())]
    named = ", ".join(files[:-1]) + f" and {files[-1]}" if len(files) > 1 else files[0]
    if s.get("reused"):
        con.print(
            f"reused {named} (the finished result of this sweep, computed from these very sources: {s['code']}; "
            "--force recomputes it)",
            soft_wrap=True,
        )
    else:
        con.print(f"wrote {named} ({s['seconds']:.2f} s)", soft_wrap=True)


def print_outcomes(con: Console, s: dict) -> None:
    """The delayed fluid runs, the delay-aware roots and the packet sample, as tables."""
    if "fluid" in s:
        t = Table(
            title="What DWTCP does: fluid runs from w = BDP/N, q = BDP, k = 0 (one run per β × BDP × N)"
        )
        for col in (
            "model",
            "runs",
            "converged",
            "oscillating",
            "max k̄ obs",
            "max k̄ obs/k̄*",
            "median q ampl.",
            "median period (RTT)",
            "min util.",
        ):
            t.add_column(col, justify="right")
        for v, r in s["fluid"].items():
            t.add_row(
                v,
                str(r["runs"]),
                pct(r["converged_fraction"]),
                pct(r["oscillating_fraction"]),
                num(r["kbar_obs_max"], ".1f"),
                num(r["kbar_obs_over_kbar_crit_max"], ".3g"),
                num(r["q_amplitude_median"], ".1f"),
                num(r["period_rtts_median"], ".1f"),
                num(r["utilization_min"], ".3f"),
            )
        con.print(t)
        a = s["fluid_agreement"]
        con.print(
            f"does the condition predict the delayed fluid run (converged ⇔ k̄_obs < k̄*)? {pct(a['condition_agrees'])} "
            f"of runs; the frozen class: {pct(a['frozen_class_agrees'])}; the delay-aware roots: "
            f"{pct(a['delay_roots_agree'])}. Condition holds but the run oscillates: "
            f"{a['condition_holds_but_oscillates']} points."
        )
    if "delay_roots" in s:
        d = s["delay_roots"]
        lo, hi = d["kbar_critical_over_bdp_range"]
        con.print(
            f"delay-aware roots at the frozen points: stable at {pct(d['delay_stable_fraction'])} "
            f"(frozen Jacobian: {pct(d['frozen_stable_fraction'])}); the condition holds but the delayed "
            f"linearization is unstable at {d['condition_holds_but_delay_unstable']} points (k̄ below "
            f"k̄_c ≈ {num(lo, '.4g')}–{num(hi, '.4g')}·BDP)."
        )
    if "packet" in s:
        print_packet(con, s)


def print_packet(con: Console, s: dict) -> None:
    """The packet pass: classes, and each predictor's agreement over the scored points."""
    p = s["packet"]
    c = p["class_counts"]
    con.print(
        f"packet-level DWTCP at {p['points']} points: "
        + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in c.items())  # class names in words
        + f"; {p['scored']} scored (steady or oscillating), collapse and not-stationary runs never scored; "
        f"peak queue {num(p['kbar_obs_max'], '.0f')} packets = {num(p['kbar_obs_over_kbar_crit_max'], '.3g')}·k̄* at most; "
        f"{p['capped']} not-stationary runs capped (the longer run they need exceeds --packet-max-rtts or the "
        "per-point flow-slot budget)."
    )
    t = Table(
        title="Does each predictor say what the packet law does? (scored points: steady ⇔ predicted steady)"
    )
    for col in ("predictor", "scored points", "agreement"):
        t.add_column(col, justify="right")
    for name, a in p["agreement"].items():
        if a is None:
            t.add_row(name, "—", "not registered")
        elif a.get("classes"):
            t.add_row(name + " (every class)", str(a["scored"]), pct(a["agreement"]))
        else:
            t.add_row(name, str(a["scored"]), pct(a["agreement"]))
    con.print(t)
    for name, a in p["agreement"].items():
        if a is not None and a.get("classes"):
            st = a["state"]
            con.print(
                f"{name}: scored at every classified run (steady, oscillating, collapse); over {st['steady_points']}"
                f" steady runs its mean queue is within max(5 packets, 25 %) at {pct(st['queue_within'])} and its"
                f" utilization within 0.03 at {pct(st['utilization_within'])}."
            )
    cost = s.get("packet_cost")
    if cost:
        per = ", ".join(
            f"N={n}: {d['seconds']:.0f} s"
            for n, d in sorted(cost["per_flows"].items(), key=lambda kv: int(kv[0]))
        )
        con.print(f"packet pass {cost['seconds']:.0f} s wall ({per}; one engine call per N and round).")
