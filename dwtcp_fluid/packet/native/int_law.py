# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""HPCC and HPCC-PINT in the native loop: :class:`~..laws.hpcc.Hpcc` and :class:`~..laws.hpcc.HpccPint`, one event
of one flow (:func:`~..laws.hpcc.hpcc_step` with :func:`~..laws.hpcc.measure`, :func:`~..laws.hpcc.compute_wind`,
:func:`~..laws.hpcc.pint_sampled` and :func:`~..laws.hpcc.pint_quantize`), and the in-band telemetry the
bottleneck port stamps on each departing packet (:func:`..receiver.depart`: the queue behind it, the port's
transmitted-packet counter, the departure slot), filed with its ACK (:func:`file_ack_int`), in the reference's
float32 and int32 operations.

**State.** HPCC keeps its state in fields of :mod:`.core` that only the window and TIMELY laws use (named here; a
flow runs one law): W and W_c in two float fields, incStage, lastUpdateSeq, the telemetry L (queue, tx counter,
slot) and whether L is set in integer fields; U is the traced field, the window ``cwnd`` and the pacing rate
``PRATE`` are the engine's. A flow's parameters are its law's row of ``lp`` (``HP_*`` of :mod:`.core`, with
``RATE_MIN`` and ``INIT_CWND``); the options are bits of ``sc[OPT]`` (:func:`option_bits`).

