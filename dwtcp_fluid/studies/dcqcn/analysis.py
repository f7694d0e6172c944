"""DCQCN's fluid fixed point and its linearization, from :class:`~dwtcp_fluid.models.dcqcn.DcqcnFluid`'s
right-hand side only (no equation is typed here).

**Fixed point.** (D1) fixes R_C* = C/N. (D2) is affine in α and (D4) affine in R_T, so at a given queue q their
zeros α(q) and R_T(q) follow from two evaluations of the right-hand side each; the queue q* is then the root of
(D3)'s residual r(q) on (K_min, K_max], found by Brent's method after a scan of r on a grid of the marking
probability (which also counts the sign changes: one, the fixed point is unique). Where r keeps one sign up to
K_max the equilibrium sits on the jump of p at K_max (a sliding mode, ``regime="kmax"``).

**Linearization.** x' = A0·x + A1·x(t − τ*) from the SymPy Jacobians of the interior equations
(:data:`~dwtcp_fluid.models.dcqcn.INTERIOR_NS`), evaluated at the fixed point; the rightmost characteristic roots
come from :func:`~dwtcp_fluid.analysis.charroots.char_roots` (Breda et al. pseudospectral + Newton).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from ...analysis.charroots import char_roots
from ...models.dcqcn import INTERIOR_NS, DcqcnFluid, DcqcnParams

__all__ = ["FixedPoint", "fixed_point", "linear_system", "rightmost", "MODEL"]

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


def fixed_point(params: DcqcnParams | Mapping[str, float], n_scan: int = 400) -> FixedPoint:
    """The fixed point of :class:`DcqcnFluid` at ``params`` (see the module docstring)."""
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
def _symbolic() -> tuple[sp.Matrix, sp.Matrix, tuple, tuple, dict]:
    xs, ps = MODEL.symbols()
    xd = MODEL.delayed_symbols()
    F = sp.Matrix(MODEL.rhs(xs, xd, 0, ps, INTERIOR_NS))
    return F.jacobian(sp.Matrix(xs)), F.jacobian(sp.Matrix(xd)), xs, xd, ps


@functools.lru_cache(maxsize=1)
def _lambdified() -> Any:
    A0, A1, xs, xd, ps = _symbolic()
    args = list(xs) + [ps[k] for k in MODEL.param_names]
    sub = dict(zip(xd, xs, strict=True))
    return sp.lambdify(args, A0.subs(sub), "numpy"), sp.lambdify(args, A1.subs(sub), "numpy")


def linear_system(params: DcqcnParams | Mapping[str, float], fp: FixedPoint | None = None) -> tuple:
    """(A0, A1, τ*, fixed point): x' = A0·x + A1·x(t − τ*) at the fixed point (interior regime)."""
    p = _numeric(params)
    fp = fp or fixed_point(p)
    f0, f1 = _lambdified()
    args = list(fp.x) + [p[k] for k in MODEL.param_names]
    return np.array(f0(*args), float), np.array(f1(*args), float), float(p["d"]), fp


def rightmost(params: DcqcnParams | Mapping[str, float], n_roots: int = 4) -> tuple[complex, Any]:
    """The rightmost characteristic root (1/s) at the fixed point and the :class:`CharRoots` result."""
    A0, A1, d, _ = linear_system(params)
    res = char_roots(A0, A1, d, n_roots=n_roots)
    roots = np.asarray(res.roots).ravel()
    conv = np.asarray(res.converged).ravel()
    k = int(np.nanargmax(np.where(conv, roots.real, -np.inf)))
    return complex(roots[k]), res
