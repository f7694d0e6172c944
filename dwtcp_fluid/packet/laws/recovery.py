"""How a window law brings its window down after an ECN echo or a loss: the sender rule, one definition.

A law's congestion signal sets the *target* (ssthresh: W(1 − α/2) for DCTCP, W/2 for Reno, βW for CUBIC); this
module says how the window gets there, with three named rules (the law field ``reduction``, flag ``--reduction``):

``"prr"`` (default): Linux's CWR and Recovery states with proportional rate reduction, as Linux
  (``net/ipv4/tcp_input.c``) runs DCTCP, Reno and CUBIC (ns-3's ``TcpSocketBase`` with ``TcpPrrRecovery`` runs
  the same states with different PRR arithmetic: ``"ns3-prr"`` below):

  * entry (``tcp_fastretrans_alert`` → ``tcp_try_to_open`` → ``tcp_enter_cwr`` on an ECN echo in the Open
    state; ``tcp_enter_recovery`` on a reported loss): ``tcp_init_cwnd_reduction`` sets ssthresh to the law's
    target, ``prior_cwnd`` = cwnd, ``prr_delivered`` = ``prr_out`` = 0, ``high_seq`` = snd_nxt (the law field
    ``recover``). An echo in CWR or Recovery changes nothing; a loss in CWR moves to Recovery without a new
    reduction (Linux ``tcp_enter_recovery`` skips ``tcp_init_cwnd_reduction`` while in a reduction) — except
    that DCTCP resets ssthresh to max(cwnd/2, 2) on entering Recovery (``dctcp_state`` → ``dctcp_react_to_loss``,
    ``loss_resets``);
  * while in CWR or Recovery, every data ACK runs :func:`cwnd_reduction` (Linux ``tcp_cong_control`` →
    ``tcp_cwnd_reduction``, RFC 6937 PRR with the slow-start reduction bound) and *no* increase
    (``tcp_cong_avoid`` is not called);
  * exit (``tcp_fastretrans_alert`` "D"): CWR ends when something above high_seq is acknowledged
    (snd_una > high_seq: "CWR is to be held something *above* high_seq is ACKed"; ns-3 the same, ack > m_recover),
    Recovery when high_seq is (snd_una ≥ high_seq, SACK); both set cwnd = ssthresh (``tcp_end_cwnd_reduction``).
    The same ACK is then processed in the Open state: it may enter a new CWR (an echo) or Recovery (a loss), or
    it grows the window (``tcp_cong_avoid``);
  * a retransmission timeout: ssthresh from the law, cwnd = 1, Open (``tcp_enter_loss``; Linux's Loss state ends
    when snd_una passes high_seq, which here is at once: the engine declares every outstanding packet lost).

  In packets: snd_una counts packets acknowledged or reported lost, so inflight = snd_nxt − snd_una is Linux's
  ``tcp_packets_in_flight`` (SACKed and lost packets out); the engine sends new packets in place of lost ones,
  so ``prr_out`` (packets sent since the entry) is snd_nxt − high_seq and needs no state. Windows stay float32
  (Linux keeps integer packets and a fractional counter; ns-3 bytes): ssthresh is the law's exact target, and
  PRR's ceil is taken of the float32 quotient.

``"immediate"``: the cut in one step, W ← target on the first echo (or loss) of a window, at most once per window
  (snd_una ≥ the snd_nxt of the last cut), and the increase goes on at once: [DCTCP-A] eq. (4) read as the fluid
  models (5) and [DCTCP-A] eq. (7) do, where the 1/R term never switches off.

``"hold"``: the same one-step cut, then no increase and no new cut until something above the window of the cut
  is acknowledged (snd_una > the snd_nxt of the cut, ns-3's ``ackNumber > m_recover``): ns-3's CWR with
  ``TcpClassicRecovery`` (cwnd ← ssthresh at entry, no ``IncreaseWindow`` while in CWR). The strict ">" matters:
  the ACK of the last packet sent before the cut is often marked, and with "≥" it would start a second cut.

``"ns3-prr"``: ``"prr"`` with the CWR and Recovery episodes as ns-3 3.44 runs them
  (``TcpSocketBase::ReceivedAck`` → ``EnterCwr`` → ``TcpPrrRecovery::EnterRecovery``, then ``ProcessAck``'s ``CA_CWR`` branch), which departs from
  Linux in three ways on an ECN echo: (i) the entering ACK is credited twice plus one segment — ``EnterRecovery``
  calls ``DoRecovery(tcb, delivered, isDupAck=true)``, which adds one segment "for the dupack", and
  ``ProcessAck`` then calls ``DoRecovery(tcb, delivered, false)`` on the same ACK — so prr_delivered starts at
  2·acked + 1 where Linux has acked; (ii) the proportional divisor is ``m_recoveryFlightSize`` = bytes in flight
  after the entering ACK, where Linux uses ``prior_cwnd``; (iii) the quotient is taken in bytes (no ceil to whole
  packets) and PRR-SSRB's extra segment needs ``m_isRetransDataAcked``, never set in CWR. With windows of a
  dozen packets the send count during CWR then stays near the delivered count: the window comes down at the
  exit (cwnd ← ssthresh), one RTT late. In Recovery (``TcpSocketBase::EnterRecovery`` →
  ``TcpPrrRecovery::EnterRecovery``, then ``DupAck`` → ``DoRecovery(tcb, delivered, isDupAck=true)`` on every
  duplicate ACK) the same arithmetic (ii)-(iii) runs with ns-3's duplicate-ACK credit: each ACK of the episode
  adds one segment to the delivered count while prr_delivered < RecoverFS (the entering ACK included, credited
  once), so the episode sends about one packet per ACK until half of RecoverFS is delivered and the window
  comes down at the exit. Every ACK before the exit is taken as a duplicate ACK (ns-3's partial ACKs come with
  the retransmissions, about one RTT after the entry, and the engine does not retransmit). A law may take its
  target of the packets in flight after the entering ACK (``flight_target``: ns-3's ``TcpNewReno::GetSsThresh``
  is max(2, bytesInFlight/2), where Linux's ``tcp_reno_ssthresh`` halves cwnd). ns-3 enters Recovery at the
  third duplicate ACK (``ReTxThreshold``), the engine at the first ACK that reports the loss: the law option
  ``loss_entry`` below.

When a reported loss starts Recovery is the law field ``loss_entry`` (flag ``--loss-entry``, with ``"prr"`` and
``"ns3-prr"``): ``"first"`` (default) at the first ACK that reports it (the engine reports a loss with the flow's
next packet to arrive); ``"dupack3"`` at the third duplicate ACK, as ns-3 (``TcpSocketBase::DupAck``: Recovery
when ``m_dupAckCount == m_retxThresh``, ``ReTxThreshold`` 3 by default; RFC 5681 §3.2, RFC 6675 DupThresh) and
Linux with SACK (``tcp_time_to_recover``: ``tcp_dupack_heuristics > tp->reordering``, ``tcp_reordering`` 3). The
ACK that reports the loss is the first duplicate ACK; until the third the flow stays in its state (Open: ns-3's
Disorder; in CWR, PRR goes on) without increase (a duplicate ACK acknowledges no new data: ns-3 calls no ``IncreaseWindow``, Linux's
``tcp_may_raise_cwnd`` needs ``FLAG_DATA_ACKED``) and sends one packet per ACK: cwnd = packets in flight + 1
after each, since the engine has already taken the reported losses out of the flight where ns-3's pipe still
counts them (a segment is marked lost only at the third duplicate ACK, RFC 6675 ``IsLost``), and ns-3 sends one
new segment per duplicate ACK (limited transmit, RFC 3042, ``LimitedTransmit`` on by default). The Recovery
point and the targets are then those of the third ACK.

What a lost retransmission costs is the law field ``lost_retransmit`` (flag ``--lost-retransmit``; the engine
runs it, :mod:`..events`): ``"report"`` (default): the engine does not retransmit (it sends new packets in place of
lost ones), and every lost packet is reported with the flow's next packet to arrive, as a sender that detects lost
retransmissions does (Linux's RACK, RFC 8985). ``"rto"``: as ns-3 3.44, where a retransmission that is lost again
is recovered only by the retransmission timer: ``TcpTxBuffer::NextSeg`` (RFC 6675 rule (1.a), HighRxt) never picks
a segment whose ``m_retrans`` is set, the cumulative ACK stays below the hole, and ``ReTxTimeout`` fires (cwnd one
segment, ssthresh from the law, every outstanding segment marked lost, ``TcpSocketBase::ReTxTimeout``; the timer is
restarted only by new ACKs and the first partial ACK of a Recovery, ``NewAck(ack, m_isFirstPartialAck)``). In the
engine: after a report of m losses, the next m packets the flow sends in Recovery (any packet, under a rule without
the Recovery state) stand for their retransmissions (NextSeg sends lost segments before new data); a stand-in that is dropped is not reported, stays in flight, and at its send slot +
RTO the flow times out with the law's timeout rule; the packets then in flight are taken out of the flight (ns-3's
pipe is 0 after an RTO) and their ACKs only count as deliveries.

The laws keep their ``"immediate"``/``"hold"`` code in their own modules (it is two lines of each law); this
module holds the ``"prr"`` state machine they share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax.numpy as jnp

from .base import FLOAT, INT, Events, LawOption

__all__ = [
    "REDUCTIONS",
    "REDUCTION_OPTION",
    "LOSS_ENTRIES",
    "LOSS_ENTRY_OPTION",
    "LOST_RETRANSMITS",
    "LOST_RETRANSMIT_OPTION",
    "check_lost_retransmit",
    "check_loss_entry",
    "dupthresh",
    "PRR_RULES",
    "NS3_SEGMENT",
    "OPEN",
    "CWR",
    "RECOVERY",
    "check_reduction",
    "reduction_init",
    "cwnd_reduction",
    "prr_step",
]

#: The sender rules (see the module docstring), the default first.
REDUCTIONS = ("prr", "immediate", "hold", "ns3-prr")
#: ns-3's segment size in bytes for 1500-byte IP packets (the ``"ns3-prr"`` byte arithmetic).
NS3_SEGMENT = 1460
#: The rules run by :func:`prr_step` (the CWR/Recovery state machine).
PRR_RULES = ("prr", "ns3-prr")
#: Congestion states (Linux ``TCP_CA_Open``, ``TCP_CA_CWR``, ``TCP_CA_Recovery``).
OPEN, CWR, RECOVERY = 0, 1, 2

#: ``--reduction``: the sender rule of the window laws (one definition, shared by every law that owns it).
REDUCTION_OPTION: LawOption = LawOption(
    "--reduction",
    "How the window comes down after an ECN echo or a loss: prr = Linux CWR and Recovery with proportional "
    "rate reduction (RFC 6937, Linux tcp_cwnd_reduction), no increase until the reduction ends; immediate = the cut "
    "at once and the increase goes on (the fluid models' reading); hold = the cut at once, no increase until "
    "something above the window of the cut is acknowledged (ns-3 TcpClassicRecovery); ns3-prr = prr with ns-3 "
    "3.44's TcpPrrRecovery (in CWR the entering ACK credited twice plus one segment, in Recovery one segment more "
    "per duplicate ACK, the flight after the entry as divisor, no ceil, a uint32 byte product that wraps; Reno's "
    "target half the flight, as ns-3's TcpNewReno).",
    REDUCTIONS[0],
    option="reduction",
    choices=REDUCTIONS,
)

#: When a reported loss starts Recovery (the module docstring), the default first.
LOSS_ENTRIES = ("first", "dupack3")
#: ``--loss-entry``: one definition, shared by the loss-based window laws (Reno, CUBIC).
LOSS_ENTRY_OPTION: LawOption = LawOption(
    "--loss-entry",
    "When a reported loss starts Recovery (with --reduction prr or ns3-prr): first = at the first ACK that "
    "reports it; dupack3 = at the third duplicate ACK, no increase and one packet per ACK before it (ns-3 "
    "ReTxThreshold 3 with limited transmit, RFC 5681/6675; Linux tcp_reordering 3).",
    LOSS_ENTRIES[0],
    option="loss_entry",
    choices=LOSS_ENTRIES,
)


#: What a lost retransmission costs (the module docstring), the default first.
LOST_RETRANSMITS = ("report", "rto")
#: ``--lost-retransmit``: one definition, shared by the loss-based window laws (Reno, CUBIC).
LOST_RETRANSMIT_OPTION: LawOption = LawOption(
    "--lost-retransmit",
    "What a lost retransmission costs: report = it is reported with the flow's next packet, as any loss (a sender "
    "that detects lost retransmissions, Linux RACK); rto = only the retransmission timer recovers it (ns-3 3.44: "
    "TcpTxBuffer::NextSeg never resends a retransmitted segment, TcpSocketBase::ReTxTimeout). With rto the packets "
    "a flow sends in Recovery after a loss report stand for its retransmissions (single bottleneck, no delayed ACKs).",
    LOST_RETRANSMITS[0],
    option="lost_retransmit",
    choices=LOST_RETRANSMITS,
)


def check_lost_retransmit(law: str, lost_retransmit: str) -> None:
    """``ValueError`` naming the law's ``lost_retransmit`` unless it is one of :data:`LOST_RETRANSMITS`."""
    if lost_retransmit not in LOST_RETRANSMITS:
        raise ValueError(
            f"lost_retransmit={lost_retransmit!r} is invalid for law {law!r}: accepted one of "
            f"{', '.join(LOST_RETRANSMITS)}"
        )


