"""``dwtcp-fluid packet compare-fluid --law d2tcp``: packet D2TCP held at imminence d = 0.5, 1, 2 next to the D2TCP
fluid models at the same d, at the cross-check's settings (:mod:`dwtcp_fluid.studies.d2tcp.checks`)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...cli.common import emit_json


def compare_fluid_d2tcp(law: str = "d2tcp", *, seed: int, as_json: bool) -> None:
    """Run the D2TCP cross-check settings through both cores; print a table (or one JSON object).

    Exits 1 (after printing) when a setting is outside the stated tolerances or its imminence was not held.
    """
    from ...reports.compare import compare_fluid_report

    out = compare_fluid_report("d2tcp", seed=seed)
    rows = out["rows"]
    if as_json:
        emit_json(out)
    else:
        t = Table(
            title="d2tcp: packet core vs the ACK-clocked D2TCP fluid model at held d (last half of the run)"
        )
        for col in ("N", "d", "quantity", "packet", "ACK-clocked", "paper (7)"):
            t.add_column(col)
        f = lambda v: "—" if v is None else f"{v:.4g}"  # noqa: E731
        for r in rows:
            n, d = str(r["flows"]), f"{r['dimm']:g}"
            for k in ("queue_mean", "period_s", "alpha_mean", "utilization"):
                t.add_row(n, d, k, f(r["packet"][k]), f(r["fluid_window"][k]), f(r["fluid"][k]))
            q = r["q_extremes"]
            t.add_row(n, d, "q_min (p5)", f(q["q_min_packet"]), f(q["q_min_fluid"]), "")
            t.add_row(n, d, "q_max (p95)", f(q["q_max_packet"]), f(q["q_max_fluid"]), "")
            failed = [k for k, v in r["checks"].items() if not v]
            t.add_row(n, d, "agree", str(r["agree"]), r["class"], ", ".join(failed) or "all checks pass")
        Console().print(t)
    if not out["agree"]:
        raise SystemExit(1)
