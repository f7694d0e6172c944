# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""The native slot loop: the reference engine's slot semantics for one scenario, compiled by Numba.

A transcription of the reference (:mod:`..engine`, :mod:`..events`, :mod:`..wheels`, :mod:`..receiver`,
:mod:`..records`) for the set of :func:`.unsupported` — one bottleneck, ACK-clocked :class:`~..laws.dctcp.Dctcp`,
:class:`~..laws.d2tcp.D2tcp` or :class:`~..laws.reno.Reno` flows under any of their sender rules (:mod:`.window`), or
:class:`~..laws.dwtcp.Dwtcp` flows with their Scouts (:mod:`.scout_law`, :mod:`.scouts`: the strict-priority
Scout queue served in idle slots), or the rate laws :class:`~..laws.timely.Timely` and
:class:`~..laws.timely_patched.TimelyPatched` (:mod:`.rate_law`) and :class:`~..laws.swift.Swift`
(:mod:`.delay_target`) paced at their rate (:mod:`.pacing`), or :class:`~..laws.hpcc.Hpcc` and
:class:`~..laws.hpcc.HpccPint` (:mod:`.int_law`: paced, reading the in-band telemetry the port stamps on each
departing packet), open-loop senders and Scout-only probes, no impairments, on one bottleneck or on routed ports
(:mod:`.ports`: a chain or fabric of ports, each with its own rate, queue, marking threshold and Scout queue;
:mod:`..ports`) — keeping every ring as the reference
keeps it (ACK wheel lanes, timer wheel and overflow list, departure ring, Scout queue, the two halves of the ready
list, the seeded rotation of simultaneous senders), so that every record is bit-identical. Step numbers below are those of
:mod:`..engine`'s docstring.

**Floating point.** float32 throughout, in the reference's order of operations. XLA:CPU compiles with LLVM's
floating-point contraction allowed: a product feeding an addition becomes one fused multiply-add. Where the
reference adds a product — the window integrals ``cw_int + cwnd·n``, DCTCP's ``(1 − g)·α + g·F``, DWTCP's ``w +
α·S/L`` and ``1 − β√w·a``, the rate laws' (:mod:`.rate_law`) — the loop writes an explicit FMA (:func:`.core.fma32`)
with the operands XLA fuses (found by the bit-identity tests: fusing ``g·F`` instead, or not fusing, changes α in
the last bit within milliseconds). Numba compiles without contraction (no ``fastmath``), so nothing else is fused.

**Subnormals are flushed to zero**, as XLA:CPU does (it runs with the FTZ and DAZ modes set: a float32 result below
the smallest normal 2⁻¹²⁶ ≈ 1.18e-38 becomes a zero of the same sign, and such an input reads as zero). Numba keeps
subnormals, so :func:`.core.ftz32` is applied where one can arise: DCTCP's α and the product g·F feeding it (α
decays by the factor 1 − g per window without marks: g = 0.999999 reaches 1e-42 in seven windows), α/2 in the cut,
DWTCP's α·2⁻ⁿ, and TIMELY's gradient average and gradient. Every other float32 quantity (windows ≥ 1, their
integrals, ssthresh, Scout delays in whole slots) stays far above 2⁻¹²⁶.

