"""``packet run --topology path:K | parking-lot:K | leaf-spine:LxS``: the human tables of a multi-port run, printed
from its document (:func:`dwtcp_fluid.reports.packet.chain_document`)."""

from __future__ import annotations

from typing import Any

__all__ = ["print_chain"]


def print_chain(doc: dict[str, Any]) -> None:
    """Per port the mean queue and utilization; per group its route and throughput share."""
    from rich.console import Console
    from rich.table import Table

    ports = doc["ports"]
    sizes = [int(n) for n in doc.get("flows_per_group", [doc["flows"]])]
    if len(set(sizes)) == 1:
        per = f"{sizes[0]} flow(s) per group"
    else:  # a leaf-spine's groups (leaf pairs) differ in size
        per = f"{sum(sizes)} flows in {len(sizes)} groups of {min(sizes)}-{max(sizes)}"
    t = Table(title=f"packet core: {doc['law']} on {doc['topology']}, {per}")
    t.add_column("port")
    t.add_column("queue mean (packets)")
    t.add_column("utilization")
    for name, q, u in zip(ports, doc["queue_mean"], doc["utilization"], strict=True):
        t.add_row(name, f"{q:.2f}", f"{u:.4f}")
    Console().print(t)
    g = Table(title="throughput share of the port rate, per flow, by group (route: ports crossed)")
    g.add_column("group")
    g.add_column("flows")
    g.add_column("route")
    g.add_column("share")
    for i, v in enumerate(doc["group_share"]):
        n = str(sizes[i]) if i < len(sizes) and len(sizes) == len(doc["group_share"]) else "—"
        g.add_row(str(i), n, " ".join(ports[h] for h in doc["routes"][i]), f"{v:.4f}")
    Console().print(g)
