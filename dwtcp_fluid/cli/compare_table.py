"""The one table layout of ``packet compare-fluid`` for DCTCP and DWTCP: one table per setting, one row per source
(the packet run, then each fluid model), the summary quantities as unit-suffixed columns, and a verdict column."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["COMPARE_COLUMNS", "compare_console", "compare_table", "fmt"]

#: The quantity columns: (header with its unit, summary key, factor from the summary's unit to the header's).
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


def compare_table(title: str, rows: Sequence[tuple[str, dict[str, Any], str]]) -> Table:
    """A table of ``rows`` = (source, summary with the keys of :data:`COMPARE_COLUMNS`, verdict text)."""
    t = Table(title=title)
    t.add_column("source", justify="left", max_width=26)
    for header, _, _ in COMPARE_COLUMNS:  # the unit on a second header line keeps the columns narrow
        t.add_column(header.replace(" (", "\n("), justify="right", no_wrap=True)
    t.add_column("verdict", justify="left", ratio=1, min_width=36)
    for source, summary, verdict in rows:
        t.add_row(source, *(fmt(summary.get(k), f) for _, k, f in COMPARE_COLUMNS), verdict)
    return t


def compare_console() -> Console:
    """The console the tables print on: the terminal's width, 170 columns when the output is not a terminal."""
    return Console(width=None if sys.stdout.isatty() else 170)
