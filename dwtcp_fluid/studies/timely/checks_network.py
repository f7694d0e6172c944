"""Packet parking lot vs the TIMELY network fluid model, per law and hop signal, with stated tolerances.

For each setting the packet core runs ``timely-hops`` (TIMELY) or ``timely-patched-hops`` (Patched TIMELY) with
signal f on ``parking-lot:K`` (no ECN: switches never mark), every flow starting at the law's 10 % of line rate
within the first base RTT; :class:`~dwtcp_fluid.models.timely_network.TimelyNetwork` (same law, same f, the
packets' base RTT d and [TIMELY]'s gains) starts from every rate at 10 % of C, empty queues, and runs on the
batched JAX solver for the same time. Both are summarized over the last half of the run (the packet summary's
``warmup_fraction``): each group's per-flow throughput share (fraction of line rate), each hop's mean queue
(packets) and each group's path RTT d + Σ_l q_l/C (what an RTT measures, whatever f the law reads).

A packet run is classified first by :func:`~dwtcp_fluid.studies.networks.checks_multihop.classify_chain` (one definition of the classes):
``collapse`` (a hop below 90 % utilization or drops above 1 %), ``not-stationary`` (a flow's share moving by more
than the share tolerance, or a hop's mean queue by more than the queue tolerance, between the two halves of the
measurement window); no slow-start class (TIMELY has no marks to wait for). Only ``stationary`` runs are scored.

Tolerances (:data:`TOLERANCES`), chosen before the network runs from the single-link TIMELY cross-check
(:mod:`dwtcp_fluid.studies.timely.checks`, where the fluid and packet group rates agree to 0.04 of line rate
and the mean queues to 6 packets): per-group share within 0.05 of line rate (0.04 plus 0.01 for the extra hop a
long flow's signal adds up), each hop's mean queue within 6 packets, each group's path RTT within 6 packets' time
per hop on its path (the queue tolerance carried into the RTT).

What is scored per law follows the single-link check too: Patched TIMELY (a unique fixed point) on shares, queues
and RTTs; plain TIMELY on the shares only — its equilibria are a continuum in the queue as well as in the split
(any queue with every path RTT in [T_low, T_high], ``proofs/timely.md`` step 5), so its queue and RTT are reported,
not scored (:data:`SCORED`). This rule was written after the first run showed a TIMELY queue 37 packets apart
(the single-link check never scored TIMELY's queue either).

Measured (10 Gbps, 20 µs, [TIMELY]'s gains, 200 ms, seed 0; shares per flow, long / cross; queue of hop 1):

=============================  ==============  =============  =============  ===============  =================
setting                        class           packet share   fluid share    queue p / f      verdict
=============================  ==============  =============  =============  ===============  =================
2 hops TIMELY SUM 1/1          stationary      0.002 / 0.998  0.008 / 0.992  17.1 / 54.2      pass (share)
2 hops TIMELY MAX 1/1          stationary      0.024 / 0.968  0.411 / 0.589  11.3 / 66.5      FAIL (share 0.39)
2 hops Patched SUM 1/1         stationary      0.002 / 0.998  0.002 / 0.998  21.8 / 24.7      pass
2 hops Patched MAX 1/1         stationary      0.274 / 0.645  0.275 / 0.710  3.2 / 5.5        FAIL (share 0.065)
2 hops Patched SUM_SQU 1/1     stationary      0.260 / 0.667  0.006 / 0.994  3.1 / 24.2       FAIL (share 0.34)
3 hops Patched SUM 1/2         stationary      0.022 / 0.456  0.004 / 0.491  4.2 / 6.9        pass
3 hops TIMELY SUM 1/2          not-stationary  0.003 / 0.486  0.001 / 0.500  6.5 / 63.7       not scored
3 hops Patched SUM_SQU 1/2     stationary      0.046 / 0.446  0.014 / 0.486  4.3 / 6.9        pass
=============================  ==============  =============  =============  ===============  =================

Where the fluid model fails: TIMELY on MAX (the packet core ratchets the long flow down through the hops' noise
where the deterministic fluid keeps 0.41) and Patched TIMELY on SUM_SQU at 2 hops with one flow per group (packet
≈ MAX, fluid ≈ the fixed point). Why, measured over 24 µs windows of 100 ms packet runs: on SUM_SQU and on
Patched MAX the two hops queue out of step (both queued in 5 % and 1 % of the windows, exactly one in 50 % and 53 %,
correlation −0.14 and −0.18), so √(q_1² + q_2²) ≈ max(q_1, q_2); on Patched SUM both are always queued. The
fluid lot keeps its hops in step (as the DCTCP lot's, :mod:`~dwtcp_fluid.studies.networks.checks_multihop`). The share tolerance is absolute: a starved long flow passes with a 6× relative
error (3 hops, Patched SUM: 0.022 vs 0.004).

The fluid starts each cross group 10⁻³ of its rate apart (group j at 0.1·C·(1 + 10⁻³·j)): the packet flows start
at distinct seeded slots, never in the exact symmetry in which the fluid lot's hops move in lock step (for TIMELY
on MAX the symmetric start keeps the long flow at 1/2, a start 10⁻³ off it does not).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, judge, register_check
from ...models.dctcp_network import parking_lot_routes
from ...models.timely_network import TimelyNetwork, TimelyNetworkParams
from ...params import LinkParams
from ..networks.checks_multihop import classify_chain

__all__ = [
    "TOLERANCES",
    "SCORED",
    "SETTINGS",
    "TimelySetting",
    "packet_side",
    "fluid_side",
    "compare_all",
    "judged",
    "CHECK",
]

#: Tolerances, as stated in the module docstring: shares as fractions of line rate, queues in packets, path RTTs in
#: packets' time per hop on the path (the context's scale).
TOLERANCES = Tolerances(
    Tolerance("share", "1", abs=0.05),
    Tolerance("queue", "packets", abs=6.0),
    Tolerance("rtt_packets_per_hop", "packets", quantity="rtt", abs=6.0, scale="packet_time_per_hop"),
)
#: The errors scored per law (the others are reported).
SCORED = {"patched": ("share", "queue", "rtt_packets_per_hop"), "timely": ("share",)}
#: Relative offset between the fluid's cross groups' start rates (module docstring).
ASYMMETRY = 1e-3
#: Fraction of the run left out of both summaries.
WARMUP = 0.5
#: The packet law of each fluid law.
PACKET_LAW = {"timely": "timely-hops", "patched": "timely-patched-hops"}


@dataclass(frozen=True)
class TimelySetting:
    """One parking lot: hops k, law (``"timely"`` or ``"patched"``), signal f, flows of the long group and of each
    cross group, link rate, base RTT and duration."""

    hops: int
    law: str
    signal: str
    flows: int = 1
    cross_flows: int = 1
    capacity: str = "10Gbps"
    rtt: str = "20us"
    duration: str = "200ms"

    @property
    def name(self) -> str:
        return f"parking-lot:{self.hops} {self.law} {self.signal.upper()} N={self.flows}/{self.cross_flows}"

    @property
    def flow_counts(self) -> tuple[int, ...]:
        return (self.flows,) + (self.cross_flows,) * self.hops


#: The settings scored (``slow`` test and the report): k = 2 and 3, one and two cross flows per hop, both laws,
#: SUM, MAX and SUM_SQU.
SETTINGS: tuple[TimelySetting, ...] = (
    TimelySetting(2, "timely", "sum"),
    TimelySetting(2, "timely", "max"),
    TimelySetting(2, "patched", "sum"),
    TimelySetting(2, "patched", "max"),
    TimelySetting(2, "patched", "sum_squ"),
    TimelySetting(3, "patched", "sum", cross_flows=2),
    TimelySetting(3, "timely", "sum", cross_flows=2),
    TimelySetting(3, "patched", "sum_squ", cross_flows=2),
)


@dataclass
class Side:
    """One core's summary: per-group share, per-hop mean queue, per-group path RTT (s), its class."""

    share: np.ndarray
    queue: np.ndarray
    rtt: np.ndarray
    run_class: str = "fluid"
    extra: dict = field(default_factory=dict)


