"""The bottleneck switch: a strict-priority pair of FIFOs with drop-tail buffers and step ECN marking.

* High priority: data packets, buffer ``cfg.buffer`` packets, drop-tail; step marking against K at enqueue or at
  dequeue (``cfg.mark_at``) with "≥ K" or "> K" (``cfg.mark_cmp``).
* Low priority: Scouts (64 bytes), buffer ``cfg.scout_buffer``, served only in a slot in which the high-priority
  queue is empty (non-preemptive by construction: a slot is either one data packet or up to
  ``cfg.scouts_per_slot`` Scouts).

Order inside a slot: arrivals are enqueued first (simultaneous arrivals in a rotating order given by ``offset``, so
no flow is always last when the buffer overflows), then one slot of service. A packet arriving at an empty queue is
therefore served in the slot it arrives (zero queueing delay). All functions act on one scenario.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .laws.base import INT
from .state import PacketConfig

__all__ = [
    "arrival_positions",
    "over_threshold",
    "enqueue_data",
    "dequeue_data",
    "enqueue_scouts",
    "serve_scouts",
]


def arrival_positions(arrive: Any, offset: Any) -> Any:
    """Number of arrivals enqueued before each flow's arrival in this slot (flows taken from ``offset`` upward).

    Parameters
    ----------
    arrive : bool [N]
    offset : int
        The flow enqueued first (if it arrives); the order is offset, offset+1, …, N−1, 0, …, offset−1.
    """
    n = arrive.shape[0]
    a = arrive.astype(INT)
    idx = jnp.arange(n, dtype=INT)
    before = jnp.cumsum(a) - a  # arrivals of lower-numbered flows
    before_off = jnp.sum(jnp.where(idx < offset, a, 0))  # arrivals of flows 0..offset-1
    # Rotated order without a gather (gathers with per-scenario indices are slow under vmap on CPU): flows
    # ≥ offset come first, then flows < offset after all of them.
    return before - before_off + jnp.where(idx < offset, jnp.sum(a), 0)


def over_threshold(queue: Any, K: Any, cmp: str) -> Any:
    """The step marker's test: queue ≥ K (``"ge"``) or queue > K (``"gt"``)."""
    return queue >= K if cmp == "ge" else queue > K


def enqueue_data(cfg: PacketConfig, hq: tuple, arrive: Any, offset: Any, K: Any) -> tuple[tuple, Any, Any]:
    """Drop-tail enqueue of this slot's data arrivals into the high-priority FIFO.

    The queue is ``(code, head, len)`` with ``code = 2·flow + mark`` per buffer slot (one array: one scatter and
    one gather per slot). Returns the new queue, the accepted and the dropped arrivals (bool [N]). With
    ``mark_at="enqueue"`` a packet is marked when the queue it finds (packets ahead of it, including earlier
    arrivals of the slot) passes K.
    """
    code, head, qlen = hq
    n = arrive.shape[0]
    seen = qlen + arrival_positions(arrive, offset)
    accept = arrive & (seen < cfg.buffer)
    idx = jnp.where(accept, (head + seen) % cfg.buffer, cfg.buffer)  # out of range → dropped by the scatter
    m = over_threshold(seen, K, cfg.mark_cmp) if cfg.mark_at == "enqueue" else jnp.zeros(n, bool)
    code = code.at[idx].set(2 * jnp.arange(n, dtype=INT) + m.astype(INT), mode="drop")
    qlen = qlen + jnp.sum(accept, dtype=INT)
    return (code, head, qlen), accept, arrive & ~accept


def dequeue_data(cfg: PacketConfig, hq: tuple, K: Any) -> tuple[tuple, Any, Any, Any]:
    """Serve one data packet if the high-priority queue is non-empty.

    Returns the new queue, whether a packet left, its flow and its ECN mark. With ``mark_at="dequeue"`` the mark
    tests the occupancy at the service instant, departing packet included.
    """
    code, head, qlen = hq
    dep = qlen > 0
    c0 = code[head]
    f0 = c0 >> 1
    m0 = (c0 & 1) > 0
    if cfg.mark_at == "dequeue":
        m0 = over_threshold(qlen, K, cfg.mark_cmp)
    m0 = m0 & dep
    head = jnp.where(dep, (head + 1) % cfg.buffer, head)
    return (code, head, qlen - dep.astype(INT)), dep, f0, m0


def enqueue_scouts(cfg: PacketConfig, lq: tuple, arrive: Any, seq: Any, offset: Any) -> tuple[tuple, Any]:
    """Enqueue this slot's Scouts (sequence numbers ``seq``) into the low-priority FIFO; returns the queue and
    the dropped Scouts."""
    flow, sq, head, qlen = lq
    n = arrive.shape[0]
    seen = qlen + arrival_positions(arrive, offset)
    accept = arrive & (seen < cfg.scout_buffer)
    idx = jnp.where(accept, (head + seen) % cfg.scout_buffer, cfg.scout_buffer)
    flow = flow.at[idx].set(jnp.arange(n, dtype=INT), mode="drop")
    sq = sq.at[idx].set(jnp.asarray(seq).astype(INT), mode="drop")
    return (flow, sq, head, qlen + jnp.sum(accept, dtype=INT)), arrive & ~accept


def serve_scouts(cfg: PacketConfig, lq: tuple, idle: Any, n: int) -> tuple[tuple, Any, Any]:
    """In an idle slot, serve up to ``scouts_per_slot`` Scouts from the head of the low-priority FIFO.

    Returns the queue, the number of Scouts of each flow served (int [N]) and 1 + the largest sequence number
    served per flow (0 when none).
    """
    flow, sq, head, qlen = lq
    cap = cfg.scout_buffer
    m = jnp.where(idle, jnp.minimum(qlen, cfg.scouts_per_slot), 0)
    j = jnp.arange(cap, dtype=INT)
    pos = (head + j) % cap
    valid = j < m
    fj, sj = flow[pos], sq[pos]
    hit = valid[:, None] & (fj[:, None] == jnp.arange(n, dtype=INT)[None, :])  # [cap, N]
    cnt = jnp.sum(hit, axis=0, dtype=INT)
    seqp1 = jnp.max(jnp.where(hit, sj[:, None] + 1, 0), axis=0)
    return (flow, sq, (head + m) % cap, qlen - m), cnt, seqp1
