"""Primitives shared by the event handlers and the receiver: the per-run context, the ring entry layouts, filing
an ACK in the wheel, arming a flow's timer, the ready list and the send tests (see :mod:`.events`)."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from .flows import IN_READY, STARTED, rd, wr
from .laws.base import FLOAT, INT, NEVER
from .switch import uniform

AE = 6  # ACK wheel entry: stamp, flow, flags, nloss, n (packets acknowledged, or the Scout's number), sent slot
#: In-band telemetry of an ACK entry (feature ``"int"``, kept in the parallel wheel ``intw`` at the same row and
#: lane): the bottleneck port's queue after the packet left, its transmitted-packet counter, the departure slot.
IE = 3
#: In-band telemetry of one hop on routed ports (features ``"int"`` and ``"ports"``): the port's queue behind the
#: packet as it left, its transmitted-packet counter, the departure slot and the port's rate (per mille of the
#: highest rate); a packet and its ACK carry one such record per hop of the route (:func:`int_width`).
IH = 4
DE = 4  # departure ring entry: flow, ECN mark at enqueue, losses reported, send slot
MARK_BIT, SCOUT_BIT = 1, 2
# purposes of the random draws (hash keys)
_JITTER, _LOSS, _NOISE, _ORDER, _GAP = 1, 2, 3, 4, 5
#: Purpose key of the RED marking draws (:func:`~.switch.red_probability`).
_RED = 6


class Ctx:
    """What every handler needs: the static spec, the layout, the scenario (scalars and read-only arrays)."""

    def __init__(self, spec: Any, lay: Any, sc: dict[str, Any]) -> None:
        self.spec, self.lay, self.sc = spec, lay, sc
        self.N = spec.n_flows
        self.has = spec.has


def int_width(spec: Any) -> int:
    """Ints of telemetry per ACK entry: :data:`IE` for the single bottleneck, :data:`IH` per hop of the longest
    route on routed ports."""
    return IH * spec.route_len if spec.has("ports") else IE


def _i(x: Any) -> Any:
    return jnp.asarray(x, INT)


# --- rings ------------------------------------------------------------------------------------------------


def insert_ack(
    x: Ctx, c: dict, s: Any, flow: Any, flags: Any, nloss: Any, n: Any, sent: Any, on: Any
) -> dict:
    """File an ACK (or Scout ACK) arriving in slot ``s`` in the first free lane of its row; a full row pushes
    it to the next slot (counted in ``spill``; zero whenever lanes ≥ the ACKs that can share a slot)."""
    R, La = x.spec.ack_rows, x.spec.ack_lanes
    ackw = c["ackw"]

    def probe(st: tuple) -> tuple:
        s, _ = st
        row = rd(ackw, (s & (R - 1)) * (La * AE), La * AE).reshape(La, AE)
        free = row[:, 0] != s
        lane = jnp.where(jnp.any(free), jnp.argmax(free).astype(INT), -1)
        return jnp.where(lane < 0, s + 1, s), lane

    s0 = _i(s)
    s1, lane = lax.while_loop(lambda st: on & (st[1] < 0), probe, (s0, _i(-1)))
    off = jnp.where(on, ((s1 & (R - 1)) * La + lane) * AE, R * La * AE)  # spare row when off
    c = dict(c)
    c["ackw"] = wr(ackw, off, jnp.stack([s1, _i(flow), _i(flags), _i(nloss), _i(n), _i(sent)]))
    # the telemetry of the latest departure (:func:`~.receiver.depart`, :func:`~.ports.serve_ports`)
    if x.has("int"):
        c["intw"] = wr(c["intw"], (off // AE) * int_width(x.spec), c["int_now"])
    c["spill"] = c["spill"] + jnp.where(on, s1 - s0, 0)
    return c


def arm(x: Ctx, c: dict, f: Any, F: dict, w: Any, t: Any) -> tuple[dict, dict]:
    """Make sure flow ``f`` is woken by slot ``w`` (:data:`NEVER`: no need). An earlier live entry is kept (it
    fires, finds nothing due and re-arms); timers beyond the wheel are re-armed at its last row. When the row is
    full the entry goes to the overflow list (``ov``, fired by the engine at its slot; ``dense`` is the earliest
    slot in it), so timers stay exact whatever the number of flows due in one slot."""
    Rt, Lt = x.spec.timer_rows, x.spec.timer_lanes
    live = (F["wake"] > t) & (F["wake"] < NEVER)
    need = (w < NEVER) & (~live | (w < F["wake"]))
    slot = jnp.minimum(w, t + (Rt - 1))

    def put(_: Any, st: tuple) -> tuple:
        c, F = st
        row = rd(c["tw"], (slot & (Rt - 1)) * (Lt * 2), Lt * 2).reshape(Lt, 2)
        free = row[:, 0] != slot
        if x.has("pacing"):
            # a paced flow re-arms a far wake-up (a rate law's timer) after each pacing wake-up before it: the
            # entry already in the row is kept instead of filling the row with copies of it
            dup = jnp.any((row[:, 0] == slot) & (row[:, 1] == f))
        else:
            dup = jnp.asarray(False)
        ok = jnp.any(free) | dup
        lane = jnp.argmax(free).astype(INT)
        off = jnp.where(ok & ~dup, ((slot & (Rt - 1)) * Lt + lane) * 2, Rt * Lt * 2)
        c = dict(c)
        c["tw"] = wr(c["tw"], off, jnp.stack([slot, _i(f)]))
        cap = 2 * x.N
        over = ~ok & (c["ovn"] < cap)
        c["ov"] = wr(c["ov"], jnp.where(over, c["ovn"], cap) * 2, jnp.stack([slot, _i(f)]))
        c["ovn"] = c["ovn"] + over.astype(INT)
        c["dense"] = jnp.where(over, jnp.minimum(c["dense"], slot), c["dense"])
        c["tw_over"] = c["tw_over"] + (~ok).astype(INT)
        c["tw_lost"] = c["tw_lost"] + (~ok & ~over).astype(INT)  # never, unless 2N timers overflow at once
        F = dict(F)
        F["wake"] = slot
        return c, F

    return lax.fori_loop(0, need.astype(INT), put, (c, F))


def _ready_append(x: Ctx, c: dict, f: Any, F: dict, add: Any) -> tuple[dict, dict]:
    c = dict(c)
    off = jnp.where(add, c["rbase"] + c["rn"], 2 * x.N)
    c["rl"] = wr(c["rl"], off, _i(f)[None])
    c["rn"] = c["rn"] + add.astype(INT)
    F = dict(F)
    F["flags"] = jnp.where(add, F["flags"] | IN_READY, F["flags"])
    return c, F


# --- what a flow may do next -----------------------------------------------------------------------------


def _pace_inv(x: Ctx, F: dict, fi: dict | None = None, t: Any = None, f: Any = None) -> Any:
    """Slots between two sends: 1/min(access, rate); for a law with :attr:`~.laws.base.Law.poisson_pacing`
    (given the flow's inputs ``fi``, the slot ``t`` and the flow ``f``) a geometric gap instead,
    G = 1 + floor(ln(1 − u)/ln(1 − p)) with p = min(access, rate) and u uniform keyed by (seed, t, f): P(G = k) =
    (1 − p)^(k−1)·p, so the flow sends in each slot with probability p independently of the past."""
    p = x.sc["access"]
    if x.has("rate"):
        p = jnp.minimum(p, jnp.maximum(F["rate"], 1e-6))
    inv = 1.0 / p
    geo = [law.poisson_pacing for law in x.spec.laws]
    if fi is None or not any(geo):
        return inv
    u = uniform(x.sc["seed"], t, f, _GAP)
    q = jnp.minimum(p, 1.0 - 1e-6)
    g = 1.0 + jnp.floor(jnp.log1p(-u) / jnp.log1p(-q))
    on = jnp.asarray(geo)[fi["law"]] if len(geo) > 1 else jnp.asarray(True)
    return jnp.where(on, g, inv)


def _window_open(F: dict, fi: dict, t: Any) -> Any:
    started = (F["flags"] & STARTED) > 0
    data_left = F["acked"] + F["infl"] < fi["size"]
    return started & (t < fi["stop"]) & data_left & (F["infl"].astype(FLOAT) + 1.0 <= F["cwnd"])


def _pace_ok(x: Ctx, F: dict, t: Any) -> Any:
    """Pacing allows a send in slot ``t`` (always without pacing: a flow sends at most once per slot anyway)."""
    if not x.has("pacing"):
        return jnp.asarray(True)
    return pace_due(F["ns_int"], F["ns_frac"], t)


def pace_due(ns_int: Any, ns_frac: Any, t: Any) -> Any:
    """A flow whose next send is due at slot ``ns_int`` + ``ns_frac`` may send in slot ``t``."""
    return (ns_int < t) | ((ns_int == t) & (ns_frac <= 1e-6))


def pace_schedule(ns_int: Any, ns_frac: Any, t: Any, inv: Any) -> tuple[Any, Any]:
    """The next send time (integer slot, fraction) after a send in slot ``t``, ``inv`` slots between sends.

    The schedule is kept while the flow keeps up with it, so the long-run rate is exactly 1/``inv`` (restarting
    it from the send slot loses the fraction: 0.7 of line rate would give 0.5); after an idle spell of more than
    one slot it restarts from now (no burst credit). Both packet engines pace with it.
    """
    idle = (t - ns_int).astype(FLOAT) - ns_frac >= 1.0
    base_i = jnp.where(idle, t, ns_int)
    base_f = jnp.where(idle, 0.0, ns_frac)
    nf = base_f + inv
    whole = jnp.floor(nf)
    return base_i + whole.astype(INT), nf - whole


def _wake_due(x: Ctx, F: dict, fi: dict, t: Any, law_wake: Any) -> Any:
    """The flow's next timer: retransmission timeout, pacing, Scout send and timeout, delayed ACK, its law."""
    never = _i(NEVER)
    lost = F["pend"] + (F["r_loss"] if "r_loss" in F else 0) + (F["rtx_holes"] if x.has("rtx") else 0)
    rto = jnp.where((F["infl"] > 0) & (F["infl"] == lost), jnp.maximum(F["last"] + x.sc["rto"], t + 1), never)
    w = jnp.minimum(rto, law_wake)
    if x.has("rtx"):  # a dropped stand-in retransmission's timeout
        w = jnp.minimum(w, jnp.where(F["rtx_holes"] > 0, jnp.maximum(F["rtx_dl"], t + 1), never))
    if x.has("pacing"):
        wait = _window_open(F, fi, t + 1) & ~_pace_ok(x, F, t) & ((F["flags"] & IN_READY) == 0)
        due = F["ns_int"] + (F["ns_frac"] > 1e-6).astype(INT)
        w = jnp.minimum(w, jnp.where(wait, jnp.maximum(due, t + 1), never))
    if x.has("scouts"):
        nxt = fi["start"] + F["s_sent"] * fi["scouts"]
        live = (fi["scouts"] > 0) & (nxt < fi["stop"]) & (F["acked"] < fi["size"]) & (nxt > t)
        w = jnp.minimum(w, jnp.where(live, nxt, never))
        old = fi["start"] + F["s_lostupto"] * fi["scouts"] + jnp.floor(fi["sdt"]).astype(INT) + 1
        w = jnp.minimum(w, jnp.where(F["s_lostupto"] < F["s_sent"], jnp.maximum(old, t + 1), never))
    if x.has("delack"):
        w = jnp.minimum(w, jnp.where(F["r_cnt"] > 0, jnp.maximum(F["r_dl"], t + 1), never))
    return w
