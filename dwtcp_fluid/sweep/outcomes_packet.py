"""Packet-level outcome of the DWTCP sweep: the packet core's DWTCP law at sweep points, classified and scored.

:func:`packet_outcomes` runs points (β, BDP, N) through the packet core (:mod:`.packet_batch`: each point's run
length, the one engine call) and classifies each run over its measurement window (:mod:`dwtcp_fluid.judge.classes`: steady,
oscillating, collapse, not_stationary, failed). :func:`packet_agreement` asks every registered predictor
(:mod:`dwtcp_fluid.sweep.predictors`) whether it expects a steady run there, and scores it against the
scored classes only (steady, oscillating): a collapsed or not-yet-stationary run never counts as agreement.

Run lengths: a warm-up of ``warmup_rtts`` base RTTs, then at least ``min_rtts``. A run that is not stationary is
run again, once, with a longer window (a second round) when that can settle it: an oscillation
whose period does not fit :data:`~dwtcp_fluid.judge.classes.MIN_PERIODS` times gets 1.2 × 3 periods, a trend gets
``trend_rtts``; both within ``max_rtts`` and, per point, ``retry_flow_slots`` flows × slots. ``packet_capped``
marks the points whose longer run these caps refused (they stay ``not_stationary``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..judge.classes import MIN_PERIODS, SCORED, PacketClass, window_outcome
from .packet_batch import PacketPassOptions, build_point, rtt_slots, simulate

__all__ = [
    "PACKET_VARIABLES",
    "PACKET_CLASS_ATTRS",
    "packet_outcomes",
    "empty_outcomes",
    "packet_agreement",
    "agreement_variables",
    "state_accuracy",
    "CLASSIFIED",
    "PacketPassOptions",
]

#: Flag attrs of ``packet_class`` (values and meanings of :class:`~dwtcp_fluid.judge.classes.PacketClass`, plus ``not_run``).
PACKET_CLASS_ATTRS: dict[str, Any] = {
    "flag_values": np.arange(len(PacketClass) + 1, dtype=np.int8),
    "flag_meanings": " ".join([c.label for c in PacketClass] + ["not_run"]),
}
#: Code of points without a packet run (outside a sample).
NOT_RUN = len(PacketClass)

PACKET_VARIABLES: dict[str, tuple[str, str]] = {
    "packet_class": (
        "packet run: outcome class (steady, oscillating, collapse, not_stationary, failed)",
        "1",
    ),
    "packet_scored": ("packet run is steady or oscillating (scored against predictions)", "1"),
    "packet_kbar_obs": ("packet run: observed k̄ = peak queue of the measurement window", "packets"),
    "packet_queue_mean": ("packet run: time-mean queue, measurement window", "packets"),
    "packet_queue_min": ("packet run: smallest queue, measurement window", "packets"),
    "packet_q_amplitude": (
        "packet run: (95th pct of chunk maxima − 5th pct of chunk minima)/2 of the queue",
        "packets",
    ),
    "packet_oscillating": ("packet run: queue amplitude above max(5, N) packets (capped at buffer/4)", "1"),
    "packet_period": ("packet run: autocorrelation period of the queue (NaN unless oscillating)", "s"),
    "packet_period_rtts": ("packet run: period in base RTTs", "RTT"),
    "packet_period_regular": (
        "packet run: oscillating with >= 3 cycles whose lengths vary by < MAX_CYCLE_CV of their mean",
        "1",
    ),
    "packet_cycle_cv": (
        "packet run: coefficient of variation of the cycle lengths (NaN unless oscillating)",
        "1",
    ),
    "packet_trend": (
        "packet run: trend between the halves of the window, bits 1 queue, 2 window, 4 utilization (0: none)",
        "1",
    ),
    "packet_utilization": ("packet run: busy slots / slots, measurement window", "1"),
    "packet_jain": ("packet run: Jain index of per-flow deliveries, measurement window", "1"),
    "packet_drops": ("packet run: data packets dropped, measurement window", "packets"),
    "packet_timeouts": ("packet run: retransmission timeouts, measurement window", "1"),
    "packet_window_mean": (
        "packet run: mean congestion window of active flows, measurement window",
        "packets",
    ),
    "packet_alpha_mean": ("packet run: mean Scout coefficient α, measurement window", "1"),
    "packet_scout_overhead": ("packet run: Scout bytes / data bytes served, measurement window", "1"),
    "packet_window_rtts": ("packet run: measurement window (after the warm-up)", "RTT"),
    "packet_duration_rtts": ("packet run: whole run including the warm-up", "RTT"),
    "packet_capped": (
        "packet run: not stationary, and the longer run it needs exceeds max_rtts or the flow-slot budget",
        "1",
    ),
    "packet_flow_slots": ("packet run cost: flows × slots simulated", "1"),
    "packet_conservation_error": (
        "packet run: |sent − delivered − dropped − queued| (0 when consistent)",
        "packets",
    ),
}

_KEYS = {  # dataset name → window_outcome key
    "packet_kbar_obs": "queue_max",
    "packet_queue_mean": "queue_mean",
    "packet_queue_min": "queue_min",
    "packet_q_amplitude": "amplitude",
    "packet_oscillating": "oscillating",
    "packet_period": "period_s",
    "packet_period_regular": "period_regular",
    "packet_cycle_cv": "cycle_cv",
    "packet_trend": "trend_flags",
    "packet_utilization": "utilization",
    "packet_jain": "jain_index",
    "packet_drops": "drops",
    "packet_timeouts": "timeouts",
    "packet_window_mean": "window_mean",
    "packet_alpha_mean": "alpha_mean",
    "packet_scout_overhead": "scout_overhead",
    "packet_window_rtts": "window_rtts",
    "packet_conservation_error": "conservation_error",
}
_BOOL = ("packet_scored", "packet_oscillating", "packet_capped", "packet_period_regular")
_INT = ("packet_drops", "packet_timeouts", "packet_flow_slots")


def empty_outcomes(m: int) -> dict[str, np.ndarray]:
    """:data:`PACKET_VARIABLES` for ``m`` points not (yet) run: class ``not_run``, NaN, False, 0."""
    out: dict[str, np.ndarray] = {k: np.full(m, np.nan) for k in PACKET_VARIABLES}
    out["packet_class"] = np.full(m, NOT_RUN, dtype=np.int8)
    out["packet_trend"] = np.zeros(m, dtype=np.int8)
    for k in _BOOL:
        out[k] = np.zeros(m, dtype=bool)
    for k in _INT:
        out[k] = np.zeros(m, dtype=np.int64)
    return out


def _check(beta: Any, bdp: Any, flows: Any, capacity_pps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    beta, bdp, flows = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (beta, bdp, flows))
    if beta.ndim != 1 or not (beta.shape == bdp.shape == flows.shape):
        raise ValueError(
            f"beta, bdp, flows have shapes {beta.shape}, {bdp.shape}, {flows.shape}: accepted 1-D arrays of one length"
        )
    if np.any(~np.isfinite(flows) | (flows < 1) | (flows != np.round(flows))):
        raise ValueError(f"flows={flows.tolist()!r} is out of range: accepted integers >= 1")
    if np.any(~np.isfinite(beta) | (beta <= 0) | (beta > 1)):
        raise ValueError(f"beta={beta.tolist()!r} is out of range: accepted 0 < beta <= 1")
    if np.any(~np.isfinite(bdp) | (bdp <= 0)):
        raise ValueError(f"bdp={bdp.tolist()!r} is out of range: accepted bdp > 0 packets")
    if not (math.isfinite(capacity_pps) and capacity_pps > 0):
        raise ValueError(f"capacity_pps={capacity_pps!r} is out of range: accepted capacity_pps > 0")
    return beta, bdp, flows


def packet_outcomes(
    beta: Any,
    bdp: Any,
    flows: Any,
    *,
    capacity_pps: float,
    packet_size: float = 1500.0,
    options: PacketPassOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_final: Callable[[np.ndarray, dict[str, np.ndarray]], None] | None = None,
    report: dict[str, Any] | None = None,
    records: dict[int, tuple[Any, dict[str, np.ndarray]]] | None = None,
) -> dict[str, np.ndarray]:
    """Packet-level DWTCP (Algorithm 1, [DWTCP] eqs. (1), (2)) at M points, classified.

    Parameters
    ----------
    beta, bdp, flows : array_like, shape (M,)
        β (byte convention), BDP in packets (τ = BDP/C), N.
    capacity_pps, packet_size : float
        C in packets/s and L in bytes.
    options : PacketPassOptions
        Target k, buffer, warm-up, window lengths, seed, threads.
    progress : callable, optional
        ``progress(points_done, points_total)`` after each batch.
    on_final : callable, optional
        ``on_final(indices, values)`` with the final results of some points, as soon as they are final (for a
        resumable store).
    report : dict, optional
        Filled with the cost breakdown: ``batches`` (one engine call per N and round: N, points, slots,
        flow-slots, seconds) and ``seconds``.
    records : dict, optional
        Filled with ``{point index: (PacketRun, per-chunk records)}`` of each point's final run (keep this for a
        few points only: records hold every chunk of every flow).

    Returns
    -------
    dict of ndarray, shape (M,): :data:`PACKET_VARIABLES`.
    """
    import time

    opts = options or PacketPassOptions()
    beta, bdp, flows = _check(beta, bdp, flows, capacity_pps)
    M = beta.size
    out = empty_outcomes(M)
    rtt = np.array([rtt_slots(b) for b in bdp], dtype=float)
    done_pts = 0
    log: list[dict[str, Any]] = []
    t_start = time.perf_counter()

    def run_round(idx: np.ndarray, window: np.ndarray, final: Callable[[int, dict[str, Any]], bool]) -> None:
        """Run the points ``idx`` with measurement windows ``window`` (RTTs), one engine call per N (the progress
        and the resumable store advance per N); ``final(i, outcome)`` says whether point i is done."""
        nonlocal done_pts
        for n in np.unique(flows[idx]):
            sel = np.flatnonzero(flows[idx] == n)
            pts = idx[sel]
            t0 = time.perf_counter()
            runs = [
                build_point(
                    beta[i],
                    bdp[i],
                    int(n),
                    float(w),
                    capacity_pps=capacity_pps,
                    packet_size=packet_size,
                    opts=opts,
                )  # fmt: skip
                for i, w in zip(pts, window[sel], strict=True)
            ]
            recs = simulate(runs)
            fin = []
            for i, pr, rec in zip(pts, runs, recs, strict=True):
                i = int(i)
                o = window_outcome(
                    pr, rec, warmup_slots=int(opts.warmup_rtts * rtt[i]), min_rtts=opts.min_rtts
                )
                _store(out, i, o, pr.cfg.n_slots, int(n), rtt[i])
                if records is not None:
                    records[i] = (pr, rec)
                if final(i, o):
                    fin.append(i)
            log.append(
                {
                    "flows": int(n),
                    "points": len(pts),
                    "slots": int(sum(pr.cfg.n_slots for pr in runs)),
                    "flow_slots": int(sum(pr.cfg.n_slots for pr in runs)) * int(n),
                    "seconds": time.perf_counter() - t0,
                }
            )
            done_pts += len(fin)
            if on_final is not None and fin:
                f = np.asarray(fin)
                on_final(f, {k: v[f] for k, v in out.items()})
            if progress is not None:
                progress(done_pts, M)

    def wanted(i: int, o: dict[str, Any]) -> float:
        """Window (RTTs) a not-stationary run would need to be judged, 0 when a longer run cannot help."""
        if o["cls"] != PacketClass.NOT_STATIONARY:
            return 0.0
        p_rtts = o["period_s"] * capacity_pps / rtt[i]
        if o["oscillating"] and not o["trend"] and MIN_PERIODS * p_rtts > o["window_rtts"]:
            return math.ceil(1.2 * MIN_PERIODS * p_rtts)
        return opts.trend_rtts if o["trend"] else 0.0

    def affordable(i: int, window: float) -> float:
        """The window a second round runs (within max_rtts and the flow-slot budget), 0 if none."""
        w = min(window, opts.max_rtts)
        if flows[i] * (opts.warmup_rtts + w) * rtt[i] > opts.retry_flow_slots:
            return 0.0
        return w

    second: dict[int, float] = {}

    def final_first(i: int, o: dict[str, Any]) -> bool:
        want = wanted(i, o)
        w = affordable(i, want) if want > o["window_rtts"] + 1e-9 else 0.0
        if w > o["window_rtts"] + 1e-9:
            second[i] = w
            return False
        out["packet_capped"][i] = want > o["window_rtts"] + 1e-9
        return True

    every = np.arange(M)
    run_round(every, np.full(M, opts.min_rtts), final_first)
    if second:
        idx2 = np.array(sorted(second))

        def final_second(i: int, o: dict[str, Any]) -> bool:
            out["packet_capped"][i] = wanted(i, o) > o["window_rtts"] + 1e-9
            return True

        run_round(idx2, np.array([second[i] for i in idx2]), final_second)
    out["packet_period_rtts"] = out["packet_period"] * capacity_pps / rtt
    if report is not None:
        report["batches"] = log
        report["seconds"] = time.perf_counter() - t_start
        report["second_round_points"] = len(second)
    return out


def _store(
    out: dict[str, np.ndarray], i: int, o: dict[str, Any], n_slots: int, flows: int, rtt: float
) -> None:
    out["packet_class"][i] = int(o["cls"])
    out["packet_scored"][i] = o["cls"] in SCORED
    for name, key in _KEYS.items():
        out[name][i] = o[key]
    out["packet_duration_rtts"][i] = n_slots / rtt
    out["packet_flow_slots"][i] = n_slots * flows


def agreement_variables(
    names: list[str], classes: list[str] | tuple[str, ...] = ()
) -> dict[str, tuple[str, str]]:
    """(long_name, units) of the per-predictor agreement variables for the predictors ``names``; those in
    ``classes`` are class predictors (:class:`~.predictors.Verdict`) with their predicted class and state."""
    out = {}
    for n in names:
        key = n.replace("-", "_")
        out[f"packet_{key}_predicts_steady"] = (f"predictor '{n}' expects a steady run", "1")
        out[f"packet_{key}_defined"] = (f"predictor '{n}' makes a prediction at this point", "1")
        out[f"packet_{key}_agrees"] = (
            f"predictor '{n}' agrees with the packet run (scored runs where it predicts; steady ⇔ predicted steady)"
            if n not in classes
            else f"predictor '{n}' predicts the packet run's class (every classified run: steady, oscillating, collapse)",
            "1",
        )
        if n in classes:
            out[f"packet_{key}_predicts_class"] = (
                f"predictor '{n}': expected packet class (PacketClass code)",
                "1",
            )
            out[f"packet_{key}_queue_mean"] = (f"predictor '{n}': mean queue", "packets")
            out[f"packet_{key}_utilization"] = (f"predictor '{n}': link utilization", "1")
    return out


#: Packet classes a class predictor is scored at: every run that says what the law does.
CLASSIFIED = (PacketClass.STEADY, PacketClass.OSCILLATING, PacketClass.COLLAPSE)


def state_accuracy(
    cls: np.ndarray, defined: np.ndarray, packet: dict[str, np.ndarray], queue: np.ndarray, util: np.ndarray
) -> dict[str, Any]:
    """Over the steady packet runs where a class predictor predicts: how many, and the fractions whose mean queue
    and utilization are within :data:`~.predictors.STATE_TOLERANCES` of the run's (None where ``packet`` holds no
    mean queue or utilization)."""
    from .predictors import STATE_TOLERANCES as T

    st = (np.asarray(cls) == int(PacketClass.STEADY)) & np.asarray(defined, dtype=bool)
    if "packet_queue_mean" not in packet or "packet_utilization" not in packet:
        return {"steady_points": int(st.sum()), "queue_within": None, "utilization_within": None}
    pq = np.asarray(packet["packet_queue_mean"], dtype=float)
    pu = np.asarray(packet["packet_utilization"], dtype=float)
    tq, tu = T["queue_mean"], T["utilization"]
    q_ok = np.abs(np.asarray(queue) - pq) <= np.maximum(tq.abs, tq.rel * np.abs(pq))
    u_ok = np.abs(np.asarray(util) - pu) <= tu.abs
    n = int(st.sum())
    return {
        "steady_points": n,
        "queue_within": float((q_ok & st).sum() / n) if n else None,
        "utilization_within": float((u_ok & st).sum() / n) if n else None,
    }


def packet_agreement(
    beta: Any,
    bdp: Any,
    flows: Any,
    packet: dict[str, np.ndarray],
    *,
    capacity_pps: float,
    packet_size: float = 1500.0,
    fluid: dict[str, np.ndarray] | None = None,
    k: float = 0.0,
    buffer: float = 250.0,
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Score every registered predictor with a ``verdict`` against the packet runs (target ``k``, ``buffer``).

    A point is scored for a predictor when the packet run is steady or oscillating (``packet_scored``) and the
    predictor makes a prediction there; it agrees when (predicted steady) ⇔ (the run is steady). Collapsed,
    not-stationary, failed and not-run points are never scored. A class predictor (a verdict with ``classes``) is
    scored at every classified run (:data:`CLASSIFIED`: collapse included) and agrees when it names the run's
    class; its summary adds ``classes`` (True), ``by_class`` (packet class → predicted class → points) and
    ``state`` (:func:`state_accuracy`).

    Returns
    -------
    (arrays, summary)
        ``arrays``: :func:`agreement_variables` of every predictor with a verdict; ``summary``: per predictor the
        scored points, the agreement fraction and the counts of each (prediction, outcome) pair.
    """
    from .predictors import VerdictInputs, predictors

    beta, bdp, flows = (np.asarray(a, dtype=float) for a in (beta, bdp, flows))
    cls = np.asarray(packet["packet_class"])
    scored = np.asarray(packet["packet_scored"], dtype=bool)
    steady = cls == int(PacketClass.STEADY)
    kobs = np.where(cls == NOT_RUN, np.nan, np.asarray(packet["packet_kbar_obs"], dtype=float))
    inputs = VerdictInputs(
        beta, bdp, flows, float(capacity_pps), float(packet_size), kobs, fluid, float(k), float(buffer)
    )
    classified = np.isin(cls, [int(c) for c in CLASSIFIED])
    arrays: dict[str, np.ndarray] = {}
    summary: dict[str, Any] = {}
    for name, p in predictors(verdict=True).items():
        v = p.verdict(inputs)
        if v is None:
            continue
        key = name.replace("-", "_")
        pred = np.asarray(v.steady, dtype=bool)
        if v.classes is not None:
            pc = np.asarray(v.classes)
            sc = classified & np.asarray(v.defined, dtype=bool)
            agrees = sc & (pc == cls)
            arrays[f"packet_{key}_predicts_steady"] = pred
            arrays[f"packet_{key}_defined"] = np.asarray(v.defined, dtype=bool)
            arrays[f"packet_{key}_agrees"] = agrees
            arrays[f"packet_{key}_predicts_class"] = pc.astype(np.int8)
            arrays[f"packet_{key}_queue_mean"] = np.asarray(v.queue_mean, dtype=float)
            arrays[f"packet_{key}_utilization"] = np.asarray(v.utilization, dtype=float)
            n = int(sc.sum())
            summary[name] = {
                "label": p.label,
                "classes": True,
                "scored": n,
                "agreement": float(agrees.sum() / n) if n else None,
                "by_class": {
                    a.label: {b.label: int((sc & (cls == int(a)) & (pc == int(b))).sum()) for b in CLASSIFIED}
                    for a in CLASSIFIED
                },
                "state": state_accuracy(cls, sc, packet, v.queue_mean, v.utilization),
            }
            continue
        sc = scored & np.asarray(v.defined, dtype=bool)
        agrees = sc & (pred == steady)
        arrays[f"packet_{key}_predicts_steady"] = pred
        arrays[f"packet_{key}_defined"] = np.asarray(v.defined, dtype=bool)
        arrays[f"packet_{key}_agrees"] = agrees
        n = int(sc.sum())
        summary[name] = {
            "label": p.label,
            "scored": n,
            "agreement": float(agrees.sum() / n) if n else None,
            "predicts_steady_and_steady": int((sc & pred & steady).sum()),
            "predicts_steady_but_oscillates": int((sc & pred & ~steady).sum()),
            "predicts_oscillation_but_steady": int((sc & ~pred & steady).sum()),
            "predicts_oscillation_and_oscillates": int((sc & ~pred & ~steady).sum()),
        }
    return arrays, summary
