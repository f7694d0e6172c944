# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The rate laws of the native loop: :class:`~..laws.timely.Timely` and :class:`~..laws.timely_patched.TimelyPatched`,
one event of one flow (their ``step``, with :func:`~..laws.timely.timely_measure` and
:func:`~..laws.timely.thresholds`), and the RTT sample of a data ACK (:func:`..events._ack`: send slot to ACK slot
plus the scenario's measurement noise, uniform or Gaussian), in the reference's float32 operations.

The multiply-adds XLA contracts are written as :func:`.core.fma32`: the gradient average (1 − α)·rtt_diff + α·new,
the factors 1 − β·x of the T_high and gradient decreases, TIMELY's additive step rate + n·δ, Patched TIMELY's
1 − (β·w)·err and δ·(1 − w) + rate·(…), and the noisy sample (t − sent) + x·u (u uniform or normal). A subnormal gradient average or
gradient is flushed to zero as XLA:CPU does (:func:`.core.ftz32`): without RTT changes the average decays by
1 − α per completion event into the subnormal range, and a flushed gradient is non-positive.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import (
    ALPHA,
    DELTA,
    F0,
    F1,
    GRAD,
    HAI_AFTER,
    HAI_N,
    HALF,
    JIT,
    LAW_TIMELY,
    MIN_RTT,
    NEGCNT,
    NOISE_UNIFORM,
    NS,
    NX,
    PRATE,
    PREVRTT,
    RATE_MIN,
    RTT_NOISE,
    RTT_REF,
    RTTDIFF,
    SEED,
    SEG,
    SEGACK,
    SERIAL,
    T_ALPHA,
    T_BETA,
    T_HIGH,
    T_LOW,
    TWO,
    fma32,
    ftz32,
    uniform5,
)  # fmt: skip
from .gauss import gauss32

__all__ = ["rtt_sample", "rate_step"]

_EPS = np.float32(1e-6)
_NOISE = 3  # :data:`..wheels._NOISE`, the purpose of the noise draws


@njit(**JIT)
def rtt_sample(sc: Any, lp: Any, f: int, t: int, sent: int) -> Any:
    """The RTT sample (slots) of flow ``f``'s data ACK arriving in slot ``t`` for a packet sent in slot ``sent``:
    at least 1, with noise x·u keyed by (seed, slot, flow), u uniform in [0, 1) (``sc[NOISE_UNIFORM]`` 1) or
    standard normal (2, :func:`.gauss.gauss32`); without noise (0) the reference adds 0·u, a zero."""
    sample = np.float32(t - sent)
    if sc[NOISE_UNIFORM] == 1:
        sample = fma32(lp[RTT_NOISE], uniform5(sc[SEED], t, f, _NOISE, 2), sample)
    elif sc[NOISE_UNIFORM] == 2:
        sample = fma32(lp[RTT_NOISE], gauss32(sc[SEED], t, f), sample)
    return max(sample, F1)


@njit(**JIT)
def rate_step(S: Any, X: Any, lp: Any, kind: int, f: int, ack: bool, k: int, sample: Any) -> None:
    """One event of flow ``f``: ``k`` packets acknowledged by a data ACK (``ack``) with RTT sample ``sample``.
    Every ``seg`` acknowledged packets (a completion event) the rate moves by Algorithm 1 of [TIMELY]
    (``kind`` :data:`.core.LAW_TIMELY`) or by the patch's gradient weight ([PROXY] §2.2)."""
    b, x = f * NS, f * NX
    acked = S[b + SEGACK] + (k if ack else 0)
    if not (ack and np.float32(acked) >= lp[SEG]):
        S[b + SEGACK] = acked
        return
    rtt = max(sample - lp[SERIAL], F0)
    prev = X[x + PREVRTT]
    new_diff = F0 if prev <= F0 else rtt - prev
    a = lp[T_ALPHA]
    diff = ftz32(fma32(F1 - a, X[x + RTTDIFF], ftz32(a * new_diff)))
    g = ftz32(diff / lp[MIN_RTT])
    X[x + PREVRTT], X[x + RTTDIFF], X[x + GRAD], S[b + SEGACK] = max(rtt, _EPS), diff, g, 0
    rate, beta = X[x + ALPHA], lp[T_BETA]
    low, high = rtt < lp[T_LOW], rtt > lp[T_HIGH]
    if low:
        new = rate + lp[DELTA]
    elif high:
        new = rate * fma32(-beta, F1 - lp[T_HIGH] / max(rtt, _EPS), F1)
    elif kind == LAW_TIMELY:
        if g <= F0:
            n = S[b + NEGCNT] + 1
            step = lp[HAI_N] if np.float32(n) >= lp[HAI_AFTER] else F1
            new = fma32(step, lp[DELTA], rate)
        else:
            new = rate * fma32(-beta, g, F1)
    else:
        w = min(max(fma32(TWO, g, HALF), F0), F1)
        err = (rtt - lp[RTT_REF]) / lp[RTT_REF]
        new = fma32(lp[DELTA], F1 - w, rate * fma32(-(beta * w), err, F1))
    if kind == LAW_TIMELY and not low:  # the HAI count follows the gradient branch; T_high resets it
        S[b + NEGCNT] = S[b + NEGCNT] + 1 if (not high and g <= F0) else 0
    X[x + ALPHA] = min(max(lp[RATE_MIN], new), F1)
    X[x + PRATE] = X[x + ALPHA]
