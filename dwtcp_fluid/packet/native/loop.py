# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The native slot loop: the reference engine's slot semantics for one scenario, compiled by Numba.

A transcription of the reference (:mod:`..engine`, :mod:`..events`, :mod:`..wheels`, :mod:`..receiver`,
:mod:`..records`) for the set of :func:`.unsupported` — one bottleneck, ACK-clocked :class:`~..laws.dctcp.Dctcp`
or :class:`~..laws.reno.Reno` flows under any of their sender rules (:mod:`..laws.recovery`), no Scouts or impairments — keeping every ring as the reference keeps it (ACK
wheel lanes, timer wheel and overflow list, departure ring, the two halves of the ready list, the seeded rotation
of simultaneous senders), so that every record is bit-identical. Step numbers below are those of
:mod:`..engine`'s docstring.

**Floating point.** float32 throughout, in the reference's order of operations. XLA:CPU compiles with LLVM's
floating-point contraction allowed: a product feeding an addition becomes one fused multiply-add. The two places
where the reference adds a product — the window integrals ``cw_int + cwnd·n`` and DCTCP's ``(1 − g)·α + g·F`` —
are written as explicit FMAs (:func:`fma32`) with the operands XLA fuses (found by the bit-identity tests: fusing
``g·F`` instead, or not fusing, changes α in the last bit within milliseconds). Numba compiles without contraction
(no ``fastmath``), so nothing else is fused.

**Subnormals are flushed to zero**, as XLA:CPU does (it runs with the FTZ and DAZ modes set: a float32 result
below the smallest normal 2⁻¹²⁶ ≈ 1.18e-38 becomes a zero of the same sign, and such an input reads as zero).
Numba keeps subnormals, so :func:`ftz32` is applied where one can arise: DCTCP's α and the product g·F feeding
it (α decays by the factor 1 − g per window without marks: g = 0.999999 reaches 1e-42 in seven windows) and α/2
in the cut. Every other float32 quantity (windows ≥ 1, their integrals, ssthresh) stays far above 2⁻¹²⁶.

**Speed** (CPU time per data packet, DCTCP N = 10: 20 ns; the reference 125-140 ns). State lives in flat
arrays — a flow's int64 fields at ``S[f·NS + field]``, its float32 fields at ``X[f·NX + field]`` (one flow in a
few cache lines, so the cost per event barely grows with N) — and the rings are flat arrays with constant row
widths (2-D views with runtime strides cost 60 % more). All are borrowed views of the caller's work arrays
(:func:`_borrow`): passing reference-counted arrays to the inlined helpers cost two atomic updates per array per
call, 90 % of the run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..laws.recovery import NS3_SEGMENT

__all__ = ["run_scenario", "work_sizes", "fma32", "ftz32", "LAW_DCTCP", "LAW_RENO", "NEVER"]

NEVER = 2**31 - 1
LAW_DCTCP, LAW_RENO = 0, 1
_F0, _F1, _HALF, _TWO = np.float32(0.0), np.float32(1.0), np.float32(0.5), np.float32(2.0)
_TINY32 = np.float32(np.finfo(np.float32).tiny)  # 2⁻¹²⁶, the smallest normal float32
_M32 = 0xFFFFFFFF
_NS3_SEG, _NS3_SEG2 = np.float32(NS3_SEGMENT), np.float32(NS3_SEGMENT * NS3_SEGMENT)
# fields of S (int64 per flow): the reference's engine fields, the law's integer state, the flow's inputs
INFL, NXT, UNA, ACKED, PEND, LAST, WAKE, TINT, DROPS, TMO, FINISH = range(11)
RECOVER, WINEND, NACK, NMARK, RTT, START, STOP, SIZE, READY, STARTED, CA, PRRDEL = range(11, 23)
NS = 23
# fields of X (float32 per flow): window integrals, cwnd (the law's and the engine's mirror), ssthresh, α (the aux),
# PRR's prior_cwnd
CWINT, AUXINT, CWND, SSTH, ALPHA, PRIOR = range(6)
NX = 6
# scenario scalars (``sc``) and counters (``cnt``)
KTH, MDEQ, BUFFER, RTO, SEED, NSLOTS, CHUNK, KIND, OPT, RED = range(10)
# the sender rule (``sc[RED]``, :data:`..laws.recovery.REDUCTIONS` order) and the congestion states
RED_PRR, RED_IMMEDIATE, RED_HOLD, RED_NS3 = 0, 1, 2, 3
CA_OPEN, CA_CWR, CA_RECOVERY = 0, 1, 2
OVN, DENSE, TWOVER, TWLOST = range(4)


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


