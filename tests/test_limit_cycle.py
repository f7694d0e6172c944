"""DCTCP limit cycles and Theorem 1 ([DCTCP-A], sections 3.1-3.3) against independent references.

References: long direct simulations with the event-exact SciPy DDE solver (never the finder's return map),
finite differences of the integrated return map, quadrature of J_F along the orbit, the paper's fixed point.
"""

import numpy as np
import pytest

from dwtcp_fluid.analysis.floquet import paper_z1z2, theorem1, true_z1z2
from dwtcp_fluid.analysis.limit_cycle import (
    MODEL,
    FixedPoint,
    J_of,
    LimitCycle,
    find_limit_cycle,
    find_limit_cycle_physical,
    return_map,
)
from dwtcp_fluid.dde import solve
from dwtcp_fluid.models.dctcp import DctcpNormalized
from dwtcp_fluid.params import DctcpParams, LinkParams


def _direct(wbar, g, t_end, psi=None):
    """Long simulation of (11)-(14) from a generic start; the last full period between downward crossings."""
    model = DctcpNormalized(underflow=psi is not None)
    p = {"wbar": wbar, "g": g, "psi": 0.0 if psi is None else psi}
    sol = solve(
        model, p, np.array([0.9 * wbar, 0.3, 0.0]), (0.0, t_end), method="reference", rtol=1e-10, atol=1e-12
    )
    assert sol.ok, sol.describe()
    down = sol.crossings[0][~sol.crossing_up[0]]
    t0, t1 = down[-2], down[-1]
    tt = np.linspace(t0, t1, 40001)
    x = sol(tt)
    return sol, down, x


@pytest.mark.parametrize(
    ("wbar", "g", "t_end"), [(10.0, 1 / 16, 150.0), (30.0, 0.2, 200.0), (4.0, 0.5, 150.0)]
)
def test_orbit_matches_long_direct_simulation(wbar, g, t_end):
    c = find_limit_cycle(wbar, g)
    assert isinstance(c, LimitCycle)
    _, down, x = _direct(wbar, g, t_end)
    periods = np.diff(down)[-3:]
    assert np.ptp(periods) < 1e-6  # the simulation has settled on the cycle
    assert c.period == pytest.approx(periods[-1], rel=1e-7)
    # amplitude from 40001 samples of the dense output: sampling error ~ q''·(T/40000)²
    assert c.q_min == pytest.approx(x[:, 2].min(), abs=1e-7)
    assert c.q_max == pytest.approx(x[:, 2].max(), abs=1e-7)
    assert np.allclose(c.x_alpha, x[-1], atol=1e-6)
    assert c.h_alpha > 0 and c.h_beta > 0
    assert c.period == pytest.approx(2.0 + c.h_alpha + c.h_beta)


def test_throughput_with_queue_floor_matches_direct_simulation():
    wbar, g, psi = 15.0, 0.05, 0.05
    c = find_limit_cycle(wbar, g, psi=psi)
    sol, down, x = _direct(wbar, g, 300.0, psi=psi)
    tt = np.linspace(down[-2], down[-1], 40001)
    arrivals = x[:, 0] / (wbar * (1.0 + x[:, 2]))
    direct = np.trapezoid(arrivals, tt) / (tt[-1] - tt[0])
    assert c.throughput == pytest.approx(direct, abs=1e-6)
    assert c.throughput < 0.99  # the floor is reached: throughput is lost
    assert c.q_min == pytest.approx(-psi / (1 + psi), abs=1e-12)
    # without the floor the same model keeps full throughput (∫ dq̃/dt = 0 over a period)
    assert find_limit_cycle(wbar, g).throughput == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize(
    ("wbar", "g"), [(10.0, 1 / 16), (100.0, 0.01), (15.0, 0.25), (3.0, 1.0), (1000.0, 0.001), (1000.0, 1.0)]
)
def test_rho_monodromy_matches_finite_difference_return_map(wbar, g):
    r = theorem1(find_limit_cycle(wbar, g))
    assert abs(r.rho_monodromy - r.rho_return_map) < 1e-3
    assert r.rho_monodromy < 1.0
    # the projections make the third row vanish: one multiplier is exactly 0 in both formulas
    assert np.allclose(r.z_true[2], 0.0, atol=1e-12) and np.allclose(r.z_paper[2], 0.0, atol=1e-12)
    # entry-wise too (FD noise ≈ 1e-3 where the cycle contracts by 1e-9 per period, w̄ = 1000, g = 1)
    np.testing.assert_allclose(r.z_true[:2, :2], r.jac_fd, atol=2e-3 * max(1.0, np.abs(r.jac_fd).max()))


