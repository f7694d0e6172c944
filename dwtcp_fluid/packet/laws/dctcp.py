"""DCTCP: α estimated once per window of data, the window brought to W(1 − α/2) at most once per window.

Eqs. (3), (4) of [DCTCP-A] and Linux ``tcp_dctcp.c``: α ← (1 − g)α + g·F with F = marked/acked over the last
window of data (``dctcp_update_alpha``, run on every ACK before the congestion state is processed); an ECN echo
sets ssthresh = max(W(1 − α/2), 2) (``dctcp_ssthresh``), a loss max(W/2, 2) (``dctcp_react_to_loss``). How the
window reaches ssthresh is the law's ``reduction`` (:mod:`.recovery`): by default Linux's CWR state with
proportional rate reduction, as Linux and ns-3's ``TcpDctcp`` run it; ``"immediate"`` is [DCTCP-A] eq. (4) read
as a one-step cut with the increase going on (the fluid models' reading).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from ...params import BOUNDS, DEFAULT_G, G_HELP
from .base import FLOAT, INT, Events, Law, LawOption, reno_increase, window_closed, window_init
from .recovery import PRR_RULES, REDUCTION_OPTION, check_reduction, prr_step, reduction_init
from .registry import register_law
from .reno import SSTHRESH_INF

__all__ = ["Dctcp", "alpha_init", "alpha_update", "G_OPTION", "AI_COUNTS", "AI_COUNT_OPTION"]


def alpha_init(p: Mapping[str, Any], n: int) -> dict[str, Any]:
    """State of the α estimator: α, the end of the current observation window, acked and marked counts."""
    return {
        "alpha": jnp.full(n, p["alpha0"], FLOAT),
        "win_end": jnp.zeros(n, INT),
        "n_acked": jnp.zeros(n, INT),
        "n_marked": jnp.zeros(n, INT),
    }


def alpha_update(s: Mapping[str, Any], ev: Events, g: Any) -> dict[str, Any]:
    """α ← (1 − g)α + g·F once per window of data, [DCTCP-A] eq. (3).

    As Linux ``dctcp_update_alpha``: count this ACK's packets first (all marked if it echoes ECE), and when the
    cumulative ACK passes the sequence that was next-to-send at the previous update (``win_end``), update α with
    F = marked/acked and start a new window.
    """
    k = jnp.where(ev.ack, ev.n_acked, 0).astype(INT)
    n_acked = s["n_acked"] + k
    n_marked = s["n_marked"] + jnp.where(ev.mark, k, 0)
    done = ev.ack & (ev.snd_una >= s["win_end"])
    frac = n_marked.astype(FLOAT) / jnp.maximum(n_acked, 1).astype(FLOAT)
    alpha = jnp.where(done, (1.0 - g) * s["alpha"] + g * frac, s["alpha"]).astype(FLOAT)
    return {
        "alpha": alpha,
        "win_end": jnp.where(done, ev.snd_nxt, s["win_end"]),
        "n_acked": jnp.where(done, 0, n_acked),
        "n_marked": jnp.where(done, 0, n_marked),
    }


#: What DCTCP's additive increase counts acknowledged segments against (the law field ``ai_count``).
AI_COUNTS = ("cwnd", "floor")
#: ``--ai-count``: one definition, shared by the DCTCP laws.
AI_COUNT_OPTION: LawOption = LawOption(
    "--ai-count",
    "DCTCP's congestion-avoidance increase per ACK of n packets: cwnd = n/cwnd (byte counting, RFC 3465); "
    "floor = n/max(floor(cwnd), 1), ns-3's TcpLinuxReno::CongestionAvoidance (TcpDctcp's increase: one segment "
    "once floor(cwnd) segments are counted, here in expectation).",
    AI_COUNTS[0],
    option="ai_count",
    choices=AI_COUNTS,
)

#: ``--g``: DCTCP's EWMA gain, shared by the DCTCP laws.
G_OPTION: LawOption = LawOption("--g", G_HELP, DEFAULT_G, param="g", bound=BOUNDS["g"])


@register_law
@dataclass(frozen=True)
class Dctcp(Law):
    """DCTCP, [DCTCP-A] eqs. (3), (4) with Linux's sender rules by default.

    Parameters
    ----------
    reduction : {"prr", "immediate", "hold", "ns3-prr"}
        The sender rule (:mod:`.recovery`): ``"prr"`` (default) Linux's CWR with proportional rate reduction
        (``tcp_cwnd_reduction``), no increase while reducing; ``"ns3-prr"`` the same state machine with ns-3
        3.44's ``TcpPrrRecovery`` arithmetic in CWR; ``"immediate"`` W ← max(W(1 − α/2), 2) on the first marked ACK
        of a window and +1/W per ACK at once (the fluid model (5)); ``"hold"`` the same cut, no increase until
        something above the window of the cut is acknowledged (ns-3's ``TcpClassicRecovery``).
    ai_count : {"cwnd", "floor"}
        The increase in congestion avoidance per ACK of n packets: n/cwnd (default); or n/max(⌊cwnd⌋, 1) as ns-3's
        ``TcpLinuxReno::CongestionAvoidance``, which ``TcpDctcp`` inherits: ``w = m_cWnd / m_segmentSize`` (integer
        division) and one segment added once ``m_cWndCnt`` ≥ w, so below two segments every ACK adds one. The
        counter's whole-segment steps are taken in expectation (n/w per ACK), and the counter is not kept through
        CWR (ns-3 keeps it). At windows of a few packets (N = 100 on a 10 Gbps, 100 µs dumbbell) this sets the
        period (docs/ns3.md).
    """

    name: ClassVar[str] = "dctcp"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
    has_alpha: ClassVar[bool] = True
    aux: ClassVar[str | None] = "alpha"
    aux_summary: ClassVar[str | None] = "alpha_mean"
    options: ClassVar[tuple[LawOption, ...]] = (G_OPTION, REDUCTION_OPTION, AI_COUNT_OPTION)
    reduction: str = "prr"
    ai_count: str = "cwnd"

    def __post_init__(self) -> None:
        check_reduction(self.name, self.reduction)
        if self.ai_count not in AI_COUNTS:
            raise ValueError(
                f"ai_count={self.ai_count!r} is invalid for law {self.name!r}: accepted one of {', '.join(AI_COUNTS)}"
            )

    def default_params(self, **context: Any) -> dict[str, float]:
        """``g`` (EWMA gain), ``alpha0`` (1, Linux's ``dctcp_alpha_on_init``), ``init_cwnd`` (10),
        ``min_cwnd`` (2 packets, Linux's floor in ``dctcp_ssthresh``)."""
        dctcp = context.get("dctcp")
        g = float(dctcp.g) if dctcp is not None else 1.0 / 16.0
        return {"g": g, "alpha0": 1.0, "init_cwnd": float(context.get("init_cwnd", 10.0)), "min_cwnd": 2.0}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        prr = reduction_init(n) if self.reduction in PRR_RULES else {}
        return {
            **window_init(p, n, SSTHRESH_INF),
            **alpha_init(p, n),
            **prr,
        }

    def penalty(self, alpha: Any, cwnd: Any, ev: Events, p: Mapping[str, Any]) -> Any:
        """The fraction p of the cut W ← W(1 − p/2) at window ``cwnd``: α for DCTCP ([D2TCP]: α^d)."""
        return alpha

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        est = alpha_update(s, ev, p["g"])
        if self.reduction in PRR_RULES:
            st = prr_step(
                s,
                ev,
                ecn_target=lambda w: jnp.maximum(
                    w * (1.0 - self.penalty(est["alpha"], w, ev, p) * 0.5), p["min_cwnd"]
                ),
                loss_target=lambda w: jnp.maximum(w * 0.5, p["min_cwnd"]),
                timeout_target=lambda w: jnp.maximum(w * 0.5, 2.0),
                increase=lambda w, ss, grow: reno_increase(w, ss, grow, ev.n_acked, self.ai_count == "floor"),
                loss_resets=True,
                ns3=self.reduction == "ns3-prr",
            )
            st.pop("open_ack"), st.pop("entered")
            return {**est, **st}
        cwnd, ssthresh, recover = s["cwnd"], s["ssthresh"], s["recover"]
        pen = self.penalty(est["alpha"], cwnd, ev, p)
        loss = ev.nloss > 0
        open_ = window_closed(ev.snd_una, recover, above=self.reduction == "hold")
        # Eq. (4): W ← W(1 − α/2) on the first marked ACK of a window (floor min_cwnd).
        ecn_cut = ev.ack & ev.mark & ~loss & open_
        # Loss: halve (Linux dctcp_react_to_loss), also at most once per window.
        loss_cut = loss & open_
        cut_w = jnp.where(loss_cut, cwnd * 0.5, cwnd * (1.0 - pen * 0.5))
        cut_w = jnp.maximum(cut_w, p["min_cwnd"]).astype(FLOAT)
        react = ecn_cut | loss_cut
        grow = ev.ack & ~loss
        if self.reduction == "hold":
            grow = grow & open_
        cwnd_new = jnp.where(
            react, cut_w, reno_increase(cwnd, ssthresh, grow, ev.n_acked, self.ai_count == "floor")
        )
        ssthresh = jnp.where(react, cut_w, ssthresh)
        recover = jnp.where(react, ev.snd_nxt, recover)
        to = ev.timeout
        ssthresh = jnp.where(to, jnp.maximum(cwnd * 0.5, 2.0), ssthresh).astype(FLOAT)
        cwnd_new = jnp.where(to, 1.0, cwnd_new).astype(FLOAT)
        recover = jnp.where(to, ev.snd_nxt, recover)
        return {**est, "cwnd": cwnd_new, "ssthresh": ssthresh, "recover": recover}
