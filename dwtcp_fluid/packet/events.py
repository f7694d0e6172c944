"""The events of one flow: an ACK arrives, a timer fires, the flow sends, its packet leaves the bottleneck.

Each handler reads one flow's row, computes its new state as scalars and writes the row back, and files what it
causes in the rings: an accepted packet in the departure ring (at its departure slot), a departing packet's ACK in
the ACK wheel (at its arrival slot), a flow's next wake-up in the timer wheel. Work per event is independent of the
number of flows. Nothing large passes through a ``cond``: a write that must not happen goes to a spare row (index
``N`` of the flow array, the last row of each ring), so every update is an unconditional in-place write.

The carry ``c`` is a dict: ``fs`` (flows), ``ackw`` (ACK wheel: rows of ``lanes × 6`` ints ``stamp, flow, flags,
nloss, n, sent``), ``tw`` (timer wheel: rows of ``lanes × 2`` ints ``stamp, flow``), ``dep`` (departure ring:
``flow, mark, nloss, sent``), ``rl``/``rbase``/``rn`` (ready list, two halves), ``sq``/``sqn`` (Scout queue),
scalars (queue, counters); with the ``"int"`` feature, ``intw`` (the telemetry of each ACK wheel entry, ``IE`` ints
at the same row and lane), ``int_now`` (the port's telemetry at its latest departure) and ``txc`` (packets sent). An entry of a wheel is live in the slot equal to its stamp; rows are never cleared.
On routed ports each entry's telemetry is one record of ``IH`` ints per hop (:mod:`.ports`), read by the law as
per-hop vectors (``ev.int_qlen``, ``ev.int_tx``, ``ev.int_ts``, ``ev.int_rate``).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from .flows import FIN_COLS, IN_READY, STARTED, active, call_law, inputs, integrate, wr
from .laws.base import FLOAT, INT, NEVER, Events
from .laws.recovery import RECOVERY
from .ports import data_entry, enqueue, port_of, put_scout
from .scouts import scout_receive
from .switch import departure_slot, red_probability, uniform
from .wheels import (
    _NOISE,
    _RED,
    AE,
    DE,
    IE,
    IH,
    MARK_BIT,
    SCOUT_BIT,
    Ctx,
    _i,
    _pace_inv,
    _pace_ok,
    _ready_append,
    _wake_due,
    _window_open,
    arm,
    insert_ack,
    pace_schedule,
)

__all__ = ["Ctx", "on_ack", "on_wake", "on_start", "send", "arm", "insert_ack", "AE", "DE", "IE"]


def _settle(x: Ctx, c: dict, f: Any, F: dict, fi: dict, t: Any, law_wake: Any) -> dict:
    """After an event: join the ready list if the flow can send now, arm its timer, write it back."""
    can = _window_open(F, fi, t) & _pace_ok(x, F, t) & ((F["flags"] & IN_READY) == 0)
    c, F = _ready_append(x, c, f, F, can)
    c, F = arm(x, c, f, F, _wake_due(x, F, fi, t, law_wake), t)
    c = dict(c)
    c["fs"] = x.lay.write(c["fs"], f, F)
    return c


def _law_event(x: Ctx, c: dict, F: dict, fi: dict, t: Any, **e: Any) -> tuple[dict, dict, Any]:
    """Scout bookkeeping (when used), then one call of the flow's law on this event."""
    sc = x.sc
    ev: dict[str, Any] = {"t": t, "snd_nxt": F["nxt"], "snd_una": F["una"], "rtt": fi["rtt"].astype(FLOAT)}
    ev.update({k: v for k, v in e.items() if k not in ("cnt", "seqp1", "flow")})
    if x.has("int") and "int_qlen" not in e:  # a timer event carries no telemetry
        z = jnp.zeros((x.spec.route_len,), INT) if x.has("ports") else _i(0)
        ev.update(int_qlen=z, int_tx=z, int_ts=z)
        if x.has("ports"):
            ev.update(int_rate=z)
    if x.has("scouts"):
        st = {k: F["s_" + k] for k in ("sent", "unacked", "lostupto", "lastdelay", "lastgap", "lastrcv")}
        st = {"sent": st["sent"], "unacked": st["unacked"], "lost_upto": st["lostupto"]} | {
            "last_delay": st["lastdelay"],
            "last_gap": st["lastgap"],
            "last_rcv": st["lastrcv"],
        }
        st, n_ok, n_lost, d_s, ipg_s = scout_receive(
            st, t, e.get("cnt", _i(0)), e.get("seqp1", _i(0)), fi["start"], fi["scouts"], fi["sdt"]
        )
        F = dict(F)
        F.update(
            s_unacked=st["unacked"],
            s_lostupto=st["lost_upto"],
            s_lastdelay=st["last_delay"],
            s_lastgap=st["last_gap"],
            s_lastrcv=st["last_rcv"],
        )
        c = dict(c)
        c["s_lost"] = c["s_lost"] + n_lost
        wait = jnp.where(st["unacked"] < F["s_sent"], fi["start"] + st["unacked"] * fi["scouts"], NEVER)
        ev.update(
            scout_ok=n_ok,
            scout_lost=n_lost,
            d_s=d_s,
            ipg_s=ipg_s,
            scout_wait_from=wait,
            scout_last_delay=st["last_delay"],
            scout_last_gap=st["last_gap"],
            scout_last_rcv=st["last_rcv"],
        )
        if x.has("paths"):
            F = _datapath(x, c, F, fi, t, e["flow"], ev, n_ok, n_lost)
    ev["active"] = active(F, fi, t)
    ev.update(size=fi["size"], deadline=fi["deadline"])
    F = integrate(F, fi, t)
    F, law_wake = call_law(x.spec, x.lay, F, fi, Events(**ev), sc["law"])
    return c, F, law_wake


