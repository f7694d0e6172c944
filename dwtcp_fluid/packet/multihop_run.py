"""Build and summarize a multi-hop packet run: :func:`run_topology`.

Units: the link rate and base RTT as for the single bottleneck (:class:`~dwtcp_fluid.params.LinkParams`); every
port of the chain runs at the link rate; a slot is one packet time. The summary averages over the run after
``warmup_fraction`` of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import units
from ..params import LinkParams, check_range
from .laws import get_law
from .laws.base import Law
from .multihop import run_chain
from .switch import hash32, mark_threshold
from .topology import Topology, parse_topology

__all__ = ["ChainSummary", "run_topology"]


@dataclass(frozen=True)
class ChainSummary:
    """What a multi-hop run measured over its measurement window.

    ``queue_mean``/``utilization`` per hop (packets, fraction of slots busy); ``throughput_share`` per flow
    (delivered packets per slot, i.e. fraction of the port rate); ``group_share`` per group (mean over its
    flows); ``cwnd_mean`` per flow (packets); ``marks``/``drops`` totals; ``fluid_rtt_s`` each flow's base RTT as
    the fluid model should take it (the packet's RTT with an empty network, forwarding slots included).
    """

    topology: str
    law: str
    flows_per_group: tuple[int, ...]
    groups: np.ndarray
    queue_mean: np.ndarray
    utilization: np.ndarray
    throughput_share: np.ndarray
    group_share: np.ndarray
    cwnd_mean: np.ndarray
    marks: int
    drops: int
    fluid_rtt_s: np.ndarray
    records: dict[str, np.ndarray]
    slot_s: float


def run_topology(
    topology: str | Topology,
    law: str | Law = "dctcp",
    *,
    link: LinkParams | None = None,
    flows: int | Sequence[int] = 1,
    K: float = 65.0,
    duration: str | float = "100ms",
    buffer: int = 400,
    mark_cmp: str = "ge",
    rto: str | float = "1ms",
    seed: int = 0,
    law_params: Mapping[str, float] | None = None,
    chunk: int = 1000,
    warmup_fraction: float = 0.5,
    rtt: Sequence[str | float] | None = None,
) -> ChainSummary:
    """Run ``law`` on a ``path:K`` or ``parking-lot:K`` chain (``flows``: per group, or one count for all).

    Every flow starts in the first base RTT at a seeded slot and runs to the end; every hop marks by the packets
    an arrival finds ahead of it, against K.

    Parameters
    ----------
    topology : str or Topology
        ``"path:K"`` or ``"parking-lot:K"`` (:func:`~.topology.parse_topology`).
    law : str or Law
        A registered law name or instance (one law for every flow).
    link : LinkParams, optional
        Port rate (every hop), base RTT (every flow) and packet size; default 10 Gbps, 100 µs, 1500 B.
    flows : int or sequence of int
        Flows per group (group 0 crosses the most hops), one count for all groups or one per group.
    K : float
        ECN threshold of every hop, packets.
    duration : str or float
        Simulated time ("100ms" or seconds).
    buffer : int
        Drop-tail buffer of every hop, packets.
    mark_cmp : {"ge", "gt"}
        Mark when the queue found is ≥ K or > K.
    rto : str or float
        Retransmission timeout.
    seed : int
        Seed of the start slots and of the enqueue order.
    law_params : mapping, optional
        Overrides of the law's default numeric parameters.
    chunk : int
        Slots per record.
    warmup_fraction : float
        Part of the run left out of the summary, in [0, 1).
    rtt : sequence, optional
        Base RTT of each group ("200us" or seconds), overriding ``link``'s for unequal RTTs.
    """
    topo = parse_topology(topology) if isinstance(topology, str) else topology
    if topo.kind == "single":
        raise ValueError("topology='single' is invalid here: the single bottleneck runs on packet.build/run")
    link = LinkParams() if link is None else link
    lw = get_law(law) if isinstance(law, str) else law
    counts = (flows,) * len(topo.groups) if isinstance(flows, int) else tuple(flows)
    per = tuple(int(check_range("flows", n, lo=1, hi=256, integer=True)) for n in counts)
    first, last, grp = topo.flow_routes(per)
    F = len(first)
    slot_s = 1.0 / link.C  # one slot is one packet's transmission time L/C, as in the single-bottleneck core
    d_slots = max(1, int(round(link.d / slot_s)))
    n_slots = int(round(units.parse_time(duration) / slot_s))
    check_range("chunk", chunk, lo=10, integer=True)
    n_chunks = max(2, n_slots // chunk)
    check_range("warmup_fraction", warmup_fraction, lo=0.0, hi=1.0, hi_open=True)
    start = np.array([int(hash32(seed, f, 77)) % d_slots for f in range(F)], np.int64)
    flow_rtt = np.full(F, d_slots, np.int32)
    if rtt is not None:
        if len(rtt) != len(per):
            raise ValueError(f"rtt={rtt!r} is invalid: accepted one base RTT per group ({len(per)})")
        g_slots = [
            max(1, round(check_range("rtt", units.parse_time(r), lo=0.0, lo_open=True) / slot_s)) for r in rtt
        ]
        flow_rtt = np.array([g_slots[g] for g in grp], np.int32)
    p = lw.default_params()
    p.update(law_params or {})
    kth = np.full(topo.hops, mark_threshold(check_range("K", K, lo=0.0, why="packets"), mark_cmp), np.int32)
    rec = run_chain(
        lw,
        p,
        first=first,
        last=last,
        rtt=flow_rtt,
        start=start,
        n_hops=topo.hops,
        kth=kth,
        buffer=buffer,
        rto=max(1, int(round(units.parse_time(rto) / slot_s))),
        seed=seed,
        n_chunks=n_chunks,
        chunk=chunk,
    )
    w = int(warmup_fraction * n_chunks)
    share = rec["delivered"][w:].sum(axis=0) / ((n_chunks - w) * chunk)
    gshare = np.array([share[grp == g].mean() for g in range(len(per))])
    hops_crossed = last - first + 1
    return ChainSummary(
        topology=topo.name,
        law=lw.name,
        flows_per_group=per,
        groups=grp,
        queue_mean=rec["q_mean"][w:].mean(axis=0),
        utilization=rec["busy"][w:].mean(axis=0),
        throughput_share=share,
        group_share=gshare,
        cwnd_mean=rec["cwnd_mean"][w:].mean(axis=0),
        marks=int(rec["marks"].sum()),
        drops=int(rec["drops"][-1].sum()),
        fluid_rtt_s=(flow_rtt + hops_crossed - 1) * slot_s,
        records=rec,
        slot_s=slot_s,
    )
