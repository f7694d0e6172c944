"""DCTCP limit cycles, [DCTCP-A] Figs. 6-9, and RTT fairness (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure as MplFigure


def _log_edges(x: np.ndarray, lo: float | None = None) -> np.ndarray:
    """Cell edges around log-spaced centres (geometric midpoints); ``lo`` pins the first edge."""
    lx = np.log(np.asarray(x, dtype=float))
    mid = 0.5 * (lx[1:] + lx[:-1])
    edges = np.exp(np.concatenate([[2 * lx[0] - mid[0]], mid, [2 * lx[-1] - mid[-1]]]))
    if lo is not None:
        edges[0] = lo
    return edges


def plot_fig6(d: dict[str, Any]) -> MplFigure:
    """[DCTCP-A] Fig. 6: ρ of Theorem 1 over (g, w̄), panels (a) as the paper writes it, (b) from transition
    matrices, and their difference. Below w̄ = 2 there is no cycle (the fixed point is stable): drawn hatched grey,
    never as ρ = 0; the first row of cells (w̄ = 2.01) starts at w̄ = 2."""
    fig = MplFigure(figsize=(11.5, 3.9), layout="constrained")
    axes = fig.subplots(1, 3)
    w, g = np.asarray(d["wbar"]), np.asarray(d["g"])
    w_edges, g_edges = _log_edges(w, lo=2.0), _log_edges(g)
    diff = np.abs(d["rho_paper"] - d["rho_monodromy"])
    panels = [
        (d["rho_paper"], "(a) ρ(Z1·Z2) as written, exp(∫ J_F ds)", (0, 1)),
        (d["rho_monodromy"], "(b) ρ(Z1·Z2) from transition matrices Φ", (0, 1)),
        (np.log10(np.maximum(diff, 1e-16)), "log10 |ρ(a) − ρ(b)|", (-12, 0)),
    ]
    y_lo = 1.5
    for ax, (z, title, (lo, hi)) in zip(axes, panels, strict=True):
        m = ax.pcolormesh(g_edges, w_edges, z, vmin=lo, vmax=hi, rasterized=True)
        if hi == 1:
            ax.contour(g, w, z, levels=[0.5, 0.9], colors="w", linewidths=0.7)
        ax.axhspan(y_lo, 2.0, facecolor="0.85", edgecolor="0.6", hatch="///", lw=0)
        ax.text(
            np.sqrt(g_edges[0] * g_edges[-1]),
            np.sqrt(y_lo * 2.0),
            "w̄ < 2: no cycle",
            ha="center",
            va="center",
            fontsize=7,
        )
        ax.set(xscale="log", yscale="log", xlabel="EWMA gain g", ylabel="w̄ = C·R*/N (packets)", title=title)
        ax.set_ylim(y_lo, w_edges[-1])
        ax.set_xlim(g_edges[0], g_edges[-1])
        ax.grid(False)
        fig.colorbar(m, ax=ax)
    fig.suptitle(
        "DCTCP limit cycles are stable: spectral radius ρ of the Poincaré map < 1 ([DCTCP-A] Fig. 6, Theorem 1)\n"
        f"{len(w)}×{len(g)} grid; white contours ρ = 0.5, 0.9"
    )
    return fig


def plot_fig7(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    w = d["wbar"]
    sel = w <= 250.0
    for j, g in enumerate(d["g"]):
        (ln,) = ax.plot(w[sel], d["q_max"][sel, j], label=f"g = {g:g}")
        ax.plot(w[sel], d["q_min"][sel, j], color=ln.get_color())
    ax.axhline(0, color="0.4", lw=0.6)
    ax.axhline(-0.15, color="0.5", ls=":", lw=0.8, label="paper: Q_min ≈ −0.15")
    ax.axvspan(12, 16, color="0.9", zorder=0, label="paper: worst w̄ 12–16")
    ax.set(
        xlabel="w̄ (packets)",
        ylabel="Q_min, Q_max (fraction of C·R*)",
        title="Fig. 7: queue undershoot and overshoot",
    )
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_fig8(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    w = d["wbar"]
    for j, g in enumerate(d["g"]):
        b, a = d["fit"][float(g)]
        (ln,) = ax.plot(w, d["period"][:, j], label=f"g = {g:g}: fit ∝ w̄^{b:.2f}")
        ax.plot(w, np.exp(a) * w**b, color=ln.get_color(), ls=":", lw=0.8)
    j0 = 0
    sel = w >= 10
    c = np.exp(np.mean(np.log(d["period"][sel, j0]) - 0.5 * np.log(w[sel])))
    ax.plot(
        w,
        c * np.sqrt(w),
        color="k",
        ls="--",
        lw=0.9,
        label=f"paper's law: {c:.2f}·√w̄ (fit to g = {d['g'][j0]:g})",
    )
    ax.set(
        xlabel="w̄ (packets)",
        ylabel="period (RTT = R*)",
        title="Fig. 8: limit-cycle period (fits on w̄ ∈ [10, 1000])",
    )
    ax.legend(fontsize=7)
    return fig


def plot_fig9(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    for j, g in enumerate(d["g"]):
        ax.plot(d["psi"], d["worst"][:, j], marker=".", label=f"g = {g:g}")
    ax.axhline(0.94, color="0.5", ls=":", lw=0.8, label="paper: ≥ 94 % for g < 0.1")
    ax.axvline(0.17, color="0.6", ls="--", lw=0.8, label="paper: 100 % at ψ ≈ 0.17")
    ax.set(
        xlabel="ψ = K/(C·d) (≈ queueing delay in RTTs)",
        ylabel="worst-case throughput (fraction of C)",
        title="Fig. 9: worst-case throughput vs ψ",
    )
    ax.legend(fontsize=7)
    return fig


def plot_rtt(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.subplots()
    r = d["rtt_ratio"]
    ax.loglog(r, d["ratio"], "o-", label=f"DCTCP fluid model (37)-(38), slope {-d['slope']:.3f}")
    ax.loglog(r, r, "k--", lw=0.8, label="linear RTT-fairness")
    ax.loglog(r, r**2, "k:", lw=0.8, label="squared RTT-fairness")
    ax.set(
        xlabel="RTT2 / RTT1",
        ylabel="throughput1 / throughput2 (per flow)",
        title="RTT fairness in the fluid model (2 + 2 flows)",
    )
    ax.legend(fontsize=7)
    return fig
