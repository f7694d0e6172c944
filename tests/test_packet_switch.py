"""Switch semantics of the packet core on tiny hand-computed cases (functions, then whole slots of the engine)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet import build, run
from dwtcp_fluid.packet.impair import capacity_schedule
from dwtcp_fluid.packet.state import PacketConfig
from dwtcp_fluid.packet.switch import (
    departure_slot,
    is_service_slot,
    mark_threshold,
    service_count,
    uniform,
)


def cfg(**kw):
    base = dict(n_flows=4, n_chunks=1, chunk=1, ring_len=8, buffer=3, scout_buffer=3, scouts_per_slot=3)
    base.update(kw)
    return PacketConfig(**base)


@pytest.mark.parametrize(
    ("K", "cmp", "expected"),
    [(65.0, "ge", 65), (65.0, "gt", 66), (2.5, "ge", 3), (2.5, "gt", 3), (0.0, "ge", 0), (0.0, "gt", 1)],
)
def test_mark_threshold_is_the_step_marker_on_integer_queues(K, cmp, expected):
    kth = mark_threshold(K, cmp)
    assert kth == expected
    for q in range(0, 80):  # the integer threshold marks exactly the queues the real-valued test marks
        assert (q >= kth) == (q >= K if cmp == "ge" else q > K)


def test_capacity_schedule_service_slots_by_hand():
    """Link of 10 packets/s (slot 0.1 s); 4 pkt/s from 0 to 1 s (every 2.5 slots), then 10 pkt/s.
    O(t) = floor(0.4·t) for t ≤ 10: transmissions complete in slots 2, 4, 7, 9 (O jumps at t = 3, 5, 8, 10),
    then every slot from 10 on."""
    cs, cr, co = (jnp.asarray(a) for a in capacity_schedule([(0.0, 4.0), (1.0, 10.0)], 10.0, 1500.0, 40))
    assert cr.tolist()[:2] == [400, 1000] and co.tolist()[:2] == [0, 4]
    svc = [int(t) for t in range(16) if bool(is_service_slot(jnp.int32(t), cs, cr, co))]
    assert svc == [2, 4, 7, 9, 10, 11, 12, 13, 14, 15]
    assert [int(service_count(jnp.int32(t), cs, cr, co)) for t in (0, 3, 10, 12)] == [0, 1, 4, 6]
    # A packet accepted in slot 0 behind `seen` packets leaves at the (seen + 1)-th service slot from slot 0.
    assert [int(departure_slot(jnp.int32(0), jnp.int32(k), cs, cr, co)) for k in range(6)] == [
        2,
        4,
        7,
        9,
        10,
        11,
    ]
    # ... and from slot 5 (service slots 7, 9, 10, ...).
    assert [int(departure_slot(jnp.int32(5), jnp.int32(k), cs, cr, co)) for k in range(3)] == [7, 9, 10]
    # Constant capacity: every slot, departure t + seen.
    c1, r1, o1 = (jnp.asarray(a) for a in capacity_schedule(None, 10.0, 1500.0, 40))
    assert int(departure_slot(jnp.int32(17), jnp.int32(3), c1, r1, o1)) == 20


def test_service_grid_is_exact_where_slot_times_rate_leaves_int32():
    """Past t = 2³¹/1000 slots (2.6 s at 10 Gbps) t·rate in per mille leaves int32: the service count, the service
    slots and the departure slots still equal ⌊t·r/1000⌋ and ceil((O(t) + seen + 1)·1000/r) − 1 in exact
    integers, at rates 1000, 700 and 3 per mille."""
    z = jnp.zeros((1,), jnp.int32)
    for r in (1000, 700, 3):
        rate = jnp.asarray([r], jnp.int32)
        for t in (2**31 // 1000, 10**9):
            ti = jnp.int32(t)
            assert int(service_count(ti, z, rate, z)) == t * r // 1000, (r, t)
            assert bool(is_service_slot(ti, z, rate, z)) == ((t + 1) * r // 1000 > t * r // 1000), (r, t)
            want = -(-(t * r // 1000 + 8) * 1000 // r) - 1
            assert int(departure_slot(ti, jnp.int32(7), z, rate, z)) == want, (r, t)


def test_capacity_schedule_rejects_bad_values():
    with pytest.raises(ValueError, match="capacity_schedule rate"):
        capacity_schedule([(0.0, 20.0)], 10.0, 1500.0, 10)
    with pytest.raises(ValueError, match="starts at"):
        capacity_schedule([(1.0, 5.0)], 10.0, 1500.0, 10)
    with pytest.raises(ValueError, match="increasing"):
        capacity_schedule([(0.0, 5.0), (0.0, 6.0)], 10.0, 1500.0, 10)


def test_uniform_draws_are_keyed_and_uniform():
    t = jnp.arange(4000, dtype=jnp.int32)
    a, b = np.asarray(uniform(jnp.int32(7), t, 2)), np.asarray(uniform(jnp.int32(8), t, 2))
    assert float(uniform(jnp.int32(7), jnp.int32(5), 2)) == a[5]  # a pure function of its keys
    assert np.all((a >= 0) & (a < 1)) and not np.array_equal(a, b)
    # Kolmogorov-Smirnov distance to U(0, 1): 1.63/sqrt(n) is the 1 % critical value
    x = np.sort(a)
    ks = np.max(np.abs(x - (np.arange(1, x.size + 1) - 0.5) / x.size))
    assert ks < 1.63 / np.sqrt(x.size)


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="mark_at"):
        cfg(mark_at="middle")
    with pytest.raises(ValueError, match="buffer"):
        cfg(buffer=0)
    with pytest.raises(ValueError, match="scout_buffer=5"):
        cfg(scout_buffer=5, scouts_per_slot=3)
    with pytest.raises(ValueError, match="ring_len=4"):
        cfg(ring_len=4, buffer=3)


# --- whole slots of the engine, hand-computed --------------------------------------------------------------


def one_slot_chunks(law, engine="jax", **kw):
    kw.setdefault("start_jitter", False)
    pr = build(law, **kw)
    return pr, run(pr, engine=engine)["records"]


# the JAX reference and the native loop (bit-identical on these runs) must both pass the hand-computed slots
ENGINES = pytest.mark.parametrize("engine", ["jax", "native"])


@ENGINES
def test_ack_clock_of_one_flow_by_hand(engine):
    """One Reno flow, RTT 4 slots, initial window 2, ECN off: packets leave in slots 0, 1 (access link: one per
    slot), their ACKs arrive in slots 4, 5; each ACK in slow start releases two packets, sent in slots 4, 5, 6, 7
    (one per slot) — so the link is busy in slots 0-1 and 4-7, idle in 2-3."""
    slot = 1500 * 8 / 10e9
    pr, rec = one_slot_chunks(
        "reno",
        engine,
        flows=1,
        rtts=[4 * slot],
        duration=11.5 * slot,
        K=1e6,
        trace_points=12,
        law_params={"init_cwnd": 2.0},
    )
    assert pr.cfg.chunk == 1
    assert rec["busy"].tolist() == [1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]
    assert rec["delivered"][:, 0].tolist() == [0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1]
    assert rec["q_end"].max() == 0  # one packet per slot arrives and leaves in the same slot


@ENGINES
def test_priority_queue_marks_and_drops_by_hand(engine):
    """Three flows start together with initial window 2 into a 4-packet buffer, K = 2 (≥, at enqueue).
    Slot 0: arrivals find 0, 1, 2 (the third is marked), one leaves → queue 2. Slot 1: arrivals find 2, 3, 4:
    the first two are marked, the third is dropped (buffer 4) → 4 queued, one leaves → 3."""
    slot = 1500 * 8 / 10e9
    pr, rec = one_slot_chunks(
        "reno",
        engine,
        flows=3,
        rtts=[20 * slot] * 3,
        duration=11.5 * slot,
        K=2,
        buffer=4,
        trace_points=12,
        law_params={"init_cwnd": 2.0},
        seed=0,
    )
    assert rec["q_end"][:2].tolist() == [2, 3]
    assert rec["drops"].sum() == 1 and rec["drops"][1].sum() == 1
    # the queue drains one per slot with no new sends (windows full, ACKs 20 slots away)
    assert rec["q_end"][2:5].tolist() == [2, 1, 0] and rec["busy"][:5].tolist() == [1, 1, 1, 1, 1]
    # marks are counted when their ACKs come back (slot ≥ 20): none yet
    assert rec["marks"].sum() == 0


@ENGINES
def test_marks_at_enqueue_versus_dequeue_by_hand(engine):
    """Two flows, initial window 3, K = 3, RTT 30 slots, run 40 slots: with marking at enqueue the arrivals find
    0..5 packets (queue grows 2 per slot while both send, minus one leaving): packets finding ≥ 3 are marked;
    at dequeue the occupancy at service (departing packet included) decides instead."""
    slot = 1500 * 8 / 10e9
    kw = dict(
        flows=2,
        rtts=[30 * slot] * 2,
        duration=39.5 * slot,
        K=3,
        trace_points=40,
        law_params={"init_cwnd": 3.0},
    )
    _, enq = one_slot_chunks("reno", engine, mark_at="enqueue", **kw)
    _, deq = one_slot_chunks("reno", engine, mark_at="dequeue", **kw)
    # Slot 0: find 0, 1 → leave 1 → q 1. Slot 1: find 1, 2 → q 2. Slot 2: find 2, 3 (marked) → q 3.
    # Then no sends: q 3 → departures in slots 3, 4, 5 with occupancies 3, 2, 1.
    assert enq["q_end"][:6].tolist() == [1, 2, 3, 2, 1, 0]
    assert enq["marks"].sum() == 1  # the one packet that found 3
    # Occupancy at service (departing packet included): slot 0: 2, slot 1: 3, slot 2: 4, then 3, 2, 1 → 3 marked.
    assert deq["marks"].sum() == 3
