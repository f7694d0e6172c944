"""DCQCN's fluid fixed point and its linearization, from :class:`~dwtcp_fluid.models.dcqcn.DcqcnFluid`'s
right-hand side only (no equation is typed here).

**Fixed point.** (D1) fixes R_C* = C/N. (D2) is affine in α and (D4) affine in R_T, so at a given queue q their
zeros α(q) and R_T(q) follow from two evaluations of the right-hand side each; the queue q* is then the root of
(D3)'s residual r(q) on (K_min, K_max], found by Brent's method after a scan of r on a grid of the marking
probability (which also counts the sign changes: one, the fixed point is unique). Where r keeps one sign up to
K_max the equilibrium sits on the jump of p at K_max (a sliding mode, ``regime="kmax"``).

**Linearization.** x' = A0·x + A1·x(t − τ*), the Jacobians of the model's right-hand side in x and in x(t − τ*)
by forward-mode AD (JAX) at the fixed point (inside the ramp, where no clamp is active); the rightmost characteristic roots
come from :func:`~dwtcp_fluid.analysis.charroots.char_roots` (Breda et al. pseudospectral + Newton).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ...analysis.charroots import char_roots
from ...models.dcqcn import DcqcnFluid, DcqcnParams

__all__ = ["FixedPoint", "fixed_point", "linear_system", "rightmost", "residual_parts", "MODEL"]

MODEL = DcqcnFluid()


@dataclass(frozen=True)
class FixedPoint:
    """The fluid fixed point: rates (packets/s), α, queue (packets), marking probability, ``regime`` ("ramp":
    K_min < q* ≤ K_max; "kmax": on the jump at K_max) and ``sign_changes`` of (D3)'s residual over the scan."""

    R_C: float
    R_T: float
    alpha: float
    q: float
    p: float
    regime: str
    sign_changes: int

    @property
    def x(self) -> tuple[float, float, float, float]:
        return (self.R_C, self.R_T, self.alpha, self.q)


def _numeric(params: DcqcnParams | Mapping[str, float]) -> dict[str, float]:
    return MODEL.numeric_params(params) if isinstance(params, DcqcnParams) else dict(params)


def _rhs(x: tuple, p: Mapping[str, float]) -> np.ndarray:
    """The model's right-hand side with the delayed state equal to the state (an equilibrium), u = 0."""
    return np.array(MODEL.rhs(x, x, 0, p, np), dtype=float)


def _partial(q: float, p: Mapping[str, float]) -> tuple[float, float, float]:
    """(α(q), R_T(q), residual of (D3)) at R_C = C/N: the zeros of the affine (D2) and (D4)."""
    R = p["C"] / p["N"]
    f0, f1 = _rhs((R, R, 0.0, q), p)[2], _rhs((R, R, 1.0, q), p)[2]
    alpha = -f0 / (f1 - f0)
    h0, h1 = _rhs((R, R, alpha, q), p)[0], _rhs((R, 2 * R, alpha, q), p)[0]
    rt = R + R * (-h0 / (h1 - h0))
    return alpha, rt, float(_rhs((R, rt, alpha, q), p)[1])


