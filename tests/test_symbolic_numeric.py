"""The symbolic results against independent numerics: autodiff, eigvals, ODE integration, root finding."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from dwtcp_fluid.models.dctcp import DctcpFluid
from dwtcp_fluid.models.dwtcp import DwtcpFluid
from dwtcp_fluid.studies.dctcp.derive import jf_normalized, jf_normalized_fn
from dwtcp_fluid.studies.dctcp.derive_hybrid import alpha_star, rate_ratio
from dwtcp_fluid.studies.dwtcp.derive_equilibrium import delayed_root
from dwtcp_fluid.studies.dwtcp.derive_orbits import first_integral, return_map_series
from dwtcp_fluid.studies.dwtcp.derive_variants import kbar_crit_ipg, kbar_crit_sqrt


def test_roots_11_match_eigvals():
    """The paper's closed-form roots (11), typed from the paper, against numpy.linalg.eigvals of the model's J."""
    m = DwtcpFluid()
    x, p = m.sample(1000, seed=3)
    p = {**p, "k": np.zeros_like(p["k"])}
    J = m.jacobian_fn(1)(x, p)
    w, kbar = x
    bdp = p["tau"] * p["C"]
    b = p["beta"] * kbar / (p["tau"] * bdp)
    c = p["beta"] * w * p["N"] / (p["tau"] ** 2 * bdp)
    sq = np.sqrt((b**2 - 4 * c).astype(complex))
    roots = np.stack([(-b + sq) / 2, (-b - sq) / 2], axis=-1)
    ev = np.linalg.eigvals(J)
    key = lambda z: np.sort_complex(z)  # noqa: E731
    np.testing.assert_allclose(key(roots), key(ev), rtol=1e-8, atol=1e-12 * np.abs(ev).max())


def test_alpha_recursion_21_matches_ode_integration():
    """(21) against solve_ivp of the model's α equation (R = 1 RTT) with the epoch's square-wave mark."""
    model = DctcpFluid()
    rng = np.random.default_rng(0)
    for _ in range(20):
        g, a0, dT = rng.uniform(0.01, 1), rng.uniform(0, 1), rng.uniform(1.01, 20)
        p = {"C": 1.0, "d": 1.0, "K": 0.0, "g": g, "N": 1.0}

        def f(t, y, p=p):
            u = 1.0 if t < 1 else 0.0
            return [model.rhs((1.0, y[0], 0.0), (1.0, y[0], 0.0), u, p, np)[1]]

        y1 = solve_ivp(f, (0, 1), [a0], rtol=1e-12, atol=1e-14).y[0, -1]
        y2 = solve_ivp(f, (1, dT), [y1], rtol=1e-12, atol=1e-14).y[0, -1]
        assert y2 == pytest.approx(math.exp(-g * dT) * (math.exp(g) - 1 + a0), rel=1e-9)


@pytest.mark.parametrize("w_star", [2.0, 7.5, 40.0, 300.0, 5000.0])
@pytest.mark.parametrize("g", [1e-3, 0.05, 0.5])
def test_alpha_star_23_root(w_star, g):
    """The brentq root of (23) is the limit of iterating the hybrid map (Lemma 5: f is a contraction) and nsolve."""
    a = alpha_star(w_star, g)
    if g <= 1 / math.sqrt(2 * w_star):  # assumption (22) with N = 2: there f is a contraction (Lemma 5)
        it = 0.5
        for _ in range(20000):
            it_new = math.exp(-g * (1 + w_star * it / 2)) * (math.exp(g) - 1 + it)
            if abs(it_new - it) < 1e-15:
                break
            it = it_new
        assert a == pytest.approx(it, rel=1e-9)
    al = sp.Symbol("a")
    G = al - sp.exp(-g * (1 + w_star * al / 2)) * (sp.exp(g) - 1 + al)
    assert a == pytest.approx(float(sp.nsolve(G, al, a)), rel=1e-12)
    # Theorem 3
    assert math.sqrt(1 / (2 * w_star)) - g < a < math.sqrt(2 / w_star) + g


def test_alpha_star_rejects_bad_input():
    with pytest.raises(ValueError, match="g=2"):
        alpha_star(10, 2)
    with pytest.raises(ValueError, match="w_star"):
        alpha_star(-1, 0.1)


def test_rate_ratio_exact_exceeds_asymptotic():
    for W in np.geomspace(2, 1e6, 30):
        a = (math.sqrt(1 + 2 * W) - 1) / W
        exact, asym = rate_ratio(W, a)
        assert asym <= 2 * math.log(2) + 1e-12 and exact > asym
    assert rate_ratio(10.0, (math.sqrt(21) - 1) / 10)[0] > 1.6  # the paper's 1.4 fails at moderate W*


def test_first_integral_is_conserved_along_solve_ivp():
    """H of (6) stays constant along an undelayed, unfloored decrease-phase trajectory integrated by SciPy."""
    m = DwtcpFluid(queue_floor=False)
    p = {
        "beta": 0.05,
        "beta_w": 0.05,
        "tau": 1e-4,
        "C": 8e5,
        "N": 10.0,
        "k": 20.0,
        "s_over_l": 0.04,
        "alpha": 1.0,
    }
    for variant in ("paper", "sqrt"):
        mv = DwtcpFluid(variant=variant, queue_floor=False)
        H = first_integral(variant)
        xs, ps = mv.symbols()
        Hf = sp.lambdify(list(xs) + [ps[k] for k in mv.param_names], H)
        sol = solve_ivp(
            lambda t, y, mv=mv: mv.rhs(y, y, 1, p, np),
            (0, 0.05),
            [12.0, 60.0],
            rtol=1e-11,
            atol=1e-11,
            dense_output=True,
        )
        vals = [Hf(*sol.sol(t), *[p[k] for k in mv.param_names]) for t in np.linspace(0, 0.05, 50)]
        assert np.ptp(vals) <= 1e-7 * max(1.0, abs(vals[0])), variant
        assert np.ptp(sol.y[1]) > 1.0  # the trajectory actually moved
    assert m.variant == "paper"


def test_return_map_series_against_root_finding():
    ser = sp.lambdify(sp.Symbol("e", positive=True), return_map_series(4))
    phi = lambda x: x - math.log(x)  # noqa: E731
    for e in (0.01, 0.03, 0.05):
        y = brentq(lambda y, e=e: phi(y) - phi(1 + e), 1e-9, 1 - 1e-15)
        assert ser(e) == pytest.approx(1 - y, abs=5 * e**5)
        assert 1 - y < e


def test_delayed_root_solves_its_equation():
    for kb in (0.0, 0.5, 2.0):
        lam = delayed_root(0.001, kb)
        a, b = 0.001 * kb, 0.001
        assert abs(lam**2 + a * lam + b * np.exp(-lam)) < 1e-14
    # stable above k̄ = BDP·τ_d/τ, unstable below (first-order prediction of dwtcp_equilibrium.md)
    assert delayed_root(0.001, 0.9).real > 0 > delayed_root(0.001, 1.1).real


def test_variant_thresholds_from_eigvals():
    """At k̄ slightly below/above the derived thresholds the model's eigenvalues switch between complex and real."""
    for variant, crit in (
        ("sqrt", lambda bdp, N, b: kbar_crit_sqrt(bdp, N, b)),
        ("ipg", lambda bdp, N, b: kbar_crit_ipg(bdp, b)),
        ("paper", lambda bdp, N, b: 2 * bdp / math.sqrt(b)),
    ):
        m = DwtcpFluid(variant=variant)
        tau, C, N, beta = 1e-4, 8e5, 5.0, 0.01
        bdp = tau * C
        p = {
            "beta": beta,
            "beta_w": beta,
            "tau": tau,
            "C": C,
            "N": N,
            "k": 0.0,
            "s_over_l": 0.04,
            "alpha": 1.0,
        }
        kc = crit(bdp, N, beta)
        for f, complex_expected in ((0.99, True), (1.01, False)):
            ev = np.linalg.eigvals(m.jacobian_fn(1)([bdp / N, f * kc], p))
            assert (abs(ev.imag).max() > 0) == complex_expected, (variant, f)
            assert ev.real.max() < 0


