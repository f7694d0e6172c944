"""CLI: --json schemas, exit codes, one-line errors without traceback on bad input."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dwtcp_fluid.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_condition_json(capsys):
    code, out, err = run(
        capsys,
        "dwtcp",
        "condition",
        "--beta",
        "0.001",
        "--capacity",
        "10Gbps",
        "--rtt",
        "100us",
        "--flows",
        "10",
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert {"bdp_packets", "kbar_crit", "beta", "window_fair_share"} <= set(d)
    assert d["bdp_packets"] == pytest.approx(250 / 3)
    assert d["kbar_crit"] == pytest.approx(2 * (250 / 3) / 0.001**0.5)
    assert d["window_fair_share"] == pytest.approx(25 / 3)


def test_eigen_decrease_json(capsys):
    code, out, _ = run(capsys, "dwtcp", "eigen", "--phase", "decrease", "--kbar", "100", "--json")
    assert code == 0
    d = json.loads(out)
    assert {"jacobian", "eigenvalues", "classification"} <= set(d)
    assert d["classification"] == "spiral" and d["condition"] is True
    # Re λ = −β·k̄/(2·τ·BDP) = −0.001·100/(2·1e-4·83.33) = −6 s⁻¹ (eq. (11)).
    assert d["eigenvalues"][0][0] == pytest.approx(-6.0, rel=1e-12)
    code, out, _ = run(capsys, "dwtcp", "eigen", "--kbar", "1e6", "--json")
    assert json.loads(out)["classification"] == "node"


def test_eigen_increase_json(capsys):
    code, out, _ = run(capsys, "dwtcp", "eigen", "--phase", "increase", "--json")
    d = json.loads(out)
    assert code == 0 and d["eigenvalues"] == [[0.0, 0.0], [0.0, 0.0]] and d["classification"] == "nilpotent"
    assert d["jacobian"][1][0] == pytest.approx(10 / 1e-4) and d["jacobian"][0] == [0.0, 0.0]


def test_sweep_json_and_files(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "sweep",
        "--beta",
        "0.001,0.01",
        "--bdp",
        "10,100",
        "--flows",
        "1,10",
        "--kbar-ratio",
        "0.1:10:5log",
        "--out",
        str(tmp_path),
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["points"] == 2 * 2 * 2 * 5 and d["agreement_rate"] == 1.0
    assert Path(d["dataset"]).exists() and Path(d["figure"]).exists()
    # named by β and a hash of the configuration: not the default grid, so not the default grid's file name
    assert re.fullmatch(r"sweep-beta0\.001_0\.01-[0-9a-f]{8}\.nc", Path(d["dataset"]).name)
    stem = Path(d["dataset"]).stem
    # the full sweep: delayed fluid runs per (β, BDP, N), delay-aware roots per point, packet runs at every (β, BDP, N)
    assert d["fluid"]["delayed"]["runs"] == 2 * 2 * 2 and d["delay_roots"]["points"] == d["points"]
    assert d["packet"]["points"] == 2 * 2 * 2 and sum(d["packet"]["class_counts"].values()) == 8
    assert set(d["packet"]["agreement"]) >= {
        "condition",
        "frozen",
        "delay-roots",
        "simplified",
        "scout-faithful",
    }
    assert d["packet_cost"]["seconds"] > 0 and d["packet_cost"]["per_flows"]
    assert Path(d["figure"]).with_name(f"{stem}-outcomes.png").exists()
    assert Path(d["figure"]).with_name(f"{stem}-packet.png").exists()
    # every map it wrote is in the document, the condition map first
    maps = [str(tmp_path / f"{stem}{s}.png") for s in ("", "-outcomes", "-packet")]
    assert d["figures"] == maps and d["figure"] == maps[0]
    # a finished run leaves its results only; running it again (`make sweep` twice) reuses them: exit 0, same summary
    assert not list(tmp_path.glob("*.zarr")) and d["store"] is None and d["reused"] is False
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    args = ["--beta", "0.001,0.01", "--bdp", "10,100", "--flows", "1,10", "--kbar-ratio", "0.1:10:5log"]
    code, out, _ = run(capsys, "sweep", *args, "--out", str(tmp_path), "--json")
    again = json.loads(out)
    assert code == 0 and again["reused"] is True
    drop = {"reused", "seconds", "packet_seconds", "packet_cost", "inputs"}
    assert {k: v for k, v in again.items() if k not in drop} == {k: v for k, v in d.items() if k not in drop}
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    # a result written when the delayed fluid predictor was called "paper" is read under the current names
    import xarray as xr

    nc = Path(d["dataset"])
    ds = xr.load_dataset(nc, engine="h5netcdf")
    old = {
        v: v.replace("packet_simplified", "packet_paper") for v in ds.data_vars if "packet_simplified" in v
    }
    assert old
    ds.rename(old).to_netcdf(nc, engine="h5netcdf")
    code, out, err = run(capsys, "sweep", *args, "--out", str(tmp_path), "--json")
    assert code == 0 and err.count("warning:") == 1 and "packet_simplified" in err, err
    third = json.loads(out)
    assert {k: v for k, v in third.items() if k not in drop} == {k: v for k, v in d.items() if k not in drop}
    # the human form's closing line names every file of the result: the dataset and the three maps
    code, out, err = run(capsys, "sweep", *args, "--out", str(tmp_path))
    closing = out.strip().splitlines()[-1]
    assert code == 0 and closing.startswith("reused "), closing
    for f in (d["dataset"], *maps):
        assert f in closing, (f, closing)


def _package_digest() -> str:
    """The package's sources and data files hashed here (paths and bytes, sorted), as a result records them."""
    import hashlib

    import dwtcp_fluid

    root = Path(dwtcp_fluid.__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.suffix in (".py", ".csv") and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode() + p.read_bytes())
    return h.hexdigest()[:16]


