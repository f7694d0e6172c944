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

import numpy as np

from ...params import LinkParams
from .analysis_multihop import parking_lot_fixed_point

__all__ = ["ChainSetting", "ChainComparison", "TOLERANCES", "SETTINGS", "compare_chain", "classify_chain"]

#: name → tolerance, as stated in the module docstring.
TOLERANCES = {"queue_over_K": 0.15, "long_share_rel": 0.25, "cross_share_rel": 0.05, "utilization_min": 0.98}


@dataclass(frozen=True)
class ChainSetting:
    """One parking lot: hops, flows per group, K (packets), link; ``rtt_long`` the long group's base RTT when it
    differs from the cross groups' ``rtt``."""

    hops: int
    flows: int = 1
    K: float = 65.0
    capacity: str = "10Gbps"
    rtt: str = "100us"
    duration: str = "100ms"
    rtt_long: str | None = None
    cross_flows: int | None = None

    @property
    def name(self) -> str:
        rtt = self.rtt if self.rtt_long is None else f"{self.rtt_long}/{self.rtt}"
        n = self.flows if self.cross_flows is None else f"{self.flows}/{self.cross_flows}"
        return f"parking-lot:{self.hops} N={n} K={self.K:g} {self.capacity} {rtt}"

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
    """Packet vs fluid for one setting: run class, measured and predicted values, errors, pass/fail."""

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


def compare_chain(setting: ChainSetting, *, seed: int = 0) -> ChainComparison:
    """Run the packet parking lot for ``setting`` and compare with the fluid network model's predictions.

    Parameters
    ----------
    setting : ChainSetting
        Hops, flows per group, K, link and duration.
    seed : int
        Seed of the packet run.
    """
    from ...packet.multihop_run import run_topology
    from ..dctcp.checks import fluid_law

    link = LinkParams(capacity=setting.capacity, rtt=setting.rtt)
    s = run_topology(
        f"parking-lot:{setting.hops}", fluid_law("dctcp"), link=link, flows=(setting.flows,) + (setting.n_cross,) * setting.hops,
        K=setting.K,
        duration=setting.duration, seed=seed, rtt=setting.group_rtts,
    )  # fmt: skip
    warm = s.records["q_mean"].shape[0] // 2
    cls = classify_chain(s.records, setting.K, warm)
    C = link.C
    # the packets' base RTT of a one-hop flow (forwarding slots of the long flow are in its R via K terms)
    d = float(s.fluid_rtt_s[s.groups == 1][0])
    # the long group's own base RTT when unequal (its hops' forwarding slots are left out, as for d above)
    dl = None if setting.rtt_long is None else float(s.fluid_rtt_s[0] - (setting.hops - 1) * s.slot_s)
    args = (setting.hops, C, setting.K, d, setting.flows, setting.n_cross)
    fp = parking_lot_fixed_point(*args, d_long=dl)
    sy = parking_lot_fixed_point(*args, marks="synchronized", d_long=dl)
    long_share = float(s.group_share[0])
    cross_share = float(np.mean(s.group_share[1:]))
    fl, fc = fp.x_long / C, fp.x_cross / C
    errors = {
        "queue_over_K": float(np.max(np.abs(s.queue_mean - setting.K)) / setting.K),
        "long_share_rel": abs(long_share - fl) / fl,
        "cross_share_rel": abs(cross_share - fc) / fc,
        "utilization_min": float(s.utilization.min()),
    }
    passed = None
    if cls == "stationary":
        passed = (
            errors["queue_over_K"] <= TOLERANCES["queue_over_K"]
            and errors["long_share_rel"] <= TOLERANCES["long_share_rel"]
            and errors["cross_share_rel"] <= TOLERANCES["cross_share_rel"]
            and errors["utilization_min"] >= TOLERANCES["utilization_min"]
        )
    return ChainComparison(
        setting,
        cls,
        s.queue_mean,
        s.utilization,
        long_share,
        cross_share,
        fl,
        fc,
        sy.x_long / C,
        errors,
        passed,
    )


def compare_all(settings: Sequence[ChainSetting] = SETTINGS, *, seed: int = 0) -> list[ChainComparison]:
    """:func:`compare_chain` over ``settings``."""
    return [compare_chain(st, seed=seed) for st in settings]
