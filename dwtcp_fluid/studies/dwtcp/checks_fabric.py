"""[DWTCP] at scale (§5.1, §5.3, Figs. 8 and 14): flow completion times on a leaf-spine fabric, DWTCP vs DCTCP,
with Scouts through every hop, in the packet core's event engine on routed ports (:mod:`~dwtcp_fluid.packet.ports`).

**Fabric** (:class:`Fabric`): ``leaves`` leaves of ``hosts`` hosts each and ``spines`` spines; edge links at
10 Gbps, core links at 40 Gbps, base RTT 100 µs, 250-packet switch buffers ([DWTCP] §5.1). Every link direction
that can hold a queue is a routed port: the host's NIC (host → leaf, 10 Gbps), the uplink (leaf → spine,
40 Gbps), the downlink (spine → leaf, 40 Gbps) and the host port (leaf → host, 10 Gbps). A flow between hosts of
one leaf crosses NIC and host port; between leaves NIC, uplink, downlink and host port, the spine picked by the
packet core's ECMP hash (:func:`~dwtcp_fluid.packet.leafspine.ecmp_spine`). A slot is one packet time at the
core rate (0.3 µs); the edge ports serve on the 1/4-rate grid. Every port has a 10-Scout low-priority queue (the
evaluation's ≈ 600-byte LPQ). The NIC stands for the sending host's queue: 1,000 packets (Linux's default
``txqueuelen``), marking at K like a switch port (the packet core has no host back-pressure; without marks a
DCTCP host sending to several idle receivers grows its windows until its own queue drops).

**Scaling.** [DWTCP]'s fabric is 144 hosts (9 leaves × 16 hosts, 4 spines: 16 × 10 = 4 × 40 Gbps, 1:1
subscription). :data:`FABRIC` keeps the rates, the 1:1 subscription (4 hosts × 10 = 1 spine × 40 Gbps), the RTT
and the buffers on 16 hosts (4 leaves, 1 spine): 80 % of the host pairs cross the core (the paper's 90 %). One
spine leaves out ECMP collisions. Larger fabrics overflow the event engine's per-slot ACK lanes (a 32-host,
80-port fabric already defers ACKs by a slot: ``spill`` > 0), which would change the protocol's feedback.

**Workload.** Each host starts flows as a Poisson process offering ``load`` × 10 Gbps, sizes from the web-search
CDF of [DCTCP] (:func:`~dwtcp_fluid.packet.workloads.sample_sizes`), each to a host drawn uniformly among the
others (all-to-all); arrivals over ``arrivals`` seconds, the run lasting ``duration`` (a drain). Flows arriving
in the first ``warmup`` seconds (an empty fabric) are not measured, nor flows whose ideal FCT (below) ends after
the run (the data-mining CDF's largest flows, 1 GB, take 0.8 s alone).

**Metrics.** A flow's slowdown is its FCT over the ideal FCT, size / 10 Gbps + base RTT; a flow not finished at
the end of the run counts with the slowdown it reached then (a lower bound; their number is recorded). Size bins
as [DWTCP] §5.3 splits them: small ≤ 100 KB, medium (100 KB, 1 MB], large > 1 MB (the paper's large bin starts
at 10 MB and leaves 1-10 MB out). Protocols: DCTCP at K = 65 and g = 1/16 at every port, DWTCP the §5.1 preset
(β = 0.001, α0 = 20, one 64-byte Scout per RTT) with its target d_t = τ + K·L/C at K = 100 packets of the
10 Gbps edge (400 core slots). Both run on the same engine and the same arrivals (one workload per seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...params import DWTCP_EVALUATION, DctcpParams, LinkParams

__all__ = [
    "Fabric",
    "FABRIC",
    "FABRIC_LAWS",
    "SIZE_BINS",
    "fabric_workload",
    "fabric_run",
    "fabric_table",
    "slowdown_stats",
]


@dataclass(frozen=True)
class Fabric:
    """A leaf-spine fabric with its hosts: rates in Gbps, buffers in packets."""

    leaves: int = 4
    spines: int = 1
    hosts: int = 4  # per leaf
    edge_gbps: float = 10.0
    core_gbps: float = 40.0
    rtt: str = "100us"
    buffer: int = 250
    nic_buffer: int = 1000
    scout_buffer: int = 10

    @property
    def n_hosts(self) -> int:
        return self.leaves * self.hosts

    @property
    def n_ports(self) -> int:
        return 2 * self.n_hosts + 2 * self.leaves * self.spines

    def nic(self, h: int) -> int:
        """Port id of host ``h``'s NIC (host → leaf)."""
        return h

    def uplink(self, leaf: int, spine: int) -> int:
        return self.n_hosts + leaf * self.spines + spine

    def downlink(self, spine: int, leaf: int) -> int:
        return self.n_hosts + self.leaves * self.spines + spine * self.leaves + leaf

    def host_port(self, h: int) -> int:
        """Port id of the leaf's port towards host ``h``."""
        return self.n_hosts + 2 * self.leaves * self.spines + h

    def routes(self, src: np.ndarray, dst: np.ndarray, seed: int) -> list[tuple[int, ...]]:
        """Ports of flow k (index into ``src``, ``dst``: hosts) in order; the spine of a flow between leaves is the
        packet core's seeded ECMP hash of (src, dst, k) (:func:`~dwtcp_fluid.packet.leafspine.ecmp_spine`)."""
        from ...packet.leafspine import ecmp_spine

        src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
        sp = ecmp_spine(seed, src, dst, np.arange(src.size), self.spines)
        out = []
        for h, g, s in zip(src.tolist(), dst.tolist(), np.atleast_1d(sp).tolist(), strict=True):
            a, b = h // self.hosts, g // self.hosts
            if a == b:
                out.append((self.nic(h), self.host_port(g)))
            else:
                out.append((self.nic(h), self.uplink(a, s), self.downlink(s, b), self.host_port(g)))
        return out

    def port_rates(self) -> np.ndarray:
        """Per-port rate in per mille of the core rate (the slot's)."""
        r = np.full(self.n_ports, 1000, np.int32)
        edge = int(round(1000 * self.edge_gbps / self.core_gbps))
        r[: self.n_hosts] = edge
        r[self.n_hosts + 2 * self.leaves * self.spines :] = edge
        return r

    def port_class(self) -> np.ndarray:
        """Per port: 0 NIC, 1 core (uplink or downlink), 2 host port."""
        c = np.ones(self.n_ports, np.int32)
        c[: self.n_hosts] = 0
        c[self.n_hosts + 2 * self.leaves * self.spines :] = 2
        return c


