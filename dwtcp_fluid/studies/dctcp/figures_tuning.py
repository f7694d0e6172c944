"""Registered figure: differentiable tuning of DCTCP's K and g over an operating range, against a grid search.

The issue's range (10 Gbps, base RTT 100-300 µs, 2-100 flows, 3 × 3 operating points) with the default
objective of :mod:`dwtcp_fluid.studies.dctcp.tune` (worst-case mean queue above the standing queue 2N − C·d, subject
to throughput ≥ 99 % and ρ ≤ 0.9 at every point): the SLSQP path with implicit-differentiation gradients over
the brute-force landscape of the same objective, and the [DCTCP-A] guideline box (17), (18), (27).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from .analysis_guidelines import paper_guideline
from .plots_tuning import plot_tuning
from .tune import OBJECTIVES, TuneRange, grid_search, tune_dctcp

__all__ = ["build_tuning", "plot_tuning", "TUNING_FIGURE", "FIGURE_RANGE"]

#: The operating range of the figure (the issue's).
FIGURE_RANGE = TuneRange("10Gbps", ("100us", "300us"), (2, 100), points=3)
#: The brute-force grid: K linear, g geometric.
GRID_K = np.linspace(6.0, 60.0, 13)
GRID_G = np.geomspace(0.002, 0.128, 10)


def build_tuning(quick: bool = False) -> dict[str, Any]:
    """Tuner result and grid landscape (deterministic: fixed start, fixed grid)."""
    # no time budget: the figure must not depend on the CPU
    r = tune_dctcp(FIGURE_RANGE, max_seconds=math.inf)
    G = grid_search(FIGURE_RANGE, GRID_K, GRID_G)
    s = r.summary()
    lo, hi = (paper_guideline(FIGURE_RANGE.C * d) for d in FIGURE_RANGE.d)
    box = {"K_lo": lo["K_packets"], "K_hi": hi["K_packets"], "g_lo": min(lo["g_min"], hi["g_min"]),
           "g_hi": max(lo["g_max"], hi["g_max"])}  # fmt: skip
    return {
        "K": r.K, "g": r.g, "objective_value": s.objective_value, "active": s.active_constraints,
        "throughput_min": s.throughput_min, "rho_max": s.rho_max, "cycle_solves": r.cycle_solves,
        "path": r.path, "grid": G, "guideline_box": box, "paper_lo": lo, "paper_hi": hi, "ok": r.ok,
        "objective_description": OBJECTIVES[r.objective],
        "label": "10 Gbps, RTT 100-300 µs, 2-100 flows (9 points)",
        "bdp": [FIGURE_RANGE.C * d for d in FIGURE_RANGE.d],
    }  # fmt: skip


def _claim_grid(d: dict[str, Any]) -> tuple[bool, str]:
    G = d["grid"]
    dK, dlg = GRID_K[1] - GRID_K[0], np.log(GRID_G[1] / GRID_G[0])
    ok = abs(d["K"] - G["K"]) <= dK and abs(np.log(d["g"] / G["g"])) <= dlg
    return bool(ok and d["ok"]), (
        f"gradient K = {d['K']:.2f}, g = {d['g']:.5f}; grid K = {G['K']:.1f}, g = {G['g']:.5f}"
        f" (spacing {dK:.1f} packets, ×{np.exp(dlg):.2f} in g)"
    )


def _claim_value(d: dict[str, Any]) -> tuple[bool, str]:
    v, gv = d["objective_value"], d["grid"]["objective_value"]
    feas = d["throughput_min"] >= 0.99 - 1e-4 and d["rho_max"] <= 0.9 + 1e-4
    return bool(feas and v <= gv + 1e-6), (
        f"gradient {v:.2f} packets (throughput ≥ {d['throughput_min']:.4f}, ρ ≤ {d['rho_max']:.4f}); grid {gv:.2f}"
    )


def _claim_counts(d: dict[str, Any]) -> tuple[bool, str]:
    n, m = d["cycle_solves"], d["grid"]["cycle_solves"]
    return bool(m >= 10 * n), f"{n} cycle solves (gradient) vs {m} (grid): {m / n:.1f}×"


def _claim_guideline(d: dict[str, Any]) -> tuple[bool, str]:
    lo, hi = d["paper_lo"], d["paper_hi"]
    below = d["g"] < min(lo["g_min"], hi["g_min"])
    return bool(below), (
        f"g* = {d['g']:.4f} < 5/(C·d + K) = {hi['g_min']:.4f} (300 µs) … {lo['g_min']:.4f} (100 µs);"
        f" K* = {d['K']:.1f} vs 0.17·C·d = {lo['K_packets']:.1f} … {hi['K_packets']:.1f}"
    )


TUNING_FIGURE = register(
    Figure(
        name="dctcp_tuning_landscape",
        title="DCTCP tuning: worst-case mean queue over (K, g), gradient path and grid optimum",
        build=build_tuning,
        plot=plot_tuning,
        claims=[
            Claim(
                "The gradient optimum lies within one grid spacing of the grid optimum in K and in g",
                _claim_grid,
            ),
            Claim(
                "The gradient optimum is feasible and no worse than the grid's best feasible point",
                _claim_value,
            ),
            Claim("The gradient method needs at least 10× fewer cycle solves than the grid", _claim_counts),
            Claim(
                "At the optimum g lies below [DCTCP-A]'s lower bound 5/(C·d + K) (27) at every RTT of the range",
                _claim_guideline,
            ),
        ],
        slow=True,  # minutes of CPU: make test-all and CI check it
    )
)
