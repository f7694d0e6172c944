"""DCQCN's judged sweep: the cross-check of :mod:`.checks` (:data:`~.checks.CHECK`) over the feedback delay τ* × N.

Every point (τ*, N) at the fixed capacity and run length is one setting of the DCQCN check: both cores start at
the fluid fixed point (R = C/N, α*) and are compared over the last half; the run class is the fluid run's
(``stable``, ``oscillating``, ``kmax``; a packet run that is not stationary is its own outcome). The base RTT is the
feedback delay. ``proofs/dcqcn.md`` (steps 10-11) puts the boundary at τ_c(N) = 51-69 µs at 100 Gbps with
[DCQCN]'s gains (τ_c(10) = 61.8 µs; stable below): the default grid, τ* = 50 and 100 µs at N = 10 and 100 Gbps,
is one point on each side (the check's settings ``100G-50us-N10`` and ``100G-100us-N10``);
``dwtcp-fluid sweep --law dcqcn --rtt 40us,60us,80us --flows 2,4,16`` crosses the region where stability is
non-monotonic in N.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...packet.build import check_rtt
from ...sweep.study import Fixed, JudgedSweep, flows_axis, register_sweep, rtt_axis, run_duration
from .checks import CHECK, Setting

__all__ = ["SWEEP"]

_QUANTITIES = (
    ("queue_mean", "mean queue", "packets"),
    ("swing", "queue amplitude over the mean queue", "1"),
    ("rate_mean", "mean per-flow rate", "1"),
    ("utilization", "utilization", "1"),
    ("period_s", "queue period", "s"),
)


def _setting(point: Mapping[str, float], fixed: Mapping[str, str]) -> Setting:
    d, n = float(point["rtt"]), int(point["flows"])
    T = run_duration(fixed["duration"], d, example="40ms")
    s = Setting(f"{fixed['capacity']}-{d * 1e6:g}us-N{n}", fixed["capacity"], f"{d!r}s", n, duration=T)
    check_rtt(d, s.params().link)  # the link and the packet core's shortest RTT, before any work
    return s


#: The DCQCN sweep: axes τ* (``--rtt``) and N (``--flows``); capacity and run length fixed.
SWEEP: JudgedSweep = register_sweep(
    JudgedSweep(
        law="dcqcn",
        check=CHECK,
        axes=(
            rtt_axis((50e-6, 100e-6)),
            flows_axis((10.0,)),
        ),
        fixed=(Fixed("capacity", "--capacity", "100Gbps"), Fixed("duration", "--duration", "40ms")),
        setting=_setting,
        options=lambda fixed: {},
        models=("fluid",),
        classes=("stable", "oscillating", "kmax", "not_stationary"),
        packet_quantities=(*_QUANTITIES, ("jain_index", "Jain index of the per-flow rates", "1")),
        fluid_quantities=_QUANTITIES,
        packet_class=True,
        title="DCQCN: packet core vs the fluid model over τ* × N ([DCQCN] §4)",
    )
)
