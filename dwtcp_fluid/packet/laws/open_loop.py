"""Open-loop sources (no congestion control) and a Scout-only probe, for measuring the switch rather than a law.

* ``open-loop``: a sender that ignores every signal and sends at a fixed ``load`` (packets per slot, a fraction
  of the bottleneck's highest rate), either on a fixed schedule (``arrivals="cbr"``, constant bit rate: one packet
  every 1/load slots) or as a Bernoulli process (``arrivals="poisson"``: in each slot a packet with probability
  ``load``, geometric gaps between sends — the slotted Poisson process; the superposition of n such senders puts a
  Binomial(n, load) number of packets into each slot, independently across slots). Its window never binds. The
  UDP-like senders of [DWTCP] §2.1 ("a fixed number of senders generate UDP traffic with gradually increasing
  rates").
* ``scout-probe``: a flow that sends no data, only its Scouts (one 64-byte low-priority Scout per base RTT, the
  Scout service of [DWTCP] §3), so that the low-priority queue can be observed under a given high-priority load.

Both are ordinary laws of the registry: the engine paces a rate-based law (:mod:`..wheels`), and a law whose
:attr:`Law.poisson_pacing` is true gets geometric gaps drawn from the run's seed (:mod:`..events`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, Events, Law, LawOption
from .registry import register_law

__all__ = ["OpenLoop", "ScoutProbe", "ARRIVALS"]

#: Arrival processes of an open-loop sender.
ARRIVALS = ("cbr", "poisson")
#: The open-loop sender's window (packets): never the limit.
_OPEN_WINDOW = 1e9


@register_law
@dataclass(frozen=True)
class OpenLoop(Law):
    """An open-loop sender at ``load`` packets per slot, CBR or Poisson (see the module docstring).

    Parameters
    ----------
    arrivals : {"cbr", "poisson"}
        Fixed spacing 1/load slots, or a Bernoulli(load) send in every slot (geometric gaps).
    """

    name: ClassVar[str] = "open-loop"
    signals: ClassVar[frozenset[str]] = frozenset()
    rate_based: ClassVar[bool] = True
    options: ClassVar[tuple[LawOption, ...]] = (
        LawOption(
            "--load",
            "open-loop only: each sender's rate as a fraction of the bottleneck's highest rate, 0 < load ≤ 1.",
            0.5,
            param="rate",
            lo=0.0,
            hi=1.0,
            lo_open=True,
        ),
        LawOption(
            "--arrivals",
            "open-loop only: 'cbr' (fixed spacing) or 'poisson' (a Bernoulli send in every slot).",
            "cbr",
            option="arrivals",
            choices=ARRIVALS,
        ),
    )
    arrivals: str = "cbr"

    def __post_init__(self) -> None:
        if self.arrivals not in ARRIVALS:
            raise ValueError(f"arrivals={self.arrivals!r} is invalid: accepted one of {', '.join(ARRIVALS)}")

    @property
    def poisson_pacing(self) -> bool:
        return self.arrivals == "poisson"

    def default_params(self, **context: Any) -> dict[str, float]:
        """``rate`` (packets per slot, default 0.5) and ``init_cwnd`` (the window, never binding)."""
        return {"rate": 0.5, "init_cwnd": _OPEN_WINDOW}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {"cwnd": jnp.full(n, p["init_cwnd"], FLOAT), "rate": jnp.full(n, p["rate"], FLOAT)}

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        return {"cwnd": jnp.asarray(s["cwnd"], FLOAT), "rate": jnp.asarray(s["rate"], FLOAT)}


@register_law
@dataclass(frozen=True)
class ScoutProbe(Law):
    """Sends no data, only one Scout per base RTT into the low-priority queue (window 0)."""

    name: ClassVar[str] = "scout-probe"
    signals: ClassVar[frozenset[str]] = frozenset({"scout"})

    def default_params(self, **context: Any) -> dict[str, float]:
        """``init_cwnd`` 0 (no data) and ``k`` (the Scout target's queue term of [DWTCP] eq. (2), packets, from
        ``dwtcp``: it only sets when the sender calls a Scout lost; the switch's drops are counted apart)."""
        from ...params import DWTCP_EVALUATION

        dw = context.get("dwtcp") or DWTCP_EVALUATION
        return {"init_cwnd": 0.0, "k": float(dw.k)}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {"cwnd": jnp.zeros(n, FLOAT)}

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        return {"cwnd": jnp.asarray(s["cwnd"], FLOAT)}
