"""The search of :func:`~dwtcp_fluid.crosscheck.tune_dwtcp.tune_dwtcp`: cached (candidate, operating point) model
runs on a working set of points certified over every point, and the compass search with pattern and boundary moves
in (log10 β, log10 K) (the method and where its runs go: :mod:`dwtcp_fluid.crosscheck.tune_dwtcp`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..analysis.tune import TuneRange
from .tune_dwtcp import _KEYS, BETA_BOX, ELEMENTS, K_BOX, _terms, pair_observables, step_rtts

__all__ = ["Search", "compass"]


def _better(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Filter order of (value, violation): feasible first, then the smaller value; infeasible by violation."""
    if a[1] == 0 and b[1] == 0:
        return a[0] < b[0] - 1e-9
    if a[1] == 0 or b[1] == 0:
        return a[1] == 0
    return a[1] < b[1]


class Search:
    """Cached, batched model runs of (log10 β, log10 K) candidates at operating points, and the working set.

    The cache holds one entry per (candidate, point) run: a candidate's merit over a set of points runs only the
    pairs it lacks, and ``len(cache)`` is the number of model runs. The working set is the operating points the
    search compares candidates on (``W``, indices into ``rng.grid()``): the range's corners first (:meth:`start`),
    grown by :meth:`grow` whenever the incumbent's merit over every point differs from its merit over ``W``.
    ``solves`` counts the batched solves (``ELEMENTS`` runs each, padding included).
    """

    def __init__(self, rng: TuneRange, objective: str, u_min: float, steady: bool, **run: float) -> None:
        self.rng, self.objective, self.u_min, self.steady, self.run = rng, objective, u_min, steady, run
        self.n = rng.grid()[0].size
        self.cache: dict[tuple[tuple[float, float], int], dict[str, Any]] = {}
        self.lo = np.log10([BETA_BOX[0], K_BOX[0]])
        self.hi = np.log10([BETA_BOX[1], K_BOX[1]])
        self.W: list[int] = []
        self.solves = 0

    def key(self, z: np.ndarray) -> tuple[float, float]:
        z = np.clip(z, self.lo, self.hi)
        return (round(float(z[0]), 9), round(float(z[1]), 9))

    def need(self, keys: list[tuple[float, float]], pts: Any) -> None:
        """Run the (candidate, point) pairs not yet cached: grouped by step, ``ELEMENTS`` per batched solve."""
        groups: dict[float, list[tuple[tuple[float, float], int]]] = {}
        for k in dict.fromkeys(keys):
            for p in pts:
                if (k, p) not in self.cache:
                    groups.setdefault(step_rtts(self.rng, 10 ** k[1]), []).append((k, p))
        for dt, pairs in groups.items():
            for s in range(0, len(pairs), ELEMENTS):
                chunk = pairs[s : s + ELEMENTS]
                pad = chunk + [chunk[-1]] * (ELEMENTS - len(chunk))  # computed, never counted
                o = pair_observables(
                    self.rng, [10 ** k[0] for k, _ in pad], [10 ** k[1] for k, _ in pad], [p for _, p in pad],
                    dt_rtts=dt, **self.run,
                )  # fmt: skip
                self.solves += 1
                for j, pair in enumerate(chunk):
                    self.cache[pair] = {n: a[j] for n, a in o.items()}

    def terms(self, k: tuple[float, float], pts: Any) -> tuple[np.ndarray, ...]:
        """:func:`_terms` of candidate ``k`` at ``pts`` (runs what is missing)."""
        pts = list(pts)
        self.need([k], pts)
        o = {n: np.array([self.cache[(k, p)][n] for p in pts]) for n in _KEYS}
        return _terms(o, self.objective, self.u_min, self.steady)

    def merit(self, k: tuple[float, float], pts: Any) -> tuple[float, float, float]:
        """(worst value, violation, margin) of candidate ``k`` over ``pts``."""
        v, mu, ma = self.terms(k, pts)
        margin = float(np.minimum(mu, ma).min())
        return float(np.nanmax(v)), max(-margin, 0.0), margin

    def start(self) -> None:
        """The first working set: the range's corners (where the worst queue and the tightest constraints sit when the
        observables are monotone in RTT and N, as on the default range; :meth:`grow` adds any other point)."""
        D, N = self.rng.grid()
        corners = np.isin(D, [D.min(), D.max()]) & np.isin(N, [N.min(), N.max()])
        self.W = [int(i) for i in np.flatnonzero(corners)]

    def grow(self, k: tuple[float, float]) -> bool:
        """Certify candidate ``k`` over every point; False when its merit there equals its merit over the working
        set, else add the points that differ (a larger value; a violated or, infeasible, a tighter margin)."""
        v, mu, ma = self.terms(k, range(self.n))
        val, _, marg = self.merit(k, self.W)
        m = np.minimum(mu, ma)
        add = [p for p in range(self.n) if p not in self.W and (v[p] > val or m[p] < min(0.0, marg))]
        self.W += add
        return bool(add)

    def poll(self, cands: list[np.ndarray]) -> list[tuple[float, float]]:
        """(value, violation) of each candidate over the working set, its missing runs in one batched solve."""
        keys = [self.key(c) for c in cands]
        self.need(keys, self.W)
        return [self.merit(k, self.W)[:2] for k in keys]

    def ridge(self, z: np.ndarray, h: float) -> list[np.ndarray]:
        """Directions along the constraint boundary from the axis poll's central differences (simplex gradients).

        With ∇f and ∇c the difference quotients of the objective and the margin over z ± h·e_i (on the working
        set), the tangent t = −∇f + (∇f·n)·n (n = ∇c/|∇c|)
        follows the boundary downhill; t + k·n for k = 0, 1/2, 1 lean into the feasible side. This is where the
        fixed diagonals fail: more β needs about 1.6× as many decades of K.
        """
        W, g = self.W, np.zeros((2, 2))  # rows: f, margin
        self.need([self.key(z + s * h * e) for e in np.eye(2) for s in (1, -1)], W)
        for i in range(2):
            e = np.eye(2)[i] * h
            ku, kd = self.key(z + e), self.key(z - e)
            up, dn = self.merit(ku, W), self.merit(kd, W)
            # a clipped poll (box edge) or a failed solve gives no usable quotient: that component is left at 0
            if np.isfinite(up[2]) and np.isfinite(dn[2]) and ku != kd:
                span = (ku[i] - kd[i]) or 2 * h
                g[0, i], g[1, i] = (up[0] - dn[0]) / span, (up[2] - dn[2]) / span
        if not (np.linalg.norm(g[1]) > 0 and np.linalg.norm(g[0]) > 0):
            return []
        n = g[1] / np.linalg.norm(g[1])
        t = -g[0] + (g[0] @ n) * n
        t = t / np.linalg.norm(t) if np.linalg.norm(t) > 0 else np.zeros(2)
        out = []
        for k in (0.0, 0.5, 1.0):
            d = t + k * n
            out.append(z + h * d / np.linalg.norm(d))
        return out


