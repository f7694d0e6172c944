"""Packet chain vs the DCTCP network fluid model on parking lots, with stated tolerances and run classes.

For each setting the packet core runs the parking lot (:func:`~dwtcp_fluid.packet.multihop_run.run_topology`)
and two fluid predictions are formed from :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork`:

* ``mean-field``: its fixed point with independent hop marks (:func:`~dwtcp_fluid.studies.networks.analysis_multihop.
  parking_lot_fixed_point`, derived in ``proofs/multihop.md``): q_l = K, full links, W_i = 2/P_i²;
* ``synchronized``: the same with P = p, what a long run of the symmetric fluid DDE settles near.

A packet run is first classified; only a ``stationary`` run is scored:

* ``slow-start``: no ECN mark in the measurement window (the laws never left slow start);
* ``collapse``: a hop below 90 % utilization or drops above 1 % of the delivered packets;
* ``not-stationary``: the long flow's share in the two halves of the measurement window differs by more than
  25 % (relative), or a hop's mean queue by more than 0.25·K.

Tolerances (:data:`TOLERANCES`): per-hop mean queue within 0.15·K of K; per-flow throughput share of the long
flow within 25 % and of a cross flow within 5 % (relative); utilization of every hop ≥ 0.98 in both.

The packet law runs the one-step cut the fluid model describes (:func:`~dwtcp_fluid.studies.dctcp.checks.fluid_law`).
Under Linux's proportional rate reduction (the laws' default) the agreement does not carry over at every setting
(seed 0): parking-lot:2, N = 1, K = 65 is no longer stationary, and parking-lot:3, N = 1, K = 30 puts the long flow
55 % off the mean-field share (queue within 0.15·K, cross flows within 5 %) — the fluid network model is a model
of one-step senders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, register_check, run_check
from ...params import LinkParams
from .analysis_multihop import parking_lot_fixed_point

__all__ = [
    "ChainSetting",
    "ChainComparison",
    "TOLERANCES",
    "SETTINGS",
    "CHECK",
    "compare_chain",
    "classify_chain",
]

#: The tolerances, as stated in the module docstring (packet against the mean-field fixed point; the fluid queue of
#: every hop is K).
TOLERANCES = Tolerances(
    Tolerance("queue_over_K", "1", quantity="queue", rel=0.15),
    Tolerance("long_share_rel", "1", quantity="long_share", rel=0.25),
    Tolerance("cross_share_rel", "1", quantity="cross_share", rel=0.05),
    Tolerance("utilization_min", "1", quantity="utilization", against=None, at_least=0.98),
)


@dataclass(frozen=True)
class ChainSetting:
    """One parking lot: hops, flows per group, K (packets), link; ``rtt_long`` the long group's base RTT when it
    differs from the cross groups' ``rtt``; ``reduction`` the packet law's sender rule (None: the one-step cut
    the fluid model describes, :data:`~dwtcp_fluid.studies.dctcp.checks.FLUID_REDUCTION`)."""

    hops: int
    flows: int = 1
    K: float = 65.0
    capacity: str = "10Gbps"
    rtt: str = "100us"
    duration: str = "100ms"
    rtt_long: str | None = None
    cross_flows: int | None = None
    reduction: str | None = None

    @property
    def name(self) -> str:
        rtt = self.rtt if self.rtt_long is None else f"{self.rtt_long}/{self.rtt}"
        n = self.flows if self.cross_flows is None else f"{self.flows}/{self.cross_flows}"
        red = "" if self.reduction is None else f" {self.reduction}"
        return f"parking-lot:{self.hops} N={n} K={self.K:g} {self.capacity} {rtt}{red}"

    @property
    def n_cross(self) -> int:
        """Flows of each cross group (``flows`` unless ``cross_flows`` is given)."""
        return self.flows if self.cross_flows is None else self.cross_flows

    @property
    def group_rtts(self) -> tuple[str, ...] | None:
        """Per-group base RTTs (long group first) when they are unequal, else None."""
        return None if self.rtt_long is None else (self.rtt_long,) + (self.rtt,) * self.hops


#: The settings the cross-check scores (k = 2, 3, 4, a heavier and a lower-threshold load, and a long flow with
#: twice the cross flows' base RTT at k = 2 and 3).
SETTINGS: tuple[ChainSetting, ...] = (
    ChainSetting(2),
    ChainSetting(3),
    ChainSetting(4),
    ChainSetting(2, flows=3),
    ChainSetting(3, K=30.0),
    ChainSetting(2, rtt_long="200us"),
    ChainSetting(3, rtt_long="200us"),
)


@dataclass(frozen=True)
class ChainComparison:
    """Packet vs fluid for one setting: run class, measured and predicted values, errors, pass/fail; ``marked``:
    per group (long group first), the fraction of its delivered packets that were marked over the run's second half
    (a long flow crossing hops that mark independently of each other gets 1 − Π(1 − cross groups' fractions))."""

    setting: ChainSetting
    run_class: str
    queue_mean: np.ndarray
    utilization: np.ndarray
    long_share: float
    cross_share: float
    fluid_long_share: float
    fluid_cross_share: float
    sync_long_share: float
    errors: dict
    passed: bool | None
    marked: np.ndarray | None = None


def classify_chain(
    rec: dict, K: float, warm: int, *, marked: bool = True, share_abs: float | None = None, chunk: int = 1
) -> str:
    """The run class of a chain run's per-chunk records after chunk ``warm`` (see the module docstring).

    ``marked=False`` (a law on a delay signal, no ECN: TIMELY) skips the slow-start test (no mark says nothing
    there). ``share_abs`` (fraction of the port rate), when given, replaces the long flow's relative test by an
    absolute one on every flow (``chunk``: slots per record): a flow's share in the two halves differing by more
    than ``share_abs`` is not stationary (a starved flow's relative noise says nothing). ``K`` (packets) scales
    the queue test, 0.25·K.
    """
    n = rec["q_mean"].shape[0]
    m = rec["marks"][warm:].sum()
    delivered = rec["delivered"][warm:].sum()
    drops = rec["drops"][-1].sum() - rec["drops"][warm].sum()
    if marked and m == 0:
        return "slow-start"
    if rec["busy"][warm:].mean(axis=0).min() < 0.9 or drops > 0.01 * max(delivered, 1):
        return "collapse"
    half = warm + (n - warm) // 2
    if half == warm:  # fewer than two records to measure: nothing says the run is stationary
        return "not-stationary"
    qa, qb = rec["q_mean"][warm:half].mean(axis=0), rec["q_mean"][half:].mean(axis=0)
    if share_abs is None:
        a, b = rec["delivered"][warm:half, 0].sum(), rec["delivered"][half:, 0].sum()
        moved = abs(a - b) > 0.25 * max(a, b)
    else:
        a, b = rec["delivered"][warm:half].mean(axis=0), rec["delivered"][half:].mean(axis=0)
        moved = float(np.max(np.abs(a - b))) / chunk > share_abs
    if moved or np.max(np.abs(qa - qb)) > 0.25 * K:
        return "not-stationary"
    return "stationary"


def _packet_side(setting: ChainSetting, *, seed: int = 0, **_: Any) -> dict[str, Any]:
    """The packet parking lot (``run``: its :class:`~dwtcp_fluid.packet.multihop_run.ChainSummary`), classified."""
    from ...packet.multihop_run import run_topology
    from ..dctcp.checks import fluid_law

    link = LinkParams(capacity=setting.capacity, rtt=setting.rtt)
    law = fluid_law("dctcp") if setting.reduction is None else fluid_law("dctcp", setting.reduction)
    s = run_topology(
        f"parking-lot:{setting.hops}", law, link=link, flows=(setting.flows,) + (setting.n_cross,) * setting.hops,
        K=setting.K,
        duration=setting.duration, seed=seed, rtt=setting.group_rtts,
    )  # fmt: skip
    warm = s.records["q_mean"].shape[0] // 2
    summary = {
        "queue": s.queue_mean,
        "utilization": s.utilization,
        "long_share": float(s.group_share[0]),
        "cross_share": float(np.mean(s.group_share[1:])),
    }
    return {"summary": summary, "run": s, "class": classify_chain(s.records, setting.K, warm)}


def _fluid_side(settings: Sequence[ChainSetting], packets: Sequence[dict[str, Any]], **_: Any) -> list[dict]:
    """The mean-field and synchronized fixed points at each packet run's base RTTs (shares per flow, of C)."""
    out = []
    for setting, pk in zip(settings, packets, strict=True):
        s = pk["run"]
        C = LinkParams(capacity=setting.capacity, rtt=setting.rtt).C
        # the packets' base RTT of a one-hop flow (forwarding slots of the long flow are in its R via K terms)
        d = float(s.fluid_rtt_s[s.groups == 1][0])
        # the long group's own base RTT when unequal (its hops' forwarding slots are left out, as for d above)
        dl = None if setting.rtt_long is None else float(s.fluid_rtt_s[0] - (setting.hops - 1) * s.slot_s)
        args = (setting.hops, C, setting.K, d, setting.flows, setting.n_cross)
        fp = parking_lot_fixed_point(*args, d_long=dl)
        sy = parking_lot_fixed_point(*args, marks="synchronized", d_long=dl)
        q = np.full(setting.hops, setting.K)
        out.append({
            "mean-field": {"queue": q, "long_share": fp.x_long / C, "cross_share": fp.x_cross / C},
            "synchronized": {"queue": q, "long_share": sy.x_long / C, "cross_share": sy.x_cross / C},
        })  # fmt: skip
    return out


def mean_field_check(**fields: Any) -> CrossCheck[Any]:
    """A network cross-check: the packet side's own ``class`` (``stationary`` scored) against the ``mean-field``
    fixed point (other fluid readings reported)."""
    return CrossCheck(
        classify=lambda setting, packet, fluid: packet["class"],
        scored_classes=("stationary",),
        against=("mean-field",),
        **fields,
    )


#: The parking-lot cross-check: packet chain against the network model's mean-field fixed point (scored) and its
#: synchronized reading (reported).
CHECK: CrossCheck[ChainSetting] = register_check(
    mean_field_check(
        name="parking-lot",
        claim="the DCTCP network model's mean-field fixed point says what the packet chain does (proofs/multihop.md)",
        settings=SETTINGS,
        packet=_packet_side,
        fluid=_fluid_side,
        tolerances=TOLERANCES,
    )
)


def compare_chain(setting: ChainSetting, *, seed: int = 0) -> ChainComparison:
    """Run the packet parking lot for ``setting`` and compare with the fluid network model's predictions
    (:data:`CHECK`).

    Parameters
    ----------
    setting : ChainSetting
        Hops, flows per group, K, link and duration.
    seed : int
        Seed of the packet run.
    """
    (r,) = run_check(CHECK, [setting], seed=seed).rows
    s, pk, v = r.packet["run"], r.packet["summary"], r.verdicts["mean-field"]
    mf, sy = r.fluid["mean-field"], r.fluid["synchronized"]
    half = s.records["marks"].shape[0] // 2
    groups = np.asarray(s.groups)
    marks, sent = s.records["marks"][half:].sum(axis=0), s.records["delivered"][half:].sum(axis=0)
    marked = np.array(
        [marks[groups == g].sum() / max(sent[groups == g].sum(), 1) for g in range(setting.hops + 1)]
    )
    return ChainComparison(
        setting,
        r.run_class,
        s.queue_mean,
        s.utilization,
        pk["long_share"],
        pk["cross_share"],
        mf["long_share"],
        mf["cross_share"],
        sy["long_share"],
        dict(v.measured),
        v.passed,
        marked,
    )


def compare_all(settings: Sequence[ChainSetting] = SETTINGS, *, seed: int = 0) -> list[ChainComparison]:
    """:func:`compare_chain` over ``settings``."""
    return [compare_chain(st, seed=seed) for st in settings]
