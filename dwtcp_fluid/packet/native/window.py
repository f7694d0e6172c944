# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The window laws of the native loop: :class:`~..laws.dctcp.Dctcp`, :class:`~..laws.d2tcp.D2tcp` and
:class:`~..laws.reno.Reno` under every sender rule of :mod:`..laws.recovery`, one event of one flow in the
reference's float32 operations. D2TCP's penalty α^d is float32 ``pow``, the function XLA:CPU calls (checked equal
on random inputs; under XLA's flush-to-zero mode a subnormal α^d or α^d/2 reads as 0, as :func:`.core.ftz32` makes
it here)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..laws.recovery import NS3_SEGMENT
from .core import (
    ALPHA,
    CA,
    CWND,
    D_MAX,
    D_MIN,
    DEADLINE,
    DUPACKS,
    F0,
    F1,
    HALF,
    JIT,
    KIND,
    LAW_D2TCP,
    LAW_DCTCP,
    M32,
    MIN_CWND,
    NACK,
    NEVER,
    NMARK,
    NS,
    NX,
    NXT,
    OPT,
    PRIOR,
    PRRDEL,
    RECOVER,
    RED,
    RTT,
    SIZE,
    SSTH,
    TWO,
    UNA,
    WINEND,
    G,
    fma32,
    ftz32,
)  # fmt: skip

__all__ = ["window_law"]

_NS3_SEG, _NS3_SEG2 = np.float32(NS3_SEGMENT), np.float32(NS3_SEGMENT * NS3_SEGMENT)
# the sender rule (``sc[RED]``, :data:`..laws.recovery.REDUCTIONS` order) and the congestion states
RED_PRR, RED_IMMEDIATE, RED_HOLD, RED_NS3 = 0, 1, 2, 3
CA_OPEN, CA_CWR, CA_RECOVERY = 0, 1, 2
#: Bits of ``sc[OPT]`` for a window law: Reno's ``ecn`` (DCTCP and D2TCP: set), ``loss_entry="dupack3"``,
#: DCTCP's ``ai_count="floor"``, Reno's ``lost_retransmit="rto"`` (run by the loop, :func:`.loop._rtx`).
OPT_ECN, OPT_DUPACK3, OPT_AI_FLOOR, OPT_RTO_RTX = 1, 2, 4, 8


_Q3 = np.float32(0.75)


@njit(**JIT)
def penalty(S: Any, lp: Any, kind: int, f: int, t: int, alpha: Any, cw: Any) -> Any:
    """The fraction p of the echo's cut W(1 − p/2) at window ``cw``: α (DCTCP), or D2TCP's α^d."""
    return alpha if kind != LAW_D2TCP else _d2tcp_penalty(S, lp, f, t, alpha, cw)


@njit(**JIT)
def _d2tcp_penalty(S: Any, lp: Any, f: int, t: int, alpha: Any, cw: Any) -> Any:
    """α^d with d the deadline imminence (:meth:`~..laws.d2tcp.D2tcp.penalty`); α without a
    deadline."""
    size, dl = S[f * NS + SIZE], S[f * NS + DEADLINE]
    if not (dl < NEVER and size < 2**30):
        return alpha
    tc = np.float32(max(size - S[f * NS + UNA], 0)) / (_Q3 * cw) * np.float32(S[f * NS + RTT])
    D = np.float32(dl) - np.float32(t)
    d = tc / D if D > F0 else lp[D_MAX]
    d = min(max(d, lp[D_MIN]), lp[D_MAX])
    return alpha if d == F1 else ftz32(alpha**d)


