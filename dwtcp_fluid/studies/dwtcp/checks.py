"""The DWTCP packet law next to every registered DWTCP fluid predictor at the same parameters.

One setting (C, τ, N, β, target k, buffer) goes through

* the packet core's DWTCP law, exactly as one point of the sweep's packet pass
  (:mod:`dwtcp_fluid.sweep.packet_batch`: fair-share initial window, a warm-up of ``warmup_rtts`` base RTTs
  excluded, then ``packet_rtts`` measured; classified by :mod:`dwtcp_fluid.sweep.packet_classes`);
* every predictor of :mod:`.dwtcp_predictors` with a ``simulate`` face (the fluid models (3)-(7) in their
  variants; later the Scout-faithful model), for ``fluid_rtts`` base RTTs, summarised over the last half.

The summaries share :data:`~.dwtcp_predictors.SUMMARY_KEYS`: queue_mean, queue_min, queue_max, amplitude (packets),
period_s (s; the packet period is reported for oscillating runs only, a fluid period is the mean spacing of upward
crossings of q = k), utilization, window_mean (packets), alpha_mean. The packet amplitude is the robust one of
the sweep (percentiles of per-chunk extremes), the fluid amplitude (max − min)/2 of a smooth trace.

Each model's row gets the one verdict of :func:`~dwtcp_fluid.sweep.packet_classes.tolerance_verdict` (pass, fail,
or not scored with the reason: a packet run that is not steady or oscillating says nothing), the rule of the
Scout-faithful model's cross-check too (period within 15 % where the packet period is regular, mean queue within 10
packets or 20 %, utilization within 0.02).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...params import DEFAULT_BETA, DEFAULT_CAPACITY, DWTCP_TARGET, DwtcpParams, LinkParams
from ...sweep.packet_classes import TOLERANCES, oscillation_threshold, tolerance_verdict
from ...sweep.predictors import SUMMARY_KEYS, predictors

__all__ = ["TOLERANCES", "compare_dwtcp", "packet_setting"]


def packet_setting(
    P: DwtcpParams,
    *,
    buffer: int = 5000,
    warmup_rtts: float = 20.0,
    packet_rtts: float = 200.0,
    seed: int = 0,
) -> dict[str, Any]:
    """The one definition of "run DWTCP at a setting in the packet core and classify it": the setting as a point of
    the sweep's packet pass (:func:`~dwtcp_fluid.sweep.outcomes_packet.packet_outcomes`: fair-share initial window,
    the sweep's chunking, run lengths, second round and classification); summary, class and traces over the
    measurement window.

    Parameters
    ----------
    P : DwtcpParams
        Link (C, τ, L), N, β, target k (packets), Scout size and α₀.
    buffer : int
        Drop-tail data buffer, packets.
    warmup_rtts, packet_rtts : float
        Warm-up excluded from every statistic, and the shortest measurement window (base RTTs); a run that is not
        stationary gets the sweep's second round, up to twice ``packet_rtts``.
    seed : int
        Seed of the run (start jitter, send order).

    Returns
    -------
    dict
        ``summary`` (the keys of :func:`~dwtcp_fluid.sweep.packet_classes.tolerance_verdict`'s packet side plus
        ``class``, ``window_rtts``, ``jain_index``, ``drops``, ``timeouts``, ``scout_overhead``, ``trend_flags``,
        ``scouts_served_per_rtt``) and ``traces`` (t in s, q and w in packets, alpha).
    """
    from ...sweep.outcomes_packet import packet_outcomes
    from ...sweep.packet_batch import PacketPassOptions
    from ...sweep.packet_classes import PacketClass

    default = DwtcpParams()
    if (P.scout_size, P.alpha0) != (default.scout_size, default.alpha0):
        # the sweep's points run the packet law with the default Scout; another one would be a second definition
        raise ValueError(
            f"scout_size={P.scout_size!r}, alpha0={P.alpha0!r} are out of range: accepted the sweep's "
            f"scout_size={default.scout_size:g}, alpha0={default.alpha0:g}"
        )
    opts = PacketPassOptions(
        k=P.k,
        buffer=buffer,
        warmup_rtts=warmup_rtts,
        min_rtts=packet_rtts,
        max_rtts=2.0 * packet_rtts,
        trend_rtts=2.0 * packet_rtts,
        seed=seed,
    )
    recs: dict[int, Any] = {}
    o = packet_outcomes(
        [P.beta],
        [P.link.C * P.tau],
        [P.flows],
        capacity_pps=P.link.C,
        packet_size=P.link.L,
        options=opts,
        records=recs,
    )
    pr, rec = recs[0]
    chunk = pr.cfg.chunk
    w0 = int(math.ceil(warmup_rtts * float(pr.scenario.rtt.max()) / chunk))
    chunk_s = chunk * pr.slot
    period = float(o["packet_period"][0])
    summary = {
        "queue_mean": float(o["packet_queue_mean"][0]),
        "queue_min": float(o["packet_queue_min"][0]),
        "queue_max": float(o["packet_kbar_obs"][0]),
        "amplitude": float(o["packet_q_amplitude"][0]),
        "period_s": None if math.isnan(period) else period,
        "period_regular": bool(o["packet_period_regular"][0]),
        "oscillation_threshold": oscillation_threshold(P.flows, buffer),
        "cycle_cv": None if math.isnan(o["packet_cycle_cv"][0]) else float(o["packet_cycle_cv"][0]),
        "utilization": float(o["packet_utilization"][0]),
        "window_mean": float(o["packet_window_mean"][0]),
        "alpha_mean": float(o["packet_alpha_mean"][0]),
        "class": PacketClass(int(o["packet_class"][0])).label,
        "window_rtts": float(o["packet_window_rtts"][0]),
        "jain_index": float(o["packet_jain"][0]),
        "drops": int(o["packet_drops"][0]),
        "timeouts": int(o["packet_timeouts"][0]),
        "scout_overhead": float(o["packet_scout_overhead"][0]),
        "trend_flags": int(o["packet_trend"][0]),
        "scouts_served_per_rtt": float(rec["scouts_served"][w0:].sum()) / float(o["packet_window_rtts"][0]),
    }
    traces = {
        "t": (np.arange(w0, pr.cfg.n_chunks) + 1) * chunk_s,
        "q": rec["q_sum"][w0:] / chunk,
        "w": rec["cwnd_end"][w0:].mean(axis=1),
        "alpha": rec["alpha_end"][w0:].mean(axis=1),
    }
    return {"summary": summary, "traces": traces}


def compare_dwtcp(
    flows: int,
    rtt: float | str = "100us",
    *,
    capacity: float | str = DEFAULT_CAPACITY,
    packet_size: float = 1500.0,
    beta: float = DEFAULT_BETA,
    k: float = DWTCP_TARGET,
    buffer: int = 5000,
    models: tuple[str, ...] | None = None,
    packet_rtts: float = 200.0,
    fluid_rtts: float = 1000.0,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Packet core and fluid predictors at one setting (10 Gbps, β = 0.001, k = 100, buffer 5000 by default).

    Parameters
    ----------
    flows : int
        N.
    rtt, capacity, packet_size
        Base RTT τ ("100us" or seconds), capacity ("10Gbps" or bits/s), L in bytes.
    beta, k, buffer
        β (byte convention), target queue k of d_t = τ + k·L/C (packets), data buffer of the packet run (packets;
        the fluid models have no buffer).
    models : tuple of str, optional
        Predictor names (default every registered predictor with a ``simulate`` face).
    packet_rtts, fluid_rtts : float
        Measured base RTTs of the packet run (after a 20-RTT warm-up); length of the fluid runs (last half
        summarised: 1000 RTTs hold ≥ 3 periods of the delayed fluid cycle, ≈ π/√β + 2 ≈ 100-160 RTTs).
    seed : int
        Seed of the packet run (start jitter, send order).
    progress : callable, optional
        ``progress(done, total)`` after the packet run and after each fluid model (total = 1 + models).

    Returns
    -------
    dict
        ``setting`` (flows, rtt_s, bdp, beta, k, buffer), ``packet`` (summary), ``models`` (name → summary),
        ``gaps`` (name → :func:`~dwtcp_fluid.sweep.packet_classes.tolerance_verdict`), ``labels`` (name → label), ``traces`` (source → t, q, w, alpha).
    """
    link = LinkParams(capacity=capacity, rtt=rtt, packet_size=packet_size)
    P = DwtcpParams(link=link, flows=int(flows), beta=beta, k=k)
    reg = predictors(simulate=True)
    names = tuple(reg) if models is None else tuple(models)
    unknown = [m for m in names if m not in reg]
    if unknown:
        raise ValueError(f"models={unknown[0]!r} is not a registered fluid predictor: accepted {sorted(reg)}")
    total = 1 + len(names)
    if progress:
        progress(0, total)
    pk = packet_setting(P, buffer=buffer, packet_rtts=packet_rtts, seed=seed)
    if progress:
        progress(1, total)
    out: dict[str, Any] = {
        "setting": {
            "flows": int(flows),
            "rtt_s": link.d,
            "bdp": link.C * link.d,
            "beta": beta,
            "k": k,
            "buffer": buffer,
            "capacity_pps": link.C,
        },
        "packet": pk["summary"],
        "models": {},
        "gaps": {},
        "labels": {n: reg[n].label for n in names},
        "traces": {"packet": pk["traces"]},
    }
    for n in names:
        r = reg[n].simulate(P, fluid_rtts * link.d)
        out["models"][n] = {key: r["summary"].get(key) for key in SUMMARY_KEYS} | {
            "status": r["summary"]["status"]
        }
        if "regime" in r["summary"]:
            out["models"][n]["regime"] = r["summary"]["regime"]
        out["gaps"][n] = tolerance_verdict(pk["summary"], out["models"][n])
        out["traces"][n] = r["traces"]
        if progress:
            progress(2 + names.index(n), total)
    return out
