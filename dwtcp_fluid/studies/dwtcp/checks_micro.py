"""[DWTCP] §2.2's microbenchmark and the DCTCP-at-small-K question, in the packet core.

* **Microbenchmark** (§2.2, Fig. 3): one 10 Gbps, 100 µs bottleneck, 250-packet buffer; 5 long background flows
  and 10 senders that each start a 50 KB (34-packet) flow together every 0.1 s. NewReno, DCTCP at K = 65 and K = 7
  (g = 1/16) and DWTCP (the evaluation preset: β = 0.001, 64-byte Scouts, 10-Scout buffer; K = 100 and K = 7).
  Run at the paper's own time scale (no scaling: 0.1 s between bursts is 1,000 RTTs; the run holds
  ``bursts`` of them, the first at 0.05 s after the long flows have settled).
* **Throughput vs K** ([DCTCP-A] §3.3, Fig. 10: 10 Gbps, 480 µs, g = 0.05; N = 2 and 25 long flows; K from 4 to
  100) against [DWTCP] §2.3/§6.3's "DCTCP at K = 7 underutilizes by ~15 %" (§6.3: 10 long flows at 100 µs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...packet.build import PacketRun, build
from ...packet.laws import get_law
from ...packet.scenarios import run_many
from ...params import DWTCP_EVALUATION, DctcpParams, LinkParams

__all__ = ["MICRO_CASES", "micro_run", "micro_metrics", "micro_table", "k_sweep", "K_SWEEP"]

_LINK = LinkParams(capacity="10Gbps", rtt="100us")
#: A 50 KB short flow in 1,500-byte packets.
SHORT_PACKETS = 34
#: name → (law, K): the protocols of Fig. 3 (K: DCTCP's marking threshold, DWTCP's target queue; NewReno is
#: loss-based: it ignores ECN marks).
MICRO_CASES: dict[str, tuple[str, float]] = {
    "newreno": ("reno-loss", 65.0),
    "dctcp-k65": ("dctcp", 65.0),
    "dctcp-k7": ("dctcp", 7.0),
    "dwtcp-k100": ("dwtcp", 100.0),
    "dwtcp-k7": ("dwtcp", 7.0),
}
#: [DCTCP-A] Fig. 10's thresholds.
K_SWEEP = (4.0, 7.0, 10.0, 15.0, 20.0, 30.0, 40.0, 65.0, 100.0)


def micro_run(case: str, *, bursts: int = 5, seed: int = 0) -> PacketRun:
    """One protocol of :data:`MICRO_CASES` in the §2.2 setting: 5 long flows (starting within the first RTT) and
    ``bursts`` rounds of 10 simultaneous 50 KB flows every 0.1 s from 0.05 s; the run ends 0.05 s after the last."""
    if case not in MICRO_CASES:
        raise ValueError(f"case={case!r} is invalid: accepted one of {', '.join(MICRO_CASES)}")
    name, K = MICRO_CASES[case]
    law = get_law("reno", ecn=False) if name == "reno-loss" else get_law(name)
    rng = np.random.default_rng(seed)
    long_starts = list(rng.uniform(0.0, _LINK.d, 5))
    bs = [0.05 + 0.1 * b for b in range(bursts)]
    starts = long_starts + [t for t in bs for _ in range(10)]
    sizes = [float(2**30)] * 5 + [float(SHORT_PACKETS)] * (10 * bursts)
    dw = DWTCP_EVALUATION.replace(k=K, flows=5)
    return build(
        law,
        link=_LINK,
        flows=len(starts),
        K=K,
        starts=starts,
        sizes=sizes,
        start_jitter=False,
        duration=bs[-1] + 0.05,
        buffer=250,
        dctcp=DctcpParams(link=_LINK, flows=5, K=K, g=1.0 / 16.0),
        dwtcp=dw,
        trace_points=2000,
        warmup_fraction=0.1,
        seed=seed,
    )


def micro_metrics(pr: PacketRun, out: dict[str, Any]) -> dict[str, Any]:
    """Long-flow goodput (Gbps, after the warm-up), utilization, queue mean and max, drops, short-flow FCT mean
    and p99 (ms) and the short flows finished."""
    thr = np.asarray(out["throughput_pps"], float)
    fct = np.asarray([np.nan if v is None else v for v in (out["fct_s"] or [])], float)
    fct = fct[np.isfinite(fct)]
    return {
        "goodput_gbps": float(thr[:5].sum() * pr.link.L * 8 / 1e9),
        "utilization": float(out["utilization"]),
        "queue_mean": float(out["queue_mean"]),
        "queue_max": int(out["queue_max"]),
        "drops": int(out["drops"]),
        "timeouts": int(out["timeouts"]),
        "fct_mean_ms": float(fct.mean() * 1e3) if fct.size else None,
        "fct_p99_ms": float(np.percentile(fct, 99) * 1e3) if fct.size else None,
        "short_finished": int(fct.size),
        "short_flows": int(out["flows_finite"]),
    }


def micro_table(*, bursts: int = 5, seeds: Sequence[int] = (0,)) -> dict[str, list[dict[str, Any]]]:
    """:func:`micro_metrics` of every case and seed (one list per case, in seed order)."""
    prs = [micro_run(c, bursts=bursts, seed=s) for c in MICRO_CASES for s in seeds]
    outs = run_many(prs)
    res: dict[str, list[dict[str, Any]]] = {c: [] for c in MICRO_CASES}
    for k, (pr, o) in enumerate(zip(prs, outs, strict=True)):
        res[list(MICRO_CASES)[k // len(seeds)]].append(micro_metrics(pr, o) | {"seed": seeds[k % len(seeds)]})
    return res


def k_sweep(
    flows: Sequence[int] = (2, 25),
    Ks: Sequence[float] = K_SWEEP,
    *,
    rtt: str = "480us",
    g: float = 0.05,
    buffer: int = 1000,
    duration: float = 0.4,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """DCTCP's utilization of a 10 Gbps bottleneck with ``flows`` long flows at each K ([DCTCP-A] Fig. 10's setting by
    default; a ``buffer`` large enough that no K here overflows it), over the last half of ``duration``."""
    link = LinkParams(capacity="10Gbps", rtt=rtt)
    prs = [
        build(
            "dctcp",
            link=link,
            flows=n,
            K=K,
            dctcp=DctcpParams(link=link, flows=n, K=K, g=g),
            buffer=buffer,
            duration=duration,
            trace_points=200,
            seed=seed,
        )
        for n in flows
        for K in Ks
    ]
    outs = run_many(prs)
    return [
        {
            "flows": n,
            "K": K,
            "rtt": rtt,
            "g": g,
            "utilization": float(o["utilization"]),
            "queue_mean": float(o["queue_mean"]),
            "queue_min": int(o["queue_min"]),
            "drops": int(o["drops"]),
            "seed": seed,
        }
        for (n, K), o in zip([(n, K) for n in flows for K in Ks], outs, strict=True)
    ]