def check_loss_entry(law: str, loss_entry: str, reduction: str) -> None:
    """``ValueError`` naming the law's ``loss_entry`` unless it is one of :data:`LOSS_ENTRIES`, and "first" unless
    the law runs a rule of :data:`PRR_RULES`."""
    if loss_entry not in LOSS_ENTRIES:
        raise ValueError(
            f"loss_entry={loss_entry!r} is invalid for law {law!r}: accepted one of {', '.join(LOSS_ENTRIES)}"
        )
    if loss_entry != LOSS_ENTRIES[0] and reduction not in PRR_RULES:
        raise ValueError(
            f"loss_entry={loss_entry!r} is invalid for law {law!r} with reduction={reduction!r}: accepted "
            f"{LOSS_ENTRIES[0]} (or reduction one of {', '.join(PRR_RULES)})"
        )


def dupthresh(loss_entry: str) -> int:
    """The duplicate ACK that starts Recovery under ``loss_entry`` (1: the ACK that reports the loss)."""
    return 3 if loss_entry == "dupack3" else 1


def check_reduction(law: str, reduction: str) -> None:
    """``ValueError`` naming the law's ``reduction`` and the accepted values unless it is one of them."""
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"reduction={reduction!r} is invalid for law {law!r}: accepted one of {', '.join(REDUCTIONS)}"
        )