#: The fabric of the claims (see the module docstring's scaling).
FABRIC = Fabric()
#: name → (law, K packets at every port).
FABRIC_LAWS: dict[str, tuple[str, float]] = {"dctcp": ("dctcp", 65.0), "dwtcp": ("dwtcp", 100.0)}
#: Size bins (bytes, upper bounds inclusive): [DWTCP] §5.3's small and medium; large is everything above 1 MB.
SIZE_BINS: dict[str, tuple[float, float]] = {
    "small": (0.0, 100e3),
    "medium": (100e3, 1e6),
    "large": (1e6, np.inf),
}
_PACKET = 1500


def fabric_workload(
    load: float,
    *,
    fabric: Fabric = FABRIC,
    cdf: str = "websearch",
    arrivals: float = 0.08,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """All-to-all Poisson arrivals offering ``load`` × the edge rate at every host: ``starts`` (s), ``sizes``
    (packets), ``bytes``, ``src``, ``dst`` (hosts), in order of arrival."""
    from ...packet.workloads import cdf_mean, sample_sizes
    from ...params import check_range

    check_range("load", load, lo=0.0, hi=1.0, lo_open=True, why="offered load, fraction of the edge rate")
    rng = np.random.default_rng(seed)
    lam = load * fabric.edge_gbps * 1e9 / 8 / cdf_mean(cdf)
    n = fabric.n_hosts
    starts, src = [], []
    for h in range(n):
        m = int(lam * arrivals + 10 * np.sqrt(lam * arrivals) + 20)
        t = np.cumsum(rng.exponential(1.0 / lam, m))
        t = t[t < arrivals]
        starts.append(t)
        src.append(np.full(t.size, h))
    st, sr = np.concatenate(starts), np.concatenate(src)
    order = np.argsort(st, kind="stable")
    st, sr = st[order], sr[order]
    d = rng.integers(0, n - 1, st.size)
    dst = d + (d >= sr)
    b = sample_sizes(rng, cdf, st.size)
    sizes = np.maximum(np.ceil(b / _PACKET), 1).astype(np.int64)
    return {"starts": st, "sizes": sizes, "bytes": sizes * _PACKET, "src": sr, "dst": dst}


def slowdown_stats(slow: np.ndarray, nbytes: np.ndarray) -> dict[str, Any]:
    """Mean and 99th percentile of ``slow`` overall and per :data:`SIZE_BINS` bin (with the flow counts)."""
    out: dict[str, Any] = {"flows": int(slow.size)}
    if slow.size:
        out |= {"mean": float(slow.mean()), "p99": float(np.percentile(slow, 99))}
    for name, (lo, hi) in SIZE_BINS.items():
        s = slow[(nbytes > lo) & (nbytes <= hi)]
        out[name] = {"flows": int(s.size)}
        if s.size:
            out[name] |= {"mean": float(s.mean()), "p99": float(np.percentile(s, 99))}
    return out


def fabric_run(
    law: str,
    load: float,
    *,
    fabric: Fabric = FABRIC,
    cdf: str = "websearch",
    arrivals: float = 0.08,
    duration: float = 0.16,
    warmup: float = 0.01,
    seed: int = 0,
    keep_slowdowns: bool = False,
) -> dict[str, Any]:
    """One protocol of :data:`FABRIC_LAWS` at one load and seed (see the module docstring): slowdown statistics
    of the measured flows (:func:`slowdown_stats`), unfinished flows, mean queue per port class (packets, over
    the arrivals after the warm-up: the offered load holds there) and the highest port mean, drops, timeouts, Scouts sent / served / dropped, and the engine's
    integrity counters (``spill``: ACKs deferred by a slot, ``timers_lost``: timers dropped, both 0 when every event
    ran at its slot; ``timer_overflows``: timers fired from the overflow list, on time)."""
    from ...packet.batch import run_one
    from ...packet.build import build
    from ...packet.multihop import route_array

    if law not in FABRIC_LAWS:
        raise ValueError(f"law={law!r} is invalid: accepted one of {', '.join(FABRIC_LAWS)}")
    name, K = FABRIC_LAWS[law]
    w = fabric_workload(load, fabric=fabric, cdf=cdf, arrivals=arrivals, seed=seed)
    F = w["starts"].size
    core = LinkParams(capacity=f"{fabric.core_gbps:g}Gbps", rtt=fabric.rtt)
    ratio = fabric.core_gbps / fabric.edge_gbps  # core slots per edge packet time
    pr = build(
        name,
        link=core,
        flows=F,
        K=K,
        duration=duration,
        starts=w["starts"],
        sizes=w["sizes"].astype(float),
        start_jitter=False,
        buffer=fabric.buffer,
        scout_buffer=fabric.scout_buffer,
        trace_points=max(2, int(round(duration / 1e-3))),
        seed=seed,
        dctcp=DctcpParams(link=core, flows=1, K=K, g=1.0 / 16.0),
        dwtcp=DWTCP_EVALUATION.replace(link=core, flows=1, k=K * ratio),
    )
    route, _ = route_array(fabric.routes(w["src"], w["dst"], seed))
    P = fabric.n_ports
    buf = np.full(P, fabric.buffer, np.int32)
    buf[: fabric.n_hosts] = fabric.nic_buffer
    sc = pr.scenario._replace(
        route=route,
        port_rate=fabric.port_rates(),
        port_buffer=buf,
        port_kth=np.full(P, int(pr.scenario.kth), np.int32),
    )
    r = run_one(pr.cfg, pr.engine_laws, sc)
    fin = np.asarray(r["finish"])
    fin = fin[-1] if fin.ndim > 1 else fin
    fin = fin[:F].astype(np.int64)
    start = np.asarray(pr.scenario.start, np.int64)
    end = pr.cfg.n_chunks * pr.cfg.chunk
    done = fin >= 0
    fct = np.where(done, fin - start, end - start) * pr.slot
    ideal = w["bytes"] * 8 / (fabric.edge_gbps * 1e9) + core.d
    slow = fct / ideal
    meas = (w["starts"] >= warmup) & (w["starts"] + ideal <= end * pr.slot)
    rate = fabric.port_rates() / 1000.0
    qs = np.asarray(r["port_q_sum"])  # per chunk and port
    t0 = np.arange(qs.shape[0]) * pr.cfg.chunk * pr.slot  # chunk start times
    win = (t0 >= warmup) & (t0 + pr.cfg.chunk * pr.slot <= arrivals)  # the loaded part: arrivals, no warm-up
    q = qs[win].sum(axis=0) / (win.sum() * pr.cfg.chunk)  # packets, mean over the window
    cls = fabric.port_class()
    out = {
        "law": law,
        "load": load,
        "seed": seed,
        "cdf": cdf,
        "flows": int(F),
        "measured": int(meas.sum()),
        "unfinished": int((~done & meas).sum()),
        "slowdown": slowdown_stats(slow[meas], w["bytes"][meas]),
        "queue_nic": float(q[cls == 0].mean()),
        "queue_core": float(q[cls == 1].mean()),
        "queue_host": float(q[cls == 2].mean()),
        "queue_port_max": float(q.max()),
        "queue_delay_host_us": float((q[cls == 2] / rate[cls == 2]).mean() * pr.slot * 1e6),
        "drops": int(np.asarray(r["drops"]).sum()),
        "timeouts": int(np.asarray(r["timeouts"]).sum()),
        "scouts_sent": int(np.asarray(r["scouts_sent"]).sum()),
        "scouts_served": int(np.asarray(r["scouts_served"]).sum()),
        "scouts_dropped": int(np.asarray(r["scouts_dropped"]).sum()),
        "data_packets": int(np.asarray(r["delivered"]).sum()),
        "spill": int(np.asarray(r["spill"]).sum()),
        "timer_overflows": int(np.asarray(r["timer_overflows"]).sum()),
        "timers_lost": int(np.asarray(r["timers_lost"]).sum()),
    }
    if keep_slowdowns:
        out["slowdowns"] = slow[meas].tolist()
        out["bytes"] = w["bytes"][meas].tolist()
    return out


def fabric_table(
    loads: Sequence[float],
    *,
    seeds: Sequence[int] = (0,),
    laws: Sequence[str] = tuple(FABRIC_LAWS),
    **kw: Any,
) -> list[dict[str, Any]]:
    """:func:`fabric_run` at every load, seed and law (rows with the measured flows' slowdowns and sizes, so
    that statistics can pool the seeds)."""
    return [
        fabric_run(law, load, seed=s, keep_slowdowns=True, **kw)
        for load in loads
        for s in seeds
        for law in laws
    ]
