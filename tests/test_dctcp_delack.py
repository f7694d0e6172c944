"""Delayed ACKs folded into DCTCP's ACK-clocked fluid model: the derivation's numbers by hand, the packet core's
two-state receiver on a hand sequence, and the fold against packet runs (m = 2) within the stated tolerances."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.models import DctcpDelackFluid, DctcpWindowFluid
from dwtcp_fluid.params import DCTCP_ANALYSIS
from dwtcp_fluid.studies.dctcp.checks_delack import TOLERANCES, compare_delack
from dwtcp_fluid.studies.dctcp.derive_delack import _single_bit, receiver_counts

P10 = DCTCP_ANALYSIS.replace(flows=10)


def test_fold_numbers_by_hand():
    """10 Gbps = 833333.3 packets/s, d = 100 µs, K = 65, N = 10, m = 2: h = 0.5, extra delay 10/C = 12 µs,
    marking surface at W = (83.33 + 65)/10 + 0.5 = 15.333."""
    f = DctcpDelackFluid(acks=2)
    p = f.numeric_params(P10)
    C = 1e10 / 12000
    assert p["m"] == 2.0 and p["C"] == pytest.approx(C)
    assert f.delay(p) - DctcpWindowFluid().delay(p) == pytest.approx(10 / C) == pytest.approx(12e-6)
    assert f.surface((15.0 + 1 / 3, 0.3), p, np) == pytest.approx(0.0, abs=1e-9)
    q = f.observables((20.0, 0.3), p, np)["queue"]
    assert q == pytest.approx(10 * (20.0 - 0.5) - C * 1e-4)  # 111.67
    # m = 1 is the ACK-clocked model exactly
    one = DctcpDelackFluid(acks=1)
    p1 = one.numeric_params(P10)
    x = (18.0, 0.4)
    assert one.rhs(x, x, 1.0, p1, np) == DctcpWindowFluid().rhs(
        x, x, 1.0, DctcpWindowFluid().numeric_params(P10), np
    )
    assert one.delay(p1) == DctcpWindowFluid().delay(p1)


def test_two_state_receiver_counts_marks_exactly():
    """CE 0011100110, m = 2: the packet core's receiver reports 5 of 10 marked (flushes at each CE change); a receiver
    echoing ECE on any mark in a pair would report 8 of 10 — by hand: pairs 00|11|10|01|10."""
    assert receiver_counts() == (10, 5)
    assert _single_bit((0, 0, 1, 1, 1, 0, 0, 1, 1, 0), 2) == 8
    assert receiver_counts((1, 0, 1, 0, 1, 0), 3) == (6, 3)


@pytest.fixture(scope="module")
def rows():
    return compare_delack((10,))


def test_fold_matches_packet_runs(rows):
    _check_rows(rows)


@pytest.mark.slow
def test_fold_matches_packet_runs_n2():
    _check_rows(compare_delack((2,)))


def _check_rows(rows):
    for r in rows:
        pk, fold = r["packet"], r["fold"]
        assert r["agree"], (r["flows"], r["checks"])
        assert abs(pk["window_mean"] - fold["window_mean"]) <= TOLERANCES["window_mean"].abs
        # the unfolded model misses the held packets: its window is off by more than the tolerance
        assert not r["unfolded_checks"]["window_mean"]
        # delayed ACKs leave the queue where the marking puts it (within 2 packets of the run without them)
        assert abs(pk["queue_mean"] - r["packet_m1"]["queue_mean"]) < 2.0
        # the receiver really holds packets: more than the evenly spaced (m − 1)/2, less than m − 1
        assert r["held"]["fold"] == 0.5 and 0.5 < r["held"]["packet"] < 1.0
