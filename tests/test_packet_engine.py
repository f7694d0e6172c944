"""Engine-level checks of the packet core: conservation, seeds, vmap against one-by-one, closed forms, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dwtcp_fluid.packet import build, run, run_many
from dwtcp_fluid.packet.batch import run_batch, run_one, stack
from dwtcp_fluid.packet.scenarios import with_seed
from dwtcp_fluid.params import DCTCP_ANALYSIS


@pytest.mark.parametrize("law", ["reno", "dctcp", "dctcp-per-ack", "dwtcp"])
def test_conservation_with_drops_and_timeouts(law):
    # A 12-packet buffer for 8 flows forces drops (and, for Reno in slow start, whole-window losses).
    pr = build(law, flows=8, duration="4ms", buffer=12, K=6, debug=True, trace_points=40)
    out = run(pr)
    assert out["conservation_error"] == 0.0
    rec = out["records"]
    assert np.all(rec["residual"] == 0)
    # every packet sent was dropped, left the bottleneck (one per busy slot) or is queued
    sent, busy, drops = rec["sent"].sum(), rec["busy"].sum(), rec["drops"].sum()
    assert sent == busy + drops + rec["q_end"][-1]
    # and the senders saw an ACK or a loss for every packet except those still in flight
    lost = sent - rec["delivered"].sum() - rec["inflight_end"][-1].sum()
    assert 0 <= lost <= drops
    assert rec["q_max"].max() <= 12
    if law == "reno":
        assert out["drops"] > 0


def test_same_seed_same_result_other_seed_differs():
    pr = build("dctcp", flows=4, duration="3ms", trace_points=30)
    a, b = run_one(pr.cfg, pr.law, pr.scenario), run_one(pr.cfg, pr.law, pr.scenario)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    c = run_one(pr.cfg, pr.law, with_seed(pr, 7).scenario)
    assert any(not np.array_equal(a[k], c[k]) for k in ("delivered", "q_sum"))


def test_batch_equals_one_by_one_and_split():
    runs = [
        build("dctcp", flows=4, duration="3ms", trace_points=30, seed=s, K=k)
        for s, k in ((0, 65), (1, 10), (2, 30))
    ]
    rec = run_batch(runs[0].cfg, runs[0].law, stack([r.scenario for r in runs]))
    for i, r in enumerate(runs):
        one = run_one(r.cfg, r.law, r.scenario)
        for k in one:
            np.testing.assert_array_equal(rec[k][i], one[k], err_msg=k)
    split = run_batch(runs[0].cfg, runs[0].law, stack([r.scenario for r in runs]), max_batch=2)
    for k in rec:
        np.testing.assert_array_equal(split[k], rec[k], err_msg=k)
    summaries = run_many(runs)
    assert [s["queue_mean"] for s in summaries] == [run(r)["queue_mean"] for r in runs]


def test_single_flow_ack_clock_fills_the_pipe():
    # One Reno flow, ECN off in effect (K beyond the buffer), buffer 1000: after slow start the window exceeds the
    # BDP and the link is fully used; the queue is cwnd − BDP (ACK clocking).
    pr = build("reno", flows=1, duration="2ms", K=10_000, buffer=1000, trace_points=20, start_jitter=False)
    out = run(pr)
    assert out["utilization"] == pytest.approx(1.0)
    rec = out["records"]
    bdp = int(pr.scenario.rtt[0])
    # At the end of each chunk: inflight = queue + packets on the way back (= BDP once the link is busy).
    late = slice(10, None)
    np.testing.assert_allclose(rec["inflight_end"][late, 0] - rec["q_end"][late], bdp, atol=1)


def test_dctcp_n100_queue_matches_fixed_point():
    """w̄ = (Cd + K)/N ≤ 2: fluid fixed point q = 2N − C·d ([DCTCP-A] eq. (15))."""
    d = DCTCP_ANALYSIS.replace(flows=100)
    out = run(build("dctcp", dctcp=d, flows=100, duration="12ms", trace_points=40))
    assert d.wbar <= 2
    assert out["queue_mean"] == pytest.approx(d.fixed_point_queue, abs=3.0)
    assert out["window_mean"] == pytest.approx(2.0, abs=0.1)
    assert out["alpha_mean"] == pytest.approx(1.0, abs=0.05)


def test_dwtcp_sends_and_serves_scouts_only_in_idle_slots():
    pr = build("dwtcp", flows=2, duration="6ms", trace_points=10**6)  # one chunk per slot
    rec = run(pr)["records"]
    served, busy = rec["scouts_served"], rec["busy"]
    assert served.sum() > 0 and rec["scouts_sent"].sum() > 0
    assert np.all(served[busy > 0] == 0)  # a slot carries a data packet or Scouts, never both
    assert served.max() <= pr.cfg.scouts_per_slot


def test_build_rejects_bad_values():
    with pytest.raises(ValueError, match="access"):
        build("dctcp", access=1.5)
    with pytest.raises(ValueError, match="rtts"):
        build("dctcp", flows=3, rtts=["100us", "200us"])
    with pytest.raises(ValueError, match="law="):
        build("vegas")


def test_cli_packet_run_json(capsys):
    from dwtcp_fluid.cli import main

    assert main(["packet", "run", "--law", "dctcp", "--flows", "4", "--duration", "3ms", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for k in (
        "queue_mean",
        "queue_min",
        "queue_max",
        "utilization",
        "jain_index",
        "drops",
        "scout_overhead",
        "window_mean",
        "alpha_mean",
    ):
        assert k in out
    assert 0.0 < out["utilization"] <= 1.0 and out["alpha_mean"] is not None


def test_cli_packet_run_usage_error(capsys):
    from dwtcp_fluid.cli import main

    assert main(["packet", "run", "--law", "bbr", "--json"]) == 2
    err = capsys.readouterr().err
    assert "--law" in err and "Traceback" not in err


def test_whole_window_losses_time_out_and_conserve():
    # 30 Reno flows into an 8-packet buffer: some flows lose every packet in flight, so no later delivery can
    # report the loss and only the retransmission timeout recovers them.
    out = run(build("reno", flows=30, duration="6ms", buffer=8, K=1000, debug=True, trace_points=40))
    assert out["timeouts"] > 0 and out["drops"] > 0
    assert out["conservation_error"] == 0.0
    assert out["utilization"] > 0.9


def test_dwtcp_ipg_variant_runs_through_engine_and_cli(capsys):
    """The inter-packet-gap variant (after Algorithm 1 of [DWTCP]) wired end to end: it conserves
    packets, keeps the link busy and takes different decisions from (1) on the same scenario."""
    from dwtcp_fluid.cli import main
    from dwtcp_fluid.packet.laws import Dwtcp

    kw = dict(flows=4, duration="8ms", debug=True, trace_points=40)
    a, b = run(build(Dwtcp(ipg=True), **kw)), run(build("dwtcp", **kw))
    for out in (a, b):
        assert out["conservation_error"] == 0.0 and np.all(out["records"]["residual"] == 0)
        assert out["utilization"] > 0.9 and out["drops"] == 0
    assert not np.array_equal(a["records"]["cwnd_end"], b["records"]["cwnd_end"])
    assert (
        main(["packet", "run", "--law", "dwtcp", "--ipg", "--flows", "2", "--duration", "3ms", "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["ipg"] is True
    assert main(["packet", "run", "--law", "dctcp", "--ipg", "--json"]) == 2
    err = capsys.readouterr().err
    assert "--ipg" in err and "Traceback" not in err


def test_slot_loop_is_one_kernel_and_shapes_are_bucketed():
    """The compiled run is one native kernel (XLA's small-loop pass, set per compile by the packet core), and runs
    that differ only in length, buffer, K, seed or a flow count in the same power-of-two bucket reuse it."""
    from dwtcp_fluid.packet import calls, engine
    from dwtcp_fluid.packet.xla import hoisting_active

    a = build("dctcp", flows=5, duration="2ms", trace_points=20)
    run(a, engine="jax")
    key_a = engine.spec_for(a.cfg, a.engine_laws, stack([a.scenario]))
    fns = [fn for k, fn in calls._COMPILED.items() if k[0] == key_a]
    assert fns and all(hoisting_active(fn) for fn in fns)
    n = len(calls._COMPILED)
    b = build("dctcp", flows=7, duration="3ms", trace_points=20, buffer=200, K=30, seed=4)
    assert engine.spec_for(b.cfg, b.engine_laws, stack([b.scenario])) == key_a
    run_many([a, b], engine="jax")
    assert len(calls._COMPILED) == n


def test_compile_cache_round_trip(tmp_path, monkeypatch):
    """A compiled program stored in the persistent cache loads in a fresh in-process cache and gives the same
    records; a corrupt entry is recompiled (the cache is only an optimisation)."""
    from dwtcp_fluid.packet import calls as engine

    monkeypatch.setenv("DWTCP_FLUID_CACHE_DIR", str(tmp_path))
    pr = build("reno", flows=3, duration="1ms", trace_points=5, buffer=77)
    first = run(pr, engine="jax")["records"]
    assert list(tmp_path.glob("*.bin"))
    engine._COMPILED.clear()
    again = run(pr, engine="jax")["records"]
    for k in first:
        np.testing.assert_array_equal(first[k], again[k], err_msg=k)
    for p in tmp_path.glob("*.bin"):
        p.write_bytes(b"not a program")
    engine._COMPILED.clear()
    np.testing.assert_array_equal(run(pr, engine="jax")["records"]["delivered"], first["delivered"])


def test_worker_processes_give_the_same_records(monkeypatch):
    """A batch split across worker processes gives bit-identical records to one process (one program per spec)."""
    from dwtcp_fluid.packet import batch, engine

    runs = [build("dctcp", flows=3, duration="2ms", seed=i, trace_points=10) for i in range(3)]
    spec = engine.spec_for(runs[0].cfg, runs[0].engine_laws, stack([runs[0].scenario]))
    scens = [engine.prepare(spec, r.scenario) for r in runs]
    monkeypatch.setattr(batch, "PROCESS_MIN_SLOTS", 0)
    one = batch.run_prepared(spec, scens, workers=1, engine="jax")
    two = batch.run_prepared(spec, scens, workers=2, engine="jax")
    for a, b in zip(one, two, strict=True):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)


_PINNED_RUN = """
import json
from dwtcp_fluid.packet import build
from dwtcp_fluid.packet.batch import run_one
pr = build("dctcp", flows=4, duration="3ms", trace_points=30)
recs = [run_one(pr.cfg, pr.law, pr.scenario, engine="jax") for _ in range(2)]
print(json.dumps([{k: r[k].tolist() for k in ("delivered", "q_sum", "cwnd_end")} for r in recs]))
"""


def test_compile_options_are_pinned_against_xla_flags():
    """XLA_FLAGS turning on region-analysis copy insertion (which miscompiles the slot loop: without the pin, two
    runs of this scenario differ) leaves the packet core's records bit-identical to a run with default flags."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, XLA_FLAGS="--xla_cpu_copy_insertion_use_region_analysis=true")
    env.update(JAX_PLATFORMS="cpu", DWTCP_FLUID_CACHE_DIR="off")
    out = subprocess.run(
        [sys.executable, "-c", _PINNED_RUN], env=env, capture_output=True, text=True, check=True
    )
    flagged = json.loads(out.stdout.strip().splitlines()[-1])
    pr = build("dctcp", flows=4, duration="3ms", trace_points=30)
    ref = run_one(pr.cfg, pr.law, pr.scenario, engine="jax")
    for rec in flagged:
        for k, v in rec.items():
            np.testing.assert_array_equal(np.asarray(v, dtype=ref[k].dtype), ref[k], err_msg=k)


def test_a_cache_entry_that_loads_but_cannot_run_is_compiled_again():
    """A cached executable whose kernels did not travel with it fails at its first result ("NOT_FOUND: Function
    wrapped_iota not found", seen with a shared cache): the program is compiled again and the call repeated; any
    other error is the caller's."""
    import numpy as np

    from dwtcp_fluid.packet.xla import _Cached

    def broken(x):
        raise RuntimeError("NOT_FOUND: Function wrapped_iota not found (type id: 1)")

    compiled = []
    fn = _Cached(broken, lambda: compiled.append(1) or (lambda x: np.asarray(x) + 1))
    assert int(fn(1)) == 2 and compiled == [1]
    assert int(fn(2)) == 3 and compiled == [1]  # compiled once

    def failing(x):
        raise RuntimeError("RESOURCE_EXHAUSTED: out of memory")

    with pytest.raises(RuntimeError, match="RESOURCE_EXHAUSTED"):
        _Cached(failing, lambda: None)(1)