def compass(
    S: Search, z: np.ndarray, h: float, min_step: float, maxiter: int, path: list[np.ndarray]
) -> tuple[np.ndarray, int]:
    """Compass search with pattern and boundary moves on the working set from ``z`` at step ``h`` until the step is
    below ``min_step`` or ``maxiter`` polls are spent; appends accepted iterates to ``path``; returns the last
    iterate and the number of polls.

    The incumbent is certified over every point (:meth:`Search.grow`) before the step shrinks and whenever it is
    a first step ``h`` away from where it was last certified; when the working set grows, the incumbent is re-ranked
    on it and the poll repeats at the same step.
    """
    axes = [np.array(v, float) for v in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    last: np.ndarray | None = None  # the last successful displacement, in units of its step
    best, zc, far, it = S.merit(S.key(z), S.W)[:2], z, h, 0
    while h >= min_step and it < maxiter:
        moved = False
        for kind in ("pattern", "axes", "ridge"):
            if kind == "pattern":  # Hooke-Jeeves: repeat the last successful move first (one candidate)
                if last is None:
                    continue
                cands = [np.clip(z + h * last, S.lo, S.hi)]
            elif kind == "axes":
                cands = [np.clip(z + h * e, S.lo, S.hi) for e in axes]
            else:
                cands = [np.clip(c, S.lo, S.hi) for c in S.ridge(z, h)]
                if not cands:
                    break
            it += 1
            res = S.poll(cands)
            j = min(
                range(len(cands)), key=lambda i: (res[i][1], res[i][0]) if res[i][1] > 0 else (-1, res[i][0])
            )
            if _better(res[j], best):
                last = (cands[j] - z) / h
                z, best, moved = cands[j], res[j], True
                path.append(z.copy())
                break
        if not moved or np.abs(z - zc).max() >= far - 1e-9:
            zc = z
            if S.grow(S.key(z)):
                best, last = S.merit(S.key(z), S.W)[:2], None
                continue
        if not moved:
            h /= 2
            last = None
    return z, it
