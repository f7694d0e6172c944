# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""DWTCP in the native loop: one event of :class:`~..laws.dwtcp.Dwtcp` (:meth:`~..laws.dwtcp.Dwtcp.step`) and its
next wake-up (:meth:`~..laws.dwtcp.Dwtcp.next_wake`) for one flow, every static option, in the reference's float32
operations: the Scout increase w + α·S/L and the decrease factor 1 − β√w·(d_s − d_t)/d_s are the multiply-adds XLA
contracts (:func:`.core.fma32`), and 2^−n of the Scout-loss halving is the reference's own ``exp2`` (a table of its
values, :func:`exp2_table`: XLA computes it as exp(n·ln 2), not exact beyond n = 12)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import (
    ALPHA,
    ALPHA_MAX,
    ALPHA_MIN,
    BETA_P,
    CWND,
    DET,
    F0,
    F1,
    HALF,
    HASSC,
    JIT,
    K_T,
    LEAD,
    MIN_CWND,
    NEVER,
    NS,
    NX,
    NXT,
    OPT,
    RECOVER,
    RTT,
    S_OVER_L,
    SCOUT_WINDOW,
    SCOUTS,
    SLDELAY,
    SLGAP,
    SLOSTC,
    SLOSTSEEN,
    SLRCV,
    SOKC,
    SOKSEEN,
    SSENT,
    SSTH,
    START,
    STOP,
    SUNACK,
    TWO,
    UNA,
    active,
    fma32,
    ftz32,
    integrate,
)  # fmt: skip
from .scouts import scout_receive

__all__ = ["dwtcp_event", "dwtcp_step", "dwtcp_wake", "option_bits", "exp2_table"]

#: Bits of ``sc[OPT]`` for DWTCP's static options (defaults: 0).
DATA_LITERAL, SS_LITERAL, IPG, SSTH_LITERAL, DATAPATH = 1, 2, 4, 8, 16
#: Scout ACKs of one flow in one event that the law handles (``_MAX_SCOUT_ACKS`` of :mod:`..laws.dwtcp`).
_MAX_SCOUT_ACKS = 4
_EPS = np.float32(1e-9)
_EXP2_N = 256


def option_bits(law: Any) -> int:
    """``sc[OPT]`` of a :class:`~..laws.dwtcp.Dwtcp`."""
    return (
        (DATA_LITERAL if law.data_increase == "literal" else 0)
        | (SS_LITERAL if law.slow_start == "literal" else 0)
        | (IPG if law.ipg else 0)
        | (SSTH_LITERAL if law.ssthresh_on_decrease == "literal" else 0)
        | (DATAPATH if law.scout_per == "datapath" else 0)
    )


_table: list[np.ndarray] = []


def exp2_table() -> np.ndarray:
    """2^−n for n = 0 … 255 as the reference computes it (``jnp.exp2`` compiled by XLA:CPU), float32; every
    larger n gives 0 (checked: the last entry is 0). Computed once per process."""
    if not _table:
        import jax
        import jax.numpy as jnp

        n = jax.device_put(np.arange(_EXP2_N, dtype=np.int32), jax.local_devices(backend="cpu")[0])
        # a writable copy: the native loop's compiled signature is that of a writable array (one compile)
        v = np.array(jax.jit(lambda n: jnp.exp2(-n.astype(jnp.float32)))(n), np.float32)
        if v[-1] != 0:
            raise RuntimeError(f"exp2(-{_EXP2_N - 1}) = {v[-1]!r} in float32: the table must reach 0")
        _table.append(v)
    return _table[0]


@njit(**JIT)
def _factor(w: Any, d_s: Any, d_t: Any, ipg_s: Any, ipg_t: Any, beta_p: Any, ipg: bool) -> Any:
    """:meth:`~..laws.dwtcp.Dwtcp.decrease_factor`, floored at 1/2."""
    bw = beta_p * np.sqrt(w)
    a = (d_s - d_t) / max(d_s, _EPS)
    if not ipg:
        f = fma32(-bw, a, F1)
    else:
        b = (ipg_s - ipg_t) / max(ipg_s, _EPS)
        bw2 = TWO * bw
        if d_s > d_t and ipg_s > ipg_t:
            f = F1 - bw2 * a * b
        elif ipg_s > ipg_t:
            f = F1 - bw2 * b * b
        else:
            f = F1 - bw2 * a * a
    return max(f, HALF)


