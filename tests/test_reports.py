"""A library function returns each command's JSON document: ``dwtcp-fluid <command> --json`` prints the header
(schema_version, package_version, command, inputs) and then exactly the dict of ``dw.<name>_report(...)`` at the same
inputs. Cheap inputs throughout; the packet cross-checks with the settings they need are marked slow.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

import dwtcp_fluid as dw
from dwtcp_fluid.cli import main
from dwtcp_fluid.params import DctcpParams, DwtcpParams, LinkParams
from dwtcp_fluid.reports import REPORTS
from dwtcp_fluid.units import parse_time

HEADER = ("schema_version", "package_version", "command", "inputs")

#: Commands with ``--json`` whose document is still built inside the CLI, and why (listed so that a new command
#: with --json cannot slip by: test_every_json_command_is_accounted_for).
NOT_YET: dict[str, str] = {
    "dctcp network": "multi-bottleneck fluid and packet runs, being extended by another branch",
    "dctcp network-sweep": "its document is the summary of a dataset written to disk (as sweep's)",
    "sweep": "its document is the summary of a dataset written to disk",
    "figures": "a list of files written and claims checked",
    "proofs": "a list of files written and checks run",
}


def cli_doc(capsys: pytest.CaptureFixture, *argv: str, code: int = 0) -> dict[str, Any]:
    rc = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert rc == code, out
    doc = json.loads(out)
    assert doc["command"] == " ".join(argv[:2]) or doc["command"] == argv[0]
    assert doc["inputs"], doc  # the full inputs, as given or defaulted
    return {k: v for k, v in doc.items() if k not in HEADER}


def same(lib: dict[str, Any], cli: dict[str, Any]) -> None:
    """Equal as JSON (the library's dict goes through the same dump the CLI prints)."""
    assert json.loads(json.dumps(lib)) == cli


DW = DwtcpParams(link=LinkParams("10Gbps", "100us"), flows=10, beta=0.001, k=100.0)


def test_condition_and_eigen(capsys):
    same(dw.condition_report(DW), cli_doc(capsys, "dwtcp", "condition"))
    P0 = DW.replace(k=0.0)
    same(dw.eigen_report(P0, kbar=100.0), cli_doc(capsys, "dwtcp", "eigen", "--kbar", "100"))
    same(
        dw.eigen_report(P0, phase="increase", variant="sqrt"),
        cli_doc(capsys, "dwtcp", "eigen", "--phase", "increase", "--variant", "sqrt"),
    )


def test_simulate_both_models(capsys):
    same(
        dw.dwtcp_simulate_report(DW, duration=2e-3),
        cli_doc(capsys, "dwtcp", "simulate", "--duration", "2ms"),
    )
    # a run that stops (chattering on q = 0 at K = 0) is a document too: status, message, where it stopped; exit 1
    failed = dw.dwtcp_simulate_report(DW.replace(k=0.0), duration=2e-3, variant="sqrt-scout", delay=False)
    assert failed["status"] == "too_many_events" and "queue_mean" not in failed
    same(
        failed,
        cli_doc(
            capsys,
            "dwtcp",
            "simulate",
            "--duration",
            "2ms",
            "--variant",
            "sqrt-scout",
            "--no-delay",
            "--target",
            "0",
            code=1,
        ),
    )
    same(
        dw.dctcp_simulate_report(DctcpParams(flows=10), duration=2e-3),
        cli_doc(capsys, "dctcp", "simulate", "--duration", "2ms"),
    )


def test_limit_cycle_guide_hybrid(capsys):
    same(dw.limit_cycle_report(10.0, 1 / 16), cli_doc(capsys, "dctcp", "limit-cycle", "--wbar", "10"))
    same(
        dw.limit_cycle_report(physical=DctcpParams(flows=10)),
        cli_doc(capsys, "dctcp", "limit-cycle", "--capacity", "10Gbps"),
    )
    same(dw.hybrid_report(10.0, 1 / 16, 2), cli_doc(capsys, "dctcp", "hybrid", "--wstar", "10"))
    same(
        dw.guide_report(LinkParams("10Gbps", "100us"), 10),
        cli_doc(capsys, "dctcp", "guide", "--capacity", "10Gbps", "--rtt", "100us", "--flows", "10"),
    )


def test_phase_portraits(capsys, tmp_path):
    png = tmp_path / "p.png"
    same(
        dw.phase_dwtcp_report(DW, duration=5e-3, out=png),
        cli_doc(capsys, "phase", "dwtcp", "--out", str(png), "--duration", "5ms"),
    )
    same(
        dw.phase_dctcp_report(10.0, 1 / 16, duration=30.0, out=png),
        cli_doc(capsys, "phase", "dctcp", "--out", str(png), "--duration-rstar", "30"),
    )


def test_compare_fluid_dwtcp(capsys):
    """One tiny setting (N = 2, a 10-RTT packet window, one fluid model over 10 RTTs)."""
    lib = dw.compare_fluid_report("dwtcp", [2], models=("paper",), packet_rtts=10, fluid_rtts=10)
    cli = cli_doc(
        capsys, "packet", "compare-fluid", "--law", "dwtcp", "--flows", "2", "--models", "paper",
        "--packet-rtts", "10", "--fluid-rtts", "10",
    )  # fmt: skip
    same(lib, cli)


@pytest.mark.slow
def test_compare_fluid_dctcp_and_timely(capsys):
    same(
        dw.compare_fluid_report("dctcp", [2], duration=0.01),
        cli_doc(capsys, "packet", "compare-fluid", "--law", "dctcp", "--flows", "2", "--duration", "10ms"),
    )
    same(dw.compare_fluid_report("timely"), cli_doc(capsys, "packet", "compare-fluid", "--law", "timely"))


def test_every_json_command_is_accounted_for():
    """Every command with --json has a report function (REPORTS, each resolvable and on the package face) or is
    listed in NOT_YET with its reason."""
    import typer

    from dwtcp_fluid.cli import _load, app

    _load(["packet"])

    def walk(group: Any, path: tuple[str, ...] = ()) -> set[str]:
        out: set[str] = set()
        for name, cmd in getattr(group, "commands", {}).items():
            if hasattr(cmd, "commands"):
                out |= walk(cmd, (*path, name))
            elif any(getattr(p, "opts", [None])[0] == "--json" for p in cmd.params):
                out.add(" ".join((*path, name)))
        return out

    with_json = walk(typer.main.get_command(app))
    assert with_json == set(REPORTS) | set(NOT_YET), with_json ^ (set(REPORTS) | set(NOT_YET))
    assert not set(REPORTS) & set(NOT_YET)
    for module, fn in REPORTS.values():
        f = getattr(importlib.import_module(f"dwtcp_fluid.reports.{module}"), fn)
        assert getattr(dw, fn) is f


def _timeless(doc: dict[str, Any]) -> dict[str, Any]:
    """A tuning document without its wall-clock seconds (the one entry two identical runs do not share)."""
    return {k: v for k, v in json.loads(json.dumps(doc)).items() if k != "seconds"}


@pytest.mark.slow
def test_tune_dctcp_and_dwtcp(capsys):
    from dwtcp_fluid.analysis.tune import TuneRange

    rng = TuneRange("10Gbps", ("100us", "200us"), (2, 10), 2, "1500")  # parsed as the CLI parses them
    argv = ("--capacity", "10Gbps", "--rtt", "100us:200us", "--flows", "2:10", "--points", "2")
    cli = _timeless(cli_doc(capsys, "tune", "dctcp", *argv))
    assert _timeless(dw.tune_dctcp_report(rng)) == cli
    cli = _timeless(cli_doc(capsys, "tune", "dwtcp", *argv))
    assert _timeless(dw.tune_dwtcp_report(rng)) == cli


@pytest.mark.slow
def test_tune_human_tables_read_the_documents(capsys):
    """The human form prints from the same documents (K_packets, g, beta), not from the result objects."""
    argv = ("--capacity", "10Gbps", "--rtt", "100us:200us", "--flows", "2:10", "--points", "2")
    assert main(["tune", "dctcp", *argv]) == 0
    out = capsys.readouterr().out
    assert "K " in out and " packets" in out and "g " in out
    assert main(["tune", "dwtcp", *argv]) == 0
    assert "beta" in capsys.readouterr().out


def test_packet_run_single_link_two_laws_and_parking_lot(capsys):
    """packet run at a few ms of simulated time: DCTCP beside Reno on one link (their shared --g echoed once), TIMELY
    with a µs option (echoed with its unit), DCTCP on a parking lot."""
    same(
        dw.packet_run_report(["dctcp", "reno"], {"g": 0.125}, flows=2, duration=2e-3),
        cli_doc(
            capsys,
            "packet",
            "run",
            "--law",
            "dctcp,reno",
            "--flows",
            "2",
            "--duration",
            "2ms",
            "--g",
            "0.125",
        ),
    )
    noise = parse_time("5us")  # as the CLI parses it
    timely = dw.packet_run_report("timely", {"t_low": 60.0}, flows=2, duration=2e-3, rtt_noise=noise)
    cli = cli_doc(
        capsys, "packet", "run", "--law", "timely", "--flows", "2", "--duration", "2ms", "--t-low", "60",
        "--rtt-noise", "5us",
    )  # fmt: skip
    same(timely, cli)
    assert cli["t_low_us"] == 60.0 and cli["t_high_us"] == 500.0 and cli["rtt_noise_s"] == pytest.approx(5e-6)
    lot, chain = dw.run_packet_report(
        "dctcp", flows=1, duration=3e-3, topology="parking-lot:2", marking_threshold=30.0
    )
    argv = ("--topology", "parking-lot:2", "--flows", "1", "--duration", "3ms", "--marking-threshold", "30")
    same(lot, cli_doc(capsys, "packet", "run", *argv))
    assert lot["ports"] == ["hop 0", "hop 1"] and lot["routes"] == [[0, 1], [0], [1]]
    # the multi-port run's records as a Dataset: chunks of 1000 slots of 1.2 µs end every 1.2 ms (by hand); the
    # document's per-port mean queue is the mean over the chunks after the warm-up (the last half: chunk 1 on)
    ds = chain.to_dataset()
    assert ds["time"].attrs["units"] == "s" and ds["queue_mean"].attrs["units"] == "packets"
    assert ds["time"].values == pytest.approx([1.2e-3, 2.4e-3])
    assert list(ds["port"].values) == lot["ports"] and list(ds["group"].values) == [0, 1, 2]
    assert ds["queue_mean"][1:].mean("time").values == pytest.approx(lot["queue_mean"], rel=1e-6)


def test_packet_run_options_reach_the_law_and_the_dataset():
    """A law option in its flag's unit reaches the engine converted (60 µs at 10 Gbps, 1500 B: 60e-6 · 833333.3 =
    50 slots); an option no law of the run owns is refused by name; the run's data exports the records with a time
    coordinate in s that ends with the document's duration_s."""
    from dwtcp_fluid.reports.packet import plan_packet_run

    plan = plan_packet_run("timely", {"t_low": 60.0}, flows=1, duration=1e-3)
    assert float(plan.packet_run.scenario.law[0]["t_low"]) == pytest.approx(50.0, rel=1e-6)
    # a law object's switch and a converted option: β of the byte convention · √L for windows in packets (by hand)
    dw_plan = plan_packet_run(dw.packet_law("dwtcp", ipg=True), {"beta": 0.002}, flows=1, duration=1e-3)
    assert dw_plan.echo["ipg"] is True and dw_plan.echo["beta"] == 0.002 and dw_plan.echo["target"] == 100.0
    assert float(dw_plan.packet_run.scenario.law[0]["beta_p"]) == pytest.approx(0.002 * 1500**0.5, rel=1e-6)
    with pytest.raises(ValueError, match=r"^beta=2\.0 is invalid"):
        plan_packet_run("dwtcp", {"beta": 2.0}, flows=1, duration=1e-3)
    with pytest.raises(ValueError, match=r"^t_low=60\.0 is invalid: accepted only with law timely"):
        plan_packet_run("dctcp", {"t_low": 60.0}, flows=1, duration=1e-3)
    doc, data = dw.run_packet_report("dctcp", flows=2, duration=2e-3)
    ds = data.to_dataset()
    assert ds["time"].attrs["units"] == "s" and ds["queue"].attrs["units"] == "packets"
    assert float(ds["time"][-1]) == pytest.approx(doc["duration_s"], rel=1e-12)
    assert ds.attrs["summary_queue_mean"] == doc["queue_mean"] and ds.attrs["slot_s"] == doc["slot_s"]


def test_packet_scenario_is_packet_run_at_its_settings(capsys):
    """packet scenario's document is the library's; its run is packet run at the scenario's settings
    ([DCTCP-A]'s analysis setting: 10 Gbps, 100 µs, K = 65, g = 1/16, N = 2, 30 ms quick): the same summary and
    the same link echo (C = 1e10 / (1500 · 8) packets/s)."""
    lib = dw.packet_scenario_report("dctcp-analysis-n2", quick=True)
    same(lib, cli_doc(capsys, "packet", "scenario", "dctcp-analysis-n2", "--quick"))
    (sc,) = lib["runs"]
    assert sc["capacity_pps"] == pytest.approx(1e10 / 12000) and sc["rtt_s"] == pytest.approx(1e-4)
    assert sc["marking_threshold"] == 65.0 and sc["rtt_noise_s"] == 0.0 and sc["rtt_noise_dist"] is None
    run = dw.packet_run_report("dctcp", flows=2, duration=0.03)
    assert run["g"] == 1 / 16
    assert {k: run[k] for k in sc} == sc
