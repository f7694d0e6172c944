"""The sweep as a result object (:mod:`dwtcp_fluid.results` protocol): the dataset, a status per fluid point, a
typed summary and a plot.

:func:`sweep` runs :func:`.run.run_sweep` and wraps its dataset; :class:`SweepResult` wraps any sweep dataset
(one loaded from NetCDF too). The summary's numbers are those of :func:`.run.summarize`, typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from ..formulas import kbar_star
from ..results import Result, Status, Summary, new_axes
from .grid import SweepGrid
from .run import run_sweep, summarize

__all__ = ["SweepResult", "SweepSummary", "sweep"]


@dataclass(frozen=True)
class SweepSummary(Summary):
    """Counts per class of the frozen Jacobian (8), the agreement of (14) with the spiral class, and what the
    delayed fluid runs, the delay-aware roots and the packet sample say (empty when not evaluated)."""

    points: int
    beta: list[float]
    kbar_crit_over_bdp: dict[str, float]
    class_counts: dict[str, int]
    condition_true: int
    boundary_points: int
    agreement_rate: float
    disagreements: int
    disagreement_examples: list[dict[str, float]]
    frozen_asymptotically_stable_fraction: float
    eigenvalue_spread_over_flows: float
    fluid: dict[str, Any]
    fluid_agreement: dict[str, Any]
    delay_roots: dict[str, Any]
    packet: dict[str, Any]


class SweepResult(Result):
    """A sweep dataset with the result protocol.

    ``status`` has one element per (β, BDP, N) point of the delayed fluid runs (their solver status, the codes of
    :class:`~dwtcp_fluid.results.Status`), or one OK element when only the frozen Jacobian was evaluated.
    """

    def __init__(self, ds: xr.Dataset) -> None:
        from .predictors import migrate_names

        ds = migrate_names(ds)  # a dataset written under the fluid predictors' former names
        self.dataset = ds
        if "delayed_status" in ds:
            self.status = np.asarray(ds["delayed_status"].values, dtype=np.int64).ravel()
        else:
            self.status = np.array([int(Status.OK)])
        self.messages = ["" if Status(int(s)).ok else Status(int(s)).message for s in self.status]

    def summary(self, *, max_disagreements: int = 5) -> SweepSummary:
        s = summarize(self.dataset, max_disagreements=max_disagreements)
        sections = {k: s.pop(k, {}) for k in ("fluid", "fluid_agreement", "delay_roots", "packet")}
        return SweepSummary(**s, **sections)

    def to_dataset(self) -> xr.Dataset:
        return self.dataset

    def plot(self, ax: Any = None, *, beta: float | None = None, flows: float | None = None) -> Any:
        """The class of the frozen Jacobian over BDP × k̄/k̄* for one β and N (default: the first β, the middle N),
        with the condition's boundary k̄ = k̄*; returns the axes."""
        ds = self.dataset
        ax = new_axes(ax)
        b = float(ds["beta"].values[0]) if beta is None else beta
        n = float(ds["flows"].values[ds.sizes["flows"] // 2]) if flows is None else flows
        s = ds.sel(beta=b, flows=n, method="nearest")
        names = ds["eig_class"].attrs["flag_meanings"].split()
        m = ax.pcolormesh(
            s["bdp"], s["kbar_ratio"], s["eig_class"].values.T, shading="nearest", cmap="viridis"
        )
        ax.axhline(1.0, color="white", ls="--", lw=1.0)
        ax.set(xscale="log", yscale="log", xlabel="BDP (packets)", ylabel="k̄ / k̄*")
        ax.set_title(f"β = {b:g}, N = {n:g}: class of (8); k̄* = {kbar_star(1.0, b):.3g}·BDP")
        cb = ax.figure.colorbar(m, ax=ax, ticks=range(len(names)))
        cb.ax.set_yticklabels(names)
        return ax


def sweep(grid: SweepGrid, **options: Any) -> SweepResult:
    """Run the sweep on ``grid`` (:func:`.run.run_sweep`, ``options`` as there) and wrap the dataset.

    ``dw.run_sweep(grid)`` evaluates the frozen Jacobian (8) only; ``plan=dw.sweep_plan(grid, "full")`` adds the
    delay-aware roots and the delayed fluid runs, and ``packet="sample", packet_sample=m`` (or ``packet="all"``)
    the packet pass, as ``dwtcp-fluid sweep`` does (``summary().packet``)."""
    return SweepResult(run_sweep(grid, **options))
