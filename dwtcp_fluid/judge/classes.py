"""What a packet run says: the judge's vocabulary of run classes, one period estimate and regularity test.

Used by the sweep's packet pass and by the cross-checks (:mod:`dwtcp_fluid.judge.check`): one vocabulary of
classes (:class:`PacketClass`), one period estimate and regularity test (:func:`regular_period`), one classifier
of a run's measurement window (:func:`window_outcome`). Whether a model says the same is
:func:`dwtcp_fluid.judge.tolerance.verdict`'s.

A run is simulated for a warm-up (slow start from the fair-share window and the first decreases) followed by a
measurement window; every statistic below is taken over the measurement window only, from the engine's per-chunk
records. The window is cut into :data:`SEGMENTS` equal segments (by chunks) to tell persistent from passing events
and to detect trends.

Classes (:class:`PacketClass`), decided in this order, the first that applies:

1. ``failed`` — the engine's packet-conservation check is not 0 (a bug, not a behaviour);
2. ``collapse`` — the window law does not control the queue: retransmission timeouts in at least
   :data:`PERSISTENT` of the :data:`SEGMENTS` segments, or the time-mean queue at least
   :data:`PINNED_FRACTION` of the buffer with drops in at least :data:`PERSISTENT` segments (the drop-tail buffer,
   not the delay signal, sets the queue: e.g. N ≫ BDP, where N windows of one packet already exceed BDP + buffer);
3. ``not_stationary`` — the run does not yet say what the law does in the long run: the measurement window is
   shorter than the required number of RTTs (``min_rtts``), or it oscillates with a period of which fewer than
   :data:`MIN_PERIODS` fit in the window, or a trend separates the first half of the window from the second: the mean queue moves
   by more than max(:data:`TREND_Q_ABS` packets, :data:`TREND_Q_REL` × the larger half-mean), the mean window by more
   than :data:`TREND_W_REL` (relative), or the utilization by more than :data:`TREND_U_ABS` (this catches a run still
   in slow start, whose window doubles every RTT);
4. ``oscillating`` — stationary, and the queue swings: amplitude > the threshold of :func:`oscillation_threshold`
   (with a period when the autocorrelation finds one; an irregular swing has none and still oscillates);
5. ``steady`` — stationary, and the queue stays within that threshold (the run converged, or keeps a ripple of
   about one packet per flow from integer windows and ACK-clocked bursts).

Only ``steady`` and ``oscillating`` runs are scored against a prediction (:data:`SCORED`); the other classes are
counted, never scored as agreement.

The amplitude is (Q_hi − Q_lo)/2 with Q_hi the 95th percentile of the per-chunk queue maxima and Q_lo the 5th
percentile of the per-chunk minima (so one burst does not make a run oscillate); the period is the lag of the
first autocorrelation peak of the chunk-mean queue (:func:`regular_period`), reported for oscillating runs only,
with whether it is *regular* (at least three cycles whose lengths vary by less than :data:`MAX_CYCLE_CV` of their
mean): an irregular period is reported and never compared with a model's. The *observed k̄* is the peak queue of the measurement window: k̄ in (14) is the queue a
Scout waits behind, the condition must hold at every decrease, and the largest queue any Scout can find is the
binding one (the fluid sweep's ``kbar_obs`` is the same quantity, the peak queue on decrease arcs).
"""

from __future__ import annotations

import math
from dataclasses import replace
from enum import IntEnum
from typing import Any

import numpy as np

__all__ = [
    "PacketClass",
    "MAX_CYCLE_CV",
    "regular_period",
    "SCORED",
    "SEGMENTS",
    "PERSISTENT",
    "PINNED_FRACTION",
    "MIN_PERIODS",
    "TREND_Q_ABS",
    "TREND_Q_REL",
    "TREND_W_REL",
    "TREND_U_ABS",
    "TREND_QUEUE",
    "TREND_WINDOW",
    "TREND_UTILIZATION",
    "oscillation_threshold",
    "window_outcome",
]


class PacketClass(IntEnum):
    """Outcome class of a packet run (criteria in the module docstring, applied in this order of precedence:
    failed, collapse, not_stationary, oscillating, steady)."""

    STEADY = 0
    OSCILLATING = 1
    COLLAPSE = 2
    NOT_STATIONARY = 3
    FAILED = 4

    @property
    def label(self) -> str:
        return self.name.lower()


