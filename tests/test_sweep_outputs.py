"""The sweep command's orchestrator as a library function (``dw.write_sweep``): it returns the document and the
dataset the command prints and writes, reuses its finished result on a second call, and an interrupt stops it in one
line saying what was kept, leaving no store and no empty directory behind."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import dwtcp_fluid as dw
from dwtcp_fluid.sweep.outputs import SweepStopped

GRID = dict(beta=(0.001,), bdp=(100.0,), flows=(10,), kbar_ratio=(0.5, 2.0))


@pytest.mark.slow
def test_write_sweep_returns_the_document_and_the_dataset_it_wrote_then_reuses_it(tmp_path):
    grid = dw.SweepGrid(**GRID)
    kept: list[list[str]] = []
    doc, ds = dw.write_sweep(grid, tmp_path, full=False, packet="none", figure=False, check=kept.append)
    on_disk = xr.load_dataset(doc["dataset"], engine="h5netcdf")
    for v in ds.data_vars:
        assert np.array_equal(ds[v].values, on_disk[v].values), v
    # k̄ = 0.5·k̄* satisfies (14), 2·k̄* does not: the frozen class agrees with the condition at both points
    assert doc["points"] == 2 and doc["agreement_rate"] == 1.0 and not doc["reused"]
    assert not list(tmp_path.glob("*.zarr"))  # the store served the run and is gone
    assert kept == [[], []]  # checked before the lock and under it; nothing of this sweep may exist yet
    again, ds2 = dw.write_sweep(grid, tmp_path, full=False, packet="none", figure=False, check=kept.append)
    assert again["reused"] and again["points"] == doc["points"] and again["dataset"] == doc["dataset"]
    assert len(kept[-1]) == 3  # the finished result may exist: it is reused, not refused


def test_an_interrupt_says_what_was_kept_and_leaves_nothing(tmp_path):
    out = tmp_path / "new"

    def interrupt(done: float, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(SweepStopped) as e:
        dw.write_sweep(dw.SweepGrid(**GRID), out, full=False, packet="none", figure=False, progress=interrupt)
    assert e.value.code == 130 and str(e.value) == "sweep interrupted: nothing was kept"
    assert not out.exists()  # the directory this run created, with nothing in it, is removed
