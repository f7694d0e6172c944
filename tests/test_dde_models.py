"""Model extensions solved by both DDE solvers: heterogeneous-RTT DCTCP (37)-(38) and the Scout-α DWTCP state."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.dde import solve
from dwtcp_fluid.models.dctcp_hetero import DctcpHetero, DctcpHeteroParams
from dwtcp_fluid.models.dwtcp_scout import DwtcpScoutFluid
from dwtcp_fluid.params import DCTCP_ANALYSIS, DwtcpParams


def test_identical_groups_equal_one_group():
    """Two groups with the same RTT and 3 + 7 flows behave as one group of 10 (the split is invisible)."""
    one = solve(
        DctcpHetero(groups=1), DctcpHeteroParams(DCTCP_ANALYSIS, ("150us",), (10,)), [1, 0, 0], (0, 0.02)
    )
    two = solve(
        DctcpHetero(groups=2),
        DctcpHeteroParams(DCTCP_ANALYSIS, ("150us", "150us"), (3, 7)),
        [1, 1, 0, 0, 0],
        (0, 0.02),
    )
    t = np.linspace(0, 0.02, 401)
    a, b = one(t), two(t)
    np.testing.assert_allclose(b[:, 0], a[:, 0], atol=1e-7)
    np.testing.assert_allclose(b[:, 1], a[:, 0], atol=1e-7)
    np.testing.assert_allclose(b[:, 4], a[:, 2], atol=1e-6)


def test_hetero_solvers_agree_and_alphas_share_the_duty_cycle():
    """Section 5 of [DCTCP-A]: every α_i low-pass filters the same marking process, so their
    means agree; reference and JAX agree to 1e-3 packets."""
    P = DctcpHeteroParams(DCTCP_ANALYSIS, ("100us", "300us"), (5, 5))
    m = DctcpHetero(groups=2)
    ref = solve(m, P, [1, 1, 0, 0, 0], (0, 0.06))
    jx = solve(m, P, [1, 1, 0, 0, 0], (0, 0.06), method="jax")
    assert np.abs(jx.x[0, :, 4] - ref(jx.t)[:, 4]).max() < 1e-3
    x = ref(np.linspace(0.03, 0.06, 6001))
    assert abs(x[:, 2].mean() - x[:, 3].mean()) < 0.01


def test_hetero_params_validation():
    with pytest.raises(ValueError, match="rtts"):
        DctcpHeteroParams(DCTCP_ANALYSIS, ("100us",), (5, 5))
    with pytest.raises(ValueError, match="groups"):
        DctcpHetero(groups=0)


def test_scout_alpha_stays_in_bounds_and_solvers_agree():
    """Delayed DWTCP with the Scout-α state: log2 α in [log2 α_min, log2 α_max], queue ≥ 0, JAX ≈ reference."""
    m = DwtcpScoutFluid(delay_rtts=1.0, alpha_min=1.0, alpha_max=64.0)
    P = DwtcpParams(flows=10)
    ref = solve(m, P, [1, 0, 0], (0, 0.03))
    # q = k = 0 is also the queue floor: the floor exit is the crossing, so it must be located exactly
    # (exact_exits); located linearly the error converges only about first order (0.13, 0.0075, 0.0035 packets
    # at τ/20, τ/40, τ/80), with Newton 3.3e-6, 9.6e-7, 8.7e-8.
    jx = solve(m, P, [1, 0, 0], (0, 0.03), method="jax", exact_exits=True)
    assert ref.ok and jx.ok
    x = ref(np.linspace(0, 0.03, 3001))
    assert x[:, 2].min() >= -1e-12 and x[:, 2].max() <= 6 + 1e-12 and x[:, 1].min() >= 0
    assert np.abs(jx.x[0, :, 1] - ref(jx.t)[:, 1]).max() < 1e-4
    # α doubles once per RTT from 1 while the queue is empty: the cap 64 = 2^6 is reached after 6 RTTs
    np.testing.assert_allclose(ref(np.array([3 * P.tau]))[0, 2], 3.0, atol=1e-9)


def test_normalized_model_is_the_physical_one_rescaled():
    """(11)-(14) with the underflow floor q̃ ≥ −ψ/(1+ψ) is (5)-(8) with q ≥ 0 in units of R* and C·R*."""
    from dwtcp_fluid.models import DctcpFluid, DctcpNormalized

    P = DCTCP_ANALYSIS.replace(flows=4)
    Rs, CR = P.R_star, P.link.C * P.R_star
    phys = solve(DctcpFluid(), P, [1, 0, 0], (0, 0.01))
    norm = solve(DctcpNormalized(underflow=True), P, [1, 0, (0 - P.K) / CR], (0, 0.01 / Rs))
    normj = solve(DctcpNormalized(underflow=True), P, [1, 0, (0 - P.K) / CR], (0, 0.01 / Rs), method="jax")
    t = np.linspace(0, 0.01, 201)
    a, b = phys(t), norm(t / Rs)
    np.testing.assert_allclose(b[:, 0], a[:, 0], atol=1e-6)
    np.testing.assert_allclose(b[:, 1], a[:, 1], atol=1e-8)
    np.testing.assert_allclose(b[:, 2] * CR + P.K, a[:, 2], atol=1e-5)
    assert np.abs(normj.x[0, :, 2] - norm(normj.t)[:, 2]).max() * CR < 1e-3


def test_undelayed_dwtcp_rests_at_the_degenerate_equilibrium():
    """k = 0, no delay: the window reaches BDP/N as the queue is about to build, the switch chatters at
    q = 0 = k, and both solvers end at rest at (w, q) = (BDP/N, 0), the paper's equilibrium (docs/equations.md)."""
    from dwtcp_fluid.models import DwtcpFluid

    P = DwtcpParams(flows=10)
    for method in ("reference", "jax"):
        sol = solve(DwtcpFluid(delay_rtts=0.0), P, [1.0, 0.0], (0.0, 0.01), method=method)
        assert sol.ok, sol.describe()
        w, q = sol(np.array([0.01]))[0]
        assert abs(w - P.window_fair_share) < 1e-6 and abs(q) < 1e-9, (method, w, q)


def test_undelayed_dwtcp_stays_at_rest_after_a_crossing_left_on_the_wrong_side():
    """Regression: the root finder may leave the state of a downward crossing at q = 1e-24 > 0 = k; the next
    upward search then started past its threshold, missed the crossing and ran the increase phase forever
    (q reached 3·10⁶ packets by 0.1 s). The solution must stay at rest at (BDP/N, 0) for the whole run."""
    from dwtcp_fluid.models import DwtcpFluid

    P = DwtcpParams(flows=10, beta=0.001, k=0.0)
    sol = solve(DwtcpFluid(delay_rtts=0.0), P, [1.0, 0.0], (0.0, 0.1))
    assert sol.ok
    x = sol(np.linspace(0.002, 0.1, 2001))
    assert np.max(np.abs(x[:, 1])) < 1e-6
    np.testing.assert_allclose(x[:, 0], P.window_fair_share, rtol=1e-9)
