"""Routed ports of the event engine (feature ``"ports"``): every flow crosses a route of switch ports, in order.

Each port ``p`` has its own rate ``port_rate[p]`` (in 1/:data:`~.switch.CAP_SCALE` of the highest rate, which
defines the slot), its own drop-tail data FIFO of ``port_buffer[p]`` packets with step ECN marking at enqueue
against ``port_kth[p]`` (an arrival is marked when it finds at least that many packets ahead of it; a packet's
mark is the OR over its hops), and its own low-priority Scout queue of ``scout_buffer`` Scouts, served only in a
service slot of that port in which its data FIFO is empty (such a slot serves every queued Scout). A port at a
fraction r of the highest rate serves on the fixed fractional grid of :func:`~.switch.is_service_slot` (one
service slot every 1/r slots); each FIFO is a counter plus a departure ring, as for the single bottleneck
(:mod:`.switch`): an accepted packet is filed at its departure slot.

A packet (data or Scout) served at a port that is not the last of its route arrives at the next port of its
route in the next slot (one slot of forwarding per hop, as in :mod:`.multihop`): at the start of that slot,
before any event, the forwarded data packets are enqueued in the order their ports served them (port id order),
then the forwarded Scouts. A data packet dropped at a later hop is reported like a drop at the first:
its loss (and the losses it carried) ride on the flow's next packet accepted at its first port. A packet served
at the last port of its route is delivered (:func:`~.receiver.deliver`): the receiver and the ACK path are those of
the single bottleneck. Scouts follow their flow's route and are acknowledged by its receiver.

**In-band telemetry** (feature ``"int"``, [HPCC] §3.2 INT): a data packet carries one record of
:data:`~.wheels.IH` ints per hop of the longest route after its :data:`PE` header ints. When port ``p`` serves it
as the ``h``-th hop of its route, the port writes its record ``h``: the packets queued behind it, the port's
transmitted-packet counter (this packet included), the departure slot and ``port_rate[p]``; the last port hands the
records to the receiver, whose ACK echoes them (the ACK wheel's telemetry, :func:`~.wheels.insert_ack`). Hops past
the end of a shorter route keep rate 0 (no hop). On a one-port route at the highest rate the record is the single
bottleneck's telemetry (:func:`~.receiver.depart`) with the rate added.

Not with routed ports (refused by :func:`~.engine.spec_for`): marking at dequeue, RED, a capacity schedule,
per-datapath Scouts, a law's switch table, and in-band telemetry with delayed ACKs (a timer-flushed ACK would
have no packet's telemetry to echo). The native loop runs routed ports for its laws (:mod:`.native.ports`),
bit-identically (``tests/test_packet_native_ports.py``), without in-band telemetry.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from .flows import inputs, rd, wr
from .laws.base import FLOAT, INT, NEVER
from .receiver import ack_scout, deliver
from .switch import departure_slot, is_service_slot
from .wheels import IH, Ctx, _i, _wake_due, arm

__all__ = [
    "PE",
    "SE",
    "port_of",
    "entry_width",
    "data_entry",
    "enqueue",
    "arrivals",
    "serve_ports",
    "put_scout",
]

#: Port departure ring entry: flow, ECN mark so far, losses reported, send slot, hop index on the route.
PE = 5
#: Port Scout queue entry: flow, Scout number, hop index.
SE = 3


def entry_width(spec: Any) -> int:
    """Ints per data packet in the port rings: the :data:`PE` header, and with in-band telemetry one record of
    :data:`~.wheels.IH` ints per hop of the longest route."""
    return PE + (IH * spec.route_len if spec.has("int") else 0)


def data_entry(x: Ctx, f: Any, pend: Any, t: Any) -> Any:
    """A data packet of flow ``f`` sent in slot ``t`` (reporting ``pend`` losses), before its first port: not
    marked, hop 0, its telemetry records empty."""
    e = jnp.stack([_i(f), _i(0), _i(pend), _i(t), _i(0)])
    return jnp.concatenate([e, jnp.zeros((entry_width(x.spec) - PE,), INT)])


def port_of(x: Ctx, f: Any, hop: Any) -> Any:
    """The port at position ``hop`` of flow ``f``'s route (-1 past its end)."""
    H = x.spec.route_len
    h = jnp.minimum(hop, H - 1)
    p = lax.dynamic_slice(x.sc["route"], (_i(f) * H + h,), (1,))[0]
    return jnp.where(hop < H, p, -1)


