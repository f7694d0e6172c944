# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""Swift in the native loop (a window on a target delay): one event of :class:`~..laws.swift.Swift` (its ``step``, with
:func:`~..laws.swift.target_delay` and ``_aimd``) for one flow, both options, in the reference's float32 operations.

XLA rewrites the flow scaling's a/√w and 1/√fs_min into ``rsqrt``, which XLA:CPU computes from the CPU's
approximate reciprocal square root refined by Newton steps (:func:`.core.rsqrt32`); the multiply-adds it contracts
are :func:`.core.fma32` here: the target's base_target + hops·h, the scaling a·rsqrt(w) − a·rsqrt(fs_max), the
increase below one packet w + ai·n and the srtt average 0.875·srtt + 0.125·sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import (
    ALPHA,
    CWND,
    DET,
    ECWND,
    F0,
    F1,
    JIT,
    NS,
    NX,
    OPT,
    PRATE,
    RETX,
    RTT,
    RTTEST,
    SW_AI,
    SW_BASE_TARGET,
    SW_BETA,
    SW_ENDPOINT_TARGET,
    SW_FS_MAX,
    SW_FS_MIN,
    SW_FS_RANGE,
    SW_H,
    SW_HOPS,
    SW_MAX_CWND,
    SW_MAX_MDF,
    SW_MIN_CWND,
    SW_RETX_RESET,
    fma32,
    rsqrt32,
)  # fmt: skip

__all__ = ["swift_step", "option_bits", "SRTT", "TOTAL"]

#: Bits of ``sc[OPT]`` for Swift's options (defaults: 0): one window on the whole RTT, the srtt estimate.
TOTAL, SRTT = 1, 2
_W_EPS, _D_EPS, _R_EPS = np.float32(1e-9), np.float32(1e-6), np.float32(1e-6)
_SEVEN8, _ONE8 = np.float32(0.875), np.float32(0.125)


def option_bits(law: Any) -> int:
    """``sc[OPT]`` of a :class:`~..laws.swift.Swift`."""
    return (TOTAL if law.split == "total" else 0) | (SRTT if law.md_rtt == "srtt" else 0)


@njit(**JIT)
def _aimd(lp: Any, w: Any, n: Any, delay: Any, target: Any, can_dec: bool) -> Any:
    """One ACK of [Swift] Algorithm 1 on window ``w`` (``_aimd`` of :mod:`..laws.swift`)."""
    if delay < target:
        if w >= F1:
            return w + lp[SW_AI] * n / max(w, _W_EPS)
        return fma32(lp[SW_AI], n, w)
    if not can_dec:
        return w
    return w * max(F1 - lp[SW_BETA] * (delay - target) / max(delay, _D_EPS), F1 - lp[SW_MAX_MDF])


@njit(**JIT)
def _bound(lp: Any, w: Any, hit: bool, cut: Any, reset: bool) -> Any:
    """A loss or timeout's cut, the reset after ``retx_reset`` timeouts, the clamp to [min_cwnd, max_cwnd]."""
    w = w * cut if hit else w
    w = lp[SW_MIN_CWND] if reset else w
    return min(max(w, lp[SW_MIN_CWND]), lp[SW_MAX_CWND])


@njit(**JIT)
def swift_step(
    S: Any,
    X: Any,
    lp: Any,
    sc: Any,
    f: int,
    t: int,
    ack: bool,
    nloss: int,
    timeout: bool,
    k: int,
    sample: Any,
) -> None:
    """One event of flow ``f``: ``k`` packets acknowledged by a data ACK (``ack``) with RTT sample ``sample``,
    ``nloss`` losses it reports, or a retransmission timeout."""
    b, x = f * NS, f * NX
    opt = sc[OPT]
    n = np.float32(k) if ack else F0
    est0 = X[x + RTTEST]
    first = est0 <= F0
    if opt & SRTT and not first:
        est = fma32(_SEVEN8, est0, _ONE8 * sample)
    else:
        est = sample
    rtt_est = est if ack else est0
    rtt = np.float32(S[b + RTT])
    guard = rtt if first else est0
    can_dec = np.float32(np.int32(t - S[b + DET])) >= guard
    w0, e0 = X[x + ALPHA], X[x + ECWND]
    rs_max = rsqrt32(lp[SW_FS_MAX])
    a = lp[SW_FS_RANGE] / (rsqrt32(lp[SW_FS_MIN]) - rs_max)
    fs = min(max(fma32(a, rsqrt32(max(w0, _W_EPS)), -(a * rs_max)), F0), lp[SW_FS_RANGE])
    target = fma32(lp[SW_HOPS], lp[SW_H], lp[SW_BASE_TARGET]) + fs
    w = _aimd(lp, w0, n, sample, target, can_dec) if ack else w0
    hit = nloss > 0 or timeout
    retx = S[b + RETX] + 1 if timeout else (0 if ack else S[b + RETX])
    cut = F1 - lp[SW_MAX_MDF] if can_dec else F1
    reset = timeout and np.float32(retx) >= lp[SW_RETX_RESET]
    w = _bound(lp, w, hit, cut, reset)
    if opt & TOTAL:
        e = w
    else:  # the endpoint window on the endpoint delay (0: no host queue in this engine)
        e = _aimd(lp, e0, n, F0, lp[SW_ENDPOINT_TARGET], can_dec) if ack else e0
        e = _bound(lp, e, hit, cut, reset)
    eff = min(w, e)
    if eff < min(w0, e0):
        S[b + DET] = t
    gap = rtt_est if rtt_est > F0 else rtt
    rate = F1 if eff >= F1 else eff / max(gap, F1)
    X[x + CWND], X[x + PRATE] = max(eff, F1), min(max(rate, _R_EPS), F1)
    X[x + ALPHA], X[x + ECWND], X[x + RTTEST] = w, e, rtt_est
    S[b + RETX] = retx
