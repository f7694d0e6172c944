"""``packet compare-fluid --law dwtcp``: the harness reports the fluid models' disagreement with the packet law as
measured (no snapshots: margins around the facts the issue states), the tolerance rule, and the CLI."""

from __future__ import annotations

import json

import pytest

from dwtcp_fluid.studies.dwtcp.checks import TOLERANCES, compare_dwtcp, model_gaps
from dwtcp_fluid.sweep.predictors import SCOUT_FAITHFUL, DwtcpPredictor, predictors, register_predictor


@pytest.fixture(scope="module")
def issue_setting():
    # 10 Gbps, τ = 100 µs, N = 10, β = 0.001, K = 100, packet buffer 5000 (issue 12's table)
    return compare_dwtcp(
        10, "100us", models=("simplified", "simplified-nodelay"), packet_rtts=200.0, fluid_rtts=600.0
    )


def test_packet_queue_far_below_the_delayed_model(issue_setting):
    c = issue_setting
    pk, delayed = c["packet"], c["models"]["simplified"]
    # the packet law keeps the queue near empty, far below its own target K = 100 ...
    assert pk["class"] in ("steady", "oscillating") and pk["queue_mean"] < 50 and pk["queue_max"] < 100
    assert pk["utilization"] > 0.95 and pk["drops"] == 0
    # ... while the delayed model (5)/(6) swings through thousands of packets (issue: mean 1178-2611, max ~2000-4300)
    assert delayed["status"] == "ok" and delayed["queue_mean"] > 500 and delayed["queue_max"] > 1500
    assert delayed["queue_mean"] > 20 * pk["queue_mean"]
    g = c["gaps"]["simplified"]
    assert g["verdict"] == "fail" and not g["queue_ok"]
    assert g["queue_mean_abs"] == pytest.approx(abs(delayed["queue_mean"] - pk["queue_mean"]))
    # windows agree to first order: N·w ≈ BDP + q for both (ACK clock), so the window is not where they differ
    bdp = c["setting"]["bdp"]
    assert abs(10 * pk["window_mean"] - (bdp + pk["queue_mean"])) < 0.15 * bdp


def test_undelayed_model_also_misses(issue_setting):
    # without the Scout delay the paper's model still holds a queue of hundreds of packets around K = 100
    nd = issue_setting["models"]["simplified-nodelay"]
    assert nd["queue_mean"] > 100 and issue_setting["gaps"]["simplified-nodelay"]["verdict"] == "fail"


def _v(packet: dict, model: dict) -> dict:
    return model_gaps(packet, {"status": "ok"} | model)


def test_tolerance_rule_on_hand_made_summaries():
    pk = {"class": "oscillating", "queue_mean": 100.0, "queue_min": 0.0, "utilization": 0.99, "period_s": 1.0e-3,
          "period_regular": True}  # fmt: skip
    ok = _v(pk, {"queue_mean": 119.0, "utilization": 0.975, "period_s": 1.14e-3})
    assert ok["verdict"] == "pass" and ok["period_rel"] == pytest.approx(0.14)
    assert not _v(pk, {"queue_mean": 121.0, "utilization": 0.99, "period_s": 1e-3})["queue_ok"]
    assert not _v(pk, {"queue_mean": 100.0, "utilization": 0.96, "period_s": 1e-3})["utilization_ok"]
    bad = _v(pk, {"queue_mean": 100.0, "utilization": 0.99, "period_s": 1.2e-3})
    assert bad["period_ok"] is False and bad["verdict"] == "fail"
    # an irregular packet period is reported, never scored: mean queue and utilization decide
    irregular = _v(
        pk | {"period_regular": False}, {"queue_mean": 100.0, "utilization": 0.99, "period_s": 5e-3}
    )
    assert irregular["verdict"] == "pass" and irregular["period_ok"] is None
    # a standing-queue model needs a packet queue that never empties
    stand = {"queue_mean": 100.0, "utilization": 0.99, "period_s": None, "regime": "standing queue"}
    assert _v(pk | {"queue_min": 3.0}, stand)["verdict"] == "pass"
    assert _v(pk, stand)["verdict"] == "fail"
    # a small queue: 10 packets absolute is the looser bound; a model that oscillates where the packet run has no
    # period fails the period test
    small = {"class": "steady", "queue_mean": 3.0, "queue_min": 1.0, "utilization": 1.0, "period_s": None}
    assert _v(small, {"queue_mean": 12.9, "utilization": 1.0, "period_s": None})["verdict"] == "pass"
    assert _v(small, {"queue_mean": 3.0, "utilization": 1.0, "period_s": 0.01})["period_ok"] is False
    assert TOLERANCES["period"].rel == 0.15