def packet_side(s: TimelySetting, *, seed: int = 0, chunk: int = 1000) -> Side:
    """The setting through the packet core's parking lot, classified (module docstring)."""
    from ...packet.laws import get_law
    from ...packet.multihop_run import run_topology

    law = type(get_law(PACKET_LAW[s.law]))(signal=s.signal)
    link = LinkParams(capacity=s.capacity, rtt=s.rtt)
    r = run_topology(
        f"parking-lot:{s.hops}", law, link=link, flows=s.flow_counts, K=1e9, duration=s.duration, buffer=2000,
        seed=seed, chunk=chunk, warmup_fraction=WARMUP,
    )  # fmt: skip
    warm = int(WARMUP * r.records["q_mean"].shape[0])
    # the queue test of classify_chain is 0.25·K: K = 4 × the queue tolerance makes it the tolerance
    cls = classify_chain(
        r.records,
        4 * TOLERANCES["queue"].abs,
        warm,
        marked=False,
        share_abs=TOLERANCES["share"].abs,
        chunk=chunk,
    )
    d = _base_rtt(r.slot_s, link)
    rtt = np.array([d + r.queue_mean[list(route)].sum() * r.slot_s for route in parking_lot_routes(s.hops)])
    return Side(r.group_share, r.queue_mean, rtt, cls, {"utilization": r.utilization, "slot_s": r.slot_s})


