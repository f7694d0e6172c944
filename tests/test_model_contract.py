"""One contract, every registered model (dwtcp_fluid.models.registry), every backend.

For each model: its declarations are consistent; the right-hand side written once against ``xp`` gives the same
numbers through SymPy (lambdified), NumPy and JAX; the symbolic Jacobian equals ``jax.jacfwd`` of the JAX
right-hand side; the event-exact SciPy reference and the batched JAX solver agree on a short run; and the summary
reads the model's observables the same way from both. A FluidModel subclass without a registry entry fails.
"""

from __future__ import annotations

import inspect
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

import dwtcp_fluid.models as models_pkg
from dwtcp_fluid.dde import solve
from dwtcp_fluid.dde.problem import numeric_params
from dwtcp_fluid.models.base import FluidModel
from dwtcp_fluid.models.registry import MODELS
from dwtcp_fluid.results import Status

CASES = list(MODELS.values())
IDS = [c.key for c in CASES]
#: Cases whose model class a fast case already runs through both solvers (the same right-hand side with other
#: routes, ramp marking or another DWTCP variant): their two-solver runs are checked by ``make test-all``.
SLOW_RUNS = frozenset(
    {
        "dwtcp-sqrt-delayed",
        "dwtcp-ipg-delayed",
        "dctcp-network-paths",
        "dctcp-network-ramp",
        "timely-network-paths",
    }
)
assert SLOW_RUNS <= set(IDS), SLOW_RUNS - set(IDS)
RUN_CASES = [
    pytest.param(c, id=c.key, marks=(pytest.mark.slow,) if c.key in SLOW_RUNS else ()) for c in CASES
]
#: Backends the right-hand side is evaluated with, compared with NumPy.
BACKENDS = ("sympy", "jax")


def _points(model: FluidModel, n: int, seed: int):
    """States, delayed states (one independent draw per delay: the rhs's ``xd`` argument) and parameters."""
    x, p = model.sample(n, seed)
    copies = [model.sample(n, seed + 1000 * (j + 1))[0] for j in range(model.delay_count())]
    return x, model.pack_delayed(copies), p


def _copies(model: FluidModel, xd):
    return [xd] if model.delay_count() == 1 else list(xd)


def test_every_model_class_is_registered():
    import pkgutil
    from importlib import import_module

    classes = set()
    for info in pkgutil.iter_modules(models_pkg.__path__):
        mod = import_module(f"{models_pkg.__name__}.{info.name}")
        for _, obj in inspect.getmembers(mod, inspect.isclass):
            if issubclass(obj, FluidModel) and obj is not FluidModel and obj.__module__ == mod.__name__:
                classes.add(obj)
    covered = {type(c.model) for c in CASES}
    assert classes - covered == set(), "register these models in dwtcp_fluid/models/registry.py"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_declarations(case):
    m = case.model
    n = len(m.states)
    p = numeric_params(m, case.params)
    assert set(p) == set(m.param_names)
    assert len(m.state_units) == n and m.time_unit in ("s", "R*")
    assert set(m.sample_domain) >= set(m.states) | set(m.param_names)
    for bounds in (m.floors(p), m.ceilings(p)):
        assert all(0 <= i < n and math.isfinite(b) for i, b in bounds.items())
    delays = m.switch_delays(p)
    assert len(delays) >= 1 and all(d >= 0 for d in delays) and m.delay(p) >= 0
    obs = m.observables(tuple(np.asarray(case.history, float)), p, np)
    assert {"queue", "window", "utilization"} <= set(obs)
    assert 0.0 <= float(obs["utilization"]) <= 1.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rhs_is_the_same_in_every_backend(case, backend):
    """F(x, x(t − τ_d), u) at 200 random points and u ∈ {0, 1}: SymPy (lambdified) and JAX against NumPy."""
    m = case.model
    x, xd, p = _points(m, 200, seed=11)
    for u in (0.0, 1.0):
        ref = np.stack(np.broadcast_arrays(*m.rhs(x, xd, u, p, np)), axis=-1)
        if backend == "jax":
            with jax.enable_x64(True):
                got = m.rhs(
                    [jnp.asarray(v) for v in x],
                    m.pack_delayed([[jnp.asarray(v) for v in c] for c in _copies(m, xd)]),
                    u,
                    {k: jnp.asarray(v) for k, v in p.items()},
                    jnp,
                )
                got = np.stack(np.broadcast_arrays(*[np.asarray(v) for v in got]), axis=-1)
        else:
            xs, ps = m.symbols()
            xds = [v for c in m.delayed_symbol_sets() for v in c]
            F = m.sym_rhs(int(u), delayed=True)
            args = [*xs, *xds, *(ps[k] for k in m.param_names)]
            fn = sp.lambdify(args, list(F), modules="numpy")
            vals = fn(*x, *(v for c in _copies(m, xd) for v in c), *(p[k] for k in m.param_names))
            got = np.stack(np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in vals]), axis=-1)
        scale = np.maximum(np.abs(ref), 1e-300)
        rel = np.where(got == ref, 0.0, np.abs(got - ref) / scale)
        assert float(rel.max()) <= 1e-12, (backend, u)


