"""Benchmark: the sweep's packet pass (packet-level DWTCP at every (β, BDP, N) point), cost per point and per N.

Runs :func:`dwtcp_fluid.sweep.outcomes_packet.packet_outcomes` on the default grid (β = 0.001, BDP 10…10,000
packets × 25 log points, N ∈ {1, 2, 5, …, 1000}) or on the N given with ``--flows``, in a new process (compiles
come from the persistent cache when it holds them), and prints per N: points, engine calls (one per N and round),
flows × slots simulated, seconds and nanoseconds per slot; then the wall time, the load average before and after,
and what an engine must sustain to run the same pass in a given budget. Prints a table and one JSON line.

Cold with an empty compile cache: ``DWTCP_FLUID_CACHE_DIR=$(mktemp -d) .venv/bin/python benchmarks/packet_pass.py``.

Run: ``.venv/bin/python benchmarks/packet_pass.py [--flows 1,10,100] [--budget 60]``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from dwtcp_fluid.judge.classes import PacketClass  # noqa: E402
from dwtcp_fluid.sweep import SweepGrid  # noqa: E402
from dwtcp_fluid.sweep.outcomes_packet import packet_outcomes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--flows", default=None, help="comma-separated N (default: the sweep's ten)")
    ap.add_argument(
        "--budget", type=float, default=60.0, help="seconds the pass should take (for the v2 target)"
    )
    a = ap.parse_args()
    g = SweepGrid() if a.flows is None else SweepGrid(flows=[int(x) for x in a.flows.split(",")])
    bdp, flows = (x.ravel() for x in np.meshgrid(g.bdp, g.flows, indexing="ij"))
    load0 = os.getloadavg()[0]
    rep: dict = {}
    t0 = time.perf_counter()
    o = packet_outcomes(np.full(bdp.size, g.beta[0]), bdp, flows, capacity_pps=g.C, report=rep)
    wall = time.perf_counter() - t0
    load1 = os.getloadavg()[0]
    per: dict[int, dict] = collections.defaultdict(lambda: collections.Counter())
    for b in rep["batches"]:
        d = per[b["flows"]]
        d["points"] += b["points"]
        d["batches"] += 1
        d["flow_slots"] += b["flow_slots"]
        d["seconds"] += b["seconds"]
        d["slots"] += b["slots"]
    print(f"{'N':>6}{'points':>8}{'calls':>7}{'flow-slots':>13}{'seconds':>9}{'ns/slot':>9}")
    for n in sorted(per):
        d = per[n]
        print(
            f"{n:>6}{d['points']:>8}{d['batches']:>7}{d['flow_slots']:>13.3g}{d['seconds']:>9.1f}"
            f"{d['seconds'] / d['slots'] * 1e9:>9.0f}"
        )
    flow_slots = int(sum(b["flow_slots"] for b in rep["batches"]))
    slots = float(sum(b["slots"] for b in rep["batches"]))
    own = int(o["packet_flow_slots"].sum())
    counts = {c.label: int((o["packet_class"] == int(c)).sum()) for c in PacketClass}
    print(
        f"wall {wall:.1f} s (load average {load0:.1f} before, {load1:.1f} after; compile cache "
        f"{os.environ.get('DWTCP_FLUID_CACHE_DIR', 'default')}); {len(rep['batches'])} engine calls; "
        f"{flow_slots:.3g} flow-slots simulated ({own:.3g} in the points' final runs), "
        f"{slots:.3g} scenario-slots; classes {counts}"
    )
    print(
        f"to run this pass in {a.budget:.0f} s an engine must sustain {flow_slots / a.budget:.3g} flow-slots/s "
        f"({slots / a.budget:.3g} scenario-slots/s) including its compilations"
    )
    out = {
        "benchmark": "packet_pass",
        "wall_s": round(wall, 2),
        "load_before": load0,
        "load_after": load1,
        "batches": len(rep["batches"]),
        "flow_slots": flow_slots,
        "flow_slots_needed": own,
        "scenario_slots": slots,
        "second_round_points": rep["second_round_points"],
        "classes": counts,
        "per_flows": {str(n): {k: float(v) for k, v in d.items()} for n, d in sorted(per.items())},
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
