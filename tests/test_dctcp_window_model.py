"""ACK-clocked DCTCP fluid model (q = max(N·W − C·d, 0)) and the lag family between it and the paper's (7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from dwtcp_fluid.dde import solve
from dwtcp_fluid.dde.problem import uses_delayed_state
from dwtcp_fluid.models import DctcpFluid, DctcpLagFluid, DctcpWindowFluid
from dwtcp_fluid.models.base import SYMPY_NS
from dwtcp_fluid.models.dctcp_window import window_fixed_point
from dwtcp_fluid.params import DCTCP_ANALYSIS


def _p(n):
    return DCTCP_ANALYSIS.replace(flows=n)


def test_rhs_is_the_paper_source_with_the_queue_set_by_the_windows():
    """(5), (6) of DctcpFluid evaluated at q = N·W − C·d, in numpy, JAX and SymPy."""
    import jax
    import jax.numpy as jnp

    m, ref = DctcpWindowFluid(), DctcpFluid()
    p = m.numeric_params(_p(10))
    rng = np.random.default_rng(1)
    for W, a, u in zip(
        rng.uniform(9.0, 20.0, 20), rng.uniform(0, 1, 20), rng.integers(0, 2, 20), strict=True
    ):
        q = p["N"] * W - p["C"] * p["d"]
        want = ref.rhs((W, a, q), (W, a, q), u, p, np)[:2]
        assert m.rhs((W, a), (W, a), u, p, np) == pytest.approx(want, rel=1e-12)
        with jax.enable_x64(True):  # the solvers evaluate the JAX rhs in float64, as here
            assert [float(v) for v in m.rhs((W, a), (W, a), u, p, jnp)] == pytest.approx(want, rel=1e-12)
        sym = m.rhs((sp.Float(W), sp.Float(a)), (0, 0), u, p, SYMPY_NS)
        assert [float(v) for v in sym] == pytest.approx(want, rel=1e-12)
    # below the pipe (N·W < C·d) the queue is empty and R = d
    W = 0.5 * p["C"] * p["d"] / p["N"]
    assert m.rhs((W, 0.0), (W, 0.0), 0, p, np)[0] == pytest.approx(1 / p["d"])
    assert not uses_delayed_state(m)
    assert m.delay(p) == pytest.approx(_p(10).R_star)


@pytest.mark.parametrize("method", ["reference", "jax"])
def test_fixed_point_w_bar_below_2(method):
    """N = 100 (w̄ = 1.48): W → 2, α → 1, q → 2N − C·d = 116.67 (eq. (15) of 001, the same point as (5)-(8))."""
    P = _p(100)
    fp = window_fixed_point(P)
    assert fp["kind"] == "fixed point"
    assert (fp["W"], fp["alpha"], fp["q"]) == pytest.approx((2.0, 1.0, 2 * 100 - P.link.bdp))
    assert fp["q"] == pytest.approx(P.fixed_point_queue)
    sol = solve(DctcpWindowFluid(), P, [1.0, 0.0], (0.0, 0.3), method=method)
    W, a = sol.x[0, -1]
    assert sol.status[0] == 0
    assert W == pytest.approx(2.0, abs=1e-6) and a == pytest.approx(1.0, abs=1e-6)
    assert sol.summary()["queue_mean"] == pytest.approx(116.667, abs=1e-3)


def test_jacobian_at_the_fixed_point_closed_form():
    """At (W, α) = (2, 1) with p = 1: J = [[−1/(2R), −1/R], [0, −g/R]], R = 2N/C (both eigenvalues negative)."""
    m, P = DctcpWindowFluid(), _p(100)
    p = m.numeric_params(P)
    R = 2 * p["N"] / p["C"]
    J = m.jacobian_fn(1)([np.array(2.0), np.array(1.0)], p)
    assert J == pytest.approx(np.array([[-1 / (2 * R), -1 / R], [0.0, -p["g"] / R]]), rel=1e-12)
    assert np.all(np.linalg.eigvals(J).real < 0)
    # symbolic form on the busy branch (N·W > C·d): Heaviside(N·W − C·d) = 1, Max(0, N·W − C·d) = N·W − C·d
    xs, ps = m.symbols()
    J_sym = m.jacobian(1).subs({xs[0]: 2, xs[1]: 1})
    J_sym = J_sym.replace(sp.Heaviside, lambda *a: 1).replace(sp.Max, lambda *a: next(x for x in a if x != 0))
    C, d, N, g = ps["C"], ps["d"], ps["N"], ps["g"]
    Rs = d + (2 * N - C * d) / C
    assert sp.simplify(J_sym - sp.Matrix([[-1 / (2 * Rs), -1 / Rs], [0, -g / Rs]])) == sp.zeros(2, 2)


@pytest.mark.parametrize("n", [2, 10])
def test_limit_cycle_averages_near_the_sliding_point(n):
    """w̄ > 2: no rest point; the cycle oscillates about W = w̄, α = sqrt(2/w̄) (p̄ = α from (6), W·α·p̄ = 2 from (5)).

    Measured: α within 1.1 %, W within 3 % (the cycle is asymmetric about the averaged point)."""
    P = _p(n)
    fp = window_fixed_point(P)
    assert fp["kind"] == "sliding average" and fp["alpha"] == pytest.approx(math.sqrt(2 / P.wbar))
    s = solve(DctcpWindowFluid(), P, [1.0, 0.0], (0.0, 0.04)).summary()
    assert s["period_s"] is not None
    assert s["alpha_mean"] == pytest.approx(fp["alpha"], rel=0.02)
    assert s["window_mean"] == pytest.approx(fp["W"], rel=0.05)
    assert s["queue_min"] < P.K < s["queue_max"]


@pytest.mark.parametrize("n", [2, 10])
def test_reference_and_jax_solvers_agree(n):
    """The event-exact SciPy reference and the fixed-step JAX RK4 on the same trajectory (0-40 ms)."""
    m, P = DctcpWindowFluid(), _p(n)
    ref = solve(m, P, [1.0, 0.0], (0.0, 0.04))
    jx = solve(m, P, [1.0, 0.0], (0.0, 0.04), method="jax")
    assert jx.status[0] == 0
    x_ref = np.asarray(ref(jx.t, 0))
    assert np.max(np.abs(x_ref[:, 0] - jx.x[0, :, 0])) < 2e-3  # packets
    assert np.max(np.abs(x_ref[:, 1] - jx.x[0, :, 1])) < 1e-5
    a, b = ref.summary(), jx.summary()
    assert b["period_s"] == pytest.approx(a["period_s"], rel=1e-6)


def test_lag_one_is_the_paper_model():
    """dq/dt = (N·W − C·d − q)/R is eq. (7), N·W/R − C, rewritten: identical trajectories."""
    P = _p(10)
    a = solve(DctcpFluid(), P, [1.0, 0.0, 0.0], (0.0, 0.02))
    b = solve(DctcpLagFluid(1.0), P, [1.0, 0.0, 0.0], (0.0, 0.02))
    t = np.linspace(0, 0.02, 2001)
    assert np.max(np.abs(np.asarray(a(t, 0)) - np.asarray(b(t, 0)))) < 1e-5


def test_lag_to_zero_converges_to_the_window_model():
    """The period of the lag family tends to the ACK-clocked one linearly in λ (N = 10, 30 ms)."""
    P = _p(10)
    T0 = solve(DctcpWindowFluid(), P, [1.0, 0.0], (0.0, 0.03)).summary()["period_s"]
    err = {}
    for lag in (0.03, 0.01):
        T = solve(DctcpLagFluid(lag), P, [1.0, 0.0, 0.0], (0.0, 0.03)).summary()["period_s"]
        err[lag] = (T - T0) / T0
    T1 = solve(DctcpFluid(), P, [1.0, 0.0, 0.0], (0.0, 0.03)).summary()["period_s"]
    assert (T1 - T0) / T0 > 0.5  # the paper's lag λ = 1 lengthens the cycle by more than half
    assert 0 < err[0.01] < 0.015 and 0 < err[0.03] < 0.04
    assert 2.0 < err[0.03] / err[0.01] < 4.5  # first order in λ


def test_bad_lag_is_rejected():
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="lag="):
            DctcpLagFluid(bad)
