"""Maps of what DWTCP does over BDP × N (per β), against what the condition k̄ < 2·BDP/√β predicts.

Panels: (a) observed k̄ of the delayed fluid run over k̄* with the k̄ = k̄* contour; (b) queue oscillation
amplitude; (c) agreement of the condition with the delayed run; (d) observed k̄ over the delay-aware critical k̄_c.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ...experiments.figure import Claim, Figure, register
from .plots_sweep_outcomes import plot_outcome_maps

__all__ = ["plot_outcome_maps", "OUTCOME_FIGURE"]


def _build(quick: bool) -> xr.Dataset:
    from ...sweep import SweepGrid, run_sweep
    from ...sweep.run import make_plan

    grid = SweepGrid(
        beta=(0.001,),
        bdp=np.geomspace(10.0, 10_000.0, 7),
        flows=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
        kbar_ratio=(0.01, 0.1, 1.0),
    )
    return run_sweep(grid, plan=make_plan(grid, "full", chunk_bdp=7))


def _claim_undelayed(ds: xr.Dataset) -> tuple[bool, str]:
    """Every run the solver resolves converges, and it resolves all but at most 2 % of the points.

    Every rest point of the undelayed model lies on the queue floor (q = 0, N·w = BDP), where the solver holds the
    queue at its bound; a run whose approach to it chatters on the bound ends with the solver's status
    ``TOO_MANY_EVENTS`` (seen at one point of 70 with XLA limited to SSE4.2) — no evidence either way, so it is
    listed, not counted as a miss."""
    ok = ds["undelayed_status"] == 0
    frac = float(ds["undelayed_converged"].where(ok).mean())
    bad = ds["undelayed_status"].where(~ok, drop=True).to_series().dropna()
    failed = ", ".join(f"BDP {b:g}, N {n:g}: status {int(v)}" for (_, b, n), v in bad.items())
    return frac == 1.0 and float(ok.mean()) >= 0.98, (
        f"undelayed paper model converged at {frac:.0%} of {int(ok.sum())} resolved points of {ok.size}"
        + (f" (unresolved: {failed})" if failed else "")
    )


def _claim_delayed(ds: xr.Dataset) -> tuple[bool, str]:
    ok = ds["delayed_status"] == 0
    n_conv = int(ds["delayed_converged"].where(ok, False).sum())
    amp = float(ds["delayed_q_amplitude"].where(ok).min())
    return (
        n_conv == 0,
        f"delayed model: {n_conv} of {int(ok.sum())} runs converge; smallest queue amplitude {amp:.1f} pkts",
    )


def _claim_kbar_law(ds: xr.Dataset) -> tuple[bool, str]:
    # The phase-portrait analysis: the increase runs one τ past w* = BDP/N, then the decrease follows a level set
    # of H, so the peak is BDP·sqrt(2(x − ln(1+x))/β), x = N(1+S/L)/BDP (≈ N(1+S/L)/√β for small x).
    x = ds["flows"] * (1 + 64 / 1500) / ds["bdp"]
    pred = ds["bdp"] * np.sqrt(2 * (x - np.log1p(x)) / ds["beta"])
    sel = (ds["bdp"] / ds["flows"] >= 1.0) & (ds["delayed_status"] == 0)
    err = float(abs(ds["delayed_kbar_obs"] / pred - 1).where(sel).max())
    return err < 0.05, f"max |k̄_obs / k̂ − 1| = {err:.3f} where BDP/N ≥ 1"


def _claim_condition_fails_to_predict(ds: xr.Dataset) -> tuple[bool, str]:
    scored = (ds["delayed_status"] == 0) & ds["delayed_settled"]
    c = float(ds["fluid_condition_agrees"].where(scored).mean())
    d = float(ds["fluid_delay_agrees"].where(scored).mean())
    return c < 0.5 and d > c, f"condition predicts {c:.0%} of scored runs, the delay-aware roots {d:.0%}"


OUTCOME_FIGURE = register(
    Figure(
        name="dwtcp_sweep_outcomes",
        title="What DWTCP does over BDP × N (β = 0.001), against the condition k̄ < 2·BDP/√β",
        build=_build,
        plot=plot_outcome_maps,
        claims=(
            Claim(
                "The paper's undelayed model converges to (BDP/N, 0) at every grid point the solver resolves (≥ 98 %)",
                _claim_undelayed,
            ),
            Claim(
                "With the one-RTT Scout delay no grid point converges: every run oscillates", _claim_delayed
            ),
            Claim(
                "The delayed cycle's observed k̄ is k̂ = BDP·√(2(x − ln(1+x))/β), x = N(1+S/L)/BDP (≈ N(1+S/L)/√β), "
                "within 5 % where BDP/N ≥ 1",
                _claim_kbar_law,
            ),
            Claim(
                "The condition predicts the delayed run at under half the points; the delay-aware roots do better",
                _claim_condition_fails_to_predict,
            ),
        ),
        slow=True,  # a sweep of its own, 20-25 s of CPU: make test-all and CI's check-figures-slow check it
    )
)
