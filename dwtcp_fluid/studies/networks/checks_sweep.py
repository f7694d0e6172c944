"""The hops × cross-flow load sweep of the DCTCP parking lot: fluid network model next to the packet chain.

Every grid point (k hops, n cross flows per hop) runs

* the fluid model :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork` with per-group loop delays from a
  start a hair off the symmetric subspace (:func:`~dwtcp_fluid.studies.networks.analysis_multihop_dde.fluid_lot_run`): the long
  flow's share, per-link mean queue and utilization, its class (steady / oscillating / failed);
* the packet chain at the same setting (:func:`~.checks_multihop.compare_chain`): the same
  quantities and its run class (stationary / slow-start / collapse / not-stationary);
* the mean-field fixed point (independent hop marks) and the synchronized one (P = p), as references;
* the agreement of fluid and packet with the cross-check's stated tolerances, scored only where the packet run
  is stationary and the fluid run did not fail (else ``not_scored``: a run that says nothing is never agreement).

It runs on the DWTCP sweep's chunked engine (:mod:`dwtcp_fluid.sweep.engine`: Zarr store, per-chunk checksums, ``resume``), one
chunk per grid point, and the dataset carries the same provenance and CF attributes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ...judge import Tolerance, Tolerances, verdict
from ...params import check_range
from ...references import references_attr
from ...sweep.engine import Evaluator, SweepPlan, run_plan
from ...sweep.store import provenance
from .checks_multihop import TOLERANCES, ChainSetting, compare_chain

__all__ = [
    "NetworkGrid",
    "run_network_sweep",
    "network_stem",
    "FLUID_CLASSES",
    "PACKET_CLASSES",
    "AGREEMENT",
]

FLUID_CLASSES = ("steady", "oscillating", "failed")
PACKET_CLASSES = ("stationary", "slow-start", "collapse", "not-stationary")
AGREEMENT = ("disagree", "agree", "not_scored")


@dataclass(frozen=True)
class NetworkGrid:
    """Hops k and cross flows per hop (the load), and the settings shared by every point.

    Parameters
    ----------
    hops : array of int
        Links of the parking lot, each ≥ 1.
    load : array of int
        Flows of every cross group, each in [1, 256].
    long_flows : int
        Flows of the long group.
    K : float
        Threshold of every link, packets.
    capacity, rtt : str
        Link rate; base RTT of every cross flow (and of the long flows unless ``rtt_long``).
    rtt_long : str, optional
        Base RTT of the long flows.
    duration : str
        Simulated time of each fluid and packet run ("100ms"); both are read over its second half.
    """

    hops: Any
    load: Any
    long_flows: int = 1
    K: float = 65.0
    capacity: str = "10Gbps"
    rtt: str = "100us"
    rtt_long: str | None = None
    duration: str = "100ms"
    links: int = field(init=False)

    def __post_init__(self) -> None:
        for name in ("hops", "load"):
            v = np.atleast_1d(np.asarray(getattr(self, name)))
            hi = 16 if name == "hops" else 256
            if (
                v.size == 0
                or v.dtype.kind not in "iu"
                or v.min() < 1
                or v.max() > hi
                or len(set(v)) != v.size
            ):
                raise ValueError(
                    f"{name}={getattr(self, name)!r} is out of range: accepted distinct integers in [1, {hi}]"
                )
            object.__setattr__(self, name, np.sort(v.astype(np.int64)))
        check_range("long_flows", self.long_flows, lo=1, hi=256, integer=True)
        check_range("K", self.K, lo=0.0, lo_open=True, why="packets")
        object.__setattr__(self, "links", int(self.hops.max()))

    @property
    def size(self) -> int:
        return int(self.hops.size * self.load.size)

    def setting(self, ih: int, il: int) -> ChainSetting:
        """The cross-check setting of point (hops[ih], load[il])."""
        return ChainSetting(
            int(self.hops[ih]), flows=self.long_flows, K=self.K, capacity=self.capacity, rtt=self.rtt,
            duration=self.duration, rtt_long=self.rtt_long, cross_flows=int(self.load[il]),
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "hops": self.hops.tolist(),
            "load": self.load.tolist(),
            "long_flows": self.long_flows,
            "K": self.K,
            "capacity": self.capacity,
            "rtt": self.rtt,
            "rtt_long": self.rtt_long,
            "duration": self.duration,
        }

    def dims(self) -> dict[str, int]:
        """The engine's grid protocol (:class:`~dwtcp_fluid.sweep.engine.Grid`): hops, load and the links."""
        return {"hops": self.hops.size, "load": self.load.size, "link": self.links}

    def lead(self) -> tuple[tuple[str, np.ndarray], tuple[str, np.ndarray]]:
        """The two leading axes (the chunks' axes) as ``(name, values)``: hops and load."""
        return ("hops", self.hops), ("load", self.load)

    def coords(self) -> dict[str, Any]:
        return {
            "hops": ("hops", self.hops, {"long_name": "links crossed by the long flow k", "units": "1"}),
            "load": ("load", self.load, {"long_name": "cross flows per hop", "units": "1"}),
            "link": (
                "link",
                np.arange(1, self.links + 1),
                {"long_name": "link index along the path", "units": "1"},
            ),
        }


