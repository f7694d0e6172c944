"""``dwtcp-fluid dctcp network``: the DCTCP network fluid model on a chain or a leaf-spine fabric, optionally against
the packet core (``--packet``); the document is :func:`~dwtcp_fluid.studies.networks.report.dctcp_network_report`'s."""

from __future__ import annotations

from typing import Any

from ...cli.app import dctcp_app
from ...cli.common import UsageError, check_duration, echo_inputs, emit_json, link_from_flags, usage_from
from ...cli.flags import Use, declared
from ...cli.progress import progress_bar

__all__ = ["network"]


@dctcp_app.command("network")
@declared(
    topology=Use(
        default="parking-lot:2", note="Here path:K | parking-lot:K (K hops) | leaf-spine:LxS (ECMP fabric)."
    ),
    flows=Use(
        default=1, note="Here flows per group (1..256); leaf-spine: flows per talking leaf pair (1..64)."
    ),
    traffic=Use(note="Leaf-spine only."),
    seed=Use(default=1, note="Leaf-spine only: the seed of the permutation and the ECMP hash."),
    capacity=Use(note="Of every link."),
    rtt=Use(note="Of every flow."),
    marking_threshold=Use(note="Of every link."),
    duration=Use(note="Of the fluid (and packet) run."),
    packet=Use(default=False, note="Here a switch: also run the packet chain and compare."),
)
def network(
    topology: str,
    flows: int,
    traffic: str,
    seed: int,
    capacity: str,
    rtt: str,
    marking_threshold: float,
    duration: str,
    perturb: float | None,
    packet: bool,
    json: bool,
) -> None:
    """DCTCP over several bottlenecks ([DCTCP-A] (5)-(8) per link): fixed points, a reference-solver run, and
    with --packet the packet chain (or fabric) at the same setting. On leaf-spine:LxS the routing (ports as links)
    is the fabric's ECMP routing of the traffic pattern; the table gives each route's share in the DDE, at the
    mean-field fixed point with line-rate access links, and in the packet fabric."""
    from ...packet.topology import TOPOLOGY_FORMS, parse_topology
    from ...units import parse_time
    from .report import check_network, dctcp_network_report

    try:
        topo = parse_topology(topology)
    except ValueError:
        raise UsageError("--topology", topology, TOPOLOGY_FORMS) from None
    link = link_from_flags(capacity, rtt)
    try:
        T = parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, 'a time such as "100ms"') from None
    check_duration(link, T)
    given = {
        "topology": ("--topology", topology),
        "flows": ("--flows", flows),
        "K": ("--marking-threshold", marking_threshold),
        "duration": ("--duration", duration),
        "traffic": ("--traffic", traffic),
        "perturb": ("--perturb", perturb),
    }
    try:
        check_network(
            topo, flows=flows, link=link, K=marking_threshold, duration=T, traffic=traffic, perturb=perturb
        )
    except ValueError as e:
        raise usage_from(e, given) from None
    with progress_bar(
        "dctcp network: fluid" + (" and packet runs" if packet else " run"), "µs simulated"
    ) as bar:
        doc = dctcp_network_report(
            topo,
            flows=flows,
            link=link,
            K=marking_threshold,
            duration=T,
            traffic=traffic,
            seed=seed,
            packet=packet,
            perturb=perturb,
            progress=lambda d, t: bar(d * 1e6, t * 1e6),
        )
    if "perturb" in doc:
        echo_inputs({"perturb": doc["perturb"]})  # the JSON's inputs show the start's asymmetry as defaulted
    if json:
        emit_json(doc)
        return
    from rich.console import Console

    Console().print(fabric_table(doc) if topo.kind == "leaf-spine" else chain_table(doc))


def chain_table(doc: dict[str, Any]) -> Any:
    """The human form of a chain's document: each quantity per link (queue, utilization) or per group (share)."""
    from rich.table import Table

    packet = "packet" in doc
    t = Table(
        title=f"DCTCP network fluid model on {doc['topology']}, {doc['flows_per_group']} flow(s) per group"
    )
    t.add_column("quantity")
    t.add_column("fluid DDE")
    if packet:
        t.add_column("packet")
    for key in ("queue_mean", "utilization", "group_share"):
        row = [key, _values(doc["fluid"][key])]
        if packet:
            row.append(_values(doc["packet"][key]))
        t.add_row(*row)
    for m, v in doc.get("fixed_point", {}).items():
        t.add_row(f"fixed point ({m}): long group share", _num(v["long_share"]), *([""] if packet else []))
    return t


def fabric_table(doc: dict[str, Any]) -> Any:
    """The human form of a leaf-spine document: each route's per-flow share in the DDE, at the mean-field fixed
    point and (with --packet) in the packet fabric."""
    from rich.table import Table

    packet = "packet" in doc
    t = Table(
        title=f"DCTCP network model on {doc['topology']}, {doc['traffic']}, {doc['flows_per_pair']} flow(s) per "
        f"leaf pair, seed {doc['seed']}"
    )
    for col in (
        "route",
        "flows",
        "fluid DDE share",
        "mean-field share",
        *(["packet share"] if packet else []),
    ):
        t.add_column(col)
    for g, r in enumerate(doc["routes"]):
        row = [" ".join(r), str(doc["flows_per_group"][g])]
        row += [_num(doc["fluid"]["flow_share"][g], ".4f"), _num(doc["mean_field"]["flow_share"][g], ".4f")]
        if packet:
            row.append(_num(doc["packet"]["flow_share"][g], ".4f"))
        t.add_row(*row)
    return t


def _num(x: float | None, spec: str = ".4g") -> str:
    return "n/a" if x is None else format(x, spec)


def _values(xs: list[float | None]) -> str:
    return ", ".join(_num(v) for v in xs)
