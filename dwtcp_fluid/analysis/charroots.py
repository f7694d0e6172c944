"""Characteristic roots of linear delay systems x'(t) = A0·x(t) + A1·x(t − τ), batched.

Method (Breda, Maset, Vermiglio, SIAM J. Sci. Comput. 27 (2005) 482-495): the DDE generates a semigroup on
C([−τ, 0], Rⁿ) whose infinitesimal generator 𝒜φ = φ' has domain {φ : φ'(0) = A0·φ(0) + A1·φ(−τ)}. Collocating
𝒜 at the M + 1 Chebyshev extremal points of [−τ, 0] gives an n(M+1) × n(M+1) matrix whose rightmost eigenvalues
converge spectrally (geometrically in M) to the rightmost characteristic roots, the zeros of

    det Δ(λ) = det(λI − A0 − A1·e^{−λτ}) = 0.

Each candidate is then polished by Newton's method on det Δ (the derivative from the multilinearity of the
determinant in the columns of Δ, so a root that is hit exactly does not raise), which makes the roots accurate to
round-off independently of M, and duplicates are merged. Time is rescaled by τ internally (μ = λτ) so that the
discretisation and the tolerances are dimensionless. Everything is NumPy, batched over a leading axis: one
``numpy.linalg.eigvals`` call on a stack of small matrices.

Several discrete delays, x'(t) = A0·x(t) + Σ_j A_j·x(t − τ_j) (:func:`char_roots_multi`), take the same path on
[−τ_max, 0]: the boundary row reads φ(−τ_j) through the Chebyshev interpolant (exactly the last node when
τ_j = τ_max), and Newton polishes det(λI − A0 − Σ_j A_j e^{−λτ_j}). One delay is the case k = 1 of the same code.

The module also finds where the spectral abscissa (the largest real part of a root) crosses zero along a
parameter (delay or gain), by a scan followed by bisection, and applies all of it to the delayed DWTCP model in
:mod:`~dwtcp_fluid.studies.dwtcp.analysis_charroots`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .charroots_core import (
    DEFAULT_M,
    _det_and_derivative,
    _norm_delayed,
    _scale,
    cheb,
    generator_matrix,
    newton_polish,
)
from .charroots_result import CharRoots, CharRootsSummary

__all__ = [
    "CharRoots",
    "CharRootsSummary",
    "cheb",
    "generator_matrix",
    "char_roots",
    "char_roots_multi",
    "spectral_abscissa",
    "newton_polish",
    "critical_parameter",
    "scalar_critical_delay",
]


def _as_systems(A0: Any, A1: Any, tau: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    A0 = np.asarray(A0, dtype=float)
    A1 = np.asarray(A1, dtype=float)
    if A0.ndim < 2 or A0.shape[-1] != A0.shape[-2]:
        raise ValueError(f"A0 has shape {A0.shape}: accepted an array of square matrices (..., n, n)")
    if A1.shape[-2:] != A0.shape[-2:]:
        raise ValueError(f"A1 has shape {A1.shape}: accepted matrices of the same size as A0 {A0.shape[-2:]}")
    tau = np.asarray(tau, dtype=float)
    if np.any(~np.isfinite(tau) | (tau <= 0)):
        raise ValueError(f"tau={tau!r} is out of range: accepted finite delays tau > 0")
    if not (np.all(np.isfinite(A0)) and np.all(np.isfinite(A1))):
        raise ValueError("A0/A1 contain non-finite entries: accepted finite matrices")
    batch = np.broadcast_shapes(A0.shape[:-2], A1.shape[:-2], tau.shape)
    n = A0.shape[-1]
    return (
        np.broadcast_to(A0, batch + (n, n)),
        np.broadcast_to(A1, batch + (n, n)),
        np.broadcast_to(tau, batch),
    )


def char_roots(
    A0: Any,
    A1: Any,
    tau: Any,
    *,
    n_roots: int = 6,
    M: int = DEFAULT_M,
    tol: float = 1e-14,
    chunk: int = 4096,
) -> CharRoots:
    """Rightmost characteristic roots of x' = A0 x + A1 x(t − τ): pseudospectral generator + Newton polish.

    Parameters
    ----------
    A0, A1 : array_like, shape batch + (n, n)
        System matrices (1/time unit of τ).
    tau : array_like, broadcastable to batch
        Delays τ > 0 (any time unit; roots come out in its inverse).
    n_roots : int
        Number K of rightmost roots returned per system (conjugates counted separately).
    M : int
        Chebyshev intervals; the rightmost eigenvalues of the discretisation only seed Newton, so moderate M
        suffices as long as the seeds land in the right basins (tests check against Lambert W and a
        quasi-polynomial Newton scan).
    tol : float
        Newton stopping tolerance on |Δμ|/max(1, |μ|) in units of 1/τ.
    chunk : int
        Systems per ``eigvals`` call (bounds memory).

    Returns
    -------
    CharRoots
    """
    A0, A1, tau = _as_systems(A0, A1, tau)
    return _roots(A0, A1[..., None, :, :], tau[..., None], n_roots=n_roots, M=M, tol=tol, chunk=chunk)


def char_roots_multi(
    A0: Any,
    As: Any,
    taus: Any,
    *,
    n_roots: int = 6,
    M: int = DEFAULT_M,
    tol: float = 1e-14,
    chunk: int = 4096,
) -> CharRoots:
    """Rightmost characteristic roots of x' = A0 x + Σ_j A_j x(t − τ_j), j = 1..k (several discrete delays).

    Parameters
    ----------
    A0 : array_like, shape batch + (n, n)
    As : sequence of k array_like, each broadcastable to batch + (n, n)
        The delayed terms A_j (1/time unit of τ).
    taus : sequence of k array_like, each broadcastable to batch
        The delays τ_j > 0. Roots come out in 1/time unit of τ; ``roots`` are λ, the rest as :func:`char_roots`.
    n_roots : int
        Number K of rightmost roots returned per system.
    M : int
        Chebyshev intervals on [−τ_max, 0].
    tol : float
        Newton stopping tolerance on |Δμ|/max(1, |μ|), μ = λτ_max.
    chunk : int
        Systems per ``eigvals`` call.

    Returns
    -------
    CharRoots
    """
    As, taus = list(As), list(taus)
    if not As or len(As) != len(taus):
        raise ValueError(
            f"As/taus have {len(As)}/{len(taus)} entries: accepted k >= 1 delayed terms with one delay each"
        )
    sys = [_as_systems(A0, A, t) for A, t in zip(As, taus, strict=True)]
    batch = np.broadcast_shapes(*(t.shape for _, _, t in sys))
    n = sys[0][0].shape[-1]
    A0b = np.broadcast_to(sys[0][0], batch + (n, n))
    Ak = np.stack([np.broadcast_to(A, batch + (n, n)) for _, A, _ in sys], axis=-3)
    tk = np.stack([np.broadcast_to(t, batch) for _, _, t in sys], axis=-1)
    return _roots(A0b, Ak, tk, n_roots=n_roots, M=M, tol=tol, chunk=chunk)


def _roots(
    A0: np.ndarray, Ak: np.ndarray, tk: np.ndarray, *, n_roots: int, M: int, tol: float, chunk: int
) -> CharRoots:
    """The one implementation: A0 batch + (n, n), Ak batch + (k, n, n), tk batch + (k,). Time is scaled by
    τ_max = max_j τ_j (μ = λ τ_max); with one delay the stacks have k = 1 and r = 1."""
    if not (isinstance(n_roots, int) and n_roots >= 1):
        raise ValueError(f"n_roots={n_roots!r} is out of range: accepted an integer >= 1")
    batch = tk.shape[:-1]
    n, k = A0.shape[-1], tk.shape[-1]
    tau = tk.max(axis=-1)
    A0n = (A0 * tau[..., None, None]).reshape(-1, n, n)
    A1n = (Ak * tau[..., None, None, None]).reshape(-1, k, n, n)
    r = (tk / tau[..., None]).reshape(-1, k)
    if k == 1:
        A1n, r = A1n[:, 0], None  # the one-delay path (bit-identical to the one-delay formulas)
    B = A0n.shape[0]
    # seed with more candidates than requested: some converge to the same root, a few seeds may be spurious
    n_cand = min(n * (M + 1), 2 * n_roots + 4)
    roots = np.full((B, n_roots), np.nan + 0j)
    conv = np.zeros((B, n_roots), dtype=bool)
    resid = np.full((B, n_roots), np.nan)
    for s in range(0, B, chunk):
        sl = slice(s, min(B, s + chunk))
        rs = None if r is None else r[sl]
        ev = np.linalg.eigvals(generator_matrix(A0n[sl], A1n[sl], M, rs))
        order = np.argsort(-ev.real, axis=-1, kind="stable")[:, :n_cand]
        seeds = np.take_along_axis(ev, order, axis=-1)
        mu, ok = newton_polish(seeds, A0n[sl], A1n[sl], tol=tol, r=rs)
        rr, c, res = _select(mu, ok, A0n[sl], A1n[sl], n_roots, rs)
        roots[sl], conv[sl], resid[sl] = rr, c, res
    tau_flat = tau.reshape(-1)[:, None]
    lam = roots / tau_flat
    absc = np.where(conv, lam.real, -np.inf).max(axis=-1)
    absc = np.where(conv.any(axis=-1), absc, np.nan)
    return CharRoots(
        roots=lam.reshape(batch + (n_roots,)),
        converged=conv.reshape(batch + (n_roots,)),
        residual=resid.reshape(batch + (n_roots,)),
        abscissa=absc.reshape(batch),
        M=M,
    )


def _select(
    mu: np.ndarray, ok: np.ndarray, A0n: np.ndarray, A1n: np.ndarray, K: int, r: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge duplicates among converged roots, sort by decreasing real part, keep K."""
    B, C = mu.shape
    floor = _scale(A0n, A1n, r)[:, None]
    # real parts quantized so that a conjugate pair (equal up to round-off) sorts by imaginary part
    key = np.where(ok, -np.round(mu.real / floor, 9) * floor, np.inf)
    order = np.lexsort((mu.imag, key), axis=-1)
    mu = np.take_along_axis(mu, order, axis=-1)
    ok = np.take_along_axis(ok, order, axis=-1)
    # a candidate duplicates an earlier kept one if it is within 1e-8·max(1, |μ|) of it
    keep = ok.copy()
    for j in range(1, C):
        close = np.abs(mu[:, :j] - mu[:, j : j + 1]) <= 1e-8 * np.maximum(floor, np.abs(mu[:, j : j + 1]))
        keep[:, j] &= ~np.any(close & keep[:, :j], axis=-1)
    key2 = np.where(
        keep, np.arange(C)[None, :], C + np.arange(C)[None, :]
    )  # kept roots first, order preserved
    idx = np.argsort(key2, axis=-1, kind="stable")[:, :K]
    out = np.take_along_axis(mu, idx, axis=-1)
    conv = np.take_along_axis(keep, idx, axis=-1)
    if out.shape[1] < K:
        pad = K - out.shape[1]
        out = np.concatenate([out, np.full((B, pad), np.nan + 0j)], axis=1)
        conv = np.concatenate([conv, np.zeros((B, pad), dtype=bool)], axis=1)
    out = np.where(conv, out, np.nan + 0j)
    f, _ = _det_and_derivative(np.where(conv, out, 0.0), A0n, A1n, r)
    scale = 1.0 + np.abs(out) + np.linalg.norm(A0n, axis=(-2, -1))[:, None] + _norm_delayed(A1n, r)[:, None]
    res = np.where(conv, np.abs(f) / scale ** A0n.shape[-1], np.nan)
    return out, conv, res


