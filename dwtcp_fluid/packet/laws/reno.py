"""TCP Reno/NewReno congestion avoidance with ECN (RFC 5681, RFC 3168), the baseline law of the packet core.

ssthresh = max(W/2, 2) after an ECN echo or a loss (Linux ``tcp_reno_ssthresh``); how the window reaches it is the
law's ``reduction`` (:mod:`.recovery`): by default Linux's CWR and SACK Recovery with proportional rate reduction
(Linux ``tcp_input.c``, ns-3 ``TcpPrrRecovery``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, Events, Law, LawOption, reno_increase, window_closed, window_init
from .recovery import (
    LOSS_ENTRY_OPTION,
    LOST_RETRANSMIT_OPTION,
    PRR_RULES,
    REDUCTION_OPTION,
    check_loss_entry,
    check_lost_retransmit,
    check_reduction,
    dupthresh,
    prr_step,
    reduction_init,
)
from .registry import register_law

__all__ = ["Reno", "SSTHRESH_INF"]

#: Initial slow-start threshold: effectively infinite (slow start until the first reaction).
SSTHRESH_INF = 1e9


@register_law
@dataclass(frozen=True)
class Reno(Law):
    """Reno/NewReno: slow start, +1 packet per RTT (+1/W per ACKed packet), halve on a loss or an ECN mark once
    per window.

    Parameters
    ----------
    ecn : bool
        React to ECN marks like a loss (RFC 3168 ECN-Reno, default True); False ignores marks.
    reduction : {"prr", "immediate", "hold", "ns3-prr"}
        The sender rule (:mod:`.recovery`): ``"prr"`` (default) Linux's CWR/Recovery with proportional rate
        reduction; ``"ns3-prr"`` with ns-3 3.44's ``TcpPrrRecovery`` arithmetic and ``TcpNewReno``'s target,
        max(2, packets in flight / 2) (``GetSsThresh(tcb, bytesInFlight)``); ``"immediate"``
        W ← max(W/2, 2) at once, the increase going on; ``"hold"`` the same cut, no increase until something
        above the window of the cut is acknowledged.
    loss_entry : {"first", "dupack3"}
        When a reported loss starts Recovery under ``"prr"``/``"ns3-prr"`` (:mod:`.recovery`): at the first ACK
        that reports it (default), or at the third duplicate ACK as ns-3 and Linux.
    lost_retransmit : {"report", "rto"}
        What a lost retransmission costs (:mod:`.recovery`, run by the engine): reported with the flow's next
        packet as any loss (default), or recovered only by the retransmission timer, as ns-3 3.44.
    """

    name: ClassVar[str] = "reno"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
    options: ClassVar[tuple[LawOption, ...]] = (REDUCTION_OPTION, LOSS_ENTRY_OPTION, LOST_RETRANSMIT_OPTION)
    ecn: bool = True
    reduction: str = "prr"
    loss_entry: str = "first"
    lost_retransmit: str = "report"

    def __post_init__(self) -> None:
        check_reduction(self.name, self.reduction)
        check_loss_entry(self.name, self.loss_entry, self.reduction)
        check_lost_retransmit(self.name, self.lost_retransmit)

    def default_params(self, **context: Any) -> dict[str, float]:
        """``init_cwnd`` (packets, default 10 as Linux IW10) and ``min_cwnd`` (packets, 2 after a halving)."""
        return {"init_cwnd": float(context.get("init_cwnd", 10.0)), "min_cwnd": 2.0}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        prr = reduction_init(n, dupthresh(self.loss_entry)) if self.reduction in PRR_RULES else {}
        return {**window_init(p, n, SSTHRESH_INF), **prr}

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        if self.reduction in PRR_RULES:
            half = lambda w: jnp.maximum(w * 0.5, p["min_cwnd"])  # noqa: E731
            st = prr_step(
                s,
                ev,
                ecn_target=half,
                loss_target=half,
                timeout_target=lambda w: jnp.maximum(w * 0.5, 2.0),
                increase=lambda w, ss, grow: reno_increase(w, ss, grow, ev.n_acked),
                loss_resets=False,
                ns3=self.reduction == "ns3-prr",
                dupthresh=dupthresh(self.loss_entry),
                ecn=self.ecn,
                flight_target=True,
            )
            st.pop("open_ack"), st.pop("entered")
            return st
        cwnd, ssthresh, recover = s["cwnd"], s["ssthresh"], s["recover"]
        loss = ev.nloss > 0
        congestion = loss | (ev.ack & ev.mark) if self.ecn else loss
        hold = self.reduction == "hold"
        react = congestion & window_closed(ev.snd_una, recover, above=hold)
        halved = jnp.maximum(cwnd * 0.5, p["min_cwnd"]).astype(FLOAT)
        grow = ev.ack & ~congestion
        if hold:
            grow = grow & window_closed(ev.snd_una, recover, above=True)
        grown = reno_increase(cwnd, ssthresh, grow, ev.n_acked)
        cwnd_new = jnp.where(react, halved, grown)
        ssthresh = jnp.where(react, halved, ssthresh)
        recover = jnp.where(react, ev.snd_nxt, recover)
        # Retransmission timeout: restart from one packet, remember half the window (RFC 5681 §3.1).
        to = ev.timeout
        ssthresh = jnp.where(to, jnp.maximum(cwnd * 0.5, 2.0), ssthresh).astype(FLOAT)
        cwnd_new = jnp.where(to, 1.0, cwnd_new).astype(FLOAT)
        recover = jnp.where(to, ev.snd_nxt, recover)
        return {"cwnd": cwnd_new, "ssthresh": ssthresh, "recover": recover}