@njit(cache=True, nogil=True, inline="always")
def ftz32(x: Any) -> Any:
    """x flushed to zero (keeping its sign) when subnormal, as XLA:CPU's FTZ/DAZ modes do (module docstring)."""
    return x if not (abs(x) < _TINY32) else x * _F0


@intrinsic
def _borrow(typingctx: Any, arr: Any) -> Any:
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


def work_sizes(N: int, R: int, La: int, Rd: int, Rt: int, Lt: int) -> tuple[int, int]:
    """Sizes of the work arrays of :func:`run_scenario` (int64, float32)."""
    return NS * N + R * La * 6 + Rt * Lt * 2 + Rd * 4 + 8 * N + Lt + 4, NX * N


_JIT = dict(cache=True, nogil=True, inline="always")


@njit(**_JIT)
def _hash32(seed: int, t: int, purpose: int) -> int:
    """:func:`..switch.hash32` of (seed, slot, purpose) in uint32 arithmetic."""
    h = 0x9E3779B9
    for x in (seed, t, purpose):
        h = ((h ^ (x & _M32)) * 0x85EBCA6B) & _M32
        h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & _M32
    return h ^ (h >> 16)


@njit(**_JIT)
def _active_slots(S: Any, f: int, a: int, b: int) -> int:
    """:func:`..flows.active_slots`: slots of [a, b) in [start, min(stop, finish))."""
    end = min(S[f * NS + STOP], S[f * NS + FINISH])
    return max(min(b, end) - max(a, S[f * NS + START]), 0)


@njit(**_JIT)
def _open(S: Any, X: Any, f: int, t: int) -> bool:
    """:func:`..wheels._window_open`."""
    return (
        S[f * NS + STARTED] != 0
        and t < S[f * NS + STOP]
        and S[f * NS + ACKED] + S[f * NS + INFL] < S[f * NS + SIZE]
        and np.float32(S[f * NS + INFL]) + _F1 <= X[f * NX + CWND]
    )


@njit(**_JIT)
def _integrate(S: Any, X: Any, f: int, t: int) -> None:
    """:func:`..flows.integrate`: the window (and α) times the active slots since ``t_int``."""
    n = np.float32(_active_slots(S, f, S[f * NS + TINT], t))
    X[f * NX + CWINT] = fma32(X[f * NX + CWND], n, X[f * NX + CWINT])
    X[f * NX + AUXINT] = fma32(X[f * NX + ALPHA], n, X[f * NX + AUXINT])
    S[f * NS + TINT] = t


@njit(**_JIT)
def _arm(tw: Any, ov: Any, cnt: Any, S: Any, f: int, t: int, rto: int, Rt: int, Lt: int) -> None:
    """:func:`..wheels.arm` of :func:`..wheels._wake_due` (the retransmission timeout: these laws never ask to
    be woken): make sure flow ``f`` is woken by then; a full wheel row goes to the overflow list."""
    w = NEVER
    if S[f * NS + INFL] > 0 and S[f * NS + INFL] == S[f * NS + PEND]:
        due = (
            (S[f * NS + LAST] + rto + 0x80000000) & _M32
        ) - 0x80000000  # int32, wrapping as the reference's
        w = max(due, t + 1)
    wk = S[f * NS + WAKE]
    live = wk > t and wk < NEVER
    if not (w < NEVER and ((not live) or w < wk)):
        return
    slot = min(w, t + (Rt - 1))
    rb = (slot & (Rt - 1)) * Lt
    lane = 0
    while lane < Lt and tw[(rb + lane) * 2] == slot:
        lane += 1
    if lane < Lt:
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


