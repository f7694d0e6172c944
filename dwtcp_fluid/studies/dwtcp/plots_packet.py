"""DWTCP at packet level against its predictors: the compare-fluid overlay and the registered sweep maps.

* :func:`plot_dwtcp_overlay` — queue and mean window of the packet run and of each fluid predictor, one row per
  setting (``dwtcp-fluid packet compare-fluid --law dwtcp --plot FILE``);
* :func:`plot_packet_truth_maps` — over BDP × N (per β): the packet run's class, then one panel per registered
  predictor with a sweep verdict (what it predicts, and where it is wrong), the slot of the Scout-faithful model
  included, shown empty until it is registered; written by ``dwtcp-fluid sweep`` next to the dataset and
  registered as the figure ``dwtcp_packet_truth`` (recipe: :mod:`dwtcp_fluid.studies.dwtcp.figures_packet_truth`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure as MplFigure

__all__ = ["plot_dwtcp_overlay", "plot_packet_truth_maps", "readable", "CLASS_COLORS"]

#: Colours of the packet classes (steady, oscillating, collapse, not_stationary, failed, not_run).
CLASS_COLORS = ("#0072B2", "#D55E00", "#000000", "#BBBBBB", "#CC79A7", "#FFFFFF")


def plot_dwtcp_overlay(results: list[dict[str, Any]], *, window_rtts: float = 300.0) -> MplFigure:
    """Queue (symlog) and mean window of the packet run and every fluid model, the first ``window_rtts`` base RTTs
    of each one's compared window (packet: after its warm-up; fluid: the last half of its run).

    Parameters
    ----------
    results : list of dict
        Rows of :func:`~dwtcp_fluid.studies.dwtcp.checks.compare_dwtcp`, one per setting.
    window_rtts : float
        How many base RTTs of each compared window to draw.
    """
    fig = MplFigure(figsize=(11.0, 2.4 * len(results) + 0.8), layout="constrained")
    axes = fig.subplots(len(results), 2, squeeze=False)
    names = list(results[0]["models"]) if results else []
    palette = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C8", "C9")  # no grey: black is the packet law
    colors = {n: palette[i % len(palette)] for i, n in enumerate(names)}
    for row, r in enumerate(results):
        st = r["setting"]
        aq, aw = axes[row]
        for src in ["packet", *names]:
            tr = r["traces"][src]
            t = np.asarray(tr["t"])
            x = (t - t[0]) / st["rtt_s"]
            sel = x <= window_rtts
            style = (
                dict(color="k", lw=1.4, label="packet law")
                if src == "packet"
                else dict(color=colors[src], lw=0.9, alpha=0.8, label=src)
            )
            aq.plot(x[sel], np.asarray(tr["q"])[sel], **style)
            aw.plot(x[sel], np.asarray(tr["w"])[sel], **{k: v for k, v in style.items() if k != "label"})
        aq.set_yscale("symlog", linthresh=10.0)
        aq.axhline(st["k"], color="0.5", lw=0.6, ls=":")
        aq.set_ylabel(
            f"N = {st['flows']}, τ = {st['rtt_s'] * 1e6:.0f} µs\npacket: {r['packet']['class']}\nqueue (pkt)"
        )
        aw.set_ylabel("mean window (pkt)")
    if results:
        axes[0, 0].set_title("queue (dotted: target K)")
        axes[0, 1].set_title("window")
        for a in axes[-1]:
            a.set_xlabel("base RTTs into the compared window")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(5, len(labels)), fontsize="small")
        st = results[0]["setting"]
        fig.suptitle(
            f"DWTCP: packet law vs fluid models, β = {st['beta']:g}, K = {st['k']:g}, packet buffer {st['buffer']}"
        )
    return fig


def _cell_axes(ax: Any, bdp: np.ndarray, N: np.ndarray) -> None:
    """Categorical axes for ``pcolormesh`` on indices (cell (r, c) spans [c, c+1] × [r, r+1]): ticks at the cell
    centres labelled with the grid values, at most about six along BDP."""
    step_x = max(1, -(-len(bdp) // 6))
    ax.set_xticks(np.arange(len(bdp))[::step_x] + 0.5, [f"{b:.0f}" for b in bdp[::step_x]], fontsize="small")
    ax.set_yticks(np.arange(len(N)) + 0.5, [f"{n:.0f}" for n in N], fontsize="small")
    ax.set_xlim(0, len(bdp))
    ax.set_ylim(0, len(N))


def readable(name: str) -> str:
    """An identifier as a reader sees it: ``not_stationary`` → "not stationary"."""
    return name.replace("_", " ")


def _panel_title(name: str, labels: dict[str, str], width: int = 34) -> str:
    """A predictor's panel title: its registered label, wrapped (its name where it has none)."""
    import textwrap

    if name not in labels:
        return f"{readable(name)} (not registered)"
    return "\n".join(textwrap.wrap(labels[name], width=width))