**Speed** (CPU time per data packet, DCTCP N = 10: 20 ns; the reference 125-140 ns). State lives in flat
arrays (:mod:`.core`) — one flow in a few cache lines, so the cost per event barely grows with N — and the rings
are flat arrays with constant row widths (2-D views with runtime strides cost 60 % more). All are borrowed views
of the caller's work arrays (:func:`.core.borrow`): passing reference-counted arrays to the inlined helpers cost
two atomic updates per array per call, 90 % of the run time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .core import (
    ACKED,
    ALPHA,
    AUXINT,
    BUFFER,
    CA,
    CACHE,
    CHUNK,
    CWINT,
    CWND,
    DEADLINE,
    DENSE,
    DET,
    DROPS,
    ECWND,
    F0,
    F1,
    FINISH,
    GEO,
    GHOST,
    HASSC,
    HOLES,
    INFL,
    JIT,
    KIND,
    KTH,
    LAST,
    LAW_DWTCP,
    LAW_HPCC,
    LAW_HPCC_PINT,
    LAW_OPEN,
    LAW_PROBE,
    LAW_RENO,
    LAW_SWIFT,
    LAW_TIMELY,
    LAW_TIMELY_PATCHED,
    LAWK,
    LEAD,
    M32,
    MDEQ,
    N_CNT,
    NEVER,
    NS,
    NSLOTS,
    NX,
    NXT,
    OPT,
    OVN,
    OWED,
    PACE,
    PEND,
    PRATE,
    PRIOR,
    READY,
    RED,
    RTO,
    RTT,
    RTXDL,
    SBUF,
    SCOUTS,
    SDROPPED,
    SDT,
    SEED,
    SIZE,
    SLOSTN,
    SLRCV,
    SQN,
    SSENT,
    SSERVED,
    SSTH,
    START,
    STARTED,
    STOP,
    SWAIT,
    TINT,
    TMO,
    TWLOST,
    TWOVER,
    UNA,
    WAKE,
    active_slots,
    borrow,
    fma32,
    hash32,
    integrate,
)  # fmt: skip
from .delay_target import swift_step
from .int_law import IE, file_ack_int, hpcc_step
from .pacing import pace_ok, pace_send, pace_wake
from .ports import PE, SE, port_enqueue, port_of, port_scout_send, put_scout, service_slot
from .rate_law import rate_step, rtt_sample
from .rings import arm, insert_ack
from .scout_law import dwtcp_event
from .scouts import scout_receive, scout_send, scout_wake, serve_scouts
from .window import CA_RECOVERY, OPT_RTO_RTX, RED_NS3, RED_PRR, window_law

__all__ = ["run_scenario", "work_sizes", "N_REC"]

#: Per-chunk scalar records in ``out_s``: q_min, q_max, busy, opps, q_end, marks, Scouts sent, served, dropped,
#: lost, their slots waited (cumulative counts).
N_REC = 11


def work_sizes(N: int, R: int, La: int, Rd: int, Rt: int, Lt: int, Sc: int, P: int = 0) -> tuple[int, int]:
    """Sizes of the work arrays of :func:`run_scenario` (int64, float32); ``Sc``: the Scout queue's capacity,
    ``P``: the routed ports (0: the single bottleneck)."""
    ports = P * (5 + Rd * PE + PE + 2 * Sc * SE)
    return (
        NS * N + R * La * 6 + Rt * Lt * 2 + Rd * 4 + 8 * N + Lt + N_CNT + 2 * Sc + R * La * IE + ports,
        NX * N + P,
    )


@njit(**JIT)
def _open(S: Any, X: Any, f: int, t: int) -> bool:
    """:func:`..wheels._window_open`."""
    return (
        S[f * NS + STARTED] != 0
        and t < S[f * NS + STOP]
        and S[f * NS + ACKED] + S[f * NS + INFL] < S[f * NS + SIZE]
        and np.float32(S[f * NS + INFL]) + F1 <= X[f * NX + CWND]
    )


@njit(**JIT)
def _can(S: Any, X: Any, f: int, t: int, pace: bool) -> bool:
    """:func:`..wheels._window_open` and, for a paced flow, :func:`..wheels._pace_ok`."""
    return _open(S, X, f, t) and ((not pace) or pace_ok(S, X, f, t))


@njit(**JIT)
def _wake_due(
    S: Any, X: Any, rto: int, rtx: bool, hassc: bool, pace: bool, f: int, t: int, law_wake: int
) -> int:
    """:func:`..wheels._wake_due`: the retransmission timeout (``rtx``: a dropped stand-in retransmission's too),
    the law's wake-up, the next paced send, the Scout send and timeout."""
    w = NEVER
    lost = S[f * NS + PEND] + (S[f * NS + HOLES] if rtx else 0)
    if S[f * NS + INFL] > 0 and S[f * NS + INFL] == lost:
        due = ((S[f * NS + LAST] + rto + 0x80000000) & M32) - 0x80000000  # int32, wrapping as the reference's
        w = max(due, t + 1)
    w = min(w, law_wake)
    if rtx and S[f * NS + HOLES] > 0:
        w = min(w, max(S[f * NS + RTXDL], t + 1))
    if pace:
        w = pace_wake(S, X, f, t, w, _open(S, X, f, t + 1))
    if hassc:
        w = scout_wake(S, X, f, t, w)
    return w


