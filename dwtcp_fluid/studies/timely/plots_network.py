"""The TIMELY family on a parking lot per hop signal: long-flow share and hop queue, fixed point vs fluid DDE vs
packet core (drawing only)."""

from __future__ import annotations

from typing import Any

__all__ = ["plot_timely_network"]


def plot_timely_network(data: dict[str, Any]) -> Any:
    """Left: the long flow's share of line rate per signal (log scale): Patched fixed point, fluid DDE, packet.
    Right: the mean queue of hop 1 (packets), same three."""
    import matplotlib.pyplot as plt
    import numpy as np

    from ...plots.style import apply_style

    apply_style()
    rows = data["rows"]
    names = [r["signal"].upper() for r in rows]
    x = np.arange(len(rows))
    w = 0.27
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
    for j, (key, label, color) in enumerate(
        (("fixed_point", "fixed point", "0.5"), ("fluid", "fluid DDE", "C0"), ("packet", "packet core", "C1"))
    ):
        a.bar(x + (j - 1) * w, [r[key]["share"][0] for r in rows], w, color=color, label=label)
        b.bar(x + (j - 1) * w, [r[key]["queue"][0] for r in rows], w, color=color, label=label)
    a.set_yscale("log")
    a.set_xticks(x, names)
    a.set_ylabel("long flow's share of line rate")
    a.set_title(f"Patched TIMELY, {data['topology']}, one flow per group")
    b.set_xticks(x, names)
    b.set_ylabel("hop 1 mean queue (packets)")
    b.set_title("queue (fluid vs packet tolerance ±6 packets)")
    a.legend(fontsize=7)
    fig.tight_layout()
    return fig