def reduction_init(n: int, dupthresh: int = 1) -> dict[str, Any]:
    """The PRR state: congestion state ``ca`` (Open), ``prior_cwnd`` and ``prr_delivered``; with ``dupthresh`` > 1
    the duplicate ACKs counted since a reported loss, ``dupacks`` (0: none pending)."""
    return {
        "ca": jnp.zeros(n, INT),
        "prior_cwnd": jnp.zeros(n, FLOAT),
        "prr_delivered": jnp.zeros(n, INT),
        **({"dupacks": jnp.zeros(n, INT)} if dupthresh > 1 else {}),
    }


def cwnd_reduction(
    ssthresh: Any,
    prior_cwnd: Any,
    prr_delivered: Any,
    recover: Any,
    ev: Events,
    ns3: Any = False,
    ns3_dupack: Any = False,
) -> tuple[Any, Any]:
    """One data ACK in CWR or Recovery: Linux ``tcp_cwnd_reduction`` (RFC 6937 PRR, slow-start reduction bound).

    delta = ssthresh − inflight; prr_delivered += newly acknowledged; if delta < 0, sndcnt = ⌈ssthresh ·
    prr_delivered / prior_cwnd⌉ − prr_out (proportional); else sndcnt = min(delta, max(prr_delivered − prr_out,
    newly acknowledged) + 1), the + 1 only when the ACK reports no new loss (``FLAG_SND_UNA_ADVANCED &&
    !newly_lost``: every data ACK here advances snd_una); sndcnt ≥ 1 while nothing was sent since the entry
    ("force a fast retransmit"); cwnd = inflight + sndcnt. Returns the new cwnd and prr_delivered (float32 and
    int32, in this order of operations: the native loop repeats it). ``ns3`` (a bool per flow: ``"ns3-prr"`` in
    CWR or Recovery): ns-3's ``TcpPrrRecovery::DoRecovery``: the proportional count ``m_prrDelivered *
    m_ssThresh * 1.0 / m_recoveryFlightSize`` with its product in uint32 bytes (segments of :data:`NS3_SEGMENT`
    bytes, ssthresh truncated to bytes), which wraps modulo 2^32 once prr_delivered · ssthresh ≥ 2^32/1460² ≈
    2015 packets², no ceil to whole packets, and no extra segment. ``ns3_dupack`` (``"ns3-prr"`` in Recovery):
    the ACK is a duplicate ACK to ``DoRecovery(tcb, delivered, isDupAck=true)``, which adds one segment to the
    delivered count while prr_delivered < ``m_recoveryFlightSize`` (``prior_cwnd``), before the sum and in the
    PRR-CRB bound alike.
    """
    infl = jnp.asarray(ev.snd_nxt - ev.snd_una, INT)
    dup = jnp.asarray(ns3_dupack) & (prr_delivered.astype(FLOAT) < prior_cwnd)
    n = jnp.asarray(ev.n_acked, INT) + dup.astype(INT)
    prr_del = prr_delivered + n
    prr_out = jnp.asarray(ev.snd_nxt - recover, INT)
    delta = ssthresh - infl.astype(FLOAT)
    quot = ssthresh * prr_del.astype(FLOAT) / prior_cwnd
    # ns-3: m_prrDelivered * m_ssThresh in uint32 bytes (it wraps modulo 2^32), then / m_recoveryFlightSize
    ss_b = (ssthresh * NS3_SEGMENT).astype(jnp.uint32)
    wrapped = prr_del.astype(jnp.uint32) * jnp.uint32(NS3_SEGMENT) * ss_b
    quot_ns3 = wrapped.astype(FLOAT) / (prior_cwnd * FLOAT(NS3_SEGMENT * NS3_SEGMENT))
    prop = jnp.where(ns3, quot_ns3, jnp.ceil(quot)) - prr_out.astype(FLOAT)
    bonus = (jnp.asarray(ev.nloss) == 0) & ~jnp.asarray(ns3)
    bound = jnp.maximum(prr_del - prr_out, n) + bonus.astype(INT)
    sndcnt = jnp.where(delta < 0.0, prop, jnp.minimum(delta, bound.astype(FLOAT)))
    sndcnt = jnp.maximum(sndcnt, jnp.where(prr_out > 0, 0.0, 1.0))
    return (infl.astype(FLOAT) + sndcnt).astype(FLOAT), prr_del


