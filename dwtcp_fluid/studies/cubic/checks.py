"""Packet core against the CUBIC fluid model (hybrid: cubic flow, located loss, jump), with stated tolerances.

Each setting runs N CUBIC flows over one drop-tail bottleneck, once through the packet core (law
:mod:`dwtcp_fluid.packet.laws.cubic`, NewReno slow start, fast convergence on) and once through
:func:`dwtcp_fluid.studies.cubic.analysis.run_cubic` (started in congestion avoidance just after a synchronized cut),
and summarises the last half of the run: the loss-cycle period (packet: mean spacing of loss episodes, drops more
than three feedback delays apart; fluid: mean spacing of the cuts), the mean queue, the queue's range (min and
max), the utilization and each flow's share of the summed mean window. A packet run with fewer than
:data:`MIN_EPISODES` loss episodes in its last half (slow start not over, or a cycle longer than the run) is
class ``not stationary`` and never scores as agreement.

Path: [DCTCP-WAN]'s WAN dumbbell (1 Gbps access, 950 Mbps bottleneck, 20 ms) with CUBIC's constant scaled to
c = 400 packets/s³ so that a cycle lasts about a second (at c = 0.4 it lasts 10-20 s, ``wan-dumbbell``, slow),
and [DCTCP-WAN]'s star (950 Mbps, 1 ms, 100 packets) at c = 0.4, where CUBIC runs in its TCP-friendly region.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, register_check, run_check
from ...models.cubic import CubicParams
from ...params import LinkParams
from .analysis import cycle_period, cycle_summary, run_cubic

__all__ = ["TOLERANCES", "SETTINGS", "SLOW_SETTINGS", "MIN_EPISODES", "CHECK", "Setting", "packet_cycle",
           "fluid_cycle", "compare_cubic"]  # fmt: skip

#: Tolerances: period relative to the fluid cycle's, queues in units of the buffer B, utilization and each flow's
#: share absolute.
TOLERANCES = Tolerances(
    Tolerance("period", "1", quantity="period_s", rel=0.15),
    Tolerance("queue_mean", "buffer", abs=0.1, scale="buffer"),
    Tolerance("queue_range", "buffer", quantity=("queue_min", "queue_max"), abs=0.15, scale="buffer"),
    Tolerance("utilization", "1", abs=0.06),
    Tolerance("share", "1", quantity="shares", abs=0.05),
)
#: Run classes: a packet run with a loss cycle is scored; one with too few loss episodes says nothing yet.
LOSS_CYCLE, NOT_STATIONARY = "loss cycle", "not stationary"
#: Loss episodes a packet run needs in its last half to count as stationary.
MIN_EPISODES = 3


@dataclass(frozen=True)
class Setting:
    """One comparison: flows N, buffer B (packets), CUBIC constant c (packets/s³), base RTT, bottleneck rate,
    duration (s) and the fluid run's duration (s; default the same — the hybrid model needs fewer cycles, and each
    costs it a solver call)."""

    name: str
    flows: int
    buffer: int
    c: float = 400.0
    rtt: str = "20ms"
    rate: str = "950Mbps"
    duration: float = 12.0
    fluid_duration: float | None = None

    def params(self) -> CubicParams:
        # one group per flow: a loss episode that drops fewer packets than there are flows cuts only some
        return CubicParams(link=LinkParams(capacity=self.rate, rtt=self.rtt), flows=(1,) * self.flows,
                           buffer=float(self.buffer), c=self.c)  # fmt: skip


SETTINGS: tuple[Setting, ...] = (
    Setting("wan-1", 1, 200, duration=24.0),
    Setting("wan-2", 2, 200),
    Setting("wan-10", 10, 200),
    Setting("wan-1-deep", 1, 2000, duration=24.0),
    Setting("star-2", 2, 100, c=0.4, rtt="1ms", duration=12.0, fluid_duration=4.0),
)
#: [DCTCP-WAN]'s WAN dumbbell with RFC 8312's c = 0.4: cycles of 10-20 s (minutes of packet time).
SLOW_SETTINGS: tuple[Setting, ...] = (Setting("wan-dumbbell", 1, 200, c=0.4, duration=120.0),)


def _episodes(drops: np.ndarray, dt: float, gap: float) -> np.ndarray:
    """Start times of loss episodes: chunks with drops, grouped when less than ``gap`` seconds apart."""
    idx = np.nonzero(drops)[0]
    if idx.size == 0:
        return np.zeros(0)
    starts = [idx[0]] + [b for a, b in zip(idx[:-1], idx[1:], strict=True) if (b - a) * dt > gap]
    return np.asarray(starts, dtype=float) * dt


def packet_cycle(s: Setting, *, seed: int = 0, trace: bool = False) -> dict[str, Any]:
    """One setting through the packet core; the summaries of :func:`~dwtcp_fluid.studies.cubic.analysis.cycle_summary`
    over the last half, ``episodes`` (loss episodes there) and ``flows_hit`` (mean flows losing a packet per
    episode); with ``trace``, ``trace`` = {t (s), window (flow 1's cwnd), queue (packets)} at the chunk ends."""
    from ...packet import build, run
    from ..dctcp.checks import fluid_law

    P = s.params()
    pr = build(
        fluid_law("cubic"),
        link=LinkParams(capacity="1Gbps", rtt=s.rtt),
        capacity_schedule=[(0.0, s.rate)],
        flows=s.flows,
        buffer=s.buffer,
        rto="200ms",
        duration=s.duration,
        trace_points=4000,
        law_params={"c": s.c},
        seed=seed,
    )
    rec = run(pr)["records"]
    dt = pr.cfg.chunk * pr.slot
    n = len(rec["q_end"])
    h = n // 2
    drops = np.asarray(rec["drops"]).reshape(n, -1)
    ep = _episodes(drops.sum(-1), dt, 3.0 * P.tau)
    late = ep[ep >= h * dt]
    hits = []
    for e in late:
        k = int(round(e / dt))
        hits.append(int((drops[k : k + int(np.ceil(P.tau / dt)) + 2].sum(0) > 0).sum()))
    opps = np.asarray(rec["opps"])[h:]
    q_mean = float(np.asarray(rec["q_sum"])[h:].sum() / max(opps.sum(), 1))
    act = np.asarray(rec["active"]).reshape(n, -1)[h:].sum(0)
    wm = np.asarray(rec["cwnd_sum"]).reshape(n, -1)[h:].sum(0) / np.maximum(act, 1)
    out = {
        "period_s": cycle_period(late),
        "queue_mean": q_mean,
        "queue_min": float(np.asarray(rec["q_min"])[h:].min()),
        "queue_max": float(np.asarray(rec["q_max"])[h:].max()),
        "utilization": float(np.asarray(rec["busy"])[h:].sum() / max(opps.sum(), 1)),
        "window_mean": float(wm.mean()),
        "shares": (wm / wm.sum()).tolist(),
        "episodes": int(late.size),
        "flows_hit": float(np.mean(hits)) if hits else 0.0,
    }
    if trace:
        out["trace"] = {
            "t": ((np.arange(n) + 1) * dt).tolist(),
            "window": np.asarray(rec["cwnd_end"]).reshape(n, -1)[:, 0].tolist(),
            "queue": np.asarray(rec["q_end"], dtype=float).tolist(),
        }
    return out


def fluid_cycle(s: Setting, *, trace: bool = False) -> dict[str, Any]:
    """One setting through the CUBIC hybrid model, summarised over the last half (``trace`` as
    :func:`packet_cycle`'s, window of group 1)."""
    r = run_cubic(s.params(), s.fluid_duration or s.duration)
    out = cycle_summary(r)
    if out["status"] != "ok":
        raise RuntimeError(f"fluid run {s.name} failed: {r.message}")
    if trace:
        obs = r.observables()
        out["trace"] = {
            "t": r.t.tolist(),
            "window": obs["windows"][:, 0].tolist(),
            "queue": obs["queue"].tolist(),
        }
    return out


def run_class(s: Setting, pk: dict[str, Any], fl: Any = None) -> str:
    """``not stationary`` with fewer than :data:`MIN_EPISODES` loss episodes (or no period), else ``loss cycle``."""
    return NOT_STATIONARY if pk["episodes"] < MIN_EPISODES or pk["period_s"] is None else LOSS_CYCLE


def _row(r: Any) -> dict[str, Any]:
    """A judged setting as a row of :func:`compare_cubic`."""
    v = r.verdicts["fluid"]
    checks = v.checks if v.passed is not None else {"stationary": False}
    return {"setting": r.name, "class": r.run_class, "checks": checks, "agree": r.agree, "packet": r.packet,
            "fluid": r.fluid["fluid"]}  # fmt: skip


#: The CUBIC cross-check: the packet law against the hybrid fluid model's loss cycle.
CHECK: CrossCheck[Setting] = register_check(
    CrossCheck(
        name="cubic",
        claim="the hybrid CUBIC model's loss cycle says what the packet law does ([CUBIC] eq. (1), RFC 8312)",
        settings=SETTINGS,
        packet=lambda s, seed=0, traces=(), **_: packet_cycle(s, seed=seed, trace=s.name in traces),
        fluid=lambda settings, packets, traces=(), **_: [
            {"fluid": fluid_cycle(s, trace=s.name in traces)} for s in settings
        ],
        tolerances=TOLERANCES,
        classify=run_class,
        scored_classes=(LOSS_CYCLE,),
        context=lambda s, packet, model: {"buffer": float(s.buffer)},
        laws=("cubic",),
        row=_row,
        columns=(
            ("period (ms)", "period_s", 1e3),
            ("mean q (pkt)", "queue_mean", 1.0),
            ("min q (pkt)", "queue_min", 1.0),
            ("max q (pkt)", "queue_max", 1.0),
            ("utilization (%)", "utilization", 100.0),
            ("mean window (pkt)", "window_mean", 1.0),
            ("flows hit per loss", "flows_hit", 1.0),
        ),  # fmt: skip
    )
)


def compare_cubic(
    settings: tuple[Setting, ...] = SETTINGS, *, seed: int = 0, traces: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """Every setting through both cores, classified and checked against :data:`TOLERANCES`.

    Parameters
    ----------
    settings : tuple of Setting
        The comparisons (default :data:`SETTINGS`).
    seed : int
        Seed of the packet runs.
    traces : tuple of str
        Names of the settings whose time traces are kept (``packet.trace``, ``fluid.trace``).

    Returns
    -------
    list of dict
        ``{setting, class, packet, fluid, checks, agree}`` per setting (period in s, queues in packets).
    """
    return [_row(r) for r in run_check(CHECK, settings, seed=seed, traces=traces).rows]
