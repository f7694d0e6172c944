"""Packet core against the Swift fluid model, with stated tolerances.

Each setting runs two groups of flows that start at different windows, once through the packet core (the law
:mod:`~dwtcp_fluid.packet.laws.swift`, one law instance per group so that each group has its own ``init_cwnd``)
and once through :class:`~dwtcp_fluid.models.SwiftFluid` (batched JAX solver), with the same parameters
(:meth:`~dwtcp_fluid.models.swift.SwiftParams.law_params`), and summarises the last half of the run: each group's
mean window (packets), the mean queue (packets), the mean queue swing (max − min within one record interval of
``duration/200``) and the utilization.

The class of a run is the fluid model's linear verdict at the setting (``proofs/swift.md``): ``stable`` when
every root of the characteristic equation of the decrease branch at the fixed point has a negative real part,
``oscillating`` otherwise. A stable setting is scored on the fixed point: the groups' windows against the fair
share w* (both cores) and each other, the queue at its target q*, and full utilization in the packet core. An
oscillating setting is scored on the oscillation: in both cores the queue empties in each cycle (utilization at
most 0.99), the swings agree within a factor 3 and the utilizations within 0.03 (the fixed point is not what the
run shows there).

Stated tolerances (:data:`TOLERANCES`). Measured (seed 0; windows and queues in packets, w*/q* the fixed point,
β_c the critical decrease constant of ``proofs/swift.md``):

=======================  =========  ===========  ===========  ===========  ============  ==============
setting                  class      w* / q*      w p / f      q p / f      swing p / f   util p / f (%)
=======================  =========  ===========  ===========  ===========  ============  ==============
N2-10G-20us              stable     12.6 / 7.5   13.3 / 12.9  8.4 / 8.1    2.4 / 1.4     100 / 100
N10-40G-50us             stable     19.2 / 24.1  19.9 / 19.5  27.6 / 27.5  8.1 / 6.2     100 / 100
N64-100G-10us            stable     3.55 / 143   4.12 / 3.67  150.5 / 150  36 / 1.3      100 / 100
N10-10G-100us            stable     9.31 / 8.7   10.0 / 9.67  12.5 / 12.4  7.1 / 6.8     100 / 100
N10-10G-100us-beta3      oscill.    9.31 / 8.7   9.3 / 8.88   7.7 / 7.2    13.0 / 8.8    97.6 / 96.8
N64-100G-100us-beta3     oscill.    14.1 / 70.6  14.1 / 13.5  53.2 / 51.1  52 / 28.7     98.6 / 97.5
=======================  =========  ===========  ===========  ===========  ============  ==============

The packet windows sit 3-16 % above the fluid ones (the engine keeps ⌊cwnd⌋ packets in flight, so a window's
fraction is not sent); the N = 64 packet queue swings by 36 packets where the fluid one barely moves (64 flows'
per-packet decisions, which the fluid model averages).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, fluid_row, register_check
from ...models.swift import SwiftFluid, SwiftParams
from ...params import LinkParams
from .analysis import fixed_point, linear_abscissa

__all__ = [
    "TOLERANCES",
    "CLASS_TOLERANCES",
    "SETTINGS",
    "CHECK",
    "Setting",
    "packet_run",
    "fluid_run",
    "compare_swift",
]

_W = ("w_1", "w_2")
#: Tolerances: windows and queues in packets, utilization and relative bounds dimensionless.
TOLERANCES = Tolerances(
    Tolerance("packet_fair", "packets", quantity=_W, against="context", against_quantity="w_star", rel=0.2),
    Tolerance("fluid_fair", "packets", quantity=_W, of="fluid", against="context", against_quantity="w_star",
              rel=0.1),
    Tolerance("window", "packets", quantity=_W, rel=0.2, abs=0.3),
    Tolerance("queue_mean", "packets", rel=0.15, abs=3.0),
    Tolerance("packet_target", "packets", quantity="queue_mean", against="context", against_quantity="q_star",
              rel=0.5, abs=4.0),
    Tolerance("utilization", "1", abs=0.03),
    Tolerance("packet_full", "1", of="packet", quantity="utilization", against=None, at_least=0.99),
    Tolerance("packet_idle", "1", of="packet", quantity="utilization", against=None, at_most=0.99),
    Tolerance("fluid_idle", "1", of="fluid", quantity="utilization", against=None, at_most=0.99),
    Tolerance("swing", "packets", quantity="queue_swing", ratio=(0.33, 3.0)),
)  # fmt: skip
#: The class of a run (the fluid model's linear verdict) and the tolerances that score it (module docstring).
CLASS_TOLERANCES = {
    "stable": Tolerances(
        *(
            TOLERANCES[k]
            for k in (
                "packet_fair",
                "fluid_fair",
                "window",
                "queue_mean",
                "packet_target",
                "utilization",
                "packet_full",
            )
        )
    ),  # fmt: skip
    "oscillating": Tolerances(
        *(TOLERANCES[k] for k in ("packet_idle", "fluid_idle", "swing", "utilization"))
    ),
}


@dataclass(frozen=True)
class Setting:
    """One comparison: flows per group, start windows per group (packets), link, gains, duration (s)."""

    name: str
    flows: tuple[int, int]
    capacity: str
    rtt: str
    starts: tuple[float, float] = (2.0, 20.0)
    beta: float = 0.8
    ai: float = 1.0
    duration: float = 0.02
    #: the flow-scaling range (s); None: htsim's 100 µs, 0: no flow scaling
    fs_range: float | None = None

    def params(self) -> SwiftParams:
        extra = {} if self.fs_range is None else {"fs_range": self.fs_range}
        return SwiftParams(
            link=LinkParams(capacity=self.capacity, rtt=self.rtt),
            flows=self.flows,
            beta=self.beta,
            ai=self.ai,
            **extra,
        )


SETTINGS: tuple[Setting, ...] = (
    Setting("N2-10G-20us", (1, 1), "10Gbps", "20us"),
    Setting("N10-40G-50us", (5, 5), "40Gbps", "50us", duration=0.02),
    Setting("N64-100G-10us", (32, 32), "100Gbps", "10us", starts=(0.5, 4.0), duration=0.005),
    Setting("N10-10G-100us", (5, 5), "10Gbps", "100us", duration=0.04),
    Setting("N10-10G-100us-beta3", (5, 5), "10Gbps", "100us", beta=3.0, duration=0.04),
    Setting("N64-100G-100us-beta3", (32, 32), "100Gbps", "100us", beta=3.0, duration=0.02),
)


def _swing(q: np.ndarray, chunks: int) -> float:
    """Mean over ``chunks`` equal intervals of the queue's max − min (packets)."""
    parts = np.array_split(np.asarray(q, float), chunks)
    return float(np.mean([p.max() - p.min() for p in parts if len(p)]))


