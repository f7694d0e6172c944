"""A library function returns each command's JSON document: ``dwtcp-fluid <command> --json`` prints the header
(schema_version, package_version, command, inputs) and then exactly the dict of ``dw.<name>_report(...)`` at the same
inputs. Cheap inputs throughout; the packet cross-checks with the settings they need are marked slow.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

import dwtcp_fluid as dw
from dwtcp_fluid.cli import main
from dwtcp_fluid.numtext import compare
from dwtcp_fluid.params import DctcpParams, DwtcpParams, LinkParams
from dwtcp_fluid.reports import REPORTS
from dwtcp_fluid.symbolic.registry import checked
from dwtcp_fluid.units import parse_time

REPO = Path(__file__).resolve().parents[1]
REPO_FIGURES = REPO / "figures"
HEADER = ("schema_version", "package_version", "command", "inputs")

#: Commands with ``--json`` whose document is still built inside the CLI, and why (listed so that a new command
#: with --json cannot slip by: test_every_json_command_is_accounted_for).
NOT_YET: dict[str, str] = {}


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
        cli_doc(capsys, "phase", "dwtcp", "--plot", str(png), "--duration", "5ms"),
    )
    same(
        dw.phase_dctcp_report(10.0, 1 / 16, duration=30.0, out=png),
        cli_doc(capsys, "phase", "dctcp", "--plot", str(png), "--duration-rstar", "30"),
    )


def test_compare_fluid_dwtcp(capsys):
    """One tiny setting (N = 2, a 10-RTT packet window, one fluid model over 10 RTTs)."""
    lib = dw.compare_fluid_report("dwtcp", [2], models=("simplified",), packet_rtts=10, fluid_rtts=10)
    cli = cli_doc(
        capsys, "packet", "compare-fluid", "--law", "dwtcp", "--flows", "2", "--models", "simplified",
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


def _sweep_argv(out: Path, *extra: str) -> list[str]:
    return [
        "sweep",
        "--bdp",
        "100",
        "--flows",
        "10",
        "--kbar-ratio",
        "0.5,2",
        "--no-figure",
        "--out",
        str(out),
        *extra,
    ]


def _ran(doc: dict[str, Any]) -> dict[str, Any]:
    """What a sweep's dataset cannot know about its own run: where it was written and how long it took."""
    return {k: doc[k] for k in ("dataset", "store", "seconds")}


def test_sweep_report_of_a_run_and_of_its_netcdf(capsys, tmp_path):
    """A 2-point sweep (frozen Jacobian only): the CLI's document is the report of the same grid run in memory, and
    of the NetCDF the CLI wrote, read back; the condition's numbers are the closed form's."""
    import xarray as xr

    cli = cli_doc(capsys, *_sweep_argv(tmp_path, "--frozen-only"))
    assert cli["kbar_crit_over_bdp"] == {"0.001": pytest.approx(2 / 0.001**0.5)}  # eq. (14): k̄* = 2·BDP/√β
    # k̄/k̄* = 0.5 satisfies the condition and is a spiral, 2 fails it and is a node ([DWTCP] (14) with (8))
    assert cli["condition_true"] == 1 and cli["class_counts"] == {"spiral": 1, "node": 1}
    grid = dw.SweepGrid(beta=[0.001], bdp=[100], flows=[10], kbar_ratio=[0.5, 2])
    same(dw.sweep_report(dw.run_sweep(grid), **_ran(cli)), cli)
    with xr.open_dataset(cli["dataset"]) as ds:
        same(dw.sweep_report(ds, **_ran(cli)), cli)
    # the human form prints from the same document
    assert main(_sweep_argv(tmp_path / "human", "--frozen-only")) == 0
    assert "holds at 1 points; agreement with 'spiral' off the boundary: 100.00%" in capsys.readouterr().out


@pytest.mark.slow
def test_sweep_report_full(capsys, tmp_path):
    """The full evaluation (delayed fluid runs, delay-aware roots; no packet pass: tests/test_cli.py runs it)."""
    cli = cli_doc(capsys, *_sweep_argv(tmp_path, "--packet", "none"))
    assert {"fluid", "fluid_agreement", "delay_roots"} <= set(cli)
    grid = dw.SweepGrid(beta=[0.001], bdp=[100], flows=[10], kbar_ratio=[0.5, 2])
    same(dw.sweep_report(dw.run_sweep(grid, plan=dw.sweep_plan(grid, "full")), **_ran(cli)), cli)


