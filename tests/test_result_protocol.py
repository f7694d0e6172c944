"""Every result object follows one protocol (dwtcp_fluid.results): a per-element status from one enum family,
``ok``, ``describe()``, a typed ``summary()``, ``to_dataset()`` and ``plot(ax=None)``."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from matplotlib.figure import Figure

import dwtcp_fluid as dw
from dwtcp_fluid.results import Result, Status, Summary


def _sweep():
    grid = dw.SweepGrid(beta=(0.001,), bdp=(10.0, 100.0, 1000.0), flows=(1, 10), kbar_ratio=(0.5, 2.0))
    return dw.run_sweep(grid)


def _char_roots():
    A0 = np.array([[[-1.0]], [[0.5]]])
    return dw.char_roots(A0, -2.0 * np.ones_like(A0), np.array([1.0, 1.0]))


def _check_result():
    """A cross-check on closed forms (no simulator): packet q = 2s, fluid q = 2s + s/10, within 10 packets."""
    from dwtcp_fluid.judge import CrossCheck, Tolerance, Tolerances, run_check

    check = CrossCheck(
        name="closed-form",
        claim="q = 2s within 10 packets",
        settings=(10.0, 200.0),
        packet=lambda s, **_: {"q": 2 * s},
        fluid=lambda settings, packets, **_: [{"fluid": {"q": 2.1 * s}} for s in settings],
        tolerances=Tolerances(Tolerance("q", "packets", abs=10.0)),
    )
    return run_check(check)


#: Each result type and how to compute one: computed when its test runs (not when the module is collected).
RESULTS = {
    "DdeSolution": lambda: dw.solve(
        dw.DctcpFluid(),
        [dw.DCTCP_ANALYSIS, dw.DCTCP_ANALYSIS.replace(flows=20)],
        [1.0, 0.0, 0.0],
        (0.0, 0.004),
    ),
    "LimitCycle": lambda: dw.find_limit_cycle(10.0, 1 / 16),
    "FixedPoint": lambda: dw.find_limit_cycle(1.5, 0.1),
    "BatchCycles": lambda: dw.cycles_batch(np.array([10.0, 30.0]), np.array([0.05, 0.1]), steps_per_unit=20),
    "SweepResult": _sweep,
    "CharRoots": _char_roots,
    "CheckResult": _check_result,
}


@pytest.fixture(scope="module")
def sweep_result():
    return _sweep()


@pytest.mark.parametrize("name", list(RESULTS))
def test_result_protocol(name, sweep_result):
    r = sweep_result if name == "SweepResult" else RESULTS[name]()
    assert isinstance(r, Result)
    codes = np.ravel(r.status)
    assert codes.size >= 1 and all(Status(int(c)) in Status for c in codes)
    assert len(r.messages) == codes.size
    assert r.ok is all(Status(int(c)).ok for c in codes)
    assert r.describe().startswith(f"all {codes.size} ok") if r.ok else "element" in r.describe()
    s = r.summary()
    assert isinstance(s, Summary)
    d = s.to_dict()
    assert d and all(isinstance(k, str) for k in d)
    assert isinstance(r.to_dataset(), xr.Dataset)
    fig = Figure()
    ax = fig.subplots()
    assert r.plot(ax=ax) is ax and ax.has_data()
    assert r.plot().figure is not None  # a new figure when no axes is given


def test_sweep_summary_is_the_sweep_numbers(sweep_result):
    from dwtcp_fluid.sweep import summarize

    r = sweep_result
    d = summarize(r.to_dataset())
    s = r.summary()
    assert s.agreement_rate == d["agreement_rate"] == 1.0
    assert s.class_counts == d["class_counts"] and s.points == d["points"] == 12
