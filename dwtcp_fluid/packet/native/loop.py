"""The native slot loop: :mod:`..engine`'s slot semantics for one scenario, compiled by Numba.

This is a transcription of the reference engine (:mod:`..engine`, :mod:`..events`, :mod:`..wheels`,
:mod:`..receiver`, :mod:`..records`) for the feature set of :func:`.supported` — one bottleneck, ACK-clocked
window laws :class:`~..laws.dctcp.Dctcp` and :class:`~..laws.reno.Reno`, no Scouts or impairments — with every
ring kept exactly as the reference keeps it (ACK wheel lanes, timer wheel and overflow list, departure ring, the
two halves of the ready list, the seeded rotation of simultaneous senders), so that every record is bit-identical.

Floating point: float32 throughout, in the reference's order of operations. XLA:CPU compiles with LLVM's
floating-point contraction allowed (``AllowFPOpFusion::Fast``): a product that feeds an addition becomes one fused
multiply-add. The two places where the engine adds a product — the window integral ``cw_int + cwnd·n`` and DCTCP's
``(1 − g)·α + g·F`` — are written here as explicit FMAs (:func:`fma32`, ``llvm.fma.f32``) in the operand order
XLA fuses them; Numba compiles without contraction (no ``fastmath``), so nothing else is fused. The tests check
bit-identity against the reference engine record by record.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["run_scenario", "work_sizes", "fma32", "LAW_DCTCP", "LAW_RENO", "NEVER"]

NEVER = 2**31 - 1
LAW_DCTCP, LAW_RENO = 0, 1
_F0, _F1, _HALF, _TWO = np.float32(0.0), np.float32(1.0), np.float32(0.5), np.float32(2.0)
_M32 = 0xFFFFFFFF


@intrinsic
def fma32(typingctx, a, b, c):  # type: ignore[no-untyped-def]
    """round(a·b + c) in float32, rounded once (``llvm.fma.f32``), as XLA:CPU's contracted multiply-add."""
    sig = types.float32(types.float32, types.float32, types.float32)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        f32 = context.get_value_type(types.float32)
        fnty = cgutils.ir.FunctionType(f32, [f32, f32, f32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.fma.f32")
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _borrow(typingctx, arr):  # type: ignore[no-untyped-def]
    """A view of ``arr`` without its reference count (the caller keeps ``arr`` alive): Numba then has nothing
    to count when the view is passed to the helpers in the slot loop (atomic increments were 90 % of the time)."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        out = context.make_array(sig.return_type)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(ary, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    return arr(arr), codegen


@njit(cache=True, nogil=True, inline="always")
def _hash32(seed: int, t: int, purpose: int) -> int:
    """:func:`..switch.hash32` of (seed, slot, purpose) on uint32 arithmetic."""
    h = 0x9E3779B9
    for x in (seed, t, purpose):
        h = ((h ^ (x & _M32)) * 0x85EBCA6B) & _M32
        h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & _M32
    return h ^ (h >> 16)


@njit(cache=True, nogil=True, inline="always")
def _active_slots(start: int, stop: int, finish: int, a: int, b: int) -> int:
    end = min(stop, finish)
    return max(min(b, end) - max(a, start), 0)


@njit(cache=True, nogil=True, inline="always")
def _window_open(started: bool, stop: int, size: int, acked: int, infl: int, cwnd: np.float32, t: int) -> bool:
    return started and t < stop and acked + infl < size and np.float32(infl) + _F1 <= cwnd


def work_sizes(N: int, R: int, La: int, Rd: int, Rt: int, Lt: int) -> tuple[int, int, int]:
    """Sizes of the work arrays of :func:`run_scenario` (int64, float32, bool)."""
    return 15 * N + R * La * 6 + Rt * Lt * 2 + Rd * 4 + 8 * N + Lt, 5 * N, 2 * N


@njit(cache=True, nogil=True)
def run_scenario(fin, order, start_at, sc, lawp, shape, wi, wf, wb, rec_f, rec_i, rec_q, rec_qi, finish_out, misc):  # noqa: C901
    """Run one prepared scenario; fills the output arrays (see :mod:`.` for their layout).

    ``fin`` [N, 8] int32 per-flow inputs; ``sc`` int64 scalars (kth, mark_dequeue, buffer, rto, seed, n_slots,
    chunk, law kind, law option); ``lawp`` float32 (g, alpha0, init_cwnd, min_cwnd); ``shape`` int64 (ack_rows,
    ack_lanes, dep_rows, timer_rows, timer_lanes, n_chunks); ``wi``, ``wf``, ``wb``: work arrays of
    :func:`work_sizes`.
    """
    N = fin.shape[0]
    kth, mark_deq, buffer, rto, seed, n_slots, chunk, kind, opt = (
        sc[0], sc[1] != 0, sc[2], sc[3], sc[4], sc[5], sc[6], sc[7], sc[8] != 0,
    )
    g, alpha0, init_cwnd, min_cwnd = lawp[0], lawp[1], lawp[2], lawp[3]
    R, La, Rd, Rt, Lt, n_chunks = shape[0], shape[1], shape[2], shape[3], shape[4], shape[5]
    dctcp = kind == LAW_DCTCP
    one_g = _F1 - g
    # inputs and outputs as borrowed views (the caller keeps them alive)
    fin, order, start_at = _borrow(fin), _borrow(order), _borrow(start_at)
    rec_f, rec_i, rec_q, rec_qi = _borrow(rec_f), _borrow(rec_i), _borrow(rec_q), _borrow(rec_qi)
    rtt, start, stop, size = fin[:, 0], fin[:, 1], fin[:, 2], fin[:, 3]
    # per-flow state (the reference's packed row, one array per field) and the rings, carved from the caller's
    # work arrays ``wi`` (int64, :func:`work_sizes`), ``wf`` (float32), ``wb`` (bool)
    wi, wf, wb = _borrow(wi), _borrow(wf), _borrow(wb)
    infl, nxt, una, acked, pend = wi[0:N], wi[N : 2 * N], wi[2 * N : 3 * N], wi[3 * N : 4 * N], wi[4 * N : 5 * N]
    last, wake, t_int, drops, tmo = wi[5 * N : 6 * N], wi[6 * N : 7 * N], wi[7 * N : 8 * N], wi[8 * N : 9 * N], wi[9 * N : 10 * N]
    finish, recover, win_end = wi[10 * N : 11 * N], wi[11 * N : 12 * N], wi[12 * N : 13 * N]
    n_ack_s, n_mark_s = wi[13 * N : 14 * N], wi[14 * N : 15 * N]
    o = 15 * N
    ackw = wi[o : o + R * La * 6].reshape((R * La, 6))
    o += R * La * 6
    tw = wi[o : o + Rt * Lt * 2].reshape((Rt * Lt, 2))
    o += Rt * Lt * 2
    dep = wi[o : o + Rd * 4].reshape((Rd, 4))
    o += Rd * 4
    ov = wi[o : o + 4 * N].reshape((2 * N, 2))
    o += 4 * N
    rl = wi[o : o + 2 * N]
    dl = wi[o + 2 * N : o + 4 * N + Lt]
    cw_int, aux_int, cwnd, ssth, alpha = wf[0:N], wf[N : 2 * N], wf[2 * N : 3 * N], wf[3 * N : 4 * N], wf[4 * N : 5 * N]
    ready, started = wb[0:N], wb[N : 2 * N]
    wi[:] = 0
    wf[:] = _F0
    wb[:] = False
    for f in range(N):
        last[f] = start[f]
        wake[f] = NEVER
        finish[f] = NEVER
    # law state: cwnd (also the engine's mirror), ssthresh, recover; DCTCP's α estimator (α is the traced aux)
    cwnd[:] = init_cwnd
    ssth[:] = np.float32(1e9)
    alpha[:] = alpha0 if dctcp else _F0
    ackw[:, 0] = -1
    tw[:, 0] = -1
    ovn, rbase, rn, qlen, sptr, marks = 0, 0, 0, 0, 0, 0
    dense = NEVER
    spill, tw_over, tw_lost = 0, 0, 0

    for k in range(n_chunks):
        t0 = min(k * chunk, n_slots)
        t1 = min(t0 + chunk, n_slots)
        q_sum, q_min, q_max, n_busy, opps = _F0, 2**30, 0, 0, 0
        for t in range(t0, t1):
            # 1. starts
            while sptr < N and start_at[sptr] <= t:
                f = order[sptr]
                started[f] = True
                t_int[f] = t
                if (not ready[f]) and _window_open(True, stop[f], size[f], acked[f], infl[f], cwnd[f], t):
                    rl[rbase + rn] = f
                    rn += 1
                    ready[f] = True
                # arm
                w = _wake_due(infl, pend, last, rto, f, t)
                ovn, dense, tw_over, tw_lost = _arm(tw, ov, wake, f, w, t, Rt, Lt, N, ovn, dense, tw_over, tw_lost)
                sptr += 1
            # the slot's live wheel entries
            ra = (t & (R - 1)) * La
            n_ack = 0
            while n_ack < La and ackw[ra + n_ack, 0] == t:
                n_ack += 1
            rtb = (t & (Rt - 1)) * Lt
            n_tim = 0
            while n_tim < Lt and tw[rtb + n_tim, 0] == t:
                n_tim += 1
            for i in range(Lt):
                dl[i] = tw[rtb + i, 1]
            other = N - rbase
            fast = n_ack == 1 and n_tim == 0 and rn == 0 and dense != t
            kept0 = 0
            # 2. ACKs
            for j in range(n_ack):
                f = ackw[ra + j, 1]
                kk, nl, mark = ackw[ra + j, 4], ackw[ra + j, 3], (ackw[ra + j, 2] & 1) > 0
                infl[f] -= kk + nl
                una[f] += kk + nl
                acked[f] += kk
                last[f] = t
                if acked[f] >= size[f] and finish[f] == NEVER:
                    finish[f] = t
                if mark:
                    marks += kk
                _integrate(f, t, start, stop, finish, t_int, cw_int, aux_int, cwnd, alpha)
                _law(kind, opt, f, True, mark, nl, False, nxt[f], una[f], max(kk, 1), g, one_g, min_cwnd,
                     cwnd, ssth, recover, alpha, win_end, n_ack_s, n_mark_s)
                stay = False
                if fast:
                    stay, qlen = _send(f, t, stop, size, acked, infl, cwnd, started, pend, drops, last,
                                              nxt, ready, dep, qlen, buffer, kth, mark_deq, Rd)
                can = (not fast) and (not ready[f]) and _window_open(
                    started[f], stop[f], size[f], acked[f], infl[f], cwnd[f], t)
                if can:
                    rl[rbase + rn] = f
                    rn += 1
                    ready[f] = True
                elif fast and stay:
                    rl[other] = f
                    kept0 += 1
                w = _wake_due(infl, pend, last, rto, f, t)
                ovn, dense, tw_over, tw_lost = _arm(tw, ov, wake, f, w, t, Rt, Lt, N, ovn, dense, tw_over, tw_lost)
            # 3. timers: the wheel row's, then the overflow list's
            kt = n_tim
            if t == dense:
                kept, nx = 0, NEVER
                for i in range(ovn):
                    s0, f0 = ov[i, 0], ov[i, 1]
                    if s0 == t:
                        dl[kt] = f0
                        kt += 1
                    else:
                        ov[kept, 0], ov[kept, 1] = s0, f0
                        kept += 1
                        nx = min(nx, s0)
                ovn, dense = kept, nx
            for i in range(kt):
                f = dl[i]
                if wake[f] == t:
                    wake[f] = NEVER
                to = infl[f] > 0 and infl[f] == pend[f] and t - last[f] >= rto
                if to:
                    una[f] += infl[f]
                    infl[f] = 0
                    pend[f] = 0
                    last[f] = t
                    tmo[f] += 1
                _integrate(f, t, start, stop, finish, t_int, cw_int, aux_int, cwnd, alpha)
                _law(kind, opt, f, False, False, 0, to, nxt[f], una[f], 1, g, one_g, min_cwnd,
                     cwnd, ssth, recover, alpha, win_end, n_ack_s, n_mark_s)
                if (not ready[f]) and _window_open(started[f], stop[f], size[f], acked[f], infl[f], cwnd[f], t):
                    rl[rbase + rn] = f
                    rn += 1
                    ready[f] = True
                w = _wake_due(infl, pend, last, rto, f, t)
                ovn, dense, tw_over, tw_lost = _arm(tw, ov, wake, f, w, t, Rt, Lt, N, ovn, dense, tw_over, tw_lost)
            # 4. senders in a seeded rotating order; those that may send again go to the other half
            n = rn
            kept = kept0
            if n > 0:
                off = _hash32(seed, t, 4) % n
                for j in range(n):
                    i = off + j
                    if i >= n:
                        i -= n
                    f = rl[rbase + i]
                    stay, qlen = _send(f, t, stop, size, acked, infl, cwnd, started, pend, drops, last,
                                              nxt, ready, dep, qlen, buffer, kth, mark_deq, Rd)
                    w = _wake_due(infl, pend, last, rto, f, t)
                    ovn, dense, tw_over, tw_lost = _arm(tw, ov, wake, f, w, t, Rt, Lt, N, ovn, dense, tw_over,
                                                        tw_lost)
                    if stay:
                        rl[other + kept] = f
                        kept += 1
            rbase, rn = other, kept
            # 5. one slot of service: the head packet leaves, its ACK is filed at its arrival slot
            busy = qlen > 0
            if busy:
                d = t & (Rd - 1)
                f = dep[d, 0]
                mk = dep[d, 1] > 0 or (mark_deq and qlen >= kth)
                s0 = t + rtt[f]
                s1 = s0
                while True:
                    rb = (s1 & (R - 1)) * La
                    lane = 0
                    while lane < La and ackw[rb + lane, 0] == s1:
                        lane += 1
                    if lane < La:
                        break
                    s1 += 1
                ackw[rb + lane, 0], ackw[rb + lane, 1], ackw[rb + lane, 2] = s1, f, 1 if mk else 0
                ackw[rb + lane, 3], ackw[rb + lane, 4], ackw[rb + lane, 5] = dep[d, 2], 1, dep[d, 3]
                spill += s1 - s0
                qlen -= 1
            q_sum = q_sum + np.float32(qlen)
            q_min = min(q_min, qlen)
            q_max = max(q_max, qlen)
            n_busy += 1 if busy else 0
            opps += 1
        # chunk end: records, window integrals closed and reset
        for f in range(N):
            rec_i[k, 0, f] = _active_slots(start[f], stop[f], finish[f], t0, t1)
            nf = np.float32(_active_slots(start[f], stop[f], finish[f], t_int[f], t1))
            rec_f[k, 0, f] = fma32(cwnd[f], nf, cw_int[f])
            rec_f[k, 1, f] = fma32(alpha[f], nf, aux_int[f])
            rec_f[k, 2, f] = cwnd[f]
            rec_f[k, 3, f] = alpha[f]
            rec_i[k, 1, f] = infl[f]
            rec_i[k, 2, f] = pend[f]
            rec_i[k, 3, f] = acked[f]
            rec_i[k, 4, f] = nxt[f]
            rec_i[k, 5, f] = drops[f]
            rec_i[k, 6, f] = tmo[f]
            cw_int[f] = _F0
            aux_int[f] = _F0
            t_int[f] = t1
        rec_q[k] = q_sum
        rec_qi[k, 0], rec_qi[k, 1], rec_qi[k, 2], rec_qi[k, 3] = q_min, q_max, n_busy, opps
        rec_qi[k, 4], rec_qi[k, 5] = qlen, marks
    for f in range(N):
        finish_out[f] = finish[f]
    misc[0], misc[1], misc[2] = spill, tw_over, tw_lost


@njit(cache=True, nogil=True, inline="always")
def _integrate(f, t, start, stop, finish, t_int, cw_int, aux_int, cwnd, alpha):  # type: ignore[no-untyped-def]
    """:func:`..flows.integrate`: the window (and α) times the active slots since ``t_int``."""
    nf = np.float32(_active_slots(start[f], stop[f], finish[f], t_int[f], t))
    cw_int[f] = fma32(cwnd[f], nf, cw_int[f])
    aux_int[f] = fma32(alpha[f], nf, aux_int[f])
    t_int[f] = t


@njit(cache=True, nogil=True, inline="always")
def _wake_due(infl, pend, last, rto, f, t):  # type: ignore[no-untyped-def]
    """:func:`..wheels._wake_due`: the retransmission timeout (the laws here never ask to be woken)."""
    if infl[f] > 0 and infl[f] == pend[f]:
        return max(last[f] + rto, t + 1)
    return NEVER


@njit(cache=True, nogil=True, inline="always")
def _arm(tw, ov, wake, f, w, t, Rt, Lt, N, ovn, dense, tw_over, tw_lost):  # type: ignore[no-untyped-def]
    """:func:`..wheels.arm`: make sure flow ``f`` is woken by slot ``w``."""
    wk = wake[f]
    live = wk > t and wk < NEVER
    if not (w < NEVER and ((not live) or w < wk)):
        return ovn, dense, tw_over, tw_lost
    slot = min(w, t + (Rt - 1))
    rb = (slot & (Rt - 1)) * Lt
    lane = 0
    while lane < Lt and tw[rb + lane, 0] == slot:
        lane += 1
    if lane < Lt:
        tw[rb + lane, 0] = slot
        tw[rb + lane, 1] = f
    else:
        tw_over += 1
        if ovn < 2 * N:
            ov[ovn, 0] = slot
            ov[ovn, 1] = f
            ovn += 1
            dense = min(dense, slot)
        else:
            tw_lost += 1
    wake[f] = slot
    return ovn, dense, tw_over, tw_lost


@njit(cache=True, nogil=True, inline="always")
def _send(f, t, stop, size, acked, infl, cwnd, started, pend, drops, last, nxt, ready, dep, qlen, buffer, kth,
          mark_deq, Rd):  # type: ignore[no-untyped-def]
    """:func:`..events._send`: drop-tail enqueue, ECN mark at enqueue, the packet filed at its departure slot.
    Returns whether the flow may send again next slot, and the queue."""
    ok = _window_open(started[f], stop[f], size[f], acked[f], infl[f], cwnd[f], t)
    if ok:
        seen = qlen
        if seen < buffer:
            d = (t + seen) & (Rd - 1)
            dep[d, 0] = f
            dep[d, 1] = 1 if ((not mark_deq) and seen >= kth) else 0
            dep[d, 2] = pend[f]
            dep[d, 3] = t
            qlen += 1
            pend[f] = 0
        else:
            pend[f] += 1
            drops[f] += 1
        if infl[f] == 0:
            last[f] = t
        infl[f] += 1
        nxt[f] += 1
    stay = _window_open(started[f], stop[f], size[f], acked[f], infl[f], cwnd[f], t + 1)
    ready[f] = stay
    return stay, qlen


@njit(cache=True, nogil=True, inline="always")
def _law(kind, opt, f, ack, mark, nloss, timeout, snd_nxt, snd_una, n_acked, g, one_g, min_cwnd,
         cwnd, ssth, recover, alpha, win_end, n_ack_s, n_mark_s):  # type: ignore[no-untyped-def]
    """One step of :class:`~..laws.dctcp.Dctcp` (``opt``: ``cwr_hold``) or :class:`~..laws.reno.Reno`
    (``opt``: ``ecn``) for flow ``f``, in the reference's float32 operations."""
    cw = cwnd[f]
    loss = nloss > 0
    open_ = snd_una >= recover[f]
    if kind == LAW_DCTCP:
        kk = n_acked if ack else 0
        na = n_ack_s[f] + kk
        nm = n_mark_s[f] + (kk if mark else 0)
        if ack and snd_una >= win_end[f]:
            frac = np.float32(nm) / np.float32(max(na, 1))
            alpha[f] = fma32(one_g, alpha[f], g * frac)
            win_end[f] = snd_nxt
            na, nm = 0, 0
        n_ack_s[f], n_mark_s[f] = na, nm
        loss_cut = loss and open_
        react = (ack and mark and (not loss) and open_) or loss_cut
        grow = ack and not loss
        if opt:
            grow = grow and open_
        if loss_cut:
            cut = cw * _HALF
        else:
            cut = cw * (_F1 - alpha[f] * _HALF)
    else:
        congestion = loss or (ack and mark) if opt else loss
        react = congestion and open_
        cut = cw * _HALF
        grow = ack and not congestion
    if react:
        cut = max(cut, min_cwnd)
        new = cut
        ssth[f] = cut
        recover[f] = snd_nxt
    elif grow:
        k = np.float32(n_acked)
        new = cw + (k if cw < ssth[f] else k / cw)
    else:
        new = cw
    if timeout:
        ssth[f] = max(cw * _HALF, _TWO)
        new = _F1
        recover[f] = snd_nxt
    cwnd[f] = new
