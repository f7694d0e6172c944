"""The slot loop of the packet core: work per slot is the events of that slot, not the number of flows.

One slot (one data packet's transmission time at the highest rate) proceeds as follows, for one scenario:

1. Flows whose start slot has come start (a pointer into the flows sorted by start slot).
2. ACKs due now arrive (the ACK wheel's row of this slot): each updates its flow and runs its law once.
3. Timers due now fire (the timer wheel's row, and the overflow list when a row was full):
   retransmission timeouts, delayed-ACK flushes, Scout timeouts and sends, a law's own wake-ups.
4. Flows in the ready list send one packet each, in a seeded rotating order; an accepted packet is filed in the
   departure ring at its departure slot (the FIFO is a counter, :mod:`.switch`).
5. One slot of service: the head packet leaves (its receiver files the ACK at its arrival slot) or, when the
   data queue is empty, every queued Scout is served (with routed ports, at every port; see below).

**Semantics**: one packet per busy slot, drop-tail, ECN at enqueue or dequeue, a strict-priority Scout queue
served in idle slots, a per-flow access link at line rate, a retransmission timeout after every outstanding packet
is lost, losses reported by the flow's next delivered packet — checked by hand-computed slot-by-slot tests. Also:

* simultaneous senders of a slot are enqueued in the order of the ready list (flows in the order they could
  send) rotated by a seeded offset, so that no flow is always last when the buffer overflows;
* the events of one flow in one slot are applied one at a time (ACKs in arrival order, then timers), each with
  one call of its law: when a flow gets a Scout ACK and a data ACK in the same slot, DWTCP's decrease is checked
  after each;
* an access link slower than the bottleneck (``access`` < 1), and a rate-based law, pace on a fractional
  schedule: the long-run rate is exactly the pacing rate.

**Routed ports** (feature ``"ports"``, :mod:`.ports`; inputs ``route``, ``port_rate``, ``port_buffer``,
``port_kth`` of :class:`~.state.Scenario`): each flow crosses a list of ports; each port has its own rate
(served on the fractional grid of :func:`~.switch.is_service_slot`, the slot being the highest rate), drop-tail
FIFO, step ECN at enqueue and strict-priority Scout queue served in its own idle service slots; a packet served at
a port that is not the last of its route reaches the next one at the start of the next slot (step 0, before the
starts), and the last port hands it to the receiver (:func:`~.receiver.deliver`). Step 5 is then one slot of
service at every port in port id order. A one-port route is the single bottleneck record for record
(``tests/test_packet_ports.py``); the records gain per-port ``port_*`` keys. Not combined with marking at dequeue,
RED, a capacity schedule, per-datapath Scouts, a switch table or the debug residual (refused). Each port writes
its in-band telemetry into the packets it serves, one record per hop, echoed by the ACK (:mod:`.ports`; a law
reading it keeps one record per hop of the longest route, :meth:`~.laws.base.Law.with_int_hops`). The ``"hops"``
signal is not carried yet. The native loop runs routed ports for its laws (``tests/test_packet_native_ports.py``),
without in-band telemetry (refused by name there; :func:`.batch.choose_engine` picks this engine for it).

A run is ``lax.scan`` over record chunks around a ``while`` over the slots of a chunk; the whole slot loop is
compiled into one native kernel (:mod:`.xla`). At each chunk end a vectorised pass over the flows records
per-flow totals and resets the window integrals, so memory is bounded by the number of chunks. A batch of
scenarios is a ``lax.map`` over them inside one compiled call (:mod:`.batch`).

**This engine is the reference.** It defines the slot semantics. The native loop (:mod:`.native`) runs the same
slots as hand-written native code for single-bottleneck DCTCP, D2TCP, Reno, DWTCP (Scouts), TIMELY, Patched
TIMELY and Swift (paced), HPCC and HPCC-PINT (paced, in-band telemetry), open-loop senders and Scout-only probes,
without impairments, proven bit-identical to this engine by ``tests/test_packet_native.py`` and
``tests/test_packet_native_hpcc.py``; a change here is mirrored
there, or those tests fail. :func:`.batch.choose_engine` picks the engine of a run (``engine="auto"``: native
exactly on its set).
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from .events import AE, DE, Ctx, on_ack, on_start, on_wake, send
from .flows import FIN_COLS, Layout, f2i, rd
from .laws.base import FLOAT, INT, NEVER, Law
from .ports import SE, arrivals, entry_width, serve_ports
from .receiver import depart, serve_scouts
from .records import chunk_records, debug_residual
from .state import EngineSpec, PacketConfig, Scenario, pow2
from .switch import hash32, is_service_slot
from .topology import SINGLE, check_law_on
from .wheels import int_width

__all__ = ["spec_for", "prepare"]


def _laws_tuple(law: Law | tuple[Law, ...]) -> tuple[Law, ...]:
    return tuple(law) if isinstance(law, tuple | list) else (law,)


def spec_for(cfg: PacketConfig, law: Law | tuple[Law, ...], sc: Scenario) -> EngineSpec:
    """The static shape for a batch (``sc`` stacked, leading batch axis) of this configuration and law(s)."""
    laws = _laws_tuple(law)
    check_law_on(laws, SINGLE)
    a = {k: np.asarray(v) for k, v in sc._asdict().items() if k != "law"}
    n = int(a["rtt"].shape[-1])
    if n > cfg.n_flows:
        raise ValueError(f"flows={n} is out of range: accepted at most n_flows={cfg.n_flows}")
    feats = set()
    if any(law.uses_scouts for law in laws) and bool(np.any(a["scouts"])):
        feats.add("scouts")
    if "scouts" in feats and any(getattr(law, "scout_per", "flow") == "datapath" for law in laws):
        feats.add("paths")
    if np.any(a["jitter_table"] > 0):
        feats.add("jitter")
    if np.any(a["loss_p"] > 0):
        feats.add("loss")
    if np.any(a["delack_m"] > 1):
        feats.add("delack")
    if np.any(a["cap_rate"] != 1000) or a["cap_rate"].shape[-1] > 1:
        feats.add("capacity")
    if any("rtt" in law.signals for law in laws):
        feats.add("rtt")
        if np.any((a["rtt_noise"] != 0) & ~a["rtt_noise_uniform"]):
            feats.add("gauss-noise")
    if any(law.rate_based for law in laws):
        feats.update({"rate", "pacing"})
    if any("int" in law.signals for law in laws):
        feats.add("int")
    if np.any(a["access"] < 1.0):
        feats.add("pacing")
    if len(laws) > 1:
        feats.add("mixed")
    if np.any(a["red_pmax"] > 0):
        feats.add("red")
    ports = sc.route is not None
    if ports:
        a.update({k: np.asarray(getattr(sc, k)) for k in ("route", "port_rate", "port_buffer", "port_kth")})
        feats.add("ports")
        if np.any(a["mark_dequeue"]):
            raise ValueError("mark_at='dequeue' is invalid with routed ports: accepted 'enqueue'")
        P, r = int(a["port_rate"].shape[-1]), a["route"]
        if a["port_rate"].min() < 1 or a["port_rate"].max() > 1000:
            raise ValueError(
                f"port_rate={a['port_rate'].tolist()} is out of range: accepted 1..1000 per mille"
            )
        if a["port_buffer"].min() < 1 or a["port_buffer"].shape[-1] != P or a["port_kth"].shape[-1] != P:
            raise ValueError(f"port_buffer={a['port_buffer'].tolist()} is invalid: accepted {P} buffers >= 1")
        pad = np.cumsum(r < 0, axis=-1) > 0  # -1 only as trailing padding
        if r.shape[-1] < 1 or np.any(r[..., 0] < 0) or np.any((r < 0) != pad) or r.max() >= P or r.min() < -1:
            raise ValueError(
                f"route={r.tolist()} is invalid: accepted port ids 0..{P - 1} per flow, -1 padded"
            )
    if any(getattr(law, "lost_retransmit", "report") == "rto" for law in laws):
        feats.add("rtx")
        bad = sorted(feats & {"loss", "delack", "jitter", "mixed"} | ({"ports"} if ports else set()))
        if any(getattr(law, "lost_retransmit", "report") != "rto" for law in laws):
            bad.append("a law without it")
        if bad:
            raise ValueError(
                f"lost_retransmit='rto' is invalid with {', '.join(bad)}: accepted one law at a single bottleneck "
                "without random loss, delayed ACKs or jitter"
            )
    if any(law.switch_width for law in laws):
        if len(laws) > 1:
            raise ValueError(
                f"law={'+'.join(law.name for law in laws)!r} is invalid: a law that keeps state at the switch "
                "runs alone (accepted one law)"
            )
        feats.add("switch")
    clash = feats & {"capacity", "red", "switch", "paths"} | ({"debug"} if cfg.debug else set())
    if {"int", "delack"} <= feats:
        clash.add("delack (with in-band telemetry)")
    clash = clash if ports else set()
    if clash:
        raise ValueError(
            f"route is invalid with {', '.join(sorted(clash))}: accepted routed ports without them"
        )
    if ports and "int" in feats:  # a telemetry law keeps the previous ACK's record of every hop of the route
        laws = tuple(
            lw.with_int_hops(int(a["route"].shape[-1])) if "int" in lw.signals else lw for lw in laws
        )
    rtt_max = int(a["rtt"].max())
    jit = int(np.ceil(a["jitter_table"].max()))
    rtts = a["rtt"].reshape(-1, n)
    n_rtts = max(len(np.unique(r)) for r in rtts)
    lanes = n_rtts * (2 if "delack" in feats else 1) + (cfg.scout_buffer if "scouts" in feats else 0)
    if "jitter" in feats:  # jittered ACKs share slots; without reordering a late ACK holds back a burst
        lanes = max(lanes + 3, 16)
    rmin = int(a["cap_rate"].min()) if "capacity" in feats else 1000
    buf = int(a["buffer"].max())
    if ports:  # every port's ACKs may share a slot; the slowest port's queue sets the ring
        lanes *= int(a["port_rate"].shape[-1])
        rmin, buf = int(a["port_rate"].min()), int(a["port_buffer"].max())
    dep = buf * math.ceil(1000 / max(rmin, 1)) + math.ceil(1000 / max(rmin, 1)) + 2
    return EngineSpec(
        n_flows=pow2(cfg.n_flows),
        n_chunks=pow2(cfg.n_chunks),
        ack_rows=pow2(max(rtt_max + jit + 32, cfg.ring_len - int(a["buffer"].max()))),
        ack_lanes=pow2(min(max(lanes, 1), 32)),
        dep_rows=pow2(dep),
        timer_rows=pow2(min(max(4 * rtt_max, int(a["rto"].max()) + 2, 256), 1 << 15)),
        timer_lanes=4,
        scout_cap=cfg.scouts_per_slot if "scouts" in feats else 0,
        jitter_points=int(a["jitter_table"].shape[-1]),
        cap_segments=int(a["cap_rate"].shape[-1]),
        laws=laws,
        features=frozenset(feats),
        debug=cfg.debug,
        n_ports=int(a["port_rate"].shape[-1]) if ports else 1,
        route_len=int(a["route"].shape[-1]) if ports else 1,
    )


def prepare(spec: EngineSpec, sc: Scenario) -> dict[str, np.ndarray]:
    """One scenario as the engine's inputs (host side): per-flow inputs packed and padded to the spec's flow
    count (padding flows never start), flows sorted by start slot, scalars."""
    N = spec.n_flows
    n = int(np.asarray(sc.rtt).shape[0])
    fin = np.zeros((N, len(FIN_COLS)), np.int32)
    fin[:, 0] = 2
    fin[:, 1] = NEVER
    cols = {
        "rtt": sc.rtt,
        "start": sc.start,
        "stop": sc.stop,
        "size": sc.size,
        "law": sc.law_idx,
        "scouts": sc.scouts,
        "deadline": np.full(n, NEVER) if sc.deadline is None else sc.deadline,
        "lead": np.arange(n) if sc.scout_lead is None else sc.scout_lead,
    }
    for i, name in enumerate(FIN_COLS[:-1]):
        fin[:n, i] = np.asarray(cols[name]).astype(np.int64).clip(-(2**31), 2**31 - 1)
    fin[:n, -1] = np.asarray(sc.scout_dt, np.float32).view(np.int32)
    start = fin[:, 1].astype(np.int64)
    order = np.argsort(start, kind="stable").astype(np.int32)
    out: dict[str, Any] = {
        "fin": fin.reshape(-1),
        "order": order,
        "start_at": start[order].astype(np.int32),
    }
    for k in (
        "K",
        "red_kmax",
        "red_pmax",
        "kth",
        "mark_dequeue",
        "buffer",
        "scout_buffer",
        "rto",
        "access",
        "seed",
        "n_slots",
        "chunk",
        "jitter_table",
        "jitter_reorder",
        "loss_p",
        "delack_m",
        "delack_timeout",
        "rtt_noise",
        "rtt_noise_uniform",
        "cap_start",
        "cap_rate",
        "cap_opp",
    ):
        out[k] = np.asarray(getattr(sc, k))
    if spec.has("ports"):  # padding flows have no route (they never start)
        route = np.full((N, spec.route_len), -1, np.int32)
        r = np.asarray(sc.route, np.int32)
        route[:n, : r.shape[1]] = r
        out["route"] = route.reshape(-1)
        for k in ("port_rate", "port_buffer", "port_kth"):
            out[k] = np.asarray(getattr(sc, k), np.int32)
    out["law"] = tuple({k: np.float32(v) for k, v in p.items()} for p in sc.law)
    return out


def _init(spec: EngineSpec, lay: Layout, s: dict[str, Any]) -> dict[str, Any]:
    """The carry at slot 0: flows not started, empty rings and queues, laws at their initial state."""
    N = spec.n_flows
    fin = s["fin"].reshape(N, len(FIN_COLS))
    law_idx = fin[:, 4]
    cols = {name: jnp.zeros(N, INT) for name, fl in lay.fields if not fl}
    cols.update({name: jnp.zeros(N, FLOAT) for name, fl in lay.fields if fl})
    never = jnp.full(N, NEVER, INT)
    cols.update(wake=never, finish=never, last=fin[:, 1], rate=jnp.ones(N, FLOAT))
    if spec.has("scouts"):
        cols["s_lastrcv"] = fin[:, 1]
    if "r_dl" in cols:
        cols["r_dl"] = never
    if "rtx_dl" in cols:
        cols["rtx_dl"] = never
    for li, law in enumerate(spec.laws):
        st = law.init(s["law"][li], N)
        sel = law_idx == li
        for i, (name, fl) in enumerate(lay.law_fields[li]):
            v = f2i(st[name]) if fl else jnp.asarray(st[name], INT)
            cols[f"L{i}"] = jnp.where(sel, v, cols[f"L{i}"])
        cols["cwnd"] = jnp.where(sel, jnp.asarray(st["cwnd"], FLOAT), cols["cwnd"])
        if law.rate_based:
            cols["rate"] = jnp.where(sel, jnp.asarray(st["rate"], FLOAT), cols["rate"])
        if law.aux:
            cols["aux"] = jnp.where(sel, jnp.asarray(st[law.aux], FLOAT), cols["aux"])
    fs = jnp.stack([f2i(cols[n]) if fl else jnp.asarray(cols[n], INT) for n, fl in lay.fields], axis=1)
    fs = jnp.concatenate([fs, jnp.zeros((1, lay.S), INT)]).reshape(-1)
    z = jnp.zeros((), INT)
    c: dict[str, Any] = {
        "fs": fs,
        "ackw": jnp.full(((spec.ack_rows + 1) * spec.ack_lanes * AE,), -1, INT),
        "tw": jnp.full(((spec.timer_rows + 1) * spec.timer_lanes * 2,), -1, INT),
        "dep": jnp.zeros(((spec.dep_rows + 1) * DE,), INT),
        "rl": jnp.zeros((2 * N + 1,), INT),
        "dl": jnp.zeros((2 * N + spec.timer_lanes + 1,), INT),
        "ov": jnp.zeros(((2 * N + 1) * 2,), INT),
        "ovn": jnp.zeros((), INT),
        "sq": jnp.zeros(((spec.scout_cap + 1) * 2,), INT),
        "rbase": z,
        "rn": z,
        "kept0": z,
        "sqn": z,
        "qlen": z,
        "sptr": z,
        "dense": jnp.asarray(NEVER, INT),
    }
    for k in (
        "marks",
        "s_served",
        "s_dropped",
        "s_lost",
        "s_wait",
        "spill",
        "rlosses",
        "tw_over",
        "tw_lost",
        "q_max",
        "busy",
        "opps",
    ):
        c[k] = z
    c["q_sum"] = jnp.zeros((), FLOAT)
    c["q_min"] = jnp.asarray(2**30, INT)
    if spec.has("int"):  # in-band telemetry: a parallel wheel per ACK entry (:func:`.wheels.int_width` ints)
        c["intw"] = jnp.zeros(((spec.ack_rows + 1) * spec.ack_lanes * int_width(spec),), INT)
        c["int_now"] = jnp.zeros((int_width(spec),), INT)
        c["txc"] = z
    if spec.has("ports"):  # per port: queue, departure ring, Scout queue; the packets forwarded to next slot
        P, R, Cs, W = spec.n_ports, spec.dep_rows, spec.scout_cap, entry_width(spec)
        c.update(
            pq=jnp.zeros((P + 1,), INT),
            pdep=jnp.zeros(((P * R + 1) * W,), INT),
            fw=jnp.zeros(((P + 1) * W,), INT),
            fwn=z,
            psq=jnp.zeros(((P * Cs + 1) * SE,), INT),
            psqn=jnp.zeros((P + 1,), INT),
            sfw=jnp.zeros(((P * Cs + 1) * SE,), INT),
            sfwn=z,
            **_port_acc(spec),
        )
        if spec.has("int"):  # each port's transmitted-packet counter (index P takes void updates)
            c["ptx"] = jnp.zeros((P + 1,), INT)
    if spec.has("switch"):
        c["sw"] = jnp.zeros((N + 1, spec.laws[0].switch_width), FLOAT)  # the spare row N takes void writes
    return c


def _port_acc(spec: EngineSpec) -> dict[str, Any]:
    """Per-port accumulators of a record chunk: queue after service summed over slots, busy slots, service
    slots, drops (index ``n_ports`` takes void updates)."""
    P = spec.n_ports
    z = jnp.zeros((P + 1,), INT)
    return {"pq_sum": jnp.zeros((P + 1,), FLOAT), "pbusy": z, "popps": z, "pdrops": z}


def _overflow_due(x: Ctx, c: dict, t: Any, dl: Any, k: Any) -> tuple[dict, Any, Any]:
    """Append the overflow list's entries for slot ``t`` (timers whose wheel row was full) to the wake list
    ``dl`` (``k`` entries so far), keep the later ones, and find the next slot it needs. Runs only in the slot
    ``dense`` names (a loop of zero or one trips); its cost is the list's length, not the number of flows."""

    def take(_: Any, st: tuple) -> tuple:
        c, dl, k = st

        def split(i: Any, st: tuple) -> tuple:
            ov, dl, kept, k, nxt = st
            e = rd(c["ov"], i * 2, 2)
            due = e[0] == t
            dl = lax.dynamic_update_slice(dl, e[1:2], (jnp.where(due, k, dl.shape[0] - 1),))
            ov = lax.dynamic_update_slice(ov, e, (jnp.where(due, 2 * (2 * x.N), kept * 2),))
            nxt = jnp.where(due, nxt, jnp.minimum(nxt, e[0]))
            return ov, dl, kept + (~due).astype(INT), k + due.astype(INT), nxt

        z = jnp.zeros((), INT)
        ov, dl, kept, k, nxt = lax.fori_loop(0, c["ovn"], split, (c["ov"], dl, z, k, jnp.asarray(NEVER, INT)))
        return dict(c, ov=ov, ovn=kept, dense=nxt), dl, k

    return lax.fori_loop(0, (t == c["dense"]).astype(INT), take, (c, dl, k))


