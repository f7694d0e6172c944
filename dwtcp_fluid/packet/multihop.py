"""The multi-hop slot engine: a graph of switch ports, per-port FIFOs, per-port ECN, the laws of :mod:`.laws`.

A flow's route is a list of port ids (:mod:`.topology`: the chains ``path:K``/``parking-lot:K`` and the
``leaf-spine:LxS`` fabric are all port lists). One slot is one packet's transmission time at the (common) port
rate. Per slot, vectorised over flows and unrolled over ports:

1. ACKs due now arrive (a ring indexed by arrival slot, one entry per flow: a flow leaves the network at one
   port, which serves one packet per slot); each carries the packet's ECN bit (set if any port marked it), the
   losses it reports, its send slot (the ``"rtt"`` signal) and the queue it found at every port of its path (the
   ``"hops"`` signal, ``ev.hop_queues``: an ``[n_ports]`` row per flow indexed by port id, 0 off the path). The
   law's :meth:`step` runs once for every flow with an ACK; then retransmission timeouts (every outstanding
   packet lost and no ACK for ``rto`` slots), a second call with ``ev.timeout``.
2. Arrivals at each port (all ports at once: port ids increase along every route, a feed-forward numbering,
   so the order is immaterial): the packets its in-ports (the ports some route enters it from, a static table) served
   last slot and are routed here (one slot per hop of forwarding), and the new packets of flows entering here
   (each flow sends at most one packet per slot, access link at line rate, while ``inflight < floor(cwnd)``; a
   rate-based law also paces at its ``rate``), enqueued in a seeded rotating order (no flow always last),
   drop-tail at ``buffer`` packets, step-marked by the packets found ahead (``≥`` or ``>`` K folded into one
   integer threshold, :func:`~.switch.mark_threshold`). A dropped packet is reported by its flow's next accepted
   one and sent again (a finite flow of ``size`` packets sends until ``size`` have been acknowledged).
3. Service: every non-empty port sends its head packet on; a packet at the last port of its route is delivered
   and its ACK filed ``rtt`` slots later (the whole propagation delay sits on the return path; a packet crossing
   h ports takes h − 1 forwarding slots more).

Per chunk it records, per port, the mean and end queue and the busy fraction, and per flow the packets delivered
and the mean window (and the end value of the law's ``aux`` field), and the slot each flow finished (all its
packets acknowledged; -1 if not). It shares the switch's marking rule and hash and every law with the
single-bottleneck engine (:mod:`.engine`), which stays the engine of the ``single`` topology.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .laws.base import FLOAT, INT, Events, Law
from .switch import hash32
from .wheels import pace_due, pace_schedule

__all__ = ["run_network", "in_ports", "route_array"]

#: Size of a long-lived flow (packets): never finishes.
LONG_LIVED = 2**30


def _merge(new: dict, old: dict, mask: Any) -> dict:
    return {k: jnp.where(mask, jnp.asarray(new[k]).astype(old[k].dtype), old[k]) for k in old}


def route_array(routes: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-flow routes (sequences of port ids) as a ``[F, max length]`` int32 array padded with -1, and lengths."""
    rs = [tuple(int(v) for v in r) for r in routes]
    if not rs or any(not r for r in rs):
        raise ValueError(f"routes={routes!r} is invalid: accepted one non-empty port list per flow")
    n = max(len(r) for r in rs)
    arr = np.full((len(rs), n), -1, np.int32)
    for i, r in enumerate(rs):
        arr[i, : len(r)] = r
    return arr, np.array([len(r) for r in rs], np.int32)


