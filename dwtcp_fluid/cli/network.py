"""``dwtcp-fluid dctcp network``: the DCTCP network fluid model on a chain topology, optionally against the packet
core (``--packet``)."""

from __future__ import annotations

from typing import Any

import typer

from ..params import DEFAULT_CAPACITY, DEFAULT_RTT
from .app import dctcp_app
from .common import UsageError, echo_inputs, emit_json, link_from_flags

__all__ = ["network"]


@dctcp_app.command("network")
def network(
    topology: str = typer.Option(
        "parking-lot:2", "--topology", help="path:K | parking-lot:K (K hops) | leaf-spine:LxS (ECMP fabric)."
    ),
    flows: int = typer.Option(
        1, "--flows", help="Flows per group (1..256); leaf-spine: flows per talking leaf pair (1..64)."
    ),
    traffic: str = typer.Option(
        "all-to-all", "--traffic", help="Leaf-spine only: all-to-all | permutation (a seeded one)."
    ),
    seed: int = typer.Option(1, "--seed", help="Leaf-spine only: seed of the permutation and the ECMP hash."),
    capacity: str = typer.Option(DEFAULT_CAPACITY, "--capacity", help='Rate of every link ("10Gbps").'),
    rtt: str = typer.Option(DEFAULT_RTT, "--rtt", help='Base RTT of every flow ("100us").'),
    marking_threshold: float = typer.Option(65.0, "--marking-threshold", help="K of every link, packets."),
    duration: str = typer.Option("100ms", "--duration", help='Fluid (and packet) run length ("100ms").'),
    perturb: float | None = typer.Option(
        None,
        "--perturb",
        help="Chains: packets added to the first link's starting queue, in [0, 1]; 0 starts exactly symmetric, "
        "where the fluid hops stay synchronized (proofs/multihop.md). Default 1e-3.",
    ),
    packet: bool = typer.Option(False, "--packet", help="Also run the packet chain and compare."),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """DCTCP over several bottlenecks ([DCTCP-A] (5)-(8) per link): fixed points, a reference-solver run, and
    with --packet the packet chain (or fabric) at the same setting. On leaf-spine:LxS the routing (ports as links)
    is the fabric's ECMP routing of the traffic pattern; the table gives each route's share in the DDE, at the
    mean-field fixed point with line-rate access links, and in the packet fabric."""
    import numpy as np

    from ..analysis.multihop import parking_lot_fixed_point
    from ..analysis.multihop_dde import START_ASYMMETRY, start_queues
    from ..dde import solve
    from ..dde.summary import time_mean
    from ..models.dctcp_network import DctcpNetwork, NetworkParams
    from ..packet.topology import TOPOLOGY_FORMS, parse_topology
    from ..units import parse_time

    try:
        topo = parse_topology(topology)
    except ValueError:
        raise UsageError("--topology", topology, TOPOLOGY_FORMS) from None
    if topo.kind == "single":
        raise UsageError(
            "--topology", topology, "path:K, parking-lot:K or leaf-spine:LxS (one link: dctcp limit-cycle)"
        )
    if not 1 <= flows <= 256:
        raise UsageError("--flows", flows, "an integer in [1, 256]")
    if not marking_threshold >= 0:
        raise UsageError("--marking-threshold", marking_threshold, "packets >= 0")
    link = link_from_flags(capacity, rtt)
    try:
        T = parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, 'a time such as "100ms"') from None
    if not 20 * link.d <= T <= 10.0:
        raise UsageError("--duration", duration, "between 20 base RTTs and 10 s")
    if perturb is not None and not (topo.kind != "leaf-spine" and 0.0 <= perturb <= 1.0):
        raise UsageError("--perturb", perturb, "packets in [0, 1], on path:K or parking-lot:K")
    if topo.kind == "leaf-spine":
        from .network_fabric import network_fabric

        network_fabric(topo, link, flows, marking_threshold, T, traffic, seed, packet, json)
        return
    C, K, d = link.C, marking_threshold, link.d
    model = DctcpNetwork(topo.routes)
    P = NetworkParams(topo.routes, capacity=capacity, K=K, rtt=rtt, flows=flows)
    p = model.numeric_params(P)
    out: dict[str, Any] = {
        "topology": topo.name,
        "flows_per_group": flows,
        "K": K,
        "capacity_pps": C,
        "rtt_s": d,
    }
    hist_W = [5.0] * model.groups
    if topo.kind == "parking-lot":
        fps = {
            m: parking_lot_fixed_point(topo.hops, C, K, d, flows, flows, marks=m)
            for m in ("independent", "synchronized")
        }
        out["fixed_point"] = {
            m: {"p": f.p, "long_share": flows * f.x_long / C, "W_long": f.W_long, "W_cross": f.W_cross}
            for m, f in fps.items()
        }
        f = fps["independent"]
        hist_W = [f.W_long] + [f.W_cross] * topo.hops
    eps = START_ASYMMETRY if perturb is None else perturb
    out["perturb"] = eps
    echo_inputs({"perturb": eps})
    hist = tuple(hist_W) + (0.5,) * model.groups + start_queues(K, model.links, eps)
    sol = solve(model, P, hist, (0.0, T))
    ts = np.linspace(T / 2, T, 10001)
    obs = model.observables(tuple(sol(ts, 0).T), p, np)
    out["fluid"] = {
        "status": sol.describe(),
        "queue_mean": [time_mean(ts, obs[f"queue_{l + 1}"]) for l in range(model.links)],
        "utilization": [time_mean(ts, obs[f"utilization_{l + 1}"]) for l in range(model.links)],
        "group_share": [flows * time_mean(ts, obs[f"rate_{i + 1}"]) / C for i in range(model.groups)],
    }
    if packet:
        from ..packet.multihop_run import run_topology

        s = run_topology(topo, "dctcp", link=link, flows=flows, K=K, duration=T)
        out["packet"] = {
            "queue_mean": s.queue_mean.tolist(),
            "utilization": s.utilization.tolist(),
            "group_share": (s.group_share * np.array(s.flows_per_group)).tolist(),
        }
    if json:
        emit_json(out)
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"DCTCP network fluid model on {topo.name}, {flows} flow(s) per group")
    t.add_column("quantity")
    t.add_column("fluid DDE")
    if packet:
        t.add_column("packet")
    for key in ("queue_mean", "utilization", "group_share"):
        row = [key, ", ".join(f"{v:.4g}" for v in out["fluid"][key])]
        if packet:
            row.append(", ".join(f"{v:.4g}" for v in out["packet"][key]))
        t.add_row(*row)
    for m, v in out.get("fixed_point", {}).items():
        t.add_row(f"fixed point ({m}): long group share", f"{v['long_share']:.4g}", *([""] if packet else []))
    Console().print(t)
