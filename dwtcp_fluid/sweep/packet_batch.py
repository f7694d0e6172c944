"""Running many packet-level DWTCP points: each point's own run, and the one engine call.

Every point (β, BDP, N) is one run of the packet core's DWTCP law (Algorithm 1 of [DWTCP]) with:

* target queue ``k`` (default 0: d_t = τ, the convention of the condition (14) and of the sweep's fluid runs) and a
  drop-tail data buffer of ``buffer`` packets (default 250, the DWTCP simulations' switch buffer);
* the initial window BDP/N (at least 1): the fluid runs' fair-share start, so that the warm-up is one slow-start
  round and the first decreases rather than log2(BDP/N) rounds of slow start from 10 packets;
* a warm-up of ``warmup_rtts`` base RTTs, excluded from every statistic, then a measurement window of at least
  ``min_rtts`` base RTTs.

Run lengths are the point's own (:func:`point_plan`): ``warmup_rtts + window`` base RTTs rounded up to whole
chunks, the chunk being the largest power of two not above RTT/:data:`CHUNKS_PER_RTT`. The packet core is
event-driven: its cost is per packet, not per flow-slot, and runs of different lengths, buffers or flow counts
within one shape bucket share one compiled program (:mod:`dwtcp_fluid.packet.state`), so no batching of points is
needed here: :func:`simulate` hands the runs to :func:`dwtcp_fluid.packet.run_many`, which groups them by shape and
splits large groups across worker processes. Every run is independent of the others (tested), so a point's result
depends only on its parameters and options, never on the grid it belongs to.

Shapes. The engine compiles one program per shape (:class:`~dwtcp_fluid.packet.state.EngineSpec`), ≈ 2 s of one
core each, which dominates a cold pass. Its ring sizes follow the RTT, so left alone one N of the grid compiles ~10
programs; :data:`MIN_SHAPE` raises the ACK and timer wheels to the sizes of the largest default BDP (10,000), and
the chunk is ⌈RTT/:data:`CHUNKS_PER_RTT`⌉ slots, so a first round of every point fills one record bucket (256
chunks): one program per N (and per record bucket of the second round). Results do not depend on the shape.

The engine is called in exactly one place, :func:`simulate`, so that another engine can replace it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..params import DwtcpParams, LinkParams

__all__ = [
    "PacketPassOptions",
    "build_point",
    "simulate",
    "point_plan",
    "rtt_slots",
    "CHUNKS_PER_RTT",
    "MIN_SHAPE",
]

#: Trace chunks per base RTT (the chunk is ⌈RTT/CHUNKS_PER_RTT⌉ slots).
CHUNKS_PER_RTT = 2.0
#: Smallest engine ring sizes of every point (see the module docstring): the ACK wheel of RTTs up to 16,352 slots,
#: the timer wheel at its cap.
MIN_SHAPE = {"ack_rows": 1 << 14, "timer_rows": 1 << 15}


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
        :data:`~dwtcp_fluid.judge.classes.MIN_PERIODS` periods, a trend that needs ``trend_rtts``).
    trend_rtts : float
        Measurement window of the second round of a run with a trend.
    retry_flow_slots : float
        Largest cost (flows × slots) of one point's second round; beyond it the point stays ``not_stationary``.
    seed : int
        Seed of every run (start jitter, order of simultaneous arrivals).
    workers : int, optional
        Kept for compatibility; the packet core chooses its worker processes
        (``DWTCP_FLUID_PACKET_WORKERS``).
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


def rtt_slots(bdp: float) -> int:
    """Base RTT in slots of a point of BDP ``bdp`` packets (the engine rounds τ/slot, at least 2)."""
    return max(int(np.rint(bdp)), 2)


def point_plan(bdp: float, window_rtts: float, opts: PacketPassOptions) -> tuple[int, int]:
    """(run length, chunk) in slots of one point.

    The chunk is ⌈RTT/:data:`CHUNKS_PER_RTT`⌉ slots; the length is ``warmup_rtts`` and ``window_rtts`` base RTTs,
    each rounded up to whole chunks (so the window after the warm-up's last chunk is never short of
    ``window_rtts``).
    """
    rtt = rtt_slots(bdp)
    chunk = int(math.ceil(rtt / CHUNKS_PER_RTT))
    need = (math.ceil(opts.warmup_rtts * rtt / chunk) + math.ceil(window_rtts * rtt / chunk)) * chunk
    return int(need), chunk


def build_point(
    beta: float,
    bdp: float,
    flows: int,
    window_rtts: float,
    *,
    capacity_pps: float,
    packet_size: float,
    opts: PacketPassOptions,
) -> Any:
    """The :class:`~dwtcp_fluid.packet.PacketRun` of one point at its own length and chunk (:func:`point_plan`)."""
    from ..packet import build

    need, chunk = point_plan(bdp, window_rtts, opts)
    slot = 1.0 / capacity_pps
    rtt = rtt_slots(bdp)
    link = LinkParams(capacity=f"{capacity_pps!r}pps", rtt=rtt * slot, packet_size=packet_size)
    dw = DwtcpParams(link=link, flows=int(flows), beta=float(beta), k=opts.k)
    return build(
        "dwtcp",
        link=link,
        flows=int(flows),
        dwtcp=dw,
        # half a slot short of ``need``: the engine rounds the duration up to whole slots
        duration=(need - 0.5) * slot,
        seed=opts.seed,
        buffer=opts.buffer,
        trace_points=need // chunk,
        warmup_fraction=0.0,
        law_params={"init_cwnd": max(1.0, float(bdp) / int(flows))},
    )


def simulate(runs: Sequence[Any]) -> list[dict[str, np.ndarray]]:
    """The one call into the packet engine: per-chunk records of each run, in order (shapes raised to
    :data:`MIN_SHAPE`)."""
    from ..packet import run_many

    return [s["records"] for s in run_many(list(runs), min_shape=MIN_SHAPE)]