@njit(**JIT)
def _event(
    S: Any, X: Any, lp: Any, ex2: Any, sc: Any, cnt: Any, kind: int, f: int, t: int, ack: bool, mark: bool,
    nloss: int, timeout: bool, k: int, n_scout: int, seqp1: int, sample: Any, iq: int, itx: int, its: int,
) -> int:  # fmt: skip
    """:func:`..events._law_event`: the Scout bookkeeping (DWTCP, a Scout-only probe), then one call of the
    flow's law (``kind``; ``k``: packets the ACK acknowledges; ``sample``: its RTT sample, for a rate law; ``iq``,
    ``itx``, ``its``: its in-band telemetry, for HPCC). Returns the law's next wake-up slot. (A flow that never
    sends Scouts has nothing to book.)"""
    if kind == LAW_TIMELY or kind == LAW_TIMELY_PATCHED:
        integrate(S, X, f, t)
        rate_step(S, X, lp, kind, f, ack, k, sample)
        return NEVER
    if kind == LAW_SWIFT:
        integrate(S, X, f, t)
        swift_step(S, X, lp, sc, f, t, ack, nloss, timeout, k, sample)
        return NEVER
    if kind == LAW_HPCC or kind == LAW_HPCC_PINT:
        integrate(S, X, f, t)
        hpcc_step(S, X, lp, sc, kind, f, t, ack, iq, itx, its)
        return NEVER
    if kind == LAW_OPEN or kind == LAW_PROBE:  # no state: it never changes
        if sc[HASSC] != 0:
            scout_receive(S, X, cnt, f, t, n_scout, seqp1)
        integrate(S, X, f, t)
        return NEVER
    if kind != LAW_DWTCP:
        integrate(S, X, f, t)
        window_law(S, X, lp, sc, f, t, ack, mark, nloss, timeout, k)
        return NEVER
    return dwtcp_event(S, X, lp, ex2, sc, cnt, f, t, ack, nloss, timeout, n_scout, seqp1)


@njit(**JIT)
def _rtx(sc: Any) -> bool:
    """The run's law recovers a lost retransmission by the timer only (Reno's ``lost_retransmit="rto"``)."""
    return sc[KIND] == LAW_RENO and (sc[OPT] & OPT_RTO_RTX) != 0


