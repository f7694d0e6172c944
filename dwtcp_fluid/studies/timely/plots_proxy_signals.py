"""[PROXY]'s hop signals: the skinny path's primary flow and the leaf-spine FCT per signal (drawing only)."""

from __future__ import annotations

from typing import Any

__all__ = ["plot_proxy"]


def plot_proxy(data: dict[str, Any]) -> Any:
    """Left: primary flow's share of its fair share (bars) and path RTT (dots) per signal on the skinny path.
    Right: mean FCT slowdown of small (≤ 100 KB) and larger web-search flows per signal on leaf-spine:4x2 (means
    over the seeds), with each seed's mean slowdown over the flows every signal finished as dots."""
    import matplotlib.pyplot as plt
    import numpy as np

    from ...plots.style import apply_style

    apply_style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
    n = data["noisy"]
    names = list(n)
    x = np.arange(len(names))
    a.bar(x, [n[s]["primary_over_fair"] for s in names], color="C0")
    a.set_xticks(x, names)
    a.set_ylabel("primary flow / max-min fair share")
    a2 = a.twinx()
    a2.plot(x, [n[s]["primary_rtt_us"] for s in names], "ko")
    a2.set_ylabel("primary path RTT (µs)")
    a2.set_ylim(0, 1.15 * max(n[s]["primary_rtt_us"] for s in names))
    a.set_title("skinny path, noisy non-bottleneck queues, 20 µs")
    f = data["fct"]
    sm, w = f["summary"], 0.38
    b.bar(x - w / 2, [sm[s]["slowdown_small"] for s in names], w, color="C0", label="≤ 100 KB (seed mean)")
    b.bar(x + w / 2, [sm[s]["slowdown_large"] for s in names], w, color="C1", label="> 100 KB (seed mean)")
    for seed in f["seeds"]:  # each seed's mean slowdown over the flows every signal finished
        b.plot(x, [f["per_seed"][seed][s]["slowdown_common"] for s in names], "k.", ms=5)
    b.plot([], [], "k.", label="flows all signals finished, one seed")
    b.set_xticks(x, names)
    b.set_ylabel("mean FCT slowdown")
    b.set_title(f"leaf-spine:4x2, web-search at {f['load']:.0%} + 12 elephants, {len(f['seeds'])} seeds")
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig
