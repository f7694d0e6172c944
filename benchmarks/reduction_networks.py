"""Benchmark: the network cross-checks under each sender rule — leaf-spine and the parking-lot sweep's points.

The leaf-spine cross-check (:func:`~dwtcp_fluid.studies.networks.checks_leafspine.compare_fabric`, its scored
``SETTINGS`` and, with ``--multi``, the ``MULTI_BOTTLENECK`` all-to-all settings) and the network sweep's figure grid
(:data:`~dwtcp_fluid.studies.networks.figures_sweep.FIGURE_GRID`: parking lots, the fluid network model against
the packet chain by :func:`~dwtcp_fluid.studies.networks.checks_sweep.agreement`) run their packet side with the
one-step cut the fluid models describe (``FLUID_REDUCTION``). This script runs each packet side again under
every rule of ``--reductions`` (default: that cut and the laws' default, Linux's PRR) against the same fluid
side, and prints per setting the packet run's class, the scored errors and the verdict.

Run: ``.venv/bin/python benchmarks/reduction_networks.py [--reductions immediate,prr] [--multi] [--json out.json]``.
Cost: two leaf-spine settings of 60 ms and four parking lots of 100 ms per rule, plus the fluid runs once
(minutes of CPU; ``--multi`` adds two 200 ms fabrics per rule).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def fail(msg: str) -> None:
    print(f"reduction_networks: {msg}", file=sys.stderr)
    raise SystemExit(2)


def leafspine(reduction: str, multi: bool) -> list[dict[str, Any]]:
    from dwtcp_fluid.studies.networks.checks_leafspine import MULTI_BOTTLENECK, SETTINGS, compare_fabric

    out = []
    for st in SETTINGS + (MULTI_BOTTLENECK if multi else ()):
        c = compare_fabric(dataclasses.replace(st, reduction=reduction))
        out.append(
            {
                "setting": st.name,
                "class": c.run_class,
                "passed": c.passed,
                "errors": {k: float(v) for k, v in c.errors.items()},
                "share_packet": [float(x) for x in c.share_packet],
                "share_mean_field": [float(x) for x in c.share_mf],
                "queue_packet": [float(x) for x in c.queue_packet],
            }
        )
    return out


def network_points(reductions: list[str]) -> list[dict[str, Any]]:
    import numpy as np

    from dwtcp_fluid.studies.networks.analysis_multihop_dde import fluid_lot_run
    from dwtcp_fluid.studies.networks.checks_multihop import compare_chain
    from dwtcp_fluid.studies.networks.checks_sweep import AGREEMENT, NetworkGrid, agreement
    from dwtcp_fluid.studies.networks.figures_sweep import FIGURE_GRID
    from dwtcp_fluid.units import parse_time

    grid = NetworkGrid(np.array(FIGURE_GRID["hops"]), np.array(FIGURE_GRID["load"]))
    out = []
    for ih in range(len(grid.hops)):
        for il in range(len(grid.load)):
            st = grid.setting(ih, il)
            fl = fluid_lot_run(
                st.hops,
                flows=st.flows,
                cross_flows=st.n_cross,
                K=st.K,
                capacity=st.capacity,
                rtt=st.rtt,
                rtt_long=st.rtt_long,
                duration=parse_time(st.duration),
            )
            row: dict[str, Any] = {"setting": st.name, "fluid_long_share": float(fl.long_share), "by": {}}
            for red in reductions:
                pk = compare_chain(dataclasses.replace(st, reduction=red))
                code, err = agreement(fl, pk, st.K)
                row["by"][red] = {
                    "class": pk.run_class,
                    "long_share": float(pk.long_share),
                    "cross_share": float(pk.cross_share),
                    "mean_field_long_share": float(pk.fluid_long_share),
                    "agreement": AGREEMENT[code],
                    "long_share_rel_error": None if err != err else float(err),
                }
            out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reductions", default="immediate,prr", help="comma-separated sender rules")
    ap.add_argument("--multi", action="store_true", help="also the all-to-all leaf-spine settings (200 ms)")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: leafspine, network")
    ap.add_argument("--json", default=None, help="write the results here")
    a = ap.parse_args(argv)
    from dwtcp_fluid.packet.laws.recovery import REDUCTIONS

    reds = [r.strip() for r in a.reductions.split(",") if r.strip()]
    for r in reds:
        if r not in REDUCTIONS:
            fail(f"--reductions has {r!r}: accepted {', '.join(REDUCTIONS)}")
    skip = {x.strip() for x in a.skip.split(",") if x.strip()}
    if not skip <= {"leafspine", "network"}:
        fail(f"--skip={a.skip!r}: accepted leafspine, network")
    t0 = time.perf_counter()
    res: dict[str, Any] = {"reductions": reds}
    if "leafspine" not in skip:
        res["leafspine"] = {r: leafspine(r, a.multi) for r in reds}
        for r in reds:
            for row in res["leafspine"][r]:
                e = row["errors"]
                print(
                    f"leaf-spine {r:<10}{row['setting']:<48}{row['class']:<16}queue {e.get('queue_over_K', 0):.3f}·K "
                    f"share {e.get('share_rel', 0):.3f}  {'pass' if row['passed'] else row['passed']}"
                )
    if "network" not in skip:
        res["network"] = network_points(reds)
        for row in res["network"]:
            for r, b in row["by"].items():
                err = b["long_share_rel_error"]
                print(
                    f"network    {r:<10}{row['setting']:<48}{b['class']:<16}long share {b['long_share']:.3f} "
                    f"(fluid {row['fluid_long_share']:.3f}, mean-field {b['mean_field_long_share']:.3f}) "
                    f"{b['agreement']}" + ("" if err is None else f" ({err:+.1%})")
                )
    print(f"{time.perf_counter() - t0:.0f} s wall")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
