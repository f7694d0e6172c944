# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""What every part of the native loop shares: the layout of its flat state arrays, and its arithmetic primitives.

A flow's int64 fields live at ``S[f·NS + field]``, its float32 fields at ``X[f·NX + field]`` (one flow in a few
cache lines); the scenario's scalars are ``sc[...]``, its counters ``cnt[...]``. :func:`fma32` and :func:`ftz32`
reproduce XLA:CPU's contracted multiply-add and flush-to-zero (:mod:`.loop`'s docstring says where).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .cache import INSTALLED as CACHE

__all__ = [
    "fma32",
    "ftz32",
    "rsqrt32",
    "borrow",
    "hash32",
    "uniform4",
    "uniform5",
    "active",
    "active_slots",
    "integrate",
    "NEVER",
    "JIT",
    "CACHE",
]

NEVER = 2**31 - 1
#: Law kinds (``sc[KIND]``: the run's law with state; ``S[LAWK]``: each flow's): TIMELY, Patched TIMELY and Swift
#: are rate-based (paced at their rate, RTT samples); an open-loop sender (paced at its fixed rate, on a fixed
#: schedule or with geometric gaps, ``S[GEO]``) and a Scout-only probe keep no state and run beside one such law;
#: HPCC and HPCC-PINT (:mod:`.int_law`) are paced at their rate and read the port's in-band telemetry.
LAW_DCTCP, LAW_RENO, LAW_DWTCP, LAW_D2TCP, LAW_TIMELY, LAW_TIMELY_PATCHED = 0, 1, 2, 3, 4, 5
LAW_SWIFT, LAW_OPEN, LAW_PROBE, LAW_HPCC, LAW_HPCC_PINT = 6, 7, 8, 9, 10
F0, F1, HALF, TWO = np.float32(0.0), np.float32(1.0), np.float32(0.5), np.float32(2.0)
TINY32 = np.float32(np.finfo(np.float32).tiny)  # 2⁻¹²⁶, the smallest normal float32
M32 = 0xFFFFFFFF
_2M24 = np.float32(1.0 / (1 << 24))
# fields of S (int64 per flow): the reference's engine fields, the law's integer state, the flow's inputs, the
# Scout bookkeeping (:mod:`..scouts`: Scouts sent, oldest unacknowledged, oldest unclassified, last Scout ACK slot),
# the flow's Scout period (0: no Scouts), DWTCP's last decrease, the flow's deadline slot; the pacing schedule's next
# slot (its integer part), a rate law's acknowledged packets of the current segment and its count of non-positive
# gradients; the flow's law kind and whether it paces with geometric gaps; Swift's consecutive timeouts (its last
# decrease is ``DET``, as DWTCP's)
INFL, NXT, UNA, ACKED, PEND, LAST, WAKE, TINT, DROPS, TMO, FINISH = range(11)
RECOVER, WINEND, NACK, NMARK, RTT, START, STOP, SIZE, READY, STARTED, CA, PRRDEL = range(11, 23)
SSENT, SUNACK, SLOST, SLRCV, SCOUTS, DET, DEADLINE, NSINT, SEGACK, NEGCNT, LAWK, GEO, RETX = range(23, 36)
# per-datapath Scouts (:func:`..events._datapath`): the flow's own Scout ACKs and losses (cumulative), the stream
# leader's ones it has taken, the flow whose stream it reads
SOKC, SLOSTC, SOKSEEN, SLOSTSEEN, LEAD = range(36, 41)
# a window law's duplicate ACKs since a reported loss (:func:`..laws.recovery.prr_step`, ``loss_entry``)
DUPACKS = 41
# a lost retransmission recovered by the timer only (``lost_retransmit="rto"``, :func:`..events._sent`): reported
# losses whose stand-in is not yet sent, stand-ins dropped, the timeout slot they arm, the slot of the last timeout
OWED, HOLES, RTXDL, GHOST = 42, 43, 44, 45
NS = 46
# fields of X (float32 per flow): window integrals, cwnd (the law's and the engine's mirror), ssthresh, the traced
# field (DCTCP's and DWTCP's α; a rate law's rate, packets per slot, which it also paces at), PRR's prior_cwnd; the
# last Scout delay and gap, the Scout target delay d_t (slots); the pacing schedule's fraction of a slot; a rate
# law's previous RTT, RTT-difference average and gradient; the rate the flow paces at (packets per slot; 1 for a
# window law); Swift's endpoint window and RTT estimate (its fabric window is the traced field)
CWINT, AUXINT, CWND, SSTH, ALPHA, PRIOR, SLDELAY, SLGAP, SDT, NSFRAC, PREVRTT, RTTDIFF, GRAD = range(13)
PRATE, ECWND, RTTEST = 13, 14, 15
NX = 16
# scenario scalars (``sc``): ... the pacing flag, and the RTT noise's draw (0 none, 1 uniform, 2 Gaussian)
KTH, MDEQ, BUFFER, RTO, SEED, NSLOTS, CHUNK, KIND, OPT, RED, HASSC, SBUF, PACE, NOISE_UNIFORM = range(14)
N_SC = 14
# law parameters (``lp``, float32); then the rate laws' (:func:`~..laws.timely.timely_params`, the patch's
# RTT_ref) and the scenario's RTT noise width and access rate
G, ALPHA0, INIT_CWND, MIN_CWND, BETA_P, S_OVER_L, K_T, ALPHA_MIN, ALPHA_MAX, SCOUT_WINDOW, D_MIN, D_MAX = (
    range(12)
)
T_ALPHA, T_BETA, DELTA, T_LOW, T_HIGH, MIN_RTT, SEG, HAI_N, HAI_AFTER, RATE_MIN, INIT_RATE, SERIAL = range(
    12, 24
)
RTT_REF, RTT_NOISE, ACCESS = range(24, 27)
# Swift's (:func:`~..laws.swift.swift_params`)
SW_AI, SW_BETA, SW_MAX_MDF, SW_BASE_TARGET, SW_H, SW_HOPS, SW_FS_RANGE, SW_FS_MIN, SW_FS_MAX = range(27, 36)
SW_ENDPOINT_TARGET, SW_MIN_CWND, SW_MAX_CWND, SW_RETX_RESET = range(36, 40)
# HPCC's (:func:`~..laws.hpcc.hpcc_params`; its ``rate_min`` and ``init_cwnd`` are RATE_MIN and INIT_CWND)
HP_ETA, HP_MAX_STAGE, HP_W_AI, HP_N_EXP, HP_T_BASE, HP_W0, HP_PROB, HP_BASE, HP_SEED = range(40, 49)
N_LP = 49
# counters (``cnt``): timer overflow list, Scout queue and Scout totals
OVN, DENSE, TWOVER, TWLOST, SQN, SSERVED, SDROPPED, SLOSTN, SWAIT = range(9)
N_CNT = 9

