"""Figures read cleanly: no legend covers a drawn data point, no two tick labels of an axis overlap.

Checked by drawing the figure and comparing display boxes (tests/support/layout.py): every line vertex, scatter
point and streamline vertex inside the axes against each legend's box; each axis's tick label boxes pairwise. The
phase portraits use a cheap portrait (w̄ = 10, 30 R*); the packet figures' drawing functions get data of their
builds' shapes (the layout, not the numbers, is under test); the dwtcp_findings notebook's figure cells run as
written.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure
from support.layout import legend_overlaps, legends_cut, tick_label_overlaps

import dwtcp_fluid as dw

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.fixture(scope="module")
def dctcp_portrait():
    from dwtcp_fluid.reports.phase import run_phase_dctcp

    return run_phase_dctcp(10.0, 1 / 16, duration=30.0)[1]


def test_the_checks_can_fail():
    """A legend in the middle of a line, and a crowded axis of long tick labels, are both reported."""
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot(np.linspace(0, 1, 200), np.linspace(0, 1, 200), label="a line")
    ax.legend(loc="center")
    ax.set_xticks(np.linspace(0, 1, 11), [f"{v:.6f}" for v in np.linspace(0, 1, 11)])
    assert legend_overlaps(fig) and "covers" in legend_overlaps(fig)[0]
    assert tick_label_overlaps(fig)


def test_phase_dctcp_legend_off_data(dctcp_portrait):
    """``phase dctcp``'s figure: the legend of nullclines and surfaces sits below the axes, not on the field."""
    with dw.style():
        fig, _, _ = dctcp_portrait.plot()
    assert legend_overlaps(fig) == []
    assert fig.legends, "the portrait has a legend"
    assert legends_cut(fig) == []
    assert tick_label_overlaps(fig) == []


def test_fig4_legend_off_data(dctcp_portrait):
    """Fig. 4 (dctcp_fig4_phase) with its limit cycle and finder marks: legend below the panel."""
    from dwtcp_fluid.analysis.limit_cycle import find_limit_cycle
    from dwtcp_fluid.plots.phase import plot_fig4

    lc = find_limit_cycle(10.0, 1 / 16)
    with dw.style():
        fig = plot_fig4({"pp": dctcp_portrait, "lc": lc, "orbit": lc.x})
    assert legend_overlaps(fig) == []
    assert fig.legends and legends_cut(fig) == []


def test_packet_figures_legends_off_data():
    """join/leave and packet-vs-fluid: legends above or below the panels, whatever the traces."""
    from dwtcp_fluid.plots.packet import plot_join_leave, plot_packet_vs_fluid

    rng = np.random.default_rng(0)
    t = np.linspace(0, 0.2, 80)
    thr = np.clip(rng.uniform(0, 10, (80, 5)), 0, 10)
    tq = np.linspace(0, 0.2, 2000)
    with dw.style():
        fig = plot_join_leave({"t": t, "throughput_gbps": thr, "t_q": tq, "q": rng.uniform(0, 30, tq.size)})
    assert legend_overlaps(fig) == []
    data = {}
    for n in (2, 10, 100):
        tt = np.linspace(0.05, 0.1, 500)
        c = {"K": 65.0}
        for src in ("packet", "fluid", "fluid_window"):
            c[f"t_{src}"] = tt
            c[f"q_{src}"] = 60 + 10 * np.sin(2 * np.pi * tt / 0.002 + rng.uniform())
            c[f"w_{src}"] = 14 + 2 * np.sin(2 * np.pi * tt / 0.002 + rng.uniform())
        data[n] = c
    with dw.style():
        fig = plot_packet_vs_fluid(data)
    assert legend_overlaps(fig) == []


def test_findings_notebook_figures_read_cleanly():
    """The figure cells of notebooks/dwtcp_findings.ipynb, run as written: no overlapping tick labels (the
    eigenvalue cloud's axis printed −70000 … −10000 into each other), no legend on data."""
    import matplotlib.pyplot as plt

    nb = json.loads((NOTEBOOKS / "dwtcp_findings.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    setup = cells[0].replace("%matplotlib inline", "")
    drawing = [c for c in cells if "plt.subplots" in c and "compare_dwtcp" not in c]
    assert len(drawing) >= 3
    backend = matplotlib.get_backend()
    ns: dict = {"display": lambda *a, **k: None}
    try:
        plt.switch_backend("Agg")
        exec(setup, ns)  # noqa: S102 — the notebook's own code
        for src in drawing:
            exec(src, ns)  # noqa: S102
            fig = plt.gcf()
            assert tick_label_overlaps(fig) == [], src.splitlines()[0]
            assert legend_overlaps(fig) == [], src.splitlines()[0]
            plt.close("all")
    finally:
        plt.switch_backend(backend)
