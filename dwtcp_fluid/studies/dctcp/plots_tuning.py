"""Differentiable tuning of DCTCP (drawing only): the objective landscape over (K, g), the gradient path, the grid
optimum and the [DCTCP-A] guideline box."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Rectangle


def plot_tuning(data: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(7.2, 4.6), layout="constrained")
    ax = fig.subplots()
    G = data["grid"]
    K, g, L = G["K_grid"], G["g_grid"], G["landscape"]
    pc = ax.pcolormesh(K, g, L, shading="nearest", cmap="viridis")
    fig.colorbar(pc, ax=ax, label=data["objective_description"])
    # infeasible grid points (throughput < 99 % or ρ > 0.9 somewhere in the range)
    bad = ~G["feasible"]
    ax.plot(K[bad], g[bad], "x", color="white", ms=4, mew=0.8, label="grid point violates a constraint")
    path = data["path"]
    ax.plot(
        path[:, 0], path[:, 1], "o-", color="#D55E00", ms=3.5, lw=1.2, label="SLSQP path (implicit gradients)"
    )
    ax.plot(path[-1, 0], path[-1, 1], "*", color="#D55E00", ms=14, mec="k", label="gradient optimum")
    ax.plot(G["K"], G["g"], "s", mfc="none", mec="white", ms=11, mew=1.6, label="grid optimum")
    gl = data["guideline_box"]
    ax.add_patch(
        Rectangle(
            (gl["K_lo"], gl["g_lo"]), gl["K_hi"] - gl["K_lo"], gl["g_hi"] - gl["g_lo"], fill=False, ec="#CC79A7",
            lw=1.5, ls="--", label="[DCTCP-A] guideline K = 0.17·C·d, 5/(C·d+K) ≤ g ≤ 1/√(C·d+K)",
        )
    )  # fmt: skip
    ax.set(
        xlabel="K (packets)", ylabel="g", yscale="log",
        title=f"tune dctcp: {data['label']}",
        xlim=(float(np.min(K)), float(np.max(K))), ylim=(float(np.min(g)), float(np.max(g))),
    )  # fmt: skip
    ax.legend(loc="upper right", fontsize=6.5, framealpha=0.85)
    return fig


def plot_tuning_dwtcp(data: dict[str, Any]) -> MplFigure:
    """DWTCP: the worst-case objective over (β, K) (infeasible grid points crossed), the compass-search path, the
    grid optimum and the [DWTCP] guideline band of β."""
    fig = MplFigure(figsize=(7.2, 4.6), layout="constrained")
    ax = fig.subplots()
    G = data["grid"]
    B, K, L = G["beta_grid"], G["K_grid"], G["landscape"]
    pc = ax.pcolormesh(B, K, L, shading="nearest", cmap="viridis", norm="log")
    fig.colorbar(pc, ax=ax, label="worst-case mean queue over the range (packets)")
    bad = ~G["feasible"]
    ax.plot(B[bad], K[bad], "x", color="white", ms=3, mew=0.6, label="grid point violates a constraint")
    lo, hi = data["guideline"]
    ax.axvspan(lo, hi, fc="none", ec="#CC79A7", hatch="//", lw=1.2, zorder=3,
               label="[DWTCP] guideline β ≈ 1/(2·√(BDP/N)) at the corners")  # fmt: skip
    path = data["path"]
    ax.plot(path[:, 0], path[:, 1], "o-", color="#D55E00", ms=3.5, lw=1.2, label="compass-search path")
    ax.plot(path[-1, 0], path[-1, 1], "*", color="#D55E00", ms=14, mec="k", label="search optimum")
    ax.plot(G["beta"], G["K"], "s", mfc="none", mec="white", ms=11, mew=1.6, label="grid optimum")
    ax.set(
        xlabel="β (byte convention)", ylabel="K (packets)", xscale="log", yscale="log",
        title=f"tune dwtcp: {data['label']}",
        xlim=(float(np.min(B)), float(np.max(B))), ylim=(float(np.min(K)), float(np.max(K))),
    )  # fmt: skip
    ax.legend(loc="lower left", fontsize=6.5, framealpha=0.85)
    return fig
