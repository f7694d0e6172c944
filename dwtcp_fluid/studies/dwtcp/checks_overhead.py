"""[DWTCP]'s Scout overhead and design choices (§1, §3.1, §3.3, §3.4), in the packet core and from the workloads.

* **Overhead vs flows** (§3.1 "< 0.1 %", §1 and §3.4 "< 0.2 %"): ``N`` long DWTCP flows on one 10 Gbps, 100 µs
  bottleneck (the evaluation preset: 64-byte Scouts, one per flow per base RTT, a 10-Scout LPQ). Scouts sent,
  served at the switch and dropped there, against the data packets served: the overhead in bytes
  (Scouts × 64 B / data × 1,500 B) and in packets, sent and served. The hand count (:func:`.analysis_overhead.overhead_formula`,
  derived in ``proofs/dwtcp_scout_overhead.md``; :mod:`.analysis_overhead`): per-flow Scouts put N·x·S bytes on the link per RTT next to
  u·C·τ of data, so the sent overhead grows with N.
* **Overhead of the microbenchmark** (§3.4: "Figure 3a shows the DWTCP long flow has less than 0.2 % overhead"):
  the same counts in the §2.2 run (:func:`.checks_micro.micro_run`).
* **LPQ size** (§1 "even LPQ of 500 bytes", §3.1 "600 bytes (5-10 Scouts)", §6.2 "640 B"): the long-flow run at
  Scout buffers of 1-23 Scouts (64 B each: 500 B holds 7, 600 B 9, 640 B 10): utilization, queue, the fraction
  of Scouts dropped (the loss signal).
* **Scout rate** (§3.3 "too high Scout rate (on sub-RTT level) can cause significant overhead", §5.4 Fig. 9b,
  §6.2's one Scout every 7 µs per datapath): 5 long DWTCP flows plus 5 Scout-only streams (``scout-probe``, one per
  datapath) that send a Scout every ``period``: extra Scouts at the switch at a higher rate (they do not steer the
  flows, whose own Scouts stay at one per RTT), their served bytes and what they do to the flows' LPQ signal.
* **No Scouts below the initial window** (§3.3): the share of flows (and of bytes) of the web-search and
  data-mining CDFs the packet core draws (:mod:`~dwtcp_fluid.packet.workloads`) that are not larger than the
  initial window of 10 packets and so send no Scout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...packet.build import PacketRun, build
from ...packet.laws import get_law
from ...packet.scenarios import run_many
from ...packet.workloads import load_cdf, sample_sizes
from ...params import DWTCP_EVALUATION, LinkParams, check_range
from .analysis_overhead import SCOUT_BYTES

__all__ = [
    "overhead_run",
    "overhead_measure",
    "overhead_table",
    "micro_overhead",
    "rate_run",
    "rate_table",
    "small_flow_share",
    "INIT_CWND",
]

_LINK = LinkParams(capacity="10Gbps", rtt="100us")
#: The initial window (packets) below which a flow sends no Scout (§3.3).
INIT_CWND = 10


def overhead_run(
    flows: int,
    *,
    scout_buffer: int = 10,
    duration: float = 0.05,
    seed: int = 0,
    law: Any = "dwtcp",
    law_params: dict[str, float] | None = None,
) -> PacketRun:
    """``flows`` long DWTCP flows (evaluation preset, K = 100) on the 10 Gbps, 100 µs bottleneck with a 250-packet
    data buffer and a ``scout_buffer``-Scout LPQ; ``duration`` seconds, the first half discarded. ``law`` and
    ``law_params``: the DWTCP law object and options (e.g. per-datapath Scouts)."""
    check_range("flows", flows, lo=1, hi=1000, integer=True)
    check_range("scout_buffer", scout_buffer, lo=1, hi=23, integer=True, why="Scouts (23 fill one slot)")
    return build(
        law,
        link=_LINK,
        flows=flows,
        K=DWTCP_EVALUATION.k,
        dwtcp=DWTCP_EVALUATION.replace(flows=flows),
        buffer=250,
        scout_buffer=scout_buffer,
        duration=duration,
        trace_points=200,
        warmup_fraction=0.5,
        seed=seed,
        law_params=law_params,
    )


def overhead_measure(pr: PacketRun, out: dict[str, Any]) -> dict[str, Any]:
    """Scouts sent, served and dropped at the switch and data packets served (after the warm-up); the Scout
    overhead in bytes and packets, sent and served; Scouts sent per flow per base RTT; utilization, mean queue,
    the dropped fraction of the Scouts."""
    rec, w = out["records"], slice(pr.warmup_chunks, None)
    slots = pr.cfg.chunk * (pr.cfg.n_chunks - pr.warmup_chunks)
    data = float(rec["busy"][w].sum())
    sent, served = float(rec["scouts_sent"][w].sum()), float(rec["scouts_served"][w].sum())
    dropped = float(rec["scouts_dropped"][w].sum())
    rtts = slots * pr.slot / pr.link.d
    scouting = int(np.count_nonzero(np.asarray(pr.scenario.scouts)))
    b = SCOUT_BYTES / pr.link.L
    return {
        "flows": pr.cfg.n_flows,
        "scout_buffer": pr.cfg.scout_buffer,
        "data_packets": data,
        "scouts_sent": sent,
        "scouts_served": served,
        "scouts_dropped": dropped,
        "bytes_sent": sent * b / data,
        "bytes_served": served * b / data,
        "packets_sent": sent / data,
        "packets_served": served / data,
        "per_flow_per_rtt": sent / max(scouting, 1) / rtts,
        "scout_drop_fraction": dropped / max(sent, 1.0),
        "utilization": float(out["utilization"]),
        "queue_mean": float(out["queue_mean"]),
        "data_drops": int(out["drops"]),
        "seed": int(pr.scenario.seed),
    }


def overhead_table(
    flows: Sequence[int] = (1, 2, 5, 10, 20),
    scout_buffers: Sequence[int] = (10,),
    *,
    duration: float = 0.05,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """:func:`overhead_measure` for every flow count × Scout buffer."""
    prs = [
        overhead_run(n, scout_buffer=b, duration=duration, seed=seed) for n in flows for b in scout_buffers
    ]
    return [overhead_measure(pr, o) for pr, o in zip(prs, run_many(prs), strict=True)]


def micro_overhead(*, bursts: int = 5, seed: int = 0) -> dict[str, Any]:
    """:func:`overhead_measure` of the §2.2 microbenchmark's DWTCP (K = 100) run, plus the overhead of the
    5 long flows alone (their Scouts against their own data) from the flows' throughputs."""
    from .checks_micro import micro_run

    pr = micro_run("dwtcp-k100", bursts=bursts, seed=seed)
    out = run_many([pr])[0]
    m = overhead_measure(pr, out)
    thr = np.asarray(out["throughput_pps"], float)[:5]
    # a long flow sends one Scout per base RTT: 1/τ Scouts/s against its own packets/s
    m["long_flow_bytes"] = float(np.mean((1.0 / pr.link.d) * SCOUT_BYTES / (thr * pr.link.L)))
    return m


