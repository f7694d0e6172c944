"""Static configuration, per-scenario inputs and the carried state of the packet core.

Time is slotted: one slot is one data packet's transmission time L/C at the bottleneck, so a 10 Gbps link with
1500-byte packets has 833,333 slots per second. Every time below is an integer number of slots unless said
otherwise. Three kinds of data:

* :class:`PacketConfig` — static (hashable) sizes and switch semantics, compiled into the kernel;
* :class:`Scenario` — per-scenario arrays (RTTs, start/stop slots, K, seed, law parameters), vmapped over;
* :class:`SimState` — the carry of ``lax.scan``: only what must be carried from one slot to the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import jax.numpy as jnp

from .laws.base import FLOAT, INT

__all__ = ["PacketConfig", "Scenario", "SimState", "INFINITE_SIZE", "init_state"]

#: Flow size meaning "long-lived" (never finishes), in packets.
INFINITE_SIZE = 2**30


@dataclass(frozen=True)
class PacketConfig:
    """Static parameters of a run (changing one recompiles).

    Parameters
    ----------
    n_flows : int
        Number of senders N.
    n_chunks, chunk : int
        The run lasts ``n_chunks * chunk`` slots; summary statistics and traces are recorded once per chunk.
    ring_len : int
        Length of the ACK rings (indexed by arrival slot); must exceed the largest base RTT in slots.
    buffer : int
        High-priority (data) buffer in packets, drop-tail (default 250, the DWTCP simulations' switch buffer).
    scout_buffer : int
        Low-priority (Scout) buffer in Scouts (default 10, ≈ 640 bytes, section 3.3 of 000_eb5ec3ba60d5c338.txt).
    scouts_per_slot : int
        Scouts served in one idle slot: floor(L/S) (23 for 1500-byte slots and 64-byte Scouts), capped by the
        Scout buffer.
    mark_at : {"enqueue", "dequeue"}
        Where the step ECN marker looks at the queue: ns-2/ns-3 mark an arriving packet by the queue it finds
        (packets ahead of it); htsim and HPCC mark at dequeue by the occupancy including the departing packet.
    mark_cmp : {"ge", "gt"}
        Mark when that queue is ≥ K (the DCTCP paper's "at least K", default) or > K.
    debug : bool
        Check per-flow packet conservation every chunk (costs a pass over the queues).
    """

    n_flows: int
    n_chunks: int
    chunk: int
    ring_len: int
    buffer: int = 250
    scout_buffer: int = 10
    scouts_per_slot: int = 23
    mark_at: Literal["enqueue", "dequeue"] = "enqueue"
    mark_cmp: Literal["ge", "gt"] = "ge"
    debug: bool = False

    def __post_init__(self) -> None:
        from ..params import check_range

        check_range("n_flows", self.n_flows, lo=1, hi=100000, integer=True)
        check_range("n_chunks", self.n_chunks, lo=1, integer=True)
        check_range("chunk", self.chunk, lo=1, integer=True)
        check_range("ring_len", self.ring_len, lo=2, integer=True)
        check_range("buffer", self.buffer, lo=1, hi=10**6, integer=True, why="packets")
        check_range("scout_buffer", self.scout_buffer, lo=1, hi=1000, integer=True, why="Scouts")
        check_range("scouts_per_slot", self.scouts_per_slot, lo=1, integer=True)
        if self.mark_at not in ("enqueue", "dequeue"):
            raise ValueError(f"mark_at={self.mark_at!r} is invalid: accepted 'enqueue' or 'dequeue'")
        if self.mark_cmp not in ("ge", "gt"):
            raise ValueError(f"mark_cmp={self.mark_cmp!r} is invalid: accepted 'ge' or 'gt'")

    @property
    def n_slots(self) -> int:
        """Length of the run in slots."""
        return self.n_chunks * self.chunk


class Scenario(NamedTuple):
    """Per-scenario inputs (arrays; a batch has a leading axis on every field).

    Attributes
    ----------
    rtt : int [N]
        Base RTT of each flow in slots (≥ 2): a packet leaving the bottleneck at slot t is acknowledged at t + rtt.
    start, stop : int [N]
        The flow sends new data and Scouts in slots start ≤ t < stop.
    size : int [N]
        Flow size in packets (:data:`INFINITE_SIZE` for long-lived flows).
    scouts : bool [N]
        The flow sends Scouts (the law uses them and the flow is larger than its initial window).
    scout_dt : float [N]
        DWTCP's target delay d_t = τ + K·L/C in slots (eq. (2) of 000_eb5ec3ba60d5c338.txt); a Scout older than
        this without an ACK counts as lost.
    K : float
        ECN marking threshold in packets.
    rto : int
        Minimum retransmission timeout in slots.
    access : float
        Access-link rate as a fraction of the bottleneck rate (≤ 1: at most one packet per flow per slot).
    seed : int
        Seed of the flows' start jitter and of the per-slot order in which simultaneous arrivals are enqueued.
    law : dict[str, float]
        Numeric parameters of the window law.
    """

    rtt: Any
    start: Any
    stop: Any
    size: Any
    scouts: Any
    scout_dt: Any
    K: Any
    rto: Any
    access: Any
    seed: Any
    law: Any


class SimState(NamedTuple):
    """Carry of the slot loop (one scenario). Ring buffers are indexed by absolute slot modulo their length."""

    # high-priority data FIFO (ring of 2·flow + ECN mark)
    hq_code: Any
    hq_head: Any
    hq_len: Any
    # low-priority Scout FIFO
    lq_flow: Any
    lq_seq: Any
    lq_head: Any
    lq_len: Any
    # what reaches each sender, by arrival slot (row = slot mod ring_len, column = flow): data ACK code
    # 1 | mark << 1 | losses << 2, Scout ACK count and 1 + largest Scout sequence number
    ack_ring: Any
    sc_cnt_ring: Any
    sc_seq_ring: Any
    # the row of the next slot, read right after this slot's writes (reading before writing made XLA copy rings)
    nxt_ack: Any
    nxt_sc_cnt: Any
    nxt_sc_seq: Any
    # switch-side: drops of each flow not yet reported to its sender
    pending_loss: Any
    # senders
    inflight: Any
    snd_nxt: Any
    snd_una: Any
    acked: Any
    last_act: Any
    tokens: Any
    # Scout bookkeeping of the senders (see :mod:`.scouts`)
    scout: Any
    law: Any


def init_state(cfg: PacketConfig, scen: Scenario, law_state: dict[str, Any]) -> SimState:
    """The state at slot 0: empty queues and rings, nothing in flight."""
    n, b, sc, lr = cfg.n_flows, cfg.buffer, cfg.scout_buffer, cfg.ring_len
    zi = jnp.zeros(n, INT)
    return SimState(
        hq_code=jnp.zeros(b, INT),
        hq_head=jnp.zeros((), INT),
        hq_len=jnp.zeros((), INT),
        lq_flow=jnp.zeros(sc, INT),
        lq_seq=jnp.zeros(sc, INT),
        lq_head=jnp.zeros((), INT),
        lq_len=jnp.zeros((), INT),
        ack_ring=jnp.zeros((lr, n), INT),
        sc_cnt_ring=jnp.zeros((lr, n), INT),
        sc_seq_ring=jnp.zeros((lr, n), INT),
        nxt_ack=zi,
        nxt_sc_cnt=zi,
        nxt_sc_seq=zi,
        pending_loss=zi,
        inflight=zi,
        snd_nxt=zi,
        snd_una=zi,
        acked=zi,
        last_act=jnp.asarray(scen.start, INT),
        tokens=jnp.ones(n, FLOAT),
        scout={
            "sent": zi,
            "unacked": zi,
            "lost_upto": zi,
            "last_delay": jnp.zeros(n, FLOAT),
            "last_gap": jnp.zeros(n, FLOAT),
            "last_rcv": jnp.asarray(scen.start, INT),
        },
        law=law_state,
    )
