"""HPCC's judged sweeps: the cross-checks of :mod:`.checks` (HPCC and HPCC-PINT) over η × N.

Every point (η, N) at the fixed link (capacity, base RTT) and run length is one setting of the check: N flows from
line rate through the packet core and through :class:`~dwtcp_fluid.models.hpcc.HpccFluid`, W_AI by the sizing
rule, judged by the check's stated tolerances (the fluid run's class, ``fixed point`` or ``limit cycle``, picks the
set). κ = N·W_AI/(C·T) against 1 − η says which regime of the fixed point a point is in (``proofs/hpcc.md``):
``dwtcp-fluid sweep --law hpcc --eta 0.9,0.95,0.98 --flows 2,10,64``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...params import BOUNDS, LinkParams
from ...sweep.study import Axis, Fixed, JudgedSweep, flows_axis, register_sweep, run_duration
from .checks import CHECK, PINT_CHECK
from .checks_runs import Setting

__all__ = ["SWEEP", "PINT_SWEEP", "MAX_RUN_RTTS"]

#: Run lengths accepted, in base RTTs (the engine's shortest, :data:`~dwtcp_fluid.sweep.study.MIN_RUN_RTTS`: the last
#: half is compared, and the flows need N RTTs to drain the queue their line-rate start builds).
MAX_RUN_RTTS = 100_000

_QUANTITIES = (
    ("queue_mean", "mean queue", "packets"),
    ("queue_std", "standard deviation of the queue", "packets"),
    ("utilization", "utilization", "1"),
    ("U", "senders' mean filtered utilization U", "1"),
)


def _rtts(fixed: Mapping[str, str]) -> int:
    d = LinkParams(capacity=fixed["capacity"], rtt=fixed["rtt"]).d
    T = run_duration(fixed["duration"], d, max_rtts=MAX_RUN_RTTS, example="15ms")
    return round(T / d)


def _sweep(law: str, check: Any, extra: dict[str, Any]) -> JudgedSweep:
    def setting(point: Mapping[str, float], fixed: Mapping[str, str]) -> Setting:
        n, eta = int(point["flows"]), point["eta"]
        name = f"{law}-n{n}-eta{eta:g}-{fixed['capacity']}-{fixed['rtt']}"
        return Setting(name, n, fixed["capacity"], fixed["rtt"], eta=eta, rtts=_rtts(fixed), law=law, **extra)

    return register_sweep(
        JudgedSweep(
            law=law,
            check=check,
            axes=(
                Axis("eta", "--eta", "HPCC target utilization η", "1", BOUNDS["eta"], (0.95,)),
                flows_axis((2.0, 10.0)),
            ),
            fixed=(
                Fixed("capacity", "--capacity", "25Gbps"),
                Fixed("rtt", "--rtt", "50us"),
                Fixed("duration", "--duration", "7.5ms"),
            ),
            setting=setting,
            options=lambda fixed: {"rtts": _rtts(fixed)},
            models=("fluid",),
            classes=("fixed point", "limit cycle"),
            packet_quantities=_QUANTITIES,
            fluid_quantities=_QUANTITIES,
            title=f"{law}: packet core vs the HPCC fluid model over η × N",
        )
    )


#: The HPCC sweep: axes η (``--eta``) and N (``--flows``); link and run length fixed.
SWEEP: JudgedSweep = _sweep("hpcc", CHECK, {})
#: HPCC-PINT's, one packet in 16 carrying the utilization (the check's settings).
PINT_SWEEP: JudgedSweep = _sweep("hpcc-pint", PINT_CHECK, {"pint_prob": 1 / 16})
