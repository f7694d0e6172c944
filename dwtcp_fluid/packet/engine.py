"""The slot loop of the packet core: ``lax.scan`` over slots inside ``lax.scan`` over chunks, one batch at a time.

The state of a whole batch of B scenarios is carried as ``[N, B]`` arrays (no ``vmap``): the batch is the
contiguous axis, so XLA vectorises along it and per-scenario values broadcast without index arithmetic, and each
slot reads one contiguous ACK-ring row shared by every scenario. One slot (one data
packet's transmission time L/C) proceeds as follows, for every flow of every scenario at once:

1. ACKs arrive (the ring row of this slot, read at the end of the previous slot): inflight, cumulative counters;
   losses reported with the ACK (a drop is reported by the flow's next accepted packet, SACK-like).
2. Retransmission timeout: if every outstanding packet of a flow was dropped (no later delivery can report it) and
   ``rto`` slots passed since the flow's last ACK (or the send that armed the timer), the losses are declared.
3. Scout ACKs and Scout timeouts (DWTCP only), then the window law's per-ACK step.
4. Senders send at most one packet each (access link ≤ bottleneck rate) while ``inflight < floor(cwnd)``, and
   Scout-using flows send their once-per-RTT Scout.
5. The switch enqueues the arrivals (drop-tail, ECN at enqueue): an arrival that finds ``seen`` packets ahead
   leaves ``seen`` slots later, so its ACK is written at once into ring row ``t + seen + rtt``; then one slot of
   service (a data packet, or every queued Scout if the data queue is empty; their ACKs go to row ``t + rtt``).

All ring writes of a slot are one scatter with distinct indices; the next row is read and cleared right after it.
Memory is bounded: per-chunk sums, minima and maxima, and end-of-chunk snapshots of cumulative counters (the
records are their per-chunk differences, taken on the host).
"""

from __future__ import annotations

import functools
import math
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .laws.base import FLOAT, INT, Events, Law
from .scouts import scout_due, scout_receive
from .state import PacketConfig, Scenario, SimState, init_state
from .switch import (
    data_code,
    decode,
    enqueue_data,
    enqueue_scouts,
    over_threshold,
    scout_code,
    serve_data,
    serve_scouts,
)

__all__ = ["run_one", "run_batch", "compiled", "stack", "MAX_BATCH", "UNROLL"]

#: Slots per iteration of the compiled slot loop. Unrolling makes XLA fuse the read of the next ACK-ring row into
#: the following slot's kernels, which keeps the old ring alive past the in-place scatter, so XLA copies the
#: whole ring every slot: 1 is fastest.
UNROLL = 1

#: Cumulative per-flow counters snapshotted at every chunk end; the records hold their per-chunk differences.
_CUMULATIVE = {
    "delivered": "acked",
    "sent": "snd_nxt",
    "drops": "drops",
    "timeouts": "timeouts",
    "active": "active_slots",
}
_CUMULATIVE_SUMMED = {
    "marks": "marked",
    "scouts_served": "scouts_served",
    "scouts_dropped": "scouts_dropped",
    "scouts_lost": "scouts_lost",
}


def _order_offset(t: Any, seed: Any, n: int) -> Any:
    """The flow enqueued first in slot t: a cheap integer hash of (t, seed), so ties rotate among flows."""
    h = t.astype(jnp.uint32) * jnp.uint32(2654435761) + seed.astype(jnp.uint32) * jnp.uint32(40503)
    h = h ^ (h >> 15)
    return (h % jnp.uint32(n)).astype(INT)


def _acc_init(b: int, n: int) -> dict[str, Any]:
    return {
        "q_sum": jnp.zeros(b, jnp.float32),
        "q_min": jnp.full(b, 2**30, INT),
        "q_max": jnp.zeros(b, INT),
        "busy": jnp.zeros(b, INT),
        "cwnd_sum": jnp.zeros((n, b), FLOAT),
        "alpha_sum": jnp.zeros((n, b), FLOAT),
    }


