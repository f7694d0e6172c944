# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""Pacing in the native loop: a rate-based law's flow sends on the fractional schedule of
:func:`..wheels.pace_schedule` at 1/min(access, rate) slots between sends (:func:`..wheels._pace_inv`), or, for an
open-loop sender with Poisson arrivals, after a geometric gap 1 + ⌊ln(1 − u)/ln(1 − p)⌋; it may send in a slot when
:func:`..wheels.pace_due` says so, and is woken when its next send comes due (:func:`..wheels._wake_due`), in the
reference's int32 and float32 operations.

The gap's ln(1 − x) is XLA:CPU's ``log1p`` as it compiles it (:func:`log1p_neg`): below √2 − 1 Cephes' rational
approximation x − x²/2 + x³·P(x)/Q(x), above it ln(1 + x) by XLA's ``log`` (:func:`.xla_math.log32`);
the multiply-adds XLA contracts are :func:`.core.fma32` here, so the loop computes on every CPU what XLA computes
on one with FMA (checked equal on every 24-bit uniform draw)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import ACCESS, F0, F1, GEO, HALF, JIT, NS, NSFRAC, NSINT, NX, PRATE, READY, SEED, fma32, uniform4
from .xla_math import log32

__all__ = ["pace_ok", "pace_send", "pace_wake", "log1p_neg"]

_EPS = np.float32(1e-6)
_QMAX = np.float32(1.0 - 1e-6)
_GAP = 5  # :data:`..wheels._GAP`, the purpose of the gap draws


def _f(bits: int) -> np.float32:
    return np.array([bits], np.uint32).view(np.float32)[0]


_TINY, _SMALL = _f(0x00800000), _f(0x3ED413CD)
# Cephes' log1p: denominator and numerator coefficients, highest order first (leading 1 and 4.527e-5)
_Q = np.array([_f(b) for b in (0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982)])
_P = np.array([_f(b) for b in (0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD, 0x41A05101)])
_P0 = np.float32(4.527e-05)


@njit(**JIT)
def log1p_neg(u: Any) -> Any:
    """ln(1 − u) for 0 ≤ u < 1 as XLA:CPU computes ``log1p(-u)`` in float32 (the module docstring)."""
    large = log32(max(F1 - u, _TINY))  # large |x|: ln(1 − u)
    # small |x| (x = −u): x + (−x²/2 + x³·P(x)/Q(x))
    q, p = F1, _P0
    for k in range(6):
        q = fma32(-u, q, _Q[k])
        p = fma32(-u, p, _P[k])
    x2 = u * u
    small = fma32(x2, -HALF, (x2 * -u) * (p / q)) - u
    return small if u < _SMALL else large


@njit(**JIT)
def pace_ok(S: Any, X: Any, f: int, t: int) -> bool:
    """:func:`..wheels.pace_due`: the flow's next send, due at slot ``ns_int`` + ``ns_frac``, may happen in ``t``."""
    ns = S[f * NS + NSINT]
    return ns < t or (ns == t and X[f * NX + NSFRAC] <= _EPS)


@njit(**JIT)
def pace_send(S: Any, X: Any, lp: Any, sc: Any, f: int, t: int) -> None:
    """:func:`..wheels.pace_schedule` after a send in slot ``t``: the schedule is kept while the flow keeps up
    with it, restarted from ``t`` after an idle spell of more than one slot."""
    ns_i, ns_f = S[f * NS + NSINT], X[f * NX + NSFRAC]
    p = min(lp[ACCESS], max(X[f * NX + PRATE], _EPS))
    if S[f * NS + GEO] != 0:
        u = uniform4(sc[SEED], t, f, _GAP)
        inv = F1 + np.float32(np.floor(log1p_neg(u) / log1p_neg(min(p, _QMAX))))
    else:
        inv = F1 / p
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