_HL, _HLL = ("hops", "load"), ("hops", "load", "link")


def _var(dims: tuple[str, ...], dtype: str, long_name: str, units: str, **kw: Any) -> tuple:
    return (dims, dtype, {"long_name": long_name, "units": units, **kw})


def _flags(names: tuple[str, ...]) -> dict[str, Any]:
    return {"flag_values": np.arange(len(names), dtype=np.int8), "flag_meanings": " ".join(names)}


VARIABLES: dict[str, tuple] = {
    "fluid_long_share": _var(_HL, "float64", "a long flow's rate over C, fluid model", "1"),
    "fluid_cross_share": _var(_HL, "float64", "a cross flow's rate over C, fluid model", "1"),
    "fluid_queue_mean": _var(_HLL, "float64", "mean queue per link, fluid model", "packets"),
    "fluid_utilization": _var(_HLL, "float64", "utilization per link, fluid model", "1"),
    "fluid_desync": _var(_HL, "float64", "max |q_l − q_1| over the measured half, fluid model", "packets"),
    "fluid_class": _var(_HL, "int8", "fluid run class", "1", **_flags(FLUID_CLASSES)),
    "packet_long_share": _var(_HL, "float64", "a long flow's rate over C, packet chain", "1"),
    "packet_cross_share": _var(_HL, "float64", "a cross flow's rate over C, packet chain", "1"),
    "packet_queue_mean": _var(_HLL, "float64", "mean queue per link, packet chain", "packets"),
    "packet_utilization": _var(_HLL, "float64", "utilization per link, packet chain", "1"),
    "packet_class": _var(_HL, "int8", "packet run class", "1", **_flags(PACKET_CLASSES)),
    "mean_field_long_share": _var(
        _HL, "float64", "a long flow's share at the independent-marks fixed point", "1"
    ),
    "synchronized_long_share": _var(
        _HL, "float64", "a long flow's share at the synchronized fixed point", "1"
    ),
    "long_share_rel_error": _var(_HL, "float64", "|fluid − packet|/packet long share (scored points)", "1"),
    "agreement": _var(_HL, "int8", "fluid vs packet within the stated tolerances", "1", **_flags(AGREEMENT)),
}


#: The fluid DDE run against the packet chain, with the cross-check's bounds
#: (:data:`~dwtcp_fluid.studies.networks.checks_multihop.TOLERANCES`): long and cross shares relative to the packet
#: run's, every link's mean queue within 0.15·K of the packet run's.
SWEEP_TOLERANCES = Tolerances(
    Tolerance("long_share_rel", "1", quantity="long_share", of="fluid", against="packet",
              rel=TOLERANCES["long_share_rel"].rel),
    Tolerance("cross_share_rel", "1", quantity="cross_share", of="fluid", against="packet",
              rel=TOLERANCES["cross_share_rel"].rel),
    Tolerance("queue_over_K", "K", quantity="queue_mean", of="fluid", against="packet",
              abs=TOLERANCES["queue_over_K"].rel, scale="K"),
)  # fmt: skip


def agreement(fluid: Any, packet: Any, K: float) -> tuple[int, float]:
    """(code in :data:`AGREEMENT`, long-share relative error) of a fluid run against a packet comparison by the
    judge's verdict on :data:`SWEEP_TOLERANCES`: scored only when the packet run is stationary and the fluid run
    did not fail."""
    keys = ("long_share", "cross_share", "queue_mean")
    cls = "failed" if fluid.run_class == "failed" else packet.run_class
    v = verdict(SWEEP_TOLERANCES, {k: getattr(packet, k) for k in keys}, {k: getattr(fluid, k) for k in keys},
                context={"K": K}, run_class=cls, scored_classes=("stationary",))  # fmt: skip
    if v.passed is None:
        return AGREEMENT.index("not_scored"), float("nan")
    return AGREEMENT.index("agree" if v.agree else "disagree"), float(v.measured["long_share_rel"])


