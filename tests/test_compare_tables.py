"""``packet compare-fluid``: DCTCP's and DWTCP's tables share one layout (columns, units, verdict column)."""

from __future__ import annotations

from rich.console import Console

from dwtcp_fluid.cli.packet import dctcp_tables
from dwtcp_fluid.params import LinkParams
from dwtcp_fluid.studies.dwtcp.cli_compare import dwtcp_tables

# hand-made summaries in the documents' units: packets, seconds, fractions
SUMMARY = {
    "queue_mean": 40.0,
    "queue_min": 10.0,
    "queue_max": 70.0,
    "amplitude": 30.0,
    "period_s": 0.0012,
    "window_mean": 12.5,
    "alpha_mean": 0.25,
    "utilization": 0.995,
}


def _headers(t):
    return [" ".join(str(c.header).split()) for c in t.columns]


def _text(t):
    con = Console(width=400, record=True)
    con.print(t)
    return con.export_text()


def test_dctcp_and_dwtcp_tables_share_the_header_layout():
    dctcp_row = {
        "flows": 10,
        "packet": SUMMARY,
        "fluid": SUMMARY,
        "fluid_window": SUMMARY,
        "within_tolerance": True,
    }
    (dc,) = dctcp_tables([dctcp_row], LinkParams(), 65.0, 1 / 16)
    gap = {"verdict": "pass", "why": []}
    result = {
        "setting": {"flows": 10, "rtt_s": 1e-4, "bdp": 83.3, "beta": 0.001, "k": 100.0, "buffer": 5000},
        "packet": SUMMARY | {"class": "steady"},
        "models": {"simplified": SUMMARY, "sqrt": SUMMARY},
        "gaps": {"simplified": gap, "sqrt": gap},
    }
    (dw,) = dwtcp_tables([result])
    assert _headers(dc) == _headers(dw)
    h = _headers(dc)
    assert h[0] == "source" and h[-1] == "verdict"
    assert {"mean q (pkt)", "amplitude (pkt)", "period (ms)", "utilization (%)", "mean window (pkt)"} <= set(
        h
    )
    # one row per source: the packet run, then each model
    assert dc.row_count == 3 and dw.row_count == 3
    for t in (dc, dw):
        text = _text(t)
        # 1.2 ms period and 99.5 % utilization, converted from the summaries' seconds and fraction
        assert " 1.2 " in text and " 99.5 " in text and "0.0012" not in text