JIT = dict(cache=CACHE, nogil=True, inline="always")


@intrinsic
def fma32(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
    """round(a·b + c) in float32, rounded once (``llvm.fma.f32``), as XLA:CPU's contracted multiply-add."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        f32 = context.get_value_type(types.float32)
        fn = cgutils.get_or_insert_function(
            builder.module, cgutils.ir.FunctionType(f32, [f32, f32, f32]), "llvm.fma.f32"
        )
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _rsqrt_approx(typingctx: Any, x: Any) -> Any:
    """The CPU's approximate 1/√x (``rsqrtss``, ``llvm.x86.sse.rsqrt.ss``), as XLA:CPU starts its ``rsqrt``."""
    sig = types.float32(types.float32)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        f32 = context.get_value_type(types.float32)
        v4 = cgutils.ir.VectorType(f32, 4)
        fn = cgutils.get_or_insert_function(
            builder.module, cgutils.ir.FunctionType(v4, [v4]), "llvm.x86.sse.rsqrt.ss"
        )
        zero = cgutils.ir.Constant(cgutils.ir.IntType(32), 0)
        vec = builder.insert_element(cgutils.ir.Constant(v4, None), args[0], zero)
        return builder.extract_element(builder.call(fn, [vec]), zero)

    return sig, codegen


_MHALF, _M1 = np.float32(-0.5), np.float32(-1.0)


@njit(**JIT)
def rsqrt32(x: Any) -> Any:
    """1/√x as XLA:CPU computes ``rsqrt`` in float32 (and ``1/sqrt(x)``, ``a/sqrt(x)``, which it rewrites to it):
    the CPU's approximation y refined by two Newton steps y ← y + (−y/2)·(x·y·y − 1), multiply-adds contracted
    (:func:`fma32`); for x not a positive normal number, the approximation itself."""
    y = _rsqrt_approx(x)
    if not (x >= TINY32 and x < np.float32(np.inf)):
        return y
    for _ in range(2):
        y = fma32(y * _MHALF, fma32(x * y, y, _M1), y)
    return y


@njit(**JIT)
def ftz32(x: Any) -> Any:
    """x flushed to zero (keeping its sign) when subnormal, as XLA:CPU's FTZ/DAZ modes do (:mod:`.loop`)."""
    return x if not (abs(x) < TINY32) else x * F0


@intrinsic
def borrow(typingctx: Any, arr: Any) -> Any:
    """A view of ``arr`` that Numba does not reference-count (the caller keeps ``arr`` alive)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        out = context.make_array(sig.return_type)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(ary, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    return arr(arr), codegen


@njit(**JIT)
def hash32(seed: int, t: int, purpose: int) -> int:
    """:func:`..switch.hash32` of (seed, slot, purpose) in uint32 arithmetic."""
    h = 0x9E3779B9
    for x in (seed, t, purpose):
        h = ((h ^ (x & M32)) * 0x85EBCA6B) & M32
        h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & M32
    return h ^ (h >> 16)


@njit(**JIT)
def uniform4(seed: int, t: int, f: int, purpose: int) -> Any:
    """:func:`..switch.uniform` of (seed, slot, flow, purpose): 24 hashed bits as a float32 in [0, 1)."""
    h = 0x9E3779B9
    for x in (seed, t, f, purpose):
        h = ((h ^ (x & M32)) * 0x85EBCA6B) & M32
        h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & M32
    return np.float32((h ^ (h >> 16)) >> 8) * _2M24


@njit(**JIT)
def uniform5(seed: int, t: int, f: int, purpose: int, k: int) -> Any:
    """:func:`..switch.uniform` of (seed, slot, flow, purpose, k): 24 hashed bits as a float32 in [0, 1)."""
    h = 0x9E3779B9
    for x in (seed, t, f, purpose, k):
        h = ((h ^ (x & M32)) * 0x85EBCA6B) & M32
        h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & M32
    return np.float32((h ^ (h >> 16)) >> 8) * _2M24


@njit(**JIT)
def active(S: Any, f: int, t: int) -> bool:
    """:func:`..flows.active`: between start and stop with data left."""
    return S[f * NS + START] <= t < S[f * NS + STOP] and S[f * NS + ACKED] < S[f * NS + SIZE]


@njit(**JIT)
def active_slots(S: Any, f: int, a: int, b: int) -> int:
    """:func:`..flows.active_slots`: slots of [a, b) in [start, min(stop, finish))."""
    end = min(S[f * NS + STOP], S[f * NS + FINISH])
    return max(min(b, end) - max(a, S[f * NS + START]), 0)


@njit(**JIT)
def integrate(S: Any, X: Any, f: int, t: int) -> None:
    """:func:`..flows.integrate`: the window (and α) times the active slots since ``t_int``."""
    n = np.float32(active_slots(S, f, S[f * NS + TINT], t))
    X[f * NX + CWINT] = fma32(X[f * NX + CWND], n, X[f * NX + CWINT])
    X[f * NX + AUXINT] = fma32(X[f * NX + ALPHA], n, X[f * NX + AUXINT])
    S[f * NS + TINT] = t