def test_jf_normalized_both_states():
    for u in (0, 1):
        J = jf_normalized_fn(u)(
            [np.array([2.0]), np.array([0.5]), np.array([0.1])], {"wbar": 3.0, "g": 0.1, "psi": 0.2}
        )
        assert J.shape == (1, 3, 3)
        assert J[0, 1, 1] == pytest.approx(-0.1 / 1.1)
    assert jf_normalized(1)[0, 1] != jf_normalized(0)[0, 1]
    with pytest.raises(ValueError, match="u=2"):
        jf_normalized_fn(2)


def test_delay_margin_matches_pseudospectral_critical_values():
    """The closed-form delay margin τ_c = atan(a/ω)/ω against the Chebyshev-pseudospectral scan of analysis.charroots."""
    from dwtcp_fluid.params import DWTCP_EVALUATION
    from dwtcp_fluid.studies.dwtcp.analysis_charroots import dwtcp_delay_spectrum
    from dwtcp_fluid.studies.dwtcp.derive_equilibrium import delay_margin, kbar_crit_delay

    for beta in (0.001, DWTCP_EVALUATION.beta_guideline):
        P = DWTCP_EVALUATION.replace(beta=beta, k=0.0)
        r = dwtcp_delay_spectrum(P, 0.5 * P.bdp, critical=True)
        assert float(r["kbar_critical"]) / P.bdp == pytest.approx(kbar_crit_delay(beta), rel=1e-8)
        assert float(r["delay_critical_rtts"]) == pytest.approx(delay_margin(0.5 * beta, beta), rel=1e-8)
    with pytest.raises(ValueError, match="beta=0"):
        kbar_crit_delay(0.0)


