"""Routed ports in the event engine (:mod:`dwtcp_fluid.packet.ports`): hand-computed slots on two-port routes (on
the reference and on the native loop), a one-port route bit-identical to the single bottleneck, and chains against
the per-slot multi-hop engine.

Each run compiles the engine once per shape (seconds): every test here is ``slow``.
"""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet import build
from dwtcp_fluid.packet.batch import run_one

pytestmark = pytest.mark.slow
SLOT = 1500 * 8 / 10e9


def routed(pr, routes, rates, buffers, kth, engine="jax"):
    """Run ``pr`` with every flow on its route of ports (port rates per mille of the slot rate) on ``engine``."""
    sc = pr.scenario._replace(
        route=np.asarray(routes, np.int32),
        port_rate=np.asarray(rates, np.int32),
        port_buffer=np.asarray(buffers, np.int32),
        port_kth=np.asarray(kth, np.int32),
    )
    return run_one(pr.cfg, pr.engine_laws, sc, engine=engine)


def _reno(flows=1, rtt=4, cwnd=2.0, **kw):
    return build(
        "reno",
        flows=flows,
        rtts=[rtt * SLOT] * flows,
        duration=11.5 * SLOT,
        K=1e6,
        trace_points=12,
        start_jitter=False,
        law_params={"init_cwnd": cwnd},
        **kw,
    )


@pytest.mark.parametrize("engine", ["jax", "native"])
def test_two_hops_add_one_forwarding_slot_to_the_ack_clock_by_hand(engine):
    """One Reno flow over ports 0 → 1 at full rate, RTT 4, initial window 2: packets sent in slots 0, 1 leave
    port 0 in their send slot and port 1 one slot later (1, 2); their ACKs arrive at 1 + 4 = 5 and 6; slow start
    opens the window to 3, then 4: packets sent in slots 5, 6, 7, 8 (one per slot), the window full in slot 9;
    the packets of slots 5, 6 leave port 1 in 6, 7 and are acknowledged in slots 10, 11, which send again."""
    pr = _reno()
    assert pr.cfg.chunk == 1
    rec = routed(pr, [[0, 1]], [1000, 1000], [100, 100], [10**6, 10**6], engine)
    assert rec["port_busy"][:, 0].tolist() == [1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1]
    assert rec["port_busy"][:, 1].tolist() == [0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1]
    assert rec["delivered"][:, 0].tolist() == [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1]
    assert rec["port_q_end"].max() == 0


@pytest.mark.parametrize("engine", ["jax", "native"])
def test_a_half_rate_port_serves_every_other_slot_by_hand(engine):
    """Ports 0 (full rate) → 1 (half rate), window 4, RTT 40: port 0 sends on one packet per slot (0-3), they
    reach port 1 in slots 1-4; port 1's service slots are the odd slots (one packet every 2 slots on the fixed
    grid), so it serves them in slots 1, 3, 5, 7 and its queue after service is 0, 1, 1, 2, 1, 1, 0 in slots 1-7."""
    pr = _reno(rtt=40, cwnd=4.0)
    rec = routed(pr, [[0, 1]], [1000, 500], [100, 100], [10**6, 10**6], engine)
    assert rec["port_busy"][:, 0].tolist() == [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]
    assert rec["port_opps"][:, 1].tolist() == [0, 1] * 6
    assert rec["port_busy"][:, 1].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0]
    assert rec["port_q_end"][:8, 1].tolist() == [0, 0, 1, 1, 2, 1, 1, 0]