@njit(**JIT)
def prr(S: Any, X: Any, lp: Any, f: int, ack: bool, mark: bool, nloss: int, timeout: bool, k: int, ece_ok: bool,
         dctcp: bool, ns3: bool, kind: int, t: int, dupthresh: int, ai_floor: bool) -> None:  # fmt: skip
    """:func:`..laws.recovery.prr_step` (with :func:`..laws.recovery.cwnd_reduction`) for DCTCP (``dctcp``: the
    echo's target W(1 − α/2), Recovery resets ssthresh) or Reno (``ece_ok``: its ``ecn`` option; under ``ns3``
    its targets are taken of the packets in flight, ``flight_target``), ``ns3``: the episodes of ``"ns3-prr"``,
    ``dupthresh``: the duplicate ACK that starts Recovery (``loss_entry``), ``ai_floor``: the increase counts
    against ⌊cwnd⌋ (``ai_count="floor"``), in the reference's float32 operations."""
    cw, ssth, ca, rec = X[f * NX + CWND], X[f * NX + SSTH], S[f * NS + CA], S[f * NS + RECOVER]
    una, snd_nxt = S[f * NS + UNA], S[f * NS + NXT]
    if ack and ((ca == CA_CWR and una > rec) or (ca == CA_RECOVERY and una >= rec)):
        cw, ca = ssth, CA_OPEN
    loss = nloss > 0
    counting = False
    if dupthresh > 1:  # duplicate ACKs since the report, the report the first
        dups = S[f * NS + DUPACKS]
        counting = dups > 0 or (loss and ca != CA_RECOVERY)
        if counting and (ack or loss):
            dups += 1
        loss = counting and dups >= dupthresh
        S[f * NS + DUPACKS] = 0 if loss or timeout else dups
    to_rec = loss and ca != CA_RECOVERY
    init = ca == CA_OPEN and (to_rec or (ack and mark and ece_ok))
    infl_after = np.float32(max(snd_nxt - una, 1))
    if init or (to_rec and dctcp):
        if to_rec or not dctcp:
            ssth = max((infl_after if ns3 and not dctcp else cw) * HALF, lp[MIN_CWND])
        else:
            pen = penalty(S, lp, kind, f, t, X[f * NX + ALPHA], cw)
            ssth = max(cw * (F1 - ftz32(pen * HALF)), lp[MIN_CWND])
    if init and ns3:
        X[f * NX + PRIOR], S[f * NS + PRRDEL], rec = infl_after, 0 if to_rec else k + 1, snd_nxt
    elif init:
        X[f * NX + PRIOR], S[f * NS + PRRDEL], rec = cw, 0, snd_nxt
    if to_rec:
        ca = CA_RECOVERY
    elif init:
        ca = CA_CWR
    if ack and ca != CA_OPEN:
        infl = snd_nxt - una
        # ns-3's duplicate-ACK credit in Recovery while prr_delivered < RecoverFS (recovery.cwnd_reduction)
        kd = k + (
            1 if ns3 and ca == CA_RECOVERY and np.float32(S[f * NS + PRRDEL]) < X[f * NX + PRIOR] else 0
        )
        pd = S[f * NS + PRRDEL] + kd
        pout = snd_nxt - rec
        delta = ssth - np.float32(infl)
        if delta < F0:
            if ns3:  # uint32 byte product, wrapping modulo 2^32 (recovery.cwnd_reduction)
                ss_b = np.int64(np.float32(ssth * _NS3_SEG))
                wrapped = (np.int64(pd) * np.int64(NS3_SEGMENT) * ss_b) & np.int64(M32)
                quot = np.float32(np.float32(wrapped) / np.float32(X[f * NX + PRIOR] * _NS3_SEG2))
            else:
                quot = np.float32(np.ceil(np.float32(ssth * np.float32(pd) / X[f * NX + PRIOR])))
            snd = quot - np.float32(pout)
        else:
            snd = min(delta, np.float32(max(pd - pout, kd) + (1 if nloss == 0 and not ns3 else 0)))
        snd = max(snd, F0 if pout > 0 else F1)
        cw = np.float32(infl) + snd
        S[f * NS + PRRDEL] = pd
    elif ack and counting and not loss:  # before the threshold: one packet per ACK
        cw = infl_after + F1
    elif ack:
        kf = np.float32(k)
        cw = cw + (kf if cw < ssth else kf / (max(np.float32(np.floor(cw)), F1) if ai_floor else cw))
    if timeout:
        ssth, cw, rec, ca = max(cw * HALF, TWO), F1, snd_nxt, CA_OPEN
    X[f * NX + CWND], X[f * NX + SSTH], S[f * NS + CA], S[f * NS + RECOVER] = cw, ssth, ca, rec