def plot_packet_truth_maps(
    ds: Any,
    predictor_names: list[str],
    labels: dict[str, str],
    class_names: list[str],
    ncols: int = 4,
    *,
    sample_note: str | None = None,
) -> MplFigure:
    """Panels over BDP × N (one cell per grid point) per β: the packet class, then each predictor's verdict.

    ``ds`` is a sweep dataset with the packet pass (``packet_class``, ``packet_<name>_agrees``, ...);
    ``predictor_names`` the panels after the packet class (a name without a registered verdict is drawn as an
    empty slot), ``labels`` the registered predictors' labels (the panel titles), ``class_names`` the packet
    classes in code order. Every annotation lies outside the data cells: each panel's agreement is the last line
    of its title, and the figure's title says which set the percentages are over (the packet runs on this grid),
    followed by ``sample_note`` (e.g. that the grid is a sample of a larger sweep).
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    nb = ds.sizes["beta"]
    panels = 1 + len(predictor_names)
    ncols = min(ncols, panels)
    nrows = -(-panels // ncols)
    fig = MplFigure(figsize=(3.5 * ncols + 0.4, (3.3 * nrows) * nb + 1.6), layout="constrained")
    axes = fig.subplots(nb * nrows, ncols, squeeze=False)
    bdp = ds["bdp"].values
    N = ds["flows"].values.astype(float)
    meanings = list(class_names)
    not_run = meanings.index("not_run") if "not_run" in meanings else None
    ccmap = ListedColormap(list(CLASS_COLORS[: len(meanings)]))
    cnorm = BoundaryNorm(np.arange(len(meanings) + 1) - 0.5, len(meanings))
    # verdict panels: the predicted class (0 steady, 1 oscillation, 2 no prediction); × marks a scored point where
    # the prediction is wrong, a dot a point whose packet run is not scored (collapse, not stationary, ...)
    vcols = ("#9CC9E8", "#F2B98C", "#FFFFFF")
    vcmap, vnorm = ListedColormap(list(vcols)), BoundaryNorm(np.arange(4) - 0.5, 3)
    cx, cy = np.meshgrid(np.arange(len(bdp)) + 0.5, np.arange(len(N)) + 0.5)
    for i in range(nb):
        s = ds.isel(beta=i)
        panel_axes = axes[i * nrows : (i + 1) * nrows].ravel()
        for ax in panel_axes[panels:]:
            ax.set_visible(False)
        cls = s["packet_class"].transpose("flows", "bdp").values
        ran = cls != not_run if not_run is not None else np.ones(cls.shape, dtype=bool)
        ax = panel_axes[0]
        ax.pcolormesh(cls, cmap=ccmap, norm=cnorm, edgecolors="white", linewidth=0.3)
        ax.set_title(
            f"β = {float(s['beta']):g}: packet law\n{int(ran.sum())} packet runs on this grid",
            fontsize="medium",
        )
        scored = s["packet_scored"].transpose("flows", "bdp").values
        for j, name in enumerate(predictor_names, start=1):
            ax = panel_axes[j]
            key = name.replace("-", "_")
            title = _panel_title(name, labels)
            if f"packet_{key}_agrees" not in s:
                ax.set_title(title + "\nslot: no verdict registered", fontsize="small")
                continue
            agrees = s[f"packet_{key}_agrees"].transpose("flows", "bdp").values
            defined = s[f"packet_{key}_defined"].transpose("flows", "bdp").values
            steady = s[f"packet_{key}_predicts_steady"].transpose("flows", "bdp").values
            code = np.where(~defined, 2, np.where(steady, 0, 1))
            ax.pcolormesh(code, cmap=vcmap, norm=vnorm, edgecolors="white", linewidth=0.3)
            wrong = scored & defined & ~agrees
            ax.scatter(cx[wrong], cy[wrong], marker="x", s=18, color="k", linewidths=0.9)
            ax.scatter(cx[~scored & defined], cy[~scored & defined], marker=".", s=6, color="0.45")
            n_sc = int((scored & defined).sum())
            agreement = (
                f"agrees at {int((agrees & scored & defined).sum())} of {n_sc} scored runs "
                f"({(agrees & scored & defined).sum() / n_sc:.0%})"
                if n_sc
                else "no scored run"
            )
            ax.set_title(f"{title}\n{agreement}", fontsize="small")
        for k, ax in enumerate(panel_axes[:panels]):
            _cell_axes(ax, bdp, N)
            ax.grid(False)
            if k % ncols == 0:
                ax.set_ylabel("flows N")
            ax.set_xlabel("BDP (packets)")
    ran_all = (
        ds["packet_class"].values != not_run if not_run is not None else np.ones(ds["packet_class"].shape)
    )
    head = (
        f"Agreement = share of the scored packet runs (steady or oscillating) among the {int(np.sum(ran_all))} "
        f"packet runs of this {ds.sizes['bdp']} BDP × {ds.sizes['flows']} N grid"
    )
    fig.suptitle(head + ("" if sample_note is None else "\n" + sample_note), fontsize="medium")
    fig.legend(
        handles=[
            Patch(facecolor=c, edgecolor="0.5", label=readable(m))
            for m, c in zip(meanings, CLASS_COLORS, strict=False)
        ]
        + [
            Patch(facecolor=vcols[0], label="predicts steady"),
            Patch(facecolor=vcols[1], label="predicts oscillation"),
            Patch(facecolor=vcols[2], edgecolor="0.5", label="no prediction"),
            Line2D([], [], marker="x", color="k", ls="", label="wrong (scored run)"),
            Line2D([], [], marker=".", color="0.45", ls="", label="packet run not scored"),
        ],
        loc="outside lower center",
        ncols=6,
        fontsize="small",
    )
    return fig
