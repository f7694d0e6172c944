"""Characteristic roots of x' = A0 x + A1 x(t − τ) against Lambert W, a direct quasi-polynomial Newton scan and
closed forms; the delayed DWTCP linearization against the frozen eigenvalues (11) and its exact crossing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq, newton
from scipy.special import lambertw

from dwtcp_fluid.analysis.charroots import (
    char_roots,
    cheb,
    critical_parameter,
    scalar_critical_delay,
)
from dwtcp_fluid.models.dwtcp import DwtcpFluid, eigenvalues_closed_form
from dwtcp_fluid.params import DwtcpParams, LinkParams
from dwtcp_fluid.studies.dwtcp.analysis_charroots import dwtcp_delay_spectrum, dwtcp_linearization


def _sort(lam: np.ndarray, tau: np.ndarray) -> np.ndarray:
    # decreasing real part; a conjugate pair (equal real parts up to round-off) by increasing imaginary part
    order = np.lexsort((lam.imag, -np.round(lam.real * tau[:, None], 9)), axis=-1)
    return np.take_along_axis(lam, order, axis=-1)


def test_cheb_differentiates_polynomials_exactly():
    x, D = cheb(12)
    for deg in range(0, 12):
        np.testing.assert_allclose(D @ x**deg, deg * x ** max(deg - 1, 0) * (deg > 0), atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_scalar_roots_match_lambert_w_all_branches(seed):
    # x' = a x + b x(t − τ): λ_k = a + W_k(b τ e^{−aτ})/τ, k ∈ Z (every branch is a root)
    rng = np.random.default_rng(seed)
    B, K = 300, 8
    a = rng.uniform(-2, 1, B)
    b = rng.uniform(-3, 3, B)
    tau = rng.uniform(0.2, 3, B)
    # include real-root cases: b τ e^{−aτ} ∈ [−1/e, 0) makes W_0 and W_{−1} real
    b[:20] = -rng.uniform(0.05, 0.95, 20) / (math.e * tau[:20] * np.exp(-a[:20] * tau[:20]))
    r = char_roots(a[:, None, None], b[:, None, None], tau, n_roots=K, M=24)
    ks = np.arange(-15, 16)
    lam = a[:, None] + lambertw((b * tau * np.exp(-a * tau))[:, None], k=ks[None, :]) / tau[:, None]
    lam = _sort(lam, tau)[:, :K]
    assert r.converged.all()
    err = np.abs(r.roots - lam) * tau[:, None] / np.maximum(1.0, np.abs(lam) * tau[:, None])
    assert err.max() < 1e-10, err.max()
    np.testing.assert_allclose(r.abscissa, lam.real.max(axis=-1), rtol=1e-10, atol=1e-12)


def _quasi_poly_2x2(lam: complex, A0: np.ndarray, A1: np.ndarray, tau: float) -> complex:
    # det(λI − A0 − A1 e^{−λτ}) for 2×2, written out: λ² − λ·tr(A) + det(A), A = A0 + A1 e^{−λτ}
    A = A0 + A1 * np.exp(-lam * tau)
    return lam**2 - lam * (A[0, 0] + A[1, 1]) + (A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0])


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_2x2_roots_match_a_direct_quasi_polynomial_newton_scan(seed):
    rng = np.random.default_rng(seed)
    A0 = rng.normal(size=(2, 2))
    A1 = rng.normal(size=(2, 2))
    tau = float(rng.uniform(0.5, 2.0))
    r = char_roots(A0, A1, tau, n_roots=4, M=20)
    # independent: secant iterations (SciPy newton without derivative) from a grid of complex starting points
    found = []
    for re in np.linspace(-4, 3, 15):
        for im in np.linspace(-25, 25, 41):
            try:
                z = newton(_quasi_poly_2x2, re + 1j * im, args=(A0, A1, tau), tol=1e-13, maxiter=200)
            except (RuntimeError, OverflowError):
                continue
            if np.isfinite(z) and abs(_quasi_poly_2x2(z, A0, A1, tau)) < 1e-9 * (1 + abs(z)) ** 2:
                found.append(complex(z))
    found = np.array(found)
    assert found.size > 0
    # our rightmost root is at least as far right as anything the scan found
    assert found.real.max() <= r.abscissa + 1e-9
    # every returned root is a zero of the written-out quasi-polynomial and appears in the scan
    for lam in r.roots[r.converged]:
        assert abs(_quasi_poly_2x2(lam, A0, A1, tau)) < 1e-10 * (1 + abs(lam)) ** 2
        assert np.min(np.abs(found - lam)) < 1e-10 * max(1.0, abs(lam))
    # completeness: every distinct scan root to the right of our K-th root is among ours
    kth = r.roots.reshape(-1)[-1].real
    for z in found[found.real > kth + 1e-8]:
        assert np.min(np.abs(r.roots.reshape(-1) - z)) < 1e-10 * max(1.0, abs(z))


def test_critical_delay_matches_closed_form():
    a = np.array([-1.0, 0.5, 0.0, -0.2])
    b = np.array([-2.0, -1.5, -1.0, -5.0])
    exact = scalar_critical_delay(a, b)

    def system(t):
        return (
            a[:, None, None, None] + 0 * t[..., None, None],
            b[:, None, None, None] + 0 * t[..., None, None],
            t,
        )

    tc = critical_parameter(system, np.full(4, 0.01), np.full(4, 20.0), n_scan=32)
    np.testing.assert_allclose(tc, exact, rtol=1e-8)
    # no crossing when |b| ≤ −a
    assert np.isnan(scalar_critical_delay(-2.0, 1.0))


def _params(beta=0.001, flows=10, rtt="100us", k=0.0):
    return DwtcpParams(link=LinkParams("10Gbps", rtt), flows=flows, beta=beta, k=k)


def test_dwtcp_small_delay_recovers_the_frozen_eigenvalues_11():
    P = _params(beta=0.01)
    kbar = np.array([0.5, 1.0, 5.0, 50.0]) * P.bdp
    out = dwtcp_delay_spectrum(P, kbar, delay_rtts=1e-9, n_roots=2, critical=False)
    p = DwtcpFluid().numeric_params(P)
    ev = eigenvalues_closed_form(p, kbar, P.bdp / P.flows)  # (11), sorted by imaginary part
    ours = np.sort_complex(out["roots"][:, :2])
    ref = np.sort_complex(ev)
    np.testing.assert_allclose(ours, ref, rtol=1e-6)


def test_dwtcp_linearization_entries():
    # A0 = [[−β(k̄−k)/(τ(BDP+k)), 0], [N/τ, 0]],  A1 = [[0, −βw/(τ(BDP+k))], [0, 0]]  (paper variant, delayed k̄)
    P = _params(beta=0.003, k=20.0)
    kbar, w = 150.0, P.bdp / P.flows
    A0, A1, td = dwtcp_linearization(P, kbar)
    tau, bdp = P.tau, P.bdp
    np.testing.assert_allclose(
        A0, [[-0.003 * (kbar - 20) / (tau * (bdp + 20)), 0], [P.flows / tau, 0]], rtol=1e-14
    )
    np.testing.assert_allclose(A1, [[0, -0.003 * w / (tau * (bdp + 20))], [0, 0]], rtol=1e-14)
    assert td == pytest.approx(tau)


def test_dwtcp_critical_kbar_matches_the_exact_crossing():
    # z = λτ solves z² + β(k̄/BDP) z + β e^{−z} = 0 (k = 0, τ_d = τ). At z = iω: ω² = β cos ω and
    # k̄/BDP = sin ω/ω. Solved here with brentq, independently of the pseudospectral path.
    for beta in (0.001, 0.05, 0.5):
        P = _params(beta=beta)
        omega = brentq(lambda w, b=beta: w**2 - b * math.cos(w), 1e-12, 1.5, xtol=1e-15)
        rho = math.sin(omega) / omega
        out = dwtcp_delay_spectrum(P, np.array([2.0 * P.bdp]))
        np.testing.assert_allclose(out["kbar_critical"], rho * P.bdp, rtol=1e-8)
        # the crossing pair is at ±iω/τ
        below = dwtcp_delay_spectrum(P, np.array([rho * P.bdp * (1 - 1e-6)]), critical=False)
        above = dwtcp_delay_spectrum(P, np.array([rho * P.bdp * (1 + 1e-6)]), critical=False)
        assert below["abscissa"][0] > 0 > above["abscissa"][0]
        np.testing.assert_allclose(abs(above["roots"][0, 0].imag) * P.tau, omega, rtol=1e-5)


def test_dwtcp_spectrum_is_batched_over_parameter_arrays():
    P = _params()
    p = DwtcpFluid().numeric_params(P)
    p["N"] = np.array([2.0, 10.0, 50.0])[:, None]
    kbar = np.array([0.5, 2.0]) * P.bdp
    out = dwtcp_delay_spectrum(p, kbar[None, :], n_roots=2, critical=False)
    assert out["abscissa"].shape == (3, 2)
    for i, n in enumerate([2, 10, 50]):
        one = dwtcp_delay_spectrum(P.replace(flows=n), kbar, n_roots=2, critical=False)
        np.testing.assert_allclose(out["abscissa"][i], one["abscissa"], rtol=1e-12)
    # at w = BDP/N the roots do not depend on N (only β, k̄/BDP and the delay enter)
    np.testing.assert_allclose(out["abscissa"][0], out["abscissa"][2], rtol=1e-9)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: char_roots(np.eye(2), np.eye(3), 1.0), "A1"),
        (lambda: char_roots(np.eye(2), np.eye(2), -1.0), "tau"),
        (lambda: char_roots(np.ones(3), np.ones(3), 1.0), "A0"),
        (lambda: dwtcp_delay_spectrum(_params(), 0.0), "kbar"),
        (lambda: dwtcp_delay_spectrum(_params(), 10.0, delay_rtts=0.0), "delay_rtts"),
        (lambda: cheb(1), "M"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_discretised_generator_converges_spectrally_before_polishing():
    # the raw eigenvalues of the Breda-Maset-Vermiglio matrix approach the Lambert W root geometrically in M
    from dwtcp_fluid.analysis.charroots import generator_matrix

    a, b = -0.5, -1.2  # τ = 1
    exact = a + lambertw(b * math.exp(-a), k=0)
    errs = []
    for M in (4, 8, 12, 16):
        ev = np.linalg.eigvals(generator_matrix(np.array([[[a]]]), np.array([[[b]]]), M))[0]
        errs.append(np.min(np.abs(ev - exact)))
    assert errs[1] < 1e-2 * errs[0] and errs[3] < 1e-9, errs


@pytest.mark.parametrize("variant", ["paper", "sqrt"])
def test_dwtcp_linearization_matches_finite_differences_of_the_model_rhs(variant):
    P = _params(beta=0.002, flows=4, k=10.0)
    model = DwtcpFluid(variant=variant, delay_rtts=1.0)
    p = model.numeric_params(P)
    f = model.rhs_fn(np)
    w0, q0 = P.bdp / P.flows, 60.0
    A0, A1, _ = dwtcp_linearization(P, q0, variant=variant)
    x0 = np.array([w0, q0])
    for which, A in (("x", A0), ("xd", A1)):
        J = np.empty((2, 2))
        for j in range(2):
            h = 1e-6 * max(1.0, abs(x0[j]))
            xp_, xm_ = x0.copy(), x0.copy()
            xp_[j] += h
            xm_[j] -= h
            if which == "x":
                fp, fm = f(xp_, x0, 1, p), f(xm_, x0, 1, p)
            else:
                fp, fm = f(x0, xp_, 1, p), f(x0, xm_, 1, p)
            J[:, j] = (np.array(fp, dtype=float) - np.array(fm, dtype=float)) / (2 * h)
        np.testing.assert_allclose(A, J, rtol=1e-7, atol=1e-9 * np.abs(J).max())