@njit(**JIT)
def window_law(
    S: Any, X: Any, lp: Any, sc: Any, f: int, t: int, ack: bool, mark: bool, nloss: int, timeout: bool, k: int
) -> None:
    """One event of :class:`~..laws.dctcp.Dctcp`, :class:`~..laws.d2tcp.D2tcp` or :class:`~..laws.reno.Reno`
    (option ``ecn``) in slot ``t`` under the
    sender rule ``sc[RED]`` (option ``reduction``) for flow ``f``, in the reference's float32 operations (``k``:
    packets the ACK acknowledges)."""
    cw, snd_nxt = X[f * NX + CWND], S[f * NS + NXT]
    loss = nloss > 0
    # base.window_closed (above= under "hold")
    una, rec = S[f * NS + UNA], S[f * NS + RECOVER]
    open_ = una > rec if sc[RED] == RED_HOLD else una >= rec
    opt = (sc[OPT] & OPT_ECN) != 0
    hold = sc[RED] == RED_HOLD
    kind = sc[KIND]
    dctcp = kind == LAW_DCTCP or kind == LAW_D2TCP
    if dctcp:
        kk = k if ack else 0
        na, nm = S[f * NS + NACK] + kk, S[f * NS + NMARK] + (kk if mark else 0)
        if ack and S[f * NS + UNA] >= S[f * NS + WINEND]:
            frac = np.float32(nm) / np.float32(max(na, 1))
            X[f * NX + ALPHA] = ftz32(fma32(F1 - lp[G], X[f * NX + ALPHA], ftz32(lp[G] * frac)))
            S[f * NS + WINEND] = snd_nxt
            na, nm = 0, 0
        S[f * NS + NACK], S[f * NS + NMARK] = na, nm
    if sc[RED] == RED_PRR or sc[RED] == RED_NS3:
        dupthresh = 3 if sc[OPT] & OPT_DUPACK3 else 1
        ai_floor = (sc[OPT] & OPT_AI_FLOOR) != 0
        prr(S, X, lp, f, ack, mark, nloss, timeout, k, dctcp or opt, dctcp, sc[RED] == RED_NS3, kind, t, dupthresh,
            ai_floor)  # fmt: skip
        return
    if dctcp:
        react = (ack and mark and (not loss) and open_) or (loss and open_)
        grow = ack and not loss and (open_ or not hold)
        pen = penalty(S, lp, kind, f, t, X[f * NX + ALPHA], cw)
        cut = cw * HALF if loss and open_ else cw * (F1 - ftz32(pen * HALF))
    else:
        congestion = (loss or (ack and mark)) if opt else loss
        react = congestion and open_
        grow = ack and not congestion and (open_ or not hold)
        cut = cw * HALF
    new = cw
    if react:
        new = max(cut, lp[MIN_CWND])
        X[f * NX + SSTH] = new
        S[f * NS + RECOVER] = snd_nxt
    elif grow:
        kf = np.float32(k)
        ai_floor = (sc[OPT] & OPT_AI_FLOOR) != 0
        new = cw + (
            kf if cw < X[f * NX + SSTH] else kf / (max(np.float32(np.floor(cw)), F1) if ai_floor else cw)
        )
    if timeout:
        X[f * NX + SSTH] = max(cw * HALF, TWO)
        new = F1
        S[f * NS + RECOVER] = snd_nxt
    X[f * NX + CWND] = new