def _base_rtt(slot_s: float, link: LinkParams) -> float:
    """The base RTT the packet law's sample carries (whole slots, forwarding slots left out; ``timely-hops``)."""
    return max(1, round(link.d / slot_s)) * slot_s


def fluid_params(s: TimelySetting) -> TimelyNetworkParams:
    """The setting as fluid parameters: the packets' base RTT (whole slots) for every group, τ = that RTT."""
    link = LinkParams(capacity=s.capacity, rtt=s.rtt)
    d = _base_rtt(1.0 / link.C, link)
    return TimelyNetworkParams.parking_lot(s.hops, flows=s.flow_counts, capacity=s.capacity, rtt=d)


def fluid_side(settings: Sequence[TimelySetting]) -> list[Side]:
    """The settings through :class:`TimelyNetwork` (one batched JAX run per model), summarized like the packets."""
    from ...dde import solve

    out: dict[TimelySetting, Side] = {}
    keys = sorted({(s.hops, s.law, s.signal) for s in settings})
    for hops, law, signal in keys:
        group = [s for s in settings if (s.hops, s.law, s.signal) == (hops, law, signal)]
        model = TimelyNetwork(parking_lot_routes(hops), patched=law == "patched", signal=signal)
        params = [fluid_params(s) for s in group]
        m, L = model.groups, model.links
        hist = np.array(
            [
                [0.1 * p.network.capacity[0] * (1 + ASYMMETRY * i) for i in range(m)] + [0.0] * (m + L)
                for p in params
            ]
        )
        t1 = max(_seconds(s.duration) for s in group)
        sol = solve(model, params, hist, (0.0, t1), method="jax", check=False)
        t = np.asarray(sol.t)
        for k, s in enumerate(group):
            if sol.status[k] != 0:
                raise RuntimeError(f"fluid run {s.name} failed: {sol.message_of(k)}")
            T = _seconds(s.duration)
            w = (t >= WARMUP * T) & (t <= T)
            x = np.asarray(sol.x[k])[w]
            p = model.numeric_params(params[k])
            obs = model.observables(list(x.T), p, np)
            C = p["C_1"]
            out[s] = Side(
                np.array([obs[f"rate_{i + 1}"].mean() / C for i in range(m)]),
                np.array([obs[f"queue_{l + 1}"].mean() for l in range(L)]),
                np.array([obs[f"rtt_{i + 1}"].mean() for i in range(m)]),
                "fluid",
                {"utilization": np.array([obs[f"utilization_{l + 1}"].mean() for l in range(L)])},
            )
    return [out[s] for s in settings]