def _datapath(x: Ctx, c: dict, F: dict, fi: dict, t: Any, f: Any, ev: dict, n_ok: Any, n_lost: Any) -> dict:
    """Per-datapath Scouts ([DWTCP] §3.3): count the flow's own Scout ACKs and losses (a stream's leader); a flow
    that reads its pair's stream (``lead`` ≠ itself) takes the leader's Scout ACKs and losses since its last event
    and the leader's d_s, Scout gap and pending Scout instead of its own (``ev`` updated in place); every flow gets
    its share 1/n of the bandwidth signal, n the flows of its pair between their start and stop slots."""
    F = dict(F, s_okc=F["s_okc"] + n_ok, s_lostc=F["s_lostc"] + n_lost)
    lead = fi["lead"]
    member = lead != f
    L, fl = x.lay.read(c["fs"], lead), inputs(x.sc["fin"], lead)
    pending = L["s_unacked"] < L["s_sent"]
    sent_at = fl["start"] + L["s_unacked"] * fl["scouts"]
    d_s = jnp.maximum(L["s_lastdelay"], jnp.where(pending, (t - sent_at).astype(FLOAT), 0.0))
    ipg_s = jnp.maximum(L["s_lastgap"], (t - L["s_lastrcv"]).astype(FLOAT))
    got = {
        "scout_ok": L["s_okc"] - F["s_okseen"],
        "scout_lost": L["s_lostc"] - F["s_lostseen"],
        "d_s": d_s,
        "ipg_s": ipg_s,
        "scout_wait_from": jnp.where(pending, sent_at, NEVER),
        "scout_last_delay": L["s_lastdelay"],
        "scout_last_gap": L["s_lastgap"],
        "scout_last_rcv": L["s_lastrcv"],
    }
    for k, v in got.items():
        ev[k] = jnp.where(member, v, ev[k])
    F["s_okseen"] = jnp.where(member, L["s_okc"], F["s_okseen"])
    F["s_lostseen"] = jnp.where(member, L["s_lostc"], F["s_lostseen"])
    fin = x.sc["fin"].reshape(-1, len(FIN_COLS))
    lc, sc_, ec = (FIN_COLS.index(k) for k in ("lead", "start", "stop"))
    n = jnp.sum((fin[:, lc] == lead) & (fin[:, sc_] <= t) & (t < fin[:, ec])).astype(INT)
    ev["scout_share"] = 1.0 / jnp.maximum(n, 1).astype(FLOAT)
    return F


