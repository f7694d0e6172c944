"""Maps of the DWTCP condition sweep: the class of the frozen Jacobian over BDP × k̄ (drawing only)."""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Patch

from ...formulas import kbar_star

_CLASS_COLORS = {"spiral": "#0072B2", "node": "#E69F00", "degenerate": "#000000"}


#: Switch buffers of the DWTCP evaluation, in 1500-byte packets: 250 packets (simulation), 300 KB (testbed).
_BUFFERS = ((250.0, "250-pkt sim buffer"), (200.0, "300 KB testbed buffer"))


def plot_condition_map(ds: xr.Dataset, flows: float | None = None) -> MplFigure:
    """Class of the frozen Jacobian (8) over BDP × k̄/k̄* and over BDP × k̄ (packets), one row per β.

    Parameters
    ----------
    ds : xarray.Dataset
        A sweep dataset (:func:`dwtcp_fluid.run_sweep`, or read back from its NetCDF).
    flows : float, optional
        The N shown (nearest grid value; default: the middle of the grid); the summary's
        ``eigenvalue_spread_over_flows`` shows the map is the same for every N.
    """
    nb = ds.sizes["beta"]
    if flows is None:
        flows = float(ds["flows"].values[ds.sizes["flows"] // 2])
    sub = ds.sel(flows=flows, method="nearest")
    CLASSES = ds["eig_class"].attrs["flag_meanings"].split()  # the codes' names, from the dataset
    names = [n for n in CLASSES if n in _CLASS_COLORS]
    cmap = ListedColormap([_CLASS_COLORS[n] for n in names])
    code_map = np.full(len(CLASSES), np.nan)
    for j, n in enumerate(names):
        code_map[CLASSES.index(n)] = j
    norm = BoundaryNorm(np.arange(len(names) + 1) - 0.5, len(names))
    fig = MplFigure(figsize=(9.0, 3.4 * nb), layout="constrained")
    axes = fig.subplots(nb, 2, squeeze=False)
    bdp = sub["bdp"].values
    ratio = sub["kbar_ratio"].values
    for i in range(nb):
        s = sub.isel(beta=i)
        beta = float(s["beta"])
        z = code_map[s["eig_class"].values.astype(int)].T  # (ratio, bdp)
        ax = axes[i, 0]
        ax.pcolormesh(bdp, ratio, z, cmap=cmap, norm=norm, shading="nearest", rasterized=True)
        ax.axhline(1.0, color="white", ls="--", lw=1.2)
        ax.text(bdp[0] * 1.1, 1.15, "k̄ = k̄* (condition boundary)", color="white", fontsize=7, va="bottom")
        ax.set(xscale="log", yscale="log", xlabel="BDP (packets)", ylabel="k̄ / k̄*")
        ax.set_title(f"β = {beta:g}, N = {int(flows)}: class of the frozen Jacobian (8)")
        ax2 = axes[i, 1]
        kb = s["kbar"].values.T
        B = np.broadcast_to(bdp[None, :], kb.shape)
        ax2.scatter(
            B.ravel(), kb.ravel(), c=z.ravel(), cmap=cmap, norm=norm, s=6, marker="s", rasterized=True
        )
        kc = s["kbar_crit"].values
        ax2.plot(bdp, kc, color="white", lw=2.4)
        ax2.plot(bdp, kc, color="#D55E00", lw=1.2, label=f"k̄* = 2·BDP/√β = {kbar_star(1.0, beta):.3g}·BDP")
        ax2.plot(bdp, bdp, color="0.3", lw=1.0, ls=":", label="k̄ = BDP")
        for j, (val, lab) in enumerate(_BUFFERS):
            ax2.axhline(val, color="#009E73", lw=1.0, ls="-.")
            y, va = (val * 1.1, "bottom") if j == 0 else (val * 0.9, "top")
            ax2.text(bdp[-1], y, lab, color="#009E73", fontsize=7, ha="right", va=va)
        ax2.set(xscale="log", yscale="log", xlabel="BDP (packets)", ylabel="k̄ (packets)")
        ax2.set_title("the same points in packets, with real switch buffers")
        ax2.legend(loc="upper left")
    handles = [Patch(color=_CLASS_COLORS[n], label=n) for n in names]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(names), title="eigenvalues of (8)")
    return fig