#: Classes that say what the law does, and are scored against predictions.
SCORED = (PacketClass.STEADY, PacketClass.OSCILLATING)
#: Equal segments of the measurement window.
SEGMENTS = 8
#: An event (timeouts, drops) is persistent when it occurs in at least this many segments.
PERSISTENT = 6
#: The queue is pinned at the buffer when its time mean is at least this fraction of the buffer.
PINNED_FRACTION = 0.9
#: An oscillation needs at least this many periods inside the measurement window.
MIN_PERIODS = 3.0
#: Trend thresholds between the two halves of the window: queue (packets, relative), window (relative),
#: utilization (absolute).
TREND_Q_ABS = 5.0
TREND_Q_REL = 0.25
TREND_W_REL = 0.10
TREND_U_ABS = 0.05
#: Bits of ``trend_flags``: which quantity moved between the halves of the window.
TREND_QUEUE, TREND_WINDOW, TREND_UTILIZATION = 1, 2, 4
#: Oscillation threshold: amplitude above max(OSC_MIN_PACKETS, OSC_PER_FLOW·N), capped at OSC_BUFFER_FRACTION of the
#: buffer. Why N: every flow's window is an integer that grows by one packet per RTT and is sent as an ACK-clocked
#: burst, so a converged run still ripples by about one packet per flow (measured: N = 5 at BDP = 10 keeps the queue
#: in 10-14 packets, N = 20 at BDP = 316 in 0-30); the delayed fluid cycle's amplitude is ≈ 33·N at β = 0.001.
#: Why the cap: at N = 1000 the ripple bound exceeds the buffer, and a queue swinging over a quarter of the buffer is
#: an oscillation whatever N is.
OSC_MIN_PACKETS = 5.0
OSC_PER_FLOW = 1.0
OSC_BUFFER_FRACTION = 0.25


#: A queue whose cycle lengths vary by this fraction of their mean or more has no period to compare.
MAX_CYCLE_CV = 0.5


def oscillation_threshold(flows: int, buffer: int) -> float:
    """Queue amplitude (packets) above which a stationary run oscillates (see :data:`OSC_PER_FLOW`)."""
    return min(max(OSC_MIN_PACKETS, OSC_PER_FLOW * flows), OSC_BUFFER_FRACTION * buffer)


def regular_period(q: np.ndarray, dt: float) -> tuple[float | None, int, float | None, bool]:
    """The queue's period and whether it is regular.

    ``q`` is a chunk-mean queue sampled every ``dt`` s. The period is the lag of the first autocorrelation peak
    (:func:`~dwtcp_fluid.periods.autocorr_period`, ``peak="first"``). Cycles are counted with hysteresis: one
    starts each time the queue rises above mean + sd/2 after having fallen below the larger of mean − sd/2 and
    the midpoint between its minimum and its mean (a queue resting on zero between spikes). The period is
    *regular* when there are at least three complete cycles whose lengths vary by less than
    :data:`MAX_CYCLE_CV` of their mean. Returns (period s or None, cycles, CV or None, regular).
    """
    from ..periods import autocorr_period

    x = np.asarray(q, float)
    m, sd = float(np.mean(x)), float(np.std(x))
    lo, hi = max(m - 0.5 * sd, 0.5 * (float(np.min(x)) + m)), m + 0.5 * sd
    starts, above = [], bool(x[0] > hi)
    for i, v in enumerate(x):
        if above and v < lo:
            above = False
        elif not above and v > hi:
            above = True
            starts.append(i)
    lengths = np.diff(starts) * dt
    cv = float(np.std(lengths) / np.mean(lengths)) if lengths.size >= 3 else None
    period = autocorr_period(x, dt, peak="first")
    return period, int(lengths.size), cv, period is not None and cv is not None and cv < MAX_CYCLE_CV


