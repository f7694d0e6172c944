"""Drawing of a computed :class:`~dwtcp_fluid.analysis.phase.PhasePortrait` (no computation happens here)."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure as MplFigure
from matplotlib.lines import Line2D

__all__ = ["draw_portrait", "LAW_COLORS", "TRAJ_COLORS"]

#: Streamline colours of the laws u = 0 and u = 1.
LAW_COLORS = ("#56B4E9", "#E69F00")
#: Trajectory colours (Okabe-Ito, as the project style).
TRAJ_COLORS = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#000000", "#E69F00", "#56B4E9")
_NULL_COLORS = ("#009E73", "#CC79A7", "#0072B2")


def _arrow_points(xy: np.ndarray, box: tuple[float, float, float, float], count: int) -> list[int]:
    """Indices at equal arc length (measured in box-normalized coordinates) along a polyline."""
    x0, x1, y0, y1 = box
    z = np.c_[(xy[:, 0] - x0) / (x1 - x0), (xy[:, 1] - y0) / (y1 - y0)]
    s = np.r_[0.0, np.cumsum(np.hypot(*np.diff(z, axis=0).T))]
    if s[-1] <= 1e-9:
        return []
    targets = s[-1] * (np.arange(1, count + 1) / (count + 1)) ** 1.6  # denser early: the transient matters
    return [int(min(np.searchsorted(s, v), len(s) - 2)) for v in targets]


def draw_portrait(
    pp: Any,
    ax: Any = None,
    *,
    stream_density: float = 0.9,
    arrows: int = 4,
    show_field: bool = True,
    legend: bool = True,
    legend_loc: str = "outside",
    colorbar: bool = True,
    figsize: tuple[float, float] = (6.2, 4.8),
) -> tuple[Any, Any, dict[str, list[Any]]]:
    """Draw ``pp`` into ``ax`` (a new figure when None); returns ``(figure, axes, artists)``.

    Parameters
    ----------
    stream_density : float
        ``streamplot`` density of each law's field.
    arrows : int
        Direction arrows per trajectory.
    show_field, legend, colorbar : bool
        Layers to draw.
    legend_loc : str
        "outside" (default): below the axes, as a figure legend when the figure has a layout engine (the
        library's figures do), so it never covers data; otherwise a Matplotlib location inside the axes.
    """
    if ax is None:
        fig = MplFigure(figsize=figsize, layout="constrained")
        ax = fig.add_subplot()
    fig = ax.figure
    art: dict[str, list[Any]] = {k: [] for k in ("field", "nullclines", "surfaces", "floors", "levels",
                                                 "equilibria", "trajectories", "arrows", "markers", "labels")}  # fmt: skip
    ia, ib = pp.axes
    box = (*pp.xlim, *pp.ylim)
    handles: list[Any] = []
    if show_field:
        for reg in pp.regions:
            if np.all(reg.mask):
                continue
            U = np.ma.masked_array(reg.U, reg.mask)
            V = np.ma.masked_array(reg.V, reg.mask)
            sp = ax.streamplot(reg.X, reg.Y, U, V, density=stream_density, color=LAW_COLORS[reg.u],
                               linewidth=0.6, arrowsize=0.7, zorder=1)  # fmt: skip
            sp.lines.set_alpha(0.55)
            art["field"].append(sp)
            handles.append(Line2D([], [], color=LAW_COLORS[reg.u], lw=0.8, label=f"field: {reg.name}"))
    if pp.levels is not None and pp.levels.values.size:
        n = pp.levels.H.shape[0]
        Xf, Yf = np.meshgrid(np.linspace(*pp.xlim, n), np.linspace(*pp.ylim, n))
        cs = ax.contour(Xf, Yf, pp.levels.H, levels=pp.levels.values, colors="0.45", linewidths=0.7,
                        linestyles=":", zorder=2)  # fmt: skip
        art["levels"].append(cs)
        handles.append(Line2D([], [], color="0.45", lw=0.7, ls=":", label=f"level sets of {pp.levels.label}"))
    for nc in pp.nullclines:
        color = _NULL_COLORS[pp.model.state_index(nc.state) % len(_NULL_COLORS)]
        label = f"{nc.state}' = 0 ({pp.law_names[nc.u]})"
        for j, line in enumerate(nc.lines):
            (ln,) = ax.plot(line[:, 0], line[:, 1], color=color, lw=1.0, ls="--" if nc.u else "-.", zorder=3,
                            label=label if j == 0 else None)  # fmt: skip
            art["nullclines"].append(ln)
        handles.append(Line2D([], [], color=color, lw=1.0, ls="--" if nc.u else "-.", label=label))
    for line in pp.surfaces:
        (ln,) = ax.plot(line[:, 0], line[:, 1], color="k", lw=1.6, zorder=3)
        art["surfaces"].append(ln)
    if pp.surfaces:
        handles.append(Line2D([], [], color="k", lw=1.6, label="switching surface σ = 0"))
    for axis, b in pp.floors:
        ln = (ax.axhline if axis == 1 else ax.axvline)(b, color="0.25", lw=3.0, alpha=0.35, zorder=2)
        art["floors"].append(ln)
        name = pp.model.states[pp.axes[axis]]
        handles.append(Line2D([], [], color="0.25", lw=3.0, alpha=0.35, label=f"floor {name} = {b:.3g}"))
    cmap_art = None
    for k, tr in enumerate(pp.trajectories):
        xy = tr.x[:, [ia, ib]]
        color = TRAJ_COLORS[k % len(TRAJ_COLORS)]
        if pp.color_by is not None:
            seg = np.stack([xy[:-1], xy[1:]], axis=1)
            lc = LineCollection(seg, cmap="viridis", linewidths=1.3, zorder=4)
            lc.set_array(0.5 * (tr.x[:-1, pp.color_by] + tr.x[1:, pp.color_by]))
            allc = np.concatenate([t.x[:, pp.color_by] for t in pp.trajectories])
            lc.set_clim(float(allc.min()), float(allc.max()))
            ax.add_collection(lc)
            art["trajectories"].append(lc)
            cmap_art = lc
        else:
            (ln,) = ax.plot(xy[:, 0], xy[:, 1], color=color, lw=1.3, zorder=4)
            art["trajectories"].append(ln)
        for i in _arrow_points(xy, box, arrows):
            a = ax.annotate("", xy=tuple(xy[i + 1]), xytext=tuple(xy[i]), zorder=5,
                            arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.0, "mutation_scale": 11})  # fmt: skip
            art["arrows"].append(a)
        (m0,) = ax.plot(*xy[0], "o", ms=5.5, mfc="white", mec=color, mew=1.4, zorder=6)
        (m1,) = ax.plot(*xy[-1], "s", ms=4.5, color=color, zorder=6)
        art["markers"] += [m0, m1]
    if pp.trajectories:
        handles.append(Line2D([], [], marker="o", ls="", mfc="white", mec="k", label="start"))
        handles.append(Line2D([], [], marker="s", ls="", color="k", ms=4.5, label="end"))
    for eq in pp.equilibria:
        filled = eq.stability == "asymptotically stable"
        (mk,) = ax.plot(eq.x[ia], eq.x[ib], marker="*", ms=12, mfc="k" if filled else "white", mec="k",
                        ls="", zorder=7)  # fmt: skip
        art["equilibria"].append(mk)
        txt = ax.annotate(f"{eq.kind} ({pp.law_names[eq.u]})", (eq.x[ia], eq.x[ib]), xytext=(8, 8),
                          textcoords="offset points", fontsize=7.5, zorder=7,
                          bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "0.6", "alpha": 0.85})  # fmt: skip
        art["labels"].append(txt)
    if pp.equilibria:
        handles.append(Line2D([], [], marker="*", ls="", mfc="white", mec="k", ms=10, label="equilibrium"))
    units = pp.model.state_units or ("",) * len(pp.model.states)
    xn, yn = pp.axis_names
    ax.set_xlim(*pp.xlim)
    ax.set_ylim(*pp.ylim)
    ax.set_xlabel(f"{xn} [{units[ia]}]")
    ax.set_ylabel(f"{yn} [{units[ib]}]")
    if pp.title:
        ax.set_title(pp.title)
    if pp.projection:
        others = [s for i, s in enumerate(pp.model.states) if i not in pp.axes]
        why = []
        if others:
            why.append(
                "field at " + ", ".join(f"{s} = {pp.fixed[pp.model.state_index(s)]:.3g}" for s in others)
            )
        if pp.delayed:
            why.append("delayed: field frozen at x(t−τ) = x")
        # in the axis label, where it cannot hide data or collide with the legend
        ax.set_xlabel(f"{xn} [{units[ia]}]\n2-D projection (" + "; ".join(why) + ")")
        art["labels"].append(ax.xaxis.label)
    if cmap_art is not None and colorbar:
        cb = fig.colorbar(cmap_art, ax=ax, pad=0.01)
        cb.set_label(f"{pp.model.states[pp.color_by]} [{units[pp.color_by]}]")
        art["labels"].append(cb)
    if legend and handles:
        lg = legend_off_data(ax, handles, loc=legend_loc)
        art["labels"].append(lg)
    return fig, ax, art


def legend_off_data(
    ax: Any, handles: list[Any] | None = None, *, loc: str = "outside", fontsize: float = 6.5, ncols: int = 4
) -> Any:
    """A legend that never covers data: below every axes of the figure (``loc="outside"``, a figure legend placed
    by the layout engine), or at ``loc`` inside ``ax`` when the figure has no layout engine or ``loc`` is a
    Matplotlib location. ``ncols``: columns of the figure legend (fewer for long labels, so it fits the width)."""
    fig = ax.get_figure()
    if handles is None:
        handles = ax.get_legend_handles_labels()[0]
    if loc == "outside" and fig.get_layout_engine() is not None:
        return fig.legend(
            handles=handles,
            loc="outside lower center",
            ncols=min(ncols, len(handles)),
            fontsize=fontsize,
            frameon=False,
        )
    return ax.legend(
        handles=handles, loc="best" if loc == "outside" else loc, fontsize=fontsize, framealpha=0.85
    )
