"""``packet compare-fluid``: one table printer for every law (columns with units, one row per source, a verdict
column with the judge's outcome and measured values)."""

from __future__ import annotations

from rich.console import Console

from dwtcp_fluid.cli.compare_table import check_tables
from dwtcp_fluid.judge import CheckResult, judge
from dwtcp_fluid.params import DCTCP_ANALYSIS, DwtcpParams
from dwtcp_fluid.studies.dctcp.checks import CHECK as DCTCP
from dwtcp_fluid.studies.dwtcp.checks import CHECK as DWTCP
from dwtcp_fluid.studies.timely.checks import CHECKS as TIMELY

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


def _dctcp_table(fluid_window: dict):
    P = DCTCP_ANALYSIS.replace(flows=10)
    sides = {"fluid": {"summary": SUMMARY}, "fluid_window": {"summary": fluid_window}}
    (t,) = check_tables("dctcp", CheckResult(DCTCP, [judge(DCTCP, P, {"summary": SUMMARY}, sides)]))
    return t


def _dwtcp_table(packet_class: str = "oscillating"):
    pk = {"summary": SUMMARY | {"class": packet_class, "period_regular": True}, "buffer": 5000}
    model = {"summary": SUMMARY | {"status": "ok"}}
    row = judge(DWTCP, DwtcpParams(flows=10), pk, {"simplified": model, "sqrt": model})
    (t,) = check_tables("dwtcp", CheckResult(DWTCP, [row]))
    return t


def test_dctcp_and_dwtcp_tables_share_the_header_layout():
    dc, dw = _dctcp_table(SUMMARY), _dwtcp_table()
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
        assert "pass: " in text


def test_the_verdict_column_says_what_missed_and_what_is_not_scored():
    # the ACK-clocked model 20 packets off: the mean queue is marked, the period is not; the paper's model is
    # reported beside it, not scored; each measured gap in its tolerance's unit (packets; the period's relative
    # gap in percent, 0.0012 s against 0.0014 s: 14.3 %)
    text = _text(_dctcp_table(SUMMARY | {"queue_mean": 60.0}))
    assert "fail: queue_mean 20 packets ✗, period 0 %" in text and "reported, not scored" in text
    text = _text(_dctcp_table(SUMMARY | {"period_s": 0.0014}))
    assert "pass: queue_mean 0 packets, period 14.3 %" in text, text
    assert "ACK-clocked" in text and "[DCTCP-A]" in text
    # a packet run that says nothing is never scored
    assert "not scored: the packet run is collapse" in _text(_dwtcp_table("collapse"))


def test_a_law_with_its_own_columns():
    s = TIMELY["timely"].settings[0]
    pk = {"rate_1": 0.03, "rate_2": 0.46, "queue_mean": 5.0, "utilization": 0.95}
    row = judge(TIMELY["timely"], s, pk, {"fluid": pk | {"utilization": 0.99}})
    (t,) = check_tables("timely", CheckResult(TIMELY["timely"], [row]))
    h, text = _headers(t), _text(t)
    assert h[0] == "source" and h[-1] == "verdict" and "rate 1 (C)" in h
    assert "start-dependent split" in text and "pass: packet_split 15.3" in text
