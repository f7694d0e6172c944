"""Phase-portrait figures: DWTCP Fig. 13 and the delayed model; DCTCP Fig. 4 (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure as MplFigure

from .phase_draw import TRAJ_COLORS, legend_off_data


def plot_fig13(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(7.0, 5.0), layout="constrained")
    ax = fig.add_subplot()
    pp = d["pp"]
    pp.plot(ax=ax)
    tr = d["no_floor"]
    ax.plot(tr.x[:, 0], tr.x[:, 1], color="0.55", lw=0.4, alpha=0.6, zorder=2)
    # the frame holds the grey run too (it leaves the portrait's box below q = 0)
    w, q = tr.x[:, 0], tr.x[:, 1]
    ax.set_ylim(min(-60.0, float(q.min()) - 10.0), max(pp.ylim[1], float(q.max()) + 10.0))
    dw = 0.03 * (pp.xlim[1] - pp.xlim[0])
    ax.set_xlim(min(pp.xlim[0], float(w.min()) - dw), max(pp.xlim[1], float(w.max()) + dw))
    pk = d["no_floor_peaks"]
    ax.text(0.01, 0.02, f"grey: first start without the floor (q < 0 allowed), 0.2 s: still cycling, "
            f"q peaks {pk[0]:.0f} → {pk[-1]:.0f}", transform=ax.transAxes, fontsize=7, color="0.3")  # fmt: skip
    ws = d["m"]["w_star"]
    ax.set_title(f"DWTCP Fig. 13 recomputed: (6)/(7), β = {pp.params['beta']:g}, N = {pp.params['N']:g}, "
                 f"BDP = {pp.params['tau'] * pp.params['C']:.1f}, w* = BDP/N = {ws:.2f}")  # fmt: skip
    return fig


def plot_delay(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(12.0, 4.9), layout="constrained")
    axs = fig.subplots(1, 2, sharey=True)
    for ax, pp in zip(axs, d["pps"], strict=True):
        pp.plot(ax=ax, legend=ax is axs[0])
    m = d["m"][1]["rows"]
    qa = max(r["tail_q"][1] for r in m)
    axs[1].axhline(qa, color="0.3", lw=0.8, ls="--")
    axs[1].annotate(f"cycle: q ≤ {qa:.0f} packets, period {np.nanmean(d['periods']) * 1e3:.1f} ms",
                    (pp.xlim[0], qa), xytext=(4, 4), textcoords="offset points", fontsize=7.5)  # fmt: skip
    # inset: the last 30 ms of every delayed run, on the cycle
    ins = axs[1].inset_axes((0.04, 0.42, 0.3, 0.42))
    ws = d["m"][1]["w_star"]
    for k, tr in enumerate(pp.trajectories):
        late = tr.t >= tr.t[-1] - 0.03
        ins.plot(tr.x[late, 0], tr.x[late, 1], color=TRAJ_COLORS[k % len(TRAJ_COLORS)], lw=1.0)
    ins.axvline(ws, color="#CC79A7", lw=0.8, ls="--")
    ins.set_title("last 30 ms: one cycle from every start", fontsize=7)
    ins.tick_params(labelsize=6.5)
    ins.set_xlabel("w", fontsize=7, labelpad=1)
    ins.set_ylabel("q", fontsize=7, labelpad=1)
    return fig


def plot_fig4(d: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(7.0, 5.0), layout="constrained")
    ax = fig.add_subplot()
    pp = d["pp"]
    pp.plot(ax=ax, legend=False)
    o = d["orbit"]
    ax.plot(o[:, 0], o[:, 2], color="k", lw=0.9, zorder=5, label="limit cycle (long reference run)")
    ax.plot(d["lc"].x[:, 0], d["lc"].x[:, 2], "+", color="#D55E00", ms=4, mew=0.8, zorder=6,
            label="limit-cycle finder (analysis.limit_cycle)")  # fmt: skip
    legend_off_data(ax, fontsize=7, ncols=2)  # below the panel: the field and the trajectories fill the axes
    return fig