**Floating point.** MeasureInflight's filter U + (τ/T)·(u' − U) is one multiply-add, which XLA contracts:
fma(τ/T, u' − U, U) here (the reference writes the filter so that no other fusion exists); ComputeWind's
W_c/(U/η) + W_AI is compiled as (W_c·η)/U + W_AI (a quotient: nothing to contract). PINT's quantization
exp(round(ln U / ln b)·ln b) uses XLA's own ``log`` and ``exp`` (:mod:`.xla_math`) and rounds half to even.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..laws.hpcc import CWND_CAP, TELEMETRY, UPDATES
from .core import (
    ALPHA,
    CA,
    CWND,
    F0,
    F1,
    HP_BASE,
    HP_ETA,
    HP_MAX_STAGE,
    HP_N_EXP,
    HP_PROB,
    HP_SEED,
    HP_T_BASE,
    HP_W0,
    HP_W_AI,
    JIT,
    LAW_HPCC_PINT,
    NACK,
    NMARK,
    NS,
    NX,
    NXT,
    OPT,
    PRATE,
    PREVRTT,
    PRRDEL,
    RATE_MIN,
    RECOVER,
    RTT,
    RTTDIFF,
    UNA,
    WINEND,
    fma32,
)  # fmt: skip
from .rings import ack_entry, fill_ack
from .xla_math import exp32, log32

__all__ = ["hpcc_step", "file_ack_int", "option_bits", "initial_window", "IE"]

#: Telemetry ints per ACK wheel entry (:data:`..wheels.IE`): queue behind the packet, port tx counter, slot.
IE = 3
# the state's fields (S: int64, X: float32) in fields of the laws HPCC does not run beside
STAGE, LUS, LQ, LTX, LTS, HAVE = CA, RECOVER, NACK, NMARK, WINEND, PRRDEL
W, WC = PREVRTT, RTTDIFF
# option bits (``sc[OPT]``)
PER_ACK, RATE_CONTROL, FIRST_TELEMETRY = 1, 2, 4
_CAP = np.float32(CWND_CAP)
_UMIN = np.float32(1e-6)
_2M24 = np.float32(1.0 / (1 << 24))
_M32 = 0xFFFFFFFF


def option_bits(law: Any) -> int:
    """``sc[OPT]`` for an :class:`~..laws.hpcc.Hpcc`: the reference update, the control, the telemetry."""
    return (
        PER_ACK * (law.update == UPDATES[1])
        + RATE_CONTROL * (law.control == "rate")
        + FIRST_TELEMETRY * (law.telemetry == TELEMETRY[1])
    )


def initial_window(p: dict[str, Any]) -> np.float32:
    """:func:`~..laws.hpcc.hpcc_init`'s window: ⌈w0·init_cwnd⌉ in float32, or the cap when T is unknown."""
    init = np.float32(p["init_cwnd"])
    return np.float32(np.ceil(np.float32(p["w0"]) * init)) if init < _CAP else _CAP


@njit(**JIT)
def _i32(x: int) -> int:
    return ((x + 0x80000000) & _M32) - 0x80000000


@njit(**JIT)
def pint_sampled(t: int, seq: int, prob: Any, seed: Any) -> bool:
    """:func:`~..laws.hpcc.pint_sampled`: a uint32 hash of (seed, slot, sequence) below ``prob``·2³²."""
    s = np.int64(seed) & _M32
    h = ((seq & _M32) * 2654435761 ^ (t & _M32) * 40503 ^ s * 2246822519) & _M32
    h = h ^ (h >> 15)
    h = (h * 2246822507) & _M32
    h = h ^ (h >> 13)
    return np.float32(h >> 8) * _2M24 < prob


@njit(**JIT)
def pint_quantize(U: Any, base: Any) -> Any:
    """:func:`~..laws.hpcc.pint_quantize`: the nearest power of ``base`` in log scale (XLA's log and exp)."""
    lb = log32(base)
    return exp32(np.float32(np.rint(log32(max(U, _UMIN)) / lb)) * lb)


@njit(**JIT)
def _window(X: Any, lp: Any, x: int, opt: int, w: Any, T: Any) -> None:
    """The engine's window ⌈W⌉ (the cap under rate control) and pacing rate W/T from the law's window ``w``."""
    X[x + CWND] = max(np.float32(np.ceil(w)), F1) if (opt & RATE_CONTROL) == 0 else _CAP
    X[x + PRATE] = min(max(w / T, lp[RATE_MIN]), F1)


@njit(**JIT)
def hpcc_step(
    S: Any, X: Any, lp: Any, sc: Any, kind: int, f: int, t: int, ack: bool, q: int, tx: int, ts: int
) -> None:
    """One event of flow ``f`` (parameters ``lp``: its law's row) in slot ``t``: a data ACK (``ack``) with the
    telemetry (``q``, ``tx``, ``ts``) its packet carried, or a timer (zeros), as :func:`~..laws.hpcc.hpcc_step` of
    ``kind`` (HPCC or HPCC-PINT). What the reference computes and then discards (a timer, an ACK that carries no
    PINT value) is not computed: such an event changes nothing, but W_c's start value before the first ACK."""
    b, x = f * NS, f * NX
    tb = lp[HP_T_BASE]
    T = tb if tb > F0 else max(np.float32(S[b + RTT]), F1)
    opt = sc[OPT]
    if S[b + HAVE] == 0:  # W_c starts at W_init; the first ACK stores L and lastUpdateSeq and sets W = W_init
        w_init = lp[HP_W0] * T
        X[x + WC] = w_init
        if ack:
            S[b + LUS] = S[b + NXT]
            S[b + LQ], S[b + LTX], S[b + LTS] = q, tx, ts
            _window(X, lp, x, opt, w_init, T)
            X[x + W] = w_init
            S[b + HAVE] = 1
        return
    if not ack:
        return
    if kind == LAW_HPCC_PINT and not pint_sampled(t, S[b + UNA], lp[HP_PROB], lp[HP_SEED]):
        return
    # MeasureInflight
    dts = np.float32(max(_i32(ts - S[b + LTS]), 1))
    u1 = np.float32(min(q, S[b + LQ])) / T + np.float32(_i32(tx - S[b + LTX])) / dts
    r = min(dts, T) / T
    U_new = fma32(r, u1 - X[x + ALPHA], X[x + ALPHA])
    U = pint_quantize(U_new, lp[HP_BASE]) if kind == LAW_HPCC_PINT else U_new
    # ComputeWind on W_c, which only an update of the reference (once per RTT, or per ACK) replaces
    eta = lp[HP_ETA]
    w_ai = lp[HP_W_AI] if lp[HP_W_AI] > F0 else (F1 - eta) * (lp[HP_W0] * T) / lp[HP_N_EXP]
    mult = U >= eta or np.float32(S[b + STAGE]) >= lp[HP_MAX_STAGE]
    wc0 = X[x + WC]
    Wu = (wc0 * eta) / max(U, _UMIN) + w_ai if mult else wc0 + w_ai
    W_ = min(max(Wu, lp[RATE_MIN] * T), _CAP)
    if (opt & PER_ACK) != 0 or S[b + UNA] > S[b + LUS]:
        X[x + WC] = Wu
        S[b + STAGE] = 0 if mult else S[b + STAGE] + 1
        S[b + LUS] = S[b + NXT]
    X[x + ALPHA] = U_new
    if (opt & FIRST_TELEMETRY) == 0:
        S[b + LQ], S[b + LTX], S[b + LTS] = q, tx, ts
    _window(X, lp, x, opt, W_, T)
    X[x + W] = W_


@njit(**JIT)
def file_ack_int(
    ackw: Any, intw: Any, R: int, La: int, s: int, f: int, flags: int, nloss: int, sent: int, q: int, tx: int, t: int
) -> int:  # fmt: skip
    """:func:`.rings.insert_ack` of a departing data packet's ACK, with the telemetry the port stamped on it
    (``q`` behind it, ``tx`` sent so far, slot ``t``) at the same row and lane of ``intw``. Returns the spill."""
    e, s1 = ack_entry(ackw, R, La, s)
    fill_ack(ackw, e, s1, f, flags, nloss, 1, sent)
    intw[e * IE], intw[e * IE + 1], intw[e * IE + 2] = q, tx, t
    return s1 - s
