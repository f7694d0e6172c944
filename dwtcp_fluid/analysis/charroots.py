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
:mod:`.charroots_dwtcp`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .charroots_critical import critical_parameter, scalar_critical_delay
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

#: Default number of Chebyshev intervals M (the discretised generator has n(M+1) rows).
DEFAULT_M = 16


@functools.lru_cache(maxsize=16)
def cheb(M: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev extremal points x_j = cos(jπ/M) on [−1, 1] and the differentiation matrix (Trefethen, 2000).

    Returns ``(x, D)`` with D of shape (M+1, M+1); the nodes run from x_0 = 1 down to x_M = −1.
    """
    if not (isinstance(M, int) and M >= 2):
        raise ValueError(f"M={M!r} is out of range: accepted an integer >= 2")
    j = np.arange(M + 1)
    x = np.cos(np.pi * j / M)
    c = np.where((j == 0) | (j == M), 2.0, 1.0) * (-1.0) ** j
    X = np.tile(x, (M + 1, 1)).T
    dX = X - X.T
    D = np.outer(c, 1.0 / c) / (dX + np.eye(M + 1))
    D = D - np.diag(D.sum(axis=1))
    x.setflags(write=False)
    D.setflags(write=False)
    return x, D


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


def _terms(A1n: np.ndarray, r: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Delayed terms as (B, k, n, n) matrices and (B, k) delay ratios τ_j/τ_max (one delay: k = 1, r = 1)."""
    if A1n.ndim == 3:
        return A1n[:, None], np.ones((A1n.shape[0], 1))
    if r is None:
        raise ValueError("r is missing: accepted delay ratios (B, k) with stacked delayed terms (B, k, n, n)")
    return A1n, r


@functools.lru_cache(maxsize=256)
def _interp_row(M: int, r: float) -> np.ndarray:
    """Weights w (M+1,) with φ(−r) = Σ_i w_i φ(θ_i) for the Chebyshev interpolant on the nodes θ_i of [−1, 0]
    (barycentric formula; a unit vector when −r is a node, so r = 1 reads the last node exactly)."""
    x, _ = cheb(M)
    xq = 1.0 - 2.0 * r  # θ = (x − 1)/2
    hit = np.nonzero(x == xq)[0]
    if hit.size:
        w = np.zeros(M + 1)
        w[hit[0]] = 1.0
        return w
    c = np.where((np.arange(M + 1) == 0) | (np.arange(M + 1) == M), 0.5, 1.0) * (-1.0) ** np.arange(M + 1)
    t = c / (xq - x)
    return t / t.sum()


def generator_matrix(
    A0n: np.ndarray, A1n: np.ndarray, M: int = DEFAULT_M, r: np.ndarray | None = None
) -> np.ndarray:
    """Pseudospectral discretisation of the infinitesimal generator for unit delay (Breda-Maset-Vermiglio).

    Parameters
    ----------
    A0n, A1n : ndarray, shape (B, n, n)
        τ·A0 and τ·A1 (time in units of the delay). Several delays: A1n of shape (B, k, n, n), the τ_max·A_j.
    M : int
        Chebyshev intervals on [−1, 0].
    r : ndarray, shape (B, k), optional
        With several delays, τ_j/τ_max ∈ (0, 1].

    Returns
    -------
    ndarray, shape (B, n(M+1), n(M+1))
        Row block 0: the boundary condition φ'(0) = Â0 φ(0) + Σ_j Â_j φ(−r_j); row blocks 1..M: φ'(θ_j) by
        Chebyshev differentiation (θ_j = (x_j − 1)/2, so d/dθ = 2·d/dx).
    """
    _, D = cheb(M)
    B, n, _ = A0n.shape
    size = n * (M + 1)
    G = np.zeros((B, size, size))
    G[:, n:, :] = np.kron(2.0 * D[1:, :], np.eye(n))[None]
    G[:, :n, :n] = A0n
    if A1n.ndim == 3:
        # += so that M's last block adds to (not replaces) the first when they coincide
        G[:, :n, n * M :] += A1n
        return G
    # several delays: φ(−r_j) = Σ_i w_ji φ(θ_i), so block i of the boundary row gains Σ_j w_ji Â_j
    W = np.array([[_interp_row(M, float(v)) for v in row] for row in r])  # (B, k, M+1)
    G[:, :n, :] += np.einsum("bji,bjxy->bxiy", W, A1n).reshape(B, n, size)
    return G


def _det_and_derivative(
    mu: np.ndarray, A0n: np.ndarray, A1n: np.ndarray, r: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """det Δ(μ) and d/dμ det Δ(μ) for Δ(μ) = μI − Â0 − Σ_j Â_j e^{−μ r_j}; shapes mu (B, K), A0n (B, n, n),
    A1n (B, n, n) (one delay, r = 1) or (B, k, n, n) with r (B, k)."""
    n = A0n.shape[-1]
    I = np.eye(n)
    A1n, r = _terms(A1n, r)
    # a diverging Newton iterate yields inf/NaN here; newton_polish drops it, so the warnings are noise
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(-mu[..., None] * r[:, None, :])[..., None, None]  # (B, K, k, 1, 1)
        terms = A1n[:, None] * e
        Delta = mu[..., None, None] * I - A0n[:, None] - terms.sum(axis=2)
        dDelta = I + (terms * r[:, None, :, None, None]).sum(axis=2)
        if n == 1:
            return Delta[..., 0, 0], dDelta[..., 0, 0]
        if n == 2:
            a, b, c, d = Delta[..., 0, 0], Delta[..., 0, 1], Delta[..., 1, 0], Delta[..., 1, 1]
            da, db, dc, dd = dDelta[..., 0, 0], dDelta[..., 0, 1], dDelta[..., 1, 0], dDelta[..., 1, 1]
            return a * d - b * c, da * d + a * dd - db * c - b * dc
        det = np.linalg.det(Delta)
        # multilinearity in the columns: d det = Σ_j det(Δ with column j replaced by column j of Δ')
        ddet = np.zeros_like(det)
        for j in range(n):
            Dj = Delta.copy()
            Dj[..., :, j] = dDelta[..., :, j]
            ddet = ddet + np.linalg.det(Dj)
    return det, ddet


def _norm_delayed(A1n: np.ndarray, r: np.ndarray | None) -> np.ndarray:
    """Σ_j ‖Â_j‖ per system."""
    A1n, _ = _terms(A1n, r)
    return np.linalg.norm(A1n, axis=(-2, -1)).sum(axis=-1)


def _scale(A0n: np.ndarray, A1n: np.ndarray, r: np.ndarray | None = None) -> np.ndarray:
    """Per-system scale min(1, ‖Â0‖ + Σ_j ‖Â_j‖) (≥ 1e-300) of the unit-delay problem, for relative tolerances."""
    s = np.linalg.norm(A0n, axis=(-2, -1)) + _norm_delayed(A1n, r)
    return np.clip(s, 1e-300, 1.0)


def newton_polish(
    mu: np.ndarray,
    A0n: np.ndarray,
    A1n: np.ndarray,
    *,
    tol: float = 1e-14,
    maxiter: int = 30,
    r: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Newton's method on det(μI − Â0 − Σ_j Â_j e^{−μ r_j}) = 0 from the guesses ``mu`` (B, K), unit delay.

    Returns the polished roots and a boolean ``converged`` (last step ≤ 100·tol·max(s, |μ|)), where the
    scale s = min(1, ‖Â0‖ + Σ‖Â_j‖) keeps the test relative when the delay is much shorter than the system's
    own time scale (then every root of interest is ≪ 1 in units of 1/τ).
    """
    A1n, r = _terms(A1n, r)
    floor = _scale(A0n, A1n, r)
    mu = np.array(mu, dtype=complex)
    step = np.full(mu.shape, np.inf)
    bi, ci = np.nonzero(np.isfinite(mu))  # work on the still-active (system, candidate) pairs only
    for _ in range(maxiter):
        if bi.size == 0:
            break
        m = mu[bi, ci]
        fl = floor[bi]
        f, df = _det_and_derivative(m[:, None], A0n[bi], A1n[bi], r[bi])
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(f[:, 0] == 0, 0.0, f[:, 0] / df[:, 0])
        s = np.where(np.isfinite(s), s, np.nan)
        m = m - s
        mu[bi, ci] = m
        step[bi, ci] = np.abs(s)
        keep = np.abs(s) > tol * np.maximum(fl, np.abs(m))  # NaN compares False: diverged pairs drop out
        bi, ci = bi[keep], ci[keep]
    converged = np.isfinite(mu) & (step <= 100 * tol * np.maximum(floor[:, None], np.abs(mu)))
    return mu, converged


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
