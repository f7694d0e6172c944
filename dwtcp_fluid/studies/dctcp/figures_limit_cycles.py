"""Registered figures: DCTCP limit cycles (Fig. 6-9 of [DCTCP-A], recomputed) and RTT fairness.

* ``dctcp_fig6_rho``: Theorem 1's ρ over g × w̄, (a) as written (exp ∫ J_F) and (b) with the true transition
  matrices, from the batched JAX solver. The registered figure uses a reduced 16 × 8 log grid so that
  ``figures --check`` stays fast; ``benchmarks/limit_cycles.py`` computes the paper's full 60 × 40 grid.
* ``dctcp_fig7_queue``: Q_min and Q_max against w̄ for g ∈ {0.01, 0.05, 0.1, 0.15, 0.2, 0.25}.
* ``dctcp_fig8_period``: the period against w̄, with a power law fitted and its exponent reported.
* ``dctcp_fig9_throughput``: worst-case (over w̄) throughput with the queue floor against ψ = K/(C·d).
* ``dctcp_rtt_fairness``: throughput ratio of two flow groups against their RTT ratio in the fluid model (37)-(38).

Every claim is measured from the figure's data; where our numbers differ from the paper's text, the claim says
what we measure and the paper's statement is quoted next to it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...analysis.limit_cycle_batch import OK, cycles_batch
from ...experiments.figure import Claim, Figure, register
from .analysis_rtt_fairness import rtt_fairness
from .plots_limit_cycles import plot_fig6, plot_fig7, plot_fig8, plot_fig9, plot_rtt

__all__ = ["build_fig6", "build_fig78", "build_fig9", "build_rtt", "G_FIG7", "G_FIG9"]

G_FIG7 = (0.01, 0.05, 0.1, 0.15, 0.2, 0.25)
G_FIG9 = (0.01, 0.05, 0.1, 0.15, 0.2)
#: RK4 steps per R* for the figures (T and ρ agree with the SciPy path to < 1e-6, tests/test_limit_cycle_batch.py).
STEPS = 20
CHUNK = 128


# --- Fig. 6 --------------------------------------------------------------------------------------------------
def build_fig6(quick: bool = False, n_wbar: int = 16, n_g: int = 8) -> dict[str, Any]:
    """ρ (a) and (b) on a log grid g ∈ [0.001, 1] × w̄ ∈ [2.01, 1000] (Fig. 6 of [DCTCP-A])."""
    if quick:
        n_wbar, n_g = min(n_wbar, 10), min(n_g, 6)
    w = np.geomspace(2.01, 1000.0, n_wbar)
    g = np.geomspace(0.001, 1.0, n_g)
    W, G = np.meshgrid(w, g, indexing="ij")
    b = cycles_batch(W, G, steps_per_unit=STEPS, chunk=CHUNK)
    shape = W.shape
    return {
        "wbar": w,
        "g": g,
        "rho_monodromy": b.rho_monodromy.reshape(shape),
        "rho_paper": b.rho_paper.reshape(shape),
        "period": b.period.reshape(shape),
        "status": b.status.reshape(shape),
    }


def _rho_below_one(d):
    m = np.nanmax(d["rho_monodromy"])
    i = np.unravel_index(np.nanargmax(d["rho_monodromy"]), d["rho_monodromy"].shape)
    solved = np.isfinite(d["rho_monodromy"]).all()
    return bool(m < 1 and solved), f"max ρ(b) = {m:.4f} at w̄ = {d['wbar'][i[0]]:.3g}, g = {d['g'][i[1]]:.3g}"


def _paper_vs_true(d):
    diff = np.abs(d["rho_paper"] - d["rho_monodromy"])
    i = np.unravel_index(np.nanargmax(diff), diff.shape)
    ok = np.nanmax(d["rho_paper"]) < 1 and diff[i] > 1e-3
    return bool(ok), (
        f"max ρ(a) = {np.nanmax(d['rho_paper']):.4f}; max |ρ(a) − ρ(b)| = {diff[i]:.3g} at w̄ = "
        f"{d['wbar'][i[0]]:.3g}, g = {d['g'][i[1]]:.3g}"
    )


register(
    Figure(
        name="dctcp_fig6_rho",
        title="DCTCP Fig. 6: Theorem 1's spectral radius over (w̄, g), as written and with transition matrices",
        build=build_fig6,
        plot=plot_fig6,
        slow=True,  # about 26 s of CPU: a limit cycle and its multipliers at each of the 128 grid points
        claims=[
            Claim(
                "ρ < 1 at every point of the grid (paper: ρ < 1 on g ∈ [0.001, 1] × w̄ ∈ [2.01, 1000])",
                _rho_below_one,
            ),
            Claim(
                "ρ as written (exp ∫ J_F) is also < 1 but is a different number from the true multiplier "
                "(|ρ(a) − ρ(b)| > 1e-3 somewhere)",
                _paper_vs_true,
            ),
        ],
    )
)


# --- Fig. 7 and 8 --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=2)
def _fig78(quick: bool) -> dict[str, Any]:
    base = np.geomspace(2.2, 1000.0, 20 if quick else 40)
    fine = np.arange(6.0, 31.0, 2.0 if quick else 1.0)  # resolve the undershoot's worst w̄
    w = np.unique(np.concatenate([base, fine]))
    gs = np.array(G_FIG7)
    W, G = np.meshgrid(w, gs, indexing="ij")
    b = cycles_batch(W, G, steps_per_unit=STEPS, chunk=CHUNK)
    s = W.shape
    return {
        "wbar": w,
        "g": gs,
        "q_min": b.q_min.reshape(s),
        "q_max": b.q_max.reshape(s),
        "period": b.period.reshape(s),
        "status": b.status.reshape(s),
        "x_alpha": b.x_alpha[:, :2].reshape(s + (2,)),
    }


def build_fig78(quick: bool = False) -> dict[str, Any]:
    """Q_min, Q_max and the period against w̄ for the g of Fig. 7 (deterministic, cached per ``quick``)."""
    d = dict(_fig78(bool(quick)))
    w = d["wbar"]
    sel = (w >= 10.0) & (w <= 1000.0)
    d["fit"] = {
        float(g): np.polyfit(np.log(w[sel]), np.log(d["period"][sel, j]), 1) for j, g in enumerate(d["g"])
    }
    return d


def _overshoot_decreasing(d):
    w = d["wbar"]
    sel = w >= 3.0
    dq = np.diff(d["q_max"][sel], axis=0)
    frac = float(np.mean(dq < 0))
    return frac == 1.0, f"Q_max decreases at {100 * frac:.0f}% of consecutive w̄ ≥ 3, for all 6 g"


def _overshoot_vs_undershoot_g(d):
    sel = (d["wbar"] >= 3.0) & (d["wbar"] <= 250.0)
    qx, qn = d["q_max"][sel], d["q_min"][sel]
    over = np.max((qx[:, -1] - qx[:, 0]) / qx[:, 0])
    under = np.max(np.min(qn, axis=0)) / np.min(np.min(qn, axis=0))
    under_spread = 1.0 / under - 1.0
    return bool(over < under_spread), (
        f"Q_max grows by at most {100 * over:.0f}% from g = 0.01 to 0.25; worst Q_min deepens by {100 * under_spread:.0f}%"
    )


def _worst_wbar(d):
    sel = d["wbar"] <= 250.0
    w = d["wbar"][sel]
    arg = w[np.argmin(d["q_min"][sel], axis=0)]
    ok = bool(np.all((arg >= 10.0) & (arg <= 16.0)))
    return ok, "worst w̄ per g: " + ", ".join(f"{g:g}→{a:.3g}" for g, a in zip(d["g"], arg, strict=True))


def _deepens_with_g(d):
    worst = np.min(d["q_min"], axis=0)
    return bool(np.all(np.diff(worst) < 0)), "worst Q_min: " + ", ".join(f"{v:.4f}" for v in worst)


def _qmin_small_g(d):
    worst = float(np.min(d["q_min"][:, 0]))
    return -0.16 <= worst <= -0.12, f"worst Q_min at g = 0.01: {worst:.4f} (paper: ≈ −0.15)"


register(
    Figure(
        name="dctcp_fig7_queue",
        title="DCTCP Fig. 7: queue undershoot Q_min and overshoot Q_max against w̄",
        build=build_fig78,
        plot=plot_fig7,
        claims=[
            Claim("Overshoot Q_max decreases with w̄ (w̄ ≥ 3) for every g", _overshoot_decreasing),
            Claim(
                "Overshoot depends on g less than the undershoot does (paper: 'not sensitive to g')",
                _overshoot_vs_undershoot_g,
            ),
            Claim("Undershoot is worst at w̄ ∈ [10, 16] for every g (paper: about 12–16)", _worst_wbar),
            Claim("The worst undershoot deepens as g grows", _deepens_with_g),
            Claim(
                "Worst undershoot for g = 0.01 is between −0.16 and −0.12 (paper: Q_min ≈ −0.15)",
                _qmin_small_g,
            ),
        ],
    )
)


def _exponent_small_g(d):
    b = d["fit"][0.01][0]
    return 0.25 <= b <= 0.45, f"fitted exponent for g = 0.01 on w̄ ∈ [10, 1000]: {b:.3f} (paper: 0.5)"


def _exponent_large_g(d):
    bs = [d["fit"][float(g)][0] for g in d["g"] if g >= 0.15]
    return all(0.45 <= b <= 0.6 for b in bs), "exponents for g ≥ 0.15: " + ", ".join(f"{b:.3f}" for b in bs)


def _period_grows_with_g(d):
    T = d["period"][-1]
    return bool(np.all(np.diff(T) > 0)), f"period at w̄ = {d['wbar'][-1]:g}: " + ", ".join(
        f"{t:.1f}" for t in T
    )


register(
    Figure(
        name="dctcp_fig8_period",
        title="DCTCP Fig. 8: limit-cycle period against w̄ with power-law fits",
        build=build_fig78,
        plot=plot_fig8,
        claims=[
            Claim(
                "For small g the period grows slower than √w̄: exponent in [0.25, 0.45] for g = 0.01 (paper: √w̄)",
                _exponent_small_g,
            ),
            Claim("For g ≥ 0.15 the √w̄ law fits: exponents in [0.45, 0.6]", _exponent_large_g),
            Claim(
                "The period grows with g (paper's 'increasing g' arrow), at w̄ = 1000", _period_grows_with_g
            ),
        ],
    )
)


# --- Fig. 9 --------------------------------------------------------------------------------------------------
def build_fig9(quick: bool = False, full: bool = False) -> dict[str, Any]:
    """Worst-case throughput over w̄ against ψ, queue floor q̃ ≥ −ψ/(1+ψ) (Fig. 9 of [DCTCP-A]).

    The floor-free cycles come from the Fig. 7 data (same w̄ and g); points whose floor-free cycle stays above
    the floor have throughput exactly 1 and are not re-solved; the others start Newton from the floor-free cycle.
    ``full`` (benchmark) uses every Fig. 7 w̄ up to 400 and 30 values of ψ.
    """
    d78 = _fig78(bool(quick))
    psi = np.array([0.005, 0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.2])
    w_all = d78["wbar"]
    sel = np.flatnonzero((w_all >= 5.0) & (w_all <= 100.0))
    if full:
        psi = np.unique(np.concatenate([psi, np.linspace(0.01, 0.3, 30)]))
        sel = np.flatnonzero((w_all >= 2.5) & (w_all <= 400.0))
    else:
        sel = sel[::2]
    if quick:
        psi = psi[::2]
    gi = np.array([list(G_FIG7).index(g) for g in G_FIG9])
    w = w_all[sel]
    gs = np.array(G_FIG9)
    qmin = d78["q_min"][np.ix_(sel, gi)]
    y_free = d78["x_alpha"][np.ix_(sel, gi)]
    thr = np.ones((len(psi), len(w), len(gs)))
    P3, W3, G3 = np.meshgrid(psi, w, gs, indexing="ij")
    Q3 = np.broadcast_to(qmin, thr.shape)
    Y3 = np.broadcast_to(y_free, thr.shape + (2,))
    hit = Q3 < -P3 / (1.0 + P3)
    status = np.zeros(thr.shape, dtype=int)
    if hit.any():
        fl = cycles_batch(W3[hit], G3[hit], psi=P3[hit], steps_per_unit=STEPS, chunk=CHUNK, y0=Y3[hit])
        thr[hit] = fl.throughput
        status[hit] = fl.status
    worst = thr.min(axis=1)
    return {
        "psi": psi,
        "wbar": w,
        "g": gs,
        "throughput": thr,
        "worst": worst,
        "worst_wbar": w[np.argmin(thr, axis=1)],
        "status": status,
        "q_min_free": qmin,
    }


def _thr_94(d):
    sel = d["g"] < 0.1
    m = float(np.min(d["worst"][:, sel]))
    return m >= 0.94, f"min worst-case throughput for g < 0.1 over ψ ≥ {d['psi'][0]:g}: {100 * m:.2f}%"


def _psi_100(d):
    j = 0  # g = 0.01
    full = d["worst"][:, j] >= 1.0 - 1e-9
    psi100 = float(d["psi"][np.argmax(full)]) if full.any() else float("nan")
    q = float(np.min(d["q_min_free"][:, j]))
    exact = -q / (1.0 + q)
    ok = full.any() and 0.12 <= exact <= 0.2 and bool(np.all(full[d["psi"] >= exact]))
    return (
        ok,
        f"g = 0.01: 100% from ψ = |Q_min|/(1 − |Q_min|) = {exact:.3f} (first grid ψ: {psi100:g}); paper ≈ 0.17",
    )


register(
    Figure(
        name="dctcp_fig9_throughput",
        title="DCTCP Fig. 9: worst-case throughput with the queue floor against ψ",
        build=build_fig9,
        plot=plot_fig9,
        claims=[
            Claim("Worst-case throughput ≥ 94% for g < 0.1 (paper, section 3.3.2)", _thr_94),
            Claim(
                "100% throughput once ψ ≥ |Q_min|/(1 − |Q_min|) ≈ 0.15–0.2 for small g (paper: ψ ≈ 0.17)",
                _psi_100,
            ),
        ],
    )
)


# --- RTT fairness --------------------------------------------------------------------------------------------
def build_rtt(quick: bool = False) -> dict[str, Any]:
    """Section 5's 4-flow scenario in the fluid model (37)-(38): 10 Gbps, RTT1 = 100 µs, K = 35, g = 1/16."""
    ratios = (1.0, 2.0, 4.0, 10.0) if quick else (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0)
    return rtt_fairness(ratios, duration=0.2 if quick else 0.3)


def _rtt_slope(d):
    ok = bool(np.all(d["status"] == OK)) and -1.15 <= d["slope"] <= -0.85
    return ok, f"slope of log(thr2/thr1) on log(RTT2/RTT1): {d['slope']:.3f}"


register(
    Figure(
        name="dctcp_rtt_fairness",
        title="DCTCP RTT fairness in the fluid model (37)-(38)",
        build=build_rtt,
        plot=plot_rtt,
        claims=[
            Claim(
                "Linear RTT-fairness in the fluid model: log-log slope within −1 ± 0.15 (paper, section 5.2)",
                _rtt_slope,
            )
        ],
    )
)
