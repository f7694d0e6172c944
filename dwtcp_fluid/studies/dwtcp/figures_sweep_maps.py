"""Maps of the DWTCP condition sweep: the registered sweep figure, and the maps ``dwtcp-fluid sweep`` draws next to its
dataset (:func:`draw_sweep_maps`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from ...analysis.linear import CLASSES
from ...experiments.figure import Claim, Figure, register
from ...formulas import kbar_star
from .plots_sweep_maps import plot_condition_map

__all__ = ["plot_condition_map", "draw_sweep_maps", "SWEEP_FIGURE"]


def draw_sweep_maps(
    ds: xr.Dataset, out: Path, stem: str, *, full: bool, only_missing: bool = False
) -> list[Path]:
    """Draw a sweep's maps next to its dataset, in directory ``out`` under ``stem``: the condition map, with
    ``full`` the outcome maps, and the packet truth when the dataset has the packet pass (``only_missing``: only
    those not there yet). Returns the maps' paths, the condition map first."""
    from ...plots.style import save_figure, style

    paths: list[Path] = []

    def draw(path: Path, plot) -> None:
        if not (only_missing and path.exists()):
            save_figure(plot(ds), path)
        paths.append(path)

    with style():
        draw(out / f"{stem}.png", plot_condition_map)
        if full:
            from .plots_sweep_outcomes import plot_outcome_maps

            draw(out / f"{stem}-outcomes.png", plot_outcome_maps)
        if "packet_class" in ds:
            from .figures_packet_truth import plot_packet_truth

            draw(out / f"{stem}-packet.png", plot_packet_truth)
    return paths


def _build(quick: bool) -> xr.Dataset:
    from ...sweep import SweepGrid, run_sweep

    grid = SweepGrid(
        beta=(0.001, 0.05),
        bdp=np.geomspace(10.0, 10_000.0, 13),
        flows=(1, 10, 100),
        kbar_ratio=np.geomspace(0.01, 10.0, 13),
    )
    return run_sweep(grid)


def _claim_agree(ds: xr.Dataset) -> tuple[bool, str]:
    scored = ~ds["boundary"]
    n_bad = int((~ds["agree"] & scored).sum())
    return n_bad == 0, f"{int(scored.sum()) - n_bad}/{int(scored.sum())} off-boundary points agree"


def _claim_stable(ds: xr.Dataset) -> tuple[bool, str]:
    frac = float((ds["frozen_stability"] == 0).mean())
    return frac == 1.0, f"fraction asymptotically stable = {frac:.3f} (eq. (12): Re λ = −β·k̄/(2τ·BDP) < 0)"


def _claim_boundary_degenerate(ds: xr.Dataset) -> tuple[bool, str]:
    b = ds["boundary"]
    cls = ds["eig_class"].where(b)
    n = int(b.sum())
    ok = n > 0 and bool((cls.where(b) == CLASSES.index("degenerate")).sum() == n)
    return ok, f"{n} boundary points, all degenerate (repeated eigenvalue)" if ok else f"{n} boundary points"


def _claim_no_N(ds: xr.Dataset) -> tuple[bool, str]:
    ev = ds["eig_real"] + 1j * ds["eig_imag"]
    spread = float(abs(ev - ev.isel(flows=0)).max() / abs(ev).max())
    return spread < 1e-6, f"max relative change of the eigenvalues across N = {spread:.1e}"


def _claim_buffers(ds: xr.Dataset) -> tuple[bool, str]:
    r = ds["kbar_crit"].sel(beta=0.001) / ds["bdp"]
    return bool(np.allclose(r, kbar_star(1.0, 0.001))), f"k̄*/BDP at β = 0.001: {float(r.min()):.2f}"


SWEEP_FIGURE = register(
    Figure(
        name="dwtcp_condition_map",
        title="DWTCP condition k̄ < 2·BDP/√β against the class of the frozen Jacobian (8)",
        build=_build,
        plot=plot_condition_map,
        claims=(
            Claim(
                "The condition and the eigenvalue class agree at every grid point off the boundary",
                _claim_agree,
            ),
            Claim(
                "Every frozen Jacobian is asymptotically stable: (14) separates spiral from node only",
                _claim_stable,
            ),
            Claim(
                "On the boundary k̄ = k̄* the eigenvalue is repeated (degenerate node)",
                _claim_boundary_degenerate,
            ),
            Claim(
                "At w = BDP/N the eigenvalues do not depend on N (det J = β/τ²; to 1e-6 relative)",
                _claim_no_N,
            ),
            Claim("At β = 0.001, k̄* ≈ 63.2·BDP", _claim_buffers),
        ),
    )
)
