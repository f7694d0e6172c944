"""Sweep outcomes (issue 8) against independent references: closed forms, a brentq crossing, one-by-one runs."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from scipy.optimize import brentq

from dwtcp_fluid.results import Status
from dwtcp_fluid.sweep import outcomes_fluid
from dwtcp_fluid.sweep.outcomes import VARIABLES, delay_agreement, delay_outcomes, fluid_outcomes

C = 10e9 / 8 / 1500  # 10 Gbps in 1500-byte packets/s
S_OVER_L = 64 / 1500


def test_undelayed_from_double_window_reaches_fair_share():
    bdp, n = np.array([100.0, 300.0]), np.array([10.0, 5.0])
    o = fluid_outcomes(
        [1e-3] * 2, bdp, n, capacity_pps=C, variants=("undelayed",), start=(2.0, 0.0), duration_rtts=400
    )
    assert np.all(o["undelayed_status"] == 0)
    assert np.all(o["undelayed_converged"])
    np.testing.assert_allclose(o["undelayed_window_mean"], bdp / n, rtol=1e-3)
    assert np.all(o["undelayed_queue_mean"] < 1e-3 * bdp)
    assert np.all(np.isnan(o["undelayed_period"]))
    np.testing.assert_allclose(o["undelayed_utilization"], 1.0, atol=1e-3)


@pytest.mark.slow  # 10-15 s of CPU: make test-all
def test_delayed_peak_matches_overshoot_estimate():
    beta = 1e-3
    bdp, n = np.array([100.0, 1000.0, 1000.0]), np.array([1.0, 10.0, 100.0])
    o = fluid_outcomes([beta] * 3, bdp, n, capacity_pps=C, variants=("delayed",))
    # phase-portrait estimate (plots/phase_figures._cycle_estimate): x = N(1 + S/L)/BDP,
    # q̂ = BDP·sqrt(2(x − ln(1 + x))/β) ≈ N(1 + S/L)/√β for small x; measured agreement within 5 % for x ≤ 0.11
    x = n * (1 + S_OVER_L) / bdp
    q_hat = bdp * np.sqrt(2 * (x - np.log1p(x)) / beta)
    np.testing.assert_allclose(o["delayed_kbar_obs"], q_hat, rtol=0.05)
    assert np.all(o["delayed_oscillating"]) and np.all(o["delayed_settled"])
    # the period is ≈ π/√β + 2 RTTs (the half-turn of the decrease spiral plus the one-RTT lags)
    np.testing.assert_allclose(o["delayed_period_rtts"], math.pi / math.sqrt(beta) + 2, rtol=0.03)
    np.testing.assert_allclose(o["delayed_period"], o["delayed_period_rtts"] * bdp / C)
    assert np.all((o["delayed_utilization"] > 0.9) & (o["delayed_utilization"] <= 1.0))
    assert np.all(o["delayed_condition_held"])


def test_critical_kbar_against_exact_crossing():
    # z² + β(k̄/BDP)z + βe^{−z} = 0 at z = iω: ω² = β cos ω and k̄_c/BDP = sin ω/ω (independent of N)
    for beta in (1e-3, 1e-2, 0.1):
        w = brentq(lambda om, b=beta: om**2 - b * math.cos(om), 1e-9, 1.5)
        ratio = math.sin(w) / w
        bdp, n = np.array([50.0, 2000.0]), np.array([1.0, 100.0])
        d = delay_outcomes(beta, bdp, n, bdp, capacity_pps=C)
        np.testing.assert_allclose(d["kbar_critical_delay"] / bdp, ratio, rtol=1e-7)
        # just below the crossing the delayed arc is unstable, just above stable
        lo = delay_outcomes(beta, bdp, n, 0.99 * ratio * bdp, capacity_pps=C)
        hi = delay_outcomes(beta, bdp, n, 1.01 * ratio * bdp, capacity_pps=C)
        assert not lo["delay_stable"].any() and hi["delay_stable"].all()
        assert np.all(lo["frozen_abscissa"] < 0)  # the paper's undelayed (12): always negative


def test_delay_outcomes_batch_equals_one_by_one_and_missing_kbar():
    beta, bdp, n = 1e-3, np.array([10.0, 500.0, 5000.0]), np.array([2.0, 20.0, 200.0])
    kbar = np.array([[0.5], [2.0], [np.nan]]) * bdp  # (3, 3) after broadcasting
    d = delay_outcomes(beta, bdp[None, :], n[None, :], kbar, capacity_pps=C)
    assert d["delay_abscissa"].shape == (3, 3)
    for i in range(2):
        for j in range(3):
            one = delay_outcomes(beta, bdp[j], n[j], kbar[i, j], capacity_pps=C)
            np.testing.assert_allclose(d["delay_abscissa"][i, j], one["delay_abscissa"], rtol=1e-10)
    assert np.all(np.isnan(d["delay_abscissa"][2])) and not d["delay_stable"][2].any()
    assert (
        np.all(d["delay_stable"][1]) and not d["delay_stable"][0].any()
    )  # k̄ = 2·BDP above k̄_c, 0.5·BDP below
    arr, summ = delay_agreement(beta, bdp[None, :], n[None, :], kbar, d)
    assert summ["missed_by_condition"] == 3  # k̄ = 0.5·BDP: condition holds, delayed arc unstable
    with pytest.raises(ValueError, match="kbar"):
        delay_outcomes(beta, 10.0, 1.0, -1.0, capacity_pps=C)
    with pytest.raises(ValueError, match="bdp"):
        delay_outcomes(beta, -10.0, 1.0, 1.0, capacity_pps=C)


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_fluid_batch_equals_one_by_one():
    beta, bdp, n = [1e-3, 1e-3], np.array([30.0, 2000.0]), np.array([3.0, 50.0])
    kw = {"capacity_pps": C, "variants": ("delayed",), "duration_rtts": 300}
    both = fluid_outcomes(beta, bdp, n, **kw)
    for e in range(2):
        one = fluid_outcomes(beta[e : e + 1], bdp[e : e + 1], n[e : e + 1], **kw)
        for k, v in one.items():
            np.testing.assert_allclose(both[k][e : e + 1], v, rtol=1e-9, equal_nan=True, err_msg=k)
    assert set(both) <= set(VARIABLES)


def test_failed_element_gives_nan_and_status(monkeypatch):
    import dwtcp_fluid.dde as dde

    real = dde.solve

    def broken(*a, **kw):  # the second element of the batch fails part way (as a NON_FINITE solve does)
        sol = real(*a, **kw)
        sol.status = np.array(sol.status)
        sol.status[1] = Status.NON_FINITE
        sol.x = np.array(sol.x)
        sol.x[1, sol.t.size // 2 :] = np.nan
        return sol

    monkeypatch.setattr(dde, "solve", broken)
    o = fluid_outcomes(
        [1e-3] * 2, [100.0, 100.0], [10.0, 10.0], capacity_pps=C, variants=("delayed",), duration_rtts=200
    )
    assert o["delayed_status"].tolist() == [0, int(Status.NON_FINITE)]
    for k, v in o.items():
        if k.endswith("_status") or k == "duration_rtts":
            continue
        if v.dtype == bool:
            assert not v[1], k
        else:
            assert np.isfinite(v[0]) or k.endswith("period") or k.endswith("period_rtts"), k
            assert np.isnan(v[1]), k


def test_bad_inputs():
    with pytest.raises(ValueError, match="sizes"):
        fluid_outcomes([1e-3], [10.0, 20.0], [1.0], capacity_pps=C)
    with pytest.raises(ValueError, match="bdp"):
        fluid_outcomes([1e-3], [-10.0], [1.0], capacity_pps=C)
    with pytest.raises(ValueError, match="variants"):
        fluid_outcomes([1e-3], [10.0], [1.0], capacity_pps=C, variants=("nope",))
    assert outcomes_fluid.default_duration_rtts(np.array([1e-3, 1e-2])) == 1014.0


def test_packet_outcomes_deterministic_and_consistent():
    from dwtcp_fluid.sweep.outcomes import packet_outcomes
    from dwtcp_fluid.sweep.packet_batch import PacketPassOptions

    opts = PacketPassOptions(warmup_rtts=5.0, min_rtts=20.0, seed=3)
    beta, bdp, n = [1e-3, 1e-3, 1e-3], np.array([10.0, 100.0, 30.0]), np.array([2.0, 10.0, 2.0])
    a = packet_outcomes(beta, bdp, n, capacity_pps=C, options=opts)
    b = packet_outcomes(beta, bdp, n, capacity_pps=C, options=opts)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert set(a) <= set(VARIABLES)
    # every packet accounted for; queue statistics ordered; the window holds at least min_rtts after the warm-up
    assert np.all(a["packet_conservation_error"] == 0)
    assert np.all(a["packet_queue_min"] <= a["packet_queue_mean"]) and np.all(
        a["packet_queue_mean"] <= a["packet_kbar_obs"]
    )
    assert np.all(a["packet_window_rtts"] >= 20.0)
    np.testing.assert_allclose(a["packet_duration_rtts"] - a["packet_window_rtts"], 5.0, atol=0.6)
    assert np.all((a["packet_utilization"] > 0) & (a["packet_utilization"] <= 1))
    with pytest.raises(ValueError, match="flows"):
        packet_outcomes([1e-3], [10.0], [1.5], capacity_pps=C)


def test_fluid_agreement_on_hand_made_outcomes():
    from dwtcp_fluid.sweep.outcomes import fluid_agreement

    bdp, n = np.array([100.0, 100.0, 100.0, 100.0]), np.array([10.0, 10.0, 10.0, 10.0])
    # k̄* = 2·BDP/√β ≈ 63·BDP; the delayed crossing k̄_c ≈ BDP (test_critical_kbar_against_exact_crossing)
    fluid = {
        "delayed_kbar_obs": np.array([0.5, 2.0, 100.0, 2.0]) * bdp,
        "delayed_converged": np.array([False, True, False, True]),
        "delayed_settled": np.array([True, True, True, True]),
        "delayed_status": np.array([0, 0, 0, int(Status.NON_FINITE)]),
    }
    arr, summ = fluid_agreement([1e-3] * 4, bdp, n, fluid, capacity_pps=C)
    assert arr["condition_obs"].tolist() == [True, True, False, False]
    assert arr["frozen_spiral_obs"].tolist() == [True, True, False, False]
    assert arr["delay_stable_obs"].tolist() == [False, True, True, False]
    assert arr["condition_agrees"].tolist() == [False, True, True, False]
    assert arr["delay_agrees"].tolist() == [True, True, False, False]
    assert arr["missed_by_condition"].tolist() == [True, False, False, False]
    assert summ["scored"] == 3 and summ["excluded_failed_or_unsettled"] == 1
    assert summ["condition_agrees"] == pytest.approx(2 / 3) and summ["missed_by_condition"] == 1


@pytest.mark.parametrize("variant", ["delayed", "sqrt"])
def test_fluid_observables_against_reference_solver(variant):
    # second solver: the event-exact SciPy method of steps on the same (τ = 1, C = BDP) parameters and start
    from dwtcp_fluid.dde import solve
    from dwtcp_fluid.sweep.outcomes_fluid import FLUID_VARIANTS, _params

    bdp, n = np.array([100.0]), np.array([10.0])
    o = fluid_outcomes([1e-3], bdp, n, capacity_pps=C, variants=(variant,), duration_rtts=400)
    p = {k: float(v[0]) for k, v in _params(np.array([1e-3]), bdp, n, C, 1500.0, 64.0).items()}
    ref = solve(FLUID_VARIANTS[variant], p, [10.0, 100.0], (0.0, 400.0), method="reference")
    assert ref.status[0] == 0
    q = ref(np.linspace(200.0, 400.0, 200_001))[:, 1]
    # the cycle's queue peak lies on a decrease arc, so the reference's plain maximum is k̄
    np.testing.assert_allclose(o[f"{variant}_kbar_obs"][0], q.max(), rtol=1e-4)
    np.testing.assert_allclose(o[f"{variant}_q_amplitude"][0], 0.5 * np.ptp(q), rtol=1e-4)
    c = ref.crossings[0]
    up = np.unique(c[ref.crossing_up[0] & (c >= 200.0)])
    np.testing.assert_allclose(o[f"{variant}_period_rtts"][0], np.mean(np.diff(up)), rtol=1e-4)


_PEAK = """
import resource, sys, numpy as np
from dwtcp_fluid.sweep.outcomes_fluid import fluid_outcomes
B = int(sys.argv[1])
bdp = np.geomspace(10, 10000, B); flows = np.resize(np.array([1.0, 2, 5, 10, 20, 50, 100]), B)
fluid_outcomes(np.full(B, 0.001), bdp, flows, capacity_pps=10e9 / 8 / 1500)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


@pytest.mark.slow
def test_the_fluid_batch_memory_estimate_matches_the_measured_peak():
    """The sweep's pre-flight memory estimate of a chunk's fluid runs (:func:`fluid_batch_bytes`) against the peak
    RSS measured in two fresh processes, 20 and 600 runs of the sweep's default length (1,014 RTTs at β = 0.001):
    the growth between them (what the batch adds; imports and compilation cancel) is within a factor 1.5 of the
    estimated growth either way (the allocator's granularity is about 30 KiB per run, 13 % here)."""
    import subprocess
    import sys

    from dwtcp_fluid.sweep.outcomes_fluid import fluid_batch_bytes

    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    peak = {}
    for B in (20, 600):
        r = subprocess.run(
            [sys.executable, "-c", _PEAK, str(B)], capture_output=True, text=True, env=env, timeout=600
        )
        assert r.returncode == 0, r.stderr[-2000:]
        peak[B] = int(r.stdout.split()[-1])
    measured = peak[600] - peak[20]
    estimated = fluid_batch_bytes(600, 1014) - fluid_batch_bytes(20, 1014)
    assert estimated / 1.5 <= measured <= 1.5 * estimated, (measured / 2**20, estimated / 2**20)
