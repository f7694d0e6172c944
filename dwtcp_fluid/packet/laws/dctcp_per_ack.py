"""DCTCP with the per-ACK decrease of section 5 (RTT fairness), [DCTCP-A] eq. (36).

W ← W + 1/W on an unmarked ACK and W ← W + 1/W − α/2 on a marked ACK, with no once-per-window guard; α is the same
once-per-window EWMA as DCTCP's, eq. (3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, Events, Law, LawOption, window_closed, window_init
from .dctcp import G_OPTION, Dctcp, alpha_init, alpha_update
from .registry import register_law
from .reno import SSTHRESH_INF

__all__ = ["DctcpPerAck"]


@register_law
@dataclass(frozen=True)
class DctcpPerAck(Law):
    """Per-ACK DCTCP, [DCTCP-A] eq. (36).

    Slow start (+1 per ACK) until the first marked ACK, which sets ssthresh; losses halve the window once per
    window as in DCTCP. The window is floored at ``min_cwnd`` (2 packets, as DCTCP's).
    """

    name: ClassVar[str] = "dctcp-per-ack"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
    has_alpha: ClassVar[bool] = True
    aux: ClassVar[str | None] = "alpha"
    aux_summary: ClassVar[str | None] = "alpha_mean"
    options: ClassVar[tuple[LawOption, ...]] = (G_OPTION,)

    def default_params(self, **context: Any) -> dict[str, float]:
        """Same parameters as :class:`~dwtcp_fluid.packet.laws.dctcp.Dctcp`."""
        return Dctcp().default_params(**context)

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {
            **window_init(p, n, SSTHRESH_INF),
            **alpha_init(p, n),
        }

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        est = alpha_update(s, ev, p["g"])
        alpha = est["alpha"]
        cwnd, ssthresh, recover = s["cwnd"], s["ssthresh"], s["recover"]
        loss = ev.nloss > 0
        ok = ev.ack & ~loss
        slow = cwnd < ssthresh
        marked = ok & ev.mark
        # Eq. (36): +1/W per ACKed packet, −α/2 more on a marked one; slow start (+1) until the first mark.
        k = jnp.asarray(ev.n_acked).astype(FLOAT)
        inc = k * (jnp.where(slow & ~ev.mark, 1.0, 1.0 / cwnd) - jnp.where(ev.mark, alpha * 0.5, 0.0))
        cwnd_new = jnp.where(ok, jnp.maximum(cwnd + inc, p["min_cwnd"]), cwnd)
        ssthresh = jnp.where(marked & slow, cwnd_new, ssthresh)
        loss_cut = loss & window_closed(ev.snd_una, recover)
        halved = jnp.maximum(cwnd * 0.5, p["min_cwnd"])
        cwnd_new = jnp.where(loss_cut, halved, cwnd_new)
        ssthresh = jnp.where(loss_cut, halved, ssthresh)
        recover = jnp.where(loss_cut, ev.snd_nxt, recover)
        to = ev.timeout
        ssthresh = jnp.where(to, jnp.maximum(cwnd * 0.5, 2.0), ssthresh).astype(FLOAT)
        cwnd_new = jnp.where(to, 1.0, cwnd_new).astype(FLOAT)
        recover = jnp.where(to, ev.snd_nxt, recover)
        return {**est, "cwnd": cwnd_new, "ssthresh": ssthresh, "recover": recover}
