"""[DWTCP]'s dynamics claims (dwtcp_fluid/studies/dwtcp/checks_dynamics.py, figures_dynamics.py): the
convergence-time and Jain-over-time metrics against hand-computed cases, the traces against the link's rate."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.studies.dwtcp.checks_dynamics import convergence_time, jain_over_time, trailing_mean


def test_trailing_mean_by_hand():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    got = trailing_mean(x, 2, first=1)
    assert np.isnan(got[0])
    assert got[1:] == pytest.approx([2.0, 2.5, 3.5], abs=1e-12)  # 2; (2 + 3)/2; (3 + 4)/2
    assert trailing_mean(x, 3) == pytest.approx([1.0, 1.5, 2.0, 3.0], abs=1e-12)


# chunks end at t = 1 … 10 s; flow 1 alone until a join at t0 = 3 s, then the fair share is 10 per flow
_T = np.arange(1.0, 11.0)
_THR = np.array(
    [[20, 0], [20, 0], [20, 0], [15, 5], [12, 8], [10.5, 9.5], [10, 8.6], [10, 10], [10, 10], [10, 10]], float
)
_ACT = np.array([[True, False]] * 3 + [[True, True]] * 7)
_FAIR = np.array([20.0] * 3 + [10.0] * 7)


def test_convergence_time_by_hand():
    """Within 10 % (9-11) per chunk: (10.5, 9.5) at t = 6 first; (10, 8.6) at t = 7 is out; from t = 8 in."""
    ct = convergence_time
    assert ct(_T, _THR, _ACT, _FAIR, 3.0) == pytest.approx(3.0, abs=1e-12)  # t = 6
    assert ct(_T, _THR, _ACT, _FAIR, 3.0, hold=2) == pytest.approx(5.0, abs=1e-12)  # t = 8, 9
    # a 2-chunk mean: t = 6: (12 + 10.5)/2 = 11.25 > 11; t = 7: (10.25, 9.05) in
    assert ct(_T, _THR, _ACT, _FAIR, 3.0, window=2) == pytest.approx(4.0, abs=1e-12)
    assert ct(_T, _THR, _ACT, _FAIR, 3.0, until=5.0) is None
    # 6 % tolerance: 10.5 and 9.5 are within (|Δ| = 0.5 ≤ 0.6); 4 %: not, and 8.6 never
    assert ct(_T, _THR, _ACT, _FAIR, 3.0, tol=0.06) == pytest.approx(3.0, abs=1e-12)
    assert ct(_T, _THR, _ACT, _FAIR, 3.0, tol=0.04) == pytest.approx(5.0, abs=1e-12)
    # the mean never reaches back before t0: from t0 = 4.5 the first whole chunk is (5, 6]
    assert ct(_T, _THR, _ACT, _FAIR, 4.5, window=3) == pytest.approx(1.5, abs=1e-12)  # t = 6 alone: in


def test_jain_over_time_by_hand():
    thr = np.array([[1.0, 1.0], [1.0, 3.0], [2.0, 0.0]])
    act = np.array([[True, True], [True, True], [True, False]])
    got = jain_over_time(thr, act)
    assert got[:2] == pytest.approx([1.0, 16.0 / 20.0], abs=1e-12)  # (1 + 3)² / (2 (1 + 9))
    assert np.isnan(got[2])  # one active flow


@pytest.mark.slow
def test_traces_carry_the_link_rate_and_fair_share():
    """Five DCTCP flows under the Fig. 16 capacity schedule (first 0.2 s): the fair share is the scheduled rate
    over five flows (0.4 Gbps / 1,500 B / 5 = 6,666.7 packets/s), and the flows' throughputs add up to it at full
    utilization (±1 %)."""
    from dwtcp_fluid.packet.impair import FIG16_SCHEDULE
    from dwtcp_fluid.packet.scenarios import run_many
    from dwtcp_fluid.params import LinkParams
    from dwtcp_fluid.studies.dwtcp.checks_dynamics import _run, flow_traces

    pr = _run(
        "dctcp", LinkParams(capacity="10Gbps", rtt="100us"), 5, duration=0.2,
        capacity_schedule=list(FIG16_SCHEDULE), trace_points=200, warmup_fraction=0.0, seed=0,
    )  # fmt: skip
    tr = flow_traces(pr, run_many([pr])[0])
    for t0, rate in ((0.0, 0.4e9), (0.1, 0.7e9)):
        sel = (tr["t"] > t0 + 0.01) & (tr["t"] <= t0 + 0.1 - 0.001)
        share = rate / (1500 * 8) / 5
        assert tr["fair"][sel].mean() == pytest.approx(share, rel=0.01)  # whole service slots per chunk: mean
        assert tr["thr"][sel].sum(1).mean() == pytest.approx(5 * share * tr["util"][sel].mean(), rel=0.01)
        assert tr["util"][sel].mean() > 0.99


def test_the_recorded_dynamics_are_at_the_stated_settings():
    """docs/data/dwtcp-claims.json's dynamics were run at figures_dynamics.DYNAMICS_SETTINGS, and the summary the
    claims table shows is the summary of the recorded runs."""
    import json
    from pathlib import Path

    from dwtcp_fluid.studies.dwtcp.figures_dynamics import DYNAMICS_SETTINGS, dynamics_summary

    rec = json.loads((Path(__file__).parents[1] / "docs" / "data" / "dwtcp-claims.json").read_text("utf-8"))
    dyn = rec["data"]["dynamics"]
    assert dyn["settings"] == {
        k: list(v) if isinstance(v, tuple) else v for k, v in DYNAMICS_SETTINGS.items()
    }
    assert json.loads(json.dumps(dynamics_summary(rec["data"]))) == dyn["summary"]
