"""Frozen Jacobian (8), characteristic polynomial (10), roots (11) and condition (14) of [DWTCP].

References: the closed forms as printed in the paper (typed here from docs/equations.md, independently of the model
code), ``numpy.linalg.eigvals``, and exact rational arithmetic for the sign of the discriminant.
"""

import numpy as np
import pytest
import sympy as sp

from dwtcp_fluid.analysis.linear import CLASSES, classify_2x2
from dwtcp_fluid.models.dwtcp import (
    DwtcpFluid,
    char_poly_decrease,
    eigenvalues_closed_form,
    eigenvalues_decrease,
    frozen_jacobian,
    jacobian_decrease,
)

rng = np.random.default_rng(20261122)


def _random_params(n):
    C = 10 ** rng.uniform(4, 7, n)  # packets/s
    tau = 10 ** rng.uniform(-5, -2, n)  # s
    N = rng.integers(1, 1000, n).astype(float)
    beta = 10 ** rng.uniform(-4, 0, n)
    kbar = 10 ** rng.uniform(0, 5, n)
    w = 10 ** rng.uniform(-1, 3, n)
    p = {"beta": beta, "beta_w": beta, "tau": tau, "C": C, "N": N, "k": 0.0, "s_over_l": 0.0, "alpha": 1.0}
    return p, kbar, w


def test_symbolic_jacobian_is_eq8():
    w, q, beta, tau, C, N = sp.symbols("w q beta tau C N", positive=True)
    J = jacobian_decrease().subs({sp.Symbol("k", positive=True): 0})
    BDP = tau * C
    J8 = sp.Matrix([[-beta * q / (tau * BDP), -beta * w / (tau * BDP)], [N / tau, 0]])
    xs, ps = DwtcpFluid().symbols()
    sub = {xs[0]: w, xs[1]: q, ps["beta"]: beta, ps["tau"]: tau, ps["C"]: C, ps["N"]: N}
    assert sp.simplify(J.subs(sub) - J8) == sp.zeros(2, 2)


def test_char_poly_is_eq10():
    lam = sp.Symbol("lam")
    xs, ps = DwtcpFluid().symbols()
    w, kbar = xs
    beta, tau, C, N = ps["beta"], ps["tau"], ps["C"], ps["N"]
    BDP = tau * C
    eq10 = lam**2 + lam * beta * kbar / (tau * BDP) + beta * w * N / (tau**2 * BDP)
    assert sp.simplify(char_poly_decrease().subs(ps["k"], 0) - eq10) == 0


def test_lambdified_jacobian_matches_eq8_numerically():
    p, kbar, w = _random_params(2000)
    J = frozen_jacobian(p, kbar, w)
    bdp = p["tau"] * p["C"]
    np.testing.assert_allclose(J[:, 0, 0], -p["beta"] * kbar / (p["tau"] * bdp), rtol=1e-13)
    np.testing.assert_allclose(J[:, 0, 1], -p["beta"] * w / (p["tau"] * bdp), rtol=1e-13)
    np.testing.assert_allclose(J[:, 1, 0], p["N"] / p["tau"], rtol=1e-13)
    assert np.all(J[:, 1, 1] == 0)


def test_eigenvalues_three_ways():
    p, kbar, w = _random_params(2000)
    bdp = p["tau"] * p["C"]
    # (11) as printed: λ = (−a ± sqrt(a² − 4b))/2, a = β·k̄/(τ·BDP), b = β·w·N/(τ²·BDP).
    a = p["beta"] * kbar / (p["tau"] * bdp)
    b = p["beta"] * w * p["N"] / (p["tau"] ** 2 * bdp)
    r = np.sqrt((a**2 - 4 * b).astype(complex))
    eq11 = np.stack([(-a - r) / 2, (-a + r) / 2], axis=-1)
    eq11 = np.take_along_axis(eq11, np.argsort(eq11.imag, axis=-1), axis=-1)
    sym = eigenvalues_closed_form(p, kbar, w)
    num = eigenvalues_decrease(p, kbar, w)
    scale = np.abs(eq11).max(axis=-1, keepdims=True)
    # Sorting by imaginary part leaves real pairs in either order: compare as sets.
    for got in (sym, num):
        d = np.minimum(
            np.abs(np.sort_complex(got) - np.sort_complex(eq11)).max(axis=-1),
            np.abs(got - eq11).max(axis=-1),
        )
        assert np.all(d <= 1e-7 * scale[:, 0])


@pytest.mark.parametrize("beta", [1e-4, 1e-3, 0.05, 1.0])
@pytest.mark.parametrize("bdp", [10, 83, 5000])
def test_discriminant_sign_exactly_on_both_sides_of_kbar_crit(beta, bdp):
    lam = sp.Symbol("lam")
    xs, ps = DwtcpFluid().symbols()
    poly = sp.Poly(char_poly_decrease(), lam)
    a2, a1, a0 = poly.all_coeffs()
    disc = sp.simplify(a1**2 - 4 * a2 * a0)
    beta_r, bdp_r, tau_r, N_r = sp.Rational(str(beta)), sp.Integer(bdp), sp.Rational(1, 10000), sp.Integer(7)
    kcrit = 2 * bdp_r / sp.sqrt(beta_r)
    vals = {
        ps["beta"]: beta_r,
        ps["tau"]: tau_r,
        ps["C"]: bdp_r / tau_r,
        ps["N"]: N_r,
        ps["k"]: 0,
        xs[0]: bdp_r / N_r,
    }
    for factor, sign in ((1 - sp.Rational(1, 10**9), -1), (1 + sp.Rational(1, 10**9), 1), (1, 0)):
        d = sp.nsimplify(disc.subs(vals).subs(xs[1], kcrit * factor))
        assert sp.sign(sp.simplify(d)) == sign
    p = {k: float(v) for k, v in {"beta": beta, "tau": 1e-4, "C": bdp / 1e-4, "N": 7}.items()}
    p.update(beta_w=beta, k=0.0, s_over_l=0.0, alpha=1.0)
    kc = 2 * bdp / np.sqrt(beta)
    cls = classify_2x2(frozen_jacobian(p, np.array([kc * (1 - 1e-4), kc * (1 + 1e-4)]), bdp / 7))
    assert [CLASSES[c] for c in cls] == ["spiral", "node"]


def test_increase_phase_jacobian_is_nilpotent():
    m = DwtcpFluid()
    J = m.jacobian(0)
    xs, ps = m.symbols()
    assert J == sp.Matrix([[0, 0], [ps["N"] / ps["tau"], 0]])
    assert J**2 == sp.zeros(2, 2)
    assert CLASSES[int(classify_2x2(np.array([[0.0, 0.0], [1e5, 0.0]])))] == "nilpotent"
