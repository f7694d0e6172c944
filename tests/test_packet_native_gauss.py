"""Gaussian RTT noise in the native loop (:mod:`dwtcp_fluid.packet.native.gauss`, with XLA's log of
:mod:`dwtcp_fluid.packet.native.xla_math`) against the JAX reference.

The reference draws √(−2 ln u₁)·cos(2π u₂) in float32 (:func:`dwtcp_fluid.packet.events._gauss`) with XLA:CPU's
log and the C library's cosf; the native loop writes both out. Checked here: the two functions equal XLA's on a
sample of the arguments the draw can take (a slow test: on all 2²⁴ of each), their accuracy against float64
NumPy (a few ulp: a transcription error of a coefficient or a quadrant shows as a large error), the draws a
standard normal, and every raw record of TIMELY and Patched TIMELY runs with Gaussian noise bit-identical on both
engines, which ``engine="auto"`` runs natively.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numba import njit
from test_packet_native import _INCAST, _RTTS, _assert_exercised, _assert_identical, _both

from dwtcp_fluid.packet import build
from dwtcp_fluid.packet import engine as E
from dwtcp_fluid.packet.batch import choose_engine, run_prepared, stack
from dwtcp_fluid.packet.native.gauss import cos32, gauss32
from dwtcp_fluid.packet.native.xla_math import log32

_2M24 = np.float32(2.0**-24)
_TWO_PI = np.float32(2 * np.pi)


@njit
def _evaluate(u1, y, seed, n):
    """log32(u1), cos32(y) and ``n`` draws of gauss32 (one compiled function for the tests of this module)."""
    a, b = np.empty_like(u1), np.empty_like(y)
    for i in range(u1.size):
        a[i] = log32(u1[i])
        b[i] = cos32(y[i])
    d = np.empty(n, np.float32)
    for i in range(n):
        d[i] = gauss32(seed, i // 16, i % 16)
    return a, b, d


def _arguments(k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The draw's arguments for 24-bit integers ``k``: u₁ = max(k·2⁻²⁴, 1e-7) and 2π·k·2⁻²⁴ (float32)."""
    u = k.astype(np.float32) * _2M24
    return np.maximum(u, np.float32(1e-7)), _TWO_PI * u


def _check_against_xla(k: np.ndarray) -> None:
    u1, y = _arguments(k)
    a, b, _ = _evaluate(u1, y, 0, 0)
    ra = np.asarray(jax.jit(jnp.log)(u1))
    rb = np.asarray(jax.jit(lambda u: jnp.cos(2.0 * jnp.pi * u))(k.astype(np.float32) * _2M24))
    for name, x, r, arg in (("log", a, ra, u1), ("cos", b, rb, y)):
        bad = np.flatnonzero(x.view(np.int32) != r.view(np.int32))
        assert bad.size == 0, f"{name}: {bad.size} differ from XLA's, first at {arg[bad[0]]!r}"
    # accuracy against float64 (independent of both): ≤ 2 ulp for the log, ≤ 1 ulp for cos
    for x, exact, tol in ((a, np.log(u1.astype(np.float64)), 2.0), (b, np.cos(y.astype(np.float64)), 1.0)):
        ulps = np.abs(x - exact) / np.spacing(np.abs(x).astype(np.float32)).astype(np.float64)
        assert ulps.max() <= tol, f"error {ulps.max():.2f} ulp"


@pytest.mark.slow
def test_log_and_cos_equal_xla_on_a_sample():
    """2¹⁶ random arguments and the ends of the range (u = 0, 2⁻²⁴, 1 − 2⁻²⁴; m near √½, the log's switch; the
    quadrant boundaries of cos)."""
    rng = np.random.default_rng(1)
    edges = [0, 1, 2, (1 << 24) - 1, 11863283, 11863284, 1 << 22, 1 << 23, 3 << 22, 1 << 21, 3 << 21]
    _check_against_xla(np.concatenate([rng.integers(0, 1 << 24, 1 << 16), edges]))


@pytest.mark.slow
def test_log_and_cos_equal_xla_on_every_argument():
    """Every argument the draw can take: the 2²⁴ values of u₁ and of 2π·u₂."""
    _check_against_xla(np.arange(1 << 24))


def test_draws_are_standard_normal():
    """10⁵ draws: mean 0 and standard deviation 1 within 0.02 (about 6 standard errors), and the fraction beyond
    ±1.96 is 5 % within 0.5 %."""
    d = _evaluate(np.ones(0, np.float32), np.ones(0, np.float32), 3, 100_000)[2].astype(np.float64)
    assert abs(d.mean()) < 0.02 and abs(d.std() - 1.0) < 0.02
    assert abs(np.mean(np.abs(d) > 1.96) - 0.05) < 0.005


