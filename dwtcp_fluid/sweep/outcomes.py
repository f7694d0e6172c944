"""Per-point outcomes of the DWTCP sweep: pure, deterministic, batched functions of numpy arrays.

* :func:`fluid_outcomes` — delayed / sqrt / undelayed fluid runs (:mod:`.outcomes_fluid`);
* :func:`delay_outcomes` — delay-aware characteristic roots at the frozen points (:mod:`.outcomes_delay`);
* :func:`packet_outcomes` — the packet core's DWTCP law at sweep points, classified (:mod:`.outcomes_packet`);
* :func:`fluid_agreement`, :func:`delay_agreement` — does the condition k̄ < 2·BDP/√β predict what happens?

Each returns a dict name → ndarray with the batch shape; :data:`VARIABLES` maps every name to
(long_name, units) for dataset attributes.
"""

from __future__ import annotations

from .outcomes_delay import (
    AGREEMENT_VARIABLES,
    DELAY_VARIABLES,
    delay_agreement,
    delay_outcomes,
    fluid_agreement,
)
from .outcomes_fluid import FLUID_VARIABLES, FLUID_VARIANTS, default_duration_rtts, fluid_outcomes
from .outcomes_packet import PACKET_VARIABLES, packet_outcomes

__all__ = [
    "VARIABLES",
    "FLUID_VARIANTS",
    "fluid_outcomes",
    "delay_outcomes",
    "packet_outcomes",
    "fluid_agreement",
    "delay_agreement",
    "default_duration_rtts",
]

#: name → (long_name, units) of every variable the outcome functions return.
VARIABLES: dict[str, tuple[str, str]] = {
    **FLUID_VARIABLES,
    **DELAY_VARIABLES,
    **PACKET_VARIABLES,
    **AGREEMENT_VARIABLES,
}
