"""DCTCP driven by a hop signal: the ECN echo replaced by f(q) ≥ K over the packet's hop-queue vector.

The DCTCP law of [DCTCP-A] eqs. (3), (4) (:class:`~.dctcp.Dctcp`, reused as is) with the per-ACK mark computed at
the sender from the queues the packet found at its hops ([PROXY] section 3.2, the ``"hops"`` signal) instead of
by the switches: mark ⟺ f(q) ≥ K_hop with f = IND, MAX, SUM or SUM_SQU (:func:`~..hop_signals.hop_signal`). IND
with K_hop = K is the switches' per-hop ECN exactly (packets marked when some hop found ≥ K ahead); MAX
thresholded marks the same packets as IND (max_i q_i ≥ K ⟺ ∃i: q_i ≥ K), accepted so that every signal of
[PROXY] runs under one flag. SUM marks on the path's total queue (a delay threshold, as an RTT-threshold DCTCP
would), SUM_SQU in between. Runs on the multi-hop topologies only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ...params import BOUNDS
from ..hop_signals import HOP_SIGNALS, check_signal, hop_signal, signal_option
from .base import Events, Law, LawOption
from .dctcp import G_OPTION, Dctcp
from .recovery import REDUCTION_OPTION, check_reduction
from .registry import register_law

__all__ = ["DctcpHops"]


@register_law
@dataclass(frozen=True)
class DctcpHops(Law):
    """DCTCP with the mark f(hop queues) ≥ K_hop ([PROXY] section 3.2), f = IND (default), MAX, SUM or SUM_SQU.

    Parameters
    ----------
    signal : {"ind", "max", "sum", "sum_squ"}
        The hop signal f (MAX marks the same packets as IND).
    reduction : {"prr", "immediate", "hold", "ns3-prr"}
        DCTCP's sender rule (:mod:`.recovery`, default Linux's CWR with proportional rate reduction).
    """

    name: ClassVar[str] = "dctcp-hops"
    signals: ClassVar[frozenset[str]] = frozenset({"hops"})
    has_alpha: ClassVar[bool] = True
    aux: ClassVar[str | None] = "alpha"
    aux_summary: ClassVar[str | None] = "alpha_mean"
    options: ClassVar[tuple[LawOption, ...]] = (
        G_OPTION,
        LawOption(
            "--hop-threshold", "Hop-signal threshold K_hop, packets.", 65.0, param="k_hop", bound=BOUNDS["K"]
        ),
        signal_option("ind", HOP_SIGNALS),
        REDUCTION_OPTION,
    )
    signal: str = "ind"
    reduction: str = "prr"

    def __post_init__(self) -> None:
        check_signal(self.name, self.signal, HOP_SIGNALS)
        check_reduction(self.name, self.reduction)

    def default_params(self, **context: Any) -> dict[str, float]:
        """DCTCP's parameters and ``k_hop`` (packets, default the DCTCP threshold K or 65)."""
        p = Dctcp().default_params(**context)
        dctcp = context.get("dctcp")
        p["k_hop"] = float(dctcp.K) if dctcp is not None else 65.0
        return p

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return Dctcp(reduction=self.reduction).init(p, n)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        if ev.hop_queues is None:
            raise ValueError(
                "law='dctcp-hops' is invalid here: it needs the hop signal of a multi-hop topology"
            )
        f = hop_signal(ev.hop_queues, self.signal, p["k_hop"])
        mark = (f >= 0.5) if self.signal == "ind" else (f >= p["k_hop"])
        return Dctcp(reduction=self.reduction).step(s, ev._replace(mark=ev.ack & mark), p)
