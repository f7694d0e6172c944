"""The one table layout of ``packet compare-fluid``, for every law: one table per setting, one row per source (the
packet run, then each fluid model), the check's quantities as unit-suffixed columns, and a verdict column (the
judge's outcome with the measured value of each stated tolerance; a missed one is marked ✗)."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["COMPARE_COLUMNS", "compare_console", "compare_table", "check_tables", "outcome_text", "fmt"]

#: The default quantity columns: (header with its unit, summary key, factor from the summary's unit to the header's).
COMPARE_COLUMNS: tuple[tuple[str, str, float], ...] = (
    ("mean q (pkt)", "queue_mean", 1.0),
    ("min q (pkt)", "queue_min", 1.0),
    ("max q (pkt)", "queue_max", 1.0),
    ("amplitude (pkt)", "amplitude", 1.0),
    ("period (ms)", "period_s", 1e3),
    ("utilization (%)", "utilization", 100.0),
    ("mean window (pkt)", "window_mean", 1.0),
    ("mean α", "alpha_mean", 1.0),
)


def fmt(v: Any, scale: float = 1.0, digits: int = 4) -> str:
    """``v·scale`` with ``digits`` significant digits; "—" for None or NaN."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v * scale:.{digits}g}" if isinstance(v, int | float) else str(v)


def compare_table(
    title: str,
    rows: Sequence[tuple[str, Mapping[str, Any], str]],
    columns: Sequence[tuple[str, str, float]] = COMPARE_COLUMNS,
) -> Table:
    """A table of ``rows`` = (source, summary with the keys of ``columns``, verdict text)."""
    t = Table(title=title)
    t.add_column("source", justify="left", max_width=34)
    for header, _, _ in columns:  # the unit on a second header line keeps the columns narrow
        t.add_column(header.replace(" (", "\n("), justify="right", no_wrap=True)
    t.add_column("verdict", justify="left", ratio=1, min_width=36)
    for source, summary, verdict in rows:
        t.add_row(source, *(fmt(summary.get(k), f) for _, k, f in columns), verdict)
    return t


def outcome_text(v: Any, tolerances: dict[str, Any] | None = None) -> str:
    """A :class:`~dwtcp_fluid.judge.Verdict` in words: pass/fail with each scored tolerance's measured value (✗:
    missed), in its unit where ``tolerances`` (name → :class:`~dwtcp_fluid.judge.Tolerance`) has it, or "not
    scored" with the run's class."""
    if v.passed is None:
        return f"not scored: the packet run is {v.run_class}"
    if not v.checks:
        return "fail: the model's solver failed"
    parts = []
    for k in v.scored:
        x, unit = v.measured[k], ""
        t = (tolerances or {}).get(k)
        if t is not None and x is not None:
            x, unit = t.in_units(x)
        parts.append(f"{k} {fmt(x, digits=3)}{unit}" + ("" if v.checks[k] else " ✗"))
    return ("pass: " if v.agree else "fail: ") + ", ".join(parts)


def _units_by_name(check: Any) -> dict[str, Any]:
    """The check's stated tolerances by name, where a name means one kind of bound in one unit in every set (a
    callable choosing sets per run states them in ``stated_tolerances``)."""
    sets = [check.stated_tolerances if check.stated_tolerances is not None else check.tolerances]
    flat = []
    while sets:
        x = sets.pop()
        if isinstance(x, dict):
            sets.extend(x.values())
        elif not callable(x) and x is not None:
            flat.extend(x)
    seen: dict[str, set] = {}
    for t in flat:
        seen.setdefault(t.name, set()).add((t.in_units(1.0)[1], t.rel is not None and t.abs is None))
    return {t.name: t for t in flat if len(seen[t.name]) == 1}


def check_tables(law: str, result: Any) -> list[Table]:
    """One :func:`compare_table` per setting of a :class:`~dwtcp_fluid.judge.CheckResult`: the packet run (with its
    class), then each fluid model with its verdict (a model the check does not score is reported as such)."""
    check = result.check
    columns = check.columns or COMPARE_COLUMNS
    units = _units_by_name(check)
    out = []
    for r in result.rows:
        pk = r.packet.get("summary", r.packet)
        cls = f" ({r.run_class})" if r.run_class else ""
        rows = [(f"packet{cls}", pk, "")]
        for m, side in r.fluid.items():
            summary = side.get("summary", side)
            v = r.verdicts.get(m)
            text = outcome_text(v, units) if v is not None else "reported, not scored"
            rows.append((check.model_labels.get(m, m), summary, text))
        title = f"{law}, {r.name}: packet core vs fluid model{'s' if len(r.fluid) > 1 else ''}"
        out.append(compare_table(title, rows, columns))
    return out


def compare_console() -> Console:
    """The console the tables print on: the terminal's width, 170 columns when the output is not a terminal."""
    return Console(width=None if sys.stdout.isatty() else 170)
