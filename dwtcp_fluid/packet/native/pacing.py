# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""Pacing in the native loop: a rate-based law's flow sends on the fractional schedule of
:func:`..wheels.pace_schedule` at 1/min(access, rate) slots between sends (:func:`..wheels._pace_inv`), may send in a
slot when :func:`..wheels.pace_due` says so, and is woken when its next send comes due
(:func:`..wheels._wake_due`), in the reference's int32 and float32 operations."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import ACCESS, ALPHA, F0, F1, JIT, NS, NSFRAC, NSINT, NX, READY

__all__ = ["pace_ok", "pace_send", "pace_wake"]

_EPS = np.float32(1e-6)


@njit(**JIT)
def pace_ok(S: Any, X: Any, f: int, t: int) -> bool:
    """:func:`..wheels.pace_due`: the flow's next send, due at slot ``ns_int`` + ``ns_frac``, may happen in ``t``."""
    ns = S[f * NS + NSINT]
    return ns < t or (ns == t and X[f * NX + NSFRAC] <= _EPS)


@njit(**JIT)
def pace_send(S: Any, X: Any, lp: Any, f: int, t: int) -> None:
    """:func:`..wheels.pace_schedule` after a send in slot ``t``: the schedule is kept while the flow keeps up
    with it, restarted from ``t`` after an idle spell of more than one slot."""
    ns_i, ns_f = S[f * NS + NSINT], X[f * NX + NSFRAC]
    inv = F1 / min(lp[ACCESS], max(X[f * NX + ALPHA], _EPS))
    idle = np.float32(t - ns_i) - ns_f >= F1
    base_i, base_f = (t, F0) if idle else (ns_i, ns_f)
    nf = base_f + inv
    whole = np.float32(np.floor(nf))
    S[f * NS + NSINT] = base_i + np.int64(np.int32(whole))
    X[f * NX + NSFRAC] = nf - whole


@njit(**JIT)
def pace_wake(S: Any, X: Any, f: int, t: int, w: int, open_next: bool) -> int:
    """``w`` or the slot the flow's next send comes due, if it waits only for its pacing (its window is open in
    slot ``t`` + 1, ``open_next``, and it is not in the ready list)."""
    if open_next and not pace_ok(S, X, f, t) and S[f * NS + READY] == 0:
        due = S[f * NS + NSINT] + (1 if X[f * NX + NSFRAC] > _EPS else 0)
        w = min(w, max(due, t + 1))
    return w