@njit(**JIT)
def dwtcp_step(
    S: Any, X: Any, lp: Any, ex2: Any, opt: int, f: int, t: int, ack: bool, nloss: int, timeout: bool,
    scout_ok: int, scout_lost: int, d_s: Any, ipg_s: Any, act: bool, share: Any,
) -> None:  # fmt: skip
    """One event of flow ``f`` (Algorithm 1 of [DWTCP] with the interpretations of :mod:`..laws.dwtcp`);
    ``share``: the flow's share of a Scout ACK's bandwidth signal (per-datapath Scouts, else unused)."""
    w, ssth, alpha = X[f * NX + CWND], X[f * NX + SSTH], X[f * NX + ALPHA]
    det, recover = S[f * NS + DET], S[f * NS + RECOVER]
    rtt = np.float32(S[f * NS + RTT])
    loss = nloss > 0
    slow = w < ssth
    if ack and not loss:  # data ACK (lines 9-14)
        if slow:
            w = TWO * w if opt & SS_LITERAL else w + F1
        else:
            w = w + F1 if opt & DATA_LITERAL else w + F1 / w
    s_over_l = lp[S_OVER_L] * share if opt & DATAPATH else lp[S_OVER_L]
    for j in range(_MAX_SCOUT_ACKS):  # Scout ACKs: w += α·S/L, then α doubles (capped)
        if scout_ok > j:
            if opt & SS_LITERAL and slow:
                w = TWO * w + alpha * s_over_l
            else:
                w = w + alpha * s_over_l
            alpha = min(TWO * alpha, lp[ALPHA_MAX])
    alpha = max(ftz32(alpha * ex2[min(scout_lost, ex2.shape[0] - 1)]), lp[ALPHA_MIN])
    d_t = rtt + lp[K_T]  # ScoutDelayed (lines 17-24)
    ipg_t = d_t / lp[SCOUT_WINDOW]
    ipg = opt & IPG != 0
    late = d_s > d_t or (ipg and ipg_s > ipg_t)
    if late and act and t >= det + S[f * NS + RTT]:
        w_dec = max(w * _factor(w, d_s, d_t, ipg_s, ipg_t, lp[BETA_P], ipg), lp[MIN_CWND])
        ssth = w if opt & SSTH_LITERAL else w_dec
        w, det = w_dec, t
    if loss and S[f * NS + UNA] >= recover:  # data loss: halve once per window
        w = max(w * HALF, lp[MIN_CWND])
        ssth, recover = w, S[f * NS + NXT]
    if timeout:
        ssth, w, recover = max(w * HALF, TWO), F1, S[f * NS + NXT]
    X[f * NX + CWND], X[f * NX + SSTH], X[f * NX + ALPHA] = w, ssth, alpha
    S[f * NS + DET], S[f * NS + RECOVER] = det, recover


@njit(**JIT)
def dwtcp_wake(
    S: Any, lp: Any, opt: int, f: int, t: int, act: bool, wait_from: int, last_delay: Any, last_gap: Any,
    last_rcv: int,
) -> int:  # fmt: skip
    """The first slot after ``t`` at which "ScoutDelayed" fires without another event (:data:`.core.NEVER`:
    none), from the state after :func:`dwtcp_step`."""
    d_t = np.float32(S[f * NS + RTT]) + lp[K_T]
    ipg_t = d_t / lp[SCOUT_WINDOW]
    from_wait = wait_from + np.int64(np.floor(d_t)) + 1 if wait_from < NEVER else NEVER
    late_at = t + 1 if last_delay > d_t else from_wait
    if opt & IPG:
        from_gap = last_rcv + np.int64(np.floor(ipg_t)) + 1
        late_at = min(late_at, t + 1 if last_gap > ipg_t else from_gap)
    if not (act and late_at < NEVER):
        return NEVER
    return max(max(late_at, S[f * NS + DET] + S[f * NS + RTT]), t + 1)


@njit(**JIT)
def dwtcp_event(
    S: Any, X: Any, lp: Any, ex2: Any, sc: Any, cnt: Any, f: int, t: int, ack: bool, nloss: int, timeout: bool,
    n_scout: int, seqp1: int,
) -> int:  # fmt: skip
    """:func:`..events._law_event` of a DWTCP flow: the Scout bookkeeping (``n_scout`` Scout ACKs, the largest
    number ``seqp1`` − 1), then one step of the law. Returns its next wake-up slot."""
    share = F1
    if sc[HASSC] != 0:
        n_ok, n_lost, d_s, ipg_s, wait = scout_receive(S, X, cnt, f, t, n_scout, seqp1)
        last_delay, last_gap, last_rcv = X[f * NX + SLDELAY], X[f * NX + SLGAP], S[f * NS + SLRCV]
        if sc[OPT] & DATAPATH:  # :func:`..events._datapath`
            lead = S[f * NS + LEAD]
            if lead != f:
                b, g = lead * NS, lead * NX
                pending = S[b + SUNACK] < S[b + SSENT]
                sent_at = S[b + START] + S[b + SUNACK] * S[b + SCOUTS]
                d_s = max(X[g + SLDELAY], np.float32(t - sent_at) if pending else F0)
                ipg_s = max(X[g + SLGAP], np.float32(t - S[b + SLRCV]))
                n_ok, n_lost = S[b + SOKC] - S[f * NS + SOKSEEN], S[b + SLOSTC] - S[f * NS + SLOSTSEEN]
                wait = sent_at if pending else NEVER
                last_delay, last_gap, last_rcv = X[g + SLDELAY], X[g + SLGAP], S[b + SLRCV]
                S[f * NS + SOKSEEN], S[f * NS + SLOSTSEEN] = S[b + SOKC], S[b + SLOSTC]
            n = 0
            for h in range(S.shape[0] // NS):
                if S[h * NS + LEAD] == lead and S[h * NS + START] <= t < S[h * NS + STOP]:
                    n += 1
            share = F1 / np.float32(max(n, 1))
    else:  # no Scouts in the run: the law's Scout inputs keep their defaults (:class:`..laws.base.Events`)
        n_ok, n_lost, d_s, ipg_s, wait, last_delay, last_gap, last_rcv = 0, 0, F0, F0, NEVER, F0, F0, 0
    act = active(S, f, t)
    integrate(S, X, f, t)
    dwtcp_step(S, X, lp, ex2, sc[OPT], f, t, ack, nloss, timeout, n_ok, n_lost, d_s, ipg_s, act, share)
    return dwtcp_wake(S, lp, sc[OPT], f, t, act, wait, last_delay, last_gap, last_rcv)
