# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""DWTCP's Scouts in the native loop: the sender's bookkeeping (:func:`..scouts.scout_receive`), a Scout sent into
the drop-tail low-priority queue (:func:`..events._scout_send`), an idle slot serving the queue
(:func:`..receiver.serve_scouts`) and the Scout part of a flow's next timer (:func:`..wheels._wake_due`), in the
reference's integer and float32 operations."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import (
    ACKED,
    F0,
    JIT,
    NEVER,
    NS,
    NX,
    RTT,
    SBUF,
    SCOUTS,
    SDROPPED,
    SDT,
    SIZE,
    SLDELAY,
    SLGAP,
    SLOST,
    SLOSTC,
    SLOSTN,
    SLRCV,
    SOKC,
    SQN,
    SSENT,
    SSERVED,
    START,
    STOP,
    SUNACK,
    SWAIT,
    active,
)  # fmt: skip
from .rings import insert_ack

__all__ = ["scout_receive", "scout_send", "serve_scouts", "scout_wake"]

SCOUT_FLAG = 2  # :data:`..wheels.SCOUT_BIT`


@njit(**JIT)
def scout_receive(S: Any, X: Any, cnt: Any, f: int, t: int, n: int, seqp1: int) -> tuple:
    """This event's Scout ACKs (``n`` of them, the largest number ``seqp1`` − 1) and Scout timeout for flow
    ``f``: the new bookkeeping, and the law's inputs ``(n_ok, n_lost, d_s, ipg_s, wait_from)``."""
    sent, unacked, lost_upto = S[f * NS + SSENT], S[f * NS + SUNACK], S[f * NS + SLOST]
    start, period, d_t = S[f * NS + START], S[f * NS + SCOUTS], X[f * NX + SDT]
    got = n > 0
    s = seqp1 - 1
    delay = np.float32(t - (start + s * period))
    fresh = got and s >= lost_upto
    span = s - lost_upto + 1
    n_ok = min(n, span) if fresh and delay <= d_t else 0
    n_lost = (span if fresh else 0) - n_ok
    if fresh:
        lost_upto = s + 1
    if got:
        unacked = max(unacked, s + 1)
        X[f * NX + SLDELAY] = delay
        X[f * NX + SLGAP] = np.float32(t - S[f * NS + SLRCV])
        S[f * NS + SLRCV] = t
    # the oldest unclassified Scout older than d_t is lost (sends are ≥ 1 slot apart: at most one per slot)
    if lost_upto < sent and np.float32(t - (start + lost_upto * period)) > d_t:
        n_lost += 1
        lost_upto += 1
    waiting = np.float32(t - (start + unacked * period)) if unacked < sent else F0
    d_s = max(X[f * NX + SLDELAY], waiting)
    ipg_s = max(X[f * NX + SLGAP], np.float32(t - S[f * NS + SLRCV]))
    S[f * NS + SUNACK], S[f * NS + SLOST] = unacked, lost_upto
    S[f * NS + SOKC] += n_ok
    S[f * NS + SLOSTC] += n_lost
    cnt[SLOSTN] += n_lost
    wait = start + unacked * period if unacked < sent else NEVER
    return n_ok, n_lost, d_s, ipg_s, wait


@njit(**JIT)
def scout_send(S: Any, cnt: Any, sq: Any, sc: Any, f: int, t: int) -> None:
    """Flow ``f`` sends Scout ``s_sent`` in its slot start + s·P (P = ``S[SCOUTS]``, its Scout period), into the
    drop-tail Scout queue."""
    if (
        S[f * NS + SCOUTS] != 0
        and active(S, f, t)
        and t == S[f * NS + START] + S[f * NS + SSENT] * S[f * NS + SCOUTS]
    ):
        if cnt[SQN] < sc[SBUF]:
            sq[cnt[SQN] * 2], sq[cnt[SQN] * 2 + 1] = f, S[f * NS + SSENT]
            cnt[SQN] += 1
        else:
            cnt[SDROPPED] += 1
        S[f * NS + SSENT] += 1


@njit(**JIT)
def serve_scouts(S: Any, cnt: Any, sq: Any, ackw: Any, R: int, La: int, t: int) -> int:
    """An idle slot serves every queued Scout (their slots in the queue summed in ``SWAIT``); each Scout ACK returns
    one base RTT later. Returns the spill."""
    spill = 0
    for i in range(cnt[SQN]):
        f = sq[i * 2]
        cnt[SWAIT] += t - (S[f * NS + START] + sq[i * 2 + 1] * S[f * NS + SCOUTS])
        spill += insert_ack(ackw, R, La, t + S[f * NS + RTT], f, SCOUT_FLAG, 0, sq[i * 2 + 1], t)
    cnt[SSERVED] += cnt[SQN]
    cnt[SQN] = 0
    return spill


@njit(**JIT)
def scout_wake(S: Any, X: Any, f: int, t: int, w: int) -> int:
    """``w`` or flow ``f``'s next Scout send or Scout timeout, whichever is first."""
    start, period = S[f * NS + START], S[f * NS + SCOUTS]
    nxt = start + S[f * NS + SSENT] * period
    if (
        S[f * NS + SCOUTS] != 0
        and nxt < S[f * NS + STOP]
        and S[f * NS + ACKED] < S[f * NS + SIZE]
        and nxt > t
    ):
        w = min(w, nxt)
    if S[f * NS + SLOST] < S[f * NS + SSENT]:
        old = start + S[f * NS + SLOST] * period + np.int64(np.floor(X[f * NX + SDT])) + 1
        w = min(w, max(old, t + 1))
    return w