# --- events -----------------------------------------------------------------------------------------------


def _ack(x: Ctx, c: dict, F: dict, fi: dict, e: Any, t: Any) -> tuple[dict, dict, Any]:
    """Apply ACK wheel entry ``e`` (6 ints) to flow state ``F``: a data ACK of ``n`` packets reporting ``nloss``
    losses, or a Scout ACK of Scout ``n``; then one call of the law. Returns the law's wake-up slot too."""
    f = e[1]
    scout = (e[2] & SCOUT_BIT) > 0 if x.has("scouts") else jnp.asarray(False)
    data = ~scout
    k = jnp.where(data, e[4], 0)
    nl = jnp.where(data, e[3], 0)
    mark = data & ((e[2] & MARK_BIT) > 0)
    F = dict(F)
    data0 = data
    if x.has("rtx"):  # sent before the last timeout: a delivery only (:mod:`.laws.recovery`, lost_retransmit)
        live = data & (e[5] >= F["rtx_ghost"])
        F["acked"] = F["acked"] + jnp.where(data & ~live, k, 0)
        k, nl, mark, data = jnp.where(live, k, 0), jnp.where(live, nl, 0), mark & live, live
        F["rtx_owed"] = F["rtx_owed"] + nl
    F["infl"] = F["infl"] - k - nl
    F["una"] = F["una"] + k + nl
    F["acked"] = F["acked"] + k
    F["last"] = jnp.where(data, t, F["last"])
    done = data0 & (F["acked"] >= fi["size"]) & (F["finish"] == NEVER)
    F["finish"] = jnp.where(done, t, F["finish"])
    c = dict(c)
    if x.has("switch"):  # the FIN releases the flow's row of the switch table
        row = jnp.where(done, f, x.N)
        c["sw"] = c["sw"].at[row].set(0.0)
    c["marks"] = c["marks"] + jnp.where(mark, k, 0)
    extra = {}
    if x.has("rtt"):
        sample = (t - e[5]).astype(FLOAT)
        draw = uniform(x.sc["seed"], t, f, _NOISE, 2)
        if x.has("gauss-noise"):
            draw = jnp.where(x.sc["rtt_noise_uniform"], draw, _gauss(x.sc["seed"], t, f))
        noise = x.sc["rtt_noise"] * draw
        extra["rtt_sample"] = jnp.maximum(sample + noise, 1.0)
    if x.has("int") and x.has("ports"):  # one record of IH ints per hop after the AE ints
        h = e[AE : AE + IH * x.spec.route_len].reshape(x.spec.route_len, IH)
        extra.update(int_qlen=h[:, 0], int_tx=h[:, 1], int_ts=h[:, 2], int_rate=h[:, 3])
    elif x.has("int"):  # the telemetry after the AE ints (:data:`IE`)
        extra.update(int_qlen=e[AE], int_tx=e[AE + 1], int_ts=e[AE + 2])
    return _law_event(
        x,
        c,
        F,
        fi,
        t,
        ack=data,
        mark=mark,
        nloss=nl,
        n_acked=jnp.maximum(k, 1),
        cnt=scout.astype(INT),
        seqp1=jnp.where(scout, e[4] + 1, 0),
        flow=f,
        **extra,
    )


