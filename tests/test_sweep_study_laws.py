"""The judged sweeps of DCQCN, TIMELY, Patched TIMELY and Swift (``studies/*/checks_sweep.py``): each runs a 1×2 grid
through its law's registered cross-check; the dataset has the engine's variables over the law's axes; every outcome
is agree, disagree or a run class the check does not score, and a point agrees exactly when the check's verdict
does. In the slow tier, a point of each default grid is the check's own setting, and gets the verdict and measured
values the check gives when it runs that setting alone."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dwtcp_fluid.judge import run_check
from dwtcp_fluid.judge.tolerance import AGREE, DISAGREE
from dwtcp_fluid.reports.sweep_study import judged_grid
from dwtcp_fluid.sweep.study_run import run_judged
from dwtcp_fluid.units import parse_time

#: Short grids: a few hundred to a few thousand packet slots a point, at least 40 base RTTs.
SMALL = {
    "dcqcn": ({"rtt": [20e-6], "flows": [2, 10]}, {"capacity": "10Gbps", "duration": "2ms"}),
    "swift": ({"beta": [0.8], "flows": [2, 4]}, {"capacity": "1Gbps", "rtt": "50us", "duration": "4ms"}),
    "timely": ({"rtt": [20e-6], "flows": [2, 4]}, {"capacity": "10Gbps", "duration": "1ms"}),
    "timely-patched": ({"rtt": [20e-6], "flows": [2, 4]}, {"capacity": "10Gbps", "duration": "1ms"}),
}

#: The point of each default grid that is one of the check's own settings (by name in the check's SETTINGS).
OWN = {
    "dcqcn": ({"rtt": 0, "flows": 0}, "100G-50us-N10"),
    "swift": ({"beta": 0, "flows": 0}, "N10-10G-100us"),
    "timely": ({"rtt": 1, "flows": 0}, "timely-2+2"),
    "timely-patched": ({"rtt": 1, "flows": 0}, "patched-2+2"),
}


#: One law in the fast tier (about 9 s of CPU, most of it the fluid model's JAX compilation); the others are alike
#: and cost as much or more (DCQCN: about 18 s), so they run in the slow tier.
FAST = "timely-patched"


@pytest.mark.parametrize(
    "law", [law if law == FAST else pytest.param(law, marks=pytest.mark.slow) for law in sorted(SMALL)]
)
def test_small_grid_is_judged_and_never_silently_agrees(law, tmp_path):
    axes, fixed = SMALL[law]
    grid = judged_grid(law, axes, fixed)
    sw = grid.sweep
    ds = run_judged(grid, tmp_path / "s.zarr")
    names = tuple(a.name for a in sw.axes)
    assert tuple(ds["outcome"].dims) == names and dict(ds.sizes)[names[1]] == 2
    assert np.array_equal(ds["flows"].values, np.asarray(axes["flows"]))
    for key, _ln, _u in sw.packet_quantities:
        assert ds[f"packet_{key}"].dims == names
    for key, _ln, _u in sw.fluid_quantities:
        assert ds[f"fluid_{key}"].dims == (*names, "model")
    assert ds["measured"].dims == (*names, "model", "tolerance_name")
    outcomes = ds["outcome"].attrs["flag_meanings"].split()
    classes = ds["run_class"].attrs["flag_meanings"].split()
    scored = {c.replace(" ", "_") for c in (sw.check.scored_classes or sw.classes)}
    for at in np.ndindex(grid.shape):
        got = outcomes[int(ds["outcome"].values[at])]
        cls = classes[int(ds["run_class"].values[at])]
        assert got in (AGREE, DISAGREE, *(c for c in classes if c not in scored)), (at, got)
        assert bool(ds["agree"].values[at]) == (got == AGREE), (at, got)
        if cls not in scored:  # a run the judge does not score is its own outcome, never agreement
            assert got == cls, (at, got, cls)
        else:  # a scored run agrees exactly when no scored tolerance it measured missed
            assert (ds["within"].values[at][0] >= 0).any(), (at, cls)
            assert (got == AGREE) == (not _scored_missed(sw, ds, at)), (at, got)


def _scored_missed(sw, ds, at) -> bool:
    """Whether a tolerance the check scores missed at ``at`` (a reported one, ``scored=False``, does not count)."""
    tols = sw.check.stated_tolerances if sw.check.stated_tolerances is not None else sw.check.tolerances
    pools = tols.values() if isinstance(tols, dict) else [tols]
    unscored = {t.name for pool in pools for t in pool if not t.scored}
    within = ds["within"].values[at][0]
    return any(w == 0 and n not in unscored for n, w in zip(ds["tolerance_name"].values, within, strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("law", sorted(OWN))
def test_default_grid_point_is_the_checks_own_setting(law, tmp_path):
    """The default grid's point at the check's own setting: the sweep's run class, outcome and every measured value
    are the check's when it runs that setting alone (same seed)."""
    at, name = OWN[law]
    grid = judged_grid(law)
    ds = run_judged(grid, tmp_path / "s.zarr")
    check = grid.sweep.check
    own = next(s for s in check.settings if s.name == name)
    mine = grid.sweep.setting(grid.point(tuple(at.values())), grid.fixed)
    for f in dataclasses.fields(own):  # the same setting but its name (the RTT as the axis's float)
        a, b = getattr(mine, f.name), getattr(own, f.name)
        if f.name == "rtt":
            a, b = parse_time(a), parse_time(b)
        numeric = isinstance(b, float | int) or (
            isinstance(b, tuple) and all(isinstance(x, float | int) for x in b)
        )
        if f.name != "name":
            assert a == pytest.approx(b, rel=1e-12) if numeric else a == b, f.name
    (row,) = run_check(check, [mine]).rows
    outcomes = ds["outcome"].attrs["flag_meanings"].split()
    assert outcomes[int(ds["outcome"][at])] == row.outcome
    for tol, value in row.verdicts["fluid"].measured.items():
        got = float(ds["measured"].sel(model="fluid", tolerance_name=tol)[at])
        assert got == pytest.approx(value, rel=1e-9, abs=1e-12), tol
