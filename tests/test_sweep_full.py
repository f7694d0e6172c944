"""The full sweep: delayed fluid runs and delay-aware roots land in the dataset with the right dims and types, the
summary reports them, and the Dask engine gives the same bits as the in-process one."""

import numpy as np
import pytest

from dwtcp_fluid.sweep import SweepGrid, run_sweep, summarize
from dwtcp_fluid.sweep.run import make_plan

GRID = SweepGrid(beta=(0.001,), bdp=(20.0, 200.0), flows=(2, 10), kbar_ratio=(0.01, 1.0))


@pytest.fixture(scope="module")
def full():
    return run_sweep(GRID, plan=make_plan(GRID, "full"), packet_sample=1)


def test_variables_dims_and_types(full):
    assert full["delayed_kbar_obs"].dims == ("beta", "bdp", "flows")
    assert full["delayed_converged"].dtype == bool and full["delayed_status"].dtype.kind == "i"
    assert full["delay_abscissa"].dims == ("beta", "bdp", "flows", "kbar_ratio")
    assert full["delay_stable"].dtype == bool
    assert full["packet_class"].dims == ("beta", "bdp", "flows")
    assert int((full["packet_class"] != 5).sum()) == 1  # one sampled point run, the others not_run
    for v in ("delayed_kbar_obs", "delay_abscissa", "fluid_condition_agrees"):
        assert "units" in full[v].attrs and "long_name" in full[v].attrs


def test_outcomes_against_independent_statements(full):
    # Undelayed paper model from its standard start: reaches (BDP/N, 0) (both solvers agree on this, see test_dde).
    assert bool(full["undelayed_converged"].all())
    # Delayed model: the peak follows BDP·sqrt(2(x − ln(1+x))/β), x = N(1+S/L)/BDP (phase-portrait analysis).
    x = full["flows"] * (1 + 64 / 1500) / full["bdp"]
    pred = full["bdp"] * np.sqrt(2 * (x - np.log1p(x)) / full["beta"])
    np.testing.assert_allclose(
        full["delayed_kbar_obs"], pred.transpose(*full["delayed_kbar_obs"].dims), rtol=0.05
    )
    # Delay-aware critical k̄: k̄_c/BDP = sin ω/ω with ω² = β cos ω (closed form; ω solved here by fixed point).
    w = np.sqrt(0.001)
    for _ in range(50):
        w = np.sqrt(0.001 * np.cos(w))
    np.testing.assert_allclose(full["kbar_critical_delay"] / full["bdp"], np.sin(w) / w, rtol=1e-6)


def test_summary_reports_outcomes(full):
    s = summarize(full)
    assert s["fluid"]["delayed"]["runs"] == 4 and s["fluid"]["undelayed"]["converged_fraction"] == 1.0
    assert 0.0 <= s["fluid_agreement"]["condition_agrees"] <= 1.0
    assert s["delay_roots"]["points"] == 8 and s["packet"]["points"] == 1
    assert full["packet_condition_agrees"].dtype == bool


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_full_plan_local_cluster_identical(full, tmp_path):
    dask = run_sweep(GRID, plan=make_plan(GRID, "full"), store=tmp_path / "d.zarr", workers=2)
    for v in dask.data_vars:
        assert np.array_equal(full[v].values, dask[v].values, equal_nan=full[v].dtype.kind == "f"), v
