"""Switch semantics of the packet core on tiny hand-computed cases (functions, then whole slots of the engine)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet import build, run
from dwtcp_fluid.packet.state import PacketConfig
from dwtcp_fluid.packet.switch import (
    arrival_positions,
    data_code,
    decode,
    enqueue_data,
    enqueue_scouts,
    scout_code,
    serve_data,
    serve_scouts,
)


def cfg(**kw):
    base = dict(n_flows=4, n_chunks=1, chunk=1, ring_len=8, buffer=3, scout_buffer=3, scouts_per_slot=3)
    base.update(kw)
    return PacketConfig(**base)


def b(x, dtype=bool):
    """One scenario as a batch of one, in the engine's [N, B] layout."""
    return jnp.asarray([x], dtype).T


@pytest.mark.parametrize(
    ("arrive", "offset", "expected"),
    [
        # order 0,1,2,3: flows 0, 2, 3 arrive → positions 0, -, 1, 2
        ([1, 0, 1, 1], 0, {0: 0, 2: 1, 3: 2}),
        # order 2,3,0,1
        ([1, 0, 1, 1], 2, {2: 0, 3: 1, 0: 2}),
        # order 3,0,1,2
        ([1, 1, 0, 1], 3, {3: 0, 0: 1, 1: 2}),
    ],
)
def test_arrival_positions_rotate(arrive, offset, expected):
    pos = np.asarray(arrival_positions(b(arrive), jnp.asarray([offset], jnp.int32)))[:, 0]
    for f, p in expected.items():
        assert pos[f] == p


def test_arrival_positions_per_scenario_offsets():
    arrive = jnp.asarray([[1, 1, 1, 1], [1, 1, 1, 1]], bool).T
    pos = np.asarray(arrival_positions(arrive, jnp.asarray([0, 1], jnp.int32))).T
    assert pos.tolist() == [[0, 1, 2, 3], [3, 0, 1, 2]]


def test_drop_tail_departure_slots_and_mark_at_enqueue_ge():
    c = cfg(buffer=3)
    K = jnp.asarray([1.0])
    # Slot 1: flows 0,1 arrive into an empty queue; K = 1, "≥": flow 0 finds 0 (unmarked, leaves now),
    # flow 1 finds 1 (marked, leaves one slot later).
    seen, acc, drop, mark = enqueue_data(c, jnp.asarray([0]), b([1, 1, 0, 0]), jnp.asarray([0]), K)
    assert np.asarray(acc)[:, 0].tolist() == [True, True, False, False] and not np.asarray(drop).any()
    assert np.asarray(seen)[:2, 0].tolist() == [0, 1]
    assert np.asarray(mark)[:, 0].tolist() == [False, True, False, False]
    busy, q = serve_data(jnp.asarray([2]))
    assert bool(busy[0]) and int(q[0]) == 1
    # Slot 2: one queued, three arrive, two places left: rotated order 3, 0, 2 → flows 3 and 0 get them.
    seen, acc, drop, mark = enqueue_data(c, q, b([1, 0, 1, 1]), jnp.asarray([3]), K)
    assert np.asarray(acc)[:, 0].tolist() == [True, False, False, True]
    assert np.asarray(drop)[:, 0].tolist() == [False, False, True, False]
    assert np.asarray(seen)[[3, 0], 0].tolist() == [1, 2]  # leave 1 and 2 slots from now
    assert np.asarray(mark)[:, 0].tolist() == [True, False, False, True]


def test_mark_gt_versus_ge():
    c = cfg(buffer=5, mark_cmp="gt")
    _, _, _, mark = enqueue_data(c, jnp.asarray([0]), b([1, 1, 1, 0]), jnp.asarray([0]), jnp.asarray([1.0]))
    assert np.asarray(mark)[:3, 0].tolist() == [False, False, True]  # found 0, 1, 2 packets; only 2 > 1


def test_mark_at_dequeue_gives_no_enqueue_mark():
    c = cfg(buffer=5, mark_at="dequeue")
    _, acc, _, mark = enqueue_data(c, jnp.asarray([4]), b([1, 0, 0, 0]), jnp.asarray([0]), jnp.asarray([0.0]))
    assert bool(acc[0, 0]) and not np.asarray(mark).any()


