"""A damaged sweep store never yields a wrong dataset: every chunk is verified on resume, and deleted, truncated,
bit-flipped, swapped or misplaced chunks are reported one line each and recomputed (or refused), so the resumed
dataset equals an uninterrupted run's bit for bit. Two sweeps into one output never interleave."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from dwtcp_fluid.sweep import SweepGrid, run_sweep
from dwtcp_fluid.sweep.integrity import StoreDamagedError

GRID = SweepGrid(beta=(0.001, 0.01), bdp=np.geomspace(10, 1e4, 7), flows=(1, 10), kbar_ratio=(0.1, 1.0, 10.0))


def _same(a: xr.Dataset, b: xr.Dataset) -> None:
    assert set(a.data_vars) == set(b.data_vars)
    for v in a.data_vars:
        assert np.array_equal(a[v].values, b[v].values, equal_nan=a[v].dtype.kind == "f"), v


def _chunk(store: Path, var: str, ib: int, c: int) -> Path:
    (f,) = [p for p in (store / var / "c" / str(ib) / str(c)).rglob("*") if p.is_file()]
    return f


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run (in memory: no store involved at all) and a complete store to damage."""
    base = tmp_path_factory.mktemp("ref") / "s.zarr"
    run_sweep(GRID, store=base)
    return run_sweep(GRID), base


def _damage(kind: str, store: Path) -> set[tuple[int, int]]:
    """Damage ``store`` and return the chunks (ib, c) that must be reported."""
    if kind == "delete":
        _chunk(store, "kbar", 0, 1).unlink()
        return {(0, 1)}
    if kind == "truncate":
        f = _chunk(store, "eig_real", 1, 0)
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
        return {(1, 0)}
    if kind == "bitflip":
        f = _chunk(store, "jacobian", 1, 1)
        b = bytearray(f.read_bytes())
        b[len(b) // 2] ^= 0x10
        f.write_bytes(bytes(b))
        return {(1, 1)}
    if kind == "swap":  # two full chunks of another β: same size, both valid Zstd, different numbers
        a, b = _chunk(store, "kbar", 0, 0), _chunk(store, "kbar", 1, 0)
        da, db = a.read_bytes(), b.read_bytes()
        a.write_bytes(db)
        b.write_bytes(da)
        return {(0, 0), (1, 0)}
    if kind == "misplaced":  # data and records swapped together: the records name the other grid position
        for var in [p.name for p in store.iterdir() if (p / "c").is_dir() and p.name != "done"]:
            a, b = _chunk(store, var, 0, 0), _chunk(store, var, 1, 0)
            da, db = a.read_bytes(), b.read_bytes()
            a.write_bytes(db)
            b.write_bytes(da)
        ra, rb = store / "integrity" / "0_0.json", store / "integrity" / "1_0.json"
        ta, tb = ra.read_text(), rb.read_text()
        ra.write_text(tb)
        rb.write_text(ta)
        return {(0, 0), (1, 0)}
    if kind == "record":
        (store / "integrity" / "0_1.json").unlink()
        return {(0, 1)}
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["delete", "truncate", "bitflip", "swap", "misplaced", "record"])
def test_damaged_store_is_reported_and_recomputed(reference, tmp_path, kind):
    truth, base = reference
    store = tmp_path / "s.zarr"
    shutil.copytree(base, store)
    expected = _damage(kind, store)
    lines: list[str] = []
    ds = run_sweep(GRID, store=store, resume=True, report=lines.append)
    _same(ds, truth)
    assert len(lines) == len(expected), lines
    for ib, c in expected:
        assert any(line.startswith(f"chunk ({ib}, {c})") and "recomputed" in line for line in lines), lines
    # and the repaired store verifies clean
    again: list[str] = []
    _same(run_sweep(GRID, store=store, resume=True, report=again.append), truth)
    assert again == []


def test_damage_can_be_refused_without_changing_the_store(reference, tmp_path):
    _, base = reference
    store = tmp_path / "s.zarr"
    shutil.copytree(base, store)
    _damage("bitflip", store)
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()}
    with pytest.raises(StoreDamagedError, match="1 of 4 completed chunks"):
        run_sweep(GRID, store=store, resume=True, repair=False)
    assert {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} == before


def test_an_intact_store_is_untouched_on_resume(reference, tmp_path):
    truth, base = reference
    store = tmp_path / "s.zarr"
    shutil.copytree(base, store)
    lines: list[str] = []
    _same(run_sweep(GRID, store=store, resume=True, report=lines.append), truth)
    assert lines == []


