"""The hops × cross-flow load sweep: the long flow's share, fluid next to packet (drawing only)."""

from __future__ import annotations

from typing import Any

__all__ = ["plot_network_sweep"]


def plot_network_sweep(data: dict[str, Any]) -> Any:
    """Long flow's share of C vs hops, one panel per cross-flow load: packet chain, fluid network model
    (desynchronized start), and the mean-field and synchronized fixed points; agreement marked per point."""
    import matplotlib.pyplot as plt

    from ...plots.style import apply_style

    apply_style()
    loads, hops = data["load"], data["hops"]
    fig, axes = plt.subplots(1, len(loads), figsize=(4.2 * len(loads), 3.6), squeeze=False, sharey=True)
    for j, (n, ax) in enumerate(zip(loads, axes[0], strict=True)):

        def col(name: str, j: int = j) -> list[float]:
            return [row[j] for row in data[name]]

        ax.semilogy(hops, col("packet_long_share"), "o-", color="C0", label="packet chain")
        ax.semilogy(
            hops, col("fluid_long_share"), "x-", ms=9, color="C3", label="fluid model (per-group delays)"
        )
        ax.semilogy(
            hops, col("mean_field_long_share"), "s--", color="k", label="fixed point, independent hops"
        )
        ax.semilogy(
            hops, col("synchronized_long_share"), "^:", color="0.5", label="fixed point, synchronized"
        )
        for k, a in zip(hops, col("agreement"), strict=True):
            y = col("fluid_long_share")[hops.index(k)]
            ax.annotate(a.replace("_", " "), (k, y), textcoords="offset points", xytext=(6, 6), fontsize=7)
        ax.set_xticks(hops)
        ax.set_xlim(min(hops) - 0.3, max(hops) + 0.6)  # room for the agreement labels
        ax.set_xlabel("hops k crossed by the long flow")
        ax.set_title(f"{n} cross flow(s) per hop")
        if j == 0:
            ax.set_ylabel("long flow's share of the link")
            ax.legend(fontsize=7)
    fig.suptitle("DCTCP parking lot, 10 Gbps, 100 µs, K = 65: fluid vs packet over hops × load", fontsize=10)
    fig.tight_layout()
    return fig