def spectral_abscissa(A0: Any, A1: Any, tau: Any, **kw: Any) -> np.ndarray:
    """max Re λ over the characteristic roots of x' = A0 x + A1 x(t − τ) (1/time unit of τ), batched."""
    return char_roots(A0, A1, tau, **kw).abscissa


def critical_parameter(
    system: Callable[[np.ndarray], tuple[Any, Any, Any]],
    lo: Any,
    hi: Any,
    *,
    n_scan: int = 24,
    log: bool = True,
    rtol: float = 1e-10,
    **kw: Any,
) -> np.ndarray:
    """First parameter value in [lo, hi] where the spectral abscissa changes sign, for each batch element.

    ``lo`` and ``hi`` have shape (B,), one interval per batch element. ``system(p)`` maps a parameter array
    of shape (B, S) (row b: values for batch element b) to ``(A0, A1, tau)`` with batch shape (B, S). The
    interval is
    scanned at ``n_scan`` points (log-spaced if ``log``) and the first sign change is refined by bisection to
    ``rtol`` relative width. Returns NaN where the abscissa keeps one sign on the whole scan.

    The abscissa of a retarded delay system is continuous in its coefficients and its delay, so a sign change
    brackets a crossing; a scan can miss a pair of crossings closer than its spacing.
    """
    lo = np.atleast_1d(np.asarray(lo, dtype=float))
    hi = np.atleast_1d(np.asarray(hi, dtype=float))
    lo, hi = np.broadcast_arrays(lo, hi)
    if np.any(~(hi > lo)) or (log and np.any(lo <= 0)):
        raise ValueError(
            f"lo={lo!r}, hi={hi!r} are invalid: accepted 0 < lo < hi (or lo < hi with log=False)"
        )
    B = lo.size
    t = np.linspace(0.0, 1.0, n_scan)
    grid = (
        np.exp(np.log(lo)[:, None] + (np.log(hi) - np.log(lo))[:, None] * t[None])
        if log
        else lo[:, None] + (hi - lo)[:, None] * t[None]
    )
    vals = spectral_abscissa(*system(grid), **kw)
    if vals.shape != grid.shape:
        raise ValueError(
            f"system returned batch shape {vals.shape}: accepted {grid.shape} (lo/hi have shape (B,))"
        )
    sgn = np.sign(vals)
    change = sgn[:, 1:] * sgn[:, :-1] < 0
    has = change.any(axis=-1)
    j = np.argmax(change, axis=-1)
    a = grid[np.arange(B), j]
    b = grid[np.arange(B), j + 1]
    sa = sgn[np.arange(B), j]
    for _ in range(80):
        if np.all(np.abs(b - a) <= rtol * np.abs(b)):
            break
        m = np.sqrt(a * b) if log else 0.5 * (a + b)
        sm = np.sign(spectral_abscissa(*system(m[:, None]), **kw)[:, 0])
        same = sm == sa
        a = np.where(same, m, a)
        b = np.where(same, b, m)
    return np.where(has, 0.5 * (a + b), np.nan)


def scalar_critical_delay(a: Any, b: Any) -> np.ndarray:
    """Closed-form critical delay of x' = a x + b x(t − τ): τ_c = arccos(−a/b)/sqrt(b² − a²) when b < −|a|.

    For b < −|a| the system is stable for τ < τ_c and unstable beyond; NaN otherwise (stable for every τ
    when |b| ≤ −a, i.e. a < 0 and |b| ≤ |a|; unstable for every τ when a + b > 0).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ok = b < -np.abs(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        tc = np.arccos(-a / b) / np.sqrt(b**2 - a**2)
    return np.where(ok, tc, np.nan)