def _slot(cfg: PacketConfig, law: Law, sc: Scenario, c: SimState, acc: dict, t: Any) -> tuple[SimState, dict]:
    n, b = c.inflight.shape
    lr = cfg.ring_len
    cell = jnp.arange(n * b, dtype=INT).reshape(n, b)
    # 1. ACK arrivals.
    ack, mark, nloss, s_cnt, s_seqp1 = decode(c.nxt)
    if cfg.mark_at == "dequeue":
        # the ACK's packet left rtt slots ago; it is marked by the occupancy at that service instant
        row = (t - sc.rtt) % lr
        q_dep = c.q_hist.reshape(-1)[row * b + jnp.arange(b, dtype=INT)]
        mark = ack & over_threshold(q_dep, sc.K, cfg.mark_cmp)
    ack_i = ack.astype(INT)
    back = ack_i + nloss
    inflight = c.inflight - back
    snd_una = c.snd_una + back
    acked = c.acked + ack_i
    last_act = jnp.where(back > 0, t, c.last_act)
    # 2. Timeout: all outstanding packets were dropped and nothing came back for rto slots.
    pending = c.pending
    to = (inflight > 0) & (inflight == pending) & (t - last_act >= sc.rto)
    cleared = jnp.where(to, inflight, 0)
    inflight = inflight - cleared
    snd_una = snd_una + cleared
    pending = jnp.where(to, 0, pending)
    last_act = jnp.where(to, t, last_act)
    active = (t >= sc.start) & (t < sc.stop) & (acked < sc.size)
    # 3. Scouts and the window law.
    scout = c.scout
    zeros_i = jnp.zeros((n, b), INT)
    if law.uses_scouts:
        scout, n_ok, n_lost, d_s, ipg_s = scout_receive(
            scout, t, s_cnt, s_seqp1, sc.start, sc.rtt, sc.scout_dt
        )
    else:
        n_ok, n_lost, d_s, ipg_s = zeros_i, zeros_i, jnp.zeros((n, b), FLOAT), jnp.zeros((n, b), FLOAT)
    ev = Events(
        t=t,
        ack=ack,
        mark=mark,
        nloss=nloss,
        timeout=to,
        snd_nxt=c.snd_nxt,
        snd_una=snd_una,
        scout_ok=n_ok,
        scout_lost=n_lost,
        d_s=d_s,
        ipg_s=ipg_s,
        rtt=sc.rtt.astype(FLOAT),
        active=active,
    )
    lst = law.step(c.law, ev, sc.law)
    cwnd = lst["cwnd"]
    # 4. Senders.
    tokens = jnp.minimum(c.tokens + sc.access, 1.0)
    send = (
        active
        & (inflight.astype(FLOAT) + 1.0 <= cwnd)
        & (acked + inflight < sc.size)
        & (tokens >= 1.0 - 1e-6)
    )
    si = send.astype(INT)
    tokens = tokens - send.astype(FLOAT)
    last_act = jnp.where(send & (inflight == 0), t, last_act)  # an idle flow arms its timer when it sends
    inflight = inflight + si
    off = _order_offset(t, sc.seed, n)
    # 5. Switch: enqueue (the ACK is scheduled now: the packet leaves `seen` slots later), then one slot of service.
    seen, accept, drop, m_enq = enqueue_data(cfg, c.qlen, send, off, sc.K)
    codes = data_code(m_enq, pending)  # the flow's unreported drops ride on its next accepted packet
    pending = jnp.where(accept, 0, pending + drop.astype(INT))
    idx = jnp.where(accept, ((t + seen + sc.rtt) % lr) * (b * n), lr * (b * n)) + cell
    q_pre = c.qlen + jnp.sum(accept, axis=0, dtype=INT)
    busy, qlen = serve_data(q_pre)
    sq_cnt, sq_seq, sq_tot = c.sq_cnt, c.sq_seq, c.sq_tot
    served = sdrop = zeros_i
    if law.uses_scouts:
        due = scout_due(t, sc.start, sc.rtt, active & sc.scouts)
        sq_cnt, sq_seq, sq_tot, sdrop = enqueue_scouts(cfg, sq_cnt, sq_seq, sq_tot, due, scout["sent"], off)
        scout = {**scout, "sent": scout["sent"] + due.astype(INT)}
        served, sq_cnt, sq_tot = serve_scouts(sq_cnt, sq_tot, ~busy)
        idx_s = jnp.where(served > 0, ((t + sc.rtt) % lr) * (b * n), (lr + 1) * (b * n)) + cell
        idx = jnp.concatenate([idx, idx_s])
        codes = jnp.concatenate([codes, scout_code(served, sq_seq)])
    # The same scatter clears this slot's row (read at the end of the previous slot): no write targets it, since
    # every new ACK is due at least two slots from now.
    idx = jnp.concatenate([idx, (t % lr) * (b * n) + cell])
    codes = jnp.concatenate([codes, zeros_i])
    ring = c.ring.at[idx.reshape(-1)].set(codes.reshape(-1), unique_indices=True, mode="promise_in_bounds")
    nxt = jax.lax.dynamic_slice(ring, (((t + 1) % lr) * (b * n),), (b * n,)).reshape(n, b)
    # The row is read last and leaves the slot as part of the loop carry, so it is materialised before the next
    # slot's in-place scatter (read inside an unrolled body, XLA fused it into later kernels and copied the ring).
    q_hist = c.q_hist
    if cfg.mark_at == "dequeue":
        q_hist = jax.lax.dynamic_update_slice(q_hist, q_pre[None, :], (t % lr, jnp.zeros((), INT)))
    alpha = lst.get("alpha")
    acc = {
        "q_sum": acc["q_sum"] + qlen.astype(jnp.float32),
        "q_min": jnp.minimum(acc["q_min"], qlen),
        "q_max": jnp.maximum(acc["q_max"], qlen),
        "busy": acc["busy"] + busy.astype(INT),
        "cwnd_sum": acc["cwnd_sum"] + jnp.where(active, cwnd, 0.0),
        "alpha_sum": acc["alpha_sum"] + jnp.where(active, alpha, 0.0)
        if alpha is not None
        else acc["alpha_sum"],
    }
    new = SimState(
        ring=ring,
        nxt=nxt,
        q_hist=q_hist,
        qlen=qlen,
        sq_cnt=sq_cnt,
        sq_seq=sq_seq,
        sq_tot=sq_tot,
        pending=pending,
        inflight=inflight,
        snd_nxt=c.snd_nxt + si,
        snd_una=snd_una,
        acked=acked,
        last_act=last_act,
        tokens=tokens,
        drops=c.drops + drop.astype(INT),
        marked=c.marked + (ack & mark).astype(INT),
        timeouts=c.timeouts + to.astype(INT),
        active_slots=c.active_slots + active.astype(INT),
        scouts_served=c.scouts_served + served,
        scouts_dropped=c.scouts_dropped + sdrop.astype(INT),
        scouts_lost=c.scouts_lost + n_lost,
        scout=scout,
        law=lst,
    )
    return new, acc