def residual_parts(
    params: DcqcnParams | Mapping[str, float], probs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(AI(p), cut(p)) of (D3)'s residual h = AI − cut at α(q), R_T(q), R_C = C/N, for marking probabilities
    ``probs`` on the ramp: AI = (D3) − (D3 with R_AI = 0), cut = −(D3 with R_AI = 0)."""
    p = _numeric(params)
    p0 = {**p, "R_AI": 0.0}
    R = p["C"] / p["N"]
    ai, cut = [], []
    for pm in np.asarray(probs, float):
        q = p["K_min"] + pm / p["P_max"] * (p["K_max"] - p["K_min"])
        alpha, rt, h = _partial(q, p)
        h0 = float(_rhs((R, rt, alpha, q), p0)[1])
        ai.append(h - h0)
        cut.append(-h0)
    return np.array(ai), np.array(cut)


def fixed_point(params: DcqcnParams | Mapping[str, float], n_scan: int = 400) -> FixedPoint:
    """The fixed point of :class:`DcqcnFluid` at ``params`` (see the module docstring).

    Parameters
    ----------
    params : DcqcnParams or mapping
        The setting (or the model's numeric parameters).
    n_scan : int
        Points of the scan of (D3)'s residual over the ramp (log-spaced in the marking probability).

    Returns
    -------
    FixedPoint
    """
    p = _numeric(params)
    kmin, kmax, pmax = p["K_min"], p["K_max"], p["P_max"]
    # q on a log grid of the marking probability from 1e-9 to P_max (the ramp's whole range)
    probs = np.logspace(-9, np.log10(pmax), n_scan)
    qs = kmin + probs / pmax * (kmax - kmin)
    r = np.array([_partial(q, p)[2] for q in qs])
    sign = np.sign(r)
    changes = np.flatnonzero(sign[:-1] * sign[1:] < 0)
    R = p["C"] / p["N"]
    if changes.size == 0:
        alpha, rt, _ = _partial(kmax, p)
        return FixedPoint(R, rt, alpha, kmax, pmax, "kmax", 0)
    i = int(changes[0])
    q = brentq(lambda v: _partial(v, p)[2], qs[i], qs[i + 1], xtol=1e-12, rtol=1e-13)
    alpha, rt, _ = _partial(q, p)
    return FixedPoint(R, rt, alpha, q, pmax * (q - kmin) / (kmax - kmin), "ramp", int(changes.size))


@functools.lru_cache(maxsize=1)
def _jacobians() -> Any:
    """∂F/∂x and ∂F/∂x(t − τ*) of the model's right-hand side (u = 0), by forward-mode AD, compiled once."""
    import jax
    import jax.numpy as jnp

    def f(x: Any, xd: Any, p: Any) -> Any:
        return jnp.stack(MODEL.rhs(tuple(x), tuple(xd), 0, p, jnp))

    return jax.jit(lambda x, p: (jax.jacfwd(f, 0)(x, x, p), jax.jacfwd(f, 1)(x, x, p)))


@functools.lru_cache(maxsize=64)
def _fixed_cached(params: DcqcnParams, n_scan: int) -> FixedPoint:
    return fixed_point(params, n_scan)


def linear_system(
    params: DcqcnParams | Mapping[str, float], fp: FixedPoint | None = None, n_scan: int = 400
) -> tuple:
    """(A0, A1, τ*, fixed point): x' = A0·x + A1·x(t − τ*) at the fixed point (interior regime; the fixed point
    of a :class:`DcqcnParams` is cached)."""
    p = _numeric(params)
    if fp is None:
        fp = _fixed_cached(params, n_scan) if isinstance(params, DcqcnParams) else fixed_point(p, n_scan)
    import jax

    with jax.enable_x64(True):
        x = np.asarray(fp.x, np.float64)
        A0, A1 = _jacobians()(x, {k: np.float64(v) for k, v in p.items()})
        A0, A1 = np.asarray(A0, float), np.asarray(A1, float)
    return A0, A1, float(p["d"]), fp


def rightmost(params: DcqcnParams | Mapping[str, float], n_roots: int = 4) -> tuple[complex, Any]:
    """The rightmost characteristic root (1/s) at the fixed point and the :class:`CharRoots` result.

    Parameters
    ----------
    params : DcqcnParams or mapping
        The setting; its base RTT is the feedback delay τ*.
    n_roots : int
        Roots kept by :func:`~dwtcp_fluid.analysis.charroots.char_roots`.
    """
    A0, A1, d, _ = linear_system(params)
    res = char_roots(A0, A1, d, n_roots=n_roots)
    roots = np.asarray(res.roots).ravel()
    conv = np.asarray(res.converged).ravel()
    k = int(np.nanargmax(np.where(conv, roots.real, -np.inf)))
    return complex(roots[k]), res
