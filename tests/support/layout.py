"""Layout checks of drawn figures: legends off the data, tick labels that do not overlap (test helpers)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _renderer(fig: Any) -> Any:
    if not hasattr(fig.canvas, "get_renderer"):  # a bare Figure: attach an Agg canvas to draw it
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _data_points(ax: Any) -> np.ndarray:
    """Display coordinates of every line vertex, scatter point and line-collection vertex drawn in ``ax``, within
    the axes' visible area."""
    from matplotlib.collections import LineCollection, PathCollection

    pts = []
    for line in ax.lines:
        if line.get_visible() and len(line.get_xydata()):
            pts.append(line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float)))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, LineCollection):
            for path in coll.get_paths():
                pts.append(coll.get_transform().transform(path.vertices))
        elif isinstance(coll, PathCollection) and len(coll.get_offsets()):
            pts.append(coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), dtype=float)))
    if not pts:
        return np.zeros((0, 2))
    xy = np.concatenate(pts)
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    box = ax.get_window_extent()
    inside = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)
    return xy[inside]


def legend_overlaps(fig: Any) -> list[str]:
    """One line per (legend, axes) pair where a drawn data point falls inside the legend's box."""
    r = _renderer(fig)
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    out = []
    for lg in legends:
        box = lg.get_window_extent(r)
        for i, ax in enumerate(fig.axes):
            xy = _data_points(ax)
            hit = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)
            if hit.any():
                out.append(
                    f"legend {[t.get_text() for t in lg.get_texts()][:2]} covers {int(hit.sum())} points of axes {i}"
                )
    return out


def legends_cut(fig: Any) -> list[str]:
    """One line per legend that reaches beyond the figure's edges (cut off in the saved image)."""
    r = _renderer(fig)
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    page = fig.bbox
    out = []
    for lg in legends:
        b = lg.get_window_extent(r)
        if b.x0 < page.x0 - 1 or b.x1 > page.x1 + 1 or b.y0 < page.y0 - 1 or b.y1 > page.y1 + 1:
            out.append(f"legend {[t.get_text() for t in lg.get_texts()][:2]} reaches beyond the figure")
    return out


def tick_label_overlaps(fig: Any) -> list[str]:
    """One line per pair of visible, non-empty tick labels of one axis whose boxes overlap."""
    r = _renderer(fig)
    out = []
    for i, ax in enumerate(fig.axes):
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            labels = [
                t for t in axis.get_ticklabels(which="both") if t.get_visible() and t.get_text().strip()
            ]
            boxes = [(t.get_text(), t.get_window_extent(r)) for t in labels]
            for a in range(len(boxes)):
                for b in range(a + 1, len(boxes)):
                    if boxes[a][1].overlaps(boxes[b][1]):
                        out.append(
                            f"axes {i} {name}: tick labels {boxes[a][0]!r} and {boxes[b][0]!r} overlap"
                        )
    return out