def conservation_residual(cfg: PacketConfig, c: SimState) -> Any:
    """Per scenario, the largest |inflight − (ACKs and loss reports on the way back + unreported drops)| over
    flows, at a chunk end. Zero when every packet sent is acknowledged, reported lost, or still in the network
    (queued or its ACK returning: both are ring entries from the moment the packet is accepted)."""
    n, b = c.inflight.shape
    rows = c.ring[: cfg.ring_len * b * n].reshape(cfg.ring_len, n, b)
    pos = jnp.maximum(rows, 0)
    back = jnp.sum((pos & 1) + (pos >> 2), axis=0)  # the next slot's row (``nxt``) is still in the ring
    return jnp.max(jnp.abs(c.inflight - (back + c.pending)), axis=0)


def _engine_layout(sc: Scenario) -> Scenario:
    """Per-flow fields from [B, N] (a stack of scenarios) to the engine's [N, B]; per-scenario fields stay [B]."""
    t = lambda a: jnp.asarray(a).T  # noqa: E731
    return sc._replace(
        rtt=t(sc.rtt),
        start=t(sc.start),
        stop=t(sc.stop),
        size=t(sc.size),
        scouts=t(sc.scouts),
        scout_dt=t(sc.scout_dt),
    )


def _run(cfg: PacketConfig, law: Law, sc: Scenario) -> dict[str, Any]:
    """The whole run of a batch; returns per-chunk records with a leading chunk axis, then the batch axis."""
    n = cfg.n_flows
    b = int(jnp.shape(sc.rtt)[0])
    law_state = jax.tree.map(lambda a: a.T, jax.vmap(lambda p: law.init(p, n))(sc.law))
    scb = _engine_layout(sc)
    c0 = init_state(cfg, scb, law_state)

    def chunk_one(c: SimState, k: Any) -> tuple[SimState, dict]:
        base = k * cfg.chunk

        def body(carry: tuple, i: Any) -> tuple[tuple, None]:
            st, acc = carry
            return _slot(cfg, law, scb, st, acc, base + i), None

        (c, acc), _ = jax.lax.scan(
            body, (c, _acc_init(b, n)), jnp.arange(cfg.chunk, dtype=INT), unroll=UNROLL
        )
        rec = {
            **acc,
            "q_end": c.qlen,
            "cwnd_end": c.law["cwnd"],
            "alpha_end": c.law.get("alpha", jnp.zeros((n, b), FLOAT)),
            "inflight_end": c.inflight,
            "pending_end": c.pending,
            "scouts_sent_cum": c.scout["sent"],
            **{
                f"{v}_cum": getattr(c, v)
                for v in set(_CUMULATIVE.values()) | set(_CUMULATIVE_SUMMED.values())
            },
        }
        if cfg.debug:
            rec["residual"] = conservation_residual(cfg, c)
        return c, rec

    _, recs = jax.lax.scan(chunk_one, c0, jnp.arange(cfg.n_chunks, dtype=INT))
    return recs


