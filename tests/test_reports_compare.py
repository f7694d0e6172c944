"""``packet compare-fluid --law d2tcp|cubic``: their cross-checks run at their own settings, and the CLI prints
exactly ``dw.compare_fluid_report(law)`` (as for the other laws in ``test_reports.py``).

The full runs (~17 s each) are slow; the fast test replaces each registered cross-check's sides by one-setting
stand-ins (the check's own tolerances, classifier and rows) so that it checks the plumbing (the CLI prints the
library's document and exits 1 when a row disagrees), not the physics, which ``test_compare_fluid_d2tcp.py`` and the
CUBIC cross-check tests check.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_reports import cli_doc, same

import dwtcp_fluid as dw
from dwtcp_fluid.judge import check as registry
from dwtcp_fluid.params import DCTCP_ANALYSIS
from dwtcp_fluid.studies.cubic import checks as cubic_check
from dwtcp_fluid.studies.d2tcp import checks as crosscheck_d2tcp

_DCTCP = {"queue_mean": 50.0, "queue_min": 40.0, "queue_max": 60.0, "amplitude": 10.0, "period_s": 1e-3,
          "window_mean": 20.0, "alpha_mean": 0.2, "utilization": 1.0, "ack_clock_gap": 0.1}  # fmt: skip
_CUBIC = {"period_s": 1e-2, "queue_mean": 9.0, "queue_min": 1.0, "queue_max": 20.0, "utilization": 0.99,
          "window_mean": 30.0, "shares": [0.5, 0.5], "flows_hit": 1.0, "episodes": 5}  # fmt: skip


def _d2tcp_side(agree: bool) -> tuple:
    q = np.linspace(40.0, 60.0, 50)
    traces = {"t": np.arange(50) * 1e-5, "q": q, "w": q, "w_lo": q, "w_hi": q, "alpha": q * 0}
    pk = {"summary": _DCTCP, "traces": traces, "dt": 1e-5, "params": DCTCP_ANALYSIS.replace(flows=10),
          "imminence": {"raw_min": 1.0, "raw_max": 1.0, "held": True}}  # fmt: skip
    off = _DCTCP if agree else _DCTCP | {"queue_mean": 90.0}
    fl = {"fluid": {"summary": _DCTCP, "traces": traces}, "fluid_window": {"summary": off, "traces": traces}}
    return pk, fl


@pytest.mark.parametrize("agree", [True, False])
def test_d2tcp_and_cubic_documents_come_from_the_library(capsys, monkeypatch, agree):
    pk, fl = _d2tcp_side(agree)
    d2 = crosscheck_d2tcp.CHECK.replace(
        settings=crosscheck_d2tcp.SETTINGS[1:2], packet=lambda s, **_: pk, fluid=lambda ss, pp, **_: [fl]
    )
    off = _CUBIC if agree else _CUBIC | {"period_s": 2e-2}
    cu = cubic_check.CHECK.replace(
        settings=cubic_check.SETTINGS[1:2],
        packet=lambda s, **_: _CUBIC,
        fluid=lambda ss, pp, **_: [{"fluid": off}],
    )
    monkeypatch.setitem(registry.CHECKS._entries, "d2tcp", d2)
    monkeypatch.setitem(registry.CHECKS._entries, "cubic", cu)
    code = 0 if agree else 1
    for law in ("d2tcp", "cubic"):
        lib = dw.compare_fluid_report(law)
        assert lib["agree"] is agree and len(lib["rows"]) == 1
        assert "trace" not in lib["rows"][0] and "traces" not in lib["rows"][0]  # the rows drop their traces
        same(lib, cli_doc(capsys, "packet", "compare-fluid", "--law", law, code=code))
        main_table = _human(capsys, law, code)
        assert ("pass" if agree else "fail") in main_table


def _human(capsys: pytest.CaptureFixture, law: str, code: int) -> str:
    from dwtcp_fluid.cli import main

    assert main(["packet", "compare-fluid", "--law", law]) == code
    return capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("law", ["d2tcp", "cubic"])
def test_d2tcp_and_cubic_full_runs(capsys, law):
    same(dw.compare_fluid_report(law), cli_doc(capsys, "packet", "compare-fluid", "--law", law))