def on_ack(x: Ctx, c: dict, e: Any, t: Any, fast: Any, other: Any) -> dict:
    """An ACK wheel entry ``e`` is due now: update its flow and run its law. Then, in the common slot (``fast``:
    this is the slot's only ACK, no timer is due, nobody waits to send) its flow is the slot's only possible
    sender, so it sends at once and, if it may send again next slot, goes straight to the next slot's ready list
    (half ``other``); otherwise it joins this slot's ready list if it can send. One read and one write."""
    f = e[1]
    F, fi = x.lay.read(c["fs"], f), inputs(x.sc["fin"], f)
    c, F, w = _ack(x, c, F, fi, e, t)

    def send_now(_: Any, st: tuple) -> tuple:
        c, F, _stay = st
        return _send(x, c, f, F, fi, t)

    c, F, stay = lax.fori_loop(0, fast.astype(INT), send_now, (c, F, jnp.asarray(False)))
    can = ~fast & _window_open(F, fi, t) & _pace_ok(x, F, t) & ((F["flags"] & IN_READY) == 0)
    c = dict(c)
    off = jnp.where(can, c["rbase"] + c["rn"], jnp.where(fast & stay, other, 2 * x.N))
    c["rl"] = wr(c["rl"], off, _i(f)[None])
    c["rn"] = c["rn"] + can.astype(INT)
    c["kept0"] = c["kept0"] + (fast & stay).astype(INT)
    F = dict(F)
    F["flags"] = jnp.where(can, F["flags"] | IN_READY, F["flags"])
    c, F = arm(x, c, f, F, _wake_due(x, F, fi, t, w), t)
    c["fs"] = x.lay.write(c["fs"], f, F)
    return c


def _gauss(seed: Any, t: Any, f: Any) -> Any:
    """A standard normal draw keyed by (seed, slot, flow) (Box-Muller on two hashed uniforms)."""
    u1 = jnp.maximum(uniform(seed, t, f, _NOISE, 0), 1e-7)
    u2 = uniform(seed, t, f, _NOISE, 1)
    return jnp.sqrt(-2.0 * jnp.log(u1)) * jnp.cos(2.0 * jnp.pi * u2)


def on_start(x: Ctx, c: dict, f: Any, t: Any) -> dict:
    """Flow ``f`` starts in slot ``t``: it may send, and a Scout-using flow sends its first Scout now. (Nothing is
    outstanding yet, so the timeout, Scout-timeout and law checks of :func:`on_wake` would change nothing.)"""
    F, fi = x.lay.read(c["fs"], f), inputs(x.sc["fin"], f)
    F = dict(F)
    F["flags"] = F["flags"] | STARTED
    F["t_int"] = t
    c, F = _scout_send(x, c, f, F, fi, t)
    return _settle(x, c, f, F, fi, t, _i(NEVER))


def _scout_send(x: Ctx, c: dict, f: Any, F: dict, fi: dict, t: Any) -> tuple[dict, dict]:
    """A Scout-using flow sends Scout ``s_sent`` in its slot start + s·P (P: its Scout period, the input ``scouts``;
    drop-tail Scout queue)."""
    if not x.has("scouts"):
        return c, F
    due = (fi["scouts"] > 0) & active(F, fi, t) & (t == fi["start"] + F["s_sent"] * fi["scouts"])
    if x.has("ports"):  # the Scout queue of the first port of the flow's route
        c = put_scout(x, c, port_of(x, f, 0), f, F["s_sent"], 0, due)
        return c, dict(F, s_sent=F["s_sent"] + due.astype(INT))
    room = c["sqn"] < x.sc["scout_buffer"]
    put = due & room
    off = jnp.where(put, c["sqn"] * 2, x.spec.scout_cap * 2)
    c = dict(c)
    c["sq"] = wr(c["sq"], off, jnp.stack([_i(f), F["s_sent"]]))
    c["sqn"] = c["sqn"] + put.astype(INT)
    c["s_dropped"] = c["s_dropped"] + (due & ~room).astype(INT)
    F = dict(F)
    F["s_sent"] = F["s_sent"] + due.astype(INT)
    return c, F


