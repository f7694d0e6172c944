"""TIMELY's and Patched TIMELY's judged sweeps: the cross-checks of :mod:`.checks` (:data:`~.checks.CHECKS`) over
the base RTT d × N.

Every point (d, N) at the fixed capacity and run length is one setting of the law's check: N flows in two groups,
⌊N/2⌋ flows sharing 10 % of line rate at the start and the rest 80 % (2 + 2 flows: 5 % and 40 % each, the check's
own settings), through the packet core and :class:`~dwtcp_fluid.models.TimelyFluid`, with [TIMELY]'s gains. The
base RTT is the feedback delay. ``proofs/timely.md``: Patched TIMELY's unique fixed point (R* = C/N) is stable
only below a critical feedback delay, τ_c ≈ 3.5 µs at 10 Gbps, N = 4 (step 16; it rises with N), and oscillates
at d = 20 µs (step 17); TIMELY has no fixed point to be stable, a continuum of equilibria whose rate split the
start rates set (step 5), so its sweep runs the same grid to show where that split holds. The default grid, d = 2.4
and 20 µs at N = 4 and 10 Gbps, puts Patched TIMELY on each side of τ_c (2.4 µs: two packet slots, the packet
core's shortest RTT, :data:`~dwtcp_fluid.packet.build.MIN_RTT_SLOTS`; an RTT is a whole number of slots):
``dwtcp-fluid sweep --law timely-patched --rtt 2.4us,6us,12us,20us --flows 4,10,16``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...judge import CrossCheck
from ...packet.build import check_rtt
from ...params import LinkParams
from ...sweep.study import (
    Fixed,
    JudgedSweep,
    flows_axis,
    register_sweep,
    rtt_axis,
    run_duration,
    split_flows,
)
from .checks import CHECKS, Setting, run_class

__all__ = ["SWEEPS"]

_QUANTITIES = (
    ("rate_1", "mean rate of the group that starts slower", "1"),
    ("rate_2", "mean rate of the group that starts faster", "1"),
    ("queue_mean", "mean queue", "packets"),
    ("utilization", "utilization", "1"),
)


def _sweep(law: str, check: CrossCheck[Setting]) -> JudgedSweep:
    def setting(point: Mapping[str, float], fixed: Mapping[str, str]) -> Setting:
        d, n = float(point["rtt"]), int(point["flows"])
        link = LinkParams(capacity=fixed["capacity"], rtt=d)
        check_rtt(d, link)
        T = run_duration(fixed["duration"], link.d, example="100ms")
        n1, n2 = split_flows(n)
        return Setting(f"{law}-{fixed['capacity']}-{d * 1e6:g}us-N{n}", law, (n1, n2), (0.1 / n1, 0.8 / n2),
                       duration=T, capacity=fixed["capacity"], rtt=f"{d!r}s")  # fmt: skip

    return register_sweep(
        JudgedSweep(
            law=law,
            check=check,
            axes=(
                rtt_axis((2.4e-6, 20e-6)),
                flows_axis((4.0,), groups=2),
            ),
            fixed=(Fixed("capacity", "--capacity", "10Gbps"), Fixed("duration", "--duration", "100ms")),
            setting=setting,
            options=lambda fixed: {},
            models=("fluid",),
            classes=(run_class(check.settings[0]),),
            packet_quantities=_QUANTITIES,
            fluid_quantities=_QUANTITIES,
            title=f"{law}: packet core vs the TIMELY fluid model over d × N ([PROXY] §2.2)",
        )
    )


#: The sweeps of ``--law timely`` and ``--law timely-patched``: axes d (``--rtt``) and N (``--flows``).
SWEEPS: dict[str, JudgedSweep] = {law: _sweep(law, check) for law, check in CHECKS.items()}
