"""The hops × cross-flow load sweep: dataset layout and CF attributes, the agreement rule, resume, one point against
a direct run, and bad input."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import xarray as xr

import dwtcp_fluid.studies.networks.analysis_multihop_dde as mdde
import dwtcp_fluid.studies.networks.checks_sweep as net
from dwtcp_fluid.cli import main
from dwtcp_fluid.studies.networks.checks_multihop import TOLERANCES
from dwtcp_fluid.studies.networks.checks_sweep import (
    AGREEMENT,
    NetworkGrid,
    agreement,
    network_stem,
    run_network_sweep,
)


def _fake_packet(st):
    """A stand-in packet comparison whose numbers encode (hops, load): the test reads them back by position."""
    k, n = st.hops, st.n_cross
    return SimpleNamespace(
        run_class="stationary" if n == 1 else "not-stationary",
        long_share=0.1 * k + 0.01 * n,
        cross_share=0.5,
        queue_mean=np.full(k, 60.0),
        utilization=np.ones(k),
        fluid_long_share=1.0 / k,
        sync_long_share=2.0 / k,
    )


def _fake_fluid(hops, *, cross_flows, **kw):
    return SimpleNamespace(
        run_class="oscillating",
        long_share=0.1 * hops + 0.01 * cross_flows,
        cross_share=0.5,
        queue_mean=np.full(hops, 61.0),
        queue_std=np.ones(hops),
        utilization=np.ones(hops),
        desync=float(hops),
    )


@pytest.fixture
def fakes(monkeypatch):
    calls = []

    def packet(st):
        calls.append((st.hops, st.n_cross))
        return _fake_packet(st)

    monkeypatch.setattr(net, "compare_chain", packet)
    monkeypatch.setattr(mdde, "fluid_lot_run", _fake_fluid)
    return calls


def test_dataset_layout_attributes_and_agreement_rule(tmp_path, fakes):
    grid = NetworkGrid(np.array([2, 1]), np.array([1, 3]))
    ds = run_network_sweep(grid, tmp_path / "s.zarr")
    assert dict(ds.sizes) == {"hops": 2, "load": 2, "link": 2}
    assert ds["hops"].values.tolist() == [1, 2] and ds["load"].values.tolist() == [1, 3]
    # values land at their (hops, load) position; links beyond k are NaN
    np.testing.assert_allclose(ds["packet_long_share"].values, [[0.11, 0.13], [0.21, 0.23]])
    assert (
        np.isnan(ds["packet_queue_mean"].values[0, :, 1]).all() and (ds["fluid_queue_mean"][1] == 61.0).all()
    )
    np.testing.assert_array_equal(ds["mean_field_long_share"].values, [[1.0, 1.0], [0.5, 0.5]])
    # packet not stationary at load 3: never scored; load 1: equal shares and queues 1 packet apart agree
    assert [[AGREEMENT[v] for v in row] for row in ds["agreement"].values] == [["agree", "not_scored"]] * 2
    assert np.isnan(ds["long_share_rel_error"].values[:, 1]).all()
    for name in ("agreement", "fluid_class", "packet_class"):
        a = ds[name].attrs
        assert len(a["flag_values"]) == len(a["flag_meanings"].split()) and ds[name].dtype == np.int8
    for name, var in ds.data_vars.items():
        assert {"long_name", "units"} <= set(var.attrs), name
    assert ds.attrs["Conventions"] == "CF-1.10" and "[DCTCP-A]" in ds.attrs["references"]
    assert json.loads(ds.attrs["parameters"])["hops"] == [1, 2]
    from dwtcp_fluid.sweep.store import write_netcdf_atomic

    path = write_netcdf_atomic(ds, tmp_path / "s.nc")
    back = xr.open_dataset(path)
    assert back["agreement"].attrs["flag_meanings"] == " ".join(AGREEMENT)


def test_resume_keeps_verified_points(tmp_path, fakes):
    grid = NetworkGrid(np.array([1, 2]), np.array([1, 2]))
    run_network_sweep(grid, tmp_path / "s.zarr")
    assert len(fakes) == 4
    run_network_sweep(grid, tmp_path / "s.zarr", resume=True)
    assert len(fakes) == 4  # nothing recomputed


def test_agreement_thresholds_are_the_crosscheck_tolerances():
    pk = SimpleNamespace(run_class="stationary", long_share=0.2, cross_share=0.8, queue_mean=np.array([60.0]))
    tol = TOLERANCES["long_share_rel"].rel

    def fl(long, q=60.0, cls="steady"):
        return SimpleNamespace(run_class=cls, long_share=long, cross_share=0.8, queue_mean=np.array([q]))

    assert agreement(fl(0.2 * (1 + 0.99 * tol)), pk, 65.0)[0] == AGREEMENT.index("agree")
    assert agreement(fl(0.2 * (1 + 1.01 * tol)), pk, 65.0)[0] == AGREEMENT.index("disagree")
    assert agreement(fl(0.2, q=60 + 0.16 * 65), pk, 65.0)[0] == AGREEMENT.index("disagree")
    assert agreement(fl(0.2, cls="failed"), pk, 65.0)[0] == AGREEMENT.index("not_scored")


def test_stem_is_a_hash_of_the_whole_grid():
    a = NetworkGrid(np.array([1, 2]), np.array([1]))
    assert network_stem(a) == network_stem(NetworkGrid(np.array([2, 1]), np.array([1])))
    assert network_stem(a) != network_stem(NetworkGrid(np.array([1, 2]), np.array([1]), K=30.0))


@pytest.mark.parametrize(
    ("kw", "word"),
    [({"hops": [0, 1]}, "hops="), ({"load": [1.5]}, "load="), ({"hops": [1, 1]}, "hops="), ({"K": 0}, "K=")],
)
def test_bad_grid_names_the_parameter(kw, word):
    args = {"hops": np.array([1]), "load": np.array([1])} | {
        k: np.asarray(v) for k, v in kw.items() if k != "K"
    }
    with pytest.raises(ValueError, match=word):
        NetworkGrid(**args, **({"K": kw["K"]} if "K" in kw else {}))


@pytest.mark.parametrize(
    "extra",
    [
        ["--hops", "0:3"],
        ["--hops", "a"],
        ["--cross-load", "1,1"],
        ["--rtt-long", "200"],
        ["--duration", "1ms"],
        ["--marking-threshold", "0"],
    ],
)
def test_cli_bad_input_exits_2(extra, tmp_path, capsys):
    assert main(["dctcp", "network-sweep", "--out", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and extra[0] in err[0]
    assert not any(tmp_path.iterdir())


def test_a_sweep_estimated_over_the_budget_is_refused_up_front_naming_the_flags(tmp_path, capsys):
    """1536 points of 1-6 hops (about two days of fluid runs) without --yes: one line naming the flags that make
    the sweep smaller and --yes, exit 2, nothing written; the default grid (18 points) is estimated under 1 h."""
    from dwtcp_fluid.cli.limits import SOFT_SECONDS
    from dwtcp_fluid.studies.networks.cli_sweep import estimate

    assert (
        main(["dctcp", "network-sweep", "--hops", "1:6", "--cross-load", "1:256", "--out", str(tmp_path)])
        == 2
    )
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--hops × --cross-load × --duration" in line and "--yes" in line and "1536 points" in line, line
    assert not any(tmp_path.iterdir())
    seconds, nbytes = estimate(
        NetworkGrid(np.arange(1, 7), np.array([1, 2, 4])), 100e-6, 10e9 / 8 / 1500, 0.1
    )
    assert seconds < SOFT_SECONDS and nbytes < 2**30, (seconds, nbytes)


@pytest.mark.slow
def test_real_two_by_two_and_one_point_against_a_direct_run(tmp_path):
    from dwtcp_fluid.studies.networks.analysis_multihop_dde import fluid_lot_run
    from dwtcp_fluid.studies.networks.checks_multihop import compare_chain

    grid = NetworkGrid(np.array([1, 2]), np.array([1, 2]), duration="2ms")
    ds = run_network_sweep(grid, tmp_path / "s.zarr")
    assert dict(ds.sizes) == {"hops": 2, "load": 2, "link": 2}
    fl = fluid_lot_run(2, flows=1, cross_flows=2, duration=0.002)
    pk = compare_chain(grid.setting(1, 1))
    assert ds["fluid_long_share"].values[1, 1] == fl.long_share
    np.testing.assert_array_equal(ds["fluid_queue_mean"].values[1, 1], fl.queue_mean)
    assert ds["packet_long_share"].values[1, 1] == pk.long_share
    assert net.PACKET_CLASSES[int(ds["packet_class"].values[1, 1])] == pk.run_class


def test_run_topology_takes_one_base_rtt_per_group():
    from dwtcp_fluid.packet.multihop_run import run_topology

    with pytest.raises(ValueError, match="rtt="):
        run_topology("parking-lot:2", "dctcp", rtt=("200us", "100us"))  # 3 groups
