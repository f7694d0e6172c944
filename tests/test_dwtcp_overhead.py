"""[DWTCP]'s Scout overhead and design choices (dwtcp_fluid/studies/dwtcp/checks_overhead.py, figures_overhead.py,
derive_overhead.py; figure ``dwtcp_claims``) against hand computation and independent numerics."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from dwtcp_fluid.studies.dwtcp.analysis_overhead import overhead_formula
from dwtcp_fluid.studies.dwtcp.checks_overhead import overhead_run, rate_run, small_flow_share


def test_overhead_formula_is_the_hand_count():
    """10 Gbps, 100 µs: BDP = 10¹⁰/(8·1500)·10⁻⁴ = 250/3 packets; 5 flows × 1 Scout/RTT of 64 B at u = 1:
    5·64/((250/3)·1500) = 0.256 % of the bytes, 5/(250/3) = 6 % of the packets (by hand)."""
    f = overhead_formula(5, 1.0)
    assert f["bytes"] == pytest.approx(0.00256, rel=1e-9)
    assert f["packets"] == pytest.approx(0.06, rel=1e-9)
    assert overhead_formula(5, 0.5, per_rtt=2.0)["bytes"] == pytest.approx(4 * 0.00256, rel=1e-9)


@pytest.mark.parametrize("cdf", ["websearch", "datamining"])
def test_small_flow_share_against_the_raw_table(cdf):
    """The flows of at most 10 packets (15,000 B): the CDF file read here on its own, linearly interpolated; their
    byte share by a midpoint sum of ∫ s dF on 10⁶ log-spaced points (agreement within 1e-4 relative)."""
    name = {"websearch": "websearch.csv", "datamining": "datamining.csv"}[cdf]
    text = resources.files("dwtcp_fluid.packet").joinpath("data", name).read_text()
    rows = [ln.split(",") for ln in text.splitlines() if ln and not ln.startswith("#") and ln[0].isdigit()]
    x, p = np.array([[float(a), float(b)] for a, b in rows]).T
    s = np.r_[x[0], np.geomspace(max(x[0], 1.0), x[-1], 10**6 + 1)]
    F = np.interp(s, x, p)
    mid, dF = (s[1:] + s[:-1]) / 2, np.diff(F)
    want_bytes = float(np.sum((mid * dF)[mid <= 15000.0]) / np.sum(mid * dF))
    got = small_flow_share(cdf, n=20000)
    assert got["flows"] == pytest.approx(float(np.interp(15000.0, x, p)), rel=1e-12)
    assert got["bytes"] == pytest.approx(want_bytes, rel=1e-4)
    assert abs(got["flows_sampled"] - got["flows"]) < 0.015  # 20,000 draws: 3.5 standard errors at p = 0.5


def test_overhead_runs_refuse_bad_input():
    with pytest.raises(ValueError, match=r"flows=0 is out of range"):
        overhead_run(0)
    with pytest.raises(ValueError, match=r"scout_buffer=24 is out of range"):
        overhead_run(5, scout_buffer=24)
    with pytest.raises(ValueError, match=r"period_us=-1 is out of range"):
        rate_run(-1)


@pytest.mark.slow
def test_packet_core_scouts_match_the_hand_count():
    """1 and 5 long DWTCP flows: one Scout per flow per base RTT (within 2 %), the Scout bytes sent within 2 % of
    N·S/(u·C·τ·L), every Scout sent either served or dropped at the LPQ (±N·2 at the window's edges)."""
    from dwtcp_fluid.studies.dwtcp.checks_overhead import overhead_table

    for r in overhead_table((1, 5), duration=0.05):
        assert r["per_flow_per_rtt"] == pytest.approx(1.0, rel=0.02)
        assert r["bytes_sent"] == pytest.approx(
            overhead_formula(r["flows"], r["utilization"])["bytes"], rel=0.02
        )
        assert abs(r["scouts_served"] + r["scouts_dropped"] - r["scouts_sent"]) <= 2 * r["flows"] + 10
    one = overhead_table((1,), duration=0.05)[0]
    assert one["scouts_dropped"] == 0  # one Scout per RTT never fills a 10-Scout LPQ


def test_scout_rate_runs_send_x_scouts_per_rtt_and_refuse_bad_input():
    """``--scout-rate`` x = 2 in the two-flow join of checks_scout_rate: x Scouts per flow per base RTT after the
    join, with the period rounded to a slot (100 µs = 83 slots of 1.2 µs, period rint(83/2) = 42 slots), every
    Scout sent served or dropped; x outside 1/16-16 refused by name."""
    from dwtcp_fluid.packet.scenarios import run_many
    from dwtcp_fluid.studies.dwtcp.checks_scout_rate import rate_join_measure, rate_join_run

    pr = rate_join_run(2.0, join=0.005, duration=0.02, trace_points=200)
    r = rate_join_measure(pr, run_many([pr])[0])
    assert r["scouts_per_flow_per_rtt"] == pytest.approx(83 / 42, rel=0.02)
    assert r["join_s"] == pytest.approx(0.005, abs=1e-4)
    with pytest.raises(
        ValueError,
        match=r"law_params\['scout_rate'\]=32.0 is out of range: accepted 0.0625 <= scout_rate <= 16",
    ):
        rate_join_run(32.0, duration=0.01, join=0.005)
    with pytest.raises(ValueError, match=r"join=2.0 is out of range"):
        rate_join_run(1.0, join=2.0)
