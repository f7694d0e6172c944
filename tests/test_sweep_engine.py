"""Sweep engine: in-memory, Zarr store in-process and Dask LocalCluster give identical results; an interrupted
sweep resumes to the same dataset; bad grids write nothing."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from dwtcp_fluid.sweep import SweepGrid, run_sweep

GRID = SweepGrid(beta=(0.001, 0.01), bdp=np.geomspace(10, 1e4, 7), flows=(1, 10), kbar_ratio=(0.1, 1.0, 10.0))


def _assert_identical(a: xr.Dataset, b: xr.Dataset) -> None:
    assert set(a.data_vars) == set(b.data_vars)
    for v in a.data_vars:
        assert np.array_equal(a[v].values, b[v].values, equal_nan=a[v].dtype.kind == "f"), v


def test_in_memory_store_and_local_cluster_identical(tmp_path):
    mem = run_sweep(GRID)
    inproc = run_sweep(GRID, store=tmp_path / "a.zarr")
    dask = run_sweep(GRID, store=tmp_path / "b.zarr", workers=2)
    _assert_identical(mem, inproc)
    _assert_identical(mem, dask)


ROOT = Path(__file__).resolve().parents[1]


def _cli(args, kill_after=None):
    exe = [str(Path(sys.executable).with_name("dwtcp-fluid"))]
    if kill_after is not None:  # the same CLI, SIGKILLed after that many chunk writes (tests/support)
        exe = [sys.executable, "-m", "tests.support.sweep_killed", str(kill_after)]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.run([*exe, *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


def test_kill_and_resume_gives_the_same_dataset(tmp_path):
    args = [
        "sweep",
        "--beta",
        "0.001,0.01",
        "--bdp",
        "10:10000:12log",
        "--flows",
        "1,10,100",
        "--kbar-ratio",
        "0.1:10:5log",
        "--no-figure",
        "--frozen-only",  # the engine logic is the same for every evaluator; full-plan identity: test_sweep_full
        "--json",
    ]
    killed = _cli(args + ["--out", str(tmp_path / "k")], kill_after=2)
    assert killed.returncode == -9  # SIGKILL: no cleanup ran
    (store,) = (tmp_path / "k").glob("sweep-beta0.001_0.01-*.zarr")
    import zarr

    done = np.asarray(zarr.open_group(str(store), mode="r")["done"][...])
    assert done.sum() == 2 and done.size == 2 * 3
    assert not store.with_suffix(".nc").exists()
    resumed = _cli(args + ["--out", str(tmp_path / "k"), "--resume"])
    assert resumed.returncode == 0, resumed.stderr
    full = _cli(args + ["--out", str(tmp_path / "f")])
    assert full.returncode == 0, full.stderr
    a = xr.load_dataset(store.with_suffix(".nc"), engine="h5netcdf")
    b = xr.load_dataset(tmp_path / "f" / store.with_suffix(".nc").name, engine="h5netcdf")
    _assert_identical(a, b)


def test_resume_with_another_grid_is_refused(tmp_path):
    run_sweep(GRID, store=tmp_path / "s.zarr")
    other = SweepGrid(bdp=(10.0, 20.0))
    with pytest.raises(ValueError, match="another grid"):
        run_sweep(other, store=tmp_path / "s.zarr", resume=True)


@pytest.mark.parametrize(
    "axes,msg",
    [
        ({"bdp": []}, "non-empty"),
        ({"bdp": [-10.0]}, "bdp=-10 is out of range"),
        ({"beta": [0.0]}, "beta=0 is out of range"),
        ({"beta": [-0.1]}, "beta=-0.1 is out of range"),
        ({"gamma": [1.0]}, "variable='gamma' is not a sweep variable"),
    ],
)
def test_bad_grids_write_nothing(tmp_path, axes, msg):
    with pytest.raises(ValueError, match=msg):
        run_sweep(SweepGrid.from_mapping(axes), store=tmp_path / "s.zarr")
    assert not list(tmp_path.iterdir())