def rate_run(period_us: float, *, streams: int = 5, duration: float = 0.05, seed: int = 0) -> PacketRun:
    """5 long DWTCP flows (as :func:`overhead_run`, 10-Scout LPQ) and ``streams`` Scout-only streams sending one
    Scout every ``period_us`` µs (rounded to whole slots; 0: no streams)."""
    check_range("period_us", period_us, lo=0.0, hi=1e4, why="µs between a stream's Scouts (0: none)")
    n, p = 5, (streams if period_us > 0 else 0)
    per = [_LINK.d] * n + [period_us * 1e-6] * p
    return build(
        [get_law("dwtcp"), get_law("scout-probe")],
        link=_LINK,
        flows=n + p,
        law_of_flow=[0] * n + [1] * p,
        rtts=per,
        K=DWTCP_EVALUATION.k,
        dwtcp=DWTCP_EVALUATION.replace(flows=n),
        buffer=250,
        scout_buffer=10,
        duration=duration,
        trace_points=200,
        warmup_fraction=0.5,
        seed=seed,
    )


def rate_table(
    periods_us: Sequence[float], *, duration: float = 0.05, seeds: Sequence[int] = (0,)
) -> list[dict[str, Any]]:
    """:func:`overhead_measure` of :func:`rate_run` per period and seed, with the period in slots as run and the
    Scouts per base RTT per datapath (the flow's own one plus the stream's)."""
    prs = [rate_run(q, duration=duration, seed=s) for q in periods_us for s in seeds]
    rows = []
    for k, (pr, o) in enumerate(zip(prs, run_many(prs), strict=True)):
        q = periods_us[k // len(seeds)]
        per = int(np.asarray(pr.scenario.rtt)[-1]) if q > 0 else 0
        base = int(np.asarray(pr.scenario.rtt)[0])
        rows.append(
            overhead_measure(pr, o)
            | {"period_us": q, "period_slots": per, "per_rtt": 1.0 + (base / per if per else 0.0)}
        )
    return rows


def small_flow_share(
    cdf: str, *, init_cwnd: int = INIT_CWND, n: int = 200000, seed: int = 0
) -> dict[str, Any]:
    """The share of ``cdf``'s flows with at most ``init_cwnd`` packets of 1,500 B (no Scouts, §3.3) and their
    share of the bytes: exactly, from the piecewise-linear CDF (uniform between points), and from ``n`` sizes
    drawn the packet core's way (:func:`~dwtcp_fluid.packet.workloads.sample_sizes`, ceil to packets)."""
    x, p = load_cdf(cdf)
    cut = init_cwnd * _LINK.L
    frac = float(np.interp(cut, x, p))
    # bytes: ∫ s dF over each linear piece (mass dp uniform on [x0, x1]: mean (x0 + x1)/2), cut at ``cut``
    xs = np.minimum(x, cut)
    below = float(np.sum(np.diff(p) * (xs[:-1] + xs[1:]) / 2 * (x[1:] <= cut)))
    k = int(np.searchsorted(x, cut, side="right"))
    if 0 < k < x.size and x[k - 1] < cut:  # the piece the cut falls in
        pc = frac - p[k - 1]
        below += pc * (x[k - 1] + cut) / 2
    mean = float(np.sum(np.diff(p) * (x[:-1] + x[1:]) / 2))
    rng = np.random.default_rng(seed)
    pk = np.maximum(np.ceil(sample_sizes(rng, cdf, n) / _LINK.L), 1)
    return {
        "cdf": cdf,
        "init_cwnd": init_cwnd,
        "flows": frac,
        "bytes": below / mean,
        "flows_sampled": float(np.mean(pk <= init_cwnd)),
        "samples": n,
    }
