"""Differentiable tuning: implicit-differentiation gradients of limit-cycle observables against central finite
differences, the implicit-function identity on the hybrid map's fixed point (closed form by SymPy), the tuner
against a brute-force grid, and bad input."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

from dwtcp_fluid.cli import main
from dwtcp_fluid.studies.dctcp import analysis_hybrid as hy
from dwtcp_fluid.studies.dctcp.analysis_cycle_grad import (
    PARAMS,
    cycle_observables,
    fixed_point_sensitivity,
    total_derivative,
)
from dwtcp_fluid.studies.dctcp.tune import TuneRange, grid_search, tune_dctcp

C = 1e10 / 8 / 1500  # 10 Gbps in 1500-byte packets/s
OBS = ("q_min", "q_max", "q_mean", "period", "throughput", "rho")


def _points() -> dict[str, np.ndarray]:
    """12 points: w̄ from 2.02 (next to the birth of the cycle) to ~60, with and without the queue floor."""
    d = np.array([1e-4, 1e-4, 1e-4, 2e-4, 3e-4, 1e-4, 2e-4, 3e-4, 1e-4, 1e-4, 3e-4, 2e-4])
    K = np.array([20.0, 20.0, 20.0, 30.0, 10.0, 65.0, 5.0, 40.0, 15.0, 20.0, 60.0, 30.0])
    g = np.array([0.05, 0.05, 0.06, 0.0625, 0.05, 0.1, 0.02, 0.3, 0.0625, 0.01, 0.008, 0.15])
    wbar = np.array([2.02, 2.1, 2.5, 5.0, 8.0, 30.0, 4.0, 12.0, 49.0, 3.0, 100.0, 20.0])
    N = (C * d + K) / wbar
    return {"K": K, "g": g, "N": N, "C": np.full(12, C), "d": d}


@pytest.fixture(scope="module")
def base() -> dict:
    th = _points()
    return {"theta": th, "obs": cycle_observables(**th)}


def test_cycle_observables_ok_and_regime(base: dict) -> None:
    o = base["obs"]
    assert np.all(o["status"] == 0) and np.all(o["cycle"])
    # the queue floor is reached at some points (throughput < 1 there) and not at others
    assert np.any(o["throughput"] < 0.999) and np.any(o["throughput"] > 1 - 1e-9)
    assert np.all((o["rho"] >= 0) & (o["rho"] < 1))


@pytest.mark.parametrize("j", range(len(PARAMS)))
def test_gradients_match_central_differences(base: dict, j: int) -> None:
    """d(observable)/d(parameter) by implicit differentiation vs central differences, relative step 1e-6.

    Tolerance: 1e-5 relative to the largest |derivative| of that observable over the 12 points (plus 1e-5
    relative to the point's own). Next to w̄ = 2 the multiplier ρ itself goes to 0 (1e-7 at w̄ = 2.02) and the
    difference quotient of ρ loses digits to cancellation, so ρ's error there is checked in absolute terms
    (1e-3·max|dρ|): the gradients stay finite, the cycle keeps a finite amplitude as w̄ → 2+.
    """
    th, o = base["theta"], base["obs"]
    name, h = PARAMS[j], 1e-6
    up = {k: v.copy() for k, v in th.items()}
    dn = {k: v.copy() for k, v in th.items()}
    up[name] = th[name] * (1 + h)
    dn[name] = th[name] * (1 - h)
    ou, od = cycle_observables(**up, y0=o["y"]), cycle_observables(**dn, y0=o["y"])
    for k in OBS:
        fd = (ou[k] - od[k]) / (2 * h * th[name])
        an = o["d" + k][:, j]
        scale = np.max(np.abs(an)) + 1e-300
        tol = (1e-3 if k == "rho" else 1e-5) * scale + 1e-5 * np.abs(an)
        np.testing.assert_array_less(np.abs(fd - an), tol + 1e-12, err_msg=f"d{k}/d{name}")


def test_birth_boundary_behaviour(base: dict) -> None:
    """Next to w̄ = 2 the cycle is superstable (ρ → 0) with a finite queue swing, not a small-amplitude birth."""
    o = base["obs"]
    assert o["rho"][0] < 1e-4 < o["rho"][2]
    assert o["q_max"][0] - o["q_min"][0] > 0.2 * (C * 1e-4 + 20.0)


def test_fixed_point_regime_closed_form() -> None:
    """w̄ ≤ 2: queue 2N − C·d, d/dN = 2, d/dd = −C, flat in K and g."""
    o = cycle_observables(20.0, 0.05, 100.0, C, 1e-4)
    assert not o["cycle"][0]
    assert o["q_mean"][0] == pytest.approx(200 - C * 1e-4)
    np.testing.assert_allclose(o["dq_mean"][0], [0, 0, 2, -1e-4, -C])


def test_implicit_identity_on_hybrid_fixed_point() -> None:
    """α* of (23), [DCTCP-A]: the implicit-differentiation helpers on the map α ↦ e^{−g(1+W*α/2)}(e^g − 1 + α)
    (partials by JAX) against −φ_θ/φ_α of the multiplied form φ = α(e^{g(1+W*α/2)} − 1) − (e^g − 1) (SymPy)."""
    a, g, w = sp.symbols("alpha g w", positive=True)
    phi = a * (sp.exp(g * (1 + w * a / 2)) - 1) - (sp.exp(g) - 1)
    exact = sp.lambdify((a, g, w), [-sp.diff(phi, g) / sp.diff(phi, a), -sp.diff(phi, w) / sp.diff(phi, a)])

    def res(z: jnp.ndarray) -> jnp.ndarray:  # P(α; g, W*) − α
        al, gg, ww = z
        return jnp.exp(-gg * (1 + ww * al / 2)) * (jnp.expm1(gg) + al) - al

    with jax.enable_x64(True):
        for gv, wv in [(1 / 16, 10.0), (0.2, 40.0), (0.01, 200.0), (0.5, 3.0)]:
            ast = float(hy.alpha_star(wv, gv))
            J = np.asarray(jax.jacfwd(res)(jnp.array([ast, gv, wv])))
            dy = fixed_point_sensitivity(J[None, None, :1], J[None, None, 1:])[0]
            # α* is itself the observable: do/dy = 1, do/dθ = 0
            tot = total_derivative(np.ones((1, 1)), np.zeros((1, 2)), dy[None])[0]
            np.testing.assert_allclose(tot, exact(ast, gv, wv), rtol=1e-10)
            # and against central differences of the paper-equation root finder
            fd = (hy.alpha_star(wv, gv * (1 + 1e-6)) - hy.alpha_star(wv, gv * (1 - 1e-6))) / (2e-6 * gv)
            assert tot[0] == pytest.approx(float(fd), rel=1e-6)


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_tuner_agrees_with_grid_search() -> None:
    """SLSQP with the implicit gradients lands within one grid spacing of the brute-force grid optimum, at an
    objective no worse than the grid's, with fewer cycle solves."""
    rng = TuneRange("10Gbps", ("100us", "200us"), (2, 8), points=2)
    r = tune_dctcp(rng)
    assert r.ok
    # fine enough to resolve the vertex of the two active constraints (on a coarser grid the best feasible point
    # can sit elsewhere on the constraint boundary, where the objective is flat in g)
    Ks, gs = np.linspace(5, 60, 12), np.geomspace(0.004, 0.2, 10)
    G = grid_search(rng, Ks, gs)
    assert abs(r.K - G["K"]) <= Ks[1] - Ks[0]
    assert abs(np.log(r.g / G["g"])) <= np.log(gs[1] / gs[0])
    s = r.summary()
    assert s.objective_value <= G["objective_value"] + 1e-6
    assert s.throughput_min >= 0.99 - 1e-4 and s.rho_max <= 0.9 + 1e-4
    assert r.cycle_solves * 5 < G["cycle_solves"]  # the ≥ 10× claim is on the full range: benchmarks/tune.py


def test_tune_range_bad_input() -> None:
    with pytest.raises(ValueError, match="rtt"):
        TuneRange("10Gbps", ("300us", "100us"), (2, 10))
    with pytest.raises(ValueError, match="flows"):
        TuneRange("10Gbps", ("100us", "300us"), (0, 10))
    with pytest.raises(ValueError, match="points"):
        TuneRange(points=1)
    with pytest.raises(ValueError, match="objective"):
        tune_dctcp(TuneRange(), objective="latency")
    with pytest.raises(ValueError, match="rho_max"):
        tune_dctcp(TuneRange(), rho_max=1.0)
    for unresolvable in (1e-320, 1e-12, 1e-7):  # below what float64 resolves of ρ: refused before any work
        with pytest.raises(ValueError, match=r"rho_max=.* accepted 1e-06 <= rho_max < 1"):
            tune_dctcp(TuneRange(), rho_max=unresolvable)
    with pytest.raises(ValueError, match="g="):
        cycle_observables(20.0, 1.5, 2.0, C, 1e-4)


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--rtt", "300us:100us"], "--rtt"),
        (["--rtt", "fast"], "--rtt"),
        (["--flows", "0:10"], "--flows"),
        (["--flows", "a:b"], "--flows"),
        (["--objective", "latency"], "--objective"),
        (["--throughput-min", "1.5"], "--throughput-min"),
        (["--rho-max", "0"], "--rho-max"),
        (["--rho-max", "1e-320"], "1e-06 <= rho_max < 1"),
        (["--rho-max", "1e-12"], "1e-06 <= rho_max < 1"),
        (["--points", "12"], "--points"),
        (["--capacity", "fast"], "--capacity"),
        (["--max-seconds", "0"], "--max-seconds"),
        (["--max-seconds", "nan"], "--max-seconds"),
    ],
)
def test_tune_cli_bad_input(args: list[str], flag: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["tune", "dctcp", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0]