def _segments(n: int) -> list[slice]:
    edges = np.linspace(0, n, SEGMENTS + 1).round().astype(int)
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def _half_stats(rec: dict[str, np.ndarray], w: slice, chunk: int) -> list[tuple[float, float, float]]:
    """(mean queue, mean window of active flows, utilization) over each half of the window ``w`` (chunk indices)."""
    n = w.stop - w.start
    out = []
    for h in (slice(w.start, w.start + n // 2), slice(w.start + n // 2, w.stop)):
        slots = chunk * (h.stop - h.start)
        active = float(rec["active"][h].sum())
        out.append(
            (
                float(rec["q_sum"][h].sum()) / slots,
                float(rec["cwnd_sum"][h].sum()) / max(active, 1.0),
                float(rec["busy"][h].sum()) / slots,
            )
        )
    return out


def window_outcome(
    pr: Any, rec: dict[str, np.ndarray], *, warmup_slots: int, min_rtts: float
) -> dict[str, Any]:
    """Statistics and class of one packet run over its measurement window (chunks after ``warmup_slots``).

    Parameters
    ----------
    pr : dwtcp_fluid.packet.PacketRun
        The run (its configuration gives the chunk, the buffer, N, the base RTT and the slot length).
    rec : dict of ndarray
        The run's per-chunk records (from :func:`dwtcp_fluid.packet.run_many`).
    warmup_slots : int
        Slots excluded at the start (slow start and the first decreases).
    min_rtts : float
        Base RTTs the measurement window must span to be judged.

    Returns
    -------
    dict
        ``cls`` (:class:`PacketClass`), ``window_rtts``, ``queue_mean``, ``queue_min``, ``queue_max`` (= the
        observed k̄), ``amplitude`` (packets), ``period_s`` (NaN unless oscillating or no period found), ``period_regular``,
        ``cycles``, ``cycle_cv`` (:func:`regular_period`; False, 0, NaN unless oscillating),
        ``utilization``, ``jain_index``, ``drops``, ``timeouts`` (in the window), ``window_mean``, ``alpha_mean``,
        ``scout_overhead``, ``conservation_error``, ``oscillating`` and ``trend`` (bool), ``trend_flags`` (bits
        :data:`TREND_QUEUE`, :data:`TREND_WINDOW`, :data:`TREND_UTILIZATION`), ``timeout_segments``, ``drop_segments``.
    """
    from ..packet import summarize

    cfg = pr.cfg
    chunk, n_chunks = cfg.chunk, cfg.n_chunks
    w0 = min(int(math.ceil(warmup_slots / chunk)), n_chunks - SEGMENTS)
    if w0 < 0:
        raise ValueError(f"n_chunks={n_chunks} is out of range: accepted at least {SEGMENTS} chunks")
    s = summarize(replace(pr, warmup_chunks=w0), rec)
    w = slice(w0, n_chunks)
    rtt = float(np.max(pr.scenario.rtt))  # slots
    window_rtts = chunk * (n_chunks - w0) / rtt
    segs = [slice(w0 + a.start, w0 + a.stop) for a in _segments(n_chunks - w0)]
    to_seg = int(sum(rec["timeouts"][g].sum() > 0 for g in segs))
    dr_seg = int(sum(rec["drops"][g].sum() > 0 for g in segs))
    q_hi = float(np.percentile(rec["q_max"][w], 95))
    q_lo = float(np.percentile(rec["q_min"][w], 5))
    amplitude = 0.5 * (q_hi - q_lo)
    (q1, w1, u1), (q2, w2, u2) = _half_stats(rec, w, chunk)
    trend_flags = (
        TREND_QUEUE * (abs(q2 - q1) > max(TREND_Q_ABS, TREND_Q_REL * max(q1, q2)))
        | TREND_WINDOW * (abs(w2 - w1) > TREND_W_REL * max(w1, w2, 1e-12))
        | TREND_UTILIZATION * (abs(u2 - u1) > TREND_U_ABS)
    )
    trend = trend_flags != 0
    flows = cfg.n_flows
    oscillating = amplitude > oscillation_threshold(flows, cfg.buffer)
    period, cycles, cycle_cv, regular = math.nan, 0, None, False
    if oscillating:
        p, cycles, cycle_cv, regular = regular_period(rec["q_sum"][w] / chunk, chunk * pr.slot)
        period = math.nan if p is None else p
    if s["conservation_error"] != 0:
        cls = PacketClass.FAILED
    elif to_seg >= PERSISTENT or (s["queue_mean"] >= PINNED_FRACTION * cfg.buffer and dr_seg >= PERSISTENT):
        cls = PacketClass.COLLAPSE
    elif (
        window_rtts < min_rtts - 1e-9
        or trend
        or (oscillating and MIN_PERIODS * period > window_rtts * rtt * pr.slot)
    ):
        cls = PacketClass.NOT_STATIONARY
    else:
        cls = PacketClass.OSCILLATING if oscillating else PacketClass.STEADY
    return {
        "cls": cls,
        "window_rtts": window_rtts,
        "queue_mean": s["queue_mean"],
        "queue_min": float(s["queue_min"]),
        "queue_max": float(s["queue_max"]),
        "amplitude": amplitude,
        "period_s": period,
        "oscillation_threshold": oscillation_threshold(flows, cfg.buffer),
        "period_regular": bool(regular),
        "cycles": int(cycles),
        "cycle_cv": math.nan if cycle_cv is None else cycle_cv,
        "utilization": s["utilization"],
        "jain_index": math.nan if s["jain_index"] is None else s["jain_index"],
        "drops": int(rec["drops"][w].sum()),
        "timeouts": int(rec["timeouts"][w].sum()),
        "window_mean": s["window_mean"],
        "alpha_mean": math.nan if s["scout_alpha_mean"] is None else s["scout_alpha_mean"],
        "scout_overhead": math.nan if s["scout_overhead"] is None else s["scout_overhead"],
        "conservation_error": s["conservation_error"],
        "oscillating": bool(oscillating),
        "trend": bool(trend),
        "trend_flags": int(trend_flags),
        "timeout_segments": to_seg,
        "drop_segments": dr_seg,
    }
