"""The sweep's packet pass: classification of deliberately built runs (collapse, slow start, too short), never
scored as agreement; batching does not change results; the dataset, summary and resume."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dwtcp_fluid.judge.classes import (
    PacketClass,
    oscillation_threshold,
    window_outcome,
)
from dwtcp_fluid.packet import build, run_many
from dwtcp_fluid.params import DwtcpParams, LinkParams
from dwtcp_fluid.sweep.outcomes_packet import NOT_RUN, packet_agreement, packet_outcomes
from dwtcp_fluid.sweep.packet_batch import PacketPassOptions, build_point, simulate
from dwtcp_fluid.sweep.predictors import REGIME

C = 10e9 / 8 / 1500  # 10 Gbps in 1500-byte packets/s


def _outcomes(bdp, flows, **opts):
    bdp = np.asarray(bdp, float)
    return packet_outcomes(
        np.full(bdp.size, 1e-3),
        bdp,
        np.asarray(flows, float),
        capacity_pps=C,
        options=PacketPassOptions(**opts),
    )


def test_collapse_is_classified_and_never_scored():
    # N = 1000 one-packet windows cannot fit BDP + buffer = 10 + 50 packets: the buffer, not DWTCP, sets the queue
    o = _outcomes([10.0], [1000], buffer=50)
    assert o["packet_class"][0] == PacketClass.COLLAPSE and not o["packet_scored"][0]
    assert o["packet_queue_mean"][0] >= 0.9 * 50 and o["packet_drops"][0] > 0
    arrays, summ = packet_agreement([1e-3], [10.0], [1000.0], o, capacity_pps=C, buffer=50.0)
    for name, s in summ.items():
        agrees = arrays[f"packet_{name.replace('-', '_')}_agrees"][0]
        if name == REGIME:  # a class predictor is scored at every classified run: it predicts the collapse
            assert s["scored"] == 1 and agrees, name
            continue
        assert s["scored"] == 0, name
        assert not agrees


def _slow_start_run(rtts: float):
    """A plain packet run from 10-packet windows at BDP = 1000, N = 2: several RTTs of slow start."""
    link = LinkParams(capacity="10Gbps", rtt=1000 / C, packet_size=1500)
    pr = build(
        "dwtcp",
        link=link,
        flows=2,
        dwtcp=DwtcpParams(link=link, flows=2, beta=1e-3, k=0.0),
        duration=rtts * 1000 / C,
        trace_points=int(8 * rtts),
    )
    (s,) = run_many([pr])
    return pr, s["records"]


def test_slow_start_run_is_not_stationary():
    # 4 RTTs from 10 packets: still in slow start (window doubles per RTT, link mostly idle)
    pr, rec = _slow_start_run(4.0)
    o = window_outcome(pr, rec, warmup_slots=0, min_rtts=50.0)
    assert o["cls"] == PacketClass.NOT_STATIONARY and o["window_rtts"] == pytest.approx(4.0, rel=1e-3)
    assert o["utilization"] < 0.5
    # even when the RTT rule is waived, the doubling window is a trend
    o1 = window_outcome(pr, rec, warmup_slots=0, min_rtts=1.0)
    assert o1["cls"] == PacketClass.NOT_STATIONARY and o1["trend"]
    # and a not-stationary run is never scored
    cls = np.array([int(o1["cls"])], dtype=np.int8)
    packet = {
        "packet_class": cls,
        "packet_scored": np.array([False]),
        "packet_kbar_obs": np.array([o1["queue_max"]]),
    }
    _, summ = packet_agreement([1e-3], [1000.0], [2.0], packet, capacity_pps=C)
    assert all(s["scored"] == 0 for s in summ.values())


def test_hand_checked_steady_point():
    # BDP = 10, N = 5: five windows of ~4.8 packets (ripple of about a packet per flow) and a standing queue near
    # N·w − BDP ≈ 14 packets, no loss; k̄_obs = the peak queue
    o = _outcomes([10.0], [5])
    assert o["packet_class"][0] == PacketClass.STEADY and o["packet_scored"][0]
    w = o["packet_window_mean"][0]
    assert 4.0 < w < 5.5
    assert abs(o["packet_queue_mean"][0] - (5 * w - 10.0)) < 3.0
    assert o["packet_drops"][0] == 0 and o["packet_conservation_error"][0] == 0
    assert o["packet_q_amplitude"][0] <= oscillation_threshold(5, 250)
    assert o["packet_kbar_obs"][0] >= o["packet_queue_mean"][0]


def _assert_same(a: dict, b: dict, i, j) -> None:
    for name in a:
        x, y = np.asarray(a[name])[i], np.asarray(b[name])[j]
        assert np.array_equal(x, y, equal_nan=np.asarray(x).dtype.kind == "f"), (name, i, x, y)


def test_pass_on_a_small_grid_equals_points_one_by_one():
    # a point's result depends on the point only: the pass over a small grid (one engine call per N, a shared ACK
    # look-ahead) equals each point run alone, bit for bit, and its records equal a plain packet run's
    bdp = np.array([10.0, 20.0, 40.0, 10.0, 30.0, 13.0])
    flows = np.array([2.0, 2.0, 2.0, 5.0, 5.0, 5.0])
    opts = PacketPassOptions(warmup_rtts=5.0, min_rtts=20.0)
    beta = np.full(bdp.size, 1e-3)
    rep: dict = {}
    together = packet_outcomes(beta, bdp, flows, capacity_pps=C, options=opts, report=rep)
    assert [b["points"] for b in rep["batches"]][:2] == [3, 3]  # one engine call per N in the first round
    for j in range(bdp.size):
        solo = packet_outcomes(
            beta[j : j + 1], bdp[j : j + 1], flows[j : j + 1], capacity_pps=C, options=opts
        )
        _assert_same(together, solo, j, 0)
    # the raised ring sizes only pick the compiled shape: records equal those of the point's own shape
    pr = build_point(1e-3, 10.0, 2, 20.0, capacity_pps=C, packet_size=1500.0, opts=opts)
    (ra,), (sb,) = simulate([pr]), run_many([pr])
    for k in sb["records"]:
        np.testing.assert_array_equal(ra[k], sb["records"][k], err_msg=k)


def test_agreement_counts_on_hand_made_outcomes():
    # two scored runs (steady, oscillating), one collapse, one not run; the condition predicts steady wherever
    # k̄_obs < k̄* (all four here), so it agrees at the steady point only and scores two points
    packet = {
        "packet_class": np.array([0, 1, 2, NOT_RUN], dtype=np.int8),
        "packet_scored": np.array([True, True, False, False]),
        "packet_kbar_obs": np.array([5.0, 50.0, 249.0, np.nan]),
    }
    arrays, summ = packet_agreement(
        np.full(4, 1e-3), np.full(4, 100.0), np.full(4, 10.0), packet, capacity_pps=C
    )
    c = summ["condition"]
    assert c["scored"] == 2 and c["agreement"] == 0.5 and c["predicts_steady_but_oscillates"] == 1
    assert list(arrays["packet_condition_agrees"]) == [True, False, False, False]
    # the delay-aware roots at k̄ ≪ BDP: unstable (k̄ < k̄_c ≈ BDP), i.e. they predict oscillation
    d = summ["delay-roots"]
    assert d["scored"] == 2 and d["predicts_oscillation_and_oscillates"] == 1


def test_sweep_packet_pass_dataset_summary_and_resume(tmp_path):
    import zarr

    from dwtcp_fluid.sweep import SweepGrid, run_sweep, summarize, write_netcdf_atomic
    from dwtcp_fluid.sweep.run import make_plan

    grid = SweepGrid(beta=(0.001,), bdp=(10.0, 30.0), flows=(2, 5), kbar_ratio=(1.0,))
    opts = PacketPassOptions(warmup_rtts=5.0, min_rtts=20.0)
    store = tmp_path / "s.zarr"
    calls: list[int] = []
    ds = run_sweep(
        grid,
        plan=make_plan(grid, "full"),
        store=store,
        packet="all",
        packet_options=opts,
        packet_progress=lambda d, t: calls.append(d),
    )
    assert calls and calls[-1] == 4
    assert ds["packet_class"].dims == ("beta", "bdp", "flows") and ds["packet_class"].dtype == np.int8
    assert "flag_meanings" in ds["packet_class"].attrs
    for v in ("packet_kbar_obs", "packet_utilization", "packet_condition_agrees", "packet_simplified_agrees"):
        assert "long_name" in ds[v].attrs and "units" in ds[v].attrs, v
    s = summarize(ds)["packet"]
    assert s["points"] == 4 and sum(s["class_counts"].values()) == 4
    # the Scout-faithful model predicts steady exactly where its closed-form regime criterion Φ(BDP/N) < 1
    # (ripple 1/4 and sawtooth 1/2 packets of the model, β_w = β·√L), written out here by hand
    bw = 1e-3 * np.sqrt(1500.0)
    for j, bdp in enumerate(grid.bdp):
        for m, n in enumerate(grid.flows):
            x = bdp / n
            phi = bw * (x + 0.25 + 0.5 * x / (x + 0.25)) ** 1.5 * (x + 0.25) / x
            assert bool(ds["packet_scout_faithful_predicts_steady"].values[0, j, m]) == (phi < 1), (
                bdp,
                n,
                phi,
            )
    assert ds[
        "packet_scout_faithful_predicts_steady"
    ].values.any()  # BDP 10, N = 2, 5 stand; BDP 30, N = 2 cycles
    assert not ds["packet_scout_faithful_predicts_steady"].values.all()
    assert s["agreement"]["scout-faithful"]["scored"] == s["scored"]
    # the split by verdict partitions the scored points; agreements = steady where predicted steady + not steady
    # where predicted not steady (scored points are steady or oscillating)
    a = s["agreement"]["scout-faithful"]
    st, ns = a["by_verdict"]["steady"], a["by_verdict"]["not_steady"]
    assert st["scored"] + ns["scored"] == a["scored"] and st["scored"] > 0 and ns["scored"] > 0
    agrees = st["packet_steady"] + ns["scored"] - ns["packet_steady"]
    assert agrees == pytest.approx(a["agreement"] * a["scored"], abs=1e-9)
    back = write_netcdf_atomic(ds, tmp_path / "s.nc")
    import xarray as xr

    rt = xr.load_dataset(back, engine="h5netcdf")
    np.testing.assert_array_equal(rt["packet_class"].values, ds["packet_class"].values)
    # resume with every point done: no packet run at all, same numbers
    calls.clear()
    again = run_sweep(
        grid,
        plan=make_plan(grid, "full"),
        store=store,
        resume=True,
        packet="all",
        packet_options=opts,
        packet_progress=lambda d, t: calls.append(d),
    )
    assert calls == []
    # an interrupted pass: two points not done; resume runs them only and gives the same dataset
    pstore = zarr.open_group(str(tmp_path / "s.packet.zarr"), mode="r+")
    done = pstore["done"][...]
    done[[1, 2]] = False
    pstore["done"][...] = done
    resumed = run_sweep(
        grid,
        plan=make_plan(grid, "full"),
        store=store,
        resume=True,
        packet="all",
        packet_options=opts,
        packet_progress=lambda d, t: calls.append(t),
    )
    assert calls and set(calls) == {2}
    names = [v for v in ds.data_vars if v.startswith("packet_")]
    for other in (again, resumed):
        _assert_same({v: ds[v].values for v in names}, {v: other[v].values for v in names}, ..., ...)
    # a stored value altered behind the store's back (one point): resume names it and recomputes that point only
    arr = pstore["packet_kbar_obs"][...]
    arr[3] = arr[3] + 1000.0
    pstore["packet_kbar_obs"][...] = arr
    calls.clear()
    lines: list[str] = []
    repaired = run_sweep(
        grid,
        plan=make_plan(grid, "full"),
        store=store,
        resume=True,
        packet="all",
        packet_options=opts,
        packet_progress=lambda d, t: calls.append(t),
        report=lines.append,
    )
    assert set(calls) == {1} and len(lines) == 1 and "1 of 4 points fail their checksum" in lines[0]
    _assert_same({v: ds[v].values for v in names}, {v: repaired[v].values for v in names}, ..., ...)
    # another option set is another pass: resuming it from this store is refused
    with pytest.raises(ValueError, match="another grid, sample or options"):
        run_sweep(
            grid,
            plan=make_plan(grid, "full"),
            store=store,
            resume=True,
            packet="all",
            packet_options=PacketPassOptions(buffer=100),
        )


def test_oscillating_run_has_a_period_that_fits():
    # N = 200 at BDP = 1000: 200 windows of ~6 packets overshoot BDP + buffer now and then; the queue swings between
    # near-empty and the buffer every few RTTs (measured on the default sweep: amplitude ≈ 70, period ≈ 6 RTTs)
    o = _outcomes([1000.0], [200])
    assert o["packet_class"][0] == PacketClass.OSCILLATING and o["packet_scored"][0]
    assert o["packet_q_amplitude"][0] > oscillation_threshold(200, 250)
    p = o["packet_period_rtts"][0]
    assert 2.0 < p < 30.0 and 3.0 * p <= o["packet_window_rtts"][0]


def test_a_dataset_with_the_former_predictor_names_is_read_under_the_current_ones():
    """A sweep written when the delayed fluid predictor was called "paper" (``packet_paper_*``,
    ``packet_paper_nodelay_*``) is read with its variables renamed to ``packet_simplified*`` and one warning line;
    its per-predictor agreement is then the same as a dataset written under the current names. A dataset carrying
    both spellings is refused in one line."""
    import warnings

    import xarray as xr

    from dwtcp_fluid.sweep.packet_pass import summarize_packet
    from dwtcp_fluid.sweep.predictors import migrate_names
    from dwtcp_fluid.sweep.result import SweepResult

    dims = ("beta", "bdp", "flows")
    rng = np.random.default_rng(3)
    base = {
        "packet_class": (dims, np.array([[[0, 1, 0, 2]]], dtype=np.int8)),
        "packet_scored": (dims, np.array([[[True, True, True, False]]])),
        "packet_kbar_obs": (dims, np.array([[[3.0, 40.0, 5.0, 250.0]]])),
        "packet_utilization": (dims, np.array([[[0.9, 1.0, 0.8, 1.0]]])),
        "packet_window_rtts": (dims, np.array([[[200.0, 200.0, 200.0, 50.0]]])),
        "packet_capped": (dims, np.zeros((1, 1, 4), dtype=bool)),
        "packet_flow_slots": (dims, np.full((1, 1, 4), 10)),
    }
    new, old = dict(base), dict(base)
    for key, old_key in (("simplified", "paper"), ("simplified_nodelay", "paper_nodelay")):
        for tail in ("_predicts_steady", "_defined", "_agrees"):
            v = (dims, rng.random((1, 1, 4)) < 0.5)
            new[f"packet_{key}{tail}"], old[f"packet_{old_key}{tail}"] = v, v
    ds_new, ds_old = xr.Dataset(new), xr.Dataset(old)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = SweepResult(ds_old).dataset
    assert len(seen) == 1 and "packet_simplified" in str(seen[0].message) and "\n" not in str(seen[0].message)
    assert sorted(got.data_vars) == sorted(ds_new.data_vars)
    a, b = summarize_packet(got)["agreement"], summarize_packet(ds_new)["agreement"]
    assert a["simplified"] == b["simplified"] and a["simplified-nodelay"] == b["simplified-nodelay"]
    assert a["simplified"] is not None
    with pytest.raises(ValueError, match="both the former and the current"):
        migrate_names(ds_old.merge(ds_new))


def test_the_packet_summary_shows_as_a_short_table_and_stays_a_dict():
    """``summary().packet`` in a notebook or a REPL is a few lines (classes, one row per predictor with its
    agreement and its verdicts against the packet runs), not one nested dict; its numbers stay a plain dict.
    The row is checked against counts made by hand from the four points below."""
    import json

    import xarray as xr
    from IPython.lib.pretty import pretty

    from dwtcp_fluid.sweep.packet_pass import summarize_packet

    dims = ("beta", "bdp", "flows")

    def v(*x, dtype=None):
        return dims, np.array([[list(x)]], dtype=dtype)

    ds = xr.Dataset(
        {
            "packet_class": v(0, 1, 0, 2, dtype=np.int8),  # steady, oscillating, steady, collapse
            "packet_scored": v(True, True, True, False),
            "packet_kbar_obs": v(3.0, 40.0, 5.0, 250.0),
            "packet_utilization": v(0.9, 1.0, 0.8, 1.0),
            "packet_window_rtts": v(200.0, 200.0, 200.0, 50.0),
            "packet_capped": v(False, False, False, False),
            "packet_flow_slots": v(10, 10, 10, 10),
            # the condition says steady at points 0 and 3, not steady at 1 and 2: right at 0 and 1, wrong at 2
            "packet_condition_predicts_steady": v(True, False, False, True),
            "packet_condition_defined": v(True, True, True, True),
            "packet_condition_agrees": v(True, True, False, False),
        }
    )
    s = summarize_packet(ds)
    text = repr(s)
    assert pretty(s) == text and "{" not in text and len(text.splitlines()) <= 16, text
    assert "4 points run (steady 2, oscillating 1, collapse 1, not stationary 0, failed 0), 3 scored" in text
    # scored 3, agreement 2/3; says steady: 1 scored point, steady; says not steady: 2 scored, 1 of them steady
    assert re.search(r"\n  condition\s+3\s+67 %\s+1/1\s+1/2\n", text), text
    assert re.search(r"\n  sqrt\s+—\s+not evaluated\s", text), text
    assert s["agreement"]["condition"]["scored"] == 3 and s["points"] == 4
    assert json.loads(json.dumps(s)) == dict(s)
