"""``packet run --topology path:K | parking-lot:K``: the multi-hop chain from the command line.

Called by ``packet run`` after it has validated the common flags; the single bottleneck (``--topology single``,
the default) never comes here, so its runs are unchanged.
"""

from __future__ import annotations

from typing import Any

from .common import UsageError, emit_json

__all__ = ["run_chain_cli"]

#: Single-bottleneck features the chain engine does not model, with their neutral values.
_SINGLE_ONLY = {"mark_at": "enqueue", "jitter": 0.0, "loss": 0.0, "delack": 1, "rtt_noise": 0.0, "plot": None}


def run_chain_cli(kw: dict[str, Any], topo: Any, link: Any, laws: list, params: list, times: dict) -> None:
    """Run the chain, print its per-hop and per-group summary (or one JSON object)."""
    from rich.console import Console
    from rich.table import Table

    from ..packet.multihop_run import run_topology

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
    }
    if kw["json"]:
        emit_json(out)
        return
    t = Table(title=f"packet core: {s.law} on {s.topology}, {kw['flows']} flow(s) per group")
    t.add_column("hop")
    t.add_column("queue mean (packets)")
    t.add_column("utilization")
    for h, (q, u) in enumerate(zip(s.queue_mean, s.utilization, strict=True)):
        t.add_row(str(h), f"{q:.2f}", f"{u:.4f}")
    Console().print(t)
    g = Table(title="throughput share of the port rate, per flow, by group (group 0 crosses the most hops)")
    g.add_column("group")
    g.add_column("share")
    for i, v in enumerate(s.group_share):
        g.add_row(str(i), f"{v:.4f}")
    Console().print(g)