def prr_step(
    s: Mapping[str, Any],
    ev: Events,
    *,
    ecn_target: Callable[[Any], Any],
    loss_target: Callable[[Any], Any],
    timeout_target: Callable[[Any], Any],
    increase: Callable[[Any, Any, Any], Any],
    loss_resets: bool,
    ecn: bool = True,
    ns3: bool = False,
    flight_target: bool = False,
    dupthresh: int = 1,
) -> dict[str, Any]:
    """One event of a window law under ``reduction="prr"`` (the module docstring gives the rule and its sources).

    ``ecn_target(cwnd)``/``loss_target(cwnd)``/``timeout_target(cwnd)``: the law's ssthresh after an echo, a loss,
    a timeout; ``increase(cwnd, ssthresh, grow)``: the law's increase of ``cwnd`` where ``grow`` (``tcp_cong_avoid``, run
    only in the Open state); ``loss_resets``: entering Recovery from CWR resets ssthresh to ``loss_target``
    (DCTCP's ``dctcp_react_to_loss``); ``ecn``: the law reacts to ECN echoes; ``ns3``: the episodes of
    ``"ns3-prr"`` (module docstring); ``flight_target`` (with ``ns3``): the targets are taken of the packets in
    flight after the entering ACK instead of cwnd (ns-3's ``TcpNewReno::GetSsThresh(tcb, bytesInFlight)``, called
    with ``BytesInFlight()``, the RFC 6675 pipe); ``dupthresh`` (:func:`dupthresh` of the law's ``loss_entry``):
    the duplicate ACK that starts Recovery, the ACK reporting a loss the first (the state's ``dupacks``, counted
    outside Recovery; no increase while counting). Returns ``cwnd``, ``ssthresh``,
    ``recover`` (high_seq), ``ca``, ``prior_cwnd``, ``prr_delivered``, ``entered`` (a new reduction began:
    ``tcp_init_cwnd_reduction``, where CUBIC records W_max) and ``open_ack`` (a data ACK processed in the Open
    state, after any exit).
    """
    cwnd, ssthresh, recover, ca = s["cwnd"], s["ssthresh"], s["recover"], s["ca"]
    prior, prr_del = s["prior_cwnd"], s["prr_delivered"]
    ack = jnp.asarray(ev.ack)
    # exit: CWR once snd_una > high_seq, Recovery once snd_una ≥ high_seq; cwnd = ssthresh
    done = ack & (((ca == CWR) & (ev.snd_una > recover)) | ((ca == RECOVERY) & (ev.snd_una >= recover)))
    cwnd = jnp.where(done, ssthresh, cwnd)
    ca = jnp.where(done, OPEN, ca)
    # entry: a reported loss → Recovery; an echo in Open → CWR
    loss = jnp.asarray(ev.nloss) > 0
    counting = jnp.zeros_like(loss)
    if dupthresh > 1:  # duplicate ACKs since the report, the report the first (module docstring)
        counting = (s["dupacks"] > 0) | (loss & (ca != RECOVERY))
        dups = jnp.where(counting & (ack | loss), s["dupacks"] + 1, s["dupacks"])
        loss = counting & (dups >= dupthresh)
        dups = jnp.where(loss, 0, dups)
    ece = ack & jnp.asarray(ev.mark) & ecn
    to_rec = loss & (ca != RECOVERY)
    init = (ca == OPEN) & (to_rec | ece)
    infl_after = jnp.maximum(jnp.asarray(ev.snd_nxt - ev.snd_una, INT), 1).astype(FLOAT)  # ns-3 divides by it
    w_target = infl_after if (ns3 and flight_target) else cwnd
    target = jnp.where(to_rec, loss_target(w_target), ecn_target(w_target))
    reset = init | (to_rec & loss_resets)
    ssthresh = jnp.where(reset, target, ssthresh).astype(FLOAT)
    cwr_ns3 = init & ~to_rec & ns3
    prior = jnp.where(init, jnp.where(ns3, infl_after, cwnd), prior).astype(FLOAT)
    prr_del = jnp.where(init, jnp.where(cwr_ns3, jnp.asarray(ev.n_acked, INT) + 1, 0), prr_del)
    recover = jnp.where(init, ev.snd_nxt, recover)
    ca = jnp.where(to_rec, RECOVERY, jnp.where(init, CWR, ca))
    # cong_control: PRR while reducing, the law's increase in Open
    reducing = ack & (ca != OPEN)
    cw_prr, prr_new = cwnd_reduction(
        ssthresh, prior, prr_del, recover, ev, ns3 & (ca != OPEN), ns3 & (ca == RECOVERY)
    )
    open_ack = ack & (ca == OPEN) & ~counting
    cwnd = jnp.where(reducing, cw_prr, increase(cwnd, ssthresh, open_ack))
    if dupthresh > 1:  # before the threshold in Open: one packet per ACK, the lost ones still in ns-3's pipe
        cwnd = jnp.where(counting & ~loss & ack & (ca == OPEN), infl_after + 1.0, cwnd)
    prr_del = jnp.where(reducing, prr_new, prr_del)
    # retransmission timeout
    to = jnp.asarray(ev.timeout)
    ssthresh = jnp.where(to, timeout_target(cwnd), ssthresh).astype(FLOAT)
    cwnd = jnp.where(to, 1.0, cwnd).astype(FLOAT)
    recover = jnp.where(to, ev.snd_nxt, recover)
    ca = jnp.where(to, OPEN, ca)
    pending = {"dupacks": jnp.asarray(jnp.where(to, 0, dups), INT)} if dupthresh > 1 else {}
    return {
        **pending,
        "cwnd": cwnd,
        "ssthresh": ssthresh,
        "recover": jnp.asarray(recover, INT),
        "ca": jnp.asarray(ca, INT),
        "prior_cwnd": prior,
        "prr_delivered": jnp.asarray(prr_del, INT),
        "entered": init,
        "open_ack": open_ack,
    }
