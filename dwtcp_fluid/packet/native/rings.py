# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The rings of the native loop: filing an ACK in the ACK wheel (:func:`..wheels.insert_ack`; :func:`ack_entry` and
:func:`fill_ack` for an ACK with telemetry beside it, :func:`.int_law.file_ack_int`) and arming a flow's
timer in the timer wheel or its overflow list (:func:`..wheels.arm`), kept as the reference keeps them."""

from __future__ import annotations

from typing import Any

from numba import njit

from .core import DENSE, JIT, NEVER, NS, OVN, TWLOST, TWOVER, WAKE

__all__ = ["ack_entry", "fill_ack", "insert_ack", "arm"]


@njit(**JIT)
def ack_entry(ackw: Any, R: int, La: int, s: int) -> tuple[int, int]:
    """The entry (row·La + lane) where an ACK arriving in slot ``s`` is filed: the first free lane of its row, or
    of a later row when the row is full; and the slot of that row."""
    s1 = s
    while True:
        rb = (s1 & (R - 1)) * La
        lane = 0
        while lane < La and ackw[(rb + lane) * 6] == s1:
            lane += 1
        if lane < La:
            return rb + lane, s1
        s1 += 1


@njit(**JIT)
def fill_ack(ackw: Any, e: int, s1: int, f: int, flags: int, nloss: int, n: int, sent: int) -> None:
    """Write an ACK into entry ``e`` of the ACK wheel (stamp ``s1``)."""
    ackw[e * 6], ackw[e * 6 + 1], ackw[e * 6 + 2] = s1, f, flags
    ackw[e * 6 + 3], ackw[e * 6 + 4], ackw[e * 6 + 5] = nloss, n, sent


@njit(**JIT)
def insert_ack(ackw: Any, R: int, La: int, s: int, f: int, flags: int, nloss: int, n: int, sent: int) -> int:
    """File an ACK (or Scout ACK: ``n`` is its number) arriving in slot ``s`` in the first free lane of its row;
    a full row pushes it to the next slot. Returns the slots it was pushed by (the reference's ``spill``)."""
    e, s1 = ack_entry(ackw, R, La, s)
    fill_ack(ackw, e, s1, f, flags, nloss, n, sent)
    return s1 - s


@njit(**JIT)
def arm(tw: Any, ov: Any, cnt: Any, S: Any, f: int, t: int, w: int, Rt: int, Lt: int, pace: bool) -> None:
    """Make sure flow ``f`` is woken by slot ``w`` (:data:`.core.NEVER`: no need); an earlier live entry is kept,
    a timer beyond the wheel is re-armed at its last row, a full wheel row goes to the overflow list. With pacing
    (``pace``) an entry of the flow already in the row is kept instead of a copy (:func:`..wheels.arm`)."""
    wk = S[f * NS + WAKE]
    live = wk > t and wk < NEVER
    if not (w < NEVER and ((not live) or w < wk)):
        return
    slot = min(w, t + (Rt - 1))
    rb = (slot & (Rt - 1)) * Lt
    lane, dup = 0, False
    while lane < Lt and tw[(rb + lane) * 2] == slot:
        dup = dup or (pace and tw[(rb + lane) * 2 + 1] == f)
        lane += 1
    if dup:
        pass
    elif lane < Lt:
        tw[(rb + lane) * 2], tw[(rb + lane) * 2 + 1] = slot, f
    else:
        cnt[TWOVER] += 1
        if cnt[OVN] < ov.shape[0] // 2:
            ov[cnt[OVN] * 2], ov[cnt[OVN] * 2 + 1] = slot, f
            cnt[OVN] += 1
            cnt[DENSE] = min(cnt[DENSE], slot)
        else:
            cnt[TWLOST] += 1
    S[f * NS + WAKE] = slot
