"""benchmarks/ns3_fidelity.py: its metrics against closed forms, its bad-input refusals, and (slow) ns-3 3.44
against the packet core on a matched DCTCP dumbbell."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from dwtcp_fluid.packet.summary import jain_index

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "ns3_fidelity.py"


def _module():
    if "ns3_fidelity" not in sys.modules:
        spec = importlib.util.spec_from_file_location("ns3_fidelity", SCRIPT)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["ns3_fidelity"] = mod  # dataclasses resolve their annotations through sys.modules
        spec.loader.exec_module(mod)
    return sys.modules["ns3_fidelity"]


def test_queue_metrics_of_a_sinusoid() -> None:
    """q = 50 + 20 sin(2πt/T): mean 50, swing 2·20·cos(0.05π) (the 5th/95th percentiles of a sine over whole
    periods are ∓cos(0.05π)), period T."""
    m = _module()
    dt, T = 14.4e-6, 1.1e-3
    t = np.arange(0, 100 * T, dt)
    out = m.queue_metrics(50 + 20 * np.sin(2 * math.pi * t / T), dt)
    assert out["queue_mean"] == pytest.approx(50.0, abs=0.01)
    assert out["swing"] == pytest.approx(40 * math.cos(0.05 * math.pi), rel=2e-3)
    assert out["period_s"] == pytest.approx(T, rel=0.01)
    assert m.queue_metrics(np.full(1000, 7.0), dt)["period_s"] is None


def test_jain_index_closed_forms() -> None:
    assert jain_index(np.array([3.0, 3.0, 3.0])) == pytest.approx(1.0, abs=1e-12)
    assert jain_index(np.array([1.0, 0.0, 0.0, 0.0])) == pytest.approx(0.25, abs=1e-12)
    assert jain_index(np.array([1.0, 2.0])) == pytest.approx(9 / 10, abs=1e-12)
    assert jain_index(np.zeros(3)) is None


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--seeds", "0"], "--seeds=0"),
        (["--duration", "nan"], "--duration=nan"),
        (["--settings", "dctcp-n7"], "dctcp-n7"),
        (["--ns3-reduction", "fast"], "--ns3-reduction"),
        (["--jobs", "0"], "--jobs=0"),
        (["--core-min-cwnd", "0.5"], "--core-min-cwnd=0.5"),
        (["--record", "x.json"], "--record and --as"),
    ],
)
def test_bad_input_one_line_exit_2(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        _module().main(args)
    assert e.value.code == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and out == ""


@pytest.mark.slow
def test_ns3_against_core_reductions(tmp_path: Path) -> None:
    """DCTCP N = 10, K = 65, 10 Gbps, 100 µs, 200 ms, one seed, ns-3 with its default TcpPrrRecovery.

    The core's "ns3-prr" (ns-3 3.44's PRR rule read from its source) meets every target: mean queue, swing, period
    and α. The core's "prr" (Linux's tcp_cwnd_reduction) and "immediate" agree on the mean queue but their
    period is shorter by more than the target: ns-3's PRR lags the cut where Linux's does not, and the comparison
    tells the rules apart.
    """
    if shutil.which("g++") is None:
        pytest.skip("no g++ to compile the ns-3 scenario")
    m = _module()
    try:
        m.ns3_root()
    except SystemExit as e:  # pip could not install the wheel (an offline machine)
        pytest.skip(f"ns-3 3.44 wheel unavailable (exit {e.code})")
    results = {}
    for core_red in ("ns3-prr", "prr", "immediate"):
        out = tmp_path / f"{core_red}.json"
        args = ["--settings", "dctcp-n10-k65", "--seeds", "1", "--duration", "0.2", "--json", str(out)]
        assert m.main([*args, "--core-reduction", core_red, "--ns3-reduction", "prr"]) == 0
        results[core_red] = json.loads(out.read_text())[0]
    v = results["ns3-prr"]["verdicts"]
    assert all(v[k][0] for k in ("queue_mean", "swing", "period_s", "alpha")), results["ns3-prr"]
    assert results["ns3-prr"]["ns3"]["utilization"] == pytest.approx(1.0, abs=0.02)
    for core_red in ("prr", "immediate"):
        r = results[core_red]
        assert r["verdicts"]["queue_mean"][0], r
        assert r["core"]["period_s"] < 0.9 * r["ns3"]["period_s"], r


@pytest.mark.slow
def test_ns3_recovery_rule_moves_reno_toward_ns3(tmp_path: Path) -> None:
    """Reno N = 10, drop-tail, one seed, ns-3's TcpNewReno with TcpPrrRecovery: the core's "ns3-prr" (ns-3's
    duplicate-ACK credit in Recovery and TcpNewReno's flight/2 target) puts its loss cycle closer to ns-3's than
    Linux's "prr" does: its period is longer and nearer ns-3's, its mean queue nearer. The dumbbell also reports
    the retransmission timeouts both sides count (ns-3 times out on lost retransmissions; the core does not)."""
    if shutil.which("g++") is None:
        pytest.skip("no g++ to compile the ns-3 scenario")
    m = _module()
    try:
        m.ns3_root()
    except SystemExit as e:  # pip could not install the wheel (an offline machine)
        pytest.skip(f"ns-3 3.44 wheel unavailable (exit {e.code})")
    res = {}
    for core_red in ("ns3-prr", "prr"):
        out = tmp_path / f"{core_red}.json"
        args = ["--settings", "reno-n10-droptail", "--seeds", "1", "--duration", "0.2", "--json", str(out)]
        assert m.main([*args, "--core-reduction", core_red]) == 0
        res[core_red] = json.loads(out.read_text())[0]
    ns3 = res["ns3-prr"]["ns3"]
    a, b = res["ns3-prr"]["core"], res["prr"]["core"]
    assert abs(a["period_s"] - ns3["period_s"]) < abs(b["period_s"] - ns3["period_s"]), res
    assert abs(a["queue_mean"] - ns3["queue_mean"]) < abs(b["queue_mean"] - ns3["queue_mean"]), res
    assert ns3["timeouts"] >= 1 and a["timeouts"] == 0, res


@pytest.mark.slow
def test_hystart_brings_cubic_n2_drops_to_ns3(tmp_path: Path) -> None:
    """CUBIC N = 2, drop-tail, one seed, ns-3's TcpCubic with HyStart (its default): the core's ``hystart="ns3"``
    ends the first slow start before the buffer overflows as ns-3's does, so its drops fall to ns-3's order (within
    a factor 3) where without HyStart the core drops several times more."""
    if shutil.which("g++") is None:
        pytest.skip("no g++ to compile the ns-3 scenario")
    m = _module()
    try:
        m.ns3_root()
    except SystemExit as e:  # pip could not install the wheel (an offline machine)
        pytest.skip(f"ns-3 3.44 wheel unavailable (exit {e.code})")
    res = {}
    for hs in ("ns3", "off"):
        out = tmp_path / f"{hs}.json"
        args = ["--settings", "cubic-n2-droptail", "--seeds", "1", "--duration", "0.2", "--json", str(out)]
        opts = ["--core-reduction", "ns3-prr", "--core-loss-entry", "dupack3", "--core-hystart", hs]
        assert m.main([*args, *opts]) == 0
        res[hs] = json.loads(out.read_text())[0]
    ns3 = res["ns3"]["ns3"]["drops"]
    with_hs, without = res["ns3"]["core"]["drops"], res["off"]["core"]["drops"]
    assert ns3 / 3 <= with_hs <= 3 * ns3 + 3, res
    assert without > 3 * with_hs, res
