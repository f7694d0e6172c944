"""``dwtcp-fluid packet compare-fluid --law timely|timely-patched``: the TIMELY packet laws next to their fluid
model, at the cross-check's settings (:mod:`dwtcp_fluid.studies.timely.checks`)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...cli.common import UsageError, emit_json
from ...reports.compare import TIMELY_LAWS

__all__ = ["TIMELY_LAWS", "compare_fluid_timely"]


def compare_fluid_timely(law: str, *, seed: int, as_json: bool) -> None:
    """Run the cross-check settings of ``law`` through both cores; print a table (or one JSON object).

    Exits 1 (after printing) when a setting is outside the stated tolerances.
    """
    from ...reports.compare import compare_fluid_report

    if law not in TIMELY_LAWS:
        raise UsageError("--law", law, " | ".join(TIMELY_LAWS))
    out = compare_fluid_report(law, seed=seed)
    rows = out["rows"]
    if as_json:
        emit_json(out)
    else:
        t = Table(title=f"{law}: packet core vs fluid model (last half; rates in fractions of line rate)")
        for col in ("setting", "class", "quantity", "packet", "fluid"):
            t.add_column(col)
        for r in rows:
            for k in ("rate_1", "rate_2", "queue_mean", "utilization"):
                t.add_row(r["setting"], r["class"], k, f"{r['packet'][k]:.4g}", f"{r['fluid'][k]:.4g}")
            failed = [k for k, v in r["checks"].items() if not v]
            t.add_row(r["setting"], "", "agree", str(r["agree"]), ", ".join(failed) or "all checks pass")
        Console().print(t)
    if not out["agree"]:
        raise SystemExit(1)
