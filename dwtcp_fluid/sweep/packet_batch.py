"""Running many packet-level DWTCP points: run lengths from each point's RTT, batches, and the one engine call.

Every point (β, BDP, N) is one run of the packet core's DWTCP law (Algorithm 1 of [DWTCP]) with:

* target queue ``k`` (default 0: d_t = τ, the convention of the condition (14) and of the sweep's fluid runs) and a
  drop-tail data buffer of ``buffer`` packets (default 250, the DWTCP simulations' switch buffer);
* the initial window BDP/N (at least 1): the fluid runs' fair-share start, so that the warm-up is one slow-start
  round and the first decreases rather than log2(BDP/N) rounds of slow start from 10 packets;
* a warm-up of ``warmup_rtts`` base RTTs, excluded from every statistic, then a measurement window of at least
  ``min_rtts`` base RTTs (more when the batch is longer, see below).

Run lengths are the point's own. Point i runs ``warmup_rtts + window`` base RTTs rounded up to whole chunks of its
own chunk, the largest power of two not above RTT/:data:`CHUNKS_PER_RTT` (:func:`point_plan`). A batch runs as long
as its longest member with the smallest member chunk; every other member's run is cut out of the batch's records
at its own length and merged to its own chunk (:meth:`Batch.member`). A slot loop is causal and the engine keeps
scenarios independent, so a point's result depends only on its parameters and options, never on its batch
companions, its batch's length or the grid it belongs to (tested).

Batches. The engine compiles one program per configuration (N, run length, chunk, ACK-ring size; ≈ 1.2 s each on
a quiet 2-core machine, 3-4 s on a busy one) and its cost per slot is ≈ :data:`SLOT_LAUNCH_S` + N × batch ×
(:data:`FLOW_SLOT_S` for a batch of one, :data:`FLOW_SLOT_BATCHED_S` for more). Points of one N are sorted by
length and cut into contiguous batches by a small dynamic program over that cost model, each batch with at most
:data:`RECORD_CELLS` per-flow record cells (chunks × N × batch). The batches run on ``workers`` threads (XLA
releases the GIL), longest first.

The engine is called in exactly one place, :func:`simulate`, so that another engine can replace it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..params import DwtcpParams, LinkParams

__all__ = [
    "PacketPassOptions",
    "Batch",
    "plan_batches",
    "build_batch",
    "simulate",
    "run_batches",
    "SLOT_LAUNCH_S",
    "FLOW_SLOT_S",
    "COMPILE_S",
    "FLOW_SLOT_BATCHED_S",
    "RECORD_CELLS",
    "slot_cost",
    "rechunk",
    "point_plan",
    "CHUNKS_PER_RTT",
]

#: Cost model of today's engine (measured on 2 cores, DWTCP law): seconds per slot of a batch, per flow-slot in a
#: batch of one and in a larger batch, and per compilation. Only used to cut batches; results do not depend on it.
SLOT_LAUNCH_S = 8e-6
FLOW_SLOT_S = 45e-9
FLOW_SLOT_BATCHED_S = 55e-9
COMPILE_S = 1.5
#: Trace chunks per base RTT of the shortest-RTT member of a batch.
CHUNKS_PER_RTT = 2.0
#: Most per-flow record cells (chunks × N × batch) of one batch: the per-chunk records of every flow are stacked by
#: the engine (≈ 14 arrays of 4 bytes per cell), so this bounds a batch's memory to about 100 MB.
RECORD_CELLS = 2_000_000


def slot_cost(flows: int, batch: int) -> float:
    """Modelled seconds per slot of a batch of ``batch`` scenarios of ``flows`` flows (see the module docstring)."""
    per = FLOW_SLOT_S if batch == 1 else FLOW_SLOT_BATCHED_S
    return SLOT_LAUNCH_S + per * flows * batch


@dataclass(frozen=True)
class PacketPassOptions:
    """Settings of the packet runs (units: packets, base RTTs).

    Parameters
    ----------
    k : float
        DWTCP target queue of d_t = τ + k·L/C, packets (0: d_t = τ).
    buffer : int
        Drop-tail data buffer, packets.
    warmup_rtts, min_rtts : float
        Warm-up excluded from the statistics; shortest measurement window.
    max_rtts : float
        Cap on the measurement window of a second round (an oscillation that needs
        :data:`~.packet_classes.MIN_PERIODS` periods, a trend that needs ``trend_rtts``).
    trend_rtts : float
        Measurement window of the second round of a run with a trend.
    retry_flow_slots : float
        Largest cost (flows × slots) of one point's second round; beyond it the point stays ``not_stationary``.
    seed : int
        Seed of every run (start jitter, order of simultaneous arrivals).
    workers : int, optional
        Threads running batches concurrently (default: min(2, CPU cores)).
    """

    k: float = 0.0
    buffer: int = 250
    warmup_rtts: float = 20.0
    min_rtts: float = 50.0
    max_rtts: float = 400.0
    trend_rtts: float = 200.0
    retry_flow_slots: float = 5e7
    seed: int = 0
    workers: int | None = None

    def __post_init__(self) -> None:
        from ..params import check_range

        check_range("k", self.k, lo=0.0, why="target queue, packets")
        check_range("buffer", self.buffer, lo=1, hi=10**6, integer=True, why="packets")
        check_range("warmup_rtts", self.warmup_rtts, lo=0.0, why="base RTTs")
        check_range("min_rtts", self.min_rtts, lo=1.0, why="base RTTs")
        check_range("max_rtts", self.max_rtts, lo=self.min_rtts, why="base RTTs, >= min_rtts")
        check_range("trend_rtts", self.trend_rtts, lo=self.min_rtts, why="base RTTs, >= min_rtts")
        check_range("retry_flow_slots", self.retry_flow_slots, lo=0.0, why="flows × slots")
        if self.workers is not None:
            check_range("workers", self.workers, lo=1, integer=True)


@dataclass(frozen=True)
class Batch:
    """Points of one N run together.

    ``index`` are indices into the point list; ``needs`` and ``chunks`` each member's own run length and chunk
    (slots, :func:`point_plan`); the batch runs ``n_slots`` = the longest need with the chunk ``chunk`` = the
    smallest member chunk (a power of two dividing every member's), and :meth:`member` cuts each member's own run
    out of the batch's records.
    """

    flows: int
    index: tuple[int, ...]
    needs: tuple[int, ...]
    chunks: tuple[int, ...]
    ring_len: int

    @property
    def n_slots(self) -> int:
        return max(self.needs)

    @property
    def chunk(self) -> int:
        return min(self.chunks)

    @property
    def n_chunks(self) -> int:
        return self.n_slots // self.chunk

    def cost_s(self) -> float:
        """Modelled run time (s) of the batch on today's engine (compilation included)."""
        return COMPILE_S + self.n_slots * slot_cost(self.flows, len(self.index))

    def member(self, pos: int, pr: Any, rec: dict[str, np.ndarray]) -> tuple[Any, dict[str, np.ndarray]]:
        """The run of member ``pos`` as if it had run alone: its own length and chunk (records merged by
        :func:`rechunk`; a slot loop is causal, so the records up to its length do not depend on what follows)."""
        from dataclasses import replace

        c, need = self.chunks[pos], self.needs[pos]
        factor = c // self.chunk
        keep = need // c
        cfg = replace(pr.cfg, chunk=c, n_chunks=keep)
        return replace(pr, cfg=cfg), rechunk(rec, factor, keep)


#: Record keys that are snapshots at a chunk's end, minima and maxima; every other key is a per-chunk sum.
_LAST = ("q_end", "cwnd_end", "alpha_end", "inflight_end", "pending_end")
_MIN, _MAX = ("q_min",), ("q_max", "residual")


def rechunk(rec: dict[str, np.ndarray], factor: int, keep: int) -> dict[str, np.ndarray]:
    """Merge every ``factor`` consecutive chunks of per-chunk records into one and keep the first ``keep``."""
    out = {}
    n = np.shape(rec["q_sum"])[0]  # chunks of the run
    for k, v in rec.items():
        if np.ndim(v) == 0 or np.shape(v)[0] != n or k == "finish":
            out[k] = v  # per-run totals and per-flow results (``finish``, ``spill``): not per chunk
            continue
        x = np.asarray(v)[: keep * factor]
        x = x.reshape((keep, factor) + x.shape[1:])
        if k in _LAST:
            out[k] = x[:, -1]
        elif k in _MIN:
            out[k] = x.min(axis=1)
        elif k in _MAX:
            out[k] = x.max(axis=1)
        else:
            out[k] = x.sum(axis=1)
    return out


def rtt_slots(bdp: float) -> int:
    """Base RTT in slots of a point of BDP ``bdp`` packets (the engine rounds τ/slot, at least 2)."""
    return max(int(np.rint(bdp)), 2)


def point_plan(bdp: float, window_rtts: float, opts: PacketPassOptions) -> tuple[int, int]:
    """(run length, chunk) in slots of one point: its own, whatever batch it runs in.

    The chunk is the largest power of two not above RTT/:data:`CHUNKS_PER_RTT` (so every member chunk of a batch
    is a multiple of the smallest); the length is ``warmup_rtts`` and ``window_rtts`` base RTTs, each rounded up to
    whole chunks.
    """
    rtt = rtt_slots(bdp)
    chunk = 1 << max(0, int(math.floor(math.log2(max(1.0, rtt / CHUNKS_PER_RTT)))))
    # warm-up and window each rounded up to whole chunks: the window after the warm-up's last chunk is never short
    need = (math.ceil(opts.warmup_rtts * rtt / chunk) + math.ceil(window_rtts * rtt / chunk)) * chunk
    return int(need), chunk


def _cut(flows: int, need: np.ndarray, chunk: np.ndarray) -> list[tuple[int, int]]:
    """Contiguous groups of the points sorted by length ``need`` minimising the modelled cost, each group's records
    (longest need / smallest chunk chunks × N × members) within :data:`RECORD_CELLS`."""
    n = need.size
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    cut = np.zeros(n + 1, dtype=int)
    for j in range(1, n + 1):
        for i in range(j):
            size = j - i
            if size > 1 and need[j - 1] // chunk[i:j].min() * flows * size > RECORD_CELLS:
                continue
            c = best[i] + COMPILE_S + need[j - 1] * slot_cost(flows, size)
            if c < best[j]:
                best[j], cut[j] = c, i
    groups, j = [], n
    while j > 0:
        groups.append((int(cut[j]), j))
        j = int(cut[j])
    return groups[::-1]


def plan_batches(
    bdp: np.ndarray, flows: np.ndarray, window_rtts: np.ndarray, opts: PacketPassOptions
) -> list[Batch]:
    """Batches covering every point; point i runs ``warmup_rtts + window_rtts[i]`` base RTTs (:func:`point_plan`)."""
    bdp, flows, window_rtts = (np.asarray(a, dtype=float) for a in (bdp, flows, window_rtts))
    plans = np.array([point_plan(b, w, opts) for b, w in zip(bdp, window_rtts, strict=True)], dtype=np.int64)
    need, chunk = plans[:, 0], plans[:, 1]
    rtt = np.array([rtt_slots(b) for b in bdp])
    out = []
    for n in np.unique(flows):
        idx = np.flatnonzero(flows == n)
        idx = idx[np.lexsort((rtt[idx], need[idx]))]
        for a, b in _cut(int(n), need[idx], chunk[idx]):
            m = idx[a:b]
            ring = int(rtt[m].max()) + opts.buffer + 3
            out.append(
                Batch(
                    int(n),
                    tuple(int(i) for i in m),
                    tuple(int(x) for x in need[m]),
                    tuple(int(x) for x in chunk[m]),
                    ring,
                )
            )
    return out


def build_batch(
    batch: Batch,
    beta: np.ndarray,
    bdp: np.ndarray,
    *,
    capacity_pps: float,
    packet_size: float,
    opts: PacketPassOptions,
) -> list[Any]:
    """The :class:`~dwtcp_fluid.packet.PacketRun` of every member (one configuration for the whole batch)."""
    from ..packet import build

    slot = 1.0 / capacity_pps
    runs = []
    for i in batch.index:
        link = LinkParams(
            capacity=f"{capacity_pps!r}pps", rtt=rtt_slots(bdp[i]) * slot, packet_size=packet_size
        )
        dw = DwtcpParams(link=link, flows=batch.flows, beta=float(beta[i]), k=opts.k)
        runs.append(
            build(
                "dwtcp",
                link=link,
                flows=batch.flows,
                dwtcp=dw,
                # half a slot short of n_slots: the engine rounds the duration up to whole slots
                duration=(batch.n_slots - 0.5) * slot,
                seed=opts.seed,
                buffer=opts.buffer,
                ring_len=batch.ring_len,
                trace_points=batch.n_chunks,
                warmup_fraction=0.0,
                law_params={"init_cwnd": max(1.0, float(bdp[i]) / batch.flows)},
            )
        )
    return runs


def simulate(runs: Sequence[Any]) -> list[dict[str, np.ndarray]]:
    """The one call into the packet engine: per-chunk records of runs that share one configuration."""
    from ..packet import run_many

    return [s["records"] for s in run_many(list(runs))]


def run_batches(
    batches: Sequence[Batch],
    beta: np.ndarray,
    bdp: np.ndarray,
    *,
    capacity_pps: float,
    packet_size: float,
    opts: PacketPassOptions,
    on_batch: Callable[[Batch, list[Any], list[dict[str, np.ndarray]], float], None],
) -> None:
    """Run every batch (longest modelled cost first) on ``opts.workers`` threads; ``on_batch(batch, runs, records,
    seconds)`` is called in the calling thread as each batch finishes."""
    import time

    order = sorted(batches, key=lambda b: -b.cost_s())
    workers = opts.workers or min(2, os.cpu_count() or 1)

    def one(b: Batch) -> tuple[Batch, list[Any], list[dict[str, np.ndarray]], float]:
        t0 = time.perf_counter()
        runs = build_batch(b, beta, bdp, capacity_pps=capacity_pps, packet_size=packet_size, opts=opts)
        recs = simulate(runs)
        return b, runs, recs, time.perf_counter() - t0

    if workers <= 1 or len(order) <= 1:
        for b in order:
            on_batch(*one(b))
        return
    with ThreadPoolExecutor(workers) as ex:
        futs = [ex.submit(one, b) for b in order]
        for fut in as_completed(futs):
            on_batch(*fut.result())
