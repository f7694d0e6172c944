"""CUBIC: cubic window growth in real time since the last reduction, [CUBIC] (RFC 8312 / RFC 9438).

W_cubic(t) = C(t − K)³ + W_max (RFC 8312 eq. (1)), K = ∛((W_max − cwnd_epoch)/C) (RFC 9438 eq. (2); equal to
RFC 8312's ∛(W_max(1 − β)/C) right after a cut), t in seconds since the congestion-avoidance epoch began, windows in
packets, C = 0.4 packets/s³, β = 0.7. Per ACK in congestion avoidance the window moves toward W_cubic(t + RTT),
cwnd += (target − cwnd)/cwnd with target clipped to [cwnd, 1.5·cwnd] (RFC 9438 §4.2); in the TCP-friendly region,
where W_cubic(t) < W_est, the window is W_est, which grows by α = 3(1 − β)/(1 + β) packets per RTT from β·W_max
(RFC 8312 eq. (4), RFC 9438 eq. (4)). On a loss (once per window): W_max ← cwnd, or cwnd(1 + β)/2 with fast
convergence when cwnd is below the previous W_max (RFC 8312 §4.6); cwnd ← β·cwnd. Loss-based: ECN marks are
ignored unless ``ecn`` (then a mark is a loss, RFC 8312 §4.5 style). Time comes from the engine's slot clock
(``ev.t`` slots × the slot length), the RTT from the smoothed per-ACK samples (RFC 6298, gain 1/8).

Slow start is NewReno's (+1 per acknowledged packet); ``hystart="ns3"`` adds ns-3 3.44's HyStart
(``TcpCubic::HystartUpdate`` with its defaults, :data:`HYSTART_NS3`), which leaves slow start (ssthresh ← cwnd) at
the first of: an ACK train (ACKs less than 2 ms apart) lasting longer than the minimum RTT since the round began,
or a round's minimum RTT, over its first 8 samples, above the least RTT seen plus that least RTT clamped to
[4 ms, 1 s]. The RTT is ns-3's smoothed one (``PktsAcked(tcb, segs, m_srtt)``), the least RTT is not taken during
the 10 ms after a congestion-avoidance epoch begins (``m_cubicDelta``), the check runs only while 16 ≤ cwnd ≤
ssthresh, once (``m_found`` holds until a timeout), and a round begins at the first slow-start ACK above the
packets sent when the last one began (``HystartReset``). ns-3's TcpCubic, as Linux's, runs it by default.

How the window reaches β·cwnd is the law's ``reduction`` (:mod:`.recovery`): by default Linux's Recovery (and CWR
with ``ecn``) with proportional rate reduction, W_max recorded at the entry (``cubictcp_recalc_ssthresh``, called
from ``tcp_init_cwnd_reduction``) and the epoch restarted at the first increase after the exit, as Linux's
``tcp_cubic.c`` does (``epoch_start = 0``); ``"immediate"`` cuts at once and grows on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, INT, Events, Law, LawOption, window_closed, window_init
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
from .reno import SSTHRESH_INF

__all__ = ["Cubic", "cubic_window", "cubic_k", "HYSTARTS", "HYSTART_NS3"]

#: Slow-start variants (the law field ``hystart``), the default first.
HYSTARTS = ("off", "ns3")
#: ns-3 3.44 ``TcpCubic`` HyStart attributes at their defaults (``HyStartLowWindow`` in segments,
#: ``HyStartMinSamples``, ``HyStartAckDelta``/``HyStartDelayMin``/``HyStartDelayMax`` in seconds, detection BOTH)
#: and ``CubicDelta`` (s), during which after an epoch begins no RTT sample is taken.
HYSTART_NS3 = {
    "low_window": 16.0,
    "min_samples": 8,
    "ack_delta": 2e-3,
    "delay_min": 4e-3,
    "delay_max": 1.0,
    "cubic_delta": 10e-3,
}


def cubic_k(w_max: Any, cwnd_epoch: Any, c: Any) -> Any:
    """K = ∛((W_max − cwnd_epoch)/C) seconds (0 when the epoch starts above W_max), RFC 9438 eq. (2)."""
    return jnp.cbrt(jnp.maximum(jnp.asarray(w_max, FLOAT) - cwnd_epoch, 0.0) / c)


def cubic_window(t: Any, k: Any, w_max: Any, c: Any) -> Any:
    """W_cubic(t) = C(t − K)³ + W_max (packets, t and K in seconds), [CUBIC] RFC 8312 eq. (1)."""
    x = jnp.asarray(t, FLOAT) - k
    return c * x * x * x + w_max


@register_law
@dataclass(frozen=True)
class Cubic(Law):
    """CUBIC, [CUBIC] RFC 8312/9438 with NewReno slow start and one reduction per window.

    Parameters
    ----------
    ecn : bool
        React to an ECN mark as to a loss (default False: CUBIC is loss-based).
    fast_convergence : bool
        RFC 8312 §4.6 (default True, as Linux).
    reduction : {"prr", "immediate", "hold", "ns3-prr"}
        The sender rule (:mod:`.recovery`, default Linux's PRR).
    loss_entry : {"first", "dupack3"}
        When a reported loss starts Recovery under ``"prr"``/``"ns3-prr"`` (:mod:`.recovery`): at the first ACK
        that reports it (default), or at the third duplicate ACK as ns-3 and Linux.
    lost_retransmit : {"report", "rto"}
        What a lost retransmission costs (:mod:`.recovery`, run by the engine): reported with the flow's next
        packet as any loss (default), or recovered only by the retransmission timer, as ns-3 3.44.
    hystart : {"off", "ns3"}
        Slow start's exit (module docstring): at the first loss (default), or ns-3 3.44's HyStart.
    """

    name: ClassVar[str] = "cubic"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn", "rtt"})
    options: ClassVar[tuple[LawOption, ...]] = (
        LawOption(
            "--cubic-c", "CUBIC constant C, packets/s³, 1e-6 ≤ C ≤ 1e6.", 0.4, param="c", lo=1e-6, hi=1e6
        ),
        LawOption(
            "--cubic-beta",
            "CUBIC multiplicative decrease factor β, 0 < β < 1.",
            0.7,
            param="beta",
            lo=0.0,
            hi=1.0,
            lo_open=True,
            hi_open=True,
        ),
        REDUCTION_OPTION,
        LOSS_ENTRY_OPTION,
        LOST_RETRANSMIT_OPTION,
        LawOption(
            "--hystart",
            "Slow start's exit: off = at the first loss (NewReno slow start); ns3 = ns-3 3.44 TcpCubic's HyStart "
            "with its defaults (ACK train longer than the least RTT, or a round's RTT above the least RTT plus "
            "max(4 ms, least RTT)), as ns-3 and Linux run CUBIC.",
            HYSTARTS[0],
            option="hystart",
            choices=HYSTARTS,
        ),
    )
    ecn: bool = False
    fast_convergence: bool = True
    reduction: str = "prr"
    loss_entry: str = "first"
    lost_retransmit: str = "report"
    hystart: str = "off"

    def __post_init__(self) -> None:
        check_reduction(self.name, self.reduction)
        check_loss_entry(self.name, self.loss_entry, self.reduction)
        check_lost_retransmit(self.name, self.lost_retransmit)
        if self.hystart not in HYSTARTS:
            raise ValueError(
                f"hystart={self.hystart!r} is invalid for law {self.name!r}: accepted one of {', '.join(HYSTARTS)}"
            )

    def default_params(self, **context: Any) -> dict[str, float]:
        """``c`` = 0.4, ``beta`` = 0.7 (RFC 8312 §5), ``slot_s`` (slot length in seconds, from the link of the
        ``dctcp`` context), ``init_cwnd`` (10), ``min_cwnd`` (2)."""
        dctcp = context.get("dctcp")
        slot = 1.0 / float(dctcp.link.C) if dctcp is not None else 1.2e-6
        return {
            "c": 0.4,
            "beta": 0.7,
            "slot_s": slot,
            "init_cwnd": float(context.get("init_cwnd", 10.0)),
            "min_cwnd": 2.0,
        }

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {
            **window_init(p, n, SSTHRESH_INF),
            "w_max": jnp.zeros(n, FLOAT),
            "k": jnp.zeros(n, FLOAT),
            "w_est": jnp.zeros(n, FLOAT),
            "epoch": jnp.full(n, -1, INT),
            "srtt": jnp.zeros(n, FLOAT),
            **(reduction_init(n, dupthresh(self.loss_entry)) if self.reduction in PRR_RULES else {}),
            **(self._hystart_init(n) if self.hystart == "ns3" else {}),
        }

    @staticmethod
    def _hystart_init(n: int) -> dict[str, Any]:
        """HyStart's state: found, the round's start slot and end (packets sent at its start), the slot of the
        train's last ACK, the least RTT (slots; 0: none), the round's least RTT over its first samples (0: none)
        and their count."""
        return {
            "hs_found": jnp.zeros(n, INT),
            "hs_round": jnp.zeros(n, INT),
            "hs_end": jnp.zeros(n, INT),
            "hs_last": jnp.zeros(n, INT),
            "hs_dmin": jnp.zeros(n, FLOAT),
            "hs_curr": jnp.zeros(n, FLOAT),
            "hs_cnt": jnp.zeros(n, INT),
        }

    def _hystart(
        self,
        s: Mapping[str, Any],
        cwnd: Any,
        ssthresh: Any,
        grow: Any,
        ev: Events,
        p: Mapping[str, Any],
        srtt: Any,
    ) -> tuple[Any, dict[str, Any]]:
        """ns-3's ``PktsAcked`` → ``HystartUpdate`` (where ``grow``: an ACK that runs the increase) then
        ``IncreaseWindow``'s ``HystartReset`` on the ACK that ends a slow-start round; on a timeout,
        ``CubicReset`` and ``HystartReset``. Returns the ssthresh the increase sees and HyStart's state."""
        h, slot = HYSTART_NS3, p["slot_s"]
        t = jnp.asarray(ev.t, INT)
        ack = jnp.asarray(ev.ack)
        quiet = (s["epoch"] >= 0) & ((t - s["epoch"]).astype(FLOAT) * slot < h["cubic_delta"])
        sample = ack & ~quiet & (srtt > 0)
        dmin = jnp.where(sample & ((s["hs_dmin"] <= 0) | (s["hs_dmin"] > srtt)), srtt, s["hs_dmin"])
        check = grow & sample & (s["hs_found"] == 0) & (cwnd <= ssthresh) & (cwnd >= h["low_window"])
        train = check & ((t - s["hs_last"]).astype(FLOAT) * slot <= h["ack_delta"])
        last = jnp.where(train, t, s["hs_last"])
        found = train & ((t - s["hs_round"]).astype(FLOAT) > dmin)
        few = s["hs_cnt"] < h["min_samples"]
        take = check & few
        curr = jnp.where(take & ((s["hs_curr"] <= 0) | (s["hs_curr"] > srtt)), srtt, s["hs_curr"])
        cnt = s["hs_cnt"] + take.astype(INT)
        thresh = jnp.clip(dmin * slot, h["delay_min"], h["delay_max"]) / slot
        found = found | (check & ~few & (s["hs_curr"] > dmin + thresh))
        ss = jnp.where(found, cwnd, ssthresh).astype(FLOAT)
        reset = grow & (cwnd < ss) & (jnp.asarray(ev.snd_una) > s["hs_end"])
        to = jnp.asarray(ev.timeout)
        reset = reset | to
        st = {
            "hs_found": jnp.where(to, 0, s["hs_found"] | found.astype(INT)),
            "hs_round": jnp.where(reset, t, s["hs_round"]),
            "hs_end": jnp.where(reset, ev.snd_nxt, s["hs_end"]),
            "hs_last": jnp.where(reset, t, last),
            "hs_dmin": jnp.where(to, 0.0, dmin).astype(FLOAT),
            "hs_curr": jnp.where(reset, 0.0, curr).astype(FLOAT),
            "hs_cnt": jnp.where(reset, 0, cnt),
        }
        st = {k: jnp.asarray(v, FLOAT if k in ("hs_dmin", "hs_curr") else INT) for k, v in st.items()}
        return ss, {**st, "hs_cut": found}

    def _grow(
        self,
        s: Mapping[str, Any],
        cwnd: Any,
        ssthresh: Any,
        grow: Any,
        ev: Events,
        p: Mapping[str, Any],
        rtt_s: Any,
        srtt: Any = None,
    ) -> dict[str, Any]:
        """The increase of one ACK where ``grow``: slow start, or the cubic window (a congestion-avoidance epoch
        starts at the first ACK after a reduction, or after slow start ends) and the TCP-friendly region. Returns the new ``cwnd``,
        the epoch state ``w_max``, ``k``, ``w_est``, ``epoch``, and ``ssthresh`` (with ``hystart``, lowered to cwnd
        where HyStart ends slow start, and HyStart's state; ``srtt``: the smoothed RTT in slots)."""
        c, beta, slot = p["c"], p["beta"], p["slot_s"]
        n = jnp.asarray(ev.n_acked).astype(FLOAT)
        hs: dict[str, Any] = {}
        if self.hystart == "ns3":
            ssthresh, hs = self._hystart(s, cwnd, ssthresh, grow, ev, p, srtt)
        slow = cwnd < ssthresh
        start = grow & ~slow & (s["epoch"] < 0)
        w_max0 = jnp.where(start & (s["w_max"] < cwnd), cwnd, s["w_max"])
        k = jnp.where(start, cubic_k(w_max0, cwnd, c), s["k"])
        w_est = jnp.where(start, cwnd, s["w_est"])
        epoch = jnp.where(start, ev.t, s["epoch"])
        t_s = (jnp.asarray(ev.t) - epoch).astype(FLOAT) * slot
        target = jnp.clip(cubic_window(t_s + rtt_s, k, w_max0, c), cwnd, 1.5 * cwnd)
        w_est = jnp.where(grow & ~slow, w_est + n * (3.0 * (1.0 - beta) / (1.0 + beta)) / cwnd, w_est)
        friendly = cubic_window(t_s, k, w_max0, c) < w_est
        ca = jnp.where(friendly, w_est, cwnd + n * (target - cwnd) / cwnd)
        grown = jnp.where(slow, cwnd + n, ca)
        out = {"cwnd": jnp.where(grow, grown, cwnd), "w_max": w_max0, "k": k, "w_est": w_est, "epoch": epoch}
        return {**out, **hs, "ssthresh": ssthresh}

    def _step_prr(
        self, s: dict[str, Any], ev: Events, p: Mapping[str, Any], srtt: Any, rtt_s: Any
    ) -> dict[str, Any]:
        """``reduction="prr"``: :func:`.recovery.prr_step` with CUBIC's targets, W_max at the entry."""
        beta = p["beta"]
        side: dict[str, Any] = {}

        def increase(w: Any, ss: Any, grow: Any) -> Any:
            side.update(self._grow(s, w, ss, grow, ev, p, rtt_s, srtt))
            return side["cwnd"]

        cut = lambda w: jnp.maximum(w * beta, p["min_cwnd"])  # noqa: E731
        st = prr_step(
            s,
            ev,
            ecn_target=cut,
            loss_target=cut,
            timeout_target=lambda w: jnp.maximum(w * beta, 2.0),
            increase=increase,
            loss_resets=False,
            ns3=self.reduction == "ns3-prr",
            dupthresh=dupthresh(self.loss_entry),
            ecn=self.ecn,
        )
        entered, w0 = st.pop("entered"), st["prior_cwnd"]
        st.pop("open_ack")
        hs = {k: v for k, v in side.items() if k.startswith("hs_")}
        if hs:  # HyStart's exit from slow start (ssthresh ← cwnd before the increase)
            st["ssthresh"] = jnp.where(hs.pop("hs_cut"), side["ssthresh"], st["ssthresh"]).astype(FLOAT)
        fc = (w0 < side["w_max"]) if self.fast_convergence else jnp.zeros_like(entered)
        w_max = jnp.where(entered, jnp.where(fc, w0 * (1.0 + beta) * 0.5, w0), side["w_max"])
        epoch = jnp.where(entered, -1, side["epoch"])
        to = jnp.asarray(ev.timeout)
        w_max = jnp.where(to, s["cwnd"], w_max)
        epoch = jnp.where(to, -1, epoch)
        return {
            **st,
            "w_max": w_max.astype(FLOAT),
            "k": side["k"].astype(FLOAT),
            "w_est": side["w_est"].astype(FLOAT),
            "epoch": epoch.astype(INT),
            "srtt": srtt.astype(FLOAT),
            **hs,
        }

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        cwnd, ssthresh, recover = s["cwnd"], s["ssthresh"], s["recover"]
        beta, slot = p["beta"], p["slot_s"]
        sample = jnp.asarray(ev.rtt_sample, FLOAT)
        got = ev.ack & (sample > 0)
        srtt = jnp.where(got, jnp.where(s["srtt"] > 0, 0.875 * s["srtt"] + 0.125 * sample, sample), s["srtt"])
        rtt_s = jnp.where(srtt > 0, srtt, jnp.asarray(ev.rtt, FLOAT)) * slot
        if self.reduction in PRR_RULES:
            return self._step_prr(s, ev, p, srtt, rtt_s)
        loss = ev.nloss > 0
        congestion = loss | (ev.ack & ev.mark) if self.ecn else loss
        hold = self.reduction == "hold"
        react = congestion & window_closed(ev.snd_una, recover, above=hold)
        grow = ev.ack & ~congestion
        if hold:
            grow = grow & window_closed(ev.snd_una, recover, above=True)
        g = self._grow(s, cwnd, ssthresh, grow, ev, p, rtt_s, srtt)
        cwnd_new, w_max0, k, w_est, epoch = g["cwnd"], g["w_max"], g["k"], g["w_est"], g["epoch"]
        hs = {k_: v for k_, v in g.items() if k_.startswith("hs_")}
        if hs:  # HyStart's exit from slow start
            ssthresh = jnp.where(hs.pop("hs_cut"), g["ssthresh"], ssthresh)
        # Reduction: W_max (with fast convergence), cwnd ← β·cwnd, a new epoch at the next ACK.
        fc = (cwnd < s["w_max"]) if self.fast_convergence else jnp.zeros_like(react)
        w_max = jnp.where(react, jnp.where(fc, cwnd * (1.0 + beta) * 0.5, cwnd), w_max0)
        cut = jnp.maximum(cwnd * beta, p["min_cwnd"])
        cwnd_new = jnp.where(react, cut, cwnd_new)
        ssthresh = jnp.where(react, cut, ssthresh)
        recover = jnp.where(react, ev.snd_nxt, recover)
        epoch = jnp.where(react, -1, epoch)
        to = ev.timeout
        w_max = jnp.where(to, cwnd, w_max)
        ssthresh = jnp.where(to, jnp.maximum(cwnd * beta, 2.0), ssthresh).astype(FLOAT)
        cwnd_new = jnp.where(to, 1.0, cwnd_new).astype(FLOAT)
        recover = jnp.where(to, ev.snd_nxt, recover)
        epoch = jnp.where(to, -1, epoch)
        return {
            "cwnd": cwnd_new,
            "ssthresh": ssthresh,
            "recover": recover,
            "w_max": w_max.astype(FLOAT),
            "k": k.astype(FLOAT),
            "w_est": w_est.astype(FLOAT),
            "epoch": epoch.astype(INT),
            "srtt": srtt.astype(FLOAT),
            **hs,
        }