def _quiet_rates(law, kw: dict) -> np.ndarray:
    """The rate integrals of the same run without noise (native loop)."""
    r = build(law, **{**kw, "rtt_noise": 0.0})
    spec = E.spec_for(r.cfg, r.engine_laws, stack([r.scenario]))
    return run_prepared(spec, [E.prepare(spec, r.scenario)], engine="native")[0]["alpha_sum"]


def _gauss_case(law, kw: dict, seeds: tuple[int, ...] = ()) -> None:
    kw = dict(kw, trace_points=20)
    ref, nat, spec = _both(law, dict(kw), seeds)
    assert "gauss-noise" in spec.features and choose_engine(spec) == "native"
    _assert_exercised(ref[0], ("rate",), law, kw)
    quiet = _quiet_rates(law, kw)
    assert not np.array_equal(ref[0]["alpha_sum"], quiet), (
        "the noise changed nothing: the equality is vacuous"
    )
    _assert_identical(ref, nat)


CASES = {"timely-gauss": ("timely", dict(flows=8, duration="3ms", rtt_noise="10us", seed=5))}
SLOW_CASES = {
    "timely-patched-gauss-rtts": (
        "timely-patched",
        dict(flows=10, duration="10ms", rtts=_RTTS, rtt_noise="30us", seed=4),
    ),
    "timely-incast-gauss": ("timely", dict(_INCAST, duration="10ms", rtt_noise_dist="gauss", seed=2)),
    "timely-patched-gauss-wide": ("timely-patched", dict(flows=8, duration="5ms", rtt_noise="100us", seed=7)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_native_records_equal_the_reference_with_gaussian_noise(name):
    _gauss_case(*CASES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_CASES))
def test_native_records_equal_the_reference_with_gaussian_noise_sweep(name):
    _gauss_case(*SLOW_CASES[name], seeds=(1, 2))


@pytest.mark.slow
def test_uniform_and_gaussian_scenarios_in_one_batch():
    """A batch with a Gaussian and a uniform scenario (the reference selects per scenario): both bit-identical."""
    kw = dict(flows=6, duration="4ms", rtt_noise="20us", trace_points=20)
    runs = [build("timely", **kw, seed=1), build("timely", **kw, rtt_noise_dist="uniform", seed=1)]
    spec = E.spec_for(runs[0].cfg, runs[0].engine_laws, stack([r.scenario for r in runs]))
    assert "gauss-noise" in spec.features
    scens = [E.prepare(spec, r.scenario) for r in runs]
    ref = run_prepared(spec, scens, workers=1, engine="jax")
    _assert_identical(ref, run_prepared(spec, scens, engine="native"))
    assert not np.array_equal(ref[0]["alpha_sum"], ref[1]["alpha_sum"])


_CHILD = """
import sys
import numpy as np
from dwtcp_fluid.packet import build, engine as E
from dwtcp_fluid.packet.batch import run_prepared, stack
r = build("timely", flows=8, duration="3ms", rtt_noise="10us", seed=5, trace_points=20)
spec = E.spec_for(r.cfg, r.engine_laws, stack([r.scenario]))
np.savez(sys.argv[1], **run_prepared(spec, [E.prepare(spec, r.scenario)], engine="native")[0])
"""


@pytest.mark.slow
def test_native_gaussian_noise_is_the_same_without_fma(tmp_path):
    """The native loop under the portability test's "sse" configuration (XLA and Numba for a CPU without FMA,
    :mod:`test_portable`) gives the records the JAX engine gives under the default one (on a CPU with FMA, the JAX
    engine's own records under "sse" differ: its log and rate law round without fused multiply-adds)."""
    import os
    import subprocess
    import sys

    from test_portable import CONFIGS

    out = tmp_path / "sse.npz"
    env = {**os.environ, "JAX_PLATFORMS": "cpu", **CONFIGS["sse"]}
    subprocess.run([sys.executable, "-c", _CHILD, str(out)], env=env, check=True, timeout=1800)
    r = build("timely", flows=8, duration="3ms", rtt_noise="10us", seed=5, trace_points=20)
    spec = E.spec_for(r.cfg, r.engine_laws, stack([r.scenario]))
    ref = run_prepared(spec, [E.prepare(spec, r.scenario)], workers=1, engine="jax")
    sse = np.load(out)
    _assert_identical(ref, [{k: sse[k] for k in sse.files}])
