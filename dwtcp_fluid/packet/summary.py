"""Summaries of a packet-core run: queue, utilization, fairness, windows, the laws' traced fields, completion times.

Every quantity is over the chunks after the warm-up (units: packets, packets/s, seconds, fractions), except the
drop, timeout and loss counts and the flow completion times, which cover the whole run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .result import PacketResult

__all__ = ["summarize", "fct_summary", "jain_index"]


def jain_index(x: np.ndarray) -> float | None:
    """Jain's fairness index (Σx)² / (n·Σx²) of per-flow throughputs ``x`` (1: equal shares; None: no flow or
    nothing delivered)."""
    x = np.asarray(x, float)
    return float(x.sum() ** 2 / (x.size * (x**2).sum())) if x.size and (x**2).sum() > 0 else None


def fct_summary(pr: Any, rec: dict[str, np.ndarray]) -> dict[str, Any]:
    """Flow completion times of the finite flows: ``fct_s`` per flow (None: not finished or long-lived), mean
    and 99th percentile of the FCT and of the slowdown FCT / (size·L/C + base RTT) over finished flows, counts;
    with deadlines ([D2TCP]), ``deadlines_met``: the fraction of deadline flows finished by their deadline, over
    those decided within the run (finished, or deadline passed)."""
    sc = pr.scenario
    size = np.asarray(sc.size, np.int64)
    finite = size < 2**30
    fin = np.asarray(rec["finish"], np.int64)
    start = np.asarray(sc.start, np.int64)
    done = finite & (fin >= 0)
    fct = np.where(done, (fin - start) * pr.slot, np.nan)
    ideal = (size + np.asarray(sc.rtt, np.int64)) * pr.slot
    slow = fct / ideal
    out: dict[str, Any] = {
        "flows_finite": int(finite.sum()),
        "flows_finished": int(done.sum()),
        "fct_s": [float(v) if d else None for v, d in zip(fct, done, strict=True)] if finite.any() else None,
    }
    dl = np.asarray(sc.deadline if sc.deadline is not None else np.full(size.shape, 2**31 - 1), np.int64)
    decided = (dl < 2**31 - 1) & (done | (dl < int(pr.cfg.n_slots)))
    out["deadline_flows"] = int(decided.sum())
    out["deadlines_met"] = float((done & (fin <= dl))[decided].mean()) if decided.any() else None
    for key, arr in (("fct", fct), ("slowdown", slow)):
        vals = arr[done]
        unit = "_s" if key == "fct" else ""
        out[f"{key}_mean{unit}"] = float(vals.mean()) if vals.size else None
        out[f"{key}_p99{unit}"] = float(np.percentile(vals, 99)) if vals.size else None
    return out


def _aux_means(pr: Any, rec: dict[str, np.ndarray], w: slice) -> dict[str, float | None]:
    """Time average of each law's traced field over its flows' active slots, under the law's summary key."""
    laws = pr.engine_laws
    idx = np.asarray(pr.scenario.law_idx)
    active = rec["active"][w].sum(0).astype(float)
    aux = rec["alpha_sum"][w].sum(0)
    num: dict[str, float] = {}
    den: dict[str, float] = {}
    for k, law in enumerate(laws):
        if law.aux_summary:  # laws sharing a key are pooled
            sel = idx == k
            num[law.aux_summary] = num.get(law.aux_summary, 0.0) + float(aux[sel].sum())
            den[law.aux_summary] = den.get(law.aux_summary, 0.0) + float(active[sel].sum())
    return {key: num[key] / max(den[key], 1.0) for key in num}


