"""The tuned (K, g) through the packet core at the operating range's corners: the packet law judges the tuning.

Each corner (shortest/longest RTT × fewest/most flows) runs the packet core's DCTCP law (the one-step cut of the fluid models,
:func:`dwtcp_fluid.studies.dctcp.checks.packet_run`) with the tuned K and g; its mean queue (above the standing queue
2N − C·d, as the objective counts it) and utilization over the last half are set next to the fluid values of
:mod:`.cycle_grad`. Classes:

* ``agree``: packet mean queue within :data:`TOLERANCE` packets of the fluid one and utilization within 0.01 of
  the fluid throughput;
* ``disagree``: a stationary run outside that;
* ``uninformative``: the run says nothing about the stationary regime (the mean queue of the measured half's two
  halves differs by more than the packet classes' trend threshold max(TREND_Q_ABS, TREND_Q_REL·queue) of
  :mod:`dwtcp_fluid.judge.classes`, or the link collapsed, utilization < 0.5); never counted as agreement.

The tolerance is the one the packet-vs-fluid cross-check states for the mean queue (10 packets): the paper's
model (5)-(8) lags the packet queue by an RTT, which moves its period but not its mean queue by more than that.

Where it fails, and why (10 Gbps, 300 µs, the tuned K = 23.4, g = 0.00845): not the model's lag. The packet
senders keep whole packets in flight, so the queue sits below N·W − C·d by the run's ``ack_clock_gap`` (reported
per corner): 9.0, 14.9, 19.3 and 34.7 packets at N = 25, 50, 70, 100 (windows of 10.8 to 3.2 packets; at N = 100
the mean window is 3.19 packets and the mean in flight 2.75, and the 200-ms run also has 532 drops and 24
timeouts, the buffer being 250 packets, counted over the whole run, slow start included). Both the
tuned model and the ACK-clocked one (q = N·W − C·d, no lag) predict utilization ≥ 0.988 there; the packet core
gives 0.975, 0.963, 0.948, 0.963, and mean queues 6-22 packets below the tuned model's (at N = 100: 34.7 vs 56.7,
ACK-clocked 51.7). So tuning on the ACK-clocked model would not remove the disagreement; it grows with N/w̄.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...judge import Tolerance, Tolerances, verdict
from ...params import DctcpParams, LinkParams
from .analysis_cycle_grad import cycle_observables
from .checks import TOLERANCES
from .tune import TuneRange

__all__ = ["TOLERANCE", "packet_check", "packet_check_dwtcp"]

#: Mean-queue tolerance, packets (the packet-vs-fluid cross-check's).
TOLERANCE = float(TOLERANCES["queue_mean"].abs)
#: The tuned model against the packet corners: mean queue (above the standing queue) within :data:`TOLERANCE`,
#: packet utilization within 0.01 of the fluid throughput.
TUNE_TOLERANCES = Tolerances(
    Tolerance("queue_mean", "packets", abs=TOLERANCE),
    Tolerance("utilization", "1", abs=0.01),
)


def packet_check(
    rng: TuneRange, K: float, g: float, *, duration: float = 0.06, seed: int = 0
) -> list[dict[str, Any]]:
    """Fluid and packet mean queue and utilization at the four corners of ``rng`` for (K, g); one dict each.

    Parameters
    ----------
    rng : TuneRange
        The operating range; its corners (d_lo, d_hi) × (N_lo, N_hi) are run.
    K, g : float
        Marking threshold (packets) and EWMA gain, e.g. :func:`dwtcp_fluid.studies.dctcp.tune.tune_dctcp`'s.
    duration : float
        Shortest packet run in seconds (longer where 40 fluid periods need it); the last half is measured.
    seed : int
        Packet-core seed.

    Returns
    -------
    list of dict
        Per corner: ``rtt_s``, ``flows``, fluid and packet mean queue above the standing queue (packets), fluid
        throughput and packet utilization, ``q_standing``, the packet run's ``packet_ack_clock_gap`` (mean
        |q − (ΣW − C·d)|, packets: what whole packets in flight take from the fluid queue) and
        ``packet_window_mean``, the stationarity note and ``class``.
    """
    from ...judge.classes import TREND_Q_ABS, TREND_Q_REL
    from .checks import packet_run

    corners = [(d, n) for d in rng.d for n in rng.N]
    D = np.array([c[0] for c in corners])
    N = np.array([c[1] for c in corners], dtype=float)
    fl = cycle_observables(K, g, N, rng.C, D, gradients=False)
    out = []
    for i, (d, n) in enumerate(corners):
        link = LinkParams(rng.capacity, d, rng.packet_size)
        P = DctcpParams(link=link, flows=int(n), K=float(K), g=float(g))
        # long enough for ≥ 20 fluid periods in the measured half
        T = float(fl["period"][i]) if np.isfinite(fl["period"][i]) else 0.0
        pk = packet_run(P, duration=max(duration, 40 * T), seed=seed)
        s, q = pk["summary"], pk["traces"]["q"]
        # the packet classes' queue-trend rule between the halves of the measured window (the trace has no
        # per-chunk utilization; the run's is checked below)
        q1, q2 = float(np.mean(q[: q.size // 2])), float(np.mean(q[q.size // 2 :]))
        stationary = abs(q2 - q1) <= max(TREND_Q_ABS, TREND_Q_REL * max(q1, q2))
        why = f"halves: queue {q1:.1f}, {q2:.1f}"
        stand = float(fl["q_standing"][i])
        row = {
            "rtt_s": float(d), "flows": int(n), "fluid_queue_mean": float(fl["q_mean"][i]) - stand,
            "packet_queue_mean": float(s["queue_mean"]) - stand, "fluid_throughput": float(fl["throughput"][i]),
            "packet_utilization": float(s["utilization"]), "q_standing": stand, "stationarity": why,
            "packet_ack_clock_gap": float(s["ack_clock_gap"]), "packet_window_mean": float(s["window_mean"]),
        }  # fmt: skip
        cls = "stationary" if stationary and row["packet_utilization"] >= 0.5 else "uninformative"
        v = verdict(
            TUNE_TOLERANCES,
            {"queue_mean": row["packet_queue_mean"], "utilization": row["packet_utilization"]},
            {"queue_mean": row["fluid_queue_mean"], "utilization": row["fluid_throughput"]},
            run_class=cls,
            scored_classes=("stationary",),
        )
        row["class"] = v.outcome  # agree, disagree, or the class that is not scored: uninformative
        out.append(row)
    return out


def packet_check_dwtcp(rng: TuneRange, beta: float, K: float, *, seed: int = 0) -> list[dict[str, Any]]:
    """The tuned DWTCP (β, K) at the four corners of ``rng``: busy-period model against the packet core.

    The packet side is the sweep's one DWTCP run definition (:func:`~dwtcp_fluid.studies.dwtcp.checks.packet_setting`: 20 RTTs
    warm-up, 200-400 measured, buffer 5000, its classes); the fluid side is the tuner's
    (:func:`dwtcp_fluid.studies.dwtcp.analysis_busy_batch.run_busy_batch`, 100 + 300 RTTs). The verdict is the DWTCP
    cross-check's (:func:`dwtcp_fluid.studies.dwtcp.checks.model_gaps`: mean queue within max(10 packets,
    20 %), utilization within 0.02, steadiness or period by class; a packet run that is neither steady nor
    oscillating is "not scored", never agreement).

    Parameters
    ----------
    rng : TuneRange
        The operating range; its corners (d_lo, d_hi) × (N_lo, N_hi) are run.
    beta, K : float
        Decrease gain (byte convention) and target K (packets), e.g. :func:`~dwtcp_fluid.studies.dwtcp.tune.
        tune_dwtcp`'s.
    seed : int
        Packet-core seed.

    Returns
    -------
    list of dict
        Per corner ``rtt_s``, ``flows``, fluid and packet mean queue (packets), utilization, amplitude, the
        fluid regime, the packet class, ``class`` (the verdict: "pass", "fail", "not scored") and ``why``.
    """
    from ..dwtcp.analysis_busy_batch import run_busy_batch
    from ..dwtcp.checks import model_gaps, packet_setting
    from ..dwtcp.tune import tune_points

    # the corners are the grid of the range with two points per axis, in the tuner's own parameter set
    box = TuneRange(rng.capacity, rng.rtt, rng.flows, 2, rng.packet_size)
    Ps = tune_points(box, np.array([beta], float), np.array([K], float))
    corners = [(P.link.d, P.flows) for P in Ps]
    fluid = run_busy_batch(Ps)
    out = []
    for (d, n), P, fl in zip(corners, Ps, fluid, strict=True):
        pk = packet_setting(P, seed=seed)["summary"]
        v = model_gaps(pk, fl)
        out.append({
            "rtt_s": float(d), "flows": int(n), "fluid_queue_mean": fl["queue_mean"],
            "packet_queue_mean": pk["queue_mean"], "fluid_utilization": fl["utilization"],
            "packet_utilization": pk["utilization"], "fluid_amplitude": fl["amplitude"],
            "packet_amplitude": pk["amplitude"], "fluid_regime": fl["regime"], "packet_class": pk["class"],
            "class": v["verdict"], "why": v["why"],
        })  # fmt: skip
    return out
