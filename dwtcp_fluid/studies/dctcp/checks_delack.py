"""Packet DCTCP with delayed ACKs (m = 2, [DCTCP-WAN]) against the fluid model with them folded in, with stated
tolerances.

The fold (:class:`~dwtcp_fluid.models.DctcpDelackFluid`, ``proofs/dctcp_delack.md``) keeps DCTCP's increase
and α estimator (byte counting; the two-state ECE receiver) and changes two things: the receiver holds
h = (m − 1)/2 packets per flow, so the queue is N·(W − h) − C·d and the windows settle h higher; and a CE change
reaches the sender (m − 1)·N/C later. The packet runs use :mod:`~dwtcp_fluid.packet.impair`'s delayed ACKs (one ACK per m packets,
1 ms timeout, DCTCP's two-state receiver) with the Linux DCTCP law, 10 Gbps, d = 100 µs, K = 65, g = 1/16,
100 ms, seed 0; the last half is compared.

Measured (packet / fold / unfolded ACK-clocked model):

==  ===================  =========================  =====================  ==============================
N   mean queue           period ms                  mean window            held h: Δ(q − (N·W − C·d))/N
==  ===================  =========================  =====================  ==============================
2   59.8 / 60.7 / 60.8   1.380 / 1.347 / 1.324      72.85 / 72.51 / 72.06  0.68 packet (fold 0.5)
10  58.6 / 60.8 / 61.4   0.880 / 0.817 / 0.759      15.27 / 14.92 / 14.47  0.70 packet (fold 0.5)
==  ===================  =========================  =====================  ==============================

The fold is what passes: without it the window is 0.8 packets per flow off (both N) and at N = 10 the period
16 % off (outside DCTCP's 15 %); with it 0.34-0.35 packets and 2.5-7.8 %. What remains: the packet receiver holds
0.68-0.70 packets per flow at m = 2, not (m − 1)/2 = 0.5 — ACK-clocked senders release m packets back to back, so
arrivals are not evenly spaced and the held packet waits longer than half a spacing on average. α is not covered
(the Linux law's once-per-window estimate is 0.7× the fluid α with or without delayed ACKs, :mod:`.checks`).
"""

from __future__ import annotations

from typing import Any

from ...judge import CrossCheck, Tolerance, Tolerances, register_check, run_check
from ...params import DCTCP_ANALYSIS, DctcpParams
from .checks import fluid_run, packet_run

__all__ = ["TOLERANCES", "FLOWS", "CHECK", "compare_delack"]

#: Packets per ACK, flow counts of the check.
ACKS = 2
FLOWS = (2, 10)
#: Tolerances against the fold: mean queue (packets, DCTCP's), period (relative, DCTCP's), mean window (packets per
#: flow: below the held count the fold adds, so the unfolded model fails it).
TOLERANCES = Tolerances(
    Tolerance("queue_mean", "packets", abs=10.0),
    Tolerance("period", "1", quantity="period_s", rel=0.15),
    Tolerance("window_mean", "packets", abs=0.5),
)
_KEYS = ("queue_mean", "period_s", "window_mean", "alpha_mean", "utilization", "ack_clock_gap")


def _packet_side(P: DctcpParams, *, seed: int = 0, duration: float = 0.1, acks: int = ACKS, **_: Any) -> dict:
    """The packet run with one ACK per ``acks`` packets (``summary``) and without delayed ACKs (``plain``)."""
    pk = packet_run(P, duration=duration, seed=seed, delack=acks)["summary"]
    return {"summary": pk, "plain": packet_run(P, duration=duration, seed=seed)["summary"]}


def _fluid_side(settings: Any, packets: Any, *, duration: float = 0.1, acks: int = ACKS, **_: Any) -> list:
    """The fold (the model with delayed ACKs folded in) and the unfolded ACK-clocked model."""
    from ...models import DctcpDelackFluid, DctcpWindowFluid

    return [
        {
            "fold": fluid_run(DctcpDelackFluid(acks=acks), P, duration=duration)["summary"],
            "unfolded": fluid_run(DctcpWindowFluid(), P, duration=duration)["summary"],
        }
        for P in settings
    ]


#: The delayed-ACK cross-check: packet DCTCP with m = 2 against the fold (scored) and the unfolded model (its
#: checks reported: it misses the window).
CHECK: CrossCheck[DctcpParams] = register_check(
    CrossCheck(
        name="dctcp-delack",
        claim="the fold of delayed ACKs into the ACK-clocked DCTCP model says what the packet law does ([DCTCP-WAN])",
        settings=tuple(DCTCP_ANALYSIS.replace(flows=n) for n in FLOWS),
        packet=_packet_side,
        fluid=_fluid_side,
        tolerances=TOLERANCES,
        against=("fold", "unfolded"),
        label=lambda P: f"N = {P.flows}",
    )
)


def compare_delack(
    flows: tuple[int, ...] = FLOWS,
    *,
    acks: int = ACKS,
    params: DctcpParams | None = None,
    duration: float = 0.1,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Packet DCTCP with one ACK per ``acks`` packets, with and without delayed ACKs, next to the fold and the
    unfolded ACK-clocked model, for each N of ``flows``.

    Parameters
    ----------
    flows : tuple of int
        Flow counts N (default :data:`FLOWS`: 2, 10).
    acks : int
        m, packets per ACK of the delayed-ACK runs (default 2, [DCTCP-WAN]'s).
    params : DctcpParams, optional
        Link, K and g (default the DCTCP analysis setting: 10 Gbps, 100 µs, K = 65, g = 1/16).
    duration : float
        Simulated seconds of each run; the last half is compared.
    seed : int
        Seed of the packet runs.

    Returns
    -------
    list of dict
        Per N: ``flows``, summaries ``packet``, ``packet_m1`` (no delayed ACKs), ``fold``, ``unfolded``
    (queue_mean, period_s, window_mean, alpha_mean, utilization, ack_clock_gap), ``held`` (the packet receiver's
    mean held count per flow, from the growth of the ACK-clock gap, and the fold's (m − 1)/2), ``checks`` and
    ``agree`` against the fold, ``unfolded_checks``.
    """
    from ...models.dctcp_ext import held_packets

    base = params or DCTCP_ANALYSIS
    res = run_check(CHECK, [base.replace(flows=n) for n in flows], seed=seed, duration=duration, acks=acks)
    rows = []
    for r in res.rows:
        n, pk, pk1 = r.setting.flows, r.packet["summary"], r.packet["plain"]
        fold, plain = r.fluid["fold"], r.fluid["unfolded"]
        rows.append(
            {
                "flows": n,
                "acks": acks,
                **{
                    name: {k: s[k] for k in _KEYS}
                    for name, s in (("packet", pk), ("packet_m1", pk1), ("fold", fold), ("unfolded", plain))
                },  # fmt: skip
                "held": {
                    "packet": (pk["ack_clock_gap"] - pk1["ack_clock_gap"]) / n,
                    "fold": float(held_packets(acks)),
                },
                "checks": r.verdicts["fold"].checks,
                "agree": r.verdicts["fold"].agree,
                "unfolded_checks": r.verdicts["unfolded"].checks,
            }
        )
    return rows
