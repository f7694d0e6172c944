"""The bottleneck switch: a strict-priority pair of FIFOs with drop-tail buffers and step ECN marking.

* High priority: data packets, buffer ``cfg.buffer`` packets, drop-tail; step marking against K at enqueue or at
  dequeue (``cfg.mark_at``) with "≥ K" or "> K" (``cfg.mark_cmp``).
* Low priority: Scouts (64 bytes), buffer ``cfg.scout_buffer``, served only in a slot in which the high-priority
  queue is empty (non-preemptive by construction: a slot is either one data packet or Scouts). A Scout buffer
  holds at most one slot's worth of Scouts (``scout_buffer ≤ scouts_per_slot``), so an idle slot serves every
  queued Scout.

Order inside a slot: arrivals are enqueued first (simultaneous arrivals in a rotating order given by ``offset``, so
no flow is always last when the buffer overflows), then one slot of service. A packet arriving at an empty queue is
therefore served in the slot it arrives (zero queueing delay).

The data FIFO is a counter, not a list of packets: one packet leaves per busy slot, so an arrival that finds
``seen`` packets ahead of it leaves exactly ``seen`` slots later, and the engine schedules its ACK at that moment
(see :class:`~.state.SimState`). Every function acts on a batch: per-flow arrays are ``[N, B]``, per-scenario
arrays ``[B]``. Flows are the leading axis and scenarios the trailing, contiguous one, so per-scenario values
broadcast against per-flow ones without index arithmetic and XLA vectorises along the batch.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .laws.base import INT
from .state import SCOUT_CNT_BITS, PacketConfig

__all__ = [
    "arrival_positions",
    "over_threshold",
    "enqueue_data",
    "serve_data",
    "enqueue_scouts",
    "serve_scouts",
    "data_code",
    "scout_code",
    "decode",
]


def arrival_positions(arrive: Any, offset: Any) -> Any:
    """Number of arrivals enqueued before each flow's arrival in this slot (flows taken from ``offset`` upward).

    Parameters
    ----------
    arrive : bool [N, B]
    offset : int [B]
        The flow enqueued first (if it arrives); the order is offset, offset+1, …, N−1, 0, …, offset−1.
    """
    n = arrive.shape[0]
    a = arrive.astype(INT)
    low = jnp.arange(n, dtype=INT)[:, None] < offset
    before = jnp.cumsum(a, axis=0) - a  # arrivals of lower-numbered flows
    before_off = jnp.sum(jnp.where(low, a, 0), axis=0)  # arrivals of flows 0..offset-1
    # Rotated order without a gather: flows ≥ offset come first, then flows < offset after all of them.
    return before - before_off + jnp.where(low, jnp.sum(a, axis=0), 0)


def over_threshold(queue: Any, K: Any, cmp: str) -> Any:
    """The step marker's test: queue ≥ K (``"ge"``) or queue > K (``"gt"``)."""
    return queue >= K if cmp == "ge" else queue > K


def enqueue_data(cfg: PacketConfig, qlen: Any, arrive: Any, offset: Any, K: Any) -> tuple[Any, Any, Any, Any]:
    """Drop-tail enqueue of this slot's data arrivals into the high-priority FIFO.

    Returns ``(seen, accept, drop, mark)`` (each ``[N, B]``): the packets ahead of each arrival (it leaves
    ``seen`` slots from now), the accepted and dropped arrivals, and the ECN mark given at enqueue (all False with
    ``mark_at="dequeue"``): a packet is marked when the queue it finds, earlier arrivals of the slot included,
    passes K. The new queue length is ``qlen + accept.sum(0)``.
    """
    seen = qlen + arrival_positions(arrive, offset)
    accept = arrive & (seen < cfg.buffer)
    if cfg.mark_at == "enqueue":
        mark = accept & over_threshold(seen, K, cfg.mark_cmp)
    else:
        mark = jnp.zeros_like(accept)
    return seen, accept, arrive & ~accept, mark


def serve_data(qlen: Any) -> tuple[Any, Any]:
    """One slot of service: returns ``(busy, qlen after service)``; a packet leaves when the queue is non-empty.

    With ``mark_at="dequeue"`` the departing packet is marked by the occupancy at the service instant, departing
    packet included, i.e. by ``qlen`` before this call (the engine keeps it per slot).
    """
    busy = qlen > 0
    return busy, qlen - busy.astype(INT)


def enqueue_scouts(
    cfg: PacketConfig, sq_cnt: Any, sq_seq: Any, sq_tot: Any, arrive: Any, seq: Any, offset: Any
) -> tuple[Any, Any, Any, Any]:
    """Drop-tail enqueue of this slot's Scouts (sequence numbers ``seq``) into the low-priority queue.

    The queue is kept as Scouts per flow (``sq_cnt``), the largest queued sequence number per flow (``sq_seq``)
    and the total (``sq_tot`` [B]). Returns the new ``(sq_cnt, sq_seq, sq_tot)`` and the dropped Scouts.
    """
    seen = sq_tot + arrival_positions(arrive, offset)
    accept = arrive & (seen < cfg.scout_buffer)
    sq_cnt = sq_cnt + accept.astype(INT)
    sq_seq = jnp.where(accept, seq, sq_seq)
    return sq_cnt, sq_seq, sq_tot + jnp.sum(accept, axis=0, dtype=INT), arrive & ~accept


def serve_scouts(sq_cnt: Any, sq_tot: Any, idle: Any) -> tuple[Any, Any, Any]:
    """In an idle slot, serve every queued Scout (the buffer holds at most one slot's worth).

    Returns the Scouts of each flow served (``[N, B]``) and the emptied ``(sq_cnt, sq_tot)``.
    """
    served = jnp.where(idle, sq_cnt, 0)
    return served, sq_cnt - served, jnp.where(idle, 0, sq_tot)


def data_code(mark: Any, losses: Any) -> Any:
    """Ring code of a data ACK (> 0): ``1 | mark << 1 | losses << 2`` (losses of the flow it reports)."""
    return 1 + 2 * mark.astype(INT) + 4 * losses


def scout_code(count: Any, seq: Any) -> Any:
    """Ring code of a Scout-ACK batch (< 0): ``−((1 + seq) << 5 | count)``, ``count`` < 32 Scouts."""
    return -(((seq + 1) << SCOUT_CNT_BITS) | count)


def decode(code: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Split ring codes into ``(ack, mark, losses, scout_count, scout_seq_plus_1)``."""
    data = code > 0
    sc = jnp.where(code < 0, -code, 0)
    return (
        data,
        data & ((code & 2) > 0),
        jnp.where(data, code >> 2, 0),
        sc & ((1 << SCOUT_CNT_BITS) - 1),
        sc >> SCOUT_CNT_BITS,
    )
