"""``dwtcp-fluid packet compare-fluid --law cubic``: the CUBIC packet law next to its hybrid fluid model, at the
cross-check's settings (:mod:`dwtcp_fluid.studies.cubic.checks`)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...cli.common import emit_json

#: The quantities printed per setting (period in s, queues in packets, utilization 1).
_ROWS = ("period_s", "queue_mean", "queue_min", "queue_max", "utilization", "window_mean")


def compare_fluid_cubic(law: str = "cubic", *, seed: int, as_json: bool) -> None:
    """Run the cross-check settings through both cores; print a table (or one JSON object).

    Exits 1 (after printing) when a setting is outside the stated tolerances or not stationary.
    """
    from ...reports.compare import compare_fluid_report

    out = compare_fluid_report("cubic", seed=seed)
    rows = out["rows"]
    if as_json:
        emit_json(out)
    else:
        t = Table(title="cubic: packet core vs hybrid fluid model (last half)")
        for col in ("setting", "class", "quantity", "packet", "fluid"):
            t.add_column(col)
        for r in rows:
            pk, fl = r["packet"], r["fluid"]
            for k in _ROWS:
                t.add_row(r["setting"], r["class"], k, _fmt(pk[k]), _fmt(fl[k]))
            t.add_row(r["setting"], "", "max share gap", "", _fmt(_share_gap(pk, fl)))
            t.add_row(r["setting"], "", "flows hit per loss", _fmt(pk["flows_hit"]), _fmt(fl["flows_hit"]))
            failed = [k for k, v in r["checks"].items() if not v]
            t.add_row(r["setting"], "", "agree", str(r["agree"]), ", ".join(failed) or "all checks pass")
        Console().print(t)
    if not out["agree"]:
        raise SystemExit(1)


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.4g}"


def _share_gap(pk: dict, fl: dict) -> float:
    return max(abs(a - b) for a, b in zip(pk["shares"], fl["shares"], strict=True))
