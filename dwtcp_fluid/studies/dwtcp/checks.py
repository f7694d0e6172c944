"""The DWTCP packet law next to every registered DWTCP fluid predictor at the same parameters.

One setting (C, τ, N, β, target k, buffer) goes through

* the packet core's DWTCP law, exactly as one point of the sweep's packet pass
  (:mod:`dwtcp_fluid.sweep.packet_batch`: fair-share initial window, a warm-up of ``warmup_rtts`` base RTTs
  excluded, then ``packet_rtts`` measured; classified by :mod:`dwtcp_fluid.judge.classes`);
* every predictor of :mod:`.dwtcp_predictors` with a ``simulate`` face (the fluid models (3)-(7) in their
  variants; later the Scout-faithful model), for ``fluid_rtts`` base RTTs, summarised over the last half.

The summaries share :data:`~.dwtcp_predictors.SUMMARY_KEYS`: queue_mean, queue_min, queue_max, amplitude (packets),
period_s (s; the packet period is reported for oscillating runs only, a fluid period is the mean spacing of upward
crossings of q = k), utilization, window_mean (packets), alpha_mean. The packet amplitude is the robust one of
the sweep (percentiles of per-chunk extremes), the fluid amplitude (max − min)/2 of a smooth trace.

Each model's row gets the judge's verdict (:func:`dwtcp_fluid.judge.verdict`, shaped by :func:`model_gaps`: pass,
fail, or not scored with the reason: a packet run that is not steady or oscillating says nothing) on
:data:`TOLERANCES`, the rule of the Scout-faithful model's cross-check too (period within 15 % where the packet
period is regular, mean queue within 10 packets or 20 %, utilization within 0.02). :data:`CHECK` is the
cross-check ``packet compare-fluid --law dwtcp`` runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, judge, register_check
from ...judge.classes import SCORED, PacketClass, oscillation_threshold
from ...params import DEFAULT_BETA, DEFAULT_CAPACITY, DWTCP_TARGET, DwtcpParams, LinkParams
from ...sweep.predictors import SUMMARY_KEYS, predictors

__all__ = ["TOLERANCES", "PERIOD_RULES", "CHECK", "compare_dwtcp", "model_gaps", "packet_setting"]

#: Tolerances of a fluid model against the DWTCP packet law (in the spirit of the DCTCP ACK-clocked model's): mean
#: queue within max(10 packets, 20 % of the packet run's), utilization within 0.02, period within 15 % of the packet
#: run's (where it is regular; :data:`PERIOD_RULES` says which period rule applies to a run).
TOLERANCES = Tolerances(
    Tolerance("queue_mean", "packets", abs=10.0, rel=0.20, relative_to="of"),
    Tolerance("utilization", "1", abs=0.02),
    Tolerance("period", "1", quantity="period_s", rel=0.15, relative_to="of"),
)
#: The period criterion by the model's regime and the packet run's class: a standing-queue model needs a packet queue
#: that never empties; a steady packet run needs a steady model (the packet rule's threshold applied to the model's
#: swing: its amplitude when it has a period, 0 without one); an oscillating run needs the period of
#: :data:`TOLERANCES` (an irregular packet period is not scored).
PERIOD_RULES = {
    "standing queue": Tolerance(
        "period", "packets", quantity="queue_min", against=None, at_least=0.0, strict=True
    ),
    "steady": Tolerance(
        "period",
        "packets",
        of="context",
        quantity="swing",
        against="context",
        against_quantity="threshold",
        at_most=0.0,
    ),  # fmt: skip
}


def _period_rule(packet: dict[str, Any], model: dict[str, Any]) -> str:
    if model.get("regime") == "standing queue":
        return "standing queue"
    if packet["class"] == PacketClass.STEADY.label:
        return "steady"
    if packet.get("period_s") is not None and not packet.get("period_regular", True):
        return "irregular"
    return "period"


def _tolerances(setting: Any, packet: dict[str, Any], model: dict[str, Any]) -> Tolerances:
    """:data:`TOLERANCES` with the period rule of :data:`PERIOD_RULES` that applies to this run and model."""
    rule = _period_rule(packet, model)
    if rule == "irregular":
        return Tolerances(*(t for t in TOLERANCES if t.name != "period"))
    return TOLERANCES.replace(PERIOD_RULES[rule]) if rule in PERIOD_RULES else TOLERANCES


def _context(setting: Any, packet: dict[str, Any], model: dict[str, Any]) -> dict[str, Any]:
    """The packet run's oscillation threshold and the model's swing (its amplitude when it has a period)."""
    m = model.get("summary", model)
    amp = m.get("amplitude")
    swing = 0.0 if m.get("period_s") is None else (math.inf if amp is None else amp)
    return {
        "threshold": float(packet.get("summary", packet).get("oscillation_threshold", 0.0)),
        "swing": swing,
    }


def model_gaps(packet: dict[str, Any], model: dict[str, Any]) -> dict[str, Any]:
    """The judge's verdict on one model against a DWTCP packet run, in words.

    ``packet`` has ``class`` (a :class:`~dwtcp_fluid.judge.classes.PacketClass` label), ``queue_mean``,
    ``queue_min``, ``utilization``, ``period_s`` (None unless oscillating), ``period_regular`` and
    ``oscillation_threshold``; ``model`` has ``queue_mean``, ``utilization``, ``period_s``, ``amplitude``,
    ``status`` and optionally ``regime``.

    Returns ``verdict``: "not scored" (the packet run is not steady or oscillating: it says nothing), "fail" (the
    model's solver failed, or a criterion is missed) or "pass"; ``why`` (one line per criterion, with the
    numbers); ``queue_ok``, ``utilization_ok``, ``period_ok`` (None: not scored); ``queue_mean_abs``,
    ``utilization_abs``, ``period_rel`` (None without two periods).
    """
    out: dict[str, Any] = {"queue_ok": None, "utilization_ok": None, "period_ok": None, "queue_mean_abs": None,
                           "utilization_abs": None, "period_rel": None}  # fmt: skip
    row = judge(CHECK, None, packet, {"model": model})
    v = row.verdicts["model"]
    if v.outcome not in ("agree", "disagree"):
        return out | {"verdict": "not scored", "why": [f"packet run is {packet['class']}: it says nothing"]}
    if not v.checks:
        return out | {"verdict": "fail", "why": [f"model solver: {model['status']}"]}

    def said(ok: bool | None) -> str:
        return "within tolerance" if ok else "outside tolerance"

    dq, du = v.measured["queue_mean"], v.measured["utilization"]
    why = [
        f"mean queue packet {packet['queue_mean']:.1f} vs model {model['queue_mean']:.1f} packets (|Δ| {dq:.1f}): "
        + said(v.checks["queue_mean"]),
        f"utilization packet {packet['utilization']:.3f} vs model {model['utilization']:.3f} (|Δ| {du:.3f}): "
        + said(v.checks["utilization"]),
    ]
    pp, pm = packet.get("period_s"), model.get("period_s")
    rel = None if pp is None or pm is None else abs(pm - pp) / pp
    rule = _period_rule(packet, model)
    p_ok = v.checks.get("period")
    if rule == "standing queue":
        why.append(f"standing queue: packet queue_min {packet['queue_min']:.0f} packets > 0: " + said(p_ok))
    elif rule == "steady":
        amp = model.get("amplitude")
        a = "—" if amp is None else f"{amp:.1f}"
        thr = row.context["model"]["threshold"]
        why.append(
            f"steady: model amplitude {a} against the packet run's threshold {thr:g} packets: " + said(p_ok)
        )
    elif rule == "irregular":
        p_ok = None
        why.append("period: not scored, the packet queue has no regular period")
    elif rel is None:
        why.append(f"period: packet {pp}, model {pm} s: one oscillates, the other not: " + said(False))
    else:
        why.append(f"period packet {pp * 1e3:.3f} vs model {pm * 1e3:.3f} ms ({rel:.0%}): " + said(p_ok))
    return {"verdict": "pass" if v.agree else "fail", "why": why, "queue_ok": bool(v.checks["queue_mean"]),
            "utilization_ok": bool(v.checks["utilization"]), "period_ok": p_ok, "queue_mean_abs": dq,
            "utilization_abs": du, "period_rel": rel}  # fmt: skip


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
        ``summary`` (the keys of :func:`model_gaps`'s packet side plus
        ``class``, ``window_rtts``, ``jain_index``, ``drops``, ``timeouts``, ``scout_overhead``, ``trend_flags``,
        ``scouts_served_per_rtt``) and ``traces`` (t in s, q and w in packets, alpha).
    """
    from ...judge.classes import PacketClass
    from ...sweep.outcomes_packet import packet_outcomes
    from ...sweep.packet_batch import PacketPassOptions

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
        ``gaps`` (name → :func:`model_gaps`), ``labels`` (name → label), ``traces`` (source → t, q, w,
        alpha).
    """
    link = LinkParams(capacity=capacity, rtt=rtt, packet_size=packet_size)
    P = DwtcpParams(link=link, flows=int(flows), beta=beta, k=k)
    names = _model_names(models)
    total = 1 + len(names)
    if progress:
        progress(0, total)
    pk = _packet_side(P, buffer=buffer, packet_rtts=packet_rtts, seed=seed)
    if progress:
        progress(1, total)
    sides = {}
    for i, n in enumerate(names):
        sides[n] = _fluid_side((P,), [pk], models=(n,), fluid_rtts=fluid_rtts)[0][n]
        if progress:
            progress(2 + i, total)
    return comparison(judge(CHECK, P, pk, sides))


def _model_names(models: tuple[str, ...] | None) -> tuple[str, ...]:
    reg = predictors(simulate=True)
    names = tuple(reg) if models is None else tuple(models)
    unknown = [m for m in names if m not in reg]
    if unknown:
        raise ValueError(f"models={unknown[0]!r} is not a registered fluid predictor: accepted {sorted(reg)}")
    return names


def _packet_side(
    P: DwtcpParams, *, seed: int = 0, buffer: int = 5000, packet_rtts: float = 200.0, **_: Any
) -> dict[str, Any]:
    """The packet side of :data:`CHECK`: :func:`packet_setting`, with the buffer it ran with."""
    return packet_setting(P, buffer=buffer, packet_rtts=packet_rtts, seed=seed) | {"buffer": buffer}


def _fluid_side(
    settings: tuple[DwtcpParams, ...],
    packets: Any,
    *,
    models: tuple[str, ...] | None = None,
    fluid_rtts: float = 1000.0,
    **_: Any,
) -> list[dict[str, Any]]:
    """The fluid side of :data:`CHECK`: every predictor of ``models`` (default all with a ``simulate`` face) for
    ``fluid_rtts`` base RTTs, summarised over the last half (the summary keys, ``status``, ``regime``)."""
    reg = predictors(simulate=True)
    out = []
    for P in settings:
        sides = {}
        for n in _model_names(models):
            r = reg[n].simulate(P, fluid_rtts * P.link.d)
            summary = {key: r["summary"].get(key) for key in SUMMARY_KEYS} | {
                "status": r["summary"]["status"]
            }
            if "regime" in r["summary"]:
                summary["regime"] = r["summary"]["regime"]
            sides[n] = {"summary": summary, "traces": r["traces"]}
        out.append(sides)
    return out


def comparison(row: Any) -> dict[str, Any]:
    """One judged setting (a :class:`~dwtcp_fluid.judge.check.CheckRow` of :data:`CHECK`) as
    :func:`compare_dwtcp` returns it (traces included)."""
    P, pk = row.setting, row.packet
    reg = predictors(simulate=True)
    link = P.link
    models = {n: dict(side["summary"]) for n, side in row.fluid.items()}
    return {
        "setting": {
            "flows": int(P.flows),
            "rtt_s": link.d,
            "bdp": link.C * link.d,
            "beta": P.beta,
            "k": P.k,
            "buffer": pk["buffer"],
            "capacity_pps": link.C,
        },
        "packet": pk["summary"],
        "models": models,
        "gaps": {n: model_gaps(pk["summary"], m) for n, m in models.items()},
        "labels": {n: reg[n].label for n in models},
        "traces": {"packet": pk["traces"], **{n: side["traces"] for n, side in row.fluid.items()}},
    }


def _json_row(row: Any) -> dict[str, Any]:
    return {k: v for k, v in comparison(row).items() if k != "traces"}


def _settings_from(
    *,
    flows: Any,
    links: Any,
    beta: float = DEFAULT_BETA,
    k: float = DWTCP_TARGET,
    **_: Any,
) -> tuple[DwtcpParams, ...]:
    return tuple(DwtcpParams(link=link, flows=int(n), beta=beta, k=k) for link in links for n in flows)


def _figure(result: Any) -> Any:
    """Queue and window of the packet run and each model, one row per setting of a :data:`CHECK` result."""
    from .plots_packet import plot_dwtcp_overlay

    return plot_dwtcp_overlay([comparison(r) for r in result.rows])


#: The cross-check of ``packet compare-fluid --law dwtcp``: settings from the command line (N × link, β, K); the
#: packet side the sweep's run definition, the fluid side every registered predictor, each one judged.
CHECK: CrossCheck[DwtcpParams] = register_check(
    CrossCheck(
        name="dwtcp",
        claim="a DWTCP fluid predictor says what the packet law does ([DWTCP] eqs. (3)-(7))",
        settings=(DwtcpParams(),),
        packet=_packet_side,
        fluid=_fluid_side,
        tolerances=_tolerances,
        classify=lambda setting, packet, fluid: (
            packet["summary"]["class"] if "summary" in packet else packet["class"]
        ),
        scored_classes=tuple(c.label for c in SCORED),
        context=_context,
        laws=("dwtcp",),
        row=_json_row,
        label=lambda P: (
            f"N = {P.flows}, τ = {P.link.d * 1e6:.0f} µs (BDP {P.link.C * P.link.d:.0f}), β = {P.beta:g}, "
            f"K = {P.k:g}"
        ),
        settings_from=_settings_from,
        stated_tolerances={"tolerances": TOLERANCES, **{k: Tolerances(t) for k, t in PERIOD_RULES.items()}},
        figure=_figure,
    )
)
