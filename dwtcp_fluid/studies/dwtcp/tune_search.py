"""The model runs and the search of :func:`~dwtcp_fluid.studies.dwtcp.tune.tune_dwtcp`: the box, one run's
parameters and step, batched (candidate, point) runs, and the compass search with pattern and boundary moves in
(log10 β, log10 K) on a working set of points certified over every point (the method and where its runs go:
:mod:`dwtcp_fluid.studies.dwtcp.tune`)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ...params import DwtcpParams, LinkParams
from ..dctcp.tune import TuneRange

__all__ = ["Search", "compass", "pair_observables", "step_rtts"]

#: Search box: β (byte convention) and K (packets). Below K = 20 the busy age's reset rate gap_cap·C/k makes the
#: fixed JAX step (k/(40·BDP) RTTs) too small to afford; above 1000 the target delay exceeds the RTTs of the range.
BETA_BOX = (1e-5, 1e-2)
K_BOX = (20.0, 1000.0)
#: The validation grid of ``benchmarks/tune.py --dwtcp`` (β points × K points, geometric over the box: 0.1 decade
#: in β, 0.1 in K): 558 candidates, each run at every operating point.
GRID = (31, 18)
#: Start: [DWTCP]'s experiments (β = 0.001, K = 100).
START = (1e-3, 100.0)
SCOUT_BYTES, ALPHA0, BUFFER = 64.0, 20.0, 5000
#: Model runs per batched solve of the search: the last batch of a request is padded to it with copies of its
#: last run (computed, never counted), so that every solve has one compiled shape.
ELEMENTS = 16
_KEYS = ("queue_mean", "queue_max", "amplitude", "utilization", "standing", "threshold", "ok")


def _params(rng: TuneRange, d: float, n: float, beta: float, K: float) -> DwtcpParams:
    """One model run's parameters: operating point (RTT d in s, N flows) and candidate (β, K)."""
    link = LinkParams(rng.capacity, float(d), rng.packet_size)
    return DwtcpParams(
        link=link, flows=int(n), beta=float(beta), k=float(K), scout_size=SCOUT_BYTES, alpha0=ALPHA0
    )


def step_rtts(rng: TuneRange, K: float) -> float:
    """The JAX step (RTTs) for target ``K`` over ``rng``: the range's longest RTT's k/(40·BDP), capped at 1/80 RTT and
    rounded down to 1/80 · 2^-j, so that a candidate's step depends on its K alone (never on its batch-mates) and
    batches share a compiled solver."""
    need = min(1 / 80, float(K) / (40 * rng.C * float(rng.grid()[0].max())))
    return (1 / 80) * 2.0 ** -math.ceil(math.log2((1 / 80) / need) - 1e-12)


def pair_observables(
    rng: TuneRange, beta: Any, K: Any, point: Any, *, dt_rtts: float, warmup_rtts: float = 100.0,
    window_rtts: float = 300.0,
) -> dict[str, np.ndarray]:  # fmt: skip
    """The busy-period model's summary for (β[i], K[i]) at operating point ``point[i]`` (an index into
    ``rng.grid()``): one model run per element, in one batched solve with step ``dt_rtts``; keys of
    :func:`busy_observables`, arrays (n,)."""
    from ...judge.classes import oscillation_threshold
    from .analysis_busy_batch import run_busy_batch

    D, N = rng.grid()
    idx = np.asarray(point, int)
    pts = [
        _params(rng, D[i], N[i], b, k)
        for b, k, i in zip(np.asarray(beta, float), np.asarray(K, float), idx, strict=True)
    ]
    runs = run_busy_batch(pts, warmup_rtts=warmup_rtts, window_rtts=window_rtts, dt_rtts=dt_rtts)
    out = {k: np.array([r[k] for r in runs], float) for k in _KEYS[:4]}
    out["standing"] = np.array([r["regime"] == "standing queue" for r in runs])
    out["ok"] = np.array([r["status"] == "ok" for r in runs])
    out["threshold"] = np.array([oscillation_threshold(int(N[i]), BUFFER) for i in idx], float)
    return out


def _terms(o: dict[str, np.ndarray], objective: str, u_min: float, steady: bool) -> tuple[np.ndarray, ...]:
    """Per model run: the objective's value (packets), the utilization margin utilization − u_min and the
    steadiness margin 0.01·(1 − amplitude/threshold) (+inf without ``steady``): one threshold's worth weighs like
    1 % of utilization. Both margins are −inf where the solve failed."""
    v = o["queue_mean"] if objective == "mean-queue" else o["queue_max"]
    ok = np.asarray(o["ok"], bool)
    mu = np.where(ok, o["utilization"] - u_min, -np.inf)
    ma = np.where(ok, 0.01 * (1 - o["amplitude"] / o["threshold"]) if steady else np.inf, -np.inf)
    return np.asarray(v, float), mu, ma


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
    S: Search,
    z: np.ndarray,
    h: float,
    min_step: float,
    maxiter: int,
    path: list[np.ndarray],
    *,
    deadline: float = math.inf,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int]:
    """Compass search with pattern and boundary moves on the working set from ``z`` at step ``h`` until the step is
    below ``min_step``, ``maxiter`` polls are spent or ``time.perf_counter()`` passes ``deadline``; appends
    accepted iterates to ``path``; returns the last iterate and the number of polls.

    The incumbent is certified over every point (:meth:`Search.grow`) before the step shrinks and whenever it is
    a first step ``h`` away from where it was last certified; when the working set grows, the incumbent is re-ranked
    on it and the poll repeats at the same step.
    """
    axes = [np.array(v, float) for v in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    last: np.ndarray | None = None  # the last successful displacement, in units of its step
    best, zc, far, it = S.merit(S.key(z), S.W)[:2], z, h, 0
    while h >= min_step and it < maxiter and time.perf_counter() < deadline:
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
            if progress is not None:
                progress(it, maxiter)
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
