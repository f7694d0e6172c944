"""Numeric bridge: the lambdified symbolic Jacobians against ``jax.jacfwd`` of the numeric right-hand sides.

Both sides come from the same :meth:`~dwtcp_fluid.models.base.FluidModel.rhs` (SymPy namespace for the symbolic
Jacobian, ``jax.numpy`` for autodiff), so agreement checks the SymPy differentiation, simplification and
``lambdify`` path that the analysis code uses (``model.jacobian_fn(u)``, cached).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..models.base import FluidModel
from ..models.dctcp import DctcpFluid, DctcpNormalized
from ..models.dwtcp import DwtcpFluid

__all__ = ["SAMPLING", "random_points", "jax_jacobian", "compare_jacobians", "BRIDGE_MODELS"]

#: Log-uniform (lo, hi > 0) or uniform ("lin", lo, hi) sampling ranges of states and parameters, per model name.
SAMPLING: dict[str, dict[str, tuple]] = {
    "dwtcp": {
        "w": (0.1, 1e3),
        "q": ("lin", 0.0, 2e3),
        "beta": (1e-4, 1.0),
        "beta_w": (1e-4, 1.0),
        "tau": (1e-5, 1e-2),
        "C": (1e4, 1e7),
        "N": (1.0, 1e3),
        "k": ("lin", 0.0, 500.0),
        "s_over_l": (0.01, 0.1),
        "alpha": (1.0, 64.0),
    },
    "dctcp": {
        "W": (1.0, 1e3),
        "alpha": ("lin", 0.0, 1.0),
        "q": ("lin", 0.0, 1e3),
        "C": (1e4, 1e7),
        "d": (1e-5, 1e-2),
        "K": (1.0, 500.0),
        "g": (1e-3, 1.0),
        "N": (1.0, 1e3),
    },
    "dctcp-normalized": {
        "W": (0.1, 1e2),
        "alpha": ("lin", 0.0, 1.0),
        "q": ("lin", -0.9, 5.0),
        "wbar": (0.5, 1e3),
        "g": (1e-3, 1.0),
        "psi": (1e-3, 1.0),
    },
}

#: The models (and variants) the bridge covers.
BRIDGE_MODELS: tuple[FluidModel, ...] = (
    DwtcpFluid("paper"),
    DwtcpFluid("sqrt"),
    DwtcpFluid("ipg"),
    DctcpFluid(),
    DctcpNormalized(),
)


def _draw(rng: np.random.Generator, spec: tuple, n: int) -> np.ndarray:
    if spec[0] == "lin":
        return rng.uniform(spec[1], spec[2], n)
    return np.exp(rng.uniform(np.log(spec[0]), np.log(spec[1]), n))


def random_points(model: FluidModel, n: int, seed: int = 0) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    """``n`` random states and parameter sets of ``model`` from :data:`SAMPLING` (deterministic in ``seed``)."""
    if n < 1:
        raise ValueError(f"n={n!r} is out of range: accepted n >= 1")
    spec = SAMPLING[model.name]
    rng = np.random.default_rng(seed)
    x = [_draw(rng, spec[s], n) for s in model.states]
    p = {k: _draw(rng, spec[k], n) for k in model.param_names}
    return x, p


def jax_jacobian(model: FluidModel, u: int, x: list[np.ndarray], p: Mapping[str, Any]) -> np.ndarray:
    """∂F/∂x by ``jax.jacfwd`` of ``model.rhs(x, x, u, p, jax.numpy)``, vmapped; shape ``(n, d, d)``.

    The delayed state is identified with the state before differentiating (the undelayed Jacobian), exactly as
    :meth:`FluidModel.jacobian` does. Needs 64-bit JAX (the comparison is at rtol 1e-10), which is enabled here.
    """
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def f(xv: Any, pv: Mapping[str, Any]) -> Any:
        xs = tuple(xv[i] for i in range(len(model.states)))
        return jnp.stack(model.rhs(xs, xs, u, pv, jnp))

    X = jnp.stack([jnp.asarray(v, dtype=jnp.float64) for v in x], axis=-1)
    P = {k: jnp.asarray(v, dtype=jnp.float64) for k, v in p.items()}
    return np.asarray(jax.vmap(jax.jacfwd(f))(X, P))


def compare_jacobians(model: FluidModel, u: int, n: int = 1000, seed: int = 0) -> float:
    """Largest relative difference between ``model.jacobian_fn(u)`` and :func:`jax_jacobian` at ``n`` random points.

    Relative to max(|autodiff entry|, 1e-300): entries that are exactly zero on both sides count as equal.
    """
    x, p = random_points(model, n, seed)
    J_sym = model.jacobian_fn(u)(x, p)
    J_ad = jax_jacobian(model, u, x, p)
    diff = np.abs(J_sym - J_ad)
    scale = np.maximum(np.abs(J_ad), 1e-300)
    rel = np.where(diff == 0, 0.0, diff / scale)
    return float(rel.max())