def packet_run(s: Setting, *, seed: int = 0, **build_options: Any) -> dict[str, Any]:
    """One setting through the packet core: group mean windows, queue mean and swing, utilization."""
    from ...packet import build, run

    P = s.params()
    n = sum(s.flows)
    lp = P.law_params()
    pr = build(
        ["swift", "swift"],
        link=P.link,
        flows=n,
        duration=s.duration,
        seed=seed,
        buffer=4000,
        trace_points=200,
        law_params=[{**lp, "init_cwnd": w} for w in s.starts],
        law_of_flow=[0] * s.flows[0] + [1] * s.flows[1],
        start_jitter=False,
        **build_options,
    )
    pk = run(pr)
    rec = pk["records"]
    half = len(rec["q_end"]) // 2
    # the traced field of the law is the fabric window fcwnd (packets), summed over active slots
    w = rec["alpha_sum"][half:].sum(0) / np.maximum(rec["active"][half:].sum(0), 1)
    swing = float(np.mean(rec["q_max"][half:] - rec["q_min"][half:]))
    return {
        "w_1": float(w[: s.flows[0]].mean()),
        "w_2": float(w[s.flows[0] : n].mean()),
        "queue_mean": float(pk["queue_mean"]),
        "queue_swing": swing,
        "utilization": float(pk["utilization"]),
        "jain": float(pk["jain_index"]),
    }


