"""Units: table-driven good and bad inputs, and a round-trip property."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dwtcp_fluid import units

GOOD_RATES = [
    ("10Gbps", 10e9, None),
    ("10G", 10e9, None),
    ("2.5Mbps", 2.5e6, None),
    ("100 Mbit/s", 100e6, None),
    ("1e9", 1e9, None),
    ("833333pps", None, 833333.0),
    ("1Mpps", None, 1e6),
]
GOOD_TIMES = [
    ("100us", 100e-6),
    ("100µs", 100e-6),
    ("100μs", 100e-6),
    ("0.1ms", 1e-4),
    ("1e-4s", 1e-4),
    ("250ns", 250e-9),
    ("2", 2.0),
]
GOOD_SIZES = [("1500", 1500.0), ("1500B", 1500.0), ("64B", 64.0), ("9kB", 9000.0), ("1MiB", 1048576.0)]
BAD_RATES = ["10Gbs", "-1G", "", "fast", "10 Gbpss", "nan", "inf", "G"]
BAD_TIMES = ["-1ms", "", "fast", "10 min", "1e-4 sec", "nanms"]
BAD_SIZES = ["-1", "1.5 kg", "", "lots"]


@pytest.mark.parametrize("text,bps,pps", GOOD_RATES)
def test_good_rates(text, bps, pps):
    r = units.parse_rate(text)
    assert r.bits_per_s == (pytest.approx(bps) if bps is not None else None)
    assert r.packets_per_s == (pytest.approx(pps) if pps is not None else None)


@pytest.mark.parametrize("text,seconds", GOOD_TIMES)
def test_good_times(text, seconds):
    assert units.parse_time(text) == pytest.approx(seconds, rel=1e-15)


@pytest.mark.parametrize("text,nbytes", GOOD_SIZES)
def test_good_sizes(text, nbytes):
    assert units.parse_size(text) == nbytes


@pytest.mark.parametrize("text", BAD_RATES)
def test_bad_rates(text):
    with pytest.raises(ValueError, match=r"rate .* is invalid: expected"):
        units.parse_rate(text)


@pytest.mark.parametrize("text", BAD_TIMES)
def test_bad_times(text):
    with pytest.raises(ValueError, match=r"time .* is invalid: expected"):
        units.parse_time(text)


@pytest.mark.parametrize("text", BAD_SIZES)
def test_bad_sizes(text):
    with pytest.raises(ValueError, match=r"size .* is invalid: expected"):
        units.parse_size(text)


def test_bytes_to_packets_is_the_conversion():
    # 10 Gbps of 1500-byte packets: 10e9 / (8 * 1500) = 833,333.33 packets/s (hand computation).
    assert units.rate_to_pps("10Gbps", 1500) == pytest.approx(833_333.333333, rel=1e-12)
    assert units.rate_to_pps("833333pps", 1500) == 833333.0
    assert units.bytes_to_packets(300_000, 1500) == 200.0


@given(st.floats(min_value=1e-3, max_value=1e13, allow_nan=False, allow_infinity=False))
def test_rate_round_trip(x):
    assert units.parse_rate(units.format_rate(x)).bits_per_s == pytest.approx(x, rel=1e-14)


@given(st.floats(min_value=1e-12, max_value=1e4, allow_nan=False, allow_infinity=False))
def test_time_round_trip(x):
    assert math.isclose(units.parse_time(units.format_time(x)), x, rel_tol=1e-14)