def test_dctcp_network_chain_and_fabric(capsys):
    """A 2-hop parking lot and a 2×1 leaf-spine fabric, 3 ms of fluid each (the packet runs are test_multihop_packet's
    and test_leafspine's): CLI == library; on the chain the groups' shares through a link add up to its
    utilization (the rates are the link's arrivals)."""
    from dwtcp_fluid.params import LinkParams

    link = LinkParams("10Gbps", "100us")
    lib = dw.dctcp_network_report("parking-lot:2", link=link, duration=3e-3)
    same(lib, cli_doc(capsys, "dctcp", "network", "--duration", "3ms"))
    share, util = lib["fluid"]["group_share"], lib["fluid"]["utilization"]
    assert share[0] + share[1] == pytest.approx(util[0], rel=0.02) and share[0] + share[2] == pytest.approx(
        util[1], rel=0.02
    )
    same(
        dw.dctcp_network_report("leaf-spine:2x1", link=link, duration=3e-3),
        cli_doc(capsys, "dctcp", "network", "--topology", "leaf-spine:2x1", "--duration", "3ms"),
    )
    with pytest.raises(ValueError, match=r"flows=65 is out of range"):
        dw.dctcp_network_report("leaf-spine:2x1", flows=65)


@pytest.mark.slow
def test_dctcp_network_with_the_packet_core(capsys):
    """--packet on the chain and on the fabric (packet runs twice each: slow): CLI == library."""
    from dwtcp_fluid.params import LinkParams

    link = LinkParams("10Gbps", "100us")
    lib = dw.dctcp_network_report("parking-lot:2", link=link, duration=5e-3, packet=True)
    same(lib, cli_doc(capsys, "dctcp", "network", "--duration", "5ms", "--packet"))
    assert len(lib["packet"]["group_share"]) == 3
    lib = dw.dctcp_network_report("leaf-spine:2x1", link=link, duration=5e-3, packet=True)
    cli = cli_doc(capsys, "dctcp", "network", "--topology", "leaf-spine:2x1", "--duration", "5ms", "--packet")
    same(lib, cli)
    assert cli["packet"]["run_class"] and len(cli["packet"]["flow_share"]) == len(cli["routes"])


def test_network_sweep_report(capsys, tmp_path):
    """One point (1 hop, 1 cross flow, 2 ms): the CLI's document is the report of its NetCDF read back; one link
    shared by two flows of one RTT splits evenly in the fluid model."""
    import xarray as xr

    argv = ("--hops", "1", "--cross-load", "1", "--duration", "2ms", "--out", str(tmp_path / "cli"))
    cli = cli_doc(capsys, "dctcp", "network-sweep", *argv)
    assert cli["hops"] == [1] and cli["cross_load"] == [1] and cli["points"] == 1
    assert cli["fluid_long_share"][0][0] == pytest.approx(0.5, abs=0.02)
    ran = {k: cli[k] for k in ("dataset", "seconds")}
    with xr.open_dataset(cli["dataset"]) as ds:
        same(dw.network_sweep_report(ds, **ran), cli)


@pytest.mark.slow
def test_network_sweep_report_of_a_library_run(capsys, tmp_path):
    """The same point run by the library (a second fluid and packet run: slow) gives the CLI's document."""
    argv = ("--hops", "1", "--cross-load", "1", "--duration", "2ms", "--out", str(tmp_path / "cli"))
    cli = cli_doc(capsys, "dctcp", "network-sweep", *argv)
    grid = dw.NetworkGrid([1], [1], duration="2ms")
    ran = {k: cli[k] for k in ("dataset", "seconds")}
    same(dw.network_sweep_report(dw.run_network_sweep(grid, tmp_path / "lib.zarr"), **ran), cli)


def _unclocked(doc: dict[str, Any]) -> dict[str, Any]:
    """A figures document without each build's wall-clock seconds."""
    doc = json.loads(json.dumps(doc))
    for f in doc["figures"]:
        del f["seconds"]
    return doc


