"""Build and summarize a multi-hop packet run: :func:`run_topology`.

Units: the link rate and base RTT as for the single bottleneck (:class:`~dwtcp_fluid.params.LinkParams`); every
port runs at the link rate; a slot is one packet time. The summary averages over the run after
``warmup_fraction`` of it. Chains (``path:K``, ``parking-lot:K``) take flows per group; a ``leaf-spine:LxS``
fabric takes a traffic pattern and flows per leaf pair (:func:`~.leafspine.leaf_spine_traffic`), its groups being
the distinct ECMP routes. Finite flows (``sizes``, ``starts``) report their completion times. A Scout law (DWTCP,
the Scout probe) runs on the event engine's routed ports (:mod:`.ports`: a Scout queue at every port, served in
that port's idle slots), and so does a law reading in-band telemetry (HPCC: every port writes its record into the
packets it serves, [HPCC] Alg. 1 reads them per hop); the other laws on the per-slot engine :func:`~.multihop.run_network`; the summary is the
same.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import units
from ..params import LinkParams, check_range
from .laws import get_law
from .laws.base import Law
from .leafspine import LeafSpineTraffic, fabric_routes, leaf_spine_traffic
from .multihop import LONG_LIVED, run_network
from .switch import hash32, mark_threshold
from .topology import Topology, check_law_on, parse_topology

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
    routes: tuple[tuple[int, ...], ...] = ()
    fct_s: np.ndarray | None = None
    sizes: np.ndarray | None = None
    traffic: LeafSpineTraffic | None = None
    chunk: int = 0  # slots per record

    def to_dataset(self) -> Any:
        """The per-chunk records as an xarray Dataset (:func:`~.dataset.chain_to_dataset`: time in s, units)."""
        from .dataset import chain_to_dataset

        return chain_to_dataset(self)


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
    traffic: Any = "all-to-all",
    sizes: Sequence[int] | None = None,
    starts: Sequence[float] | None = None,
    rtt: Sequence[str | float] | None = None,
    fabric_feeds: bool = False,
    progress: Any = None,
) -> ChainSummary:
    """Run ``law`` on a ``path:K``, ``parking-lot:K`` chain or a ``leaf-spine:LxS`` fabric.

    Every flow starts in the first base RTT at a seeded slot (or at ``starts``) and runs to the end (or until
    its ``sizes`` packets are acknowledged); every port marks by the packets an arrival finds ahead of it, against K.

    Parameters
    ----------
    topology : str or Topology
        ``"path:K"``, ``"parking-lot:K"`` or ``"leaf-spine:LxS"`` (:func:`~.topology.parse_topology`).
    law : str or Law
        A registered law name or instance (one law for every flow).
    link : LinkParams, optional
        Port rate (every port), base RTT (every flow) and packet size; default 10 Gbps, 100 µs, 1500 B.
    flows : int or sequence of int
        Chains: flows per group (group 0 crosses the most hops), one count for all groups or one per group.
        Leaf-spine: flows per talking leaf pair (an int).
    K : float
        ECN threshold of every port, packets.
    duration : str or float
        Simulated time ("100ms" or seconds).
    buffer : int
        Drop-tail buffer of every port, packets.
    mark_cmp : {"ge", "gt"}
        Mark when the queue found is ≥ K or > K.
    rto : str or float
        Retransmission timeout.
    seed : int
        Seed of the start slots, of the enqueue order and (leaf-spine) of the traffic pattern and ECMP hash.
    law_params : mapping, optional
        Overrides of the law's default numeric parameters.
    chunk : int
        Slots per record.
    warmup_fraction : float
        Part of the run left out of the summary, in [0, 1).
    traffic : str or array
        Leaf-spine only: ``"all-to-all"``, ``"permutation"`` or an L×L flow-count matrix (:mod:`.leafspine`).
    sizes, starts : sequence, optional
        Per flow (in group order): size in packets (≥ 1; ``None`` entries or omitted: long-lived) and start
        time in seconds (omitted: a seeded slot in the first base RTT).
    rtt : sequence, optional
        Base RTT of each group ("200us" or seconds), overriding ``link``'s for unequal RTTs.
    fabric_feeds : bool
        Leaf-spine: build the engine's in-port table from every route of the fabric, not only the routing's, so
        runs of other traffic (seeds) share one compile (:func:`~.multihop.run_network`'s ``feed_routes``; the
        seeded arrival order differs from the default's).
    progress : callable, optional
        ``progress(done, total)`` in chunks of ``chunk`` slots, after each chunk.
    """
    topo = parse_topology(topology) if isinstance(topology, str) else topology
    if topo.kind == "single":
        raise ValueError("topology='single' is invalid here: the single bottleneck runs on packet.build/run")
    link = LinkParams() if link is None else link
    lw = get_law(law) if isinstance(law, str) else law
    ls = None
    if topo.kind == "leaf-spine":
        if not isinstance(flows, int):
            raise ValueError(f"flows={flows!r} is invalid: accepted one count per leaf pair on {topo.name}")
        ls = leaf_spine_traffic(topo, traffic, flows, seed)
        topo, per = ls.topology, ls.flows_per_group
    else:
        counts = (flows,) * len(topo.groups) if isinstance(flows, int) else tuple(flows)
        per = tuple(int(check_range("flows", n, lo=1, hi=256, integer=True)) for n in counts)
    routes, grp = topo.flow_routes(per)
    F = len(routes)
    slot_s = 1.0 / link.C  # one slot is one packet's transmission time L/C, as in the single-bottleneck core
    d_slots = max(1, int(round(link.d / slot_s)))
    n_slots = int(round(units.parse_time(duration) / slot_s))
    check_range("chunk", chunk, lo=10, integer=True)
    n_chunks = max(2, n_slots // chunk)
    check_range("warmup_fraction", warmup_fraction, lo=0.0, hi=1.0, hi_open=True)
    if starts is None:
        start = np.array([int(hash32(seed, f, 77)) % d_slots for f in range(F)], np.int64)
    else:
        start = np.round(np.asarray(starts, float) / slot_s).astype(np.int64)
        if start.shape != (F,) or start.min() < 0:
            raise ValueError(f"starts={starts!r} is invalid: accepted {F} start times >= 0 s")
    size = None
    if sizes is not None:
        size = np.array([LONG_LIVED if v is None else int(v) for v in sizes], np.int64)
        if size.shape != (F,) or size.min() < 1:
            raise ValueError(f"sizes={sizes!r} is invalid: accepted {F} sizes >= 1 packet (None: long-lived)")
    flow_rtt = np.full(F, d_slots, np.int32)
    if rtt is not None:
        if len(rtt) != len(per):
            raise ValueError(f"rtt={rtt!r} is invalid: accepted one base RTT per group ({len(per)})")
        g_slots = [
            max(1, round(check_range("rtt", units.parse_time(r), lo=0.0, lo_open=True) / slot_s)) for r in rtt
        ]
        flow_rtt = np.array([g_slots[g] for g in grp], np.int32)
    p = lw.default_params(link=link)
    p.update(law_params or {})
    check_law_on(lw, topo, p)
    kth = np.full(topo.hops, mark_threshold(check_range("K", K, lo=0.0, why="packets"), mark_cmp), np.int32)
    # a Scout law runs on the event engine's routed ports (a Scout queue at every port), and so does a law reading
    # in-band telemetry (every port's record per hop); others on run_network
    routed = lw.uses_scouts or "int" in lw.signals
    run = functools.partial(_run_routed, link=link) if routed else run_network
    rec = run(
        lw,
        p,
        routes=routes,
        rtt=flow_rtt,
        start=start,
        n_ports=topo.hops,
        kth=kth,
        buffer=buffer,
        rto=max(1, int(round(units.parse_time(rto) / slot_s))),
        seed=seed,
        n_chunks=n_chunks,
        chunk=chunk,
        size=size,
        feed_routes=fabric_routes(topo) if fabric_feeds and ls is not None else None,
        progress=progress,
    )
    w = int(warmup_fraction * n_chunks)
    share = rec["delivered"][w:].sum(axis=0) / ((n_chunks - w) * chunk)
    gshare = np.array([share[grp == g].mean() for g in range(len(per))])
    hops_crossed = np.array([len(r) for r in routes])
    fct = None
    if size is not None:
        fin = rec["finish"][-1].astype(np.int64)
        fct = np.where((fin >= 0) & (size < LONG_LIVED), (fin - start) * slot_s, np.nan)
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
        marks=int(rec["marks"].sum() if "marks" in rec else rec["marks_total"].sum()),
        drops=int(rec["drops"][-1].sum()),
        fluid_rtt_s=(flow_rtt + hops_crossed - 1) * slot_s,
        records=rec,
        slot_s=slot_s,
        routes=topo.groups,
        fct_s=fct,
        sizes=size,
        traffic=ls,
        chunk=int(chunk),
    )


def _run_routed(
    law: Law,
    p: Mapping[str, float],
    *,
    routes: Sequence[tuple[int, ...]],
    rtt: np.ndarray,
    start: np.ndarray,
    n_ports: int,
    kth: np.ndarray,
    buffer: int,
    rto: int,
    seed: int,
    n_chunks: int,
    chunk: int,
    size: np.ndarray | None,
    link: LinkParams,
    progress: Any = None,
    **_: Any,
) -> dict[str, np.ndarray]:
    """A Scout law's or a telemetry law's run on the event engine's routed ports (:mod:`.ports`: a Scout queue at
    every port, served in that port's idle slots; per-hop in-band telemetry), its records in :func:`~.multihop.run_network`'s layout (``q_mean``, ``q_end``,
    ``busy`` per port; ``delivered``, ``cwnd_mean``, ``drops`` (cumulative), ``finish`` per flow) plus the
    Scout counters (``scouts_sent``, ``scouts_served``, ``scouts_dropped``, ``scouts_lost``) and ``marks_total``
    per chunk. Every port runs at the link rate with the same buffer and threshold."""
    from .batch import run_one
    from .build import build
    from .multihop import route_array

    slot_s = 1.0 / link.C
    F = len(routes)
    pr = build(
        law,
        link=link,
        flows=F,
        duration=n_chunks * chunk * slot_s,
        trace_points=n_chunks,
        seed=seed,
        rtts=rtt * slot_s,
        starts=start * slot_s,
        start_jitter=False,
        sizes=None if size is None else size.astype(float),
        buffer=buffer,
        rto=rto * slot_s,
        law_params=dict(p),
    )
    route, _ = route_array(routes)
    sc = pr.scenario._replace(
        route=route,
        port_rate=np.full(n_ports, 1000, np.int32),
        port_buffer=np.full(n_ports, buffer, np.int32),
        port_kth=np.asarray(kth, np.int32),
    )
    if (pr.cfg.chunk, pr.cfg.n_chunks) != (chunk, n_chunks):
        raise RuntimeError(
            f"routed run in {pr.cfg.n_chunks} chunks of {pr.cfg.chunk}, not {n_chunks} of {chunk}"
        )
    r = run_one(pr.cfg, pr.engine_laws, sc)
    if progress is not None:
        progress(n_chunks, n_chunks)
    ch = pr.cfg.chunk
    act = np.maximum(r["active"], 1)
    fin = np.where(r["finish"] >= 0, r["finish"], -1)
    return {
        "q_mean": r["port_q_sum"] / ch,
        "q_end": r["port_q_end"],
        "busy": r["port_busy"] / ch,
        "delivered": r["delivered"],
        "cwnd_mean": r["cwnd_sum"] / act,
        "drops": np.cumsum(r["drops"], axis=0),
        "finish": np.broadcast_to(fin, r["delivered"].shape),
        "marks_total": r[
            "marks"
        ],  # per chunk, all flows together (the per-slot engine's "marks" is per flow)
        **{k: r[k] for k in ("scouts_sent", "scouts_served", "scouts_dropped", "scouts_lost")},
    }
