"""Sweep: dataset structure, provenance, independence of the eigenvalues from the closed form, atomic writes."""

import json

import numpy as np
import pytest
import xarray as xr

from dwtcp_fluid.sweep import SweepGrid, run_sweep, summarize, write_netcdf_atomic


@pytest.fixture(scope="module")
def ds():
    grid = SweepGrid(
        beta=(0.001, 0.1), bdp=(10, 100, 1000), flows=(1, 7, 100), kbar_ratio=np.geomspace(0.1, 10, 9)
    )
    return run_sweep(grid)


def test_dims_coords_attrs(ds):
    assert dict(ds.sizes) == {"beta": 2, "bdp": 3, "flows": 3, "kbar_ratio": 9, "root": 2, "row": 2, "col": 2}
    for c in ("beta", "bdp", "flows", "kbar_ratio"):
        assert "units" in ds[c].attrs
    assert ds["bdp"].attrs["units"] == "packets"
    for key in ("package_version", "git_revision", "parameters", "solver", "tolerance", "created"):
        assert key in ds.attrs
    assert json.loads(ds.attrs["parameters"])["flows"] == [1, 7, 100]
    assert ds["eig_class"].attrs["flag_meanings"].split()[0] == "spiral"


def test_values_against_closed_forms(ds):
    # k̄* = 2·BDP/√β and Re λ = −β·k̄/(2τ·BDP) on the spiral side (eq. (11)); Im λ² = β/τ² − (Re λ)².
    kc = 2 * ds["bdp"] / np.sqrt(ds["beta"])
    np.testing.assert_allclose(ds["kbar_crit"], kc.transpose("beta", "bdp"), rtol=1e-14)
    spiral = ds["condition"] & ~ds["boundary"]
    tau = ds["tau"]
    re = -ds["beta"] * ds["kbar"] / (2 * tau * ds["bdp"])
    im = np.sqrt(np.maximum(ds["beta"] / tau**2 - re**2, 0))
    got_re = ds["eig_real"].isel(root=1).where(spiral)
    got_im = ds["eig_imag"].isel(root=1).where(spiral)
    np.testing.assert_allclose(got_re, re.where(spiral).transpose(*got_re.dims), rtol=1e-8)
    np.testing.assert_allclose(got_im, im.where(spiral).transpose(*got_im.dims), rtol=1e-8)


def test_summary(ds):
    s = summarize(ds)
    assert s["points"] == 2 * 3 * 3 * 9
    assert s["agreement_rate"] == 1.0 and s["disagreements"] == 0
    assert s["boundary_points"] == 2 * 3 * 3  # k̄/k̄* = 1 is on the log grid 0.1..10 with 9 points
    assert s["frozen_asymptotically_stable_fraction"] == 1.0
    assert s["eigenvalue_spread_over_flows"] < 1e-6


def test_netcdf_round_trip(ds, tmp_path):
    path = write_netcdf_atomic(ds, tmp_path / "s.nc")
    back = xr.load_dataset(path, engine="h5netcdf")
    xr.testing.assert_equal(back[["eig_real", "condition", "agree"]], ds[["eig_real", "condition", "agree"]])
    assert [p.name for p in tmp_path.iterdir()] == ["s.nc"]


def test_atomic_write_leaves_nothing_on_failure(ds, tmp_path, monkeypatch):
    target = tmp_path / "out.nc"
    target.write_bytes(b"previous complete file")

    import errno

    from dwtcp_fluid import atomic

    def full(fd):  # the encoded file is written, then the device refuses to sync it
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(atomic.WriteError, match="No space left"):
        write_netcdf_atomic(ds, target)
    assert target.read_bytes() == b"previous complete file"
    assert [p.name for p in tmp_path.iterdir()] == ["out.nc"]


@pytest.mark.parametrize(
    "kw,msg",
    [
        ({"bdp": ()}, "bdp=.* accepted a non-empty list"),
        ({"bdp": (-10, 100)}, "bdp=-10 is out of range: accepted 0.1 <= bdp"),
        ({"beta": (0.0,)}, "beta=0 is out of range"),
        ({"beta": (2.0,)}, "beta=2 is out of range"),
        ({"flows": (1.5,)}, "flows=1.5 is out of range: accepted integers"),
        ({"kbar_ratio": (1.0, 1.0)}, "distinct"),
        ({"capacity": "10Gbs"}, "capacity"),
    ],
)
def test_bad_grids(kw, msg):
    with pytest.raises(ValueError, match=msg):
        SweepGrid(**kw)