@pytest.mark.parametrize("engine", ["jax", "native"])
def test_a_drop_at_the_second_hop_by_hand(engine):
    """As above with a 1-packet buffer at port 1: the arrivals of slots 1, 2, 3, 4 find 0, 0, 1, 0 packets ahead:
    the one of slot 3 is dropped (counted at port 1 and for the flow). Forwarded packets arrive before the hosts
    send, so the flow's fourth packet, sent in slot 3 after the drop, carries its report: nothing stays pending,
    and all four packets count as in flight until the ACK. Port 1 serves in slots 1, 3, 5."""
    pr = _reno(rtt=40, cwnd=4.0)
    rec = routed(pr, [[0, 1]], [1000, 500], [100, 1], [10**6, 1], engine)
    assert rec["port_drops"][:, 1].tolist() == [0, 0, 0, 1] + [0] * 8
    assert rec["port_drops"][:, 0].sum() == 0
    assert rec["drops"][:, 0].tolist() == [0, 0, 0, 1] + [0] * 8
    assert rec["pending_end"][:, 0].max() == 0 and rec["inflight_end"][-1, 0] == 4
    assert rec["port_busy"][:, 1].tolist() == [0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("engine", ["jax", "native"])
def test_scouts_wait_for_an_idle_slot_at_every_hop_by_hand(engine):
    """A Reno flow (window 4, RTT 40) and a Scout probe both on ports 0 → 1 (half rate), both starting at slot 0.
    The Scout joins port 0's Scout queue in slot 0; data keeps port 0 busy in slots 0-3, so the Scout leaves it
    in the idle slot 4 and reaches port 1 in slot 5; port 1's service slots 5 and 7 carry data (slots 1, 3, 5, 7),
    so the Scout leaves in its next idle service slot, 9: served once, 9 slots after it was sent."""
    pr = build(
        ["reno", "scout-probe"],
        flows=2,
        law_of_flow=[0, 1],
        rtts=[40 * SLOT] * 2,
        duration=11.5 * SLOT,
        K=1e6,
        trace_points=12,
        start_jitter=False,
        law_params=[{"init_cwnd": 4.0}, {}],
    )
    rec = routed(pr, [[0, 1], [0, 1]], [1000, 500], [100, 100], [10**6, 10**6], engine)
    assert rec["scouts_sent"].sum() == 1
    assert rec["scouts_served"].tolist() == [0] * 9 + [1, 0, 0]
    assert rec["scouts_wait"].sum() == 9
    assert rec["port_busy"][:, 1].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0]


@pytest.mark.parametrize("law", ["dctcp", "dwtcp"])
def test_a_one_port_route_is_the_single_bottleneck_bit_for_bit(law):
    """The routed-port machinery on a one-port route reproduces the single-bottleneck engine record for record
    (drops, marks, Scouts served and dropped included)."""
    pr = build(law, flows=6, duration="3ms", buffer=8, K=6, seed=3)
    sc = pr.scenario
    ref = run_one(pr.cfg, pr.engine_laws, sc, engine="jax")
    n = len(np.asarray(sc.rtt))
    got = routed(pr, np.zeros((n, 1)), [1000], [int(sc.buffer)], [int(sc.kth)])
    assert ref["drops"].sum() > 0 and ref["marks"].sum() > 0
    if law == "dwtcp":
        assert ref["scouts_served"].sum() > 0 and ref["scouts_dropped"].sum() > 0
    for k, v in ref.items():
        if k in ("q_sum", "q_min", "q_max", "busy", "opps", "q_end"):
            continue
        np.testing.assert_array_equal(got[k], v, err_msg=k)
    np.testing.assert_array_equal(got["port_q_sum"][:, 0], ref["q_sum"])
    np.testing.assert_array_equal(got["port_busy"][:, 0], ref["busy"])
    np.testing.assert_array_equal(got["port_q_end"][:, 0], ref["q_end"])
    np.testing.assert_array_equal(got["port_drops"][:, 0], ref["drops"].sum(axis=1))


def test_routed_ports_refuse_what_they_do_not_carry():
    pr = build("dctcp", flows=2, duration="1ms", mark_at="dequeue")
    with pytest.raises(ValueError, match="mark_at='dequeue' is invalid with routed ports"):
        routed(pr, [[0, 1], [0, 1]], [1000, 1000], [10, 10], [5, 5])
    pr = build("dctcp", flows=2, duration="1ms")
    with pytest.raises(ValueError, match="port_rate=.* is out of range"):
        routed(pr, [[0, 1], [0, 1]], [1000, 0], [10, 10], [5, 5])


