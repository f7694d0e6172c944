"""The packet-truth map: readable labels, annotations off the data cells, and the set its percentages are over."""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.text import Text

from dwtcp_fluid.studies.dwtcp.figures_packet_truth import FIGURE_BDP, FIGURE_FLOWS, plot_packet_truth
from dwtcp_fluid.sweep.predictors import predictors


def _dataset(bdp, flows):
    """A hand-made packet pass: classes cycle over steady, oscillating, collapse, not stationary, not run (5);
    every predictor predicts steady everywhere."""
    shape = (1, len(bdp), len(flows))
    cls = (np.arange(np.prod(shape)) % 6).reshape(shape)
    cls[cls == 4] = 0
    scored = (cls == 0) | (cls == 1)
    data = {"packet_class": cls, "packet_scored": scored}
    for name in predictors(verdict=True):
        key = name.replace("-", "_")
        data[f"packet_{key}_defined"] = np.ones(shape, dtype=bool)
        data[f"packet_{key}_predicts_steady"] = np.ones(shape, dtype=bool)
        data[f"packet_{key}_agrees"] = cls == 0
    dims = ("beta", "bdp", "flows")
    return (
        xr.Dataset(
            {k: (dims, v) for k, v in data.items()},
            coords={"beta": [0.001], "bdp": list(bdp), "flows": list(flows)},
        ),
        cls,
        scored,
    )


def _texts(fig):
    out = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    for lg in fig.legends:
        out += [t.get_text() for t in lg.get_texts()]
    return out


def test_labels_are_readable_and_annotations_lie_off_the_cells():
    ds, cls, scored = _dataset(FIGURE_BDP, FIGURE_FLOWS)
    fig = plot_packet_truth(ds)
    texts = _texts(fig)
    assert not [t for t in texts if "_" in t], "raw identifiers shown"
    assert any("not stationary" in t for t in texts)
    for ax in fig.axes:
        # nothing written inside the axes (over the cells): the only text artists are the titles and labels
        inside = [c for c in ax.get_children() if isinstance(c, Text) and c.get_text() and c not in
                  (ax.title, ax._left_title, ax._right_title)]  # fmt: skip
        assert not inside, [c.get_text() for c in inside]
    # each verdict panel's agreement: scored runs where the packet class is steady, out of the scored ones
    n_sc, n_ok = int(scored.sum()), int(((cls == 0) & scored).sum())
    titles = [ax.get_title() for ax in fig.axes[1:] if ax.get_visible()]
    assert titles and all(f"agrees at {n_ok} of {n_sc} scored runs ({n_ok / n_sc:.0%})" in t for t in titles)


def test_the_figure_says_what_set_its_percentages_are_over():
    ds, cls, _ = _dataset(FIGURE_BDP, FIGURE_FLOWS)
    head = plot_packet_truth(ds)._suptitle.get_text()
    n_run = int((cls != 5).sum())
    assert f"among the {n_run} packet runs of this 3 BDP × 4 N grid" in head
    assert "12-point sample" in head and "full sweep" in head
    # a sweep's own grid (not the registered sample) is not called a sample
    other, _, _ = _dataset((10.0, 100.0), (1, 2, 5))
    assert "sample" not in plot_packet_truth(other)._suptitle.get_text()
