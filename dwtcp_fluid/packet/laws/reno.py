"""TCP Reno/NewReno congestion avoidance with ECN (RFC 5681, RFC 3168), the baseline law of the packet core."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, Events, Law, reno_increase, window_closed, window_init
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
    """

    name: ClassVar[str] = "reno"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
    ecn: bool = True

    def default_params(self, **context: Any) -> dict[str, float]:
        """``init_cwnd`` (packets, default 10 as Linux IW10) and ``min_cwnd`` (packets, 2 after a halving)."""
        return {"init_cwnd": float(context.get("init_cwnd", 10.0)), "min_cwnd": 2.0}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return window_init(p, n, SSTHRESH_INF)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        cwnd, ssthresh, recover = s["cwnd"], s["ssthresh"], s["recover"]
        loss = ev.nloss > 0
        congestion = loss | (ev.ack & ev.mark) if self.ecn else loss
        react = congestion & window_closed(ev.snd_una, recover)
        halved = jnp.maximum(cwnd * 0.5, p["min_cwnd"]).astype(FLOAT)
        grown = reno_increase(cwnd, ssthresh, ev.ack & ~congestion, ev.n_acked)
        cwnd_new = jnp.where(react, halved, grown)
        ssthresh = jnp.where(react, halved, ssthresh)
        recover = jnp.where(react, ev.snd_nxt, recover)
        # Retransmission timeout: restart from one packet, remember half the window (RFC 5681 §3.1).
        to = ev.timeout
        ssthresh = jnp.where(to, jnp.maximum(cwnd * 0.5, 2.0), ssthresh).astype(FLOAT)
        cwnd_new = jnp.where(to, 1.0, cwnd_new).astype(FLOAT)
        recover = jnp.where(to, ev.snd_nxt, recover)
        return {"cwnd": cwnd_new, "ssthresh": ssthresh, "recover": recover}
