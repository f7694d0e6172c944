"""DCTCP's judged sweep: the cross-check of :mod:`.checks` (:data:`~.checks.CHECK`) over K × g × N.

Every point (K, g, N) at the fixed link (capacity, base RTT, packet size) and run length is one setting of the
DCTCP cross-check: the packet core's DCTCP law under the one-step cut, the paper's model (5)-(8) and the
ACK-clocked model ([DCTCP-A]), judged against the latter by the check's stated tolerances (the run class, ``fixed
point`` where w̄ ≤ 2 ([DCTCP-A] eq. (15)) or ``cycle``, picks the set). The engine
(:mod:`dwtcp_fluid.sweep.study`) does the rest: ``dwtcp-fluid sweep --law dctcp --marking-threshold 10:100:10log
--g 0.01,0.0625,0.2``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...params import BOUNDS, DEFAULT_CAPACITY, DEFAULT_FLOWS, DEFAULT_G, DEFAULT_RTT, DctcpParams, LinkParams
from ...sweep.study import Axis, Fixed, JudgedSweep, flows_axis, register_sweep, run_duration
from .checks import CHECK, REFERENCE

__all__ = ["SWEEP", "MIN_RUN_RTTS"]

#: A run shorter than this many base RTTs has no last half to compare (its half holds a few DCTCP cycles at most).
MIN_RUN_RTTS = 20.0

_QUANTITIES = (
    ("queue_mean", "mean queue", "packets"),
    ("queue_min", "smallest queue", "packets"),
    ("queue_max", "largest queue", "packets"),
    ("amplitude", "queue amplitude (max − min)/2", "packets"),
    ("period_s", "queue period", "s"),
    ("window_mean", "mean window", "packets"),
    ("alpha_mean", "mean α", "1"),
    ("utilization", "utilization", "1"),
)


def _link(fixed: Mapping[str, str]) -> LinkParams:
    return LinkParams(capacity=fixed["capacity"], rtt=fixed["rtt"], packet_size=fixed["packet_size"])


def _setting(point: Mapping[str, float], fixed: Mapping[str, str]) -> DctcpParams:
    return DctcpParams(link=_link(fixed), flows=int(point["flows"]), K=point["K"], g=point["g"])


def _options(fixed: Mapping[str, str]) -> dict[str, Any]:
    T = run_duration(fixed["duration"], _link(fixed).d, min_rtts=MIN_RUN_RTTS,
                     example="100ms")  # fmt: skip
    return {"duration": T}


#: The DCTCP sweep: axes K (``--marking-threshold``), g (``--g``), N (``--flows``); link and run length fixed.
SWEEP: JudgedSweep = register_sweep(
    JudgedSweep(
        law="dctcp",
        check=CHECK,
        axes=(
            Axis("K", "--marking-threshold", "ECN marking threshold K", "packets", BOUNDS["K"], (65.0,)),
            Axis("g", "--g", "DCTCP EWMA gain g, [DCTCP-A] eq. (3)", "1", BOUNDS["g"], (DEFAULT_G,)),
            flows_axis((float(DEFAULT_FLOWS),)),
        ),
        fixed=(
            Fixed("capacity", "--capacity", DEFAULT_CAPACITY),
            Fixed("rtt", "--rtt", DEFAULT_RTT),
            Fixed("packet_size", "--packet-size", "1500"),
            Fixed("duration", "--duration", "100ms"),
        ),
        setting=_setting,
        options=_options,
        models=("fluid", REFERENCE),
        classes=("fixed point", "cycle"),
        packet_quantities=_QUANTITIES,
        fluid_quantities=_QUANTITIES,
        packet_class=True,
        title="DCTCP: packet core vs the fluid models over K × g × N ([DCTCP-A] eqs. (5)-(8))",
    )
)
