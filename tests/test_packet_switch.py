"""Switch semantics of the packet core on tiny hand-computed cases."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet.state import PacketConfig
from dwtcp_fluid.packet.switch import (
    arrival_positions,
    dequeue_data,
    enqueue_data,
    enqueue_scouts,
    serve_scouts,
)


def cfg(**kw):
    base = dict(n_flows=4, n_chunks=1, chunk=1, ring_len=4, buffer=3, scout_buffer=3, scouts_per_slot=2)
    base.update(kw)
    return PacketConfig(**base)


def empty_hq(c):
    return (jnp.zeros(c.buffer, jnp.int32), jnp.int32(0), jnp.int32(0))


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
    pos = np.asarray(arrival_positions(jnp.asarray(arrive, bool), jnp.int32(offset)))
    for f, p in expected.items():
        assert pos[f] == p


def test_drop_tail_and_mark_at_enqueue_ge():
    c = cfg(buffer=3)
    hq = empty_hq(c)
    # Slot 1: flows 0,1 arrive into an empty queue; K = 1, "≥": flow 0 finds 0 (unmarked), flow 1 finds 1 (marked).
    hq, acc, drop = enqueue_data(c, hq, jnp.asarray([1, 1, 0, 0], bool), jnp.int32(0), jnp.float32(1))
    assert np.asarray(acc).tolist() == [True, True, False, False] and not np.asarray(drop).any()
    assert int(hq[2]) == 2
    # Slot 2: three arrive, one place left: the first in rotated order (offset 3 → flow 3) gets it.
    hq, acc, drop = enqueue_data(c, hq, jnp.asarray([1, 0, 1, 1], bool), jnp.int32(3), jnp.float32(1))
    assert np.asarray(acc).tolist() == [False, False, False, True]
    assert np.asarray(drop).tolist() == [True, False, True, False]
    assert int(hq[2]) == 3
    # FIFO service order and marks: (0, unmarked), (1, marked), (3, marked: found 2 ≥ 1).
    served = []
    for _ in range(4):
        hq, dep, f0, m0 = dequeue_data(c, hq, jnp.float32(1))
        if bool(dep):
            served.append((int(f0), bool(m0)))
    assert served == [(0, False), (1, True), (3, True)]
    assert int(hq[2]) == 0


def test_mark_gt_versus_ge():
    c = cfg(buffer=5, mark_cmp="gt")
    hq, _, _ = enqueue_data(c, empty_hq(c), jnp.asarray([1, 1, 1, 0], bool), jnp.int32(0), jnp.float32(1))
    marks = []
    for _ in range(3):
        hq, _, _, m0 = dequeue_data(c, hq, jnp.float32(1))
        marks.append(bool(m0))
    assert marks == [False, False, True]  # found 0, 1, 2 packets; only 2 > 1


def test_mark_at_dequeue_uses_occupancy_at_service():
    c = cfg(buffer=5, mark_at="dequeue")
    hq, _, _ = enqueue_data(c, empty_hq(c), jnp.asarray([1, 1, 1, 0], bool), jnp.int32(0), jnp.float32(2))
    marks = []
    for _ in range(3):
        hq, _, _, m0 = dequeue_data(c, hq, jnp.float32(2))
        marks.append(bool(m0))
    # occupancy including the departing packet: 3, 2, 1 → marked when ≥ 2
    assert marks == [True, True, False]


def test_ring_wraps_around():
    c = cfg(buffer=3)
    hq = empty_hq(c)
    order = []
    for step in range(5):
        arrive = jnp.asarray([step % 4 == f for f in range(4)], bool)
        hq, _, _ = enqueue_data(c, hq, arrive, jnp.int32(0), jnp.float32(100))
        hq, dep, f0, _ = dequeue_data(c, hq, jnp.float32(100))
        order.append(int(f0) if bool(dep) else None)
    assert order == [0, 1, 2, 3, 0]


def test_scouts_served_only_in_idle_slots_and_capped():
    c = cfg(scout_buffer=3, scouts_per_slot=2)
    lq = (jnp.zeros(3, jnp.int32), jnp.zeros(3, jnp.int32), jnp.int32(0), jnp.int32(0))
    lq, sdrop = enqueue_scouts(
        c, lq, jnp.asarray([1, 1, 1, 1], bool), jnp.asarray([5, 6, 7, 8]), jnp.int32(0)
    )
    assert np.asarray(sdrop).tolist() == [False, False, False, True]  # buffer of 3 Scouts
    # A data packet is served this slot: no Scout.
    lq, cnt, seq = serve_scouts(c, lq, jnp.bool_(False), 4)
    assert np.asarray(cnt).tolist() == [0, 0, 0, 0] and int(lq[3]) == 3
    # Idle slot: two Scouts (scouts_per_slot) in FIFO order.
    lq, cnt, seq = serve_scouts(c, lq, jnp.bool_(True), 4)
    assert np.asarray(cnt).tolist() == [1, 1, 0, 0]
    assert np.asarray(seq).tolist() == [6, 7, 0, 0]  # 1 + sequence number
    lq, cnt, seq = serve_scouts(c, lq, jnp.bool_(True), 4)
    assert np.asarray(cnt).tolist() == [0, 0, 1, 0] and np.asarray(seq).tolist() == [0, 0, 8, 0]
    assert int(lq[3]) == 0


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="mark_at"):
        cfg(mark_at="middle")
    with pytest.raises(ValueError, match="buffer"):
        cfg(buffer=0)
