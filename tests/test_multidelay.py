"""Several discrete delays, x' = F(x(t), x(t − τ_1), …, x(t − τ_k)): both DDE solvers against the method of steps
done by hand in exact arithmetic, the root finder against Lambert W, and the per-group delays of the network model
against the common-delay model they reduce to (bit for bit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
import sympy as sp
from scipy.special import lambertw

from dwtcp_fluid.analysis.charroots import char_roots, char_roots_multi
from dwtcp_fluid.dde import solve
from dwtcp_fluid.dde.problem import make_problem
from dwtcp_fluid.models.base import FluidModel
from dwtcp_fluid.models.dctcp_network import DctcpNetwork, NetworkParams, parking_lot_routes

A, B, TAU1, TAU2 = -1.0, -0.5, 1.0, 1.5


@dataclass(frozen=True)
class TwoDelays(FluidModel):
    """y' = a·y(t − 1) + b·y(t − 3/2): two delays, no switch (σ ≡ −1)."""

    name: ClassVar[str] = "two-delays"
    states: ClassVar[tuple[str, ...]] = ("y",)
    state_units: ClassVar[tuple[str, ...]] = ("1",)
    param_names: ClassVar[tuple[str, ...]] = ("a", "b")

    def rhs(self, x: Sequence[Any], xd: Any, u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        return (p["a"] * xd[0][0] + p["b"] * xd[1][0],)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        return 0 * x[0] - 1.0

    def delay(self, p: Mapping[str, Any]) -> Any:
        return TAU2

    def state_delays(self, p: Mapping[str, Any]) -> tuple[Any, ...]:
        return (TAU1, TAU2)

    def numeric_params(self, params: Any) -> dict[str, float]:
        return {"a": A, "b": B}


def exact_two_delays(n_half: int) -> list[sp.Expr]:
    """Method of steps in exact arithmetic on the half-unit pieces [j/2, (j+1)/2], y = 1 before 0."""
    t, s = sp.symbols("t s")
    a, b = sp.Rational(A), sp.Rational(B)
    pieces: list[sp.Expr] = []

    def past(j: int, shift: sp.Rational) -> sp.Expr:  # y(s − shift) on piece j
        k = j - int(2 * shift)
        return sp.Integer(1) if k < 0 else pieces[k].subs(t, s - shift)

    for j in range(n_half):
        start = pieces[-1].subs(t, sp.Rational(j, 2)) if pieces else sp.Integer(1)
        f = a * past(j, sp.Rational(1)) + b * past(j, sp.Rational(3, 2))
        pieces.append(sp.expand(start + sp.integrate(f, (s, sp.Rational(j, 2), t))))
    return pieces


def test_exact_pieces_first_steps_by_hand():
    t = sp.Symbol("t")
    p = exact_two_delays(3)
    a, b = sp.Integer(-1), sp.Rational(-1, 2)
    assert sp.expand(p[0] - (1 + (a + b) * t)) == 0  # both delayed reads see the history 1
    # on [1, 1.5]: y(t − 1) = 1 + (a + b)(t − 1) (the first piece), y(t − 1.5) = 1 (the history)
    s = sp.Symbol("s")
    y1 = 1 + (a + b) + sp.integrate(a * (1 + (a + b) * (s - 1)) + b, (s, 1, t))
    assert sp.expand(p[2] - y1) == 0


@pytest.mark.parametrize("method", ["reference", "jax"])
def test_two_delays_match_the_method_of_steps(method):
    pieces = exact_two_delays(8)
    t = sp.Symbol("t")
    fns = [sp.lambdify(t, e, "numpy") for e in pieces]
    tt = np.linspace(0.0, 4.0, 81)
    j = np.clip(np.floor(2 * tt).astype(int), 0, 7)
    want = np.array([fns[k](v) for k, v in zip(j, tt, strict=True)])
    sol = solve(TwoDelays(), {"a": A, "b": B}, [1.0], (0.0, 4.0), method=method, dt=1 / 40, save_every=1)
    assert sol.ok
    err = np.abs(sol(tt)[:, 0] - want).max()
    # the reference's global error, not its local rtol (1e-10), bounds this: it accumulates over ~100 steps and the
    # dense interpolant between them, and its last digits move with the CPU's floating point (1e-8 to 3e-8 seen);
    # 1e-7 is still ten times tighter than the fixed-step JAX path's bound
    assert err < (1e-7 if method == "reference" else 1e-6), err


def test_two_delay_problem_steps_below_the_smallest_delay():
    pr = make_problem(TwoDelays(), {"a": A, "b": B})
    assert pr.state_delays == (TAU1, TAU2) and pr.tau_d == TAU2 and pr.min_positive_delay == TAU1
    with pytest.raises(ValueError, match="dt="):
        solve(TwoDelays(), {"a": A, "b": B}, [1.0], (0.0, 4.0), method="jax", dt=1.2)


def _w(b: float, tau: float, k: int) -> complex:
    return complex(lambertw(b * tau, k)) / tau


def test_decoupled_delays_have_the_lambert_w_roots_of_each():
    # x1' = b1 x1(t − τ1), x2' = b2 x2(t − τ2): the roots are λ = W_k(b_j τ_j)/τ_j of each; τ1 < τ_max reads an
    # interior point of the Chebyshev interpolant, τ2 = τ_max its last node
    b1, t1, b2, t2 = -1.0, 0.6, -0.5, 1.5
    A1 = np.array([[b1, 0.0], [0.0, 0.0]])
    A2 = np.array([[0.0, 0.0], [0.0, b2]])
    r = char_roots_multi(np.zeros((2, 2)), [A1, A2], [t1, t2], n_roots=8)
    want = [_w(b, t, k) for b, t in ((b1, t1), (b2, t2)) for k in (0, -1, 1, -2)]
    want = sorted(want, key=lambda z: (-round(z.real, 9), z.imag))[:8]
    got = r.roots[r.converged]
    assert r.converged[:6].all()
    for z in want[:6]:
        assert np.min(np.abs(got - z)) < 1e-10 * (1 + abs(z)), (z, got)
    assert r.abscissa == pytest.approx(max(z.real for z in want), rel=1e-12)


def test_equal_delays_add_and_one_delay_is_char_roots():
    rng = np.random.default_rng(3)
    A0, A1, A2 = rng.normal(size=(3, 4, 3, 3))
    one = char_roots(A0, A1 + A2, 0.7)
    two = char_roots_multi(A0, [A1, A2], [0.7, 0.7])
    np.testing.assert_allclose(two.roots, one.roots, rtol=1e-10)
    single = char_roots_multi(A0, [A1], [0.7])
    np.testing.assert_array_equal(single.roots, char_roots(A0, A1, 0.7).roots)


@pytest.mark.parametrize("method", ["reference", pytest.param("jax", marks=pytest.mark.slow)])
def test_per_group_delays_all_equal_are_the_common_delay_model_bit_for_bit(method):
    routes = parking_lot_routes(2)
    P = NetworkParams.parking_lot(2, flows=2)
    common = DctcpNetwork(routes)
    groups = DctcpNetwork(routes, group_delays=True)
    p = common.numeric_params(P)
    pg = {k: v for k, v in p.items() if k != "tau"} | {f"tau_{i + 1}": p["tau"] for i in range(3)}
    h = (15.0,) * 3 + (0.0,) * 3 + (0.0, 0.0)
    a = solve(common, p, h, (0.0, 0.003), method=method)
    b = solve(groups, pg, h, (0.0, 0.003), method=method)
    assert a.ok and b.ok
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.x, b.x)


def test_path_delays_are_base_rtt_plus_a_threshold_queue_per_hop():
    P = NetworkParams.parking_lot(3, K=40.0, rtt=("300us", "100us", "100us", "100us"))
    C = P.capacity[0]
    assert P.path_delays[0] == pytest.approx(300e-6 + 3 * 40.0 / C, rel=1e-15)
    assert P.path_delays[1:] == pytest.approx((100e-6 + 40.0 / C,) * 3, rel=1e-15)
    m = DctcpNetwork(parking_lot_routes(3), group_delays=True)
    assert m.state_delays(m.numeric_params(P)) == pytest.approx(P.path_delays)
    assert len(m.jacobians_delayed(1)) == 4
