"""The HPCC study: the fluid model's fixed point against its closed form, and the registered cross-check of the
packet law against the fluid model at four settings (N = 2, 10, 64; 10-100 µs; 10-100 Gbps)."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.models.hpcc import HpccFluid, HpccParams, fixed_point
from dwtcp_fluid.params import LinkParams


@pytest.mark.parametrize(("n", "w_ai"), [(4, 1.0), (2, 0.2), (64, 0.5)])
def test_fixed_point_zeroes_the_right_hand_side(n, w_ai):
    """The closed form of ``proofs/hpcc.md`` is a zero of (H1)-(H3) (NumPy right-hand side, q held at 0 when
    κ ≤ 1 − η): residuals below 1e-9 of each term's scale."""
    m = HpccFluid()
    p = m.numeric_params(HpccParams(link=LinkParams(capacity="25Gbps", rtt="20us"), flows=n, w_ai=w_ai))
    fp = fixed_point(p)
    x = [fp["Wc"], fp["U"], fp["q"]]
    dWc, dU, dq = m.rhs(x, x, 0.0, p, np)
    assert abs(dWc) * p["d"] / fp["Wc"] < 1e-9
    assert abs(dU) * p["T"] < 1e-9
    if fp["q"] > 0:
        assert abs(dq) / p["C"] < 1e-9
    else:  # below the floor: the arrival is the utilization η + κ < 1
        assert (dq + p["C"]) / p["C"] == pytest.approx(fp["utilization"], rel=1e-9)


@pytest.mark.slow
def test_hpcc_cross_check_agrees_at_every_setting():
    """``packet compare-fluid --law hpcc``: every setting within the stated tolerances, including the fluid queue
    against the closed-form fixed point, and the two settings across the stability boundary classed as
    ``proofs/hpcc.md`` predicts."""
    from dwtcp_fluid.studies.hpcc.checks import compare_hpcc

    rows = compare_hpcc()
    assert len(rows) == 6
    assert [r["class"] for r in rows[-2:]] == ["fixed point", "limit cycle"]
    bad = [(r["setting"], r["checks"]) for r in rows if not r["agree"]]
    assert not bad, bad


@pytest.mark.slow
def test_hpcc_pint_cross_check_agrees_at_every_setting():
    """``packet compare-fluid --law hpcc-pint`` (1 packet in 16 carries U): queue and utilization within the stated
    tolerances at every setting."""
    from dwtcp_fluid.studies.hpcc.checks import PINT_SETTINGS, compare_hpcc

    rows = compare_hpcc(PINT_SETTINGS)
    assert len(rows) == 4
    bad = [(r["setting"], r["checks"]) for r in rows if not r["agree"]]
    assert not bad, bad