def _seconds(v: str) -> float:
    from ...units import parse_time

    return float(parse_time(v))


def _tolerances(s: TimelySetting, packet: Any = None, fluid: Any = None) -> Tolerances:
    """:data:`TOLERANCES`, those the law does not score (:data:`SCORED`) reported only."""
    return Tolerances(*(t if t.name in SCORED[s.law] else t.replace(scored=False) for t in TOLERANCES))


def _summary(side: Side) -> dict[str, Any]:
    return {"share": side.share, "queue": side.queue, "rtt": side.rtt}


def _context(s: TimelySetting, packet: Any = None, fluid: Any = None) -> dict[str, Any]:
    """One packet's time (s) on every hop of each group's path: the scale of the RTT tolerance."""
    slot = 1.0 / LinkParams(capacity=s.capacity, rtt=s.rtt).C
    return {"packet_time_per_hop": slot * np.array([len(r) for r in parking_lot_routes(s.hops)], float)}


#: The TIMELY parking-lot cross-check: the packet laws on ``parking-lot:K`` against :class:`TimelyNetwork`.
CHECK: CrossCheck[TimelySetting] = register_check(
    CrossCheck(
        name="timely-network",
        claim="the TIMELY network fluid model says what the packet laws do on a parking lot ([TIMELY])",
        settings=SETTINGS,
        packet=lambda s, seed=0, **_: {"summary": _summary(p := packet_side(s, seed=seed)), "side": p},
        fluid=lambda settings, packets, **_: [
            {"fluid": {"summary": _summary(f), "side": f}} for f in fluid_side(settings)
        ],
        tolerances=_tolerances,
        classify=lambda s, packet, fluid: packet["side"].run_class,
        scored_classes=("stationary",),
        context=_context,
    )
)


def judged(s: TimelySetting, pk: Side, fl: Side) -> dict[str, Any]:
    """The judge's errors and pass/fail of one setting (None unless the packet run is ``stationary``)."""
    r = judge(
        CHECK, s, {"summary": _summary(pk), "side": pk}, {"fluid": {"summary": _summary(fl), "side": fl}}
    )
    v = r.verdicts["fluid"]
    return {"setting": s.name, "class": pk.run_class, "errors": v.measured, "scored": list(SCORED[s.law]),
            "passed": v.passed}  # fmt: skip


def compare_all(settings: Sequence[TimelySetting] = SETTINGS, *, seed: int = 0) -> list[dict[str, Any]]:
    """Every setting through both cores, classified and scored against :data:`TOLERANCES`.

    Returns
    -------
    list of dict
        ``{setting, class, errors, passed, packet, fluid}``; ``packet``/``fluid``: ``share`` per group (fraction
        of line rate, per flow), ``queue`` per hop (packets), ``rtt_us`` per group.
    """
    fl = fluid_side(settings)
    rows = []
    for s, f in zip(settings, fl, strict=True):
        pk = packet_side(s, seed=seed)
        row = judged(s, pk, f)

        def doc(side: Side) -> dict[str, list[float]]:
            return {
                "share": [round(float(v), 4) for v in side.share],
                "queue": [round(float(v), 2) for v in side.queue],
                "rtt_us": [round(float(v) * 1e6, 2) for v in side.rtt],
            }

        rows.append({**row, "packet": doc(pk), "fluid": doc(f)})
    return rows
