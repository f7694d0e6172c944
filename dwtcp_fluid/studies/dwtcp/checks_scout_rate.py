"""[DWTCP]'s Scout injection rate x (§3.3, §5.4 Fig. 9b), run with the flows' own Scouts at x per base RTT, and
§3.3's per-datapath Scouts (one stream per host pair, :func:`datapath_table`; the two-flow join with both flows
on one pair: :func:`rate_join_table` with ``scout_per="datapath"``).

The setting is §5.4's deep-dive: two long DWTCP flows on the 10 Gbps, 100 µs dumbbell (250-packet data buffer,
10-Scout LPQ, the §5.1 preset β = 0.001, K = 100), the second joining at 0.5 s (the load step), 1.5 s in all.
Two families of runs, each at every seed:

* **static α** (Fig. 9b: "for the static α, we vary the Scout injection rate instead of changing the Scout
  coefficient"): α fixed at 10 (``alpha_min = alpha_max = alpha0``) and x ∈ {1, 2, 4, 8} Scouts per RTT;
* **dynamic α** (Algorithm 1) at x ∈ {1/4, 1/2, 1, 2, 4}: §3.3's "too low Scout rate (one packet every few RTTs)
  … can severely impact the timeliness of getting congestion state", "too high … not providing significant
  benefits for congestion detection".

Per run, over the time after the join (the metrics of :mod:`.checks_dynamics`, defined there once):

* ``reaction_s``: the reaction time to the load step — from the join until the incumbent flow's throughput
  (trailing mean over :data:`~.checks_dynamics.WINDOW_RTTS` RTTs) first falls within
  :data:`~.checks_dynamics.TOL` of its new fair share;
* ``convergence_s``: :func:`~.checks_dynamics.convergence_time` after the join (None: not within the run);
* ``queue_peak``: the largest chunk-mean data queue after the join (packets); utilization, mean queue and Jain index
  after the join (:func:`~.checks_dynamics._summary`);
* the Scout overhead after the join: Scout bytes sent and served over data bytes served (64-byte Scouts,
  1,500-byte packets), the fraction of Scouts dropped at the LPQ, the mean wait of a served Scout in the LPQ (µs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...packet.build import PacketRun
from ...packet.scenarios import run_many
from ...params import DWTCP_EVALUATION, check_range
from .analysis_overhead import SCOUT_BYTES
from .checks_dynamics import (
    _LINK,
    TOL,
    _events,
    _run,
    _summary,
    _wh,
    convergence_time,
    flow_traces,
    trailing_mean,
)

__all__ = ["rate_join_run", "rate_join_measure", "rate_join_table", "datapath_table"]


def rate_join_run(
    rate: float,
    *,
    static_alpha: float | None = None,
    scout_per: str = "flow",
    join: float = 0.5,
    duration: float = 1.5,
    seed: int = 0,
    trace_points: int = 15000,
) -> PacketRun:
    """Two long DWTCP flows, the second joining at ``join`` s, each sending ``rate`` Scouts per base RTT; α fixed
    at ``static_alpha`` (None: Algorithm 1's dynamic α); ``scout_per="datapath"``: both flows on one host pair,
    sharing the first flow's Scout stream (§3.3)."""
    from ...packet.laws.dwtcp import Dwtcp

    check_range("join", join, lo=0.0, hi=duration, lo_open=True, hi_open=True, why="seconds, within the run")
    lp: dict[str, float] = {"scout_rate": float(rate)}
    if static_alpha is not None:
        lp |= {"alpha_min": static_alpha, "alpha_max": static_alpha, "alpha0": static_alpha}
    if scout_per == "datapath":
        lp["scout_paths"] = 1.0
    return _run(
        "dwtcp",
        _LINK,
        2,
        starts=[0.0, join],
        duration=duration,
        trace_points=trace_points,
        warmup_fraction=0.0,
        dwtcp=DWTCP_EVALUATION.replace(flows=2),
        law_params=lp,
        seed=seed,
        law=Dwtcp(scout_per=scout_per),
    )


def rate_join_measure(pr: PacketRun, out: dict[str, Any]) -> dict[str, Any]:
    """The metrics of the module docstring for one :func:`rate_join_run`."""
    tr = flow_traces(pr, out)
    t0 = next(t for t, kind, n in _events(pr) if kind == "join" and n == 2)
    win, hold = _wh(pr)
    first = int(np.searchsorted(tr["t"], t0, side="right")) + 1  # the first chunk wholly after the join
    inc = trailing_mean(tr["thr"][:, :1], win, first)[:, 0]
    with np.errstate(invalid="ignore"):
        ceded = np.flatnonzero(inc <= (1.0 + TOL) * tr["fair"])
    ceded = ceded[ceded >= first]
    ct = convergence_time(tr["t"], tr["thr"], tr["active"], tr["fair"], t0, window=win, hold=hold)
    rec = out["records"]
    after = slice(first, None)
    data = float(np.asarray(rec["busy"])[after].sum())
    sent = float(np.asarray(rec["scouts_sent"])[after].sum())
    served = float(np.asarray(rec["scouts_served"])[after].sum())
    dropped = float(np.asarray(rec["scouts_dropped"])[after].sum())
    wait = float(np.asarray(rec["scouts_wait"])[after].sum())
    b = SCOUT_BYTES / pr.link.L
    return {
        "join_s": float(t0),
        "reaction_s": float(tr["t"][ceded[0]] - t0) if ceded.size else None,
        "convergence_s": ct,
        "queue_peak": float(np.max(tr["queue"][after])),
        "bytes_sent": sent * b / data,
        "bytes_served": served * b / data,
        "scout_drop_fraction": dropped / max(sent, 1.0),
        "scout_wait_us": wait / max(served, 1.0) * pr.slot * 1e6,
        "scouts_per_flow_per_rtt": sent / 2.0 / ((len(tr["t"]) - first) * pr.cfg.chunk * pr.slot / pr.link.d),
        "drops": int(out["drops"]),
        "seed": int(pr.scenario.seed),
    } | _summary(tr, win, skip=t0)


def rate_join_table(
    static_rates: Sequence[float] = (1.0, 2.0, 4.0, 8.0),
    dynamic_rates: Sequence[float] = (0.25, 0.5, 1.0, 2.0, 4.0),
    *,
    static_alpha: float = 10.0,
    join: float = 0.5,
    duration: float = 1.5,
    seeds: Sequence[int] = (0, 1),
    scout_per: str = "flow",
) -> list[dict[str, Any]]:
    """:func:`rate_join_measure` for static α at each of ``static_rates`` and dynamic α at each of
    ``dynamic_rates``, every seed; rows carry ``alpha`` ("static" / "dynamic"), ``rate`` and ``scouts_per``."""
    cases = [("static", x, static_alpha) for x in static_rates] + [
        ("dynamic", x, None) for x in dynamic_rates
    ]
    prs = [
        rate_join_run(x, static_alpha=a, scout_per=scout_per, join=join, duration=duration, seed=s)
        for _, x, a in cases
        for s in seeds
    ]
    rows = []
    for k, (pr, o) in enumerate(zip(prs, run_many(prs), strict=True)):
        mode, x, _ = cases[k // len(seeds)]
        rows.append({"alpha": mode, "rate": float(x), "scouts_per": scout_per} | rate_join_measure(pr, o))
    return rows


def datapath_table(
    flows: Sequence[int] = (10, 20),
    *,
    paths: int = 5,
    duration: float = 0.1,
    seeds: Sequence[int] = (0, 1),
) -> list[dict[str, Any]]:
    """§3.3's per-datapath Scouts against per-flow ones: ``flows`` long DWTCP flows on ``paths`` host pairs (the
    §6.2 testbed's 5 sender-receiver pairs; flow f on pair f mod ``paths``), one Scout stream per flow or per
    pair, ``duration`` s (the :func:`~.checks_overhead.overhead_run` setting): the Scout overhead
    (:func:`~.checks_overhead.overhead_measure`, over the second half), utilization, mean queue and Jain index
    over time over the second half, and the time to first reach within 10 % of the fair share."""
    from ...packet.laws.dwtcp import Dwtcp
    from .checks_overhead import overhead_measure, overhead_run

    cases = [(mode, n, s) for mode in ("flow", "datapath") for n in flows for s in seeds]
    prs = [
        overhead_run(
            n,
            duration=duration,
            seed=s,
            law=Dwtcp(scout_per=mode),
            law_params={"scout_paths": float(paths)} if mode == "datapath" else None,
        )
        for mode, n, s in cases
    ]
    rows = []
    for (mode, n, _), pr, o in zip(cases, prs, run_many(prs), strict=True):
        tr = flow_traces(pr, o)
        win, hold = _wh(pr)
        ct = convergence_time(tr["t"], tr["thr"], tr["active"], tr["fair"], 0.0, window=win, hold=hold)
        s = _summary(tr, win, skip=duration / 2)
        rows.append(
            {"scouts_per": mode, "paths": paths if mode == "datapath" else n, "convergence_s": ct}
            | overhead_measure(pr, o)
            | {"jain_mean": s["jain_mean"], "jain_min": s["jain_min"]}
        )
    return rows