@njit(**JIT)
def _send(
    S: Any, X: Any, lp: Any, dep: Any, sc: Any, pace: bool, f: int, t: int, qlen: int,
    P: int, route: Any, H: int, pp: Any, pq: Any, pdep: Any, pdrops: Any, Rd: int,
) -> tuple[bool, int]:  # fmt: skip
    """:func:`..events._send`: drop-tail enqueue, ECN mark at enqueue, the packet filed at its departure slot, the
    pacing schedule advanced; with routed ports (``P`` > 0) at the first port of the flow's route. Returns whether
    the flow may send again next slot, and the queue."""
    if _can(S, X, f, t, pace):
        if P > 0:
            if port_enqueue(pq, pdep, pdrops, pp, P, Rd, route[f * H], t, f, 0, S[f * NS + PEND], t, 0):
                S[f * NS + PEND] = 0
            else:
                S[f * NS + PEND] += 1
                S[f * NS + DROPS] += 1
        else:
            hole = False
            rec = S[f * NS + CA] == CA_RECOVERY or not (sc[RED] == RED_PRR or sc[RED] == RED_NS3)
            if (
                _rtx(sc) and S[f * NS + OWED] > 0 and rec
            ):  # sent in Recovery: it stands for a retransmission owed
                S[f * NS + OWED] -= 1
                hole = qlen >= sc[BUFFER]
            if qlen < sc[BUFFER]:
                d = (t + qlen) & (dep.shape[0] // 4 - 1)
                dep[d * 4], dep[d * 4 + 1] = f, 1 if (sc[MDEQ] == 0 and qlen >= sc[KTH]) else 0
                dep[d * 4 + 2], dep[d * 4 + 3] = S[f * NS + PEND], t
                qlen += 1
                S[f * NS + PEND] = 0
            elif hole:  # a dropped stand-in: not reported, its timeout armed
                if S[f * NS + HOLES] == 0:
                    S[f * NS + RTXDL] = t + sc[RTO]
                S[f * NS + HOLES] += 1
                S[f * NS + DROPS] += 1
            else:
                S[f * NS + PEND] += 1
                S[f * NS + DROPS] += 1
        if S[f * NS + INFL] == 0:
            S[f * NS + LAST] = t
        S[f * NS + INFL] += 1
        S[f * NS + NXT] += 1
        if pace:
            pace_send(S, X, lp, sc, f, t)
    stay = _can(S, X, f, t + 1, pace)
    S[f * NS + READY] = stay
    return stay, qlen


@njit(cache=CACHE, nogil=True)
def run_scenario(
    fin: Any, sdt: Any, fx0: Any, lk: Any, order: Any, start_at: Any, sc: Any, lp: Any, ex2: Any, shape: Any,
    wi: Any, wf: Any, out_f: Any, out_i: Any, out_q: Any, out_s: Any, route: Any, pp: Any, out_p: Any,
    out_pi: Any,
) -> None:  # fmt: skip
    """Run one prepared scenario (inputs of :func:`..engine.prepare`), filling the output arrays.

    ``fin`` [N, 8] int32 per-flow inputs, ``sdt`` [N] float32 Scout target delays, ``fx0`` [N, 3] float32 each
    flow's initial window, traced field and pacing rate; ``lk`` int64 the kind of each law of the run (+256:
    paced with geometric gaps), indexed by the flow's law index; ``sc`` int64 scalars (indices
    of :mod:`.core`); ``lp`` [laws, :data:`.core.N_LP`] float32 each law's parameters (a flow reads its law's row); ``ex2`` the
    reference's 2⁻ⁿ (:func:`.scout_law.exp2_table`); ``shape`` int64 (ack_rows, ack_lanes, dep_rows, timer_rows,
    timer_lanes, n_chunks, scout_cap, ports P (0: the single bottleneck), route length H); ``wi``, ``wf`` work
    arrays of :func:`work_sizes`; with routed ports ``route`` int64 [N·H] each flow's ports (-1 padded) and
    ``pp`` int64 [3·P] the ports' rates, buffers and thresholds (:mod:`.ports`). Outputs: ``out_f``
    [chunk, 4, N] (cwnd_sum, alpha_sum, cwnd_end, alpha_end), ``out_i`` [chunk, 7, N] (active, inflight_end,
    pending_end and the cumulative delivered, sent, drops, timeouts), ``out_q`` [chunk] (q_sum), ``out_s`` int32
    (per chunk the :data:`N_REC` scalar records; then finish [N], spill, timer overflows, timers lost); with
    routed ports ``out_p`` float32 [chunk, P] (port_q_sum) and ``out_pi`` int32 [chunk, 4, P] (port_busy,
    port_opps, port_drops, port_q_end).
    """
    N = fin.shape[0]
    R, La, Rd, Rt, Lt, n_chunks, Sc = shape[0], shape[1], shape[2], shape[3], shape[4], shape[5], shape[6]
    P, H = shape[7], shape[8]
    fin, sdt, order, start_at = borrow(fin), borrow(sdt), borrow(order), borrow(start_at)
    route, pp, out_p, out_pi = borrow(route), borrow(pp), borrow(out_p), borrow(out_pi)
    fx0, lk = borrow(fx0), borrow(lk)
    sc, lp, ex2 = borrow(sc), borrow(lp), borrow(ex2)
    out_f, out_i, out_q, out_s = borrow(out_f), borrow(out_i), borrow(out_q), borrow(out_s)
    wi, wf = borrow(wi), borrow(wf)
    wi[:] = 0
    wf[:] = 0
    S = wi[: NS * N]
    o = NS * N
    ackw = wi[o : o + R * La * 6]
    o += R * La * 6
    tw = wi[o : o + Rt * Lt * 2]
    o += Rt * Lt * 2
    dep = wi[o : o + Rd * 4]
    o += Rd * 4
    ov = wi[o : o + 4 * N]
    rl, dl = wi[o + 4 * N : o + 6 * N], wi[o + 6 * N : o + 8 * N + Lt]
    o += 8 * N + Lt
    cnt, sq = wi[o : o + N_CNT], wi[o + N_CNT : o + N_CNT + 2 * Sc]
    o += N_CNT + 2 * Sc
    intw = wi[o : o + R * La * IE]  # the in-band telemetry of each ACK wheel entry (HPCC)
    o += R * La * IE
    # routed ports (:mod:`.ports`): queues, chunk counters, departure rings, Scout queues, the packets and Scouts
    # forwarded to the next slot
    pq, pbusy, popps, pdrops, psqn = wi[o : o + P], wi[o + P : o + 2 * P], wi[o + 2 * P : o + 3 * P], wi[o + 3 * P : o + 4 * P], wi[o + 4 * P : o + 5 * P]  # fmt: skip
    o += 5 * P
    pdep = wi[o : o + P * Rd * PE]
    o += P * Rd * PE
    fw = wi[o : o + P * PE]
    o += P * PE
    psq, sfw = wi[o : o + P * Sc * SE], wi[o + P * Sc * SE : o + 2 * P * Sc * SE]
    X = wf[: NX * N]
    pqs = wf[NX * N : NX * N + P]
    ackw[::6] = -1  # stamps
    tw[::2] = -1
    cnt[DENSE] = NEVER
    hassc, pace, rtx = sc[HASSC] != 0, sc[PACE] != 0, _rtx(sc)
    for f in range(N):
        b = f * NS
        S[b + RTT], S[b + START], S[b + STOP], S[b + SIZE] = fin[f, 0], fin[f, 1], fin[f, 2], fin[f, 3]
        S[b + LAST], S[b + WAKE], S[b + FINISH] = fin[f, 1], NEVER, NEVER
        S[b + RTXDL] = NEVER
        S[b + SCOUTS], S[b + SLRCV], S[b + DET], S[b + DEADLINE] = fin[f, 5], fin[f, 1], -(2**30), fin[f, 6]
        S[b + LEAD] = fin[f, 7]
        S[b + LAWK], S[b + GEO] = lk[fin[f, 4]] & 255, lk[fin[f, 4]] >> 8
        b = f * NX
        X[b + CWINT], X[b + AUXINT], X[b + CWND], X[b + SSTH], X[b + PRIOR] = F0, F0, fx0[f, 0], 1e9, F0
        X[b + ALPHA], X[b + PRATE], X[b + SDT], X[b + ECWND] = fx0[f, 1], fx0[f, 2], sdt[f], fx0[f, 1]
    rto, seed, n_slots, chunk = sc[RTO], sc[SEED], sc[NSLOTS], sc[CHUNK]
    rbase, rn, qlen, sptr, marks, spill, txc, fwn, sfwn = 0, 0, 0, 0, 0, 0, 0, 0, 0
    hint = sc[KIND] == LAW_HPCC or sc[KIND] == LAW_HPCC_PINT  # the port stamps in-band telemetry
    for k in range(n_chunks):
        t0 = min(k * chunk, n_slots)
        t1 = min(t0 + chunk, n_slots)
        q_sum, q_min, q_max, n_busy, opps = F0, 2**30, 0, 0, 0
        for p in range(P):
            pqs[p], pbusy[p], popps[p], pdrops[p] = F0, 0, 0, 0
        for t in range(t0, t1):
            # 0. routed ports: the packets forwarded last slot reach the next port of their route, data first (a
            # drop is added to the flow's unreported losses), then Scouts
            if P > 0:
                for i in range(fwn):
                    e = i * PE
                    f, hop = fw[e], fw[e + 4]
                    p = port_of(route, H, f, hop)
                    if not port_enqueue(
                        pq, pdep, pdrops, pp, P, Rd, p, t, f, fw[e + 1], fw[e + 2], fw[e + 3], hop
                    ):
                        S[f * NS + PEND] += 1 + fw[e + 2]
                        S[f * NS + DROPS] += 1
                        due = _wake_due(S, X, rto, rtx, hassc, pace, f, t, NEVER)
                        arm(tw, ov, cnt, S, f, t, due, Rt, Lt, pace)
                for i in range(sfwn):
                    e = i * SE
                    f, hop = sfw[e], sfw[e + 2]
                    put_scout(psq, psqn, cnt, sc[SBUF], Sc, port_of(route, H, f, hop), f, sfw[e + 1], hop)
                fwn, sfwn = 0, 0
            # 1. starts (a Scout-using flow sends its first Scout now)
            while sptr < N and start_at[sptr] <= t:
                f = order[sptr]
                S[f * NS + STARTED], S[f * NS + TINT] = 1, t
                if hassc and P > 0:
                    port_scout_send(S, cnt, psq, psqn, sc[SBUF], Sc, route, H, f, t)
                elif hassc:
                    scout_send(S, cnt, sq, sc, f, t)
                if S[f * NS + READY] == 0 and _can(S, X, f, t, pace):
                    rl[rbase + rn], S[f * NS + READY] = f, 1
                    rn += 1
                arm(tw, ov, cnt, S, f, t, _wake_due(S, X, rto, rtx, hassc, pace, f, t, NEVER), Rt, Lt, pace)
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
            # 2. ACKs (data or Scout); in the common slot (one ACK, no timer, nobody waiting) its flow sends at once
            for j in range(n_ack):
                e = (ra + j) * 6
                f, flags = ackw[e + 1], ackw[e + 2]
                data = not (hassc and (flags & 2) > 0)
                if data:
                    nl, kk, mark, n_sc, seqp1 = ackw[e + 3], ackw[e + 4], (flags & 1) > 0, 0, 0
                    ei = (ra + j) * IE
                    iq, itx, its = (intw[ei], intw[ei + 1], intw[ei + 2]) if hint else (0, 0, 0)
                    fk = S[f * NS + LAWK]
                    rtt_law = fk == LAW_TIMELY or fk == LAW_TIMELY_PATCHED or fk == LAW_SWIFT
                    sample = rtt_sample(sc, lp[fin[f, 4]], f, t, ackw[e + 5]) if rtt_law else F0
                    live = not (rtx and ackw[e + 5] < S[f * NS + GHOST])
                    if not live:  # sent before the last timeout: a delivery only
                        S[f * NS + ACKED] += kk
                        nl, kk, mark = 0, 0, False
                    elif rtx:
                        S[f * NS + OWED] += nl
                    S[f * NS + INFL] -= kk + nl
                    S[f * NS + UNA] += kk + nl
                    S[f * NS + ACKED] += kk
                    if live:
                        S[f * NS + LAST] = t
                    if S[f * NS + ACKED] >= S[f * NS + SIZE] and S[f * NS + FINISH] == NEVER:
                        S[f * NS + FINISH] = t
                    if mark:
                        marks += kk
                    data = live
                else:
                    nl, kk, mark, n_sc, seqp1, sample = 0, 0, False, 1, ackw[e + 4] + 1, F0
                    iq, itx, its = 0, 0, 0
                w = _event(
                    S, X, lp[fin[f, 4]], ex2, sc, cnt, S[f * NS + LAWK], f, t, data, mark, nl, False, max(kk, 1), n_sc, seqp1,
                    sample, iq, itx, its,
                )  # fmt: skip
                stay = False
                if fast:
                    stay, qlen = _send(
                        S, X, lp[fin[f, 4]], dep, sc, pace, f, t, qlen, P, route, H, pp, pq, pdep, pdrops, Rd
                    )
                if (not fast) and S[f * NS + READY] == 0 and _can(S, X, f, t, pace):
                    rl[rbase + rn], S[f * NS + READY] = f, 1
                    rn += 1
                elif fast and stay:
                    rl[other] = f
                    kept += 1
                arm(tw, ov, cnt, S, f, t, _wake_due(S, X, rto, rtx, hassc, pace, f, t, w), Rt, Lt, pace)
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
                    and S[f * NS + INFL] == S[f * NS + PEND] + (S[f * NS + HOLES] if rtx else 0)
                    and t - S[f * NS + LAST] >= rto
                )
                if rtx:  # a dropped stand-in retransmission: the timeout at its send slot + RTO
                    to = to or (S[f * NS + HOLES] > 0 and t >= S[f * NS + RTXDL])
                    if to:
                        S[f * NS + OWED], S[f * NS + HOLES], S[f * NS + RTXDL], S[f * NS + GHOST] = (
                            0,
                            0,
                            NEVER,
                            t,
                        )
                if to:
                    S[f * NS + UNA] += S[f * NS + INFL]
                    S[f * NS + INFL], S[f * NS + PEND], S[f * NS + LAST] = 0, 0, t
                    S[f * NS + TMO] += 1
                w = _event(
                    S, X, lp[fin[f, 4]], ex2, sc, cnt, S[f * NS + LAWK], f, t, False, False, 0, to, 1, 0, 0, F0, 0, 0, 0,
                )  # fmt: skip
                if hassc and P > 0:
                    port_scout_send(S, cnt, psq, psqn, sc[SBUF], Sc, route, H, f, t)
                elif hassc:
                    scout_send(S, cnt, sq, sc, f, t)
                if S[f * NS + READY] == 0 and _can(S, X, f, t, pace):
                    rl[rbase + rn], S[f * NS + READY] = f, 1
                    rn += 1
                arm(tw, ov, cnt, S, f, t, _wake_due(S, X, rto, rtx, hassc, pace, f, t, w), Rt, Lt, pace)
            # 4. senders in a seeded rotating order; those that may send again go to the other half
            off = 0 if rn < 2 else hash32(seed, t, 4) % rn
            for j in range(rn):
                i = off + j - (rn if off + j >= rn else 0)
                f = rl[rbase + i]
                stay, qlen = _send(
                    S, X, lp[fin[f, 4]], dep, sc, pace, f, t, qlen, P, route, H, pp, pq, pdep, pdrops, Rd
                )
                arm(tw, ov, cnt, S, f, t, _wake_due(S, X, rto, rtx, hassc, pace, f, t, NEVER), Rt, Lt, pace)
                if stay:
                    rl[other + kept] = f
                    kept += 1
            rbase, rn = other, kept
            # 5. one slot of service: the head packet leaves, its ACK is filed at its arrival slot; an idle slot
            # serves every queued Scout. With routed ports, at every port in port id order (:func:`..ports.serve_ports`):
            # a packet leaving a port that is not the last of its route, and a Scout served there, are forwarded
            # to the next slot
            if P > 0:
                for p in range(P):
                    opp = service_slot(t, pp[p])
                    q = pq[p]
                    busy = opp and q > 0
                    if busy:
                        e = (p * Rd + (t & (Rd - 1))) * PE
                        f = pdep[e]
                        if port_of(route, H, f, pdep[e + 4] + 1) < 0:
                            spill += insert_ack(
                                ackw, R, La, t + S[f * NS + RTT], f, 1 if pdep[e + 1] > 0 else 0, pdep[e + 2], 1,
                                pdep[e + 3],
                            )  # fmt: skip
                        else:
                            b = fwn * PE
                            fw[b], fw[b + 1], fw[b + 2], fw[b + 3] = f, pdep[e + 1], pdep[e + 2], pdep[e + 3]
                            fw[b + 4] = pdep[e + 4] + 1
                            fwn += 1
                        q -= 1
                        pq[p] = q
                    pqs[p] = pqs[p] + np.float32(q)
                    pbusy[p] += 1 if busy else 0
                    popps[p] += 1 if opp else 0
                    if hassc and opp and not busy:
                        n_sq = psqn[p]
                        for i in range(n_sq):
                            e = (p * Sc + i) * SE
                            f, seq, hop = psq[e], psq[e + 1], psq[e + 2]
                            if port_of(route, H, f, hop + 1) < 0:
                                cnt[SSERVED] += 1
                                cnt[SWAIT] += t - (S[f * NS + START] + seq * S[f * NS + SCOUTS])
                                spill += insert_ack(ackw, R, La, t + S[f * NS + RTT], f, 2, 0, seq, t)
                            else:
                                b = sfwn * SE
                                sfw[b], sfw[b + 1], sfw[b + 2] = f, seq, hop + 1
                                sfwn += 1
                        psqn[p] = 0
                continue
            busy = qlen > 0
            if busy:
                d = t & (Rd - 1)
                f = dep[d * 4]
                mk = dep[d * 4 + 1] > 0 or (sc[MDEQ] != 0 and qlen >= sc[KTH])
                if hint:  # the port's telemetry as the packet leaves: queue behind it, packets sent, slot
                    txc += 1
                    spill += file_ack_int(
                        ackw, intw, R, La, t + S[f * NS + RTT], f, 1 if mk else 0, dep[d * 4 + 2], dep[d * 4 + 3],
                        qlen - 1, txc, t,
                    )  # fmt: skip
                else:
                    spill += insert_ack(
                        ackw, R, La, t + S[f * NS + RTT], f, 1 if mk else 0, dep[d * 4 + 2], 1, dep[d * 4 + 3]
                    )
                qlen -= 1
            elif hassc and cnt[SQN] > 0:
                spill += serve_scouts(S, cnt, sq, ackw, R, La, t)
            q_sum = q_sum + np.float32(qlen)
            q_min, q_max = min(q_min, qlen), max(q_max, qlen)
            n_busy += 1 if busy else 0
            opps += 1
        # chunk end (:func:`..records.chunk_records`): records; the window integrals closed and reset
        s_sent = 0
        for f in range(N):
            n = np.float32(active_slots(S, f, S[f * NS + TINT], t1))
            out_f[k, 0, f] = fma32(X[f * NX + CWND], n, X[f * NX + CWINT])
            out_f[k, 1, f] = fma32(X[f * NX + ALPHA], n, X[f * NX + AUXINT])
            out_f[k, 2, f], out_f[k, 3, f] = X[f * NX + CWND], X[f * NX + ALPHA]
            out_i[k, 0, f] = active_slots(S, f, t0, t1)
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
            X[f * NX + CWINT], X[f * NX + AUXINT], S[f * NS + TINT] = F0, F0, t1
            s_sent += S[f * NS + SSENT]
        out_q[k] = q_sum
        for p in range(P):
            out_p[k, p] = pqs[p]
            out_pi[k, 0, p], out_pi[k, 1, p], out_pi[k, 2, p], out_pi[k, 3, p] = (
                pbusy[p],
                popps[p],
                pdrops[p],
                pq[p],
            )
        b = N_REC * k
        out_s[b], out_s[b + 1], out_s[b + 2], out_s[b + 3], out_s[b + 4] = q_min, q_max, n_busy, opps, qlen
        out_s[b + 5], out_s[b + 6], out_s[b + 7] = marks, s_sent, cnt[SSERVED]
        out_s[b + 8], out_s[b + 9], out_s[b + 10] = cnt[SDROPPED], cnt[SLOSTN], cnt[SWAIT]
    b = N_REC * n_chunks
    for f in range(N):
        out_s[b + f] = S[f * NS + FINISH]
    out_s[b + N], out_s[b + N + 1], out_s[b + N + 2] = spill, cnt[TWOVER], cnt[TWLOST]
