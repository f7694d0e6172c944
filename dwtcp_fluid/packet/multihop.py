"""The multi-hop slot engine: a chain of switch ports, per-hop FIFOs, per-hop ECN, the laws of :mod:`.laws`.

One slot is one packet's transmission time at the (common) port rate. Per slot, vectorised over flows and
unrolled over hops:

1. ACKs due now arrive (a ring indexed by arrival slot, one entry per flow: a flow leaves the chain at one hop,
   which serves one packet per slot); each carries the packet's ECN bit (set if any hop marked it), the losses
   it reports, its send slot (the ``"rtt"`` signal) and the queue it found at every hop of its path (the
   ``"hops"`` signal, ``ev.hop_queues``: an ``[n_hops]`` row per flow, 0 off the path). The law's :meth:`step`
   runs once for every flow with an ACK; then retransmission timeouts (every outstanding packet lost and no
   ACK for ``rto`` slots), a second call with ``ev.timeout``.
2. Arrivals at each hop: the packet the previous hop served last slot (one slot per hop of forwarding) and the
   new packets of flows entering there (each flow sends at most one packet per slot, access link at line rate,
   while ``inflight < floor(cwnd)``), enqueued in a seeded rotating order (no flow always last), drop-tail at
   ``buffer`` packets, step-marked by the packets found ahead (``≥`` or ``>`` K folded into one integer
   threshold, :func:`~.switch.mark_threshold`). A dropped packet is reported by its flow's next accepted one.
3. Service: every non-empty hop sends its head packet on; a packet at its last hop is delivered and its ACK
   filed ``rtt`` slots later (the whole propagation delay sits on the return path; a packet crossing h hops takes
   h − 1 forwarding slots more).

Per chunk it records, per hop, the mean and end queue and the busy fraction, and per flow the packets delivered
and the mean window (and the end value of the law's ``aux`` field). It shares the switch's marking rule and hash and every law with the single-bottleneck
engine (:mod:`.engine`), which stays the engine of the ``single`` topology.
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

__all__ = ["run_chain"]


def _merge(new: dict, old: dict, mask: Any) -> dict:
    return {k: jnp.where(mask, jnp.asarray(new[k]).astype(old[k].dtype), old[k]) for k in old}


@functools.partial(jax.jit, static_argnames=("law", "n_hops", "bmax", "ring", "n_chunks", "chunk"))
def _run(law: Law, n_hops: int, bmax: int, ring: int, n_chunks: int, chunk: int, a: dict) -> dict:
    F, H, R, B = a["first"].shape[0], n_hops, ring, bmax
    fl = jnp.arange(F, dtype=INT)
    on_path = (jnp.arange(H)[None, :] >= a["first"][:, None]) & (jnp.arange(H)[None, :] <= a["last"][:, None])
    s0 = {k: jnp.asarray(v) for k, v in law.init(a["law"], F).items()}
    zF, zH = jnp.zeros(F, INT), jnp.zeros(H, INT)
    c0 = {
        "law": s0,
        "nxt": zF, "una": zF, "infl": zF, "pend": zF, "last": zF, "drops": zF,
        # per hop FIFO rings: flow, ECN bit, losses carried, send slot, hop queues seen
        "qf": jnp.zeros((H, B), INT), "qm": jnp.zeros((H, B), INT), "qn": jnp.zeros((H, B), INT),
        "qt": jnp.zeros((H, B), INT), "qs": jnp.zeros((H, B, H), INT), "head": zH, "qlen": zH,
        # the packet each hop served last slot, on its way to the next hop
        "tv": jnp.zeros(H, bool), "tf": zH, "tm": zH, "tn": zH, "tt": zH, "ts": jnp.zeros((H, H), INT),
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
        c["av"] = c["av"].at[row].set(False)
        # 2. senders and arrivals at each hop
        cw = jnp.floor(s["cwnd"]).astype(INT)
        send = (t >= a["start"]) & (c["infl"] < cw)
        pend, drops = c["pend"], c["drops"]
        qf, qm, qn, qt, qs, qlen = c["qf"], c["qm"], c["qn"], c["qt"], c["qs"], c["qlen"]
        for h in range(H):
            # candidates: index 0 the packet from hop h − 1, 1..F the flows entering here
            v = jnp.concatenate(
                [c["tv"][h - 1 : h] if h > 0 else jnp.zeros(1, bool), send & (a["first"] == h)]
            )
            cf = jnp.concatenate([c["tf"][h - 1 : h] if h > 0 else zF[:1], fl])
            cm = jnp.concatenate([c["tm"][h - 1 : h] if h > 0 else zF[:1], zF])
            cn = jnp.concatenate([c["tn"][h - 1 : h] if h > 0 else zF[:1], pend])
            ct = jnp.concatenate([c["tt"][h - 1 : h] if h > 0 else zF[:1], jnp.full(F, t, INT)])
            cs = jnp.concatenate(
                [c["ts"][h - 1 : h] if h > 0 else jnp.zeros((1, H), INT), jnp.zeros((F, H), INT)]
            )
            off = (hash32(a["seed"], t, 4, h) % jnp.uint32(F + 1)).astype(INT)
            perm = (jnp.arange(F + 1) + off) % (F + 1)
            vp = v[perm]
            seen = qlen[h] + jnp.cumsum(vp, dtype=INT) - 1
            acc = vp & (seen < a["buffer"])
            mk = acc & (seen >= a["kth"][h])
            pos = jnp.where(acc, (c["head"][h] + seen) % B, B)  # B: out of range, dropped by the scatter
            qf = qf.at[h, pos].set(cf[perm], mode="drop")
            qm = qm.at[h, pos].set(cm[perm] | mk.astype(INT), mode="drop")
            qn = qn.at[h, pos].set(cn[perm], mode="drop")
            qt = qt.at[h, pos].set(ct[perm], mode="drop")
            qs = qs.at[h, pos].set(cs[perm].at[:, h].set(seen), mode="drop")
            qlen = qlen.at[h].add(jnp.sum(acc, dtype=INT))
            dropped = vp & ~acc
            lost = jnp.zeros(F, INT).at[cf[perm]].add(jnp.where(dropped, 1 + cn[perm] * (perm == 0), 0))
            new_acc = jnp.zeros(F, bool).at[cf[perm]].max(acc & (perm > 0))
            pend = jnp.where(new_acc, 0, pend) + lost
            drops = drops + lost
        c["last"] = jnp.where(send & (c["infl"] == 0), t, c["last"])
        c.update(infl=c["infl"] + send, nxt=c["nxt"] + send, pend=pend, drops=drops)
        # 3. service: each busy hop sends its head packet on or delivers it
        busy = qlen > 0
        hd = c["head"]
        pf, pm, pn = qf[jnp.arange(H), hd], qm[jnp.arange(H), hd], qn[jnp.arange(H), hd]
        pt, ps = qt[jnp.arange(H), hd], qs[jnp.arange(H), hd]
        deliver = busy & (a["last"][pf] == jnp.arange(H))
        arow = jnp.where(deliver, (t + a["rtt"][pf]) % R, R)
        c["av"] = c["av"].at[arow, pf].set(True, mode="drop")
        c["am"] = c["am"].at[arow, pf].set(pm, mode="drop")
        c["an"] = c["an"].at[arow, pf].set(pn, mode="drop")
        c["at"] = c["at"].at[arow, pf].set(pt, mode="drop")
        c["ahq"] = c["ahq"].at[arow, pf].set(ps * on_path[pf], mode="drop")
        c.update(tv=busy & ~deliver, tf=pf, tm=pm, tn=pn, tt=pt, ts=ps)
        c.update(qf=qf, qm=qm, qn=qn, qt=qt, qs=qs, head=(hd + busy) % B, qlen=qlen - busy)
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
            "drops": c["drops"],
        }  # fmt: skip
        if law.aux:
            rec["aux_end"] = c["law"][law.aux]
        return c, rec

    c0.update(acc_q=jnp.zeros(H, FLOAT), acc_busy=zH, acc_del=zF, acc_cw=jnp.zeros(F, FLOAT), acc_mark=zF)
    _, recs = lax.scan(chunk_fn, c0, jnp.arange(n_chunks, dtype=INT))
    return recs


def run_chain(
    law: Law,
    law_params: dict[str, float],
    *,
    first: np.ndarray,
    last: np.ndarray,
    rtt: np.ndarray,
    start: np.ndarray,
    n_hops: int,
    kth: np.ndarray,
    buffer: int,
    rto: int,
    seed: int,
    n_chunks: int,
    chunk: int,
) -> dict[str, np.ndarray]:
    """Run one chain scenario (all times in slots); per-chunk records as NumPy arrays (leading chunk axis).

    ``first``/``last``: hop range of each flow; ``rtt``: its base RTT (slots, ≥ 1); ``start``: its start slot;
    ``kth``: each hop's integer marking threshold; ``buffer``: drop-tail buffer per hop (packets).
    """
    from ..params import check_range

    check_range("buffer", buffer, lo=1, hi=1 << 16, integer=True)
    check_range("n_hops", n_hops, lo=1, hi=64, integer=True)
    rtt = np.asarray(rtt, np.int32)
    if rtt.min() < 1:
        raise ValueError(f"rtt={rtt.min()!r} is out of range: accepted base RTTs of at least one slot")
    ring = 1 << int(np.ceil(np.log2(int(rtt.max()) + 2)))
    a = {
        "first": jnp.asarray(first, INT), "last": jnp.asarray(last, INT), "rtt": jnp.asarray(rtt, INT),
        "start": jnp.asarray(start, INT), "kth": jnp.asarray(kth, INT), "buffer": jnp.asarray(buffer, INT),
        "rto": jnp.asarray(rto, INT), "seed": jnp.asarray(seed, INT),
        "law": {k: jnp.asarray(v, FLOAT) for k, v in law_params.items()},
    }  # fmt: skip
    bmax = 1 << int(np.ceil(np.log2(buffer + 2)))
    recs = _run(law, int(n_hops), bmax, ring, int(n_chunks), int(chunk), a)
    return {k: np.asarray(v) for k, v in recs.items()}
