"""``packet compare-fluid --law d2tcp``: packet D2TCP held at d = 0.5, 1, 2 against the ACK-clocked D2TCP fluid
model within the stated tolerances; d = 1 is DCTCP's check; the held-d bound by hand; the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.models import D2tcpWindowFluid, DctcpWindowFluid
from dwtcp_fluid.params import DCTCP_ANALYSIS
from dwtcp_fluid.studies.d2tcp.checks import (
    PERIOD_RATIO_FAR,
    SETTINGS,
    D2tcpSetting,
    compare_d2tcp,
    imminence_bounds,
    judged,
)
from dwtcp_fluid.studies.dctcp.checks import compare_dctcp, within_tolerance

P10 = DCTCP_ANALYSIS.replace(flows=10)


@pytest.fixture(scope="module")
def rows():
    """The three N = 10 settings of the check (d = 0.5, 1, 2), 100 ms each."""
    return compare_d2tcp(tuple(s for s in SETTINGS if s.flows == 10))


def test_held_settings_within_the_stated_tolerances(rows):
    assert [r["dimm"] for r in rows] == [0.5, 1.0, 2.0]
    for r in rows:
        assert r["class"] == "held" and r["imminence"]["held"], r["imminence"]
        assert r["agree"], (r["dimm"], r["checks"])
    # the far-deadline period departure is real, not noise: outside DCTCP's 15 % and inside the stated band
    half = rows[0]
    ratio = half["packet"]["period_s"] / half["fluid_window"]["period_s"]
    assert ratio > 1.15 and PERIOD_RATIO_FAR[0] <= ratio <= PERIOD_RATIO_FAR[1]


def test_d_orders_the_queue_in_both_cores(rows):
    """α^d: a smaller d cuts deeper (α < 1), so the trough falls and the mean queue with it, in both cores."""
    for k in ("q_min_packet", "q_min_fluid"):
        assert rows[0][k] < rows[1][k] < rows[2][k]
    assert rows[0]["packet"]["queue_mean"] < rows[1]["packet"]["queue_mean"] < rows[2]["packet"]["queue_mean"]


def test_d_one_is_dctcps_check(rows):
    one = rows[1]
    ok, _ = within_tolerance(one)
    assert ok and one["dctcp_check"]
    # the fluid side is DCTCP's ACK-clocked model exactly at d = 1
    x, p = (20.0, 0.3), DctcpWindowFluid().numeric_params(P10)
    assert D2tcpWindowFluid().rhs(x, x, 1.0, {**p, "dimm": 1.0}, np) == DctcpWindowFluid().rhs(
        x, x, 1.0, p, np
    )


def test_the_check_can_fail(rows):
    """The packet run at d = 0.5 against the fluid model at d = 2 is outside the tolerances (q_min 28 vs 56)."""
    wrong = {**rows[0], "fluid_window": rows[2]["fluid_window"], "q_min_fluid": rows[2]["q_min_fluid"]}
    v = judged(wrong)
    assert not v["agree"] and not v["checks"]["q_min"]
    assert not judged({**rows[1], "imminence": {"held": False}})["agree"]  # unheld d is never agreement


def test_imminence_bounds_by_hand():
    """d = 2 setting, deadline 0.2 s, 100 ms: B ≥ 10⁶ − 833333·0.1 = 916667, W ≤ 40, RTT ≥ 100 µs, D ≤ 0.2 s:
    T_c/D ≥ 916667/30·1e-4/0.2 = 15.28; W ≥ 5, q_max = 80: T_c/D ≤ 10⁶/3.75·(1e-4 + 80/833333)/0.1 = 522.7."""
    c = {
        "w_lo_packet": np.array([5.0, 7.0]),
        "w_hi_packet": np.array([30.0, 40.0]),
        "packet": {"queue_max": 80},
    }
    b = imminence_bounds(D2tcpSetting(2.0), P10, c)
    C = P10.link.C
    assert b["raw_min"] == pytest.approx((1e6 - C * 0.1) / 30.0 * 1e-4 / 0.2, rel=1e-9)
    assert b["raw_max"] == pytest.approx(1e6 / 3.75 * (1e-4 + 80 / C) / 0.1, rel=1e-9)
    assert b["held"]
    far = imminence_bounds(D2tcpSetting(0.5), P10, c)
    assert far["raw_max"] == pytest.approx(1e6 / 3.75 * (1e-4 + 80 / C) / (1000 - 0.1), rel=1e-9)
    assert far["held"] and far["raw_max"] < 0.5


def test_bad_law_exits_2(capsys):
    assert main(["packet", "compare-fluid", "--law", "d3tcp"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--law" in err[0] and "d2tcp" in err[0]


@pytest.mark.slow
def test_cli_all_settings_agree_and_d_one_equals_dctcp(capsys):
    assert main(["packet", "compare-fluid", "--law", "d2tcp", "--json"]) in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["agree"] and len(out["rows"]) == len(SETTINGS)
    for n in (2, 10):
        d2 = next(r for r in out["rows"] if r["flows"] == n and r["dimm"] == 1.0)
        dc = compare_dctcp(n, params=DCTCP_ANALYSIS.replace(flows=n), duration=0.1)
        for k in ("queue_mean", "period_s", "alpha_mean", "utilization"):
            assert d2["packet"][k] == dc["packet"][k]
            assert d2["fluid_window"][k] == pytest.approx(dc["fluid_window"][k], rel=1e-9)
