"""The judged sweep (dwtcp_fluid/sweep/study.py) on DCTCP's declaration: every point carries the verdict the DCTCP
cross-check gives when run on its own at that setting; the run class follows w̄ = (C·d + K)/N ([DCTCP-A] eq. (15));
an interrupted sweep resumes from its verified chunks to the same dataset; a damaged chunk is reported and
recomputed; bad input is one line, exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

from dwtcp_fluid.judge import run_check
from dwtcp_fluid.params import DctcpParams, LinkParams
from dwtcp_fluid.studies.dctcp.checks import CHECK
from dwtcp_fluid.studies.dctcp.checks_sweep import SWEEP
from dwtcp_fluid.sweep.study import JudgedGrid
from dwtcp_fluid.sweep.study_run import run_judged, summarize_judged

#: 1 Gbps, 100 µs (BDP 8.33 packets), 20 ms: 1,667 packet slots a point. K = 10 puts N = 10 at the fixed point
#: (w̄ = 1.83), K = 40 in the cycle (w̄ = 4.83).
FIXED = {"capacity": "1Gbps", "rtt": "100us", "duration": "20ms"}
GRID = JudgedGrid(SWEEP, {"K": [10, 40], "g": [1 / 16, 0.2]}, FIXED)


def _same(a: xr.Dataset, b: xr.Dataset) -> None:
    assert set(a.data_vars) == set(b.data_vars)
    for v in a.data_vars:
        assert np.array_equal(a[v].values, b[v].values, equal_nan=a[v].dtype.kind == "f"), v


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    return run_judged(GRID, tmp_path_factory.mktemp("judged") / "s.zarr")


def test_every_point_carries_the_checks_own_verdict(swept):
    """The 2×2 grid against the DCTCP check run directly on the same four settings (same seed): the same run class,
    outcome and measured values; the run class is the closed form w̄ = (C·d + K)/N ≤ 2."""
    ds = swept
    assert dict(ds.sizes) == {"K": 2, "g": 2, "flows": 1, "model": 2, "tolerance_name": 3}
    link = LinkParams("1Gbps", "100us")
    settings = [DctcpParams(link=link, flows=10, K=K, g=g) for K in (10.0, 40.0) for g in (1 / 16, 0.2)]
    rows = run_check(CHECK, settings, duration=0.02).rows
    outcomes = ds["outcome"].attrs["flag_meanings"].split()
    classes = ds["run_class"].attrs["flag_meanings"].split()
    for row, (iK, ig) in zip(rows, [(0, 0), (0, 1), (1, 0), (1, 1)], strict=True):
        at = {"K": iK, "g": ig, "flows": 0}
        wbar = (1e9 / 12000 * 100e-6 + row.setting.K) / 10
        assert classes[int(ds["run_class"][at])] == ("fixed_point" if wbar <= 2 else "cycle")
        assert outcomes[int(ds["outcome"][at])] == row.outcome
        assert bool(ds["agree"][at]) == row.agree
        v = row.verdicts["fluid_window"]
        for name, value in v.measured.items():
            got = float(ds["measured"].sel(model="fluid_window", tolerance_name=name)[at])
            assert got == pytest.approx(value, rel=1e-12, abs=1e-12), name
        assert float(ds["packet_queue_mean"][at]) == pytest.approx(
            row.packet["summary"]["queue_mean"], rel=1e-12
        )
    s = summarize_judged(ds)
    assert s["points"] == 4 and sum(c["points"] for c in s["by_run_class"].values()) == 4
    assert s["outcomes"]["agree"] == sum(r.outcome == "agree" for r in rows)


def test_interrupted_sweep_resumes_to_the_same_dataset(swept, tmp_path):
    """Interrupt after the first chunk; a rerun with resume keeps it (progress starts at 1 of 4) and computes the
    rest; a chunk altered on disk is reported in one line and recomputed; the result equals the uninterrupted run."""
    store = tmp_path / "s.zarr"

    def stop(done, total):
        if done >= 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_judged(GRID, store, progress=stop)
    seen: list[float] = []
    ds = run_judged(GRID, store, resume=True, progress=lambda d, t: seen.append(d))
    assert seen[0] == 1 and seen[-1] == 4
    _same(ds, swept)
    (f,) = [p for p in (store / "packet_queue_mean" / "c" / "0" / "0").rglob("*") if p.is_file()]
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0x10
    f.write_bytes(bytes(b))
    lines: list[str] = []
    _same(run_judged(GRID, store, resume=True, report=lines.append), swept)
    assert len(lines) == 1 and lines[0].startswith("chunk (0, 0)") and "recomputed" in lines[0], lines


def test_any_check_sweeps_and_a_failing_point_is_failed_not_agreement(tmp_path):
    """The engine names no protocol: a check whose sides are closed forms (packet x = a + b, fluid x = a + b + 0.5, or
    + 3 at (1, 20); |Δx| ≤ 1 stated) is swept over a × b; the point whose packet side raises is ``failed``, its chunk's
    other point kept; the measured |Δx| is the closed form's."""
    from dwtcp_fluid.bounds import Bound
    from dwtcp_fluid.judge import CrossCheck, Tolerance, Tolerances
    from dwtcp_fluid.sweep.study import Axis, Fixed, JudgedSweep

    def packet(s, seed=0, **_):
        if s == (2.0, 20.0):
            raise RuntimeError("the packet run failed")
        return {"x": s[0] + s[1]}

    def fluid(settings, packets, **_):
        return [{"m": {"x": a + b + (3.0 if (a, b) == (1.0, 20.0) else 0.5)}} for a, b in settings]

    check = CrossCheck("closed-form", "x agrees", (), packet, fluid, Tolerances(Tolerance("x", abs=1.0)))
    sweep = JudgedSweep(
        "closed-form", check, (Axis("a", "--a", "a", "1", Bound(0, 10), (1.0,)), Axis("b", "--b", "b", "1",
        Bound(0, 100), (10.0,))), (Fixed("unit", "--unit", "1"),), lambda p, f: (p["a"], p["b"]), lambda f: {},
        ("m",), ("scored",), (("x", "x", "1"),), (("x", "x", "1"),),
    )  # fmt: skip
    ds = run_judged(JudgedGrid(sweep, {"a": [1, 2], "b": [10, 20]}), tmp_path / "s.zarr")
    labels = ds["outcome"].attrs["flag_meanings"].split()
    got = [[labels[int(o)] for o in row] for row in ds["outcome"].values]
    assert got == [["agree", "disagree"], ["agree", "failed"]]
    assert ds["measured"].values[:, :, 0, 0].tolist()[0] == [0.5, 3.0]
    assert np.isnan(ds["packet_x"].values[1, 1]) and ds["packet_x"].values[1, 0] == 12.0
    assert summarize_judged(ds)["outcome_counts"] == {"agree": 2, "disagree": 1, "failed": 1}


