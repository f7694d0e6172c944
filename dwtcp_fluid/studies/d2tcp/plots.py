"""D2TCP: cycle swing and Floquet multiplier against d, completion times against deadlines (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_d2tcp(data: dict[str, Any]) -> Any:
    """Three panels: fluid queue range and ρ against d (packet ranges at d = 0.5, 1, 2, N = 10); the scaled
    microbenchmark's completion times; deadlines met per seed of the mixed workload."""
    import matplotlib.pyplot as plt

    from ...plots.style import apply_style

    apply_style()
    fig, ax = plt.subplots(1, 3, figsize=(13, 4))
    a = ax[0]
    for i, (n, rows) in enumerate(sorted(data["cycles"].items())):
        d = [r["dimm"] for r in rows]
        a.fill_between(d, [r["q_min"] for r in rows], [r["q_max"] for r in rows], alpha=0.25, color=f"C{i}")
        a.plot(d, [r["q_min"] for r in rows], color=f"C{i}", lw=1, label=f"fluid N = {n}")
        a.plot(d, [r["q_max"] for r in rows], color=f"C{i}", lw=1)
    pk = data["packet_fixed"]
    ds = sorted(pk)
    a.errorbar(ds, [(pk[x]["q_min"] + pk[x]["q_max"]) / 2 for x in ds],
               yerr=[(pk[x]["q_max"] - pk[x]["q_min"]) / 2 for x in ds], fmt="ks", capsize=4,
               label="packet N = 10 (p5 min – p95 max)")  # fmt: skip
    a.set_xlabel("deadline imminence d")
    a.set_ylabel("queue range over the cycle (pkt)")
    a.legend(fontsize=7)
    b = a.twinx()
    for i, (_, rows) in enumerate(sorted(data["cycles"].items())):
        b.plot([r["dimm"] for r in rows], [r["rho"] for r in rows], ls="--", color=f"C{i}", lw=0.8)
    b.set_ylabel("Floquet multiplier ρ (dashed)")
    a.set_title("fluid cycle against d")
    a = ax[1]
    x = np.arange(4)
    for j, law in enumerate(("dctcp", "d2tcp")):
        f = [v * 1e3 if v is not None else np.nan for v in data["micro"][law]["fct_s"]]
        a.bar(x + (j - 0.5) * 0.4, f, 0.4, label=law.upper())
    a.scatter(x, np.asarray(data["micro_deadlines_s"]) * 1e3, marker="_", s=400, color="k", label="deadline")
    a.set_xticks(x, [f"flow {i}" for i in x])
    a.set_ylabel("completion time (ms)")
    a.legend(fontsize=7)
    a.set_title("[D2TCP] §4.1.2 scaled to 10 Gbps")
    a = ax[2]
    s = np.arange(len(data["mixed_met"]["dctcp"]))
    a.plot(s, data["mixed_met"]["dctcp"], "o-", label="DCTCP")
    a.plot(s, data["mixed_met"]["d2tcp"], "s-", label="D2TCP")
    a.set_xlabel("seed")
    a.set_ylabel("fraction of deadlines met")
    a.set_ylim(0, 1)
    a.legend(fontsize=7)
    a.set_title("16 deadline flows + 2 long flows")
    fig.tight_layout()
    return fig