ROOT = Path(__file__).resolve().parents[1]
ARGS = [
    "sweep",
    "--beta",
    "0.001,0.01",
    "--bdp",
    "10:10000:30log",
    "--flows",
    "1,10",
    "--kbar-ratio",
    "0.1,1,10",
]
ARGS += ["--frozen-only", "--no-figure", "--json"]


def _cli(*extra: str) -> subprocess.Popen:
    exe = str(Path(sys.executable).with_name("dwtcp-fluid"))
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.Popen(
        [exe, *ARGS, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )


def _cli_store(nc: Path) -> Path:
    """The store the CLI sweep of ARGS keeps while work remains (a finished run removes it): rebuilt complete here
    by the library, with the CLI's plan, under the CLI's name."""
    from dwtcp_fluid.sweep.run import FROZEN, make_plan

    grid = SweepGrid(
        beta=(0.001, 0.01), bdp=np.geomspace(10, 1e4, 30), flows=(1, 10), kbar_ratio=(0.1, 1, 10)
    )
    store = nc.with_suffix(".zarr")
    run_sweep(grid, plan=make_plan(grid, (FROZEN,)), store=store)
    return store


def test_cli_resume_reports_one_line_per_damaged_chunk(tmp_path):
    first = _cli("--out", str(tmp_path))
    assert first.wait(300) == 0, first.stderr.read()
    assert not list(tmp_path.glob("*.zarr"))  # a finished run leaves its results only
    (nc,) = tmp_path.glob("*.nc")
    truth = xr.load_dataset(nc, engine="h5netcdf")
    store = _cli_store(nc)
    _damage("swap", store)
    _chunk(store, "kbar", 1, 3).unlink()
    r = _cli("--out", str(tmp_path), "--resume", "--refuse-damaged")
    _, err = r.communicate(timeout=300)
    assert r.returncode == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("error: ") and "3 of 12 completed chunks" in lines[-1]
    r = _cli("--out", str(tmp_path), "--resume")
    _, err = r.communicate(timeout=300)
    assert r.returncode == 0, err
    reported = [line for line in err.splitlines() if line.startswith("resume: chunk")]
    assert len(reported) == 3 and all(line.endswith("recomputed") for line in reported)
    _same(xr.load_dataset(store.with_suffix(".nc"), engine="h5netcdf"), truth)


def test_two_sweeps_into_one_output_never_interleave(tmp_path):
    """While one process holds an output's lock (as a running sweep does), a second sweep into it is refused
    before touching anything — even with --force, which would otherwise replace the first one's store."""
    from dwtcp_fluid.sweep.integrity import output_lock

    first = _cli("--out", str(tmp_path))
    assert first.wait(300) == 0, first.stderr.read()
    assert not list(tmp_path.glob(".*.lock"))  # released and removed at the end
    (nc,) = tmp_path.glob("*.nc")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with output_lock(tmp_path / f".{nc.stem}.lock"):
        second = _cli("--out", str(tmp_path), "--force")
        _, err = second.communicate(timeout=300)
    assert second.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "--out" in err and "no other sweep is writing" in err and f"pid {os.getpid()}" in err
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_ctrl_c_keeps_complete_chunks_and_says_how_to_resume(tmp_path):
    """SIGINT after the first chunk: exit 130, one line naming the kept chunks and --resume; the lock is gone;
    --resume then completes to the uninterrupted dataset."""
    import signal
    import time

    run = _cli("--out", str(tmp_path))
    t0 = time.time()
    # the second chunk's record is written after the first chunk is complete and counted
    while time.time() - t0 < 240 and len(list(tmp_path.glob("*.zarr/integrity/*.json"))) < 2:
        time.sleep(0.02)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=300)
    if run.returncode == 0:
        pytest.skip("the sweep finished before the interrupt arrived")
    assert run.returncode == 130, err
    lines = err.strip().splitlines()
    assert (
        len(lines) == 1 and "interrupted" in lines[0] and "--resume" in lines[0] and "chunks kept" in lines[0]
    )
    assert not list(tmp_path.glob(".*.lock")) and not list(tmp_path.glob("*.nc"))
    resumed = _cli("--out", str(tmp_path), "--resume")
    assert resumed.wait(300) == 0, resumed.stderr.read()
    (nc,) = tmp_path.glob("*.nc")
    grid = SweepGrid(
        beta=(0.001, 0.01), bdp=np.geomspace(10, 1e4, 30), flows=(1, 10), kbar_ratio=(0.1, 1, 10)
    )
    _same(xr.load_dataset(nc, engine="h5netcdf"), run_sweep(grid))


