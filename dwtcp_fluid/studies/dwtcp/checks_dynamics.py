"""[DWTCP]'s dynamics claims (§1, §5.2 Fig. 7, §5.4 Fig. 9, App. B Figs. 15-17) in the packet core, with
NewReno and DCTCP next to DWTCP.

The metrics are defined once here, on the per-chunk records of a run (:func:`flow_traces`):

* **fair share** of an active flow in a chunk: the bottleneck's service rate in that chunk (its capacity, which a
  capacity schedule changes) divided by the number of flows active for the whole chunk;
* **convergence time** after an event (a flow joining or leaving, a capacity change) at t₀: from t₀ to the first
  chunk end t at which every active flow's throughput, averaged over the trailing :data:`WINDOW_RTTS` base RTTs
  (chunks after t₀ only), is within :data:`TOL` (10 %) of its fair share and stays within it for
  :data:`HOLD_RTTS` RTTs (None: not before the next event);
* **Jain index over time**: Jain's index (:func:`~dwtcp_fluid.packet.summary.jain_index`) of the active flows'
  throughputs, averaged over :data:`WINDOW_RTTS` RTTs, in each chunk with at least two active flows.

Settings (the paper's unless stated): 10 Gbps, 100 µs, 250-packet buffer; NewReno is loss-based Reno (ECN marks
ignored), DCTCP has K = 65, g = 1/16, DWTCP the §5.1 preset (β = 0.001, K = 100, α₀ = 20, 64-byte Scouts, 10-Scout
LPQ). Every experiment runs at the paper's own time scale: Fig. 7's flows join and leave 1 s (10,000 RTTs) apart,
Fig. 9's second flow joins at 0.5 s, Fig. 16's rate changes every 0.1 s, Fig. 17's long-haul link (1 Gbps, 6 ms)
runs 2 s. Fig. 15's run length is not stated: 0.1 s (1,000 RTTs), the summaries over its last half.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...packet.build import PacketRun, build
from ...packet.impair import FIG16_SCHEDULE
from ...packet.laws import get_law
from ...packet.scenarios import run_many
from ...packet.summary import jain_index
from ...params import DWTCP_EVALUATION, DctcpParams, LinkParams

__all__ = [
    "LAWS",
    "TOL",
    "WINDOW_RTTS",
    "HOLD_RTTS",
    "convergence_time",
    "jain_over_time",
    "trailing_mean",
    "flow_traces",
    "join_leave_table",
    "alpha_beta_table",
    "senders_table",
    "capacity_table",
    "long_haul_table",
]

#: The fair-share tolerance of the convergence time.
TOL = 0.10
#: Throughputs are averaged over this many base RTTs; the convergence condition must hold this many RTTs.
WINDOW_RTTS = 10
HOLD_RTTS = 10
_LINK = LinkParams(capacity="10Gbps", rtt="100us")
#: name → (law, K): NewReno (loss-based), DCTCP (K = 65) and DWTCP (target queue K = 100).
LAWS: dict[str, tuple[str, float]] = {
    "newreno": ("reno-loss", 65.0),
    "dctcp": ("dctcp", 65.0),
    "dwtcp": ("dwtcp", 100.0),
}


def trailing_mean(x: np.ndarray, window: int, first: int = 0) -> np.ndarray:
    """Mean of rows ``max(first, i − window + 1) … i`` of ``x`` for each row i ≥ ``first`` (NaN before ``first``)."""
    x = np.asarray(x, float)
    out = np.full(x.shape, np.nan)
    c = np.cumsum(np.concatenate([np.zeros((1, *x.shape[1:])), x[first:]]), axis=0)
    i = np.arange(first, x.shape[0])
    lo = np.maximum(first, i - window + 1)
    cnt = (i - lo + 1).reshape(-1, *([1] * (x.ndim - 1)))
    out[first:] = (c[i - first + 1] - c[lo - first]) / cnt
    return out


def convergence_time(
    t: np.ndarray,
    thr: np.ndarray,
    active: np.ndarray,
    fair: np.ndarray,
    t0: float,
    *,
    tol: float = TOL,
    window: int = 1,
    hold: int = 1,
    until: float = np.inf,
) -> float | None:
    """Time from ``t0`` until every active flow is within ``tol`` of its fair share and stays there (module
    docstring).

    ``t``: chunk end times [C]; ``thr``: per-flow throughput [C, N]; ``active``: bool [C, N], flows active for the
    whole chunk; ``fair``: fair share per flow [C]. The throughput is averaged over the trailing ``window`` chunks
    after ``t0``; the condition must hold at ``hold`` consecutive chunks, all ending by ``until``; the time
    returned is the end of the first of them, minus ``t0``."""
    t = np.asarray(t, float)
    first = int(np.searchsorted(t, t0, side="right"))  # the first chunk ending after t0 ...
    if 0 < first < len(t) and t[first - 1] < t0:
        first += 1  # ... that lies wholly after t0
    if first >= len(t):
        return None
    sm = trailing_mean(thr, window, first)
    act = np.asarray(active, bool)
    f = np.asarray(fair, float)[:, None]
    with np.errstate(invalid="ignore"):
        ok = act.any(1) & np.all(~act | (np.abs(sm - f) <= tol * f), axis=1)
    ok[:first] = False
    ok &= t <= until
    run = 0
    for i in range(first, len(t)):
        run = run + 1 if ok[i] else 0
        if run >= hold:
            return float(t[i - hold + 1] - t0)
    return None


def jain_over_time(thr: np.ndarray, active: np.ndarray, *, window: int = 1) -> np.ndarray:
    """Jain's index of the active flows' trailing-averaged throughput per chunk (NaN with fewer than two)."""
    sm = trailing_mean(thr, window)
    act = np.asarray(active, bool)
    return np.array(
        [jain_index(sm[i, act[i]]) if act[i].sum() >= 2 else np.nan for i in range(len(sm))], float
    )


def flow_traces(pr: PacketRun, out: dict[str, Any]) -> dict[str, np.ndarray]:
    """Per-chunk traces of a run: ``t`` (chunk ends, s), ``thr`` (per-flow throughput, packets/s), ``active``
    (flows sending for the whole chunk), ``fair`` (service rate / active flows, packets/s), ``util`` (busy over
    service slots), ``queue`` (mean, packets)."""
    rec = out["records"]
    chunk = pr.cfg.chunk
    dt = chunk * pr.slot
    n = int(np.asarray(rec["busy"]).shape[0])
    t = (np.arange(n) + 1) * dt
    act = np.asarray(rec["active"]) >= chunk
    opps = np.asarray(rec["opps"], float)
    na = act.sum(1)
    fair = np.where(na > 0, opps / dt / np.maximum(na, 1), np.nan)
    return {
        "t": t,
        "thr": np.asarray(rec["delivered"], float) / dt,
        "active": act,
        "fair": fair,
        "util": np.asarray(rec["busy"], float) / np.maximum(opps, 1.0),
        "queue": np.asarray(rec["q_sum"], float) / chunk,
    }


def _wh(pr: PacketRun) -> tuple[int, int]:
    """:data:`WINDOW_RTTS` and :data:`HOLD_RTTS` in chunks of ``pr`` (at least one)."""
    rtt_chunks = pr.link.d / (pr.cfg.chunk * pr.slot)
    return max(1, round(WINDOW_RTTS * rtt_chunks)), max(1, round(HOLD_RTTS * rtt_chunks))


def _law(case: str) -> Any:
    name, _ = LAWS[case]
    return get_law("reno", ecn=False) if name == "reno-loss" else get_law(name)


def _run(case: str, link: LinkParams, flows: int, **kw: Any) -> PacketRun:
    _, K = LAWS[case]
    return build(
        kw.pop("law", None) or _law(case),
        link=link,
        flows=flows,
        K=K,
        dctcp=DctcpParams(link=link, flows=flows, K=K, g=1.0 / 16.0),
        dwtcp=kw.pop("dwtcp", DWTCP_EVALUATION.replace(link=link, flows=flows)),
        buffer=kw.pop("buffer", 250),
        **kw,
    )


def _events(pr: PacketRun) -> list[tuple[float, str, int]]:
    """(time, "join" or "leave", flows active after it) of every start after 0 and every stop within the run."""
    sc = pr.scenario
    start, stop = np.asarray(sc.start), np.asarray(sc.stop)
    ev = [(int(s), "join") for s in start if s > 0] + [(int(s), "leave") for s in stop if s < pr.cfg.n_slots]
    return [(s * pr.slot, kind, int(((start <= s) & (stop > s)).sum())) for s, kind in sorted(ev)]


def _event_metrics(
    tr: dict[str, np.ndarray], events: list[tuple[float, str, int]], end: float, wh: tuple[int, int]
) -> list:
    """Convergence time after each event that leaves a flow active, searched until the next event."""
    rows = []
    for k, (t0, kind, n) in enumerate(events):
        if n == 0:
            continue
        nxt = events[k + 1][0] if k + 1 < len(events) else end
        ct = convergence_time(
            tr["t"], tr["thr"], tr["active"], tr["fair"], t0, window=wh[0], hold=wh[1], until=nxt
        )
        rows.append({"t0": t0, "kind": kind, "flows_after": n, "convergence_s": ct, "phase_s": nxt - t0})
    return rows


def _summary(tr: dict[str, np.ndarray], window: int, skip: float = 0.0) -> dict[str, float]:
    sel = (tr["t"] > skip) & tr["active"].any(1)  # chunks after ``skip`` with a flow sending
    j = jain_over_time(tr["thr"], tr["active"], window=window)[sel]
    return {
        "utilization": float(np.mean(tr["util"][sel])),
        "queue_mean": float(np.mean(tr["queue"][sel])),
        "jain_mean": float(np.nanmean(j)) if np.isfinite(j).any() else None,
        "jain_min": float(np.nanmin(j)) if np.isfinite(j).any() else None,
    }


def join_leave_table(
    *, step: float = 1.0, seeds: Sequence[int] = (0, 1), trace_points: int = 50000
) -> dict[str, list[dict[str, Any]]]:
    """[DWTCP] §5.2 Fig. 7: five long flows join ``step`` apart and then leave ``step`` apart (random phase within
    one RTT from ``seed``), for each law of :data:`LAWS`: per-event convergence times, utilization, mean queue,
    Jain index over time (mean and min over chunks with ≥ 2 flows), drops."""
    prs = [
        _run(
            c,
            _LINK,
            5,
            starts=[i * step for i in range(5)],
            stops=[(5 + i) * step for i in range(5)],
            duration=10 * step,
            trace_points=trace_points,
            warmup_fraction=0.0,
            seed=s,
        )  # fmt: skip
        for c in LAWS
        for s in seeds
    ]
    outs = run_many(prs)
    res: dict[str, list[dict[str, Any]]] = {c: [] for c in LAWS}
    for k, (pr, o) in enumerate(zip(prs, outs, strict=True)):
        tr = flow_traces(pr, o)
        row = {"seed": seeds[k % len(seeds)], "drops": int(o["drops"]), "timeouts": int(o["timeouts"])}
        row |= _summary(tr, _wh(pr)[0], skip=step)
        row["events"] = _event_metrics(tr, _events(pr), pr.duration, _wh(pr))
        res[list(LAWS)[k // len(seeds)]].append(row)
    return res


def alpha_beta_table(
    *,
    join: float = 0.5,
    duration: float = 1.5,
    betas: Sequence[float] = (1e-4, 1e-3, 1e-2, 1e-1),
    static_alpha: float = 10.0,
    seeds: Sequence[int] = (0, 1),
) -> list[dict[str, Any]]:
    """[DWTCP] §5.4 Fig. 9a, 9c: two long DWTCP flows, the second joining at ``join``: dynamic α (Algorithm 1)
    vs a static α (``alpha_min = alpha_max = alpha0 = static_alpha``) at β = 0.001, and dynamic α at each β:
    convergence time after the join, utilization, queue and Jain index after the join."""
    cases = [("static", 1e-3, static_alpha)] + [("dynamic", b, None) for b in betas]
    prs = []
    for _, beta, a in cases:
        for s in seeds:
            lp = {"alpha_min": a, "alpha_max": a, "alpha0": a} if a else None
            prs.append(
                _run(
                    "dwtcp",
                    _LINK,
                    2,
                    starts=[0.0, join],
                    duration=duration,
                    trace_points=15000,
                    warmup_fraction=0.0,
                    dwtcp=DWTCP_EVALUATION.replace(flows=2, beta=beta),
                    law_params=lp,
                    seed=s,
                )  # fmt: skip
            )
    outs = run_many(prs)
    rows = []
    for k, (pr, o) in enumerate(zip(prs, outs, strict=True)):
        mode, beta, a = cases[k // len(seeds)]
        tr = flow_traces(pr, o)
        ev = _event_metrics(tr, _events(pr), pr.duration, _wh(pr))
        # the second flow's join (the first flow's own start is an event too when its start phase is > 0)
        at_join = next(e for e in ev if e["kind"] == "join" and e["flows_after"] == 2)
        rows.append(
            {"alpha": mode, "static_alpha": a, "beta": beta, "seed": seeds[k % len(seeds)],
             "convergence_s": at_join["convergence_s"], "drops": int(o["drops"])}
            | _summary(tr, _wh(pr)[0], skip=join)
        )  # fmt: skip
    return rows


def senders_table(
    flows: Sequence[int] = (10, 20, 30), *, duration: float = 0.1, seeds: Sequence[int] = (0,)
) -> list[dict[str, Any]]:
    """[DWTCP] App. B Fig. 15: 10, 20, 30 long flows (starts within one RTT) for each law: utilization, mean
    queue, Jain index over the last half; time to first reach within 10 % of the fair share."""
    prs = [
        _run(c, _LINK, n, duration=duration, trace_points=1000, warmup_fraction=0.0, seed=s)
        for c in LAWS
        for n in flows
        for s in seeds
    ]
    outs = run_many(prs)
    keys = [(c, n, s) for c in LAWS for n in flows for s in seeds]
    rows = []
    for (c, n, s), pr, o in zip(keys, prs, outs, strict=True):
        tr = flow_traces(pr, o)
        ct = convergence_time(
            tr["t"], tr["thr"], tr["active"], tr["fair"], 0.0, window=_wh(pr)[0], hold=_wh(pr)[1]
        )
        rows.append(
            {"law": c, "flows": n, "seed": s, "convergence_s": ct, "drops": int(o["drops"])}
            | _summary(tr, _wh(pr)[0], skip=duration / 2)
        )
    return rows


def capacity_table(*, seeds: Sequence[int] = (0,)) -> list[dict[str, Any]]:
    """[DWTCP] App. B Fig. 16: five long flows while the bottleneck's rate steps every 0.1 s through 0.4, 0.7, 1,
    10, 0.8 Gbps (the paper's time scale), for each law: per phase utilization, mean queue, Jain index and the
    convergence time after the change."""
    link = LinkParams(capacity="10Gbps", rtt="100us")
    sched = list(FIG16_SCHEDULE)
    prs = [
        _run(
            c, link, 5, duration=0.5, capacity_schedule=sched, trace_points=2500, warmup_fraction=0.0, seed=s
        )
        for c in LAWS
        for s in seeds
    ]
    outs = run_many(prs)
    rows = []
    for k, (pr, o) in enumerate(zip(prs, outs, strict=True)):
        tr = flow_traces(pr, o)
        for p, (_, rate) in enumerate(sched):
            t0, t1 = 0.1 * p, 0.1 * (p + 1)
            sel = (tr["t"] > t0 + 0.01) & (tr["t"] <= t1)  # the phase after its first 10 ms (100 RTTs)
            ct = convergence_time(
                tr["t"], tr["thr"], tr["active"], tr["fair"], t0, window=_wh(pr)[0], hold=_wh(pr)[1], until=t1
            )
            j = jain_over_time(tr["thr"], tr["active"], window=_wh(pr)[0])[sel]
            rows.append(
                {"law": list(LAWS)[k // len(seeds)], "seed": seeds[k % len(seeds)], "rate": rate,
                 "utilization": float(tr["util"][sel].mean()), "queue_mean": float(tr["queue"][sel].mean()),
                 "queue_max_chunk": float(tr["queue"][sel].max()), "jain_mean": float(np.nanmean(j)),
                 "convergence_s": ct}
            )  # fmt: skip
    return rows


def long_haul_table(
    *, duration: float = 2.0, seeds: Sequence[int] = (0,), level: float = 0.9
) -> list[dict[str, Any]]:
    """[DWTCP] App. B Fig. 17: five long flows on a 1 Gbps, 6 ms link (BDP 500 packets, buffer 250): time until
    the utilization (trailing mean) first reaches ``level``, the fair-share convergence time, utilization and mean
    queue over the last half, drops."""
    link = LinkParams(capacity="1Gbps", rtt="6ms")
    prs = [
        _run(c, link, 5, duration=duration, trace_points=1000, warmup_fraction=0.0, seed=s)
        for c in LAWS
        for s in seeds
    ]
    outs = run_many(prs)
    rows = []
    for k, (pr, o) in enumerate(zip(prs, outs, strict=True)):
        tr = flow_traces(pr, o)
        u = trailing_mean(tr["util"][:, None], _wh(pr)[0])[:, 0]
        hit = np.flatnonzero(u >= level)
        ct = convergence_time(
            tr["t"], tr["thr"], tr["active"], tr["fair"], 0.0, window=_wh(pr)[0], hold=_wh(pr)[1]
        )
        rows.append(
            {"law": list(LAWS)[k // len(seeds)], "seed": seeds[k % len(seeds)],
             "time_to_util_s": float(tr["t"][hit[0]]) if hit.size else None, "convergence_s": ct,
             "drops": int(o["drops"]), "timeouts": int(o["timeouts"])} | _summary(tr, _wh(pr)[0], skip=duration / 2)
        )  # fmt: skip
    return rows