def summarize(pr: Any, rec: dict[str, np.ndarray]) -> PacketResult:
    """Summary statistics over the chunks after the warm-up (units: packets, packets/s, seconds, fractions), as a
    :class:`~.result.PacketResult` (the summary dict, in the package's result protocol).

    Keys: law, flows, duration_s, window_s, queue_mean, queue_min, queue_max, utilization (busy slots over slots
    at the highest rate), utilization_capacity (busy over service slots), jain_index (over flows active in the
    window), drops, timeouts, random_losses, marked_fraction, window_mean, alpha_mean (DCTCP laws, else None), rate_mean (rate-based laws: mean pacing rate, packets per slot),
    scout_alpha_mean and scout_overhead (Scout bytes / data bytes served, DWTCP, else None), throughput_pps (per
    flow), throughput_by_law_pps (packets/s per law), conservation_error (packets; 0 when every packet is delivered,
    dropped or queued), ack_spill, timer_overflows, the completion times of :func:`fct_summary`, ``status``
    ("ok", or "non_finite" when a float record is NaN or infinite: the numbers are then meaningless) with its
    ``message``, and ``records`` (the per-chunk arrays, for traces).
    """
    w = slice(pr.warmup_chunks, None)
    slots = pr.cfg.chunk * (pr.cfg.n_chunks - pr.warmup_chunks)
    delivered = rec["delivered"][w].sum(0).astype(float)
    active = rec["active"][w].sum(0).astype(float)
    on = active > 0
    jain = jain_index(delivered[on])
    cwnd_mean = float(rec["cwnd_sum"][w].sum() / max(active.sum(), 1.0))
    n_del = float(delivered.sum())
    busy = float(rec["busy"][w].sum())
    opps = float(rec["opps"][w].sum())
    served = float(rec["scouts_served"][w].sum())
    laws = pr.engine_laws
    scouts = any(law.uses_scouts for law in laws)
    scout_size = float(pr.link.L) / pr.cfg.scouts_per_slot if scouts else 0.0
    # Packet conservation at the switch: every packet sent was dropped, has left (one per busy slot) or is queued,
    # at every chunk end.
    bal = np.cumsum(rec["sent"].sum(-1) - rec["drops"].sum(-1) - rec["busy"]) - rec["q_end"]
    cons = float(np.max(np.abs(bal)))
    if "residual" in rec:
        cons = max(cons, float(np.max(rec["residual"])))
    aux = _aux_means(pr, rec, w)
    idx = np.asarray(pr.scenario.law_idx)
    thr = delivered / (slots * pr.slot)
    out = {
        "law": pr.meta.get("law", pr.law.name),
        "flows": pr.cfg.n_flows,
        "duration_s": pr.duration,
        "window_s": slots * pr.slot,
        "queue_mean": float(rec["q_sum"][w].sum() / slots),
        "queue_min": int(rec["q_min"][w].min()),
        "queue_max": int(rec["q_max"][w].max()),
        "utilization": busy / slots,
        "utilization_capacity": busy / max(opps, 1.0),
        "jain_index": jain,
        "drops": int(rec["drops"].sum()),
        "timeouts": int(rec["timeouts"].sum()),
        "random_losses": int(rec["random_losses"].sum()),
        "marked_fraction": float(rec["marks"][w].sum() / max(n_del, 1.0)),
        "window_mean": cwnd_mean,
        "alpha_mean": aux.get("alpha_mean"),
        "scout_alpha_mean": aux.get("scout_alpha_mean"),
        "rate_mean": aux.get("rate_mean"),
        "scout_overhead": (served * scout_size / max(n_del * pr.link.L, 1.0)) if scouts else None,
        "throughput_pps": thr.tolist(),
        "throughput_by_law_pps": {law.name: float(thr[idx == k].sum()) for k, law in enumerate(laws)},
        "conservation_error": cons,
        "ack_spill": int(np.asarray(rec["spill"]).sum()),
        "timer_overflows": int(np.asarray(rec["timer_overflows"]).sum()),
        "timers_lost": int(np.asarray(rec["timers_lost"]).sum()),
    }
    out.update(fct_summary(pr, rec))
    # the laws' state is float32: an overflow, an underflow into a division or a NaN parameter is a status,
    # never a summary of NaN windows
    bad = sorted(k for k, v in rec.items() if np.asarray(v).dtype.kind == "f" and not np.all(np.isfinite(v)))
    out["status"] = "non_finite" if bad else "ok"
    out["message"] = (
        f"the senders' float32 state became NaN or infinite (records {', '.join(bad)}): a law parameter "
        "out of its physical range, or an overflow"
        if bad
        else ""
    )
    out["records"] = rec
    return PacketResult(out)