def test_paper_formula_uses_the_entrywise_integral_of_J():
    c = find_limit_cycle(10.0, 1 / 16)
    p = c.params
    first, second = return_map(c.x_alpha[:2], p, variational=True, dense=True)
    # independent quadrature of J_F(x*(s), u(s−1)) on the dense orbit of the first half: u = 1 on [0, 1) and
    # u = 0 after; x' has a kink at s = 1, so each piece is interpolated and integrated separately
    from scipy.interpolate import CubicSpline

    quad = np.zeros((3, 3))
    for lo, hi, u in ((0.0, 1.0, 1), (1.0, first.t_end, 0)):
        m = (first.t >= lo - 1e-12) & (first.t <= hi + 1e-12)
        ts, idx = np.unique(first.t[m], return_index=True)
        spline = CubicSpline(ts, first.x[m][idx], axis=0)
        t = np.linspace(lo, hi, 4001)
        Js = np.stack([J_of(x, u, p) for x in spline(t)])
        quad += np.trapezoid(Js, t, axis=0)
    np.testing.assert_allclose(first.jint, quad, atol=1e-5 * np.abs(quad).max())
    # (a) and (b) are different matrices: exp(∫J) is not the transition matrix along this orbit
    za, zb = paper_z1z2(first, second, p), true_z1z2(first, second, p)
    assert np.abs(za - zb).max() > 1e-3


def test_jacobian_comes_from_the_model():
    x = np.array([7.0, 0.4, -0.05])
    p = {"wbar": 10.0, "g": 0.1, "psi": 0.0}
    for u in (0, 1):
        ref = MODEL.jacobian_fn(u)(x, p)
        np.testing.assert_allclose(J_of(x, u, p), ref, rtol=1e-14)


@pytest.mark.parametrize("wbar", [0.5, 1.5, 1.9])
def test_wbar_at_most_two_is_a_fixed_point_not_a_cycle(wbar):
    r = find_limit_cycle(wbar, 0.1)
    assert isinstance(r, FixedPoint)
    assert r.ok
    np.testing.assert_allclose(r.state, [2.0, 1.0, 2.0 / wbar - 1.0])
    assert r.distance < 1e-6
    assert "no limit cycle" in r.message


def test_paper_fixed_point_example_in_packets():
    # 10 Gbps, d = 100 µs, K = 65, N = 100: q = 2N − C·d ≈ 116.7 packets ("about 120", section 3.1)
    prm = DctcpParams(link=LinkParams("10Gbps", "100us"), flows=100, K=65.0, g=1 / 16)
    r = find_limit_cycle_physical(prm)
    assert isinstance(r, FixedPoint)
    q_packets = prm.K + r.final_state[2] * prm.link.C * prm.R_star
    assert q_packets == pytest.approx(2 * 100 - prm.link.bdp, abs=1e-3)
    assert q_packets == pytest.approx(116.67, abs=0.01)


def test_physical_units_and_dataset():
    prm = DctcpParams(link=LinkParams("10Gbps", "100us"), flows=10, K=65.0, g=1 / 16)
    c = find_limit_cycle(prm.wbar, prm.g)
    phys = c.physical(prm)
    assert phys["period_s"] == pytest.approx(c.period * prm.R_star)
    assert phys["queue_min_packets"] == pytest.approx(65.0 + c.q_min * prm.link.C * prm.R_star)
    ds = c.to_dataset()
    assert set(ds.data_vars) == {"W", "alpha", "q"}
    assert ds.time.values[-1] == pytest.approx(c.period)
    assert ds.attrs["period"] == pytest.approx(c.period)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"wbar": -1.0, "g": 0.1}, "wbar"),
        ({"wbar": 10.0, "g": 0.0}, "g"),
        ({"wbar": 10.0, "g": 0.1, "psi": -0.1}, "psi"),
    ],
)
def test_bad_input_names_the_parameter(kw, match):
    with pytest.raises(ValueError, match=match):
        find_limit_cycle(**kw)


def test_declared_floor_the_orbit_never_reaches_keeps_the_floquet_multiplier():
    """ψ = 1 declares the floor q̃ ≥ −1/2, far below the cycle's q̃_min ≈ −0.14 (w̄ = 10, g = 1/16): the orbit
    never slides, so ρ is the variational one (it was NaN whenever a floor was declared) and Theorem 1 accepts the
    cycle; ρ agrees with the finite-difference return map (full nonlinear integrations) to 1e-6."""
    c = find_limit_cycle(10.0, 1 / 16, psi=1.0)
    assert c.ok and c.floor_time == 0.0 and c.q_min > -0.5 + 0.1
    assert np.isfinite(c.rho)
    th = theorem1(c)
    assert th.rho_monodromy == pytest.approx(c.rho, rel=1e-12)
    assert abs(th.rho_return_map - c.rho) < 1e-6, (th.rho_return_map, c.rho)
