"""Parameters: derived values against hand computation, validation messages."""

import math

import pytest

from dwtcp_fluid.params import DCTCP_ANALYSIS, DWTCP_EVALUATION, DctcpParams, DwtcpParams, LinkParams


def test_link_derived_values():
    link = LinkParams("10Gbps", "100us", 1500)
    assert link.C == pytest.approx(2_500_000 / 3, rel=1e-14)  # 1e10 / 12000 = 833,333.33
    assert link.bdp == pytest.approx(250 / 3, rel=1e-14)  # 833,333.33 × 1e-4 = 83.33
    assert LinkParams("833333pps", "1e-4s").C == 833333.0


def test_dctcp_derived_values():
    p = DCTCP_ANALYSIS
    assert p.R_star == pytest.approx(100e-6 + 65 / (1e10 / 12000), rel=1e-12)  # 178 µs
    assert p.R_star == pytest.approx(178e-6, rel=1e-12)
    assert p.wbar == pytest.approx((83.3333333 + 65) / 10, rel=1e-8)
    assert p.psi == pytest.approx(65 / 83.333333, rel=1e-8)
    # The w̄ ≤ 2 fixed point of 001_…: q = 2N − Cd = 116.7 packets for N = 100 ("about 120" in the paper).
    q = p.replace(flows=100).fixed_point_queue
    assert q == pytest.approx(200 - 83.333333, rel=1e-8)
    assert p.fixed_point_queue is None  # w̄ = 14.8 > 2
    # Guidelines (17), (18): 10 Gbps, 300 µs → K ≈ 42 packets, 0.02 ≲ g ≲ 0.06 (docs/equations.md example).
    q300 = DctcpParams(LinkParams("10Gbps", "300us"), flows=10, K=42.5, g=0.05)
    assert q300.K_guideline == pytest.approx(42.5, rel=1e-3)
    lo, hi = q300.g_range
    assert 0.015 < lo < 0.025 and 0.05 < hi < 0.065


def test_dwtcp_derived_values():
    p = DwtcpParams(LinkParams("10Gbps", "100us"), flows=10, beta=0.001)
    assert p.kbar_crit == pytest.approx(2 * 83.333333 / math.sqrt(0.001), rel=1e-8)
    assert p.kbar_crit / p.bdp == pytest.approx(63.2456, rel=1e-5)
    assert p.window_fair_share == pytest.approx(8.333333, rel=1e-7)
    assert p.beta_guideline == pytest.approx(1 / (2 * math.sqrt(8.333333)), rel=1e-7)
    e = DWTCP_EVALUATION
    assert e.d_t == pytest.approx(100e-6 + 100 * 1500 * 8 / 1e10, rel=1e-12)  # τ + k·L/C = 220 µs
    assert e.d_s(150) - e.d_t == pytest.approx(50 / e.link.C)
    # Note 3: β·sqrt(w) with w in bytes equals β·sqrt(L)·sqrt(w in packets).
    w_pk = 20.0
    assert e.beta * math.sqrt(w_pk * 1500) == pytest.approx(e.beta_sqrt_packets * math.sqrt(w_pk))


BAD = [
    (lambda: LinkParams(capacity="10Gbs"), r"capacity"),
    (lambda: LinkParams(capacity=0), r"capacity=0.0 is out of range: accepted 1000 <= capacity <= 1e\+15"),
    (lambda: LinkParams(rtt="-1ms"), r"rtt"),
    (lambda: LinkParams(rtt=0), r"rtt=0.0 is out of range"),
    (
        lambda: LinkParams(packet_size=0),
        r"packet_size=0.0 is out of range: accepted 64 <= packet_size <= 65536",
    ),
    (lambda: DctcpParams(flows=0), r"flows=0 is out of range: accepted an integer, 1 <= flows"),
    (lambda: DctcpParams(flows=2.5), r"flows=2.5 is out of range"),
    (lambda: DctcpParams(g=0), r"g=0 is out of range: accepted 1e-06 <= g <= 1 \(EWMA gain"),
    (lambda: DctcpParams(g=1.5), r"g=1.5 is out of range"),
    (lambda: DctcpParams(K=-1), r"K=-1 is out of range: accepted 0 <= K <= 1e\+08"),
    (lambda: DctcpParams(K=float("nan")), r"K=nan is out of range"),
    (lambda: DwtcpParams(beta=0), r"beta=0 is out of range: accepted 1e-09 <= beta <= 1"),
    (lambda: DwtcpParams(beta=2), r"beta=2 is out of range"),
    (lambda: DwtcpParams(k=-5), r"k=-5 is out of range"),
    (lambda: DwtcpParams(beta_unit="bits"), r"beta_unit='bits' is invalid: accepted 'bytes' or 'packets'"),
    (lambda: DwtcpParams(flows=True), r"flows=True is out of range"),
    # degenerate values: subnormal, beyond any physical setting
    (lambda: DctcpParams(g=1e-320), r"g=1e-320 is out of range"),
    (lambda: DctcpParams(K=1e308), r"K=1e\+308 is out of range"),
    (lambda: DwtcpParams(beta=1e-320), r"beta=1e-320 is out of range"),
    (lambda: DwtcpParams(k=1e308), r"k=1e\+308 is out of range"),
    (lambda: LinkParams(rtt="1e-320s"), r"rtt=1e-320 is out of range"),
    (lambda: LinkParams(rtt="1e308s"), r"rtt=1e\+308 is out of range"),
    (lambda: LinkParams(capacity="1e308Gbps"), r"capacity"),
    (lambda: DctcpParams(flows=2**64), r"flows=18446744073709551616 is out of range"),
]


@pytest.mark.parametrize("make,msg", BAD)
def test_bad_parameters_name_value_and_range(make, msg):
    with pytest.raises(ValueError, match=msg):
        make()


def test_frozen():
    with pytest.raises(AttributeError):
        DCTCP_ANALYSIS.K = 1  # type: ignore[misc]