def test_sweep_twice_reuses_this_codes_result_and_refreshes_another(capsys, tmp_path):
    """`make sweep` twice: the second run reuses the finished result and says which code computed it; a result
    under the same name from other code, or holding another grid (another version's defaults), is recomputed and
    the run says why, naming the code that computed it; exit 0 every time."""
    import xarray as xr

    argv = ["sweep", "--bdp", "100", "--flows", "10", "--kbar-ratio", "0.5,2", "--frozen-only", "--no-figure",
            "--out", str(tmp_path)]  # fmt: skip
    code, out, err = run(capsys, *argv)
    (nc,) = tmp_path.glob("*.nc")
    assert code == 0 and out.strip().splitlines()[-1].startswith(f"wrote {nc}")
    digest = _package_digest()
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert ds.attrs["source_digest"] == digest

    code, out, err = run(capsys, *argv)
    closing = out.strip().splitlines()[-1]
    assert code == 0 and closing.startswith(f"reused {nc} ") and f"sources {digest}" in closing, closing

    def rewrite(**attrs: str) -> None:
        ds = xr.load_dataset(nc, engine="h5netcdf")
        ds.attrs.update(attrs)
        ds.to_netcdf(nc, engine="h5netcdf")

    # the result of an older revision of the code: recomputed, and the run names that revision
    rewrite(source_digest="0123456789abcdef", git_revision="f" * 40, git_dirty="false")
    code, out, err = run(capsys, *argv)
    assert code == 0 and "reused" not in out and out.strip().splitlines()[-1].startswith(f"wrote {nc}"), out
    assert f"refreshing {nc}: it was computed by other code (git revision ffffffffffff" in err, err
    assert "sources 0123456789abcdef" in err and "this code: " in err and f"sources {digest})" in err, err
    with xr.open_dataset(nc, engine="h5netcdf") as ds:
        assert ds.attrs["source_digest"] == digest
    # another grid under this name (the defaults of another version): recomputed as well
    rewrite(sweep_config='{"grid": "another"}')
    code, out, err = run(capsys, *argv)
    assert code == 0 and out.strip().splitlines()[-1].startswith(f"wrote {nc}"), out
    assert f"refreshing {nc}: it holds another grid or other settings under this name" in err, err


BAD = [
    (["dwtcp", "condition", "--beta", "0"], "--beta"),
    (["dwtcp", "condition", "--beta", "-1"], "--beta"),
    (["dwtcp", "condition", "--beta", "2"], "--beta"),
    (["dwtcp", "condition", "--capacity", "10Gbs"], "--capacity"),
    (["dwtcp", "condition", "--capacity", "fast"], "--capacity"),
    (["dwtcp", "condition", "--rtt", "-1ms"], "--rtt"),
    (["dwtcp", "condition", "--rtt", ""], "--rtt"),
    (["dwtcp", "condition", "--flows", "0"], "--flows"),
    (["dwtcp", "condition", "--flows", "ten"], "--flows"),
    (["dwtcp", "condition", "--packet-size", "0"], "--packet-size"),
    (["dwtcp", "eigen", "--phase", "sideways"], "--phase"),
    (["dwtcp", "eigen", "--phase", "decrease"], "--kbar"),
    (["dwtcp", "eigen", "--kbar", "-3"], "--kbar"),
    (["dwtcp", "eigen", "--kbar", "3", "--variant", "cubic"], "--variant"),
    (["dwtcp", "eigen", "--kbar", "3", "--window", "0"], "--window"),
    (["sweep", "--bdp", "-10,100"], "--bdp"),
    (["sweep", "--bdp", ""], "--bdp"),
    (["sweep", "--beta", "0"], "--beta"),
    (["sweep", "--flows", "2.5"], "--flows"),
    (["sweep", "--kbar-ratio", "1:10:0log"], "--kbar-ratio"),
    (["sweep", "--kbar-ratio", "a,b"], "--kbar-ratio"),
    (["sweep", "--bogus", "1"], "--bogus"),
    (["figures", "--name", "no-such-figure"], "no-such-figure"),
]


@pytest.mark.parametrize("argv,flag", BAD)
def test_bad_input_exits_2_with_one_line(capsys, argv, flag, tmp_path):
    if argv[0] == "sweep":
        argv = argv + ["--out", str(tmp_path)]
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("argv", [["dwtcp", "condition", "--beta", "0"], ["sweep", "--bdp", "x"]])
def test_console_script_no_traceback(argv):
    exe = Path(sys.executable).with_name("dwtcp-fluid")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    r = subprocess.run([str(exe), *argv], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_failing_command_exit_status_propagates(capsys, tmp_path):
    # figures --check against an empty directory must fail (no committed images) with status 1, in one line.
    code, out, err = run(
        capsys, "figures", "--check", "--out", str(tmp_path), "--name", "dwtcp_condition_map", "--json"
    )
    assert code == 1 and json.loads(out)["ok"] is False
    assert len(err.strip().splitlines()) == 1 and str(tmp_path) in err
