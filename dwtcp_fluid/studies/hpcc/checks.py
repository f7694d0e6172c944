"""Packet core against the HPCC fluid model, with stated tolerances (``packet compare-fluid --law hpcc``).

Each setting runs N HPCC flows ([HPCC] Alg. 1, :mod:`~dwtcp_fluid.packet.laws.hpcc`) from line rate on one
bottleneck, once through the packet core and once through :class:`~dwtcp_fluid.models.hpcc.HpccFluid`, and compares
the last half of the run (:mod:`.checks_runs`): the mean queue (packets), the link utilization and the senders' mean
filtered utilization U. The settings span both regimes of the fixed point (``proofs/hpcc.md``): κ = N·W_AI/(C·T)
below 1 − η (no queue, utilization η + κ < 1), at it (zero queue at full utilization), and above it (a standing
queue N·W_AI − (1 − η)·C·T); N = 2, 10, 64; base RTT 10-100 µs; 10-100 Gbps; W_AI from the sizing rule with
N_exp = 10 unless stated.

Two more settings sit on both sides of the stability boundary (:data:`BOUNDARY`; a law's T shorter than the base
RTT d, κ = 0.2, critical d/T = 1.98 in ``proofs/hpcc.md``): at d/T = 1.5 both cores settle on the fixed point
(queue 4.85 / 4.43 packets, utilization 1 / 1); at d/T = 3 the fluid run oscillates (class ``limit cycle``) and both
cores lose utilization as the cycle empties the queue (0.913 / 0.929; queue 7.7 / 5.0 packets).

Stated tolerances (:data:`TOLERANCES`, by class :data:`CLASS_TOLERANCES`): queue within 0.07·C·d (U − 1 = q/(C·T)
is what the law reads), utilization within 0.03, U within 0.04; the fluid run's queue within 0.01·C·d of the
closed-form fixed point (:func:`~dwtcp_fluid.models.hpcc.fixed_point`); in a limit cycle the packet utilization
at most 0.97, U reported only. Measured (seed 0; B·T = C·d in packets):

=================  =====  ======  ===============  ===============  ===============  =============
setting            κ      B·T     queue p / f      util p / f       U p / f          closed-form q
=================  =====  ======  ===============  ===============  ===============  =============
n2-100g-10us       0.010  83.3    0.23 / 0.00      0.959 / 0.960    0.960 / 0.960    0
n10-25g-50us       0.050  104.2   1.94 / 0.00      0.985 / 1.000    1.000 / 1.000    0
n10-10g-100us-wai1 0.120  83.3    6.52 / 5.83      1.000 / 1.000    1.077 / 1.070    5.83
n64-100g-20us      0.320  166.7   55.3 / 45.0      1.000 / 1.000    1.304 / 1.270    45.0
=================  =====  ======  ===============  ===============  ===============  =============

Where the fluid queue is 0 the packet queue holds a packet or two: paced packets of N flows still meet in the queue
(the fluid model has no packet-level burstiness), and at κ = 1 − η the link is 1.5 % idle in the packet run for the
same reason. At N = 64 each flow's window is 3.3 packets: the packet queue stands 0.06·B·T above the fixed point
(U fluctuates from ACK to ACK and W = W_c·η/U is convex in U, so the mean increase exceeds the fluid one).

``packet compare-fluid --law hpcc-pint`` runs the same settings with HPCC-PINT, one packet in 16 carrying the
utilization (:data:`PINT_TOLERANCES`: U reported, not scored). Measured (seed 0): queues 0.23, 1.67, 6.62, 54.1
packets and utilizations 0.958, 0.989, 1.000, 1.000 — within the tolerances of the fluid model's, as HPCC's; U 0.959,
1.000, 1.076, 1.325 (at N = 64 a flow holds one sample every few RTTs).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...judge import CrossCheck, Tolerance, Tolerances, fluid_row, register_check, run_check
from .checks_runs import Setting, fluid_run, packet_run, predicted

__all__ = [
    "TOLERANCES",
    "PINT_TOLERANCES",
    "SETTINGS",
    "PINT_SETTINGS",
    "CHECK",
    "PINT_CHECK",
    "compare_hpcc",
]

TOLERANCES = Tolerances(
    Tolerance("queue_mean", "C·d", abs=0.07, scale="bdp_d"),
    Tolerance("utilization", "1", abs=0.03),
    Tolerance("U", "1", abs=0.04),
    Tolerance("fixed_point_queue", "C·d", of="fluid", quantity="queue_mean", against="context", abs=0.01,
              scale="bdp_d"),
    Tolerance("cycle_empties_queue", "1", quantity="utilization", against=None, at_most=0.97),
    Tolerance("U_reported", "1", quantity="U", abs=0.04, scored=False),
)  # fmt: skip
#: Run classes: the fluid run settles on its fixed point, or oscillates around an unstable one (its queue's standard
#: deviation over the last half above 0.02·C·d); each scored by its own tolerances. Around an unstable fixed point
#: whose queue is positive the cycle empties the queue once a period: the packet run's utilization must fall below
#: 0.97 (at the fixed point it is 1).
CLASS_TOLERANCES = {
    "fixed point": Tolerances(
        *(TOLERANCES[k] for k in ("queue_mean", "utilization", "U", "fixed_point_queue"))
    ),
    "limit cycle": Tolerances(
        *(TOLERANCES[k] for k in ("queue_mean", "utilization", "cycle_empties_queue", "U_reported"))
    ),
}

#: HPCC-PINT's: U reported, not scored. With p = 1/16 a flow of a few packets per RTT holds one sample every few
#: RTTs (τ = T: the filter keeps the last sample), so its mean U is a sample mean at its own departures; the queue and
#: the utilization, what the samples steer, are scored as for HPCC.
PINT_TOLERANCES = Tolerances(
    TOLERANCES["queue_mean"],
    TOLERANCES["utilization"],
    TOLERANCES["U_reported"],
    TOLERANCES["fixed_point_queue"],
)

SETTINGS: tuple[Setting, ...] = (
    Setting("n2-100g-10us", 2, "100Gbps", "10us"),
    Setting("n10-25g-50us", 10, "25Gbps", "50us"),
    Setting("n10-10g-100us-wai1", 10, "10Gbps", "100us", w_ai=1.0),
    # N flows starting at line rate queue (N − 1)·B·T packets in the first RTT, which drain in N RTTs
    Setting("n64-100g-20us", 64, "100Gbps", "20us", rtts=250),
)
#: Both sides of the stability boundary of ``proofs/hpcc.md`` (a law's T shorter than the base RTT d; κ = 0.2, the
#: critical d/T 1.98): d/T = 1.5 (stable) and 3 (unstable: both cores oscillate and lose utilization).
BOUNDARY: tuple[Setting, ...] = (
    Setting("n4-25g-20us-dT1.5", 4, "25Gbps", "20us", w_ai=2.0833, t_ratio=1 / 1.5, rtts=200),
    Setting("n4-25g-20us-dT3", 4, "25Gbps", "20us", w_ai=2.0833, t_ratio=1 / 3, rtts=200),
)


#: The same settings for HPCC-PINT with one packet in 16 carrying the utilization ([PINT]'s sampling for HPCC).
PINT_SETTINGS: tuple[Setting, ...] = tuple(replace(s, law="hpcc-pint", pint_prob=1 / 16) for s in SETTINGS)


def run_class(s: Setting, packet: Any, fluid: Any) -> str:
    """``limit cycle`` when the fluid queue oscillates (std over the last half above 0.02·C·d), else ``fixed
    point``."""
    return "limit cycle" if fluid["fluid"]["queue_std"] > 0.02 * predicted(s)["bdp_d"] else "fixed point"


def _context(s: Setting, packet: Any, fluid: Any) -> dict[str, float]:
    """The fixed point (closed form) and the scales C·T and C·d."""
    return predicted(s)


def _fluid(settings: Any, packets: Any, **_: Any) -> list[dict[str, Any]]:
    return [{"fluid": fluid_run(s)} for s in settings]


def _check(law: str, settings: tuple[Setting, ...], claim: str, tol: Any) -> CrossCheck[Setting]:
    return CrossCheck(
        name=law,
        claim=claim,
        settings=settings,
        packet=lambda s, seed=0, **_: packet_run(s, seed=seed),
        fluid=_fluid,
        tolerances=tol,
        stated_tolerances=TOLERANCES,
        classify=run_class,
        context=_context,
        laws=(law,),
        row=fluid_row,
        columns=(
            ("mean q (pkt)", "queue_mean", 1.0),
            ("utilization (%)", "utilization", 100.0),
            ("U", "U", 1.0),
        ),
    )


CHECK: CrossCheck[Setting] = register_check(
    _check(
        "hpcc",
        SETTINGS + BOUNDARY,
        "the HPCC fluid model (H0)-(H3) says what the packet law ([HPCC] Alg. 1) does: queue, utilization, U; and on"
        " which side of the stability boundary it is",
        CLASS_TOLERANCES,
    )
)
#: HPCC-PINT against the same fluid model: the sampled, quantized value drives the same fixed point.
PINT_CHECK: CrossCheck[Setting] = register_check(
    _check(
        "hpcc-pint",
        PINT_SETTINGS,
        "the HPCC fluid model says what HPCC-PINT ([PINT], 1 packet in 16 carries U) does: queue, utilization",
        {"fixed point": PINT_TOLERANCES, "limit cycle": CLASS_TOLERANCES["limit cycle"]},
    )
)


def compare_hpcc(
    settings: tuple[Setting, ...] = SETTINGS + BOUNDARY, *, seed: int = 0
) -> list[dict[str, Any]]:
    """Every setting through both cores (each through its law's check), checked against :data:`TOLERANCES`:
    ``{setting, packet, fluid, checks, agree}`` per setting (queue in packets, utilization and U in 1)."""
    rows: list[dict[str, Any]] = []
    for check in (CHECK, PINT_CHECK):
        mine = tuple(s for s in settings if s.law == check.name)
        if mine:
            res = run_check(check, mine, seed=seed)
            rows += [check.row(r) for r in res.rows]  # type: ignore[misc]
    return rows