def _one(v: Any, p: Any) -> Any:
    return lax.dynamic_slice(v, (p,), (1,))


def _departure(x: Ctx, p: Any, t: Any, seen: Any) -> Any:
    z = jnp.zeros((1,), INT)
    return departure_slot(t, seen, z, _one(x.sc["port_rate"], p), z)


def enqueue(x: Ctx, c: dict, p: Any, e: Any, t: Any, ok: Any) -> tuple[dict, Any, Any]:
    """Offer data packet ``e`` (:data:`PE` ints) to port ``p`` in slot ``t`` when ``ok``: drop-tail, step mark by
    the packets found ahead, filed at its departure slot. Returns the carry, accepted, and the mark added."""
    s, R, W = x.sc, x.spec.dep_rows, entry_width(x.spec)
    seen = rd(c["pq"], p, 1)[0]
    acc = ok & (seen < rd(s["port_buffer"], p, 1)[0])
    mark = acc & (seen >= rd(s["port_kth"], p, 1)[0])
    dslot = _departure(x, p, t, seen)
    off = jnp.where(acc, (p * R + (dslot & (R - 1))) * W, x.spec.n_ports * R * W)
    c = dict(c)
    c["pdep"] = wr(c["pdep"], off, e.at[1].set(e[1] | mark.astype(INT)))
    c["pq"] = wr(c["pq"], jnp.where(acc, p, x.spec.n_ports), (seen + 1)[None])
    c["pdrops"] = c["pdrops"].at[jnp.where(ok & ~acc, p, x.spec.n_ports)].add(1)
    return c, acc, mark


def put_scout(x: Ctx, c: dict, p: Any, f: Any, seq: Any, hop: Any, on: Any) -> dict:
    """Scout ``seq`` of flow ``f`` joins port ``p``'s Scout queue when ``on`` (drop-tail at ``scout_buffer``)."""
    Cs, P = x.spec.scout_cap, x.spec.n_ports
    n = rd(c["psqn"], p, 1)[0]
    room = n < x.sc["scout_buffer"]
    put = on & room
    c = dict(c)
    c["psq"] = wr(c["psq"], jnp.where(put, p * Cs + n, P * Cs) * SE, jnp.stack([_i(f), _i(seq), _i(hop)]))
    c["psqn"] = wr(c["psqn"], jnp.where(put, p, P), (n + 1)[None])
    c["s_dropped"] = c["s_dropped"] + (on & ~room).astype(INT)
    return c


def arrivals(x: Ctx, c: dict, t: Any) -> dict:
    """The packets served last slot at a port that is not the last of their route arrive at the next one: data
    packets first (a drop is added to the flow's unreported losses), then Scouts."""

    W = entry_width(x.spec)

    def data(i: Any, c: dict) -> dict:
        e = rd(c["fw"], i * W, W)
        f, hop = e[0], e[4]
        c, acc, _ = enqueue(x, c, port_of(x, f, hop), e, t, jnp.asarray(True))

        def lose(_: Any, c: dict) -> dict:
            F, fi = x.lay.read(c["fs"], f), inputs(x.sc["fin"], f)
            F = dict(F, pend=F["pend"] + 1 + e[2], drops=F["drops"] + 1)
            c, F = arm(x, c, f, F, _wake_due(x, F, fi, t, _i(NEVER)), t)
            return dict(c, fs=x.lay.write(c["fs"], f, F))

        return lax.fori_loop(0, (~acc).astype(INT), lose, c)

    c = lax.fori_loop(0, c["fwn"], data, c)
    if x.has("scouts"):

        def scout(i: Any, c: dict) -> dict:
            e = rd(c["sfw"], i * SE, SE)
            return put_scout(x, c, port_of(x, e[0], e[2]), e[0], e[1], e[2], jnp.asarray(True))

        c = lax.fori_loop(0, c["sfwn"], scout, c)
    return dict(c, fwn=_i(0), sfwn=_i(0))


