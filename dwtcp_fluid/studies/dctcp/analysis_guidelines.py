"""DCTCP parameter guidelines computed from our limit cycles, next to the paper's (17), (18), (27).

[DCTCP-A] derives K ≈ 0.17·C·d (17) from Q_min ≈ −0.15 read off Fig. 7, g ≲ 1/sqrt(C·d + K) (18)
from "the period grows like √w̄", and g ≳ 5/(C·d + K) (27) from the hybrid model's rate γ. Here each bound is
recomputed from the data instead of the constants:

* **K** (100 % throughput): the queue must not underflow, K ≥ |Q_min|·C·R* = |Q_min|·(C·d + K), i.e.
  K = |Q_min|/(1 − |Q_min|)·C·d, with Q_min the worst undershoot of the cycle over the w̄ the link can see
  (w̄ = (C·d + K)/N for N ≥ 1 flows; only that N when ``flows`` is given) at the largest recommended g
  (the undershoot deepens with g).
* **g upper**: α's low-pass filter (time constant 1/g RTTs) must be slower than the marking signal, whose period
  is the cycle period T: g ≤ 1/T(w̄ = C·d + K), measured at N = 1 (largest w̄, longest period, the paper's worst
  case), T computed at small g.
* **g lower**: g must not limit the convergence rate min(g, γ) of (25): g ≥ γ(W*) computed exactly from
  (23), (25) for W* = (C·d + K)/N (N = ``flows``, or 2, the paper's "small number of large flows").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...analysis.limit_cycle import LimitCycle, find_limit_cycle
from ...params import LinkParams, check_range
from . import analysis_hybrid as hy

__all__ = ["guide", "paper_guideline", "worst_undershoot"]

#: g at which the period for the upper bound on g is measured ("small g": the cycle's own time scale).
G_SMALL = 0.001


def paper_guideline(bdp: float) -> dict[str, float]:
    """The paper's K ≈ 0.17·C·d (17) and 5/(C·d + K) ≲ g ≲ 1/sqrt(C·d + K) (27), (18), [DCTCP-A] (C·d in packets)."""
    K = 0.17 * bdp
    return {
        "K_packets": K,
        "K_fraction_of_bdp": 0.17,
        "g_min": 5.0 / (bdp + K),
        "g_max": 1.0 / math.sqrt(bdp + K),
    }


def _q_min(wbar: float, g: float) -> float:
    c = find_limit_cycle(wbar, g)
    return c.q_min if isinstance(c, LimitCycle) else 0.0  # w̄ ≤ 2: fixed point above K, no undershoot


def worst_undershoot(g: float, wbar_max: float) -> tuple[float, float]:
    """(w̄, Q_min) of the deepest undershoot over 2 < w̄ ≤ ``wbar_max`` (scan, then a parabola through the best)."""
    check_range("wbar_max", wbar_max, lo=0.0, lo_open=True)
    grid = np.array([3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0, 18.0, 22.0, 30.0, 45.0])
    grid = grid[grid < wbar_max]
    grid = np.append(grid, wbar_max) if wbar_max > 2.0 else np.array([])
    if grid.size == 0:
        return wbar_max, 0.0
    q = np.array([_q_min(w, g) for w in grid])
    i = int(np.argmin(q))
    if 0 < i < grid.size - 1:
        # refine on a parabola in w̄ through the three best points
        a, b, c = np.polyfit(grid[i - 1 : i + 2], q[i - 1 : i + 2], 2)
        if a > 0:
            w = float(np.clip(-b / (2 * a), grid[i - 1], grid[i + 1]))
            qw = _q_min(w, g)
            if qw < q[i]:
                return w, qw
    return float(grid[i]), float(q[i])


def guide(
    link: LinkParams,
    flows: int | None = None,
    *,
    iterations: int = 3,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Marking threshold K and gain range for a link, from the limit cycles and the hybrid model.

    Parameters
    ----------
    link : LinkParams
        Capacity C and base RTT d.
    flows : int, optional
        Number of long-lived flows N; without it the worst case over N ≥ 1 is used for K and N = 2 for the lower
        bound on g.
    iterations : int
        Fixed-point iterations between K, w̄ and g (K changes C·d + K, which changes w̄ and the g range).
    progress : callable, optional
        ``progress(done, iterations)`` after each iteration (the package's progress convention; at most
        ``iterations``: it ends early at ``(n, n)`` when K has converged after n).

    Returns
    -------
    dict with ``K_packets``, ``K_fraction_of_bdp``, ``g_min``, ``g_max``, the data behind them, the paper's
    values and a ``reasoning`` list.
    """
    if not isinstance(link, LinkParams):
        raise ValueError(f"link={link!r} is invalid: accepted a LinkParams")
    if flows is not None:
        flows = int(check_range("flows", flows, lo=1, integer=True))
    bdp = link.bdp
    check_range("bdp", bdp, lo=2.0, why="C·d in packets; DCTCP's cycle needs w̄ = (C·d + K)/N > 2")
    K = 0.17 * bdp
    n_conv = flows if flows is not None else 2
    if progress is not None:
        progress(0, iterations)
    for it in range(iterations):
        W_max = bdp + K
        per = find_limit_cycle(W_max, G_SMALL)
        T_max = per.period if isinstance(per, LimitCycle) else math.nan
        g_max = min(1.0, 1.0 / T_max)
        wstar = W_max / n_conv
        g_min = float(hy.gamma_rate(wstar, hy.alpha_star_small_g(wstar)))
        if flows is None:
            w_worst, qmin = worst_undershoot(g_max, W_max)
        else:
            w_worst = W_max / flows
            qmin = _q_min(w_worst, g_max) if w_worst > 2.0 else 0.0
        K_new = abs(qmin) / (1.0 - abs(qmin)) * bdp
        if abs(K_new - K) < 1e-3 * max(K, 1.0):
            K = K_new
            if progress is not None:
                progress(it + 1, it + 1)
            break
        K = K_new
        if progress is not None:
            progress(it + 1, iterations)
    W_max = bdp + K
    paper = paper_guideline(bdp)
    paper_K = paper["K_packets"]
    paper_Wmax = bdp + paper_K
    return {
        "bdp_packets": bdp,
        "flows": flows,
        "K_packets": K,
        "K_fraction_of_bdp": K / bdp,
        "g_min": g_min,
        "g_max": g_max,
        "q_min": qmin,
        "worst_wbar": w_worst,
        "period_at_wmax_rtt": T_max,
        "W_max": W_max,
        "paper": {**paper, "source": "[DCTCP-A] eqs. (17), (18), (27)"},
        "reasoning": [
            f"Worst queue undershoot of the limit cycle Q_min = {qmin:.4f}·C·R* at w̄ = {w_worst:.3g}"
            f" (g = {g_max:.3g}); no underflow needs K ≥ |Q_min|·(C·d + K), so K = {K:.1f} packets"
            f" = {K / bdp:.3f}·C·d (paper: 0.17·C·d = {paper_K:.1f}).",
            f"Cycle period at N = 1 (w̄ = C·d + K = {W_max:.1f}) is T = {T_max:.2f} RTTs; α's filter must be slower:"
            f" g ≤ 1/T = {g_max:.4f} (paper: 1/sqrt(C·d + K) = {1 / math.sqrt(paper_Wmax):.4f}).",
            f"The hybrid model's rate γ at W* = (C·d + K)/{n_conv} is {g_min:.4f}/RTT; g below it would limit"
            f" convergence: g ≥ {g_min:.4f} (paper: 5/(C·d + K) = {5 / paper_Wmax:.4f}).",
        ],
    }