def on_wake(x: Ctx, c: dict, f: Any, t: Any) -> dict:
    """Flow ``f``'s timer: retransmission timeout, delayed-ACK flush, Scout timeouts and sends, its law's
    wake-up. Every check is a condition on the state at ``t`` (as a per-slot check would do), so a stale entry
    changes nothing that a check in this slot would not."""
    F, fi = x.lay.read(c["fs"], f), inputs(x.sc["fin"], f)
    F = dict(F)
    F["wake"] = jnp.where(F["wake"] == t, NEVER, F["wake"])
    sc = x.sc
    lost = F["pend"] + (F["r_loss"] if "r_loss" in F else 0) + (F["rtx_holes"] if x.has("rtx") else 0)
    to = (F["infl"] > 0) & (F["infl"] == lost) & (t - F["last"] >= sc["rto"])
    if x.has("rtx"):  # a dropped stand-in retransmission: the timeout at its send slot + RTO
        to = to | ((F["rtx_holes"] > 0) & (t >= F["rtx_dl"]))
        F["rtx_owed"] = jnp.where(to, 0, F["rtx_owed"])
        F["rtx_holes"] = jnp.where(to, 0, F["rtx_holes"])
        F["rtx_dl"] = jnp.where(to, NEVER, F["rtx_dl"])
        F["rtx_ghost"] = jnp.where(to, t, F["rtx_ghost"])
    cleared = jnp.where(to, F["infl"], 0)
    F["infl"] = F["infl"] - cleared
    F["una"] = F["una"] + cleared
    F["pend"] = jnp.where(to, 0, F["pend"])
    if "r_loss" in F:
        F["r_loss"] = jnp.where(to, 0, F["r_loss"])
    F["last"] = jnp.where(to, t, F["last"])
    F["tmo"] = F["tmo"] + to.astype(INT)
    if x.has("delack"):
        from .receiver import emit

        flush = (F["r_cnt"] > 0) & (t >= F["r_dl"])
        c, F = emit(x, c, f, F, fi, t, flush, F["r_cnt"], F["r_ce"] > 0, F["r_nloss"], F["r_sent"])
        F["r_cnt"] = jnp.where(flush, 0, F["r_cnt"])
        F["r_nloss"] = jnp.where(flush, 0, F["r_nloss"])
    c, F, w = _law_event(x, c, F, fi, t, ack=jnp.asarray(False), timeout=to, flow=f)
    c, F = _scout_send(x, c, f, F, fi, t)
    return _settle(x, c, f, F, fi, t, w)


def _at_switch(x: Ctx, c: dict, f: Any, F: dict, fi: dict, t: Any, acc: Any) -> tuple[dict, dict]:
    """The law's switch hook on an accepted packet (:meth:`~.laws.base.Law.at_switch`): the flow's law state and
    the switch table, both kept only when the packet was accepted."""
    law = x.spec.laws[0]
    F = integrate(F, fi, t)  # the window integrals up to now, before the hook may change the window
    s = x.lay.law_state(0, F)
    pkt = {"t": t, "seq": F["nxt"], "una": F["una"], "size": fi["size"], "deadline": fi["deadline"],
           "rtt": fi["rtt"].astype(FLOAT), "capacity": jnp.asarray(1.0, FLOAT)}  # fmt: skip
    s2, table = law.at_switch(s, c["sw"], _i(f), pkt, x.sc["law"][0])
    s2 = {k: jnp.where(acc, v, s[k]).astype(s[k].dtype) for k, v in s2.items()}
    F = x.lay.with_law_state(0, F, s2)
    F["cwnd"] = jnp.asarray(s2["cwnd"], FLOAT)
    if law.rate_based:
        F["rate"] = jnp.asarray(s2["rate"], FLOAT)
    if law.aux:
        F["aux"] = jnp.asarray(s2[law.aux], FLOAT)
    c = dict(c)
    c["sw"] = jnp.where(acc, table, c["sw"])
    return c, F