def test_runs_that_say_nothing_are_never_scored():
    # a collapsed and a not-yet-stationary packet run: "not scored", whatever the model says
    model = {"queue_mean": 3.0, "utilization": 1.0, "period_s": None, "status": "ok"}
    for cls in ("collapse", "not_stationary", "failed"):
        v = model_gaps({"class": cls, "queue_mean": 3.0, "utilization": 1.0, "period_s": None}, model)
        assert v["verdict"] == "not scored" and cls in v["why"][0]
    # a model whose solver failed fails, with the reason
    pk = {"class": "steady", "queue_mean": 3.0, "queue_min": 1.0, "utilization": 1.0, "period_s": None}
    v = model_gaps(pk, model | {"status": "max steps"})
    assert v["verdict"] == "fail" and "max steps" in v["why"][0]


def test_registry_takes_a_new_model(monkeypatch):
    from dwtcp_fluid.sweep import predictors as reg

    monkeypatch.setattr(reg.PREDICTORS, "_entries", dict(reg.PREDICTORS._entries))

    def simulate(P, duration_s):
        # a model that predicts exactly an empty queue at full utilization, constant window BDP/N
        s = {k: 0.0 for k in reg.SUMMARY_KEYS} | {"utilization": 1.0, "period_s": None, "status": "ok"}
        s["window_mean"] = P.bdp / P.flows
        return {"summary": s, "traces": {"t": [0.0, duration_s], "q": [0.0, 0.0], "w": [1.0, 1.0]}}

    register_predictor(DwtcpPredictor(SCOUT_FAITHFUL, "test model", "fluid", simulate=simulate))
    assert SCOUT_FAITHFUL in predictors(simulate=True)
    c = compare_dwtcp(2, "100us", models=(SCOUT_FAITHFUL,), packet_rtts=30.0, fluid_rtts=50.0)
    assert c["models"][SCOUT_FAITHFUL]["queue_mean"] == 0.0 and c["labels"][SCOUT_FAITHFUL] == "test model"
    with pytest.raises(ValueError, match="not a registered fluid predictor"):
        compare_dwtcp(2, "100us", models=("nope",))
    with pytest.raises(ValueError, match="accepted one with simulate"):
        register_predictor(DwtcpPredictor("empty", "nothing", "fluid"))


def test_cli_json_and_bad_input(capsys, tmp_path):
    from dwtcp_fluid.cli import main

    code = main(
        [
            "packet",
            "compare-fluid",
            "--law",
            "dwtcp",
            "--flows",
            "2",
            "--models",
            "simplified-nodelay",
            "--packet-rtts",
            "30",
            "--fluid-rtts",
            "100",
            "--plot",
            str(tmp_path / "o.png"),
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    d = json.loads(out)
    assert d["law"] == "dwtcp" and len(d["rows"]) == 1
    row = d["rows"][0]
    assert set(row["models"]) == {"simplified-nodelay"} and row["setting"]["k"] == 100.0
    assert row["setting"]["buffer"] == 5000 and row["gaps"]["simplified-nodelay"]["verdict"] in (
        "pass",
        "fail",
        "not scored",
    )
    assert (tmp_path / "o.png").exists()
    for args, flag in (
        (["--law", "dwtcp", "--models", "nope"], "--models"),
        (["--law", "tcp"], "--law"),
        (["--law", "dwtcp", "--rtt", "fast"], "--rtt"),
        (["--law", "dwtcp", "--beta", "0"], "--beta"),
    ):
        code = main(["packet", "compare-fluid", *args])
        err = capsys.readouterr().err
        assert code == 2 and flag in err and "Traceback" not in err
