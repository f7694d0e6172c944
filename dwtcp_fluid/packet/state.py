"""Configuration, per-scenario inputs and the static shape of the packet core.

Time is slotted: one slot is one data packet's transmission time L/C at the bottleneck's highest rate, so a
10 Gbps link with 1500-byte packets has 833,333 slots per second. Every time below is an integer number of slots
unless said otherwise. Three kinds of data:

* :class:`PacketConfig` — the sizes and switch semantics of one run (validated; user-facing);
* :class:`Scenario` — per-scenario arrays (RTTs, start/stop slots, sizes, law index and parameters, impairments);
  a batch stacks them;
* :class:`EngineSpec` — the *static* shape the engine is compiled for (padded flow count, ring sizes, the set of
  laws, the features in use). Runs with equal specs share one compiled program and one batch; sizes are rounded up
  to powers of two (shape buckets), so runs of different lengths, buffers, K or flow counts in one bucket reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from .laws.base import FLOAT, INT, NEVER, Law

__all__ = [
    "PacketConfig",
    "Scenario",
    "EngineSpec",
    "FEATURES",
    "INFINITE_SIZE",
    "NEVER",
    "FLOAT",
    "INT",
    "pow2",
]

#: Flow size meaning "long-lived" (never finishes), in packets.
INFINITE_SIZE = 2**30


def pow2(n: int, lo: int = 1) -> int:
    """Smallest power of two ≥ max(n, lo)."""
    n = max(int(n), int(lo), 1)
    return 1 << (n - 1).bit_length()


@dataclass(frozen=True)
class PacketConfig:
    """Sizes and switch semantics of one run.

    Parameters
    ----------
    n_flows : int
        Number of senders N.
    n_chunks, chunk : int
        The run lasts ``n_chunks * chunk`` slots; summary statistics and traces are recorded once per chunk.
    ring_len : int
        Slots of look-ahead of the ACK wheel: must exceed the largest delay from a packet's acceptance to its ACK
        (queueing + base RTT + ACK-path jitter + delayed-ACK timeout).
    buffer : int
        High-priority (data) buffer in packets, drop-tail (default 250, the DWTCP simulations' switch buffer).
    scout_buffer : int
        Low-priority (Scout) buffer in Scouts (default 10, ≈ 640 bytes, section 3.3 of [DWTCP]).
    scouts_per_slot : int
        Scouts that fit in one idle slot: floor(L/S) (23 for 1500-byte slots and 64-byte Scouts). Must be at
        least ``scout_buffer``: an idle slot then empties the whole Scout queue.
    mark_at : {"enqueue", "dequeue"}
        Where the step ECN marker looks at the queue: ns-2/ns-3 mark an arriving packet by the queue it finds
        (packets ahead of it); htsim and HPCC mark at dequeue by the occupancy including the departing packet.
    mark_cmp : {"ge", "gt"}
        Mark when that queue is ≥ K (the DCTCP paper's "at least K", default) or > K.
    debug : bool
        Check per-flow packet conservation every chunk (costs a pass over the rings).
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
        if self.scout_buffer > self.scouts_per_slot:
            raise ValueError(
                f"scout_buffer={self.scout_buffer} is out of range: accepted 1 ≤ scout_buffer ≤ "
                f"scouts_per_slot={self.scouts_per_slot} (Scouts that fit in one idle slot)"
            )
        if self.ring_len < self.buffer + 3:
            raise ValueError(
                f"ring_len={self.ring_len} is out of range: accepted ring_len ≥ buffer + 3 = {self.buffer + 3}"
            )
        if self.mark_at not in ("enqueue", "dequeue"):
            raise ValueError(f"mark_at={self.mark_at!r} is invalid: accepted 'enqueue' or 'dequeue'")
        if self.mark_cmp not in ("ge", "gt"):
            raise ValueError(f"mark_cmp={self.mark_cmp!r} is invalid: accepted 'ge' or 'gt'")

    @property
    def n_slots(self) -> int:
        """Length of the run in slots."""
        return self.n_chunks * self.chunk


class Scenario(NamedTuple):
    """Per-scenario inputs (arrays; a batch has a leading axis on every field). Slots unless said otherwise.

    Attributes
    ----------
    rtt, start, stop, size : int [N]
        Base RTT (≥ 2: a packet leaving the bottleneck at slot t is acknowledged at t + rtt), start and stop
        slots (the flow sends in start ≤ t < stop), size in packets (:data:`INFINITE_SIZE`: long-lived).
    scouts : int [N]
        The flow's Scout period in slots, one Scout every ``scouts`` slots from its start (0: no Scouts; a flow
        sends Scouts when its law uses them and it is larger than its initial window). The base RTT divided by
        the law's Scout injection rate (:func:`~.scouts.scout_period`).
    scout_dt : float [N]
        DWTCP's target delay d_t = τ + K·L/C ([DWTCP] eq. (2)); a Scout older than this without an ACK is lost.
    law_idx : int [N]
        Index of the flow's law in the run's law tuple.
    K : float
        ECN marking threshold in packets; ``kth`` is the same as an integer threshold (mark when queue ≥ kth).
    mark_dequeue : bool
        Mark at dequeue (by the occupancy at service) instead of at enqueue.
    buffer, scout_buffer : int
        Drop-tail buffers (packets, Scouts).
    rto : int
        Minimum retransmission timeout.
    access : float
        Access-link rate as a fraction of the bottleneck's highest rate (≤ 1: at most one packet per flow per slot).
    seed : int
        Seed of the per-slot order of simultaneous senders and of every impairment.
    n_slots, chunk : int
        Run length and slots per record chunk.
    jitter_table : float [J]
        ACK-path jitter: each ACK is delayed by ``jitter_table[j]`` slots (rounded) for a seeded uniform j: the
        inverse CDF of the jitter distribution at J equally spaced quantiles (all zero: no jitter).
    jitter_reorder : bool
        Jittered ACKs of one flow may overtake each other (False: each arrives no earlier than the one before).
    loss_p : float
        Probability that a data packet is lost on the link after the bottleneck.
    delack_m, delack_timeout : int
        Delayed ACKs: one ACK per ``delack_m`` packets or ``delack_timeout`` slots after the first unacknowledged one
        (1: every packet acknowledged at once).
    rtt_noise : float
        Standard deviation (slots) of seeded Gaussian noise added to each RTT sample; with ``rtt_noise_uniform``,
        the width x of uniform noise in [0, x] ([TIMELY]'s and [PROXY]'s measurement noise).
    rtt_noise_uniform : bool
        Draw the RTT noise uniformly in [0, rtt_noise] instead of Gaussian.
    cap_start, cap_rate, cap_opp : int [G]
        Time-varying capacity: from slot ``cap_start[g]`` the link serves at ``cap_rate[g]``/1000 of its highest
        rate; ``cap_opp[g]`` is the number of service opportunities before ``cap_start[g]``.
    law : tuple of dict
        Numeric parameters of each law of the run (one dict of scalars per law).
    deadline : int [N], optional
        Slot by which each flow should finish (:data:`~.laws.base.NEVER`: none; [D2TCP]'s deadlines).
    scout_lead : int [N], optional
        Per-datapath Scouts ([DWTCP] §3.3): the flow whose Scout stream each flow reads (itself: its own Scouts;
        None: every flow its own).
    route : int [N, H], optional
        Routed ports (feature ``"ports"``, :mod:`.ports`): the port ids each flow crosses, in order, padded with
        -1 (None: every flow crosses the one bottleneck above).
    port_rate, port_buffer, port_kth : int [P], optional
        With ``route``: each port's rate (1000 = the highest rate, which defines the slot), data buffer (packets)
        and integer step-marking threshold (mark when the queue found ≥ it).
    red_kmax, red_pmax : float
        RED-like marking ([DCQCN]'s CP, :func:`~.switch.red_probability`) between K_min = ``K`` and ``red_kmax``
        packets with slope up to ``red_pmax``; ``red_pmax`` = 0 (default): the step marker at ``kth``.
    """

    rtt: Any
    start: Any
    stop: Any
    size: Any
    scouts: Any
    scout_dt: Any
    law_idx: Any
    K: Any
    kth: Any
    mark_dequeue: Any
    buffer: Any
    scout_buffer: Any
    rto: Any
    access: Any
    seed: Any
    n_slots: Any
    chunk: Any
    jitter_table: Any
    jitter_reorder: Any
    loss_p: Any
    delack_m: Any
    delack_timeout: Any
    rtt_noise: Any
    rtt_noise_uniform: Any
    cap_start: Any
    cap_rate: Any
    cap_opp: Any
    law: Any
    deadline: Any = None
    red_kmax: Any = 0.0
    red_pmax: Any = 0.0
    scout_lead: Any = None
    route: Any = None
    port_rate: Any = None
    port_buffer: Any = None
    port_kth: Any = None


#: Features a run may switch on; each adds code to the compiled slot loop only when used.
#: (``gauss-noise``: Gaussian RTT noise of nonzero width in some scenario; without it the noise is uniform or zero.)
FEATURES = frozenset(
    {
        "scouts",
        "jitter",
        "loss",
        "delack",
        "capacity",
        "rtt",
        "gauss-noise",
        "rate",
        "pacing",
        "mixed",
        "red",
        "int",
        "switch",
        "paths",
        "ports",
        "rtx",
    }
)


@dataclass(frozen=True)
class EngineSpec:
    """The static shape of a compiled engine (hashable: the compile key and the batching key).

    Attributes
    ----------
    n_flows : int
        Flow slots (power of two ≥ the run's N; the extra flows never start).
    n_chunks : int
        Record rows (power of two ≥ the run's chunks).
    ack_rows, ack_lanes : int
        ACK wheel: rows (power of two > the longest acceptance-to-ACK delay) and entries per row.
    dep_rows : int
        Departure ring rows (power of two > the longest queueing delay).
    timer_rows, timer_lanes : int
        Timer wheel: rows (power of two; longer timers are re-armed) and entries per row.
    scout_cap : int
        Scout queue capacity (0 without Scouts).
    jitter_points, cap_segments : int
        Sizes of the jitter table and of the capacity schedule.
    laws : tuple of Law
        The laws of the run (a flow's ``law_idx`` indexes it).
    features : frozenset of str
        Subset of :data:`FEATURES`.
    debug : bool
        Per-flow conservation check every chunk.
    n_ports, route_len : int
        Routed ports (feature ``"ports"``): number of ports and the longest route (1 and 1 otherwise).
    """

    n_flows: int
    n_chunks: int
    ack_rows: int
    ack_lanes: int
    dep_rows: int
    timer_rows: int
    timer_lanes: int
    scout_cap: int
    jitter_points: int
    cap_segments: int
    laws: tuple[Law, ...]
    features: frozenset[str]
    debug: bool = False
    n_ports: int = 1
    route_len: int = 1

    def has(self, feature: str) -> bool:
        """The run uses ``feature``."""
        return feature in self.features
