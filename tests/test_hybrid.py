"""DCTCP hybrid model (section 4 of [DCTCP-A]) against independent references."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from dwtcp_fluid.studies.dctcp import analysis_hybrid as h

GRID_W = [2.0, 3.0, 10.0, 31.6, 100.0, 316.0, 1000.0, 5000.0]
GRID_G = [1e-4, 1e-3, 0.01, 0.0625, 0.2, 0.5, 1.0]


def _brentq_alpha(wstar: float, g: float) -> float:
    # (23) exactly as printed, solved by SciPy: an independent path from the module's bisection on φ.
    def f(a: float) -> float:
        return math.exp(-g * (1 + wstar * a / 2)) * (math.exp(g) - 1 + a) - a

    return brentq(f, 1e-14, 1.0, xtol=1e-16, rtol=4 * np.finfo(float).eps, maxiter=500)


def test_alpha_star_matches_brentq_on_23():
    W, G = np.meshgrid(GRID_W, GRID_G, indexing="ij")
    a = h.alpha_star(W, G)
    ref = np.vectorize(_brentq_alpha)(W, G)
    # (23) as printed cancels to O(g): its root is only determined to ~eps/g; rtol reflects that.
    np.testing.assert_allclose(a, ref, rtol=1e-9)
    assert np.all((a > 0) & (a <= 1))


def test_alpha_star_small_g_limit():
    W = np.array(GRID_W)
    np.testing.assert_allclose(h.alpha_star(W, 1e-9), h.alpha_star_small_g(W), rtol=1e-6)
    # α0 solves W·α²/2 + α − 1 = 0
    a0 = h.alpha_star_small_g(W)
    np.testing.assert_allclose(W * a0**2 / 2 + a0 - 1, 0, atol=1e-14)


@pytest.mark.parametrize("g", [0.02, 0.2])
def test_alpha_star_is_the_limit_of_a_long_simulation(g):
    rng = np.random.default_rng(7)
    W_max, N = 300.0, 3
    W0 = rng.uniform(1, 150, size=(5, N))
    A0 = rng.uniform(0, 1, size=(5, N))
    traj = h.simulate_hybrid(W0, A0, g, W_max, 6000)
    astar = h.alpha_star(W_max / N, g)
    np.testing.assert_allclose(traj.alpha[:, -1, :], astar, rtol=1e-10)
    np.testing.assert_allclose(traj.W[:, -1, :], W_max / N, rtol=1e-8)


def test_21_matches_numerical_integration_of_the_alpha_ode():
    # dα/dt = g(p − α), p = 1 on [0, 1) (the marked RTT) and 0 after, integrated by solve_ivp over one epoch.
    rng = np.random.default_rng(3)
    for _ in range(8):
        W = rng.uniform(5, 100, size=4)
        W *= 200.0 / W.sum()  # Σ W = W_max, the setting of (19)
        alpha = rng.uniform(0, 1, size=4)
        g = float(rng.uniform(0.01, 1.0))
        W1, a1, dT = h.hybrid_step(W, alpha, g, 200.0)
        np.testing.assert_allclose(dT, 1 + np.sum(W * alpha) / (2 * 4), rtol=1e-14)  # (19) as printed
        np.testing.assert_allclose(W1.sum(), 200.0, rtol=1e-13)  # (20) conserves Σ W = W_max

        def rhs(t, a, g=g):
            return g * (1.0 - a) if t < 1.0 else -g * a

        s1 = solve_ivp(rhs, (0, 1), alpha, rtol=1e-12, atol=1e-14, method="DOP853")
        s2 = solve_ivp(rhs, (1, float(dT)), s1.y[:, -1], rtol=1e-12, atol=1e-14, method="DOP853")
        np.testing.assert_allclose(a1, s2.y[:, -1], rtol=1e-10, atol=1e-13)


def test_theorem3_bounds_hold_on_a_grid():
    W = np.geomspace(2, 1e4, 120)[:, None]
    G = np.geomspace(1e-5, 1, 120)[None, :]
    a = h.alpha_star(W, G)
    lo, hi = h.theorem3_bounds(W, G)
    viol = ~((lo < a) & (a < hi))
    # A violation would be a finding about Theorem 3 (report it); none occurs on W* ∈ [2, 1e4] × g ∈ [1e-5, 1].
    assert not viol.any(), f"Theorem 3 violated at W*={W[np.nonzero(viol)[0]]}, g={G[0, np.nonzero(viol)[1]]}"


@pytest.mark.parametrize(
    "W_max,N,g",
    [
        (200.0, 2, 0.07),  # g > γ: window-limited, rate γ
        (200.0, 2, 0.003),  # g < γ: α-limited, rate g
        (400.0, 4, 0.02),
    ],
)
def test_hybrid_convergence_rate_matches_25(W_max, N, g):
    rng = np.random.default_rng(11)
    W0 = rng.uniform(1, W_max / N, size=(3, N))
    A0 = rng.uniform(0, 1, size=(3, N))
    traj = h.simulate_hybrid(W0, A0, g, W_max, 3000)
    rate = h.fitted_rate(traj)
    pred = h.rate_dctcp(W_max / N, g)
    # the α-limited branch decays like n·e^{−gT}: the fit over a finite window sits slightly below g
    np.testing.assert_allclose(rate, pred, rtol=0.01)


def test_tcp_rate_26():
    # TCP = the hybrid model with α ≡ 1 (g = 0 freezes α): differences halve every epoch of 1 + W*/2 RTTs.
    W_max, N = 180.0, 3
    traj = h.simulate_hybrid([[170.0, 5.0, 5.0]], [[1.0, 1.0, 1.0]], 0.0, W_max, 60)
    np.testing.assert_allclose(h.fitted_rate(traj, start_frac=0.2), h.rate_tcp(W_max / N), rtol=1e-8)


def test_theorem2_bound_holds_along_trajectories():
    rng = np.random.default_rng(5)
    W_max, N = 200.0, 2
    for g in [1 / math.sqrt(W_max), 5 / W_max, 1 / W_max]:  # all satisfy (22)
        traj = h.simulate_hybrid(rng.uniform(0, 100, (4, N)), rng.uniform(0, 1, (4, N)), g, W_max, 2000)
        n = np.arange(traj.T.shape[-1])
        bound = h.theorem2_bound(n, traj.T, W_max / N, W_max, g)
        dev = np.max(np.abs(traj.W - W_max / N), axis=-1)
        # below ~1e-10 packets the deviation is round-off, which no exponential bound can dominate forever
        resolved = dev > 1e-10
        assert resolved.sum() > 100
        assert np.all(dev[resolved] < np.broadcast_to(bound, dev.shape)[resolved])


def test_rate_ratio_exceeds_the_asymptote_and_approaches_it():
    W = np.geomspace(10, 1e6, 50)
    r = h.rate_ratio(W)["ratio_gamma"]
    assert np.all(r > h.LN2X2)
    assert np.all(np.diff(r) < 0)
    assert abs(r[-1] - h.LN2X2) < 0.01
    # W* = 10 by hand: α0 = (√21 − 1)/10, γ = −ln(1 − α0/2)/(1 + 5α0), β_TCP = ln 2/6
    a0 = (math.sqrt(21) - 1) / 10
    np.testing.assert_allclose(r[0], (math.log(2) / 6) / (-math.log(1 - a0 / 2) / (1 + 5 * a0)), rtol=1e-13)


def test_fig12_shape():
    r = h.fig12_experiment(n_epochs=400)
    tw = r["t_window_ms"]
    assert np.all(np.isfinite(tw))
    assert tw[0] < tw[1] < tw[2]  # smaller g converges slower
    assert tw[3] < tw[0]  # TCP is faster than DCTCP
    # α converges much faster than W at g = 1/sqrt(W_max); about as fast at g = 1/W_max
    assert r["t_alpha"][0] < 0.3 * r["t_window"][0]
    assert r["t_alpha"][2] > 0.8 * r["t_window"][2]


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"wstar": -1.0, "g": 0.1}, "wstar"),
        ({"wstar": 10.0, "g": 0.0}, "g"),
        ({"wstar": 10.0, "g": 1.5}, "g"),
    ],
)
def test_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        h.alpha_star(**kwargs)


def test_simulate_bad_input():
    with pytest.raises(ValueError, match="alpha0"):
        h.simulate_hybrid([[1.0, 2.0]], [[0.5, 1.5]], 0.1, 100.0, 5)
    with pytest.raises(ValueError, match="n_epochs"):
        h.simulate_hybrid([[1.0, 2.0]], [[0.5, 0.5]], 0.1, 100.0, 0)


def _run_cli(argv: list[str]) -> int:
    from dwtcp_fluid.cli import main

    try:
        return main(argv)
    except SystemExit as e:  # accept either convention of main(): return the status or exit with it
        return int(e.code or 0)


def test_cli_hybrid_json(capsys):
    assert _run_cli(["dctcp", "hybrid", "--wstar", "100", "--g", "0.0625", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("alpha_star", "rate_dctcp", "rate_tcp", "rate_ratio", "alpha_bounds"):
        assert key in out
    np.testing.assert_allclose(out["alpha_star"], _brentq_alpha(100.0, 0.0625), rtol=1e-9)
    assert out["alpha_bounds"][0] < out["alpha_star"] < out["alpha_bounds"][1]


def test_cli_hybrid_bad_flag(capsys):
    assert _run_cli(["dctcp", "hybrid", "--wstar", "-3", "--g", "0.1", "--json"]) == 2
    err = capsys.readouterr().err
    assert "--wstar" in err and "\n" == err[-1] and err.count("\n") == 1