def in_ports(route: np.ndarray, n_ports: int) -> np.ndarray:
    """``[n_ports, M]`` table of the ports that feed each port along some route (ascending, -1 padded, M ≥ 1).

    M ≥ 1 keeps the candidate order of a chain (index 0: the packet from the previous hop) for any topology.
    """
    feeds: list[set[int]] = [set() for _ in range(n_ports)]
    for r in route:
        r = [int(v) for v in r if v >= 0]
        for a, b in zip(r[:-1], r[1:], strict=True):
            feeds[b].add(a)
    m = max(1, max(len(f) for f in feeds))
    out = np.full((n_ports, m), -1, np.int32)
    for h, f in enumerate(feeds):
        out[h, : len(f)] = sorted(f)
    return out


#: The ``progress(done, total)`` hook of the run in progress (chunks), called from the compiled loop after each
#: chunk; None outside :func:`run_network` calls that pass one. The callback has no outputs: the run's arithmetic
#: and records are the same with and without it.
_PROGRESS: list[Any] = [None]


def _chunk_done(k: Any, n: Any) -> None:
    hook = _PROGRESS[0]
    if hook is not None:
        hook(int(k) + 1, int(n))


@functools.partial(jax.jit, static_argnames=("law", "inp", "bmax", "ring", "n_chunks", "chunk"))
def _run(law: Law, inp: tuple, bmax: int, ring: int, n_chunks: int, chunk: int, a: dict) -> dict:
    F, H, R, B = a["route"].shape[0], len(inp), ring, bmax
    M = len(inp[0])
    fl = jnp.arange(F, dtype=INT)
    route, nh = a["route"], a["nh"]
    first = route[:, 0]
    inp_a = jnp.asarray(inp, INT)
    src = jnp.maximum(inp_a, 0)
    on_path = jnp.zeros((F, H), bool).at[fl[:, None], jnp.where(route >= 0, route, H)].set(True, mode="drop")
    s0 = {k: jnp.asarray(v) for k, v in law.init(a["law"], F).items()}
    zF, zH = jnp.zeros(F, INT), jnp.zeros(H, INT)
    c0 = {
        "law": s0,
        "nxt": zF, "una": zF, "infl": zF, "pend": zF, "last": zF, "drops": zF, "fin": jnp.full(F, -1, INT),
        "ns": jnp.zeros(F, INT),
        "ns_frac": jnp.zeros(F, FLOAT),
        # per port FIFO rings: flow, ECN bit, losses carried, send slot, position on the route, port queues seen
        "qf": jnp.zeros((H, B), INT), "qm": jnp.zeros((H, B), INT), "qn": jnp.zeros((H, B), INT),
        "qt": jnp.zeros((H, B), INT), "qp": jnp.zeros((H, B), INT), "qs": jnp.zeros((H, B, H), INT),
        "head": zH, "qlen": zH,
        # the packet each port served last slot, on its way to the next port of its route
        "tv": jnp.zeros(H, bool), "tf": zH, "tm": zH, "tn": zH, "tt": zH, "tp": zH, "tx": zH,
        "ts": jnp.zeros((H, H), INT),
        # ACK ring by arrival slot, one lane per flow
        "av": jnp.zeros((R, F), bool), "am": jnp.zeros((R, F), INT), "an": jnp.zeros((R, F), INT),
        "at": jnp.zeros((R, F), INT), "ahq": jnp.zeros((R, F, H), INT),
    }  # fmt: skip

    def slot(t: Any, c: dict) -> dict:
        c = dict(c)
        # 1. ACKs, then timeouts
        row = t % R
        ack, mark, nl = c["av"][row], c["am"][row] > 0, c["an"][row]
        gone = jnp.where(ack, 1 + nl, 0)
        una, infl = c["una"] + gone, c["infl"] - gone
        ev = Events(
            t=t, ack=ack, mark=mark, nloss=nl, snd_nxt=c["nxt"], snd_una=una, rtt=a["rtt"].astype(FLOAT),
            active=jnp.ones(F, bool), n_acked=jnp.ones(F, INT),
            rtt_sample=(t - c["at"][row]).astype(FLOAT), hop_queues=c["ahq"][row],
        )  # fmt: skip
        s = _merge(law.step(c["law"], ev, a["law"]), c["law"], ack)
        last = jnp.where(ack, t, c["last"])
        to = (infl > 0) & (infl == c["pend"]) & (t - last >= a["rto"])
        una, infl = una + jnp.where(to, infl, 0), jnp.where(to, 0, infl)
        ev_to = Events(
            t=t, timeout=to, snd_nxt=c["nxt"], snd_una=una, rtt=a["rtt"].astype(FLOAT),
            hop_queues=jnp.zeros((F, H), INT),
        )  # fmt: skip
        s = _merge(law.step(s, ev_to, a["law"]), s, to)
        c.update(law=s, una=una, infl=infl, pend=jnp.where(to, 0, c["pend"]), last=jnp.where(to, t, last))
        # finished: every packet of the flow acknowledged (lost ones were sent again)
        c["fin"] = jnp.where((c["fin"] < 0) & (una - c["drops"] >= a["size"]), t, c["fin"])
        c["av"] = c["av"].at[row].set(False)
        # 2. senders and arrivals at each port
        cw = jnp.floor(s["cwnd"]).astype(INT)
        send = (t >= a["start"]) & (c["infl"] < cw) & (c["nxt"] - c["drops"] < a["size"])
        if law.rate_based:  # pace at the law's rate (packets per slot)
            send = send & pace_due(c["ns"], c["ns_frac"], t)
            ns, ns_frac = pace_schedule(c["ns"], c["ns_frac"], t, 1.0 / s["rate"])
            c["ns"], c["ns_frac"] = jnp.where(send, ns, c["ns"]), jnp.where(send, ns_frac, c["ns_frac"])
        pend, drops = c["pend"], c["drops"]
        qf, qm, qn, qt, qp, qs, qlen = c["qf"], c["qm"], c["qn"], c["qt"], c["qp"], c["qs"], c["qlen"]
        # every port at once (a flow enters at its first port and port ids increase along routes, so no port's
        # arrivals depend on another's in the same slot): candidates 0..M−1 the packets from the in-ports,
        # M..M+F−1 the flows entering here
        ports = jnp.arange(H, dtype=INT)[:, None]
        fwd = (inp_a >= 0) & c["tv"][src] & (c["tx"][src] == ports)
        v = jnp.concatenate([fwd, send[None, :] & (first[None, :] == ports)], axis=1)
        off = (hash32(a["seed"], t, 4, ports[:, 0]) % jnp.uint32(F + M)).astype(INT)
        perm = (jnp.arange(F + M)[None, :] + off[:, None]) % (F + M)

        def cand(fwd_vals: Any, new_vals: Any) -> Any:
            both = jnp.concatenate([fwd_vals, jnp.broadcast_to(new_vals, (H,) + new_vals.shape)], axis=1)
            return jnp.take_along_axis(both, perm.reshape(perm.shape + (1,) * (both.ndim - 2)), axis=1)

        vp = jnp.take_along_axis(v, perm, axis=1)
        seen = qlen[:, None] + jnp.cumsum(vp, axis=1, dtype=INT) - 1
        acc = vp & (seen < a["buffer"])
        mk = acc & (seen >= a["kth"][:, None])
        pos = jnp.where(acc, (c["head"][:, None] + seen) % B, B)  # B: out of range, dropped by the scatter
        cf, cn = cand(c["tf"][src], fl), cand(c["tn"][src], pend)
        qf = qf.at[ports, pos].set(cf, mode="drop")
        qm = qm.at[ports, pos].set(cand(c["tm"][src], zF) | mk.astype(INT), mode="drop")
        qn = qn.at[ports, pos].set(cn, mode="drop")
        qt = qt.at[ports, pos].set(cand(c["tt"][src], jnp.full(F, t, INT)), mode="drop")
        qp = qp.at[ports, pos].set(cand(c["tp"][src] + 1, zF), mode="drop")
        cs = cand(c["ts"][src], jnp.zeros((F, H), INT)).at[ports, jnp.arange(F + M)[None, :], ports].set(seen)
        qs = qs.at[ports, pos].set(cs, mode="drop")
        qlen = qlen + jnp.sum(acc, axis=1, dtype=INT)
        dropped = vp & ~acc
        lost = jnp.zeros(F, INT).at[cf].add(jnp.where(dropped, 1 + cn * (perm < M), 0))
        new_acc = jnp.zeros(F, bool).at[cf].max(acc & (perm >= M))
        pend = jnp.where(new_acc, 0, pend) + lost
        drops = drops + lost
        c["last"] = jnp.where(send & (c["infl"] == 0), t, c["last"])
        c.update(infl=c["infl"] + send, nxt=c["nxt"] + send, pend=pend, drops=drops)
        # 3. service: each busy port sends its head packet on or delivers it
        busy = qlen > 0
        hd = c["head"]
        pf, pm, pn = qf[jnp.arange(H), hd], qm[jnp.arange(H), hd], qn[jnp.arange(H), hd]
        pt, pp, ps = qt[jnp.arange(H), hd], qp[jnp.arange(H), hd], qs[jnp.arange(H), hd]
        deliver = busy & (pp == nh[pf] - 1)
        arow = jnp.where(deliver, (t + a["rtt"][pf]) % R, R)
        c["av"] = c["av"].at[arow, pf].set(True, mode="drop")
        c["am"] = c["am"].at[arow, pf].set(pm, mode="drop")
        c["an"] = c["an"].at[arow, pf].set(pn, mode="drop")
        c["at"] = c["at"].at[arow, pf].set(pt, mode="drop")
        c["ahq"] = c["ahq"].at[arow, pf].set(ps * on_path[pf], mode="drop")
        nxt_port = route[pf, jnp.minimum(pp + 1, route.shape[1] - 1)]
        c.update(tv=busy & ~deliver, tf=pf, tm=pm, tn=pn, tt=pt, tp=pp, tx=nxt_port, ts=ps)
        c.update(qf=qf, qm=qm, qn=qn, qt=qt, qp=qp, qs=qs, head=(hd + busy) % B, qlen=qlen - busy)
        c["acc_q"] = c["acc_q"] + (qlen - busy).astype(FLOAT)
        c["acc_busy"] = c["acc_busy"] + busy
        c["acc_del"] = c["acc_del"] + jnp.zeros(F, INT).at[jnp.where(deliver, pf, F)].add(1, mode="drop")
        c["acc_cw"] = c["acc_cw"] + s["cwnd"]
        c["acc_mark"] = c["acc_mark"] + jnp.where(ack & mark, 1, 0)
        return c

    def chunk_fn(c: dict, k: Any) -> tuple[dict, dict]:
        acc = {
            "acc_q": jnp.zeros(H, FLOAT), "acc_busy": zH, "acc_del": zF,
            "acc_cw": jnp.zeros(F, FLOAT), "acc_mark": zF,
        }  # fmt: skip
        c = lax.fori_loop(k * chunk, (k + 1) * chunk, slot, {**c, **acc})
        rec = {
            "q_mean": c["acc_q"] / chunk, "q_end": c["qlen"], "busy": c["acc_busy"] / chunk,
            "delivered": c["acc_del"], "cwnd_mean": c["acc_cw"] / chunk, "marks": c["acc_mark"],
            "drops": c["drops"], "finish": c["fin"],
        }  # fmt: skip
        if law.aux:
            rec["aux_end"] = c["law"][law.aux]
        jax.debug.callback(_chunk_done, k, n_chunks, ordered=True)
        return c, rec

    c0.update(acc_q=jnp.zeros(H, FLOAT), acc_busy=zH, acc_del=zF, acc_cw=jnp.zeros(F, FLOAT), acc_mark=zF)
    _, recs = lax.scan(chunk_fn, c0, jnp.arange(n_chunks, dtype=INT))
    return recs


