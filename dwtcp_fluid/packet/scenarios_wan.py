"""[DCTCP-WAN]'s experiments as packet scenarios, their metrics, and our verdict on each of its claims.

Two settings of [DCTCP-WAN]: the *star* (a 950 Mbps bottleneck behind 1 Gbps access links, ≈ 1 ms RTT, a
100-packet drop-tail queue, ECN step marking at K = 30, g = 1/16) and the *WAN dumbbell* (the same rates, ≈ 20 ms
RTT, 200 packets, K = 200, g = 1/64). The access links are 1 Gbps, so a single flow can build a queue at the
950 Mbps bottleneck (the link's rate is the highest rate of the packet core; the bottleneck serves at 95 % of it).

Traffic: one long-lived *elephant* and ``mice`` senders that each send a short flow (:data:`MOUSE_PACKETS`) every
:data:`MOUSE_EVERY` seconds (staggered) — [DCTCP-WAN]'s iperf3 mice, whose sizes the report does not give.

Metrics (:func:`wan_metrics`, over the run after ``warmup``): RTT per chunk = base RTT + mean queue / bottleneck
rate (every flow shares the FIFO); its coefficient of variation and 99th percentile (of base + chunk queue
maximum / rate, an upper proxy of a per-packet p99); the elephant's window CoV (per-chunk time-average window) and
throughput; retransmissions (drops, random losses and timeouts); the mice's mean FCT and throughput.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..params import DCTCP_ANALYSIS, LinkParams
from .build import PacketRun, build
from .state import INFINITE_SIZE

__all__ = [
    "STAR",
    "WAN",
    "MOUSE_PACKETS",
    "MOUSE_EVERY",
    "wan_run",
    "wan_metrics",
    "p99_rtt_bound",
]

#: Star: access 1 Gbps, bottleneck 950 Mbps, base RTT 1 ms, 100-packet queue, K = 30, g = 1/16 ([DCTCP-WAN]).
STAR = {
    "access": "1Gbps",
    "rate": "950Mbps",
    "rtt": "1ms",
    "buffer": 100,
    "K": 30.0,
    "g": 1.0 / 16.0,
    "rto": "5ms",
}
#: WAN dumbbell: the same rates, base RTT 20 ms, 200-packet queue, K = 200, g = 1/64 ([DCTCP-WAN]).
WAN = {
    "access": "1Gbps",
    "rate": "950Mbps",
    "rtt": "20ms",
    "buffer": 200,
    "K": 200.0,
    "g": 1.0 / 64.0,
    "rto": "200ms",
}
#: Size of one mouse flow (packets, ≈ 96 kB) and the spacing of one mouse sender's flows (seconds).
MOUSE_PACKETS = 64
MOUSE_EVERY = 0.01


def _setting(name: str) -> dict[str, Any]:
    if name not in ("star", "wan"):
        raise ValueError(f"setting={name!r} is invalid: accepted 'star' or 'wan'")
    return STAR if name == "star" else WAN


def wan_run(
    setting: str,
    laws: str | Sequence[str] = "dctcp",
    *,
    mice: int = 3,
    duration: float = 1.0,
    jitter: str | None = None,
    delack: int = 1,
    loss: float = 0.0,
    seed: int = 0,
    trace_points: int = 2000,
    elephants: int = 1,
) -> PacketRun:
    """One [DCTCP-WAN] run: ``elephants`` long flows and ``mice`` mouse senders at the ``setting`` ("star" or
    "wan"), with the impairments of :func:`~.build.build` (ACK ``jitter``, ``delack`` packets per ACK with a
    timeout of one base RTT, random ``loss``). ``laws``: one law for all flows, or one per elephant followed by
    the mice's law (``("dctcp", "cubic")`` with ``elephants=2, mice=0`` puts flow 0 on DCTCP and flow 1 on CUBIC).

    Parameters
    ----------
    setting : {"star", "wan"}
    laws : str or sequence of str
    mice : int
        Mouse senders (each a :data:`MOUSE_PACKETS` flow every :data:`MOUSE_EVERY` s).
    duration : float
        Seconds simulated.
    jitter, delack, loss
        Impairments, as :func:`~.build.build`.
    seed, trace_points
        As :func:`~.build.build`.
    elephants : int
        Long flows (flows 0 … elephants − 1).
    """
    st = _setting(setting)
    link = LinkParams(capacity=st["access"], rtt=st["rtt"])
    n_mice_flows = int(round(duration / MOUSE_EVERY)) - 1 if mice else 0
    starts = [0.0] * elephants
    sizes = [float(INFINITE_SIZE)] * elephants
    for j in range(n_mice_flows):
        for m in range(mice):
            starts.append(MOUSE_EVERY * (j + 1) + m * MOUSE_EVERY / max(mice, 1))
            sizes.append(float(MOUSE_PACKETS))
    n = len(starts)
    names = [laws] if isinstance(laws, str) else list(laws)
    if len(names) == 1:
        law_of_flow = None
    elif len(names) == elephants + (1 if mice else 0):
        law_of_flow = list(range(elephants)) + [elephants] * (n - elephants)
    else:
        raise ValueError(
            f"laws={laws!r} is invalid: accepted one law, or one per elephant plus one for the mice"
        )
    dctcp = DCTCP_ANALYSIS.replace(link=link, flows=n, K=st["K"], g=st["g"])
    return build(
        names if len(names) > 1 else names[0],
        link=link,
        dctcp=dctcp,
        flows=n,
        K=st["K"],
        buffer=st["buffer"],
        rto=st["rto"],
        duration=duration,
        starts=starts,
        sizes=sizes,
        seed=seed,
        trace_points=trace_points,
        warmup_fraction=0.25,
        jitter=jitter,
        delack=delack,
        delack_timeout=st["rtt"],
        loss=loss,
        law_of_flow=law_of_flow,
        capacity_schedule=[(0.0, st["rate"])],
        start_jitter=False,
    )


def wan_metrics(pr: PacketRun, summary: dict[str, Any]) -> dict[str, Any]:
    """[DCTCP-WAN]'s metrics of one run (see the module docstring); flow 0 is the elephant, times in seconds.

    Parameters
    ----------
    pr : PacketRun
        The run (from :func:`wan_run`).
    summary : dict
        Its summary with ``records`` (from :func:`~.scenarios.run_many`).
    """
    rec = summary["records"]
    w = slice(pr.warmup_chunks, None)
    rate = _bottleneck_pps(pr)
    base = float(np.asarray(pr.scenario.rtt)[0]) * pr.slot
    chunk_s = pr.cfg.chunk * pr.slot
    q_mean = np.asarray(rec["q_sum"][w], float) / pr.cfg.chunk
    rtt = base + q_mean / rate
    rtt_hi = base + np.asarray(rec["q_max"][w], float) / rate
    act = np.asarray(rec["active"][w][:, 0], float)
    cw = np.asarray(rec["cwnd_sum"][w][:, 0], float) / np.maximum(act, 1.0)
    cw = cw[act > 0]
    deliv = np.asarray(rec["delivered"][w], float)
    span = deliv.shape[0] * chunk_s
    el_thr = float(deliv[:, 0].sum() / span)
    fct = [f for f in (summary["fct_s"] or [])[1:] if f is not None]
    mice_thr = [MOUSE_PACKETS / f for f in fct]
    return {
        "rtt_mean_s": float(rtt.mean()),
        "rtt_cov": float(rtt.std() / rtt.mean()),
        "rtt_p99_s": float(np.percentile(rtt_hi, 99)),
        "window_cov": float(cw.std() / cw.mean()) if cw.size and cw.mean() > 0 else None,
        "window_mean": float(cw.mean()) if cw.size else None,
        "elephant_pps": el_thr,
        "elephant_share": el_thr / rate,
        "utilization": float(summary["utilization_capacity"]),
        "retransmissions": int(summary["drops"] + summary["random_losses"] + summary["timeouts"]),
        "timeouts": int(summary["timeouts"]),
        "mice_fct_mean_s": float(np.mean(fct)) if fct else None,
        "mice_pps_mean": float(np.mean(mice_thr)) if mice_thr else None,
        "mice_pps_cov": float(np.std(mice_thr) / np.mean(mice_thr)) if mice_thr else None,
        "mice_finished": len(fct),
        "queue_mean": float(summary["queue_mean"]),
        "throughput_by_law": summary["throughput_by_law_pps"],
    }


def _bottleneck_pps(pr: PacketRun) -> float:
    """The bottleneck's service rate in packets/s (the capacity schedule's first segment)."""
    from .switch import CAP_SCALE

    return float(pr.link.C) * float(np.asarray(pr.scenario.cap_rate)[0]) / CAP_SCALE


def p99_rtt_bound(setting: str) -> float:
    """The largest possible reduction of any RTT percentile by a lower queue: 1 − base/(base + buffer/rate), since
    base ≤ RTT ≤ base + buffer/rate with a drop-tail buffer (the RTT of [DCTCP-WAN]'s bottleneck alone)."""
    st = _setting(setting)
    s = LinkParams(capacity=st["rate"], rtt=st["rtt"])
    hi = s.d + st["buffer"] / s.C
    return 1.0 - s.d / hi
