"""A packet run's per-chunk records as an ``xarray.Dataset``: a time coordinate in seconds, units on every variable.

:func:`to_dataset` (and :func:`chain_to_dataset` for a multi-port run) is the packet core's side of the result protocol's ``to_dataset()`` (:mod:`dwtcp_fluid.results`):
``dw.packet_dataset(pr, dw.simulate_packets(pr))`` gives what ``Result.to_dataset()`` gives for the fluid solvers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._provenance import provenance_attrs
from ..references import references_attr
from .scenarios import PacketRun

__all__ = ["to_dataset", "chain_to_dataset"]

#: record -> (variable name, long name, units, how a per-chunk sum becomes a per-slot mean: divide by chunk slots)
_VARS: dict[str, tuple[str, str, str, bool]] = {
    "q_end": ("queue", "bottleneck queue at the end of the chunk", "packets", False),
    "q_min": ("queue_min", "smallest queue in the chunk", "packets", False),
    "q_max": ("queue_max", "largest queue in the chunk", "packets", False),
    "q_sum": ("queue_mean", "mean queue over the chunk's slots", "packets", True),
    "busy": ("utilization", "fraction of the chunk's slots the link transmitted", "1", True),
    "marks": ("marks", "ECN marks in the chunk", "packets", False),
    "cwnd_end": ("cwnd", "congestion window at the end of the chunk", "packets", False),
    "cwnd_sum": ("cwnd_mean", "mean congestion window over the chunk's slots", "packets", True),
    "alpha_end": (
        "alpha",
        "the law's α estimate at the end of the chunk (0 if the law has none)",
        "1",
        False,
    ),
    "inflight_end": ("inflight", "packets in flight at the end of the chunk", "packets", False),
    "delivered": ("delivered", "packets delivered in the chunk", "packets", False),
    "sent": ("sent", "packets sent in the chunk", "packets", False),
    "drops": ("drops", "packets dropped at the bottleneck in the chunk", "packets", False),
    "timeouts": ("timeouts", "retransmission timeouts in the chunk", "1", False),
    "active": (
        "active",
        "slots of the chunk in which the flow was active (0 to the chunk's length)",
        "slots",
        False,
    ),
}


def to_dataset(pr: PacketRun, summary: dict[str, Any]) -> Any:
    """The per-chunk records of ``summary`` (from :func:`~.scenarios.run`, with ``"records"``) as a Dataset.

    Coordinates: ``time`` (s, the end of each record chunk) and ``flow`` (0..N−1). Attributes: the law, the
    scalar summary values, the reference of the law, and provenance (version, git revision and dirty flag,
    dependency versions).
    """
    import xarray as xr

    rec = summary.get("records")
    if rec is None:
        raise ValueError(
            "summary has no 'records': pass the dict that packet run returns, before popping them"
        )
    n_chunks, chunk = pr.cfg.n_chunks, pr.cfg.chunk
    time = (np.arange(n_chunks) + 1) * chunk * pr.slot
    data = {}
    for key, (name, long_name, unit, mean) in _VARS.items():
        if key not in rec:
            continue
        v = np.asarray(rec[key], dtype=float)
        if v.ndim == 0 or v.shape[0] != n_chunks:
            continue
        if mean:
            v = v / chunk
        dims = ("time",) if v.ndim == 1 else ("time", "flow")
        data[name] = (dims, v, {"long_name": long_name, "units": unit})
    coords = {
        "time": ("time", time, {"long_name": "end of the record chunk", "units": "s"}),
        "flow": ("flow", np.arange(pr.cfg.n_flows)),
    }
    scalars = {
        k: v for k, v in summary.items() if isinstance(v, int | float | str) and not isinstance(v, bool)
    }
    law_doc = type(pr.law).__doc__ if getattr(pr, "law", None) is not None else ""
    attrs = {
        **{f"summary_{k}": v for k, v in scalars.items()},
        "slot_s": float(pr.slot),
        "references": references_attr(law_doc),
        **provenance_attrs(),
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


#: multi-port record -> (variable name, long name, units, per port or per flow)
_CHAIN_VARS: dict[str, tuple[str, str, str, str]] = {
    "q_mean": ("queue_mean", "mean queue of the port over the chunk's slots", "packets", "port"),
    "q_end": ("queue", "queue of the port at the end of the chunk", "packets", "port"),
    "busy": ("utilization", "fraction of the chunk's slots the port transmitted", "1", "port"),
    "delivered": ("delivered", "packets of the flow delivered in the chunk", "packets", "flow"),
    "cwnd_mean": ("cwnd_mean", "mean congestion window over the chunk's slots", "packets", "flow"),
    "marks": ("marks", "ECN-marked ACKs of the flow in the chunk", "packets", "flow"),
    "drops": ("drops", "packets of the flow dropped since the start (cumulative)", "packets", "flow"),
}


def chain_to_dataset(s: Any) -> Any:
    """The per-chunk records of a multi-port run (:class:`~.multihop_run.ChainSummary`) as a Dataset.

    Coordinates: ``time`` (s, the end of each record chunk), ``port`` (by name: ``hop 0``, ``L0→S1``), ``flow``
    and each flow's ``group``. Attributes: topology, law, slot, the law's reference and provenance.
    """
    import xarray as xr

    from .laws import get_law
    from .topology import parse_topology

    rec = s.records
    n_chunks = len(rec["q_mean"])
    topo = parse_topology(s.topology)
    data = {}
    for key, (name, long_name, unit, dim) in _CHAIN_VARS.items():
        if key in rec:
            data[name] = (("time", dim), np.asarray(rec[key], float), {"long_name": long_name, "units": unit})
    n_ports, n_flows = data["queue_mean"][1].shape[1], len(s.groups)
    coords = {
        "time": (
            "time",
            (np.arange(n_chunks) + 1) * s.chunk * s.slot_s,
            {"long_name": "end of the record chunk", "units": "s"},
        ),
        "port": ("port", [topo.port_name(h) for h in range(n_ports)]),
        "flow": ("flow", np.arange(n_flows)),
        "group": ("flow", np.asarray(s.groups), {"long_name": "the flow's group (route)"}),
    }
    attrs = {
        "topology": s.topology,
        "law": s.law,
        "slot_s": float(s.slot_s),
        "references": references_attr(type(get_law(s.law)).__doc__ or ""),
        **provenance_attrs(),
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)
