"""Workloads of the packet core: flow completion times on hand-computed cases, the shipped flow-size CDFs, the
Poisson arrival process, incast bursts."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet import build, run
from dwtcp_fluid.packet.workloads import cdf_mean, incast, load_cdf, poisson_flows, sample_sizes

SLOT = 1500 * 8 / 10e9


def test_single_flow_completion_time_by_hand():
    """A 30-packet flow with a 40-packet initial window sends one packet per slot from slot 0 (its access link
    runs at the bottleneck rate), each leaves in the slot it arrives, and the last ACK comes back at
    29 + RTT (83 slots): FCT = 112 slots, slowdown = 112 / (30 + 83)."""
    pr = build(
        "dctcp", flows=1, sizes=[30], duration="200us", start_jitter=False, law_params={"init_cwnd": 40.0}
    )
    out = run(pr)
    assert out["flows_finished"] == 1
    assert out["fct_s"][0] == pytest.approx(112 * SLOT, rel=1e-12)
    assert out["slowdown_mean"] == pytest.approx(112 / 113, rel=1e-12)
    assert out["records"]["finish"].tolist() == [112]


def test_incast_burst_completion_times_by_hand():
    """Four 10-packet flows start together (window 10, buffer large): 4 packets arrive per slot for 10 slots and
    one leaves per slot, so the 4 last packets (sent in slot 9) leave in 36..39 behind the 36 sent before them:
    whatever the order within a slot, the completion times are {36, 37, 38, 39} + RTT."""
    w = incast(4, 10)
    pr = build(
        "reno", flows=4, starts=w["starts"], sizes=w["sizes"], duration="200us", start_jitter=False, K=1e6
    )
    out = run(pr)
    assert sorted(out["records"]["finish"].tolist()) == [36 + 83, 37 + 83, 38 + 83, 39 + 83]
    assert out["drops"] == 0 and out["conservation_error"] == 0.0


def test_shipped_cdfs_and_their_means():
    """The web-search CDF's mean, computed by hand from its 12 points (uniform between points): 1,711,250 bytes."""
    x, p = load_cdf("websearch")
    assert x[-1] == 30e6 and p[0] == 0 and p[-1] == 1 and np.all(np.diff(p) >= 0)
    assert cdf_mean("websearch") == pytest.approx(1_711_250.0)
    xd, pd = load_cdf("datamining")
    assert xd[-1] == 1e9 and np.interp(1e4, xd, pd) == pytest.approx(0.8)  # 80 % of data-mining flows ≤ 10 kB
    with pytest.raises(ValueError, match="cdf="):
        load_cdf("hadoop")
    with pytest.raises(ValueError, match="cdf points"):
        load_cdf([(0, 0.0), (10, 0.5)])


def test_sampled_sizes_follow_the_cdf():
    rng = np.random.default_rng(0)
    s = sample_sizes(rng, "websearch", 20000)
    x, p = load_cdf("websearch")
    emp = np.searchsorted(np.sort(s), x, side="right") / s.size
    assert np.max(np.abs(emp - p)) < 1.63 / np.sqrt(s.size)  # Kolmogorov-Smirnov, 1 % level


def test_poisson_arrivals_offer_the_load():
    """Offered load 0.4 of 10 Gbps: λ = 0.4·C / E[size]; the number of arrivals in 2 s is within 4σ of λ·T and
    the gaps are exponential (mean ≈ 1/λ, coefficient of variation ≈ 1)."""
    w = poisson_flows(0.4, "websearch", duration=2.0, seed=3)
    lam = 0.4 * 10e9 / 8 / 1_711_250.0
    assert w["rate"] == pytest.approx(lam)
    n = w["starts"].size
    assert abs(n - lam * 2.0) < 4 * np.sqrt(lam * 2.0)
    gaps = np.diff(w["starts"])
    assert np.mean(gaps) == pytest.approx(1 / lam, rel=0.1) and np.std(gaps) / np.mean(gaps) == pytest.approx(
        1, abs=0.1
    )
    assert np.all(w["sizes"] >= 1)
    with pytest.raises(ValueError, match="load="):
        poisson_flows(1.5)


def test_poisson_workload_runs_and_records_completion_times():
    w = poisson_flows(0.3, "websearch", duration=0.01, seed=2)
    pr = build(
        "dctcp",
        flows=len(w["starts"]),
        starts=w["starts"],
        sizes=w["sizes"],
        duration=0.03,
        start_jitter=False,
        debug=True,
    )
    out = run(pr)
    assert out["conservation_error"] == 0.0 and out["flows_finite"] == len(w["starts"])
    done = [f for f in out["fct_s"] if f is not None]
    assert len(done) == out["flows_finished"] > 0
    rtt = 83 * SLOT
    sizes = np.asarray(w["sizes"])[[f is not None for f in out["fct_s"]]]
    # no flow completes faster than its packets at line rate plus one RTT (minus the one slot of the last packet)
    assert np.all(np.asarray(done) >= (sizes - 1) * SLOT + rtt - 1e-12)
