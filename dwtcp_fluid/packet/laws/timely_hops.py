"""TIMELY driven by a hop signal: the RTT sample replaced by base RTT + f(hop queues), [PROXY] section 3.2.

[PROXY] feeds functions f of the per-path hop-queue vector to the gradient-based TIMELY algorithm: SUM (Σq_i, the
queueing delay an RTT measures: TIMELY itself without measurement noise), MAX (max_i q_i, only the bottleneck)
and SUM_SQU (√Σq_i², long queues weigh more). This law is :class:`~.timely.Timely` ([TIMELY] Algorithm 1, reused
as is) with its per-ACK sample set to ``rtt + serial + f(q)`` slots: the base RTT, the one slot TIMELY subtracts
for the segment's own serialization, and f over the queues the packet found (packets = slots at the common port
rate, :func:`~..hop_signals.hop_signal`). The forwarding slots of a multi-hop path are left out (constant, and
[PROXY]'s f(q) has none). Runs on the multi-hop topologies only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from ..hop_signals import check_signal, hop_signal, signal_option
from .base import FLOAT, Events, Law, LawOption
from .registry import register_law
from .timely import TIMELY_OPTIONS, Timely

__all__ = ["TimelyHops", "hop_events"]

#: Signals a TIMELY-style law can use (IND is a one-bit signal: [PROXY]'s ECN formulation, DCTCP's job).
RATE_SIGNALS = ("sum", "max", "sum_squ")


@register_law
@dataclass(frozen=True)
class TimelyHops(Law):
    """TIMELY on f(hop queues) ([PROXY] section 3.2), f = SUM (default), MAX or SUM_SQU.

    Parameters
    ----------
    signal : {"sum", "max", "sum_squ"}
        The hop signal f.
    """

    name: ClassVar[str] = "timely-hops"
    signals: ClassVar[frozenset[str]] = frozenset({"hops"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "rate"
    aux_summary: ClassVar[str | None] = "rate_mean"
    options: ClassVar[tuple[LawOption, ...]] = (*TIMELY_OPTIONS, signal_option("sum", RATE_SIGNALS))
    signal: str = "sum"

    def __post_init__(self) -> None:
        check_signal(self.name, self.signal, RATE_SIGNALS)

    def default_params(self, **context: Any) -> dict[str, float]:
        """[TIMELY]'s defaults for the scenario's link (:func:`~.timely.timely_params`)."""
        return Timely().default_params(**context)

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return Timely().init(p, n)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        return Timely().step(s, hop_events(ev, p, self.signal, self.name), p)


def hop_events(ev: Events, p: Mapping[str, Any], signal: str, law: str) -> Events:
    """``ev`` with its RTT sample replaced by base RTT + serial + f(hop queues) slots ([PROXY] section 3.2)."""
    if ev.hop_queues is None:
        raise ValueError(f"law={law!r} is invalid here: it needs the hop signal of a multi-hop topology")
    f = hop_signal(ev.hop_queues, signal)
    return ev._replace(rtt_sample=jnp.asarray(ev.rtt, FLOAT) + p["serial"] + f)