@pytest.mark.parametrize("u", [0, 1])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_symbolic_jacobian_matches_jax_jacfwd(case, u):
    """``model.jacobian_fn(u)`` (SymPy, simplified, lambdified) against ``jax.jacfwd`` at 500 random points."""
    m = case.model
    x, _, p = _points(m, 500, seed=7 + u)
    J_sym = m.jacobian_fn(u)(x, p)
    with jax.enable_x64(True):

        def f(xv, pv):
            xs = tuple(xv[i] for i in range(len(m.states)))
            return jnp.stack(m.rhs(xs, m.pack_delayed([xs] * m.delay_count()), u, pv, jnp))

        X = jnp.stack([jnp.asarray(v, dtype=jnp.float64) for v in x], axis=-1)
        P = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in p.items()}
        J_ad = np.asarray(jax.vmap(jax.jacfwd(f))(X, P))
    diff = np.abs(J_sym - J_ad)
    rel = np.where(diff == 0, 0.0, diff / np.maximum(np.abs(J_ad), 1e-300))
    assert float(rel.max()) <= 1e-10


@pytest.fixture(scope="module")
def runs():
    """Reference and JAX runs of every case (solved once for the tests below)."""
    return {}


def _run(runs, case):
    if case.key not in runs:
        ref = solve(case.model, case.params, case.history, case.t_span)
        # the JAX solver's step-doubling check at the agreement the case accepts (relative to 1 + max|x|, all states)
        tol = case.agreement * (1.0 + float(np.max(np.abs(ref.x))))
        jx = solve(case.model, case.params, case.history, case.t_span, method="jax", atol=tol, rtol=1e-12)
        runs[case.key] = (ref, jx)
    return runs[case.key]


@pytest.mark.parametrize("case", RUN_CASES)
def test_reference_and_jax_solvers_agree(case, runs):
    ref, jx = _run(runs, case)
    assert ref.ok and jx.ok, (ref.describe(), jx.describe())
    x_ref = np.asarray(ref(jx.t, 0))
    err = np.max(np.abs(x_ref - jx.x[0])) / (1.0 + np.max(np.abs(x_ref)))
    assert err <= case.agreement
    # the run switches at least once, so the events are exercised (crossings of the history included)
    assert len(ref.crossings[0]) >= 1


@pytest.mark.parametrize("case", RUN_CASES)
def test_summary_reads_the_observables(case, runs):
    ref, jx = _run(runs, case)
    a, b = ref.summary(), jx.summary()
    assert a.status == b.status == Status.OK
    assert a["queue_min"] <= a["queue_mean"] <= a["queue_max"]
    assert 0.0 <= a["utilization"] <= 1.0 and a["amplitude"] >= 0
    # the summary's queue is the model's queue observable (checked on the reference's own samples)
    t = np.linspace(ref.t[-1] / 2, ref.t[-1], 20_001)
    q = np.broadcast_to(case.model.observables(tuple(ref(t).T), ref.params[0], np)["queue"], t.shape)
    assert a["queue_max"] == pytest.approx(float(q.max()), rel=1e-12, abs=1e-12)
    # the JAX summary reads the saved samples (2,000 intervals), the reference its dense output: the means agree
    # to the solvers' agreement, the extremes to the sampling of a kinked queue (1 % of the range)
    scale = 1.0 + abs(a["queue_max"]) + abs(a["queue_min"])
    assert b["queue_mean"] == pytest.approx(a["queue_mean"], abs=10 * case.agreement * scale)
    for k in ("queue_max", "queue_min"):
        assert b[k] == pytest.approx(a[k], abs=0.01 * (a["queue_max"] - a["queue_min"]) + 1e-9 * scale)