def _evaluate(grid: NetworkGrid, ih: int, sl: slice) -> dict[str, np.ndarray]:
    """Points (hops[ih], load[sl]): fluid run, packet run, references and agreement; arrays (1, n, …)."""
    from ...units import parse_time
    from .analysis_multihop_dde import fluid_lot_run

    n = sl.stop - sl.start
    out = {
        k: np.full((1, n) + ((grid.links,) if len(v[0]) == 3 else ()), np.nan) for k, v in VARIABLES.items()
    }
    for j, il in enumerate(range(sl.start, sl.stop)):
        st = grid.setting(ih, il)
        pk = compare_chain(st)
        fl = fluid_lot_run(
            st.hops, flows=st.flows, cross_flows=st.n_cross, K=st.K, capacity=st.capacity, rtt=st.rtt,
            rtt_long=st.rtt_long, duration=parse_time(st.duration),
        )  # fmt: skip
        k = st.hops
        code, err = agreement(fl, pk, st.K)
        row = {
            "fluid_long_share": fl.long_share, "fluid_cross_share": fl.cross_share, "fluid_desync": fl.desync,
            "fluid_class": FLUID_CLASSES.index(fl.run_class), "packet_long_share": pk.long_share,
            "packet_cross_share": pk.cross_share, "packet_class": PACKET_CLASSES.index(pk.run_class),
            "mean_field_long_share": pk.fluid_long_share, "synchronized_long_share": pk.sync_long_share,
            "long_share_rel_error": err, "agreement": code,
        }  # fmt: skip
        for name, v in row.items():
            out[name][0, j] = v
        out["fluid_queue_mean"][0, j, :k] = fl.queue_mean
        out["fluid_utilization"][0, j, :k] = fl.utilization
        out["packet_queue_mean"][0, j, :k] = pk.queue_mean
        out["packet_utilization"][0, j, :k] = pk.utilization
    return {k: v.astype(VARIABLES[k][1]) for k, v in out.items()}


EVALUATOR = Evaluator("network", VARIABLES, _evaluate)  # type: ignore[arg-type]


def make_network_plan(grid: NetworkGrid) -> SweepPlan:
    """One evaluator (fluid + packet + agreement), one grid point per chunk."""
    return SweepPlan(grid, (EVALUATOR,), chunk=1)


def network_stem(grid: NetworkGrid) -> str:
    """``network-sweep-<hash>``: results are named by a hash of the whole grid and its settings."""
    digest = hashlib.sha256(json.dumps(grid.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
    return f"network-sweep-{digest}"


def run_network_sweep(
    grid: NetworkGrid,
    store: str | Path,
    *,
    resume: bool = False,
    progress: Callable[[float, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    repair: bool = True,
) -> xr.Dataset:
    """Run (or resume) the sweep into the Zarr ``store``; return the dataset with its attributes.

    Dims (hops, load[, link]); class variables carry CF ``flag_values``/``flag_meanings``.

    Parameters
    ----------
    grid : NetworkGrid
        Hops × cross-flow load and the shared settings.
    store : str or Path
        Zarr store of the points (one chunk per point, each with a checksum record).
    resume : bool
        Keep the verified points of an earlier run into the same store.
    progress : callable, optional
        ``progress(done, total)`` in points.
    report : callable, optional
        Receives one line per stored point that fails verification on resume.
    repair : bool
        Recompute such points (False: stop with ``StoreDamagedError``).
    """
    plan = make_network_plan(grid)
    ds = run_plan(plan, Path(store), resume=resume, progress=progress, report=report, repair=repair)
    ds.attrs.update(
        provenance(
            grid.to_dict(),
            solver="fluid: DctcpNetwork(group_delays=True), reference DDE solver (DOP853, exact switching), start "
            "1e-3 packets off the symmetric subspace; packet: dctcp on the parking-lot chain of the packet core",
            tolerance=SWEEP_TOLERANCES.describe(),
        )
    )
    ds.attrs["Conventions"] = "CF-1.10"
    ds.attrs["title"] = "DCTCP parking lot: hops × cross-flow load, fluid network model vs packet chain"
    ds.attrs["model"] = "DCTCP fluid model over a routing matrix, [DCTCP-A] eqs. (5)-(8) per link"
    ds.attrs["references"] = references_attr(ds.attrs["model"])
    return ds
