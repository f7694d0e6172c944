"""``dwtcp-fluid dctcp network --topology leaf-spine:LxS``: the network model on a fabric's ECMP routing.

Called by ``dctcp network`` after its common checks. The routing (ports as links, distinct routes as groups) comes
from :func:`~dwtcp_fluid.packet.leafspine.leaf_spine_traffic`; the output holds the reference DDE's per-port queue
and utilization and per-group share, the mean-field fixed point with line-rate access links, and with ``--packet``
the packet fabric at the same setting (:func:`~dwtcp_fluid.crosscheck.leafspine.compare_fabric`).
"""

from __future__ import annotations

from typing import Any

from .common import UsageError, emit_json

__all__ = ["network_fabric"]


def network_fabric(
    topo: Any, link: Any, flows: int, K: float, T: float, traffic: str, seed: int, packet: bool, json: bool
) -> None:
    """Solve the fabric's routing with the network model (and the packet core with ``packet``); print or emit."""
    import numpy as np

    from ..analysis.network_fixed_point import network_fixed_point
    from ..crosscheck.leafspine import FabricSetting, compare_fabric, fluid_fabric
    from ..packet.leafspine import leaf_spine_traffic

    if traffic not in ("all-to-all", "permutation"):
        raise UsageError("--traffic", traffic, "all-to-all | permutation")
    if not 1 <= flows <= 64:
        raise UsageError("--flows", flows, "an integer in [1, 64] (flows per leaf pair)")
    tr = leaf_spine_traffic(topo, traffic, flows, seed)
    fab = tr.topology
    rtt = link.d + 1.0 / link.C  # the packets' empty-network RTT: one forwarding slot
    f = fluid_fabric(fab.groups, tr.flows_per_group, rtt, link, K, T)
    canq = tr.queueable()
    mf = network_fixed_point(
        fab.groups, tr.flows_per_group, link.C, K, rtt, access=link.C, links=np.flatnonzero(canq)
    )
    out: dict[str, Any] = {
        "topology": fab.name,
        "traffic": traffic,
        "seed": seed,
        "flows_per_pair": flows,
        "K": K,
        "capacity_pps": link.C,
        "rtt_s": link.d,
        "ports": [fab.port_name(int(h)) for h in f["ports"]],
        "routes": [[fab.port_name(h) for h in r] for r in fab.groups],
        "flows_per_group": list(tr.flows_per_group),
        "fluid": {
            "status": f["status"],
            "queue_mean": f["queue"].tolist(),
            "utilization": f["utilization"].tolist(),
            "flow_share": f["share"].tolist(),
        },
        "mean_field": {"flow_share": (mf.x / link.C).tolist(), "residual": mf.residual},
    }
    if packet:
        st = FabricSetting(
            fab.name,
            traffic,
            flows,
            seed,
            K,
            f"{link.capacity / 1e9:g}Gbps",
            f"{link.d * 1e6:g}us",
            f"{T * 1e3:g}ms",
        )
        c = compare_fabric(st)
        out["packet"] = {
            "run_class": c.run_class,
            "passed": c.passed,
            "errors": c.errors,
            "queue_mean": c.queue_packet.tolist(),
            "utilization": c.util_packet.tolist(),
            "flow_share": c.share_packet.tolist(),
        }
    if json:
        emit_json(out)
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(
        title=f"DCTCP network model on {fab.name}, {traffic}, {flows} flow(s) per leaf pair, seed {seed}"
    )
    for col in (
        "route",
        "flows",
        "fluid DDE share",
        "mean-field share",
        *(["packet share"] if packet else []),
    ):
        t.add_column(col)
    for g, r in enumerate(out["routes"]):
        row = [" ".join(r), str(tr.flows_per_group[g]), f"{f['share'][g]:.4f}", f"{mf.x[g] / link.C:.4f}"]
        if packet:
            row.append(f"{out['packet']['flow_share'][g]:.4f}")
        t.add_row(*row)
    Console().print(t)