def _slot(x: Ctx, t: Any, c: dict) -> dict:
    spec, s = x.spec, x.sc

    # 1. starts
    # (inputs are never updated: plain slices)
    def start_cond(c: dict) -> Any:
        return (c["sptr"] < x.N) & (lax.dynamic_slice(s["start_at"], (c["sptr"],), (1,))[0] <= t)

    def start_body(c: dict) -> dict:
        c = on_start(x, c, lax.dynamic_slice(s["order"], (c["sptr"],), (1,))[0], t)
        return dict(c, sptr=c["sptr"] + 1)

    if spec.has("ports"):  # 0. the packets forwarded last slot reach the next port of their route
        c = arrivals(x, c, t)
    c = lax.while_loop(start_cond, start_body, c)
    # a wheel row's live entries (stamp == t) fill lanes 0, 1, ... (each insert takes the first other lane)
    R, La = spec.ack_rows, spec.ack_lanes
    row = rd(c["ackw"], (t & (R - 1)) * (La * AE), La * AE).reshape(La, AE)
    n_ack = jnp.sum(jnp.cumprod((row[:, 0] == t).astype(INT)))
    if spec.has("int"):  # each entry's telemetry rides after its AE ints
        Wi = int_width(spec)
        irow = rd(c["intw"], (t & (R - 1)) * (La * Wi), La * Wi).reshape(La, Wi)
        row = jnp.concatenate([row, irow], axis=1)
    Rt, Lt = spec.timer_rows, spec.timer_lanes
    trow = rd(c["tw"], (t & (Rt - 1)) * (Lt * 2), Lt * 2).reshape(Lt, 2)
    n_tim = jnp.sum(jnp.cumprod((trow[:, 0] == t).astype(INT)))
    other = x.N - c["rbase"]
    # 2. ACKs of this slot; in the common slot (one ACK, no timer, nobody waiting to send) its flow sends at once
    fast = (n_ack == 1) & (n_tim == 0) & (c["rn"] == 0) & (c["dense"] != t)
    c = dict(c, kept0=jnp.zeros((), INT))
    c = lax.fori_loop(0, n_ack, lambda j, c: on_ack(x, c, row[j], t, fast, other), c)
    # 3. timers of this slot: the wheel row's, then the overflow list's
    dl = lax.dynamic_update_slice(c["dl"], trow[:, 1], (0,))
    c, dl, k = _overflow_due(x, c, t, dl, n_tim)
    c = dict(c, dl=dl)
    c = lax.fori_loop(0, k, lambda i, c: on_wake(x, c, rd(c["dl"], i, 1)[0], t), c)
    # 4. senders, in a rotating order; the survivors go to the other half of the ready list
    n = c["rn"]
    off = (hash32(s["seed"], t, 4) % jnp.maximum(n, 1).astype(jnp.uint32)).astype(INT)

    def send_body(j: Any, st: tuple) -> tuple:
        c, kept = st
        i = off + j
        i = jnp.where(i >= n, i - n, i)
        f = rd(c["rl"], c["rbase"] + i, 1)[0]
        c, stay = send(x, c, f, t)
        c = dict(c)
        c["rl"] = lax.dynamic_update_slice(c["rl"], f[None], (jnp.where(stay, other + kept, 2 * x.N),))
        return c, kept + stay.astype(INT)

    c, kept = lax.fori_loop(0, n, send_body, (c, c["kept0"]))
    c = dict(c, rbase=other, rn=kept)
    # 5. service
    if spec.has("ports"):
        return serve_ports(x, c, t)
    if spec.has("capacity"):
        opp = is_service_slot(t, s["cap_start"], s["cap_rate"], s["cap_opp"])
    else:
        opp = jnp.asarray(True)
    busy = opp & (c["qlen"] > 0)
    qpre = c["qlen"]
    c = lax.fori_loop(0, busy.astype(INT), lambda _, c: depart(x, c, t, qpre), c)
    c["qlen"] = c["qlen"] - busy.astype(INT)
    if spec.has("scouts"):
        c = serve_scouts(x, c, t, opp & ~busy)
    q = c["qlen"]
    c["q_sum"] = c["q_sum"] + q.astype(FLOAT)
    c["q_min"] = jnp.minimum(c["q_min"], q)
    c["q_max"] = jnp.maximum(c["q_max"], q)
    c["busy"] = c["busy"] + busy.astype(INT)
    c["opps"] = c["opps"] + opp.astype(INT)
    return c