def test_codes_round_trip():
    d = data_code(jnp.asarray([True, False]), jnp.asarray([3, 0]))
    s = scout_code(jnp.asarray([2]), jnp.asarray([1234]))
    ack, mark, loss, cnt, seqp1 = decode(jnp.concatenate([d, s, jnp.zeros(1, jnp.int32)]))
    assert np.asarray(ack).tolist() == [True, True, False, False]
    assert np.asarray(mark).tolist() == [True, False, False, False]
    assert np.asarray(loss).tolist() == [3, 0, 0, 0]
    assert np.asarray(cnt).tolist() == [0, 0, 2, 0] and np.asarray(seqp1).tolist() == [0, 0, 1235, 0]


def test_scouts_drop_tail_and_served_only_in_idle_slots():
    c = cfg(scout_buffer=3, scouts_per_slot=3)
    z = jnp.zeros((4, 1), jnp.int32)
    cnt, seq, tot, sdrop = enqueue_scouts(
        c, z, z, jnp.asarray([0]), b([1, 1, 1, 1]), b([5, 6, 7, 8], jnp.int32), jnp.asarray([0])
    )
    assert np.asarray(sdrop)[:, 0].tolist() == [False, False, False, True]  # buffer of 3 Scouts
    # A data packet is served this slot: no Scout.
    served, cnt2, tot2 = serve_scouts(cnt, tot, jnp.asarray([False]))
    assert not np.asarray(served).any() and int(tot2[0]) == 3
    # Idle slot: every queued Scout (the buffer holds at most one slot's worth).
    served, cnt3, tot3 = serve_scouts(cnt2, tot2, jnp.asarray([True]))
    assert np.asarray(served)[:, 0].tolist() == [1, 1, 1, 0] and int(tot3[0]) == 0
    assert np.asarray(seq)[:3, 0].tolist() == [5, 6, 7]


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


def one_slot_chunks(law, **kw):
    kw.setdefault("start_jitter", False)
    pr = build(law, **kw)
    return pr, run(pr)["records"]


def test_ack_clock_of_one_flow_by_hand():
    """One Reno flow, RTT 4 slots, initial window 2, ECN off: packets leave in slots 0, 1 (access link: one per
    slot), their ACKs arrive in slots 4, 5; each ACK in slow start releases two packets, sent in slots 4, 5, 6, 7
    (one per slot) — so the link is busy in slots 0-1 and 4-7, idle in 2-3."""
    slot = 1500 * 8 / 10e9
    pr, rec = one_slot_chunks(
        "reno",
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


def test_priority_queue_marks_and_drops_by_hand():
    """Three flows start together with initial window 2 into a 4-packet buffer, K = 2 (≥, at enqueue).
    Slot 0: arrivals find 0, 1, 2 (the third is marked), one leaves → queue 2. Slot 1: arrivals find 2, 3, 4:
    the first two are marked, the third is dropped (buffer 4) → 4 queued, one leaves → 3."""
    slot = 1500 * 8 / 10e9
    pr, rec = one_slot_chunks(
        "reno",
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


def test_marks_at_enqueue_versus_dequeue_by_hand():
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
    _, enq = one_slot_chunks("reno", mark_at="enqueue", **kw)
    _, deq = one_slot_chunks("reno", mark_at="dequeue", **kw)
    # Slot 0: find 0, 1 → leave 1 → q 1. Slot 1: find 1, 2 → q 2. Slot 2: find 2, 3 (marked) → q 3.
    # Then no sends: q 3 → departures in slots 3, 4, 5 with occupancies 3, 2, 1.
    assert enq["q_end"][:6].tolist() == [1, 2, 3, 2, 1, 0]
    assert enq["marks"].sum() == 1  # the one packet that found 3
    # Occupancy at service (departing packet included): slot 0: 2, slot 1: 3, slot 2: 4, then 3, 2, 1 → 3 marked.
    assert deq["marks"].sum() == 3