def _packet_summary(doc):
    """The packet pass's summary (the dict holding ``class_counts``) anywhere in the sweep's JSON document."""
    if isinstance(doc, dict):
        if "class_counts" in doc and "agreement" in doc:
            return doc
        for v in doc.values():
            found = _packet_summary(v)
            if found is not None:
                return found
    return None


@pytest.mark.slow
def test_sweep_counts_the_packet_law_proof_states(tmp_path, capsys):
    """proofs/dwtcp_packet_law.md states the packet pass of ``make sweep`` as recorded in
    docs/data/sweep-beta0.001.json (too long to re-run in ``proofs --check``): the sweep re-run here gives each
    class count, each predictor's scored points and agreements, and the Scout-faithful split by regime within
    SWEEP_COUNT_TOLERANCE = 3 points of the recorded ones (the packet runs are float32 simulations: a point near a
    class boundary may move on another CPU)."""
    import json

    from dwtcp_fluid.cli import main
    from dwtcp_fluid.studies.dwtcp.derive_packet_law import SWEEP_COUNT_TOLERANCE as tol
    from dwtcp_fluid.studies.dwtcp.derive_packet_law import sweep_counts

    c = sweep_counts()
    assert main(["sweep", "--beta", "0.001", "--out", str(tmp_path), "--json"]) == 0
    s = _packet_summary(json.loads(capsys.readouterr().out))
    assert s is not None and s["points"] == c["points"]
    counts = {k.replace(" ", "_").replace("-", "_"): v for k, v in s["class_counts"].items()}
    for key in ("steady", "oscillating", "collapse", "not_stationary"):
        assert abs(counts[key] - c[key]) <= tol, (key, counts[key], c[key])
    for name in ("condition", "simplified", "simplified-nodelay", "delay-roots", "scout-faithful"):
        scored, agree = c[name]
        got = s["agreement"][name]
        assert abs(got["scored"] - scored) <= tol, (name, got, c[name])
        assert abs(round(got["agreement"] * got["scored"]) - agree) <= tol, (name, got, c[name])
    by = s["agreement"]["scout-faithful"]["by_verdict"]
    for regime, verdict in (("standing", "steady"), ("cycle", "not_steady")):
        scored, steady = c[f"scout-faithful {regime}"]
        assert (
            abs(by[verdict]["scored"] - scored) <= tol and abs(by[verdict]["packet_steady"] - steady) <= tol
        )
