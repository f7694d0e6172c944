"""The two sides of the DCTCP packet-vs-fluid cross-check (:mod:`.checks`): one packet-core run and one fluid-model
run at a setting, each summarised over the last half of the run with its traces."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...params import DctcpParams
from ...periods import autocorr_period

__all__ = ["CLASS_MIN_RTTS", "FLUID_REDUCTION", "SUMMARY_KEYS", "fluid_law", "fluid_run", "packet_run"]

#: The sender rule of the packet runs compared with the fluid models: the one-step cut of (5) (the module docstring
#: gives what Linux's PRR, the laws' default, measures against both models).
FLUID_REDUCTION = "immediate"
#: Base RTTs the measurement window (the run's last half) must span for the judge's classifier to say what the run
#: does (:func:`~dwtcp_fluid.judge.classes.window_outcome`; shorter: ``not_stationary``).
CLASS_MIN_RTTS = 20.0
#: Quantities of each summary, in the order of the comparison table.
SUMMARY_KEYS = (
    "queue_mean",
    "queue_min",
    "queue_max",
    "amplitude",
    "period_s",
    "window_mean",
    "alpha_mean",
    "utilization",
)


def fluid_law(law: Any, reduction: str = FLUID_REDUCTION) -> Any:
    """``law`` by name with the sender rule ``reduction`` (default :data:`FLUID_REDUCTION`, the one-step cut the
    fluid models describe) where the law has one; a law object as given. The packet side of every packet-vs-fluid
    cross-check (single bottleneck, parking lot, leaf-spine, CUBIC) runs its law through this."""
    import dataclasses

    from ...packet.laws import LAWS, get_law

    if (
        isinstance(law, str)
        and law in LAWS
        and "reduction" in {f.name for f in dataclasses.fields(LAWS[law])}
    ):
        return get_law(law, reduction=reduction)
    return law


def packet_run(
    P: DctcpParams,
    *,
    duration: float,
    seed: int = 0,
    law: Any = "dctcp",
    reduction: str = FLUID_REDUCTION,
    **build_options: Any,
) -> dict[str, Any]:
    """One DCTCP setting through the packet core; summary over the last half (packets, s) and its traces.

    The trace is per chunk of ~12 slots (14 µs at 10 Gbps), far below the ~1 ms DCTCP period; ``law`` by name runs
    with the sender rule ``reduction`` (default the one-step cut the fluid models describe); ``build_options`` go to
    :func:`dwtcp_fluid.packet.build` (e.g. ``mark_cmp``). The summary's ``packet_class`` is the judge's class of the
    last half (:func:`~dwtcp_fluid.judge.classes.window_outcome`: steady, oscillating, collapse, not_stationary,
    failed).
    """
    from ...judge.classes import PacketClass, window_outcome
    from ...packet import build, run

    law = fluid_law(law, reduction)
    n_slots = int(duration * P.link.C)
    pr = build(
        law,
        dctcp=P,
        flows=P.flows,
        duration=duration,
        seed=seed,
        trace_points=max(100, n_slots // 12),
        **build_options,
    )
    pk = run(pr)
    rec = pk["records"]
    n_chunks = len(rec["q_sum"])
    # the core rounds the run to whole chunks of slots; "duration_s" is that length (fallback: what was asked)
    chunk_s = pk.get("duration_s", duration) / n_chunks
    w = slice(n_chunks // 2, None)
    q = rec["q_sum"][w] / round(chunk_s * P.link.C)
    out = {
        "queue_mean": pk["queue_mean"],
        "queue_min": float(pk["queue_min"]),
        "queue_max": float(pk["queue_max"]),
        "amplitude": 0.5 * (pk["queue_max"] - pk["queue_min"]),
        "period_s": autocorr_period(q, chunk_s),
        "window_mean": pk["window_mean"],
        "alpha_mean": pk["alpha_mean"],
        "utilization": pk["utilization"],
        "marked_fraction": pk["marked_fraction"],
        # ACK clock: how far the queue is from ΣW − C·d (≈ 0 for senders that keep W packets in flight)
        "ack_clock_gap": float(np.mean(np.abs(rec["q_end"][w] - (rec["cwnd_end"][w].sum(1) - P.link.bdp)))),
        "packet_class": PacketClass(
            window_outcome(pr, rec, warmup_slots=pr.cfg.n_slots // 2, min_rtts=CLASS_MIN_RTTS)["cls"]
        ).label,
    }
    traces = {
        "t": (np.arange(n_chunks)[w] + 1) * chunk_s,
        "q": q,
        "w": rec["cwnd_end"][w].mean(axis=1),
        # smallest and largest flow window per chunk (bounds for laws whose state depends on the window)
        "w_lo": rec["cwnd_end"][w].min(axis=1),
        "w_hi": rec["cwnd_end"][w].max(axis=1),
        "alpha": rec["alpha_end"][w].mean(axis=1),
    }
    return {"summary": out, "traces": traces, "dt": chunk_s}


def fluid_run(
    model: Any, P: DctcpParams, *, duration: float, method: str = "reference", dt: float = 1.4e-5
) -> dict[str, Any]:
    """One fluid model (``DctcpFluid``, ``DctcpLagFluid`` or ``DctcpWindowFluid``) from W = 1, α = 0, q = 0;
    summary over the last half (packets, s) and traces sampled every ``dt`` seconds."""
    from ...dde import solve

    x0 = [1.0, 0.0, 0.0][: len(model.states)]  # (W, α[, q]): the ACK-clocked model has no queue state
    sol = solve(model, P, x0, (0.0, duration), method=method)
    s = sol.summary()
    if sol.status[0] != 0:
        raise RuntimeError(f"{model.name} N={P.flows}: solver failed: {sol.messages[0]}")
    t = np.arange(duration / 2, duration, dt)
    if sol.method == "reference":
        x = np.asarray(sol(t, 0))
    else:
        x = np.stack([np.interp(t, sol.t, sol.x[0, :, i]) for i in range(sol.x.shape[2])], axis=1)
    q = np.broadcast_to(model.observables(tuple(x.T), sol.params[0], np)["queue"], t.shape)
    out = {k: s.get(k) for k in SUMMARY_KEYS}
    out["period_autocorr_s"] = autocorr_period(q, dt)
    out["ack_clock_gap"] = float(np.mean(np.abs(q - (P.flows * x[:, 0] - P.link.bdp))))
    return {"summary": out, "traces": {"t": t, "q": q, "w": x[:, 0], "alpha": x[:, 1]}}
