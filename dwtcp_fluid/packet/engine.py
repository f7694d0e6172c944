"""The slot loop of the packet core: ``lax.scan`` over slots inside ``lax.scan`` over chunks, ``jit`` and ``vmap``.

One slot (one data packet's transmission time L/C) proceeds as follows, for every flow at once:

1. ACKs arrive (read from the departure ring one slot earlier): inflight, cumulative counters; losses reported
   with the ACK (a drop is detected at the flow's first later delivery, SACK-like, one RTT after the drop).
2. Retransmission timeout: if every outstanding packet of a flow was dropped (no later delivery can report it) and
   ``rto`` slots passed since the flow's last ACK (or the send that armed the timer), the losses are declared.
3. Scout ACKs and Scout timeouts (DWTCP only), then the window law's per-ACK step.
4. Senders send at most one packet each (access link ≤ bottleneck rate) while ``inflight < floor(cwnd)``, and
   Scout-using flows send their once-per-RTT Scout.
5. The switch enqueues the arrivals (drop-tail, ECN at enqueue) and serves one data packet, or Scouts if the
   data queue is empty; the served packet's ACK code is written into the departure ring at row ``t mod ring_len``
   and read by its sender ``rtt`` slots later (all of the base RTT is on the return path).

Every ring write uses the slot counter ``t``, which is shared by all scenarios of a batch, so under ``vmap`` the
writes stay contiguous in-place updates; the reads for the next slot are done after the writes (reading first
made XLA copy the whole ring every slot). Memory is bounded: per-chunk sums, minima, maxima and end-of-chunk
snapshots only.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .laws.base import FLOAT, INT, Events, Law
from .scouts import scout_due, scout_receive
from .state import PacketConfig, Scenario, SimState, init_state
from .switch import dequeue_data, enqueue_data, enqueue_scouts, serve_scouts

__all__ = ["run_one", "run_batch", "compiled", "stack"]

#: Slots per iteration of the compiled slot loop (unrolling removes per-iteration loop overhead).
UNROLL = 1


def _order_offset(t: Any, seed: Any, n: int) -> Any:
    """The flow enqueued first in slot t: a cheap integer hash of (t, seed), so ties rotate among flows."""
    h = t.astype(jnp.uint32) * jnp.uint32(2654435761) + seed.astype(jnp.uint32) * jnp.uint32(40503)
    h = h ^ (h >> 15)
    return (h % jnp.uint32(n)).astype(INT)


def _acc_init(n: int) -> dict[str, Any]:
    zi, zf = jnp.zeros(n, INT), jnp.zeros(n, FLOAT)
    big = jnp.asarray(2**30, INT)
    return {
        "q_sum": jnp.zeros((), jnp.float32),
        "q_min": big,
        "q_max": jnp.zeros((), INT),
        "delivered": zi,
        "sent": zi,
        "drops": zi,
        "marks": jnp.zeros((), INT),
        "timeouts": zi,
        "active": zi,
        "cwnd_sum": zf,
        "alpha_sum": zf,
        "scouts_sent": jnp.zeros((), INT),
        "scouts_served": jnp.zeros((), INT),
        "scouts_dropped": jnp.zeros((), INT),
        "scouts_lost": jnp.zeros((), INT),
    }


def _slot(cfg: PacketConfig, law: Law, sc: Scenario, c: SimState, acc: dict, t: Any) -> tuple[SimState, dict]:
    n = cfg.n_flows
    fid = jnp.arange(n, dtype=INT)
    # 1. ACK arrivals.
    code = c.nxt_ack
    ack = (code & 1) > 0
    mark = (code & 2) > 0
    nloss = code >> 2
    back = ack.astype(INT) + nloss
    inflight = c.inflight - back
    snd_una = c.snd_una + back
    acked = c.acked + ack.astype(INT)
    last_act = jnp.where(back > 0, t, c.last_act)
    # 2. Timeout: all outstanding packets were dropped and nothing came back for rto slots.
    pending = c.pending_loss
    to = (inflight > 0) & (inflight == pending) & (t - last_act >= sc.rto)
    cleared = jnp.where(to, inflight, 0)
    inflight = inflight - cleared
    snd_una = snd_una + cleared
    pending = jnp.where(to, 0, pending)
    last_act = jnp.where(to, t, last_act)
    active = (t >= sc.start) & (t < sc.stop) & (acked < sc.size)
    # 3. Scouts and the window law.
    scout = c.scout
    zeros_i, zeros_f = jnp.zeros(n, INT), jnp.zeros(n, FLOAT)
    if law.uses_scouts:
        scout, n_ok, n_lost, d_s, ipg_s = scout_receive(
            scout, t, c.nxt_sc_cnt, c.nxt_sc_seq, sc.start, sc.rtt, sc.scout_dt
        )
    else:
        n_ok, n_lost, d_s, ipg_s = zeros_i, zeros_i, zeros_f, zeros_f
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
    snd_nxt = c.snd_nxt + si
    off = _order_offset(t, sc.seed, n)
    # 5. Switch: enqueue, then one slot of service.
    hq, accept, dropped = enqueue_data(cfg, (c.hq_code, c.hq_head, c.hq_len), send, off, sc.K)
    pending = pending + dropped.astype(INT)
    hq, dep, f0, m0 = dequeue_data(cfg, hq, sc.K)
    hit = (fid == f0) & dep
    # The served packet's ACK reaches its sender rtt slots later; losses not yet reported ride along. Reductions
    # with the one-hot ``hit`` replace gathers, which are slow under vmap on CPU.
    rtt0 = jnp.sum(jnp.where(hit, sc.rtt, 0)).astype(INT)
    code0 = (1 + 2 * m0.astype(INT) + 4 * jnp.sum(jnp.where(hit, pending, 0))).astype(INT)
    pending = jnp.where(hit, 0, pending)
    lr = cfg.ring_len
    r = t % lr
    zrow = jnp.zeros((1, n), INT)
    z = jnp.zeros((), r.dtype)
    ack_ring = jax.lax.dynamic_update_slice(c.ack_ring, zrow, (r, z))  # row t was consumed this slot
    ack_ring = ack_ring.at[jnp.where(dep, (t + rtt0) % lr, lr), f0].set(code0, mode="drop")
    r1 = (t + 1) % lr
    nxt_ack = jax.lax.dynamic_slice(ack_ring, (r1, z), (1, n))[0]
    lq = (c.lq_flow, c.lq_seq, c.lq_head, c.lq_len)
    sc_cnt_ring, sc_seq_ring, nxt_sc_cnt, nxt_sc_seq = (
        c.sc_cnt_ring,
        c.sc_seq_ring,
        c.nxt_sc_cnt,
        c.nxt_sc_seq,
    )
    if law.uses_scouts:
        due = scout_due(t, sc.start, sc.rtt, active & sc.scouts)
        lq, sdrop = enqueue_scouts(cfg, lq, due, scout["sent"], off)
        scout = {**scout, "sent": scout["sent"] + due.astype(INT)}
        lq, cnt, seqp1 = serve_scouts(cfg, lq, ~dep, n)
        rows = jnp.where(cnt > 0, (t + sc.rtt) % lr, lr)
        sc_cnt_ring = (
            jax.lax.dynamic_update_slice(sc_cnt_ring, zrow, (r, z)).at[rows, fid].set(cnt, mode="drop")
        )
        sc_seq_ring = (
            jax.lax.dynamic_update_slice(sc_seq_ring, zrow, (r, z)).at[rows, fid].set(seqp1, mode="drop")
        )
        nxt_sc_cnt = jax.lax.dynamic_slice(sc_cnt_ring, (r1, z), (1, n))[0]
        nxt_sc_seq = jax.lax.dynamic_slice(sc_seq_ring, (r1, z), (1, n))[0]
        acc = {
            **acc,
            "scouts_sent": acc["scouts_sent"] + jnp.sum(due, dtype=INT),
            "scouts_served": acc["scouts_served"] + jnp.sum(cnt, dtype=INT),
            "scouts_dropped": acc["scouts_dropped"] + jnp.sum(sdrop, dtype=INT),
            "scouts_lost": acc["scouts_lost"] + jnp.sum(n_lost, dtype=INT),
        }
    q = hq[2]
    alpha = lst.get("alpha", zeros_f)
    acc = {
        **acc,
        "q_sum": acc["q_sum"] + q.astype(jnp.float32),
        "q_min": jnp.minimum(acc["q_min"], q),
        "q_max": jnp.maximum(acc["q_max"], q),
        "delivered": acc["delivered"] + hit.astype(INT),
        "sent": acc["sent"] + si,
        "drops": acc["drops"] + dropped.astype(INT),
        "marks": acc["marks"] + m0.astype(INT),
        "timeouts": acc["timeouts"] + to.astype(INT),
        "active": acc["active"] + active.astype(INT),
        "cwnd_sum": acc["cwnd_sum"] + jnp.where(active, cwnd, 0.0),
        "alpha_sum": acc["alpha_sum"] + jnp.where(active, alpha, 0.0),
    }
    new = SimState(
        hq_code=hq[0],
        hq_head=hq[1],
        hq_len=hq[2],
        lq_flow=lq[0],
        lq_seq=lq[1],
        lq_head=lq[2],
        lq_len=lq[3],
        ack_ring=ack_ring,
        sc_cnt_ring=sc_cnt_ring,
        sc_seq_ring=sc_seq_ring,
        nxt_ack=nxt_ack,
        nxt_sc_cnt=nxt_sc_cnt,
        nxt_sc_seq=nxt_sc_seq,
        pending_loss=pending,
        inflight=inflight,
        snd_nxt=snd_nxt,
        snd_una=snd_una,
        acked=acked,
        last_act=last_act,
        tokens=tokens,
        scout=scout,
        law=lst,
    )
    return new, acc


def conservation_residual(cfg: PacketConfig, sc: Scenario, c: SimState, t_last: Any) -> Any:
    """Largest |inflight − (queued + ACKs and loss reports on the way back + unreported drops)| over flows.

    ``t_last`` is the last slot processed. Zero when every packet sent is delivered, dropped or in flight.
    """
    n = cfg.n_flows
    fid = jnp.arange(n, dtype=INT)
    j = jnp.arange(cfg.buffer, dtype=INT)
    in_q = ((j - c.hq_head) % cfg.buffer) < c.hq_len
    queued = jnp.sum(in_q[:, None] & ((c.hq_code[:, None] >> 1) == fid[None, :]), axis=0, dtype=INT)
    rows = jnp.arange(cfg.ring_len, dtype=INT)
    # Every ring entry is on its way back except the row of slot t_last + 1, already copied into nxt_ack.
    on_way = rows[:, None] != (t_last + 1) % cfg.ring_len
    codes = jnp.where(on_way, c.ack_ring, 0)
    back = jnp.sum((codes & 1) + (codes >> 2), axis=0) + (c.nxt_ack & 1) + (c.nxt_ack >> 2)
    return jnp.max(jnp.abs(c.inflight - (queued + back + c.pending_loss)))


def _run(cfg: PacketConfig, law: Law, sc: Scenario, batched: bool) -> dict[str, Any]:
    """The whole run, returning per-chunk records with a leading chunk axis (then the batch axis if batched).

    With ``batched``, ``vmap`` is applied to one chunk *inside* the scan over chunks, so the records are stacked
    along a leading chunk axis (contiguous writes; vmapping the whole scan made XLA copy the stacked records
    every chunk).
    """
    n = cfg.n_flows

    def init(s: Scenario) -> SimState:
        return init_state(cfg, s, law.init(s.law, n))

    def chunk_one(c: SimState, s: Scenario, k: Any) -> tuple[SimState, dict]:
        base = k * cfg.chunk

        def body(carry: tuple, i: Any) -> tuple[tuple, None]:
            st, acc = carry
            st, acc = _slot(cfg, law, s, st, acc, base + i)
            return (st, acc), None

        (c, acc), _ = jax.lax.scan(body, (c, _acc_init(n)), jnp.arange(cfg.chunk, dtype=INT), unroll=UNROLL)
        rec = {
            **acc,
            "q_end": c.hq_len,
            "cwnd_end": c.law["cwnd"],
            "alpha_end": c.law.get("alpha", jnp.zeros(n, FLOAT)),
            "inflight_end": c.inflight,
            "pending_end": c.pending_loss,
        }
        if cfg.debug:
            rec["residual"] = conservation_residual(cfg, s, c, base + cfg.chunk - 1)
        return c, rec

    s0 = jax.vmap(init)(sc) if batched else init(sc)
    step = jax.vmap(chunk_one, in_axes=(0, 0, None)) if batched else chunk_one
    _, recs = jax.lax.scan(lambda c, k: step(c, sc, k), s0, jnp.arange(cfg.n_chunks, dtype=INT))
    return recs


@functools.lru_cache(maxsize=64)
def compiled(cfg: PacketConfig, law: Law, batched: bool) -> Any:
    """The jitted run for one static configuration and law (cached): ``f(scenario) -> records``."""
    return jax.jit(functools.partial(_run, cfg, law, batched=batched))


def _as_arrays(sc: Scenario) -> Scenario:
    return jax.tree.map(jnp.asarray, sc)


def run_one(cfg: PacketConfig, law: Law, sc: Scenario) -> dict[str, np.ndarray]:
    """Run one scenario (no batch axis); returns per-chunk records as NumPy arrays."""
    out = compiled(cfg, law, False)(_as_arrays(sc))
    return jax.tree.map(np.asarray, out)


#: Largest number of scenarios in one vmapped call. On 2 CPU cores the aggregate rate peaks around 16–32
#: scenarios per call and falls beyond (more per-scenario state than the caches hold: 1.25 M data packets/s at 16
#: against 0.7 M at 256 in benchmarks/packet.py), so larger batches are run as several calls of this size.
MAX_BATCH = 32


def run_batch(cfg: PacketConfig, law: Law, sc: Scenario, max_batch: int = MAX_BATCH) -> dict[str, np.ndarray]:
    """Run a batch of scenarios (every field of ``sc`` has a leading batch axis) with ``vmap``.

    Batches larger than ``max_batch`` are split into calls of ``max_batch`` scenarios (the last one padded by
    repeating its final scenario, so one compiled program serves every call). Returns per-chunk records with a
    leading batch axis.
    """
    sc = jax.tree.map(np.asarray, sc)
    b = int(np.asarray(sc.rtt).shape[0])
    size = min(b, max(1, int(max_batch)))
    fn = compiled(cfg, law, True)
    parts = []
    for lo in range(0, b, size):
        idx = np.minimum(np.arange(lo, lo + size), b - 1)
        part = jax.tree.map(lambda a, i=idx: a[i], sc)
        out = jax.tree.map(lambda a: np.moveaxis(np.asarray(a), 1, 0), fn(_as_arrays(part)))
        parts.append(jax.tree.map(lambda a, n=min(size, b - lo): a[:n], out))
    return jax.tree.map(lambda *xs: np.concatenate(xs, axis=0), *parts)


def stack(scenarios: list[Scenario]) -> Scenario:
    """Stack scenarios of the same configuration into one batch."""
    return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *scenarios)
