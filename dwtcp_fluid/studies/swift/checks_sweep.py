"""Swift's judged sweep: the cross-check of :mod:`.checks` (:data:`~.checks.CHECK`) over the decrease constant β × N.

Every point (β, N) at the fixed link (capacity, base RTT) and run length is one setting of the Swift check: N flows
in two groups (⌊N/2⌋ and the rest) that start at different windows, through the packet core and
:class:`~dwtcp_fluid.models.swift.SwiftFluid`; the run class is the linear verdict of the decrease branch at the
fixed point (``stable`` or ``oscillating``), which picks the tolerances. ``proofs/swift.md`` (step 10) gives the
boundary in closed form, β_c(N, d) (stable for β < β_c): at 10 Gbps and 100 µs, β_c = 1.194 (N = 2), 1.255
(N = 10), 1.422 (N = 64); htsim's β = 0.8 is stable everywhere (step 11). The default grid, β = 0.8 and 3 at
N = 10, 10 Gbps, 100 µs, is one point on each side (the check's settings ``N10-10G-100us`` and
``N10-10G-100us-beta3``): ``dwtcp-fluid sweep --law swift --swift-beta 0.8,1.2,1.5,3 --flows 2,10,64``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...packet.build import check_rtt
from ...packet.laws import LAWS
from ...params import LinkParams
from ...sweep.study import Axis, Fixed, JudgedSweep, flows_axis, register_sweep, run_duration, split_flows
from .checks import CHECK, Setting

__all__ = ["SWEEP"]

_QUANTITIES = (
    ("w_1", "mean window of the group that starts at the smaller window", "packets"),
    ("w_2", "mean window of the group that starts at the larger window", "packets"),
    ("queue_mean", "mean queue", "packets"),
    ("queue_swing", "mean queue swing within a record interval", "packets"),
    ("utilization", "utilization", "1"),
)


def _setting(point: Mapping[str, float], fixed: Mapping[str, str]) -> Setting:
    beta, n = float(point["beta"]), int(point["flows"])
    link = LinkParams(capacity=fixed["capacity"], rtt=fixed["rtt"])
    d = check_rtt(link.d, link)
    T = run_duration(fixed["duration"], d, example="40ms")
    return Setting(f"N{n}-{fixed['capacity']}-{fixed['rtt']}-beta{beta:g}", split_flows(n), fixed["capacity"],
                   fixed["rtt"], beta=beta, duration=T)  # fmt: skip


_BETA = next(o for o in LAWS["swift"].options if o.param == "beta")

#: The Swift sweep: axes β (``--swift-beta``, the packet law's flag) and N (``--flows``); link and run length fixed.
SWEEP: JudgedSweep = register_sweep(
    JudgedSweep(
        law="swift",
        check=CHECK,
        axes=(
            Axis(
                "beta", _BETA.flag, "Swift multiplicative decrease constant β", "1", _BETA.bound, (0.8, 3.0)
            ),
            flows_axis((10.0,), groups=2),
        ),
        fixed=(
            Fixed("capacity", "--capacity", "10Gbps"),
            Fixed("rtt", "--rtt", "100us"),
            Fixed("duration", "--duration", "40ms"),
        ),
        setting=_setting,
        options=lambda fixed: {},
        models=("fluid",),
        classes=("stable", "oscillating"),
        packet_quantities=(*_QUANTITIES, ("jain", "Jain index of the per-flow rates", "1")),
        fluid_quantities=_QUANTITIES,
        title="Swift: packet core vs the fluid model over β × N ([Swift] Algorithm 1, §3.5)",
    )
)
