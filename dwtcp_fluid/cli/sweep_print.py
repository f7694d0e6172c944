"""The sweep's human summary: the outcome table (each evaluator and predictor against the condition) and the packet
pass's cost line, printed by ``dwtcp-fluid sweep``."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

__all__ = ["packet_cost", "print_outcomes", "print_packet"]


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


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
                f"{r['kbar_obs_max']:.1f}",
                f"{r['kbar_obs_over_kbar_crit_max']:.3g}",
                f"{r['q_amplitude_median']:.1f}",
                f"{r['period_rtts_median']:.1f}",
                f"{r['utilization_min']:.3f}",
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
            f"k̄_c ≈ {lo:.4g}–{hi:.4g}·BDP)."
        )
    if "packet" in s:
        print_packet(con, s)


def packet_cost(report: dict) -> dict:
    """Cost breakdown of the packet pass: per N, points, engine calls ("batches"), simulated flow-slots and measured seconds."""
    per_n: dict[int, dict] = {}
    for b in report["batches"]:
        d = per_n.setdefault(int(b["flows"]), {"points": 0, "batches": 0, "flow_slots": 0, "seconds": 0.0})
        d["points"] += b["points"]
        d["batches"] += 1
        d["flow_slots"] += b["flow_slots"]
        d["seconds"] += b["seconds"]
    return {"seconds": report["seconds"], "per_flows": per_n, "batches": report["batches"]}


def print_packet(con: Console, s: dict) -> None:
    """The packet pass: classes, and each predictor's agreement over the scored points."""
    p = s["packet"]
    c = p["class_counts"]
    con.print(
        f"packet-level DWTCP at {p['points']} points: "
        + ", ".join(f"{k} {v}" for k, v in c.items())
        + f"; {p['scored']} scored (steady or oscillating), collapse and not-stationary runs never scored; "
        f"peak queue {p['kbar_obs_max']:.0f} packets = {p['kbar_obs_over_kbar_crit_max']:.3g}·k̄* at most; "
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
        else:
            t.add_row(name, str(a["scored"]), pct(a["agreement"]))
    con.print(t)
    cost = s.get("packet_cost")
    if cost:
        per = ", ".join(
            f"N={n}: {d['seconds']:.0f} s" for n, d in sorted(cost["per_flows"].items(), key=lambda kv: kv[0])
        )
        con.print(f"packet pass {cost['seconds']:.0f} s wall ({per}; one engine call per N and round).")