def _run_one(spec: EngineSpec, s: dict[str, Any]) -> dict[str, Any]:
    """The whole run of one scenario; per-chunk records with a leading chunk axis, and per-flow finals."""
    lay = Layout(spec)
    x = Ctx(spec, lay, s)
    c0 = _init(spec, lay, s)
    chunk, n_slots = s["chunk"], s["n_slots"]

    def chunk_fn(c: dict, k: Any) -> tuple[dict, dict]:
        t0 = jnp.minimum(k * chunk, n_slots)
        t1 = jnp.minimum(t0 + chunk, n_slots)
        acc = {
            "q_sum": jnp.zeros((), FLOAT),
            "q_min": jnp.asarray(2**30, INT),
            "q_max": jnp.zeros((), INT),
            "busy": jnp.zeros((), INT),
            "opps": jnp.zeros((), INT),
        }
        if spec.has("ports"):
            acc.update(_port_acc(spec))
        c = {**c, **acc}
        _, c = lax.while_loop(lambda st: st[0] < t1, lambda st: (st[0] + 1, _slot(x, st[0], st[1])), (t0, c))
        c, rec = chunk_records(x, c, t0, t1)
        if spec.debug:
            rec["residual"] = debug_residual(x, c, t1)
        return c, rec

    c, recs = lax.scan(chunk_fn, c0, jnp.arange(spec.n_chunks, dtype=INT))
    fs = c["fs"][: spec.n_flows * lay.S].reshape(spec.n_flows, lay.S)
    recs["finish"] = fs[:, lay.index["finish"]]
    for k in ("spill", "tw_over", "tw_lost"):
        recs[k] = c[k]
    return recs


def _run_many(spec: EngineSpec, s: dict[str, Any]) -> dict[str, Any]:
    return lax.map(lambda one: _run_one(spec, one), s)