def _layout_damage(kind: str, store: Path) -> None:
    """Damage that no chunk-by-chunk repair can mend: a variable's metadata, type or presence, or the done flags."""
    import json

    meta = store / "eig_real" / "zarr.json"
    if kind == "dtype":  # the variable now claims float32: a "repair" into it would write float32 results
        doc = json.loads(meta.read_text())
        doc["data_type"] = "float32"
        meta.write_text(json.dumps(doc))
    elif kind == "metadata":
        meta.write_text(meta.read_text()[: len(meta.read_text()) // 2])
    elif kind == "variable":
        shutil.rmtree(store / "kbar")
    elif kind == "done":
        f = store / "done" / "c" / "0" / "1"
        assert f.is_file()
        f.write_bytes(f.read_bytes()[:1])
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind", ["dtype", *(pytest.param(k, marks=pytest.mark.slow) for k in ("metadata", "variable", "done"))]
)
def test_damaged_layout_recreates_the_store_once(reference, tmp_path, kind):
    """A damaged variable or flag array is reported in one line and the store recreated: the resumed dataset is the
    uninterrupted one, types included (never float32 written as the result), and the next resume is clean (the
    same error never comes back)."""
    truth, base = reference
    store = tmp_path / "s.zarr"
    shutil.copytree(base, store)
    _layout_damage(kind, store)
    lines: list[str] = []
    ds = run_sweep(GRID, store=store, resume=True, report=lines.append)
    _same(ds, truth)
    assert {v: ds[v].dtype for v in ds.data_vars} == {v: truth[v].dtype for v in truth.data_vars}
    assert len(lines) == 1 and lines[0].startswith("store s.zarr: ") and "recreated" in lines[0], lines
    again: list[str] = []
    _same(run_sweep(GRID, store=store, resume=True, report=again.append), truth)
    assert again == []


def test_damaged_layout_can_be_refused(reference, tmp_path):
    _, base = reference
    store = tmp_path / "s.zarr"
    shutil.copytree(base, store)
    _layout_damage("dtype", store)
    with pytest.raises(StoreDamagedError, match="data type float32"):
        run_sweep(GRID, store=store, resume=True, repair=False)


@pytest.mark.parametrize("kind", ["truncate", "dtype", "variable"])
def test_packet_store_damage_is_repaired_not_looped(tmp_path, kind):
    """The packet pass's store (one chunk per variable): a truncated chunk, a changed type or a deleted variable is
    reported once and the store recreated with every point to recompute; opening it again is clean."""
    import json

    import zarr

    from dwtcp_fluid.sweep.outcomes_packet import empty_outcomes
    from dwtcp_fluid.sweep.packet_pass import _Store

    path = tmp_path / "s.packet.zarr"
    template = empty_outcomes(4)
    st = _Store(path, "sig", template, resume=False)
    values = {k: v.copy() for k, v in template.items()}
    values["packet_kbar_obs"][:] = [1.0, 2.0, 3.0, 4.0]
    st.write(np.arange(4), values)
    assert _Store(path, "sig", template, resume=True).done().all()  # intact: every point kept
    var = path / "packet_kbar_obs"
    if kind == "truncate":
        (f,) = [p for p in (var / "c").rglob("*") if p.is_file()]
        f.write_bytes(f.read_bytes()[:3])
    elif kind == "dtype":
        doc = json.loads((var / "zarr.json").read_text())
        doc["data_type"] = "float32"
        (var / "zarr.json").write_text(json.dumps(doc))
    else:
        shutil.rmtree(var)
    lines: list[str] = []
    st = _Store(path, "sig", template, resume=True, on_damage=lines.append)
    assert len(lines) == 1 and "recreated" in lines[0], lines
    assert not st.done().any()
    st.write(np.arange(4), values)  # writing into the recreated store works (it failed on every rerun before)
    again: list[str] = []
    st = _Store(path, "sig", template, resume=True, on_damage=again.append)
    assert again == [] and st.done().all()
    got = np.asarray(zarr.open_group(str(path), mode="r")["packet_kbar_obs"][...])
    assert got.dtype == np.float64 and list(got) == [1.0, 2.0, 3.0, 4.0]
