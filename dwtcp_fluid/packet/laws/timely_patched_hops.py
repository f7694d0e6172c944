"""Patched TIMELY driven by a hop signal: :mod:`.timely_patched`'s law on base RTT + f(hop queues), [PROXY] §3.2.

The sibling of :mod:`.timely_hops` for Patched TIMELY (Zhu et al., relayed in [PROXY] §2.2): the same sample,
base RTT + serial + f(q) slots with f = SUM, MAX or SUM_SQU (:func:`.timely_hops.hop_events`), fed to
:class:`~.timely_patched.TimelyPatched` as is. What the fluid model
:class:`~dwtcp_fluid.models.timely_network.TimelyNetwork` with ``patched=True`` is judged against. Runs on the
multi-hop topologies only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Events, LawOption
from .registry import register_law
from .timely_hops import TimelyHops, hop_events
from .timely_patched import TimelyPatched

__all__ = ["TimelyPatchedHops"]


@register_law
@dataclass(frozen=True)
class TimelyPatchedHops(TimelyHops):
    """Patched TIMELY on f(hop queues) ([PROXY] section 3.2), f = SUM (default), MAX or SUM_SQU."""

    name: ClassVar[str] = "timely-patched-hops"
    options: ClassVar[tuple[LawOption, ...]] = TimelyPatched.options

    def default_params(self, **context: Any) -> dict[str, float]:
        """Patched TIMELY's defaults (TIMELY's and RTT_ref = 50 µs) for the scenario's link."""
        return TimelyPatched().default_params(**context)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        return TimelyPatched().step(s, hop_events(ev, p, self.signal, self.name), p)