def _chain_pair(topology, per, seeds, duration=0.03, K=20, buffer=100):
    """Mean over ``seeds`` of per-port queue and busy fraction and per-group throughput share (fraction of the
    port rate) over the last half of a DCTCP run, on the per-slot multi-hop engine and on routed ports."""
    from dwtcp_fluid.packet.multihop_run import run_topology
    from dwtcp_fluid.packet.topology import parse_topology

    topo = parse_topology(topology)
    routes, grp = topo.flow_routes((per,) * len(topo.groups))
    R = np.full((len(routes), max(map(len, routes))), -1, np.int32)
    for i, r in enumerate(routes):
        R[i, : len(r)] = r
    slot, ev = [], []
    for seed in seeds:
        s = run_topology(
            topology, "dctcp", flows=per, K=K, buffer=buffer, duration=duration, seed=seed, chunk=500
        )
        slot.append(np.concatenate([s.queue_mean, s.utilization, s.group_share]))
        pr = build(
            "dctcp", flows=len(routes), K=K, buffer=buffer, duration=duration, seed=seed, trace_points=50
        )
        P = topo.hops
        rec = routed(pr, R, [1000] * P, [buffer] * P, [int(pr.scenario.kth)] * P)
        w = rec["port_q_sum"].shape[0] // 2
        n = (rec["port_q_sum"].shape[0] - w) * pr.cfg.chunk
        share = rec["delivered"][w:].sum(0) / n
        gs = [share[grp == g].mean() for g in range(len(topo.groups))]
        ev.append(np.concatenate([rec["port_q_sum"][w:].sum(0) / n, rec["port_busy"][w:].sum(0) / n, gs]))
    P = topo.hops
    a, b = np.mean(slot, axis=0), np.mean(ev, axis=0)
    return (a[:P], a[P : 2 * P], a[2 * P :]), (b[:P], b[P : 2 * P], b[2 * P :])


def test_chains_agree_with_the_per_slot_multihop_engine():
    """DCTCP (K = 20, buffer 100, 10 Gbps, 100 µs) on path:2 (8 flows) and parking-lot:2 (4 flows per group),
    mean of 4 seeds over the last 15 ms: the two engines differ in the order of simultaneous arrivals and their
    random draws, not in the port semantics, so their means agree: queue per port within 5 % (+ 0.1 packet),
    busy fraction within 0.005, group throughput shares within 0.012 of the port rate (one seed's long-flow
    share varies by about ±0.007 around 0.06)."""
    for topology, per in (("path:2", 8), ("parking-lot:2", 4)):
        (q0, u0, g0), (q1, u1, g1) = _chain_pair(topology, per, seeds=(0, 1, 2, 3))
        np.testing.assert_allclose(q1, q0, rtol=0.05, atol=0.1, err_msg=f"{topology} queues")
        np.testing.assert_allclose(u1, u0, atol=0.005, err_msg=f"{topology} busy")
        np.testing.assert_allclose(g1, g0, atol=0.012, err_msg=f"{topology} group shares")
    # the parking lot's long flows cross two marking ports: a clearly smaller share than the one-hop flows
    assert g1[0] < 0.5 * g1[1]


def test_bad_routes_are_refused():
    pr = build("dctcp", flows=2, duration="1ms")
    for route in ([[0, 2], [1, -1]], [[-1, 0], [1, -1]], [[0, -1, 1], [1, -1, -1]]):
        with pytest.raises(ValueError, match="route=.* is invalid"):
            routed(pr, route, [1000, 1000], [10, 10], [5, 5])


def test_dwtcp_on_a_parking_lot_runs_with_scouts_through_every_hop():
    """``run_topology("parking-lot:2", "dwtcp")`` runs on routed ports: every Scout sent is served at the last port
    of its route, dropped at a full Scout queue of some port on it, or still queued (at most one Scout buffer of
    10 per port, plus those forwarded in the last slot); the busy ports drop many (a Scout waits for an idle slot:
    DWTCP's loss signal) and serve some; DWTCP keeps both queues well below the 250-packet buffer with the ports
    busy, and the two-hop flows get less than the one-hop flows."""
    from dwtcp_fluid.packet.multihop_run import run_topology

    s = run_topology("parking-lot:2", "dwtcp", flows=4, duration="20ms", seed=1)
    rec = s.records
    sent, served, dropped = (int(rec[k].sum()) for k in ("scouts_sent", "scouts_served", "scouts_dropped"))
    assert sent > 12 * 0.8 * 0.02 / 100e-6  # one Scout per base RTT (83 slots), 12 flows, most of 20 ms
    assert 0 <= sent - served - dropped <= 2 * 10 + 10
    assert served > 0.1 * sent and dropped > 0
    assert np.all(s.queue_mean < 50) and np.all(s.utilization > 0.9)
    assert s.group_share[0] < 0.75 * s.group_share[1]
    ds = s.to_dataset()
    assert ds["queue_mean"].shape == (len(rec["q_mean"]), 2) and ds["delivered"].shape[1] == 12
