"""Maps of what the delayed fluid runs of the sweep do, and where the condition predicts it (drawing only)."""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Patch

#: Agreement categories of panel (c).
_AGREE = (
    ("condition holds, run oscillates (miss)", "#D55E00"),
    ("condition fails, run oscillates", "#E69F00"),
    ("condition holds, run converges", "#0072B2"),
    ("condition fails, run converges (miss)", "#CC79A7"),
    ("not scored (run failed / unsettled)", "0.8"),
)


def _agreement_codes(s: xr.Dataset) -> np.ndarray:
    cond = s["fluid_condition_obs"].values
    osc = s["delayed_oscillating"].values
    scored = (s["delayed_status"].values == 0) & s["delayed_settled"].values
    code = np.where(cond, np.where(osc, 0, 2), np.where(osc, 1, 3))
    return np.where(scored, code, 4)


def plot_outcome_maps(ds: xr.Dataset) -> MplFigure:
    """Four maps over BDP × N per β (rows): what the delayed fluid model does.

    Parameters
    ----------
    ds : xarray.Dataset
        A sweep dataset with the fluid runs and the delay-aware roots (``sweep_plan(grid, "full")``).
    """
    nb = ds.sizes["beta"]
    fig = MplFigure(figsize=(13.0, 3.3 * nb + 0.6), layout="constrained")
    axes = fig.subplots(nb, 4, squeeze=False)
    bdp = ds["bdp"].values
    N = ds["flows"].values.astype(float)
    for i in range(nb):
        s = ds.isel(beta=i)
        beta = float(s["beta"])
        ratio = (s["delayed_kbar_obs"] / s["kbar_crit"]).transpose("flows", "bdp").values
        ax = axes[i, 0]
        m = ax.pcolormesh(bdp, N, ratio, norm=LogNorm(1e-3, 1e1), cmap="viridis", shading="nearest")
        if np.nanmin(ratio) < 1 < np.nanmax(ratio):
            ax.contour(bdp, N, ratio, levels=[1.0], colors="white", linewidths=1.5)
        fig.colorbar(m, ax=ax, label="k̄_obs / k̄*  (white: k̄ = k̄*)")
        ax.set_title(f"β = {beta:g}: (a) k̄_obs (delayed fluid) / k̄*")
        amp = s["delayed_q_amplitude"].transpose("flows", "bdp").values
        ax = axes[i, 1]
        m = ax.pcolormesh(
            bdp, N, np.maximum(amp, 1e-2), norm=LogNorm(1e-1, 1e4), cmap="magma", shading="nearest"
        )
        fig.colorbar(m, ax=ax, label="queue amplitude (packets)")
        ax.set_title("(b) oscillation amplitude of q")
        ax = axes[i, 2]
        code = _agreement_codes(s).T
        cmap = ListedColormap([c for _, c in _AGREE])
        ax.pcolormesh(bdp, N, code, cmap=cmap, norm=BoundaryNorm(np.arange(6) - 0.5, 5), shading="nearest")
        ax.set_title("(c) condition vs delayed run")
        ax = axes[i, 3]
        rc = (
            (s["delayed_kbar_obs"] / s["kbar_critical_delay"].isel(kbar_ratio=0))
            .transpose("flows", "bdp")
            .values
        )
        m = ax.pcolormesh(bdp, N, rc, norm=LogNorm(1e-2, 1e2), cmap="coolwarm", shading="nearest")
        fig.colorbar(m, ax=ax, label="k̄_obs / k̄_c  (< 1: delayed arc unstable)")
        ax.set_title("(d) k̄_obs / delay-aware k̄_c")
        for ax in axes[i]:
            ax.set(xscale="log", yscale="log", xlabel="BDP (packets)", ylabel="flows N")
            ax.set_xlim(bdp[0] / 1.4, bdp[-1] * 1.4)
    fig.legend(
        handles=[Patch(color=c, label=t) for t, c in _AGREE],
        loc="outside lower center",
        ncols=3,
        title="(c) condition k̄_obs < k̄* (predicts: converges) against the delayed fluid run",
    )
    return fig