def run_network(
    law: Law,
    law_params: dict[str, float],
    *,
    routes: Any,
    rtt: np.ndarray,
    start: np.ndarray,
    n_ports: int,
    kth: np.ndarray,
    buffer: int,
    rto: int,
    seed: int,
    n_chunks: int,
    chunk: int,
    size: np.ndarray | None = None,
    feed_routes: Any = None,
    progress: Any = None,
) -> dict[str, np.ndarray]:
    """Run one multi-port scenario (all times in slots); per-chunk records as NumPy arrays (leading chunk axis).

    ``routes``: each flow's port ids in order (a sequence of sequences, or a ``[F, n]`` array padded with -1);
    ``rtt``: its base RTT (slots, ≥ 1); ``start``: its start slot; ``kth``: each port's integer marking threshold;
    ``buffer``: drop-tail buffer per port (packets); ``size``: packets per flow (default long-lived);
    ``feed_routes``: routes whose port-to-port links make the in-port table (default ``routes``; a superset, e.g.
    every route of a fabric, lets runs of other routings share one compiled engine — a candidate no route uses
    never carries a packet, and only the seeded arrival order, drawn over more candidates, changes);
    ``progress``: ``progress(done, total)`` in chunks, after each chunk (the library's progress convention).
    """
    from ..params import check_range

    check_range("buffer", buffer, lo=1, hi=1 << 16, integer=True)
    check_range("n_ports", n_ports, lo=1, hi=64, integer=True)
    route, nh = route_array(routes) if not isinstance(routes, np.ndarray) else (routes, (routes >= 0).sum(1))
    if route.max() >= n_ports or route[:, 0].min() < 0:
        raise ValueError(f"routes={routes!r} is invalid: accepted port ids in [0, {n_ports})")
    if np.any((np.diff(route, axis=1) <= 0) & (route[:, 1:] >= 0)):
        raise ValueError(f"routes={routes!r} is invalid: accepted port ids increasing along each route")
    rtt = np.asarray(rtt, np.int32)
    if rtt.min() < 1:
        raise ValueError(f"rtt={rtt.min()!r} is out of range: accepted base RTTs of at least one slot")
    F = route.shape[0]
    size = np.full(F, LONG_LIVED, np.int64) if size is None else np.asarray(size, np.int64)
    if size.shape != (F,) or size.min() < 1:
        raise ValueError(f"size={size!r} is invalid: accepted one size >= 1 packet per flow")
    ring = 1 << int(np.ceil(np.log2(int(rtt.max()) + 2)))
    feeds = route
    if feed_routes is not None:
        fr = route_array(feed_routes)[0]
        w = max(fr.shape[1], route.shape[1])
        pad = lambda x: np.pad(x, ((0, 0), (0, w - x.shape[1])), constant_values=-1)  # noqa: E731
        feeds = np.concatenate([pad(fr), pad(route)])
    inp = tuple(tuple(int(v) for v in row) for row in in_ports(feeds, n_ports))
    a = {
        "route": jnp.asarray(route, INT), "nh": jnp.asarray(nh, INT), "rtt": jnp.asarray(rtt, INT),
        "start": jnp.asarray(start, INT), "kth": jnp.asarray(kth, INT), "buffer": jnp.asarray(buffer, INT),
        "rto": jnp.asarray(rto, INT), "seed": jnp.asarray(seed, INT), "size": jnp.asarray(size, INT),
        "law": {k: jnp.asarray(v, FLOAT) for k, v in law_params.items()},
    }  # fmt: skip
    bmax = 1 << int(np.ceil(np.log2(buffer + 2)))
    _PROGRESS[0] = progress
    try:
        recs = _run(law, inp, bmax, ring, int(n_chunks), int(chunk), a)
        out = {k: np.asarray(v) for k, v in recs.items()}  # waits for the run (and its last callbacks)
    finally:
        _PROGRESS[0] = None
    return out
