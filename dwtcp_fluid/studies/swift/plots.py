"""Swift's claims figure (drawing only): queue against its target, the groups' windows, stability by β."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_swift_claims(data: dict[str, Any]) -> Any:
    """Three panels over the cross-check's settings: mean queue (packet, fluid, fixed point q*); each group's
    window against w*; utilization and queue swing of both cores, marked by the linear verdict."""
    import matplotlib.pyplot as plt

    rows = data["rows"]
    names = [r["setting"] for r in rows]
    x = np.arange(len(rows))
    fig, (aq, aw, au) = plt.subplots(1, 3, figsize=(15, 3.8))
    aq.bar(x - 0.27, [r["packet"]["queue_mean"] for r in rows], 0.26, color="C0", label="packet core")
    aq.bar(x, [r["fluid"]["queue_mean"] for r in rows], 0.26, color="C1", label="fluid model")
    aq.bar(x + 0.27, [r["q_star"] for r in rows], 0.26, color="0.6", label="fixed point q*")
    aq.set_ylabel("mean queue [packets]")
    aq.set_title("the queue sits at its target")
    aq.set_yscale("log")
    for j, (key, marker) in enumerate((("w_1", "o"), ("w_2", "s"))):
        aw.plot(x, [r["packet"][key] / r["w_star"] for r in rows], marker, color="C0", ms=5,
                label=f"packet, group {j + 1} (start {('small', 'large')[j]})")  # fmt: skip
        aw.plot(x, [r["fluid"][key] / r["w_star"] for r in rows], marker, color="C1", ms=5, mfc="none",
                label=f"fluid, group {j + 1}")  # fmt: skip
    aw.axhline(1.0, color="0.4", ls="--", lw=0.8)
    aw.set_ylabel("window / w*")
    aw.set_title("both groups reach the fair window")
    for side, color in (("packet", "C0"), ("fluid", "C1")):
        au.plot(
            x, [100 * r[side]["utilization"] for r in rows], "o-", color=color, label=f"{side}: utilization"
        )
    au.set_ylabel("utilization [%]")
    au.set_title("stable (β < β_c) vs oscillating (β > β_c)")
    for i, r in enumerate(rows):
        au.annotate(r["class"], (i, 100 * r["packet"]["utilization"]), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=7)  # fmt: skip
    for ax in (aq, aw, au):
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=7)
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