@pytest.mark.parametrize(
    ("axes", "fixed", "word"),
    [
        ({"beta": [0.1]}, {}, "beta=[0.1] is invalid: not an axis of the dctcp sweep"),
        ({"g": [0.0, 0.1]}, {}, "g=0.0 is out of range"),
        ({"K": [10, 10]}, {}, "accepted distinct values"),
        ({}, {"duration": "1ms"}, "duration='1ms' is out of range"),
        ({}, {"capacity": "fast"}, "capacity"),
    ],
)
def test_bad_grid_names_the_parameter(axes, fixed, word):
    with pytest.raises(ValueError, match=word.replace("[", r"\[").replace("]", r"\]")):
        JudgedGrid(SWEEP, axes, fixed)


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["--law", "nope"], "--law 'nope' is invalid: accepted dwtcp | dcqcn | dctcp"),
        (["--law", "dctcp", "--beta", "0.1"], "--beta '0.1' is invalid: accepted the flags of --law dctcp"),
        (["--law", "dctcp", "--packet-buffer", "9"], "--packet-buffer 9 is invalid"),
        (["--g", "0.1"], "--g '0.1' is invalid: accepted the flags of --law dwtcp"),
        (["--law", "dctcp", "--marking-threshold", "10,10"], "--marking-threshold '10,10' is invalid"),
        (["--law", "dctcp", "--duration", "1ms"], "--duration '1ms' is invalid"),
    ],
)
def test_cli_refuses_in_one_line_before_any_work(argv, word, tmp_path, capsys):
    from dwtcp_fluid.cli import main

    assert main(["sweep", *argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and word in err[0], err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_cli_dask_and_in_process_write_the_same_numbers(tmp_path, capsys):
    """``--workers 2`` (a Dask LocalCluster) and the in-process engine: the same dataset; the JSON counts are the
    dataset's; the same command again reuses the finished result."""
    from dwtcp_fluid.cli import main

    argv = ["sweep", "--law", "dctcp", "--marking-threshold", "10,40", "--g", "0.0625,0.2", "--capacity", "1Gbps",
            "--duration", "20ms", "--json"]  # fmt: skip
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert main([*argv, "--out", str(tmp_path / "b"), "--workers", "2"]) == 0
    capsys.readouterr()
    (a,) = (tmp_path / "a").glob("sweep-dctcp-*.nc")
    (b,) = (tmp_path / "b").glob("sweep-dctcp-*.nc")
    assert a.name == b.name and not list((tmp_path / "a").glob("*.zarr"))
    da, db = xr.load_dataset(a, engine="h5netcdf"), xr.load_dataset(b, engine="h5netcdf")
    _same(da, db)
    assert doc["points"] == 4
    assert doc["outcomes"]["agree"] == int(da["agree"].sum())
    assert doc["dataset"] == str(a)
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0  # a second run reuses the finished result
    again = json.loads(capsys.readouterr().out)
    assert again["reused"] is True and again["outcomes"] == doc["outcomes"]
    # the same grid's result computed by other code is recomputed, and the run names that code
    ds = xr.load_dataset(a, engine="h5netcdf")
    ds.attrs.update(source_digest="0123456789abcdef", git_revision="f" * 40)
    ds.to_netcdf(a, engine="h5netcdf")
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    cap = capsys.readouterr()
    assert (
        not json.loads(cap.out).get("reused") and f"refreshing {a}: it was computed by other code" in cap.err
    )
    assert "git revision ffffffffffff" in cap.err and "sources 0123456789abcdef" in cap.err, cap.err
    assert xr.load_dataset(a, engine="h5netcdf").attrs["source_digest"] != "0123456789abcdef"


@pytest.mark.slow
def test_real_dctcp_grid_matches_the_cross_check_at_one_point(tmp_path):
    """K × g × N at the check's link (10 Gbps, 100 µs, 100 ms runs): every point is judged, and at the check's own
    setting (K = 65, g = 1/16, N = 10) the sweep's verdict is the one :func:`compare_dctcp` +
    :func:`within_tolerance` give when the check runs alone there. [DCTCP-A]'s analysis setting is documented to
    agree within the stated tolerances (N = 2, 10 at g = 1/16, d = 100 µs; studies/dctcp/checks.py)."""
    from dwtcp_fluid.params import DCTCP_ANALYSIS
    from dwtcp_fluid.studies.dctcp.checks import compare_dctcp, within_tolerance

    grid = JudgedGrid(SWEEP, {"K": [20, 65, 150], "g": [1 / 16, 0.2], "flows": [2, 10]})
    ds = run_judged(grid, tmp_path / "s.zarr")
    s = summarize_judged(ds)
    assert s["points"] == 12 and s["outcome_counts"].get("failed", 0) == 0
    outcomes = ds["outcome"].attrs["flag_meanings"].split()
    c = compare_dctcp(10, params=DCTCP_ANALYSIS)
    ok, _text = within_tolerance(c)
    at = {"K": 1, "g": 0, "flows": 1}
    assert bool(ds["agree"][at]) == ok
    assert outcomes[int(ds["outcome"][at])] == ("agree" if ok else "disagree")
    assert ok  # the documented agreement at the analysis setting
    assert bool(ds["agree"][{"K": 1, "g": 0, "flows": 0}])  # N = 2
    assert float(ds["packet_period_s"][at]) == pytest.approx(c["packet"]["period_s"], rel=1e-12)


@pytest.mark.slow
def test_hpcc_sweep_point_is_the_checks_own_setting(tmp_path):
    """HPCC's declaration: the point (η = 0.95, N = 10) at 25 Gbps, 50 µs, 150 RTTs is the check's setting
    ``n10-25g-50us``; the sweep's outcome and measured values are the check's when it runs that setting alone."""
    from dwtcp_fluid.studies.hpcc.checks import CHECK as HPCC
    from dwtcp_fluid.studies.hpcc.checks import SETTINGS
    from dwtcp_fluid.studies.hpcc.checks_sweep import SWEEP as HPCC_SWEEP

    grid = JudgedGrid(HPCC_SWEEP, {"eta": [0.95], "flows": [10]}, {"capacity": "25Gbps", "rtt": "50us"})
    ds = run_judged(grid, tmp_path / "s.zarr")
    (row,) = run_check(HPCC, [s for s in SETTINGS if s.name == "n10-25g-50us"]).rows
    at = {"eta": 0, "flows": 0}
    assert ds["outcome"].attrs["flag_meanings"].split()[int(ds["outcome"][at])] == row.outcome
    for name, value in row.verdicts["fluid"].measured.items():
        got = float(ds["measured"].sel(model="fluid", tolerance_name=name)[at])
        assert got == pytest.approx(value, rel=1e-12, abs=1e-12), name
