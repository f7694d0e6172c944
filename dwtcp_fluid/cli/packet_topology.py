"""``packet run --topology path:K | parking-lot:K | leaf-spine:LxS``: the multi-port core from the command line.

Called by ``packet run`` after it has validated the common flags; the single bottleneck (``--topology single``,
the default) never comes here, so its runs are unchanged.
"""

from __future__ import annotations

from typing import Any

from .common import UsageError, emit_json

__all__ = ["run_chain_cli"]

#: Single-bottleneck features the chain engine does not model, with their neutral values.
_SINGLE_ONLY = {"mark_at": "enqueue", "jitter": 0.0, "loss": 0.0, "delack": 1, "rtt_noise": 0.0, "plot": None}


def run_chain_cli(
    kw: dict[str, Any],
    topo: Any,
    link: Any,
    laws: list,
    params: list,
    times: dict,
    law_values: dict[str, Any] | None = None,
) -> None:
    """Run the chain, print its per-hop and per-group summary (or one JSON object, which echoes
    ``law_values``: the law's flags as given or defaulted, e.g. ``signal``)."""
    from rich.console import Console
    from rich.table import Table

    from ..packet.multihop_run import run_topology

    if kw["traffic"] not in ("all-to-all", "permutation"):
        raise UsageError("--traffic", kw["traffic"], "all-to-all | permutation")
    if kw["traffic"] != "all-to-all" and topo.kind != "leaf-spine":
        raise UsageError("--traffic", kw["traffic"], "all-to-all (the only value off leaf-spine)")
    if topo.kind == "leaf-spine" and not 1 <= kw["flows"] <= 64:
        raise UsageError("--flows", kw["flows"], "an integer in [1, 64] (flows per leaf pair)")
    if len(laws) != 1:
        raise UsageError("--law", kw["law"], "one law on a multi-hop topology")
    for key, neutral in _SINGLE_ONLY.items():
        v = times.get(key, kw[key])
        if v != neutral:
            flag = "--" + key.replace("_", "-")
            raise UsageError(flag, kw[key], f"{neutral!r} (the only value with --topology {topo.name})")
    s = run_topology(
        topo,
        laws[0],
        link=link,
        flows=kw["flows"],
        K=kw["marking_threshold"],
        duration=times["duration"],
        buffer=kw["buffer"],
        mark_cmp=kw["mark_cmp"],
        seed=kw["seed"],
        law_params=params[0],
        traffic=kw["traffic"],
    )
    out = {
        "topology": s.topology,
        "law": s.law,
        "flows_per_group": list(s.flows_per_group),
        "queue_mean": s.queue_mean.tolist(),
        "utilization": s.utilization.tolist(),
        "group_share": s.group_share.tolist(),
        "cwnd_mean": s.cwnd_mean.tolist(),
        "marks": s.marks,
        "drops": s.drops,
        "seed": kw["seed"],
        "marking_threshold": kw["marking_threshold"],
        "slot_s": s.slot_s,
        "capacity_pps": link.C,
        "rtt_s": link.d,
        "ports": [topo_port(s, h) for h in range(len(s.queue_mean))],
        "routes": [list(r) for r in s.routes],
        **(law_values or {}),
    }
    if s.traffic is not None:
        out["traffic"] = kw["traffic"]
        out["flow_src_dst_spine"] = [
            [int(a), int(b), int(c)]
            for a, b, c in zip(s.traffic.src, s.traffic.dst, s.traffic.spine, strict=True)
        ]
        out["flow_share"] = s.throughput_share.tolist()
    if kw["json"]:
        emit_json(out)
        return
    t = Table(title=f"packet core: {s.law} on {s.topology}, {kw['flows']} flow(s) per group")
    t.add_column("port")
    t.add_column("queue mean (packets)")
    t.add_column("utilization")
    for h, (q, u) in enumerate(zip(s.queue_mean, s.utilization, strict=True)):
        t.add_row(topo_port(s, h), f"{q:.2f}", f"{u:.4f}")
    Console().print(t)
    g = Table(title="throughput share of the port rate, per flow, by group (route: ports crossed)")
    g.add_column("group")
    g.add_column("route")
    g.add_column("share")
    for i, v in enumerate(s.group_share):
        g.add_row(str(i), " ".join(topo_port(s, h) for h in s.routes[i]), f"{v:.4f}")
    Console().print(g)


def topo_port(s: Any, h: int) -> str:
    """Port ``h`` of the run's topology by name (``hop 2``, ``L0→S1``)."""
    from ..packet.topology import parse_topology

    return parse_topology(s.topology).port_name(h)
