"""A packet run exports an xarray Dataset with a time coordinate and units (the result protocol's to_dataset)."""

from __future__ import annotations

import numpy as np

import dwtcp_fluid as dw
from dwtcp_fluid.packet.scenarios import build


def test_packet_run_to_dataset_has_time_and_units():
    pr = build("dctcp", flows=2, duration="5ms")
    out = dw.simulate_packets(pr)
    ds = dw.packet_dataset(pr, out)
    t = ds["time"].values
    assert ds["time"].attrs["units"] == "s" and np.all(np.diff(t) > 0)
    assert abs(t[-1] - pr.cfg.n_chunks * pr.cfg.chunk * pr.slot) < 1e-12  # the last chunk ends with the run
    assert ds["queue"].attrs["units"] == "packets" and ds["cwnd"].dims == ("time", "flow")
    # independent of the export: the summary's mean queue is the mean of the per-chunk means after the warm-up
    w = slice(pr.warmup_chunks, None)
    assert abs(float(ds["queue_mean"][w].mean()) - out["queue_mean"]) < 1e-6 * max(1.0, out["queue_mean"])
    assert 0.0 <= float(ds["utilization"].max()) <= 1.0 + 1e-9
    assert ds.attrs["summary_law"] == out["law"] and "git_dirty" in ds.attrs
