"""`dwtcp-fluid dctcp simulate` and `dwtcp-fluid dwtcp simulate`: JSON keys, values, usage errors."""

from __future__ import annotations

import json

import pytest

from dwtcp_fluid.cli import main

KEYS = {"period_s", "queue_min", "queue_max", "queue_mean", "window_mean", "alpha_mean", "utilization"}


def _run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_dctcp_simulate_json_n100_fixed_point(capsys):
    code, out, _ = _run(
        ["dctcp", "simulate", "--capacity", "10Gbps", "--rtt", "100us", "--marking-threshold", "65", "--g",
         "0.0625", "--flows", "100", "--duration", "100ms", "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0
    d = json.loads(out)
    assert KEYS <= d.keys()
    assert abs(d["queue_mean"] - (200 - 83.333)) < 0.05 and d["period_s"] is None
    assert abs(d["window_mean"] - 2) < 1e-3 and abs(d["alpha_mean"] - 1) < 1e-3 and d["utilization"] > 0.999


def test_dctcp_simulate_jax_and_plot(capsys, tmp_path):
    f = tmp_path / "ts.png"
    code, out, _ = _run(
        ["dctcp", "simulate", "--flows", "10", "--solver", "jax", "--plot", str(f), "--json"], capsys
    )
    d = json.loads(out)
    assert code == 0 and f.stat().st_size > 1000
    assert 1e-3 < d["period_s"] < 2e-3 and d["queue_min"] < 65 < d["queue_max"]


def test_dwtcp_simulate_json(capsys):
    code, out, _ = _run(["dwtcp", "simulate", "--flows", "10", "--duration", "30ms", "--json"], capsys)
    d = json.loads(out)
    assert code == 0 and d["delay_rtts"] == 1.0
    assert {"queue_min", "queue_max", "queue_mean", "window_mean", "amplitude", "period_s"} <= d.keys()
    assert d["queue_min"] >= 0


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["dctcp", "simulate", "--flows", "0"], "--flows"),
        (["dctcp", "simulate", "--g", "2"], "--g"),
        (["dctcp", "simulate", "--duration", "-1s"], "--duration"),
        (["dctcp", "simulate", "--solver", "euler"], "--solver"),
        (["dctcp", "simulate", "--capacity", "fast"], "--capacity"),
        (["dwtcp", "simulate", "--variant", "cubic"], "--variant"),
        (["dwtcp", "simulate", "--beta", "0"], "--beta"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, flag, capsys):
    code, out, err = _run(args, capsys)
    assert code == 2 and flag in err and err.count("\n") == 1 and "Traceback" not in err