def serve_ports(x: Ctx, c: dict, t: Any) -> dict:
    """One slot of service at every port, in port id order: a service slot of a port with queued data sends its
    head packet on (delivered at the last hop, forwarded otherwise); a service slot with no data serves the
    port's queued Scouts."""
    s, R, P, W = x.sc, x.spec.dep_rows, x.spec.n_ports, entry_width(x.spec)
    z = jnp.zeros((1,), INT)

    def port(p: Any, c: dict) -> dict:
        opp = is_service_slot(t, z, _one(s["port_rate"], p), z)
        q = rd(c["pq"], p, 1)[0]
        busy = opp & (q > 0)
        e = rd(c["pdep"], (p * R + (t & (R - 1))) * W, W)
        nxt = port_of(x, e[0], e[4] + 1)
        last = busy & (nxt < 0)
        fwd = busy & (nxt >= 0)
        if x.has("int"):  # the port's record for this hop: queue behind the packet, packets sent, slot, rate
            c = dict(c)
            c["ptx"] = c["ptx"].at[jnp.where(busy, p, P)].add(1)
            rec = jnp.stack([q - 1, rd(c["ptx"], p, 1)[0], _i(t), rd(s["port_rate"], p, 1)[0]]).astype(INT)
            e = lax.dynamic_update_slice(e, rec, (PE + IH * e[4],))
            c["int_now"] = jnp.where(busy, e[PE:], c["int_now"])
        c = lax.fori_loop(0, last.astype(INT), lambda _, c: deliver(x, c, t, e[0], e[1] > 0, e[2], e[3]), c)
        c = dict(c)
        c["fw"] = wr(c["fw"], jnp.where(fwd, c["fwn"], P) * W, e.at[4].set(e[4] + 1))
        c["fwn"] = c["fwn"] + fwd.astype(INT)
        q = q - busy.astype(INT)
        c["pq"] = wr(c["pq"], p, q[None])
        c["pq_sum"] = c["pq_sum"].at[p].add(q.astype(FLOAT))
        c["pbusy"] = c["pbusy"].at[p].add(busy.astype(INT))
        c["popps"] = c["popps"].at[p].add(opp.astype(INT))
        if x.has("scouts"):
            c = _serve_scouts(x, c, p, t, opp & ~busy)
        return c

    return lax.fori_loop(0, P, port, c)


def _serve_scouts(x: Ctx, c: dict, p: Any, t: Any, on: Any) -> dict:
    """An idle service slot of port ``p`` serves its queued Scouts: at the last hop each Scout's ACK returns one
    base RTT later (``s_wait`` adds its slots since it was sent); otherwise it moves on to the next port."""
    Cs = x.spec.scout_cap
    n = jnp.where(on, rd(c["psqn"], p, 1)[0], 0)

    def body(i: Any, c: dict) -> dict:
        e = rd(c["psq"], (p * Cs + i) * SE, SE)
        f, seq, hop = e[0], e[1], e[2]
        done = port_of(x, f, hop + 1) < 0
        c = dict(c)
        c["sfw"] = wr(c["sfw"], jnp.where(done, x.spec.n_ports * Cs, c["sfwn"]) * SE, e.at[2].set(hop + 1))
        c["sfwn"] = c["sfwn"] + (~done).astype(INT)
        c["s_served"] = c["s_served"] + done.astype(INT)
        return ack_scout(x, c, t, f, seq, done)

    c = lax.fori_loop(0, n, body, c)
    return dict(c, psqn=wr(c["psqn"], p, (rd(c["psqn"], p, 1)[0] - n)[None]))