def _finish(recs: dict[str, Any]) -> dict[str, np.ndarray]:
    """Records as NumPy arrays, [B, chunk] or [B, chunk, N]; cumulative snapshots become per-chunk differences."""
    out = {}
    for k, v in recs.items():
        a = np.asarray(v)  # [chunk, B] or [chunk, N, B]
        out[k] = np.moveaxis(a, -1, 0)

    def diff(a: np.ndarray) -> np.ndarray:
        return np.diff(a, axis=1, prepend=np.zeros_like(a[:, :1]))

    for key, src in _CUMULATIVE.items():
        out[key] = diff(out.pop(f"{src}_cum"))
    for key, src in {**_CUMULATIVE_SUMMED, "scouts_sent": "scouts_sent"}.items():
        out[key] = diff(out.pop(f"{src}_cum").sum(-1))
    return out


@functools.lru_cache(maxsize=64)
def compiled(cfg: PacketConfig, law: Law) -> Any:
    """The jitted run for one static configuration and law (cached): ``f(batched scenario) -> records``."""
    return jax.jit(functools.partial(_run, cfg, law))


def _as_arrays(sc: Scenario) -> Scenario:
    return jax.tree.map(jnp.asarray, sc)


def run_one(cfg: PacketConfig, law: Law, sc: Scenario) -> dict[str, np.ndarray]:
    """Run one scenario (no batch axis); returns per-chunk records as NumPy arrays."""
    out = run_batch(cfg, law, stack([sc]))
    return {k: v[0] for k, v in out.items()}


#: Largest number of scenarios in one compiled call. Larger batches are run as several calls of this size: on 2 CPU
#: cores the aggregate rate peaks around 64 scenarios per call (the per-slot working set, ~0.3 MB per 64 scenarios
#: of 10 flows plus the ACK ring, then still fits in cache) and falls beyond (benchmarks/packet.py).
MAX_BATCH = 64


def run_batch(
    cfg: PacketConfig, law: Law, sc: Scenario, max_batch: int = MAX_BATCH, workers: int | None = None
) -> dict[str, np.ndarray]:
    """Run a batch of scenarios (every field of ``sc`` has a leading batch axis).

    Batches larger than ``max_batch`` are split into calls of at most ``max_batch`` scenarios, and batches of at
    least 64 into at least one call per core (the last call padded by repeating its final scenario, so one compiled
    program serves every call); the calls run concurrently on ``workers`` threads (default: one per CPU core; XLA
    releases the GIL while it runs). Returns per-chunk records with a
    leading batch axis. Every scenario's result is independent of the others in its batch and of the split.
    """
    sc = jax.tree.map(np.asarray, sc)
    b = int(np.asarray(sc.rtt).shape[0])
    cores = int(workers or os.cpu_count() or 1)
    # at least ceil(b / max_batch) calls, and one per core once each call keeps ≥ 32 scenarios (below that the
    # per-kernel launch cost dominates and splitting does not pay: 1.7 M/s for 2 × 8 vs 1.9 M/s for 1 × 16)
    n_parts = max(math.ceil(b / max(1, int(max_batch))), min(cores, b // 32), 1)
    size = math.ceil(b / n_parts)
    fn = compiled(cfg, law)
    los = list(range(0, b, size))

    def call(lo: int) -> dict[str, np.ndarray]:
        idx = np.minimum(np.arange(lo, lo + size), b - 1)
        part = jax.tree.map(lambda a: a[idx], sc)
        out = _finish(fn(_as_arrays(part)))
        return {k: v[: min(size, b - lo)] for k, v in out.items()}

    n_workers = min(len(los), cores)
    if n_workers > 1:
        with ThreadPoolExecutor(n_workers) as ex:
            parts = list(ex.map(call, los))
    else:
        parts = [call(lo) for lo in los]
    return {k: np.concatenate([p[k] for p in parts], axis=0) for k in parts[0]}


def stack(scenarios: list[Scenario]) -> Scenario:
    """Stack scenarios of the same configuration into one batch."""
    return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *scenarios)
