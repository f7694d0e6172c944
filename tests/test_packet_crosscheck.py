"""Packet core against the DCTCP fluid model (a second, independent model of the same system)."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet.crosscheck import TOLERANCES, autocorr_period, compare_dctcp
from dwtcp_fluid.packet.figures import PERIOD_RATIO_BAND


def test_autocorr_period_of_a_sawtooth():
    t = np.arange(0, 0.05, 1e-5)
    x = (t % 1.3e-3) / 1.3e-3 + 0.05 * np.sin(2 * np.pi * t / 1e-4)
    assert autocorr_period(x, 1e-5) == pytest.approx(1.3e-3, rel=0.01)
    assert autocorr_period(np.ones(100), 1.0) is None


def test_dctcp_n10_packet_vs_fluid():
    c = compare_dctcp(10, duration=0.04)
    pk, fl = c["packet"], c["fluid"]
    assert abs(pk["queue_mean"] - fl["queue_mean"]) <= TOLERANCES["queue_mean"]
    assert abs(pk["amplitude"] - fl["amplitude"]) <= 3.0
    assert pk["window_mean"] == pytest.approx(fl["window_mean"], abs=0.5)
    ratio = pk["period_s"] / fl["period_s"]
    assert PERIOD_RATIO_BAND[0] <= ratio <= PERIOD_RATIO_BAND[1]
    # ACK clocking: the packet queue follows ΣW − C·d more closely than the fluid queue does.
    assert pk["ack_clock_gap"] < fl["ack_clock_gap"]
