"""The two DDE solvers against each other and against the papers' closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.dde import solve
from dwtcp_fluid.models import DctcpFluid, DwtcpFluid
from dwtcp_fluid.params import DCTCP_ANALYSIS, DwtcpParams, LinkParams

H0 = [1.0, 0.0, 0.0]  # W = 1, α = 0, q = 0 before t = 0


def _max_dq(P, T=0.1):
    ref = solve(DctcpFluid(), P, H0, (0.0, T))
    jx = solve(DctcpFluid(), P, H0, (0.0, T), method="jax")
    assert ref.ok and jx.ok
    return np.abs(jx.x[0, :, 2] - ref(jx.t)[:, 2]).max(), ref, jx


@pytest.mark.parametrize("N", [2, 10, 100])
def test_scipy_and_jax_agree_on_dctcp(N):
    """max |Δq| ≤ 1e-3 packets over 100 ms at the default JAX step (d/20); N = 2 hits the queue floor."""
    err, ref, _ = _max_dq(DCTCP_ANALYSIS.replace(flows=N))
    assert err <= 1e-3, err


def test_scipy_and_jax_agree_on_random_draws():
    rng = np.random.default_rng(4)
    for _ in range(2):
        P = DCTCP_ANALYSIS.replace(
            link=LinkParams("10Gbps", f"{rng.uniform(50, 300):.1f}us"),
            flows=int(rng.integers(2, 40)),
            K=float(rng.uniform(10, 120)),
            g=float(rng.uniform(0.01, 0.3)),
        )
        err, _, _ = _max_dq(P, T=0.03)
        assert err <= 1e-3, (P, err)


def test_floor_is_a_sliding_mode():
    """N = 2 starts with an empty queue held at 0 and later empties it again; q never goes below 0."""
    _, ref, jx = _max_dq(DCTCP_ANALYSIS.replace(flows=2), T=0.03)
    assert ref.x[0, :, 2].min() >= 0.0 and jx.x[0, :, 2].min() >= 0.0
    assert np.any(ref(np.linspace(0.001, 0.03, 3000))[:, 2] == 0.0)


def test_n100_converges_to_fixed_point():
    """w̄ ≤ 2: (W, α, q) → (2, 1, 2N − C·d) = (2, 1, 116.67) (section 3.1 of [DCTCP-A])."""
    P = DCTCP_ANALYSIS.replace(flows=100)
    assert P.wbar <= 2
    for method in ("reference", "jax"):
        sol = solve(DctcpFluid(), P, H0, (0.0, 0.1), method=method)
        W, a, q = sol(np.array([0.1]))[0]
        assert abs(W - 2) < 1e-3 and abs(a - 1) < 1e-3 and abs(q - (200 - P.link.bdp)) < 0.05, (
            method,
            W,
            a,
            q,
        )
        assert sol.summary()["period_s"] is None


def test_undelayed_dwtcp_decrease_conserves_first_integral():
    """H = β q²/(2τ·BDP) + N w/τ − C ln w is constant on (6) without delay (docs/equations.md), to 1e-8 over 100 RTTs."""
    # β = 1e-4: the decrease orbit turns at ω ≈ sqrt(β)/τ, so q (started at its maximum, w at the fair share)
    # stays above k = 0, i.e. in the decrease phase, for ≈ π/(2ω) ≈ 157 RTTs
    P = DwtcpParams(flows=10, beta=1e-4, k=0.0)
    model = DwtcpFluid(queue_floor=False)
    p = model.numeric_params(P)
    x0 = [P.window_fair_share, 200.0]
    sol = solve(model, p, x0, (0.0, 100 * P.tau), rtol=1e-12, atol=1e-12)
    t = np.linspace(0, 100 * P.tau, 2001)
    w, q = sol(t).T
    assert q.min() > 0
    bdp = P.bdp
    H = p["beta"] * q**2 / (2 * p["tau"] * bdp) + p["N"] * w / p["tau"] - p["C"] * np.log(w)
    assert np.abs(H / H[0] - 1).max() < 1e-8


def test_delayed_dwtcp_solvers_agree():
    """DWTCP with the one-RTT Scout delay (k̄ = q(t − τ) in the decrease): reference vs JAX."""
    P = DwtcpParams(flows=10)
    model = DwtcpFluid(delay_rtts=1.0)
    ref = solve(model, P, [1.0, 0.0], (0.0, 0.03))
    jx = solve(model, P, [1.0, 0.0], (0.0, 0.03), method="jax")
    assert np.abs(jx.x[0, :, 1] - ref(jx.t)[:, 1]).max() < 1e-3


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_batched_equals_one_by_one():
    model = DctcpFluid()
    Ps = [DCTCP_ANALYSIS.replace(flows=n, g=g) for n, g in [(5, 0.05), (10, 1 / 16), (40, 0.2)]]
    batch = solve(model, Ps, H0, (0.0, 0.01), method="jax", dt=1e-5)
    for i, P in enumerate(Ps):
        one = solve(model, P, H0, (0.0, 0.01), method="jax", dt=1e-5)
        np.testing.assert_allclose(batch.x[i], one.x[0], rtol=1e-12, atol=1e-10)
    ref_batch = solve(model, Ps[:2], H0, (0.0, 0.01))
    ref_one = solve(model, Ps[1], H0, (0.0, 0.01))
    np.testing.assert_allclose(ref_batch(ref_one.t, element=1), ref_one.x[0], rtol=1e-12, atol=1e-12)


def test_dataset_export_has_units_and_provenance():
    sol = solve(DctcpFluid(), DCTCP_ANALYSIS, H0, (0.0, 0.005))
    ds = sol.to_dataset()
    assert ds["q"].attrs["units"] == "packets"
    assert ds.attrs["solver"] == "reference" and "rtol" in ds.attrs["solver_options"]
    assert float(ds["K"][0]) == 65.0


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_batch_split_across_devices_equals_single_device(tmp_path):
    """With two XLA CPU devices the batch is sharded (pmap); the results are those of one device."""
    import subprocess
    import sys

    code = (
        # 64-bit mode is left off here: the solver must scope it itself (float32 would miss 1e-12 below)
        "import os, numpy as np, jax\n"
        "from dwtcp_fluid.dde import solve\nfrom dwtcp_fluid.models import DctcpFluid\n"
        "from dwtcp_fluid.params import DCTCP_ANALYSIS as P\n"
        "assert jax.local_device_count() == 2\n"
        "Ps = [P.replace(flows=n) for n in (3, 10, 30, 100)]\n"
        "s = solve(DctcpFluid(), Ps, [1, 0, 0], (0, 0.01), method='jax', dt=1e-5)\n"
        "assert s.x.dtype == np.float64 and not jax.config.jax_enable_x64\n"
        f"np.save({str(tmp_path / 'x.npy')!r}, s.x)\n"
    )
    env = dict(
        __import__("os").environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu"
    )
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    Ps = [DCTCP_ANALYSIS.replace(flows=n) for n in (3, 10, 30, 100)]
    one = solve(DctcpFluid(), Ps, H0, (0.0, 0.01), method="jax", dt=1e-5)
    np.testing.assert_allclose(np.load(tmp_path / "x.npy"), one.x, rtol=1e-12, atol=1e-10)