@njit(**_JIT)
def _send(S: Any, X: Any, dep: Any, sc: Any, f: int, t: int, qlen: int) -> tuple[bool, int]:
    """:func:`..events._send`: drop-tail enqueue, ECN mark at enqueue, the packet filed at its departure slot.
    Returns whether the flow may send again next slot, and the queue."""
    if _open(S, X, f, t):
        if qlen < sc[BUFFER]:
            d = (t + qlen) & (dep.shape[0] // 4 - 1)
            dep[d * 4], dep[d * 4 + 1] = f, 1 if (sc[MDEQ] == 0 and qlen >= sc[KTH]) else 0
            dep[d * 4 + 2], dep[d * 4 + 3] = S[f * NS + PEND], t
            qlen += 1
            S[f * NS + PEND] = 0
        else:
            S[f * NS + PEND] += 1
            S[f * NS + DROPS] += 1
        if S[f * NS + INFL] == 0:
            S[f * NS + LAST] = t
        S[f * NS + INFL] += 1
        S[f * NS + NXT] += 1
    stay = _open(S, X, f, t + 1)
    S[f * NS + READY] = stay
    return stay, qlen


@njit(**_JIT)
def _prr(S: Any, X: Any, lp: Any, f: int, ack: bool, mark: bool, nloss: int, timeout: bool, k: int, ece_ok: bool,
         dctcp: bool, ns3: bool) -> None:  # fmt: skip
    """:func:`..laws.recovery.prr_step` (with :func:`..laws.recovery.cwnd_reduction`) for DCTCP (``dctcp``: the
    echo's target W(1 − α/2), Recovery resets ssthresh) or Reno (``ece_ok``: its ``ecn`` option), ``ns3``: the
    CWR episode of ``"ns3-prr"``, in the reference's float32 operations."""
    cw, ssth, ca, rec = X[f * NX + CWND], X[f * NX + SSTH], S[f * NS + CA], S[f * NS + RECOVER]
    una, snd_nxt = S[f * NS + UNA], S[f * NS + NXT]
    if ack and ((ca == CA_CWR and una > rec) or (ca == CA_RECOVERY and una >= rec)):
        cw, ca = ssth, CA_OPEN
    to_rec = nloss > 0 and ca != CA_RECOVERY
    init = ca == CA_OPEN and (to_rec or (ack and mark and ece_ok))
    if init or (to_rec and dctcp):
        if to_rec or not dctcp:
            ssth = max(cw * _HALF, lp[3])
        else:
            ssth = max(cw * (_F1 - ftz32(X[f * NX + ALPHA] * _HALF)), lp[3])
    if init and ns3 and not to_rec:
        X[f * NX + PRIOR], S[f * NS + PRRDEL], rec = np.float32(max(snd_nxt - una, 1)), k + 1, snd_nxt
    elif init:
        X[f * NX + PRIOR], S[f * NS + PRRDEL], rec = cw, 0, snd_nxt
    if to_rec:
        ca = CA_RECOVERY
    elif init:
        ca = CA_CWR
    if ack and ca != CA_OPEN:
        infl = snd_nxt - una
        pd = S[f * NS + PRRDEL] + k
        pout = snd_nxt - rec
        delta = ssth - np.float32(infl)
        ns3_cwr = ns3 and ca == CA_CWR
        if delta < _F0:
            if ns3_cwr:  # uint32 byte product, wrapping modulo 2^32 (recovery.cwnd_reduction)
                ss_b = np.int64(np.float32(ssth * _NS3_SEG))
                wrapped = (np.int64(pd) * np.int64(NS3_SEGMENT) * ss_b) & np.int64(_M32)
                quot = np.float32(np.float32(wrapped) / np.float32(X[f * NX + PRIOR] * _NS3_SEG2))
            else:
                quot = np.float32(np.ceil(np.float32(ssth * np.float32(pd) / X[f * NX + PRIOR])))
            snd = quot - np.float32(pout)
        else:
            snd = min(delta, np.float32(max(pd - pout, k) + (1 if nloss == 0 and not ns3_cwr else 0)))
        snd = max(snd, _F0 if pout > 0 else _F1)
        cw = np.float32(infl) + snd
        S[f * NS + PRRDEL] = pd
    elif ack:
        kf = np.float32(k)
        cw = cw + (kf if cw < ssth else kf / cw)
    if timeout:
        ssth, cw, rec, ca = max(cw * _HALF, _TWO), _F1, snd_nxt, CA_OPEN
    X[f * NX + CWND], X[f * NX + SSTH], S[f * NS + CA], S[f * NS + RECOVER] = cw, ssth, ca, rec


@njit(**_JIT)
def _law(
    S: Any, X: Any, lp: Any, sc: Any, f: int, ack: bool, mark: bool, nloss: int, timeout: bool, k: int
) -> None:
    """One event of :class:`~..laws.dctcp.Dctcp` or :class:`~..laws.reno.Reno` (option ``ecn``) under the
    sender rule ``sc[RED]`` (option ``reduction``) for flow ``f``, in the reference's float32 operations (``k``:
    packets the ACK acknowledges)."""
    cw, snd_nxt = X[f * NX + CWND], S[f * NS + NXT]
    loss = nloss > 0
    # base.window_closed (above= under "hold")
    una, rec = S[f * NS + UNA], S[f * NS + RECOVER]
    open_ = una > rec if sc[RED] == RED_HOLD else una >= rec
    opt = sc[OPT] != 0
    hold = sc[RED] == RED_HOLD
    dctcp = sc[KIND] == LAW_DCTCP
    if dctcp:
        kk = k if ack else 0
        na, nm = S[f * NS + NACK] + kk, S[f * NS + NMARK] + (kk if mark else 0)
        if ack and S[f * NS + UNA] >= S[f * NS + WINEND]:
            frac = np.float32(nm) / np.float32(max(na, 1))
            X[f * NX + ALPHA] = ftz32(fma32(_F1 - lp[0], X[f * NX + ALPHA], ftz32(lp[0] * frac)))
            S[f * NS + WINEND] = snd_nxt
            na, nm = 0, 0
        S[f * NS + NACK], S[f * NS + NMARK] = na, nm
    if sc[RED] == RED_PRR or sc[RED] == RED_NS3:
        _prr(S, X, lp, f, ack, mark, nloss, timeout, k, dctcp or opt, dctcp, sc[RED] == RED_NS3)
        return
    if dctcp:
        react = (ack and mark and (not loss) and open_) or (loss and open_)
        grow = ack and not loss and (open_ or not hold)
        cut = cw * _HALF if loss and open_ else cw * (_F1 - ftz32(X[f * NX + ALPHA] * _HALF))
    else:
        congestion = (loss or (ack and mark)) if opt else loss
        react = congestion and open_
        grow = ack and not congestion and (open_ or not hold)
        cut = cw * _HALF
    new = cw
    if react:
        new = max(cut, lp[3])
        X[f * NX + SSTH] = new
        S[f * NS + RECOVER] = snd_nxt
    elif grow:
        kf = np.float32(k)
        new = cw + (kf if cw < X[f * NX + SSTH] else kf / cw)
    if timeout:
        X[f * NX + SSTH] = max(cw * _HALF, _TWO)
        new = _F1
        S[f * NS + RECOVER] = snd_nxt
    X[f * NX + CWND] = new


@njit(cache=True, nogil=True)
def run_scenario(
    fin: Any,
    order: Any,
    start_at: Any,
    sc: Any,
    lp: Any,
    shape: Any,
    wi: Any,
    wf: Any,
    out_f: Any,
    out_i: Any,
    out_q: Any,
    out_s: Any,
) -> None:  # noqa: E501
    """Run one prepared scenario (inputs of :func:`..engine.prepare`), filling the output arrays.

    ``fin`` [N, 8] int32 per-flow inputs; ``sc`` int64 scalars (indices ``KTH`` ... ``RED``); ``lp`` float32 law
    parameters (g, alpha0, init_cwnd, min_cwnd); ``shape`` int64 (ack_rows, ack_lanes, dep_rows, timer_rows,
    timer_lanes, n_chunks); ``wi``, ``wf`` work arrays of :func:`work_sizes`. Outputs: ``out_f`` [chunk, 4, N]
    (cwnd_sum, alpha_sum, cwnd_end, alpha_end), ``out_i`` [chunk, 7, N] (active, inflight_end, pending_end and the
    cumulative delivered, sent, drops, timeouts), ``out_q`` [chunk] (q_sum), ``out_s`` int32 (per chunk q_min,
    q_max, busy, opps, q_end, marks; then finish [N], spill, timer overflows, timers lost).
    """
    N = fin.shape[0]
    R, La, Rd, Rt, Lt, n_chunks = shape[0], shape[1], shape[2], shape[3], shape[4], shape[5]
    fin, order, start_at, sc, lp = _borrow(fin), _borrow(order), _borrow(start_at), _borrow(sc), _borrow(lp)
    out_f, out_i, out_q, out_s = _borrow(out_f), _borrow(out_i), _borrow(out_q), _borrow(out_s)
    wi, wf = _borrow(wi), _borrow(wf)
    wi[:] = 0
    S = wi[: NS * N]
    o = NS * N
    ackw = wi[o : o + R * La * 6]
    o += R * La * 6
    tw = wi[o : o + Rt * Lt * 2]
    o += Rt * Lt * 2
    dep = wi[o : o + Rd * 4]
    o += Rd * 4
    ov = wi[o : o + 4 * N]
    rl, dl, cnt = (
        wi[o + 4 * N : o + 6 * N],
        wi[o + 6 * N : o + 8 * N + Lt],
        wi[o + 8 * N + Lt : o + 8 * N + Lt + 4],
    )
    X = wf[: NX * N]
    ackw[::6] = -1  # stamps
    tw[::2] = -1
    cnt[DENSE] = NEVER
    dctcp = sc[KIND] == LAW_DCTCP
    for f in range(N):
        S[f * NS + RTT], S[f * NS + START], S[f * NS + STOP], S[f * NS + SIZE] = (
            fin[f, 0],
            fin[f, 1],
            fin[f, 2],
            fin[f, 3],
        )
        S[f * NS + LAST], S[f * NS + WAKE], S[f * NS + FINISH] = fin[f, 1], NEVER, NEVER
        X[f * NX + CWINT], X[f * NX + AUXINT], X[f * NX + CWND], X[f * NX + SSTH], X[f * NX + PRIOR] = (
            _F0,
            _F0,
            lp[2],
            np.float32(1e9),
            _F0,
        )
        X[f * NX + ALPHA] = lp[1] if dctcp else _F0
    rto, seed, n_slots, chunk = sc[RTO], sc[SEED], sc[NSLOTS], sc[CHUNK]
    rbase, rn, qlen, sptr, marks, spill = 0, 0, 0, 0, 0, 0
    for k in range(n_chunks):
        t0 = min(k * chunk, n_slots)
        t1 = min(t0 + chunk, n_slots)
        q_sum, q_min, q_max, n_busy, opps = _F0, 2**30, 0, 0, 0
        for t in range(t0, t1):
            # 1. starts
            while sptr < N and start_at[sptr] <= t:
                f = order[sptr]
                S[f * NS + STARTED], S[f * NS + TINT] = 1, t
                if S[f * NS + READY] == 0 and _open(S, X, f, t):
                    rl[rbase + rn], S[f * NS + READY] = f, 1
                    rn += 1
                _arm(tw, ov, cnt, S, f, t, rto, Rt, Lt)
                sptr += 1
            # the slot's live wheel entries fill lanes 0, 1, ...
            ra, rtb = (t & (R - 1)) * La, (t & (Rt - 1)) * Lt
            n_ack = 0
            while n_ack < La and ackw[(ra + n_ack) * 6] == t:
                n_ack += 1
            n_tim = 0
            while n_tim < Lt and tw[(rtb + n_tim) * 2] == t:
                dl[n_tim] = tw[(rtb + n_tim) * 2 + 1]
                n_tim += 1
            other = N - rbase
            fast = n_ack == 1 and n_tim == 0 and rn == 0 and cnt[DENSE] != t
            kept = 0
            # 2. ACKs; in the common slot (one ACK, no timer, nobody waiting) its flow sends at once
            for j in range(n_ack):
                f, nl, kk, mark = (
                    ackw[(ra + j) * 6 + 1],
                    ackw[(ra + j) * 6 + 3],
                    ackw[(ra + j) * 6 + 4],
                    (ackw[(ra + j) * 6 + 2] & 1) > 0,
                )
                S[f * NS + INFL] -= kk + nl
                S[f * NS + UNA] += kk + nl
                S[f * NS + ACKED] += kk
                S[f * NS + LAST] = t
                if S[f * NS + ACKED] >= S[f * NS + SIZE] and S[f * NS + FINISH] == NEVER:
                    S[f * NS + FINISH] = t
                if mark:
                    marks += kk
                _integrate(S, X, f, t)
                _law(S, X, lp, sc, f, True, mark, nl, False, max(kk, 1))
                stay = False
                if fast:
                    stay, qlen = _send(S, X, dep, sc, f, t, qlen)
                if (not fast) and S[f * NS + READY] == 0 and _open(S, X, f, t):
                    rl[rbase + rn], S[f * NS + READY] = f, 1
                    rn += 1
                elif fast and stay:
                    rl[other] = f
                    kept += 1
                _arm(tw, ov, cnt, S, f, t, rto, Rt, Lt)
            # 3. timers: the wheel row's, then the overflow list's
            if t == cnt[DENSE]:
                n_ov, nx = 0, NEVER
                for i in range(cnt[OVN]):
                    s0, f0 = ov[i * 2], ov[i * 2 + 1]
                    if s0 == t:
                        dl[n_tim] = f0
                        n_tim += 1
                    else:
                        ov[n_ov * 2], ov[n_ov * 2 + 1] = s0, f0
                        n_ov += 1
                        nx = min(nx, s0)
                cnt[OVN], cnt[DENSE] = n_ov, nx
            for i in range(n_tim):
                f = dl[i]
                if S[f * NS + WAKE] == t:
                    S[f * NS + WAKE] = NEVER
                to = (
                    S[f * NS + INFL] > 0
                    and S[f * NS + INFL] == S[f * NS + PEND]
                    and t - S[f * NS + LAST] >= rto
                )
                if to:
                    S[f * NS + UNA] += S[f * NS + INFL]
                    S[f * NS + INFL], S[f * NS + PEND], S[f * NS + LAST] = 0, 0, t
                    S[f * NS + TMO] += 1
                _integrate(S, X, f, t)
                _law(S, X, lp, sc, f, False, False, 0, to, 1)
                if S[f * NS + READY] == 0 and _open(S, X, f, t):
                    rl[rbase + rn], S[f * NS + READY] = f, 1
                    rn += 1
                _arm(tw, ov, cnt, S, f, t, rto, Rt, Lt)
            # 4. senders in a seeded rotating order; those that may send again go to the other half
            off = 0 if rn < 2 else _hash32(seed, t, 4) % rn
            for j in range(rn):
                i = off + j - (rn if off + j >= rn else 0)
                f = rl[rbase + i]
                stay, qlen = _send(S, X, dep, sc, f, t, qlen)
                _arm(tw, ov, cnt, S, f, t, rto, Rt, Lt)
                if stay:
                    rl[other + kept] = f
                    kept += 1
            rbase, rn = other, kept
            # 5. one slot of service: the head packet leaves, its ACK is filed at its arrival slot
            busy = qlen > 0
            if busy:
                d = t & (Rd - 1)
                f = dep[d * 4]
                mk = dep[d * 4 + 1] > 0 or (sc[MDEQ] != 0 and qlen >= sc[KTH])
                s1 = t + S[f * NS + RTT]
                while True:  # the first free lane; a full row pushes the ACK to the next slot
                    rb = (s1 & (R - 1)) * La
                    lane = 0
                    while lane < La and ackw[(rb + lane) * 6] == s1:
                        lane += 1
                    if lane < La:
                        break
                    s1 += 1
                e = rb + lane
                ackw[e * 6], ackw[e * 6 + 1], ackw[e * 6 + 2] = s1, f, 1 if mk else 0
                ackw[e * 6 + 3], ackw[e * 6 + 4], ackw[e * 6 + 5] = dep[d * 4 + 2], 1, dep[d * 4 + 3]
                spill += s1 - (t + S[f * NS + RTT])
                qlen -= 1
            q_sum = q_sum + np.float32(qlen)
            q_min, q_max = min(q_min, qlen), max(q_max, qlen)
            n_busy += 1 if busy else 0
            opps += 1
        # chunk end (:func:`..records.chunk_records`): records; the window integrals closed and reset
        for f in range(N):
            n = np.float32(_active_slots(S, f, S[f * NS + TINT], t1))
            out_f[k, 0, f] = fma32(X[f * NX + CWND], n, X[f * NX + CWINT])
            out_f[k, 1, f] = fma32(X[f * NX + ALPHA], n, X[f * NX + AUXINT])
            out_f[k, 2, f], out_f[k, 3, f] = X[f * NX + CWND], X[f * NX + ALPHA]
            out_i[k, 0, f] = _active_slots(S, f, t0, t1)
            out_i[k, 1, f], out_i[k, 2, f], out_i[k, 3, f] = (
                S[f * NS + INFL],
                S[f * NS + PEND],
                S[f * NS + ACKED],
            )
            out_i[k, 4, f], out_i[k, 5, f], out_i[k, 6, f] = (
                S[f * NS + NXT],
                S[f * NS + DROPS],
                S[f * NS + TMO],
            )
            X[f * NX + CWINT], X[f * NX + AUXINT], S[f * NS + TINT] = _F0, _F0, t1
        out_q[k] = q_sum
        b = 6 * k
        out_s[b], out_s[b + 1], out_s[b + 2], out_s[b + 3], out_s[b + 4], out_s[b + 5] = (
            q_min,
            q_max,
            n_busy,
            opps,
            qlen,
            marks,
        )
    b = 6 * n_chunks
    for f in range(N):
        out_s[b + f] = S[f * NS + FINISH]
    out_s[b + N], out_s[b + N + 1], out_s[b + N + 2] = spill, cnt[TWOVER], cnt[TWLOST]
