"""The delayed DWTCP linearization: rightmost roots and critical k̄ (drawing only)."""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure as MplFigure

BETAS_CURVES = (1e-3, 1e-2, 1e-1)


def plot_delay_spectrum(data: dict[str, Any]) -> MplFigure:
    fig = MplFigure(figsize=(10.0, 3.8), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    colors = ["#0072B2", "#D55E00", "#009E73"]
    r = data["ratio"]
    for c, beta in zip(colors, BETAS_CURVES, strict=True):
        cv = data["curves"][beta]
        ax1.plot(r, cv["delayed"], color=c, label=f"β = {beta:g}, delayed (τ_d = τ)")
        ax1.plot(r, cv["frozen"], color=c, ls=":", label=f"β = {beta:g}, frozen (8)")
    ax1.axhline(0.0, color="0.3", lw=0.8)
    ax1.axvline(1.0, color="0.5", lw=0.8, ls="--")
    ax1.set(xscale="log", yscale="symlog", xlabel="k̄ / BDP", ylabel="spectral abscissa × τ")
    ax1.set_yscale("symlog", linthresh=1e-4)
    ax1.set_title("Rightmost root of the decrease branch at w = BDP/N")
    ax1.legend(fontsize=6.5, loc="lower left")
    b = data["betas"]
    ax2.plot(b, data["crit"]["paper"]["kbar_critical"], "o-", ms=3, label="k̄_c, simplified law (5)")
    ax2.plot(b, data["crit"]["sqrt"]["kbar_critical"], "s-", ms=3, label="k̄_c, sqrt(w) law (3), β in bytes")
    ax2.plot(b, data["kbar_star_ratio"], color="#000000", label="paper's k̄* = 2·BDP/√β (14)")
    ax2.set(xscale="log", yscale="log", xlabel="β", ylabel="k̄ / BDP")
    ax2.set_title("Delayed arc locally stable for k̄ > k̄_c; (14) asks k̄ < k̄*")
    ax2.legend(fontsize=6.5)
    return fig
