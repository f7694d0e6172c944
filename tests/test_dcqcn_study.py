"""DCQCN's fluid fixed point, its linear stability, and the packet-vs-fluid cross-check ([DCQCN], [ECN-OR-DELAY]).

The fixed point is checked against the paper's closed forms at rest (α* = 1 − (1 − p*)^{τ'R*} from (D2); R_C* =
C/N from (D1)) and against a long run of the fluid model (a second method); the stability verdicts against a DDE
run's growth or decay.
"""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.models.dcqcn import DcqcnFluid, DcqcnParams, marking
from dwtcp_fluid.params import LinkParams
from dwtcp_fluid.studies.dcqcn.analysis import fixed_point, rightmost

P40 = DcqcnParams(link=LinkParams(capacity="40Gbps", rtt="20us"), flows=2)


def test_fixed_point_closed_forms():
    """At 40 Gbps, N = 2: R_C* = C/N, α* from (D2) at rest, p* = p(q*) on the ramp, one sign change of (D3)."""
    fp = fixed_point(P40)
    p = DcqcnFluid().numeric_params(P40)
    R = p["C"] / 2
    assert fp.regime == "ramp" and fp.sign_changes == 1
    assert fp.R_C == pytest.approx(R, rel=1e-12)
    assert fp.alpha == pytest.approx(1 - (1 - fp.p) ** (p["tau_a"] * R), rel=1e-9)
    assert float(marking(fp.q, p, np)) == pytest.approx(fp.p, rel=1e-12)
    x = fp.x
    F = np.array(DcqcnFluid().rhs(x, x, 0, p, np))
    np.testing.assert_allclose(F / np.array([R, R, 1.0, R]), 0.0, atol=1e-9)
    # the delay does not enter the fixed point
    fp2 = fixed_point(P40.replace(link=LinkParams(capacity="40Gbps", rtt="100us")))
    assert fp2.q == pytest.approx(fp.q, rel=1e-9)


def test_more_flows_than_the_ramp_holds_sit_on_kmax():
    """N = 64 at 10 Gbps: (D3)'s residual keeps its sign on the whole ramp, the equilibrium is on K_max."""
    fp = fixed_point(DcqcnParams(link=LinkParams(capacity="10Gbps", rtt="20us"), flows=64))
    assert fp.regime == "kmax" and fp.sign_changes == 0


@pytest.mark.slow
def test_fluid_run_converges_to_the_fixed_point():
    """Second method: the reference DDE solver from 0.9·q* settles at q* where the rightmost root is < 0."""
    from dwtcp_fluid.dde import solve

    fp = fixed_point(P40)
    root = rightmost(P40)[0]
    assert root.real < 0
    sol = solve(DcqcnFluid(), P40, (fp.R_C, fp.R_T, fp.alpha, 0.9 * fp.q), (0.0, 0.03))
    t, x = np.asarray(sol.t), np.asarray(sol.x).reshape(-1, 4)
    assert x[t > 0.025, 3].mean() == pytest.approx(fp.q, rel=0.01)


@pytest.mark.slow
def test_unstable_root_means_a_growing_oscillation():
    """100 Gbps, 100 µs, N = 10: a root in the right half-plane, and a fluid run from 0.99·q* swings far wider than
    its start (the JAX solver)."""
    from dwtcp_fluid.dde import solve

    P = DcqcnParams(link=LinkParams(capacity="100Gbps", rtt="100us"), flows=10)
    fp = fixed_point(P)
    root = rightmost(P)[0]
    assert root.real > 0 and abs(root.imag) > 0
    sol = solve(DcqcnFluid(), P, (fp.R_C, fp.R_T, fp.alpha, 0.99 * fp.q), (0.0, 0.03), method="jax")
    t, q = np.asarray(sol.t), np.asarray(sol.x[0])[:, 3]
    late = q[t > 0.02]
    assert 0.5 * (late.max() - late.min()) > 0.3 * fp.q


@pytest.mark.slow
def test_packet_vs_fluid_crosscheck():
    """The registered ``dcqcn`` cross-check agrees at every setting it scores, with the classes the fluid runs give.
    At 100 Gbps, 100 µs, N = 10 (a root in the right half-plane) the fluid run oscillates, but the packet queue's
    swing still grows over the run: that run is not stationary, its own outcome, never counted as agreement."""
    from dwtcp_fluid.studies.dcqcn.checks import compare_dcqcn

    rows = {r["setting"]: r for r in compare_dcqcn()}
    assert rows["40G-20us-N2"]["class"] == "stable"
    assert rows["100G-50us-N10"]["class"] == "stable"
    osc = rows["100G-100us-N10"]
    assert osc["fluid"]["fluid_class"] == "oscillating"
    assert osc["class"] == osc["packet"]["packet_class"] == "not_stationary" and not osc["agree"]
    scored = {k: r for k, r in rows.items() if r["class"] != "not_stationary"}
    assert len(scored) >= len(rows) - 1
    bad = {k: r["checks"] for k, r in scored.items() if not r["agree"]}
    assert not bad, bad