def _send(x: Ctx, c: dict, f: Any, F: dict, fi: dict, t: Any) -> tuple[dict, dict, Any]:
    """Flow ``f`` (state ``F``) sends one packet in slot ``t`` if its window and pacing allow: drop-tail enqueue,
    ECN mark at enqueue, the packet filed at its departure slot. Returns whether it may send again next slot."""
    sc, spec = x.sc, x.spec
    F = dict(F)
    ok = _window_open(F, fi, t) & _pace_ok(x, F, t)
    if spec.has("ports"):  # the first port of the flow's route
        c, acc, _ = enqueue(x, c, port_of(x, f, 0), data_entry(x, f, F["pend"], t), t, ok)
        return _sent(x, c, f, F, fi, t, ok, acc)
    seen = c["qlen"]
    acc = ok & (seen < sc["buffer"])
    if x.has("red"):
        u = uniform(sc["seed"], t, f, _RED)
        mark = (
            acc & ~sc["mark_dequeue"] & (u < red_probability(seen, sc["K"], sc["red_kmax"], sc["red_pmax"]))
        )
    else:
        mark = acc & ~sc["mark_dequeue"] & (seen >= sc["kth"])
    if spec.has("capacity"):
        dslot = departure_slot(t, seen, sc["cap_start"], sc["cap_rate"], sc["cap_opp"])
    else:
        dslot = t + seen
    R = spec.dep_rows
    off = jnp.where(acc, (dslot & (R - 1)) * DE, R * DE)
    c = dict(c)
    c["dep"] = wr(c["dep"], off, jnp.stack([_i(f), mark.astype(INT), F["pend"], _i(t)]))
    c["qlen"] = c["qlen"] + acc.astype(INT)
    if spec.has("switch"):
        c, F = _at_switch(x, c, f, F, fi, t, acc)
    return _sent(x, c, f, F, fi, t, ok, acc)


def _sent(x: Ctx, c: dict, f: Any, F: dict, fi: dict, t: Any, ok: Any, acc: Any) -> tuple[dict, dict, Any]:
    """The sender's side of a send attempt (``ok``: it sent; ``acc``: the first port accepted the packet)."""
    drop = ok & ~acc
    F = dict(F)
    hole = jnp.asarray(False)
    if x.has(
        "rtx"
    ):  # sent in Recovery, the packet stands for a retransmission owed; dropped, it is not reported
        law = x.lay.law_state(0, F)
        rtx = ok & (F["rtx_owed"] > 0) & ((law["ca"] == RECOVERY) if "ca" in law else True)
        F["rtx_owed"] = F["rtx_owed"] - rtx.astype(INT)
        hole = rtx & drop
        F["rtx_dl"] = jnp.where(hole & (F["rtx_holes"] == 0), t + x.sc["rto"], F["rtx_dl"])
        F["rtx_holes"] = F["rtx_holes"] + hole.astype(INT)
    # drops ride on the flow's next accepted packet
    F["pend"] = jnp.where(acc, 0, F["pend"] + (drop & ~hole).astype(INT))
    F["drops"] = F["drops"] + drop.astype(INT)
    F["last"] = jnp.where(ok & (F["infl"] == 0), t, F["last"])  # an idle flow arms its timer when it sends
    F["infl"] = F["infl"] + ok.astype(INT)
    F["nxt"] = F["nxt"] + ok.astype(INT)
    if x.has("pacing"):
        # keep the schedule while the flow keeps up with it (the long-run rate is exactly the pacing rate);
        # restart it from now after an idle spell of more than one slot (no burst credit)
        ns_int, ns_frac = pace_schedule(F["ns_int"], F["ns_frac"], t, _pace_inv(x, F, fi, t, f))
        F["ns_int"] = jnp.where(ok, ns_int, F["ns_int"])
        F["ns_frac"] = jnp.where(ok, ns_frac, F["ns_frac"]).astype(FLOAT)
    stay = _window_open(F, fi, t + 1) & _pace_ok(x, F, t + 1)
    F["flags"] = jnp.where(stay, F["flags"] | IN_READY, F["flags"] & ~IN_READY)
    return c, F, stay


def send(x: Ctx, c: dict, f: Any, t: Any) -> tuple[dict, Any]:
    """Flow ``f`` of the ready list sends one packet in slot ``t`` if it still may; returns whether it stays in
    the ready list (it may send again next slot)."""
    F, fi = x.lay.read(c["fs"], f), inputs(x.sc["fin"], f)
    c, F, stay = _send(x, c, f, F, fi, t)
    c, F = arm(x, c, f, F, _wake_due(x, F, fi, t, _i(NEVER)), t)
    c = dict(c)
    c["fs"] = x.lay.write(c["fs"], f, F)
    return c, stay
