"""Packet core against the TIMELY and Patched TIMELY fluid models, with stated tolerances.

Each setting runs two groups of flows that start at different rates (fractions of line rate), once through the
packet core (the laws :mod:`~dwtcp_fluid.packet.laws.timely` and :mod:`~dwtcp_fluid.packet.laws.timely_patched`, one law instance per group so that
each group has its own ``init_rate``) and once through :class:`~dwtcp_fluid.models.TimelyFluid` (batched JAX
solver), and summarises the last half of the run: each group's mean rate (fraction of line rate, the rate the law
sets), the mean queue (packets) and the utilization.

What agreement means differs between the two laws ([TIMELY]'s fluid model has no unique fixed point,
``proofs/timely.md``):

* **Patched TIMELY** has a unique fixed point, R* = C/N per flow: the check is that both cores bring both groups
  to within ``fair_share`` of C/N and agree with each other on each group's rate (``rate``), the mean queue
  (``queue_mean``) and the utilization (``utilization``).
* **TIMELY** has a continuum: the check is that in *both* cores the group that starts faster ends faster by at
  least ``split_ratio``, and that swapping the start rates swaps the outcome. "Not stationary" or "rates equal"
  never counts as agreement: a run in which the packet groups end within ``split_ratio`` of each other fails.

For TIMELY the groups' rates are compared too (``rate``): the fluid continuum predicts *which* split the start
rates lead to, and the packet core lands on it.

Stated tolerances (:data:`TOLERANCES`; 10 Gbps, d = 20 µs, [TIMELY]'s gains, seed 0, 100 ms). Measured (seed 0):

=====================  ===============  ===============  ============  ============
setting                packet rates     fluid rates      queue p / f   util p / f
=====================  ===============  ===============  ============  ============
patched 2+2 (5, 40 %)  0.213, 0.262     0.228, 0.269     5.4 / 8.7     0.951 / 0.994
patched 4+4 (2, 20 %)  0.114, 0.127     0.115, 0.134     6.9 / 9.8     0.963 / 0.996
TIMELY 2+2 (5, 40 %)   0.026, 0.449     0.036, 0.463     4.6 / 8.7     0.950 / 0.999
TIMELY swapped         0.445, 0.031     0.463, 0.036     4.6 / 8.7     0.950 / 0.999
=====================  ===============  ===============  ============  ============

The fluid queue is 3-4 packets deeper and never empties (utilization ≈ 1); the packet queue empties between
bursts of paced packets (utilization 0.95): the fluid model has no packet-level burstiness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, fluid_row, judge, register_check, run_check
from ...models.timely import TimelyFluid, TimelyParams
from ...params import LinkParams

__all__ = ["TOLERANCES", "CLASS_TOLERANCES", "SETTINGS", "CHECKS", "Setting", "packet_rates", "fluid_rates",
           "compare_timely", "judged"]  # fmt: skip

_RATES = ("rate_1", "rate_2")
#: Tolerances: rates as fractions of line rate, queue in packets, the split (the faster group's rate over the
#: slower's) dimensionless; the fair share 1/N and the splits are the context's.
TOLERANCES = Tolerances(
    Tolerance("packet_fair", "1", quantity=_RATES, against="context", against_quantity="fair_share", abs=0.05),
    Tolerance("fluid_fair", "1", quantity=_RATES, of="fluid", against="context", against_quantity="fair_share",
              abs=0.05),
    Tolerance("packet_split", "1", of="context", quantity="split_packet", against=None, at_least=2.0),
    Tolerance("fluid_split", "1", of="context", quantity="split_fluid", against=None, at_least=2.0),
    Tolerance("rate", "1", quantity=_RATES, abs=0.04),
    Tolerance("queue_mean", "packets", abs=6.0),
    Tolerance("utilization", "1", abs=0.06),
)  # fmt: skip
#: The class of a comparison (by law) and the tolerances that score it (module docstring).
CLASS_TOLERANCES = {
    "unique fixed point": Tolerances(
        *(TOLERANCES[k] for k in ("packet_fair", "fluid_fair", "rate", "queue_mean", "utilization"))
    ),
    "start-dependent split": Tolerances(
        *(TOLERANCES[k] for k in ("packet_split", "fluid_split", "rate", "utilization"))
    ),
}


@dataclass(frozen=True)
class Setting:
    """One comparison: ``law`` ("timely" or "timely-patched"), flows per group, start rates (fraction of line
    rate) per group, duration (s), the link (capacity, base RTT d: the feedback delay)."""

    name: str
    law: str
    flows: tuple[int, int]
    starts: tuple[float, float]
    duration: float = 0.1
    #: gains other than [TIMELY]'s published ones, as :class:`~dwtcp_fluid.models.TimelyParams` fields (e.g.
    #: ``(("beta", 0.4),)``); both cores get the same values (the sensitivity check, ``tests/test_timely_gains.py``)
    gains: tuple[tuple[str, Any], ...] = ()
    capacity: str = "10Gbps"
    rtt: str = "20us"


SETTINGS: tuple[Setting, ...] = (
    Setting("patched-2+2", "timely-patched", (2, 2), (0.05, 0.4)),
    Setting("patched-4+4", "timely-patched", (4, 4), (0.02, 0.2)),
    Setting("timely-2+2", "timely", (2, 2), (0.05, 0.4)),
    Setting("timely-2+2-swapped", "timely", (2, 2), (0.4, 0.05)),
)


def _params(s: Setting) -> TimelyParams:
    return TimelyParams(link=LinkParams(capacity=s.capacity, rtt=s.rtt), flows=s.flows, **dict(s.gains))


def _engine_gains(P: TimelyParams, s: Setting) -> dict[str, float]:
    """The setting's non-default gains in the packet law's units (slots, packets per slot)."""
    scale = {"alpha": 1.0, "beta": 1.0, "delta": 1.0 / float(P.link.capacity), "t_low": P.link.C, "t_high": P.link.C,
             "min_rtt": P.link.C, "rtt_ref": P.link.C}  # fmt: skip
    for k, _ in s.gains:
        if k not in scale:
            raise ValueError(f"gains key {k!r} is invalid: accepted " + ", ".join(scale))
    return {k: float(getattr(P, k)) * scale[k] for k, _ in s.gains}


def packet_rates(s: Setting, *, seed: int = 0, **build_options: Any) -> dict[str, Any]:
    """One setting through the packet core: group mean rates (fraction of line rate), queue, utilization."""
    from ...packet import build, run

    P = _params(s)
    n = sum(s.flows)
    pr = build(
        [s.law, s.law],
        link=P.link,
        flows=n,
        duration=s.duration,
        seed=seed,
        buffer=2000,
        trace_points=200,
        law_params=[{"init_rate": r, **_engine_gains(P, s)} for r in s.starts],
        law_of_flow=[0] * s.flows[0] + [1] * s.flows[1],
        start_jitter=False,
        **build_options,
    )
    pk = run(pr)
    rec = pk["records"]
    half = len(rec["q_end"]) // 2
    # the traced field of both laws is the rate (packets per slot = fraction of line rate), summed over active slots
    rate = rec["alpha_sum"][half:].sum(0) / np.maximum(rec["active"][half:].sum(0), 1)
    groups = (rate[: s.flows[0]].mean(), rate[s.flows[0] :].mean())
    return {
        "rate_1": float(groups[0]),
        "rate_2": float(groups[1]),
        "queue_mean": float(pk["queue_mean"]),
        "utilization": float(pk["utilization"]),
    }


def fluid_rates(settings: tuple[Setting, ...]) -> list[dict[str, Any]]:
    """The settings through the fluid model, one batched JAX run per law; same summaries as :func:`packet_rates`."""
    from ...dde import solve

    out: dict[str, dict[str, Any]] = {}
    for law in sorted({s.law for s in settings}):
        group = [s for s in settings if s.law == law]
        model = TimelyFluid(groups=2, patched=law == "timely-patched")
        params = [_params(s) for s in group]
        hist = np.array(
            [
                [a * p.link.C, b * p.link.C, 0.0, 0.0, 0.0]
                for p, (a, b) in zip(params, (s.starts for s in group), strict=True)
            ]
        )
        sol = solve(model, params, hist, (0.0, max(s.duration for s in group)), method="jax", check=False)
        t = np.asarray(sol.t)
        for k, s in enumerate(group):
            if sol.status[k] != 0:
                raise RuntimeError(f"fluid run {s.name} failed: {sol.message_of(k)}")
            x = np.asarray(sol.x[k])
            w = (t >= s.duration / 2) & (t <= s.duration)
            C = params[k].link.C
            util = np.asarray(
                model.observables(list(x[w].T), model.numeric_params(params[k]), np)["utilization"]
            )
            out[s.name] = {
                "rate_1": float(x[w, 0].mean() / C),
                "rate_2": float(x[w, 1].mean() / C),
                "queue_mean": float(x[w, 4].mean()),
                "utilization": float(np.mean(util)),
            }
    return [out[s.name] for s in settings]


def run_class(s: Setting) -> str:
    """``unique fixed point`` (Patched TIMELY) or ``start-dependent split`` (TIMELY)."""
    return "unique fixed point" if s.law == "timely-patched" else "start-dependent split"


def _context(s: Setting, packet: dict[str, Any], fluid: dict[str, Any]) -> dict[str, float]:
    """The fair share 1/N and each core's split: the rate of the group that starts faster over the other's."""
    fast = 0 if s.starts[0] > s.starts[1] else 1

    def split(d: dict[str, Any]) -> float:
        r = (d["rate_1"], d["rate_2"])
        return r[fast] / max(r[1 - fast], 1e-9)

    return {"fair_share": 1.0 / sum(s.flows), "split_packet": split(packet), "split_fluid": split(fluid)}


def _check(law: str) -> CrossCheck[Setting]:
    return CrossCheck(
        name=law,
        claim="the TIMELY fluid model says what the packet law does ([TIMELY]; Patched TIMELY: its unique fixed point)",
        settings=tuple(s for s in SETTINGS if s.law == law),
        packet=lambda s, seed=0, **_: packet_rates(s, seed=seed),
        fluid=lambda settings, packets, **_: [{"fluid": f} for f in fluid_rates(tuple(settings))],
        tolerances=CLASS_TOLERANCES,
        stated_tolerances=TOLERANCES,
        classify=lambda s, packet, fluid: run_class(s),
        context=_context,
        laws=(law,),
        row=fluid_row,
        columns=(
            ("rate 1 (C)", "rate_1", 1.0),
            ("rate 2 (C)", "rate_2", 1.0),
            ("mean q (pkt)", "queue_mean", 1.0),
            ("utilization (%)", "utilization", 100.0),
        ),  # fmt: skip
    )


#: The cross-checks of ``packet compare-fluid --law timely`` and ``--law timely-patched``: one check, each law's
#: settings.
CHECKS: dict[str, CrossCheck[Setting]] = {
    law: register_check(_check(law)) for law in ("timely", "timely-patched")
}


def judged(s: Setting, pk: dict[str, Any], fl: dict[str, Any]) -> dict[str, Any]:
    """The judge's verdict on one comparison: its class and whether it is within the stated tolerances."""
    r = judge(CHECKS[s.law], s, pk, {"fluid": fl})
    return {"setting": s.name, "class": r.run_class, "checks": r.verdicts["fluid"].checks, "agree": r.agree}


def compare_timely(settings: tuple[Setting, ...] = SETTINGS, *, seed: int = 0) -> list[dict[str, Any]]:
    """Every setting through both cores, classified and checked against :data:`TOLERANCES`.

    Parameters
    ----------
    settings : tuple of Setting
        The comparisons to run (default :data:`SETTINGS`: two Patched TIMELY, two TIMELY with swapped starts).
    seed : int
        Seed of the packet runs.

    Returns
    -------
    list of dict
        ``{setting, class, packet, fluid, checks, agree}`` per setting; rates as fractions of line rate, queue in
        packets.
    """
    rows: list[dict[str, Any]] = []
    for law in dict.fromkeys(s.law for s in settings):  # each law's settings through its check, in order
        mine = tuple(s for s in settings if s.law == law)
        res = run_check(CHECKS[law], mine, seed=seed)
        rows += [CHECKS[law].row(r) for r in res.rows]  # type: ignore[misc]
    order = {s.name: i for i, s in enumerate(settings)}
    return sorted(rows, key=lambda r: order[r["setting"]])