def fluid_run(settings: tuple[Setting, ...]) -> list[dict[str, Any]]:
    """The settings through the fluid model, one batched JAX run; same summaries as :func:`packet_run`."""
    from ...dde import solve

    model = SwiftFluid(groups=2)
    params = [s.params() for s in settings]
    hist = np.array([[s.starts[0], s.starts[1], 0.0] for s in settings])
    t1 = max(s.duration for s in settings)
    sol = solve(model, params, hist, (0.0, t1), method="jax", check=False)
    t = np.asarray(sol.t)
    out = []
    for k, s in enumerate(settings):
        if sol.status[k] != 0:
            raise RuntimeError(f"fluid run {s.name} failed: {sol.message_of(k)}")
        x = np.asarray(sol.x[k])
        w = (t >= s.duration / 2) & (t <= s.duration)
        util = model.observables(list(x[w].T), model.numeric_params(params[k]), np)["utilization"]
        out.append(
            {
                "w_1": float(x[w, 0].mean()),
                "w_2": float(x[w, 1].mean()),
                "queue_mean": float(x[w, 2].mean()),
                "queue_swing": _swing(x[w, 2], 100),
                "utilization": float(np.mean(util)),
            }
        )
    return out


def run_class(s: Setting) -> str:
    """``stable`` or ``oscillating``: the sign of the spectral abscissa of the linearized decrease branch."""
    return "stable" if linear_abscissa(s.params()) < 0 else "oscillating"


def _context(s: Setting, packet: dict[str, Any], fluid: dict[str, Any]) -> dict[str, float]:
    """The fixed point (w*, q*) of the setting (``proofs/swift.md``)."""
    w, q = fixed_point(s.params())
    return {"w_star": w, "q_star": q}


def _check() -> CrossCheck[Setting]:
    return CrossCheck(
        name="swift",
        claim="the Swift fluid model says what the packet law does ([Swift] Algorithm 1, §3.5): at a stable "
        "setting the fair window and the queue at its target, at an unstable one an oscillation of the same size",
        settings=SETTINGS,
        packet=lambda s, seed=0, **_: packet_run(s, seed=seed),
        fluid=lambda settings, packets, **_: [{"fluid": f} for f in fluid_run(tuple(settings))],
        tolerances=CLASS_TOLERANCES,
        stated_tolerances=TOLERANCES,
        classify=lambda s, packet, fluid: run_class(s),
        context=_context,
        laws=("swift",),
        row=fluid_row,
        columns=(
            ("w 1 (pkt)", "w_1", 1.0),
            ("w 2 (pkt)", "w_2", 1.0),
            ("mean q (pkt)", "queue_mean", 1.0),
            ("q swing (pkt)", "queue_swing", 1.0),
            ("utilization (%)", "utilization", 100.0),
        ),  # fmt: skip
    )


#: The cross-check of ``packet compare-fluid --law swift``.
CHECK: CrossCheck[Setting] = register_check(_check())


def compare_swift(settings: tuple[Setting, ...] = SETTINGS, *, seed: int = 0) -> list[dict[str, Any]]:
    """Every setting through both cores, classified and checked against :data:`TOLERANCES`.

    Parameters
    ----------
    settings : tuple of Setting
        The comparisons to run (default :data:`SETTINGS`: four stable settings, two beyond the boundary).
    seed : int
        Seed of the packet runs.

    Returns
    -------
    list of dict
        ``{setting, class, checks, agree, packet, fluid}`` per setting; windows and queues in packets.
    """
    from ...judge import run_check

    res = run_check(CHECK, settings, seed=seed)
    return [CHECK.row(r) for r in res.rows]  # type: ignore[misc]
