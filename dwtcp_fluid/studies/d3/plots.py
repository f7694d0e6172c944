"""D3 vs D2TCP vs DCTCP at [D2TCP]'s deadline workloads (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np

COLORS = {"dctcp": "C2", "d2tcp": "C0", "d3": "C3"}


def plot_d3_deadlines(data: dict[str, Any]) -> Any:
    """Two panels: deadlines met per seed of the mixed workload (and the microbenchmark), mean queue per law."""
    import matplotlib.pyplot as plt

    laws, seeds = data["laws"], np.asarray(data["seeds"])
    fig, (am, aq) = plt.subplots(1, 2, figsize=(11, 3.6))
    w = 0.8 / len(laws)
    for j, law in enumerate(laws):
        am.bar(seeds + (j - (len(laws) - 1) / 2) * w, data["mixed_met"][law], w, color=COLORS[law],
               label=f"{law} (microbenchmark: {data['micro_met'][law]:.2f})")  # fmt: skip
    am.set_xlabel("seed of the mixed workload")
    am.set_ylabel("fraction of deadlines met")
    am.set_ylim(0, 1.05)
    am.set_title("16 deadline flows + 2 long flows")
    am.legend(fontsize=7, loc="lower left")
    aq.bar(range(len(laws)), [float(np.mean(data["mixed_queue"][law])) for law in laws],
           color=[COLORS[law] for law in laws])  # fmt: skip
    aq.set_xticks(range(len(laws)))
    aq.set_xticklabels(laws)
    aq.set_ylabel("mean queue [packets]")
    aq.set_title("queue (mixed workload, mean over seeds)")
    fig.tight_layout()
    return fig
