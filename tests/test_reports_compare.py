"""``packet compare-fluid --law d2tcp|cubic``: their cross-checks run at their own settings, and the CLI prints
exactly ``dw.compare_fluid_report(law)`` (as for the other laws in ``test_reports.py``).

The full runs (~17 s each) are slow; the fast test replaces the cross-check by a one-row stand-in so that it checks
the plumbing (the CLI prints the library's document and exits 1 when a row disagrees), not the physics, which
``test_compare_fluid_d2tcp.py`` and the CUBIC cross-check tests check.
"""

from __future__ import annotations

import pytest
from test_reports import cli_doc, same

import dwtcp_fluid as dw
from dwtcp_fluid.studies.cubic import checks as cubic_check
from dwtcp_fluid.studies.d2tcp import checks as crosscheck_d2tcp


def _d2tcp_row(agree: bool) -> dict:
    summary = {"queue_mean": 50.0, "period_s": 1e-3, "alpha_mean": 0.2, "utilization": 1.0}
    return {
        "flows": 10, "dimm": 1.0, "packet": summary, "fluid": summary, "fluid_window": summary,
        "imminence": {"held": True}, "checks": {"queue_mean": agree}, "class": "oscillating", "agree": agree,
        "measured": "stand-in", "q_min_packet": 1.0, "q_min_fluid": 2.0, "q_max_packet": 3.0, "q_max_fluid": 4.0,
        "trace": [1.0, 2.0],
    }  # fmt: skip


def _cubic_row(agree: bool) -> dict:
    summary = {
        "period_s": 1e-2, "queue_mean": 9.0, "queue_min": 1.0, "queue_max": 20.0, "utilization": 0.99,
        "window_mean": 30.0, "shares": [0.5, 0.5], "flows_hit": 1.0,
    }  # fmt: skip
    return {"setting": "N=2", "class": "oscillating", "packet": summary, "fluid": summary,
            "checks": {"period": agree}, "agree": agree}  # fmt: skip


@pytest.mark.parametrize("agree", [True, False])
def test_d2tcp_and_cubic_documents_come_from_the_library(capsys, monkeypatch, agree):
    monkeypatch.setattr(crosscheck_d2tcp, "compare_d2tcp", lambda seed=0: [_d2tcp_row(agree)])
    monkeypatch.setattr(cubic_check, "compare_cubic", lambda settings, seed=0: [_cubic_row(agree)])
    code = 0 if agree else 1
    for law in ("d2tcp", "cubic"):
        lib = dw.compare_fluid_report(law)
        assert lib["agree"] is agree and len(lib["rows"]) == 1
        assert "trace" not in lib["rows"][0]  # the D2TCP rows drop their traces
        same(lib, cli_doc(capsys, "packet", "compare-fluid", "--law", law, code=code))
        main_table = _human(capsys, law, code)
        assert "agree" in main_table


def _human(capsys: pytest.CaptureFixture, law: str, code: int) -> str:
    from dwtcp_fluid.cli import main

    assert main(["packet", "compare-fluid", "--law", law]) == code
    return capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("law", ["d2tcp", "cubic"])
def test_d2tcp_and_cubic_full_runs(capsys, law):
    same(dw.compare_fluid_report(law), cli_doc(capsys, "packet", "compare-fluid", "--law", law))