def test_figures_report_build_and_check(capsys, tmp_path):
    """One cheap figure built into one directory by the library and by the CLI: the same documents (build seconds
    aside); then checked against the committed image: it matches the rebuild, and the claims measure the same."""
    name = "dctcp_hybrid_convergence"
    lib = dw.figures_report(tmp_path, [name])
    cli = cli_doc(capsys, "figures", "--name", name, "--out", str(tmp_path))
    assert _unclocked(lib) == _unclocked(cli) and cli["ok"] and len(cli["figures"][0]["claims"]) >= 1
    assert cli["figures"][0]["image_ok"] is None and (tmp_path / f"{name}.png").is_file()
    svg = cli_doc(capsys, "figures", "--name", name, "--format", "svg", "--out", str(tmp_path))
    assert (
        svg["figures"][0]["path"] == str(tmp_path / f"{name}.svg")
        and svg["figures"][0]["claims"] == cli["figures"][0]["claims"]
    )
    assert (tmp_path / f"{name}.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    check = cli_doc(capsys, "figures", "--check", "--name", name, "--out", str(REPO_FIGURES))
    assert check["ok"] and check["figures"][0]["image_ok"] is True
    assert check["figures"][0]["claims"] == cli["figures"][0]["claims"]  # the same claims, measured the same


def test_proofs_report_write_and_check(capsys, tmp_path):
    """One cheap derivation written by the library and by the CLI into one directory: the same document, the file
    equal to the committed one (each computed number within its tolerance) and nothing else written (README.md and INDEX.md summarize every
    derivation); checked against the committed proofs/ by both: the same document; an edited copy fails naming
    the file."""
    name = "dctcp_rtt_fairness"
    lib = dw.proofs_report(tmp_path, [name])
    same(lib, cli_doc(capsys, "proofs", "--name", name, "--out", str(tmp_path)))
    assert [p.name for p in tmp_path.iterdir()] == lib["files"] == [f"{name}.md"]
    marked = checked([name])[1][f"{name}.md"]  # the rendering with each computed number's tolerance
    assert compare((tmp_path / f"{name}.md").read_text(encoding="utf-8"), marked) == []
    assert compare((REPO / "proofs" / f"{name}.md").read_text(encoding="utf-8"), marked) == []
    lib = dw.proofs_report(REPO / "proofs", [name], check=True)
    assert lib["ok"] and lib["problems"] == [] and lib["steps"] >= 1
    same(lib, cli_doc(capsys, "proofs", "--check", "--name", name, "--out", str(REPO / "proofs")))
    edited = tmp_path / f"{name}.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    doc = cli_doc(capsys, "proofs", "--check", "--name", name, "--out", str(tmp_path), code=1)
    assert doc["ok"] is False and len(doc["problems"]) == 1
    assert doc["problems"][0].startswith(
        f"{edited}: differs from the regenerated derivation, differs outside"
    )
    assert doc["problems"][0].endswith("(run `dwtcp-fluid proofs`)")
    same(dw.proofs_report(tmp_path, [name], check=True), doc)
    with pytest.raises(
        ValueError, match=r"derivation='nope' is not registered: accepted dwtcp_fluid_model \| "
    ):
        dw.proofs_report(tmp_path, ["nope"])
    assert main(["proofs", "--name", name, "--name", "nope", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(
        "error: --name 'nope' is invalid: accepted dwtcp_fluid_model | "
    )


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
        f = getattr(importlib.import_module(f"dwtcp_fluid.{module}"), fn)
        assert getattr(dw, fn) is f


def _timeless(doc: dict[str, Any]) -> dict[str, Any]:
    """A tuning document without its wall-clock seconds (the one entry two identical runs do not share)."""
    return {k: v for k, v in json.loads(json.dumps(doc)).items() if k != "seconds"}


#: The tune commands' small range, with one generous time budget: a budget derived from the first evaluation's
#: wall time could run out on one side only on a loaded machine.
TUNE_ARGV = (
    "--capacity",
    "10Gbps",
    "--rtt",
    "100us:200us",
    "--flows",
    "2:10",
    "--points",
    "2",
    "--max-seconds",
    "3600",
)


@pytest.mark.slow
def test_tune_dctcp_and_dwtcp(capsys):
    from dwtcp_fluid.studies.dctcp.tune import TuneRange

    rng = TuneRange("10Gbps", ("100us", "200us"), (2, 10), 2, "1500")  # parsed as the CLI parses them
    argv = TUNE_ARGV
    cli = _timeless(cli_doc(capsys, "tune", "dctcp", *argv))
    assert _timeless(dw.tune_dctcp_report(rng, max_seconds=3600.0)) == cli
    cli = _timeless(cli_doc(capsys, "tune", "dwtcp", *argv))
    assert _timeless(dw.tune_dwtcp_report(rng, max_seconds=3600.0)) == cli


@pytest.mark.slow
def test_tune_human_tables_read_the_documents(capsys):
    """The human form prints from the same documents (K_packets, g, beta), not from the result objects."""
    argv = TUNE_ARGV
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
        capsys, "packet", "run", "--law", "timely", "--flows", "2", "--duration", "2ms", "--t-low", "60us",
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
