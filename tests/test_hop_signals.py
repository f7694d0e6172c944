"""Hop signals of [PROXY] section 3.2 and the DCTCP-style law driven by them."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet.hop_signals import hop_signal
from dwtcp_fluid.packet.laws.dctcp_hops import DctcpHops
from dwtcp_fluid.packet.multihop_run import run_topology


def test_signals_hand_computed():
    q = np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [10.0, 1.0, 2.0]])
    assert hop_signal(q, "sum").tolist() == [7.0, 0.0, 13.0]
    assert hop_signal(q, "max").tolist() == [4.0, 0.0, 10.0]
    assert np.allclose(hop_signal(q, "sum_squ"), [5.0, 0.0, np.sqrt(105.0)])
    assert hop_signal(q, "ind", 4.0).tolist() == [1.0, 0.0, 1.0]
    # thresholded, MAX and IND coincide (the remark in the module docstring)
    for K in (0.5, 3.0, 4.0, 11.0):
        assert ((hop_signal(q, "max") >= K) == (hop_signal(q, "ind", K) > 0)).all()
    with pytest.raises(ValueError, match="kind="):
        hop_signal(q, "mean")


def test_ind_law_is_switch_ecn_exactly():
    """DCTCP marked by IND(hop queues ≥ K) at the sender, switches not marking, runs bit for bit as DCTCP with
    per-hop ECN at K: the same packets found the same queues. So does MAX ≥ K."""
    a = run_topology("parking-lot:2", "dctcp", duration="12ms", K=40)
    b = run_topology("parking-lot:2", DctcpHops(), duration="12ms", K=10**6, law_params={"k_hop": 40.0})
    assert a.marks > 0 and b.marks == 0
    for k in ("delivered", "q_mean", "cwnd_mean"):
        assert np.array_equal(a.records[k], b.records[k]), k
    # thresholded, MAX marks the same packets as IND (max_i q_i ≥ K ⟺ ∃i: q_i ≥ K): the same run again
    c = run_topology(
        "parking-lot:2", DctcpHops(signal="max"), duration="12ms", K=10**6, law_params={"k_hop": 40.0}
    )
    for k in ("delivered", "q_mean", "cwnd_mean"):
        assert np.array_equal(a.records[k], c.records[k]), k


@pytest.mark.slow  # 10-15 s of CPU: make test-all
def test_sum_signal_marks_more_on_long_paths():
    """SUM ≥ K over 2 hops each holding ≈ K marks the long flow on almost every ACK: it gets less than with IND."""
    ind = run_topology("parking-lot:2", DctcpHops(), duration="15ms", K=10**6, law_params={"k_hop": 30.0})
    s = run_topology(
        "parking-lot:3", DctcpHops(signal="sum"), duration="30ms", K=10**6, law_params={"k_hop": 30.0}
    )
    assert s.group_share[0] < ind.group_share[0]


def test_hop_law_rejected_on_the_single_bottleneck():
    from dwtcp_fluid.packet import build, run

    with pytest.raises(ValueError, match="dctcp-hops"):
        run(build("dctcp-hops", flows=2, duration="1ms"))
    with pytest.raises(ValueError, match="signal='mean' is invalid for law 'dctcp-hops'"):
        DctcpHops(signal="mean")
