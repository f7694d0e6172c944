"""The numerics of :mod:`.charroots`: Chebyshev collocation of the generator (one or several delays), the
characteristic determinant and its derivative, Newton's polish (Breda, Maset, Vermiglio 2005)."""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["DEFAULT_M", "cheb", "generator_matrix", "newton_polish"]

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
