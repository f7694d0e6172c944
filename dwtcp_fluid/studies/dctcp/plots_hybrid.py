"""The hybrid model of [DCTCP-A] section 4: convergence times and rates (drawing only)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure as MplFigure


def plot_hybrid(data: dict[str, Any]) -> MplFigure:
    f = data["fig12"]
    fig = MplFigure(figsize=(11.0, 3.6), layout="constrained")
    ax1, ax2, ax3 = fig.subplots(1, 3)
    rtt_ms = f["rtt_s"] * 1e3
    colors = ["#0072B2", "#D55E00", "#009E73", "#000000"]
    for i, lab in enumerate(f["labels"]):
        t = f["T"][i] * rtt_ms
        keep = t <= 300.0
        for j, ls in enumerate(("-", "--")):
            ax1.plot(
                t[keep], f["W"][i, keep, j], color=colors[i], ls=ls, lw=1.1, label=lab if j == 0 else None
            )
        if i < 3:
            ax2.plot(t[keep], f["alpha"][i, keep, 0], color=colors[i], ls="-", lw=1.1, label=lab)
            ax2.plot(t[keep], f["alpha"][i, keep, 1], color=colors[i], ls="--", lw=1.1)
            ax2.axhline(f["alpha_star"][i], color=colors[i], lw=0.6, ls=":")
        ax1.axvline(f["t_window_ms"][i], color=colors[i], lw=0.7, ls=":")
    ws = f["W_star"]
    ax1.axhspan(0.9 * ws, 1.1 * ws, color="0.85", zorder=0)
    ax1.set(
        xlabel="time (ms, 1 RTT = R*)",
        ylabel="W_i(T_k) (packets)",
        title="Fig. 12 in the hybrid model (19)-(21)",
    )
    ax1.legend(loc="upper right", fontsize=6.5)
    ax2.set(xlabel="time (ms)", ylabel="α_i(T_k)", title="α_i (solid: flow 1, dashed: flow 2; dotted: α*)")
    ax2.legend(loc="upper right", fontsize=6.5)
    w = data["wstar"]
    ax3.plot(w, data["ratio_g0"], label="exact β_TCP/γ, α* at g → 0")
    ax3.plot(w, data["ratio_gtop"], label="exact β_TCP/min(g, γ), g = 1/sqrt(2W*)")
    ax3.axhline(data["asymptotic"], color="0.3", ls="--", label="asymptotic 2 ln 2 (paper)")
    ax3.axhline(1.4, color="0.6", ls=":", label="paper's bound 1.4")
    ax3.set(
        xscale="log",
        xlabel="W* (packets)",
        ylabel="β_TCP / β_DCTCP",
        title="Convergence-rate ratio (25)/(26)",
    )
    ax3.legend(loc="upper right", fontsize=6.5)
    return fig
