"""The registered figure ``dwtcp_regime_map``: the packet law's class over BDP × N at two β, on the regime model's
derived regions (proofs/dwtcp_regime.md), with the model's misses marked."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register

__all__ = ["build_regime_map", "plot_regime_map", "MAP_BETAS", "MAP_K", "MAP_BUFFER"]

#: The figure's two β (the sweep's and [DWTCP]'s larger one), at the sweep's target K = 0 and 250-packet buffer.
MAP_BETAS = (1e-3, 1e-2)
MAP_K = 0.0
MAP_BUFFER = 250
#: The issue's target for the regime model's class agreement, per (β, K, B) slice.
TARGET_AGREEMENT = 0.90


def _grid(quick: bool) -> tuple[np.ndarray, np.ndarray]:
    from ...sweep.regime_slices import DEFAULT_BDP, DEFAULT_FLOWS

    bdp = np.asarray(DEFAULT_BDP[:: 6 if quick else 2], float)
    return bdp, np.asarray(DEFAULT_FLOWS, float)


def build_regime_map(quick: bool) -> dict[str, Any]:
    """The packet pass (10 Gbps, target :data:`MAP_K`, buffer :data:`MAP_BUFFER`) at every point of every other BDP
    of the default grid (every sixth when ``quick``) × the default N, at each β of :data:`MAP_BETAS`, scored by
    every class predictor; and the regime model's regime on a fine BDP × N mesh for the regions."""
    from ...sweep.outcomes_packet import PacketPassOptions, packet_agreement, packet_outcomes
    from ...sweep.predictors import REGIME
    from ...sweep.regime_slices import _C
    from .analysis_regime import DwtcpRegimeModel

    bdp, flows = _grid(quick)
    D, N = np.meshgrid(bdp, flows, indexing="ij")
    fine_bdp = np.logspace(np.log10(bdp[0]), np.log10(bdp[-1]), 241)
    fine_n = np.logspace(0, np.log10(flows[-1]), 241)
    FD, FN = np.meshgrid(fine_bdp, fine_n, indexing="ij")
    from ...judge.classes import oscillation_threshold

    thr = np.vectorize(lambda n: oscillation_threshold(max(int(round(n)), 1), MAP_BUFFER), otypes=[float])(FN)
    key = REGIME.replace("-", "_")
    panels = []
    for beta in MAP_BETAS:
        b = np.full(D.size, beta)
        o = packet_outcomes(
            b, D.ravel(), N.ravel(), capacity_pps=_C, options=PacketPassOptions(k=MAP_K, buffer=MAP_BUFFER)
        )
        arrays, summary = packet_agreement(
            b, D.ravel(), N.ravel(), o, capacity_pps=_C, k=MAP_K, buffer=MAP_BUFFER
        )
        model = DwtcpRegimeModel().evaluate(beta, FD, FN, k=MAP_K, buffer=MAP_BUFFER, threshold=thr)
        point = DwtcpRegimeModel().evaluate(beta, D, N, k=MAP_K, buffer=MAP_BUFFER)
        panels.append(
            {
                "beta": beta,
                "packet_class": o["packet_class"].reshape(D.shape),
                "queue_mean": np.asarray(o["packet_queue_mean"], float).reshape(D.shape),
                "predicts_class": arrays[f"packet_{key}_predicts_class"].reshape(D.shape),
                "agrees": arrays[f"packet_{key}_agrees"].reshape(D.shape),
                "summary": summary[REGIME],
                "q_star": point["q_star"],
                "regime_point": point["regime"],
                "regions": model["regime"],
            }
        )
    return {"bdp": bdp, "flows": flows, "fine_bdp": fine_bdp, "fine_n": fine_n, "panels": panels}


def _claim_agreement(data: dict[str, Any]) -> tuple[bool, str]:
    rows = [(p["beta"], p["summary"]["agreement"], p["summary"]["scored"]) for p in data["panels"]]
    ok = all(a is not None and a >= TARGET_AGREEMENT for _, a, _ in rows)
    return ok, "; ".join(f"β = {b:g}: {a:.0%} of {n} classified runs" for b, a, n in rows)


def _claim_collapse_above_buffer(data: dict[str, Any]) -> tuple[bool, str]:
    from ...judge.classes import PacketClass

    parts, ok = [], True
    for p in data["panels"]:
        pinned = (p["packet_class"] == int(PacketClass.COLLAPSE)) & (p["queue_mean"] >= 0.9 * MAP_BUFFER)
        # the collapse boundary of proofs/dwtcp_regime.md step 3: the standing queue q* = N·w* − BDP reaches B
        q = p["q_star"][pinned]
        low = float(np.min(q)) if q.size else float("nan")
        ok &= bool(q.size >= 3 and low >= MAP_BUFFER - 2)
        parts.append(f"β = {p['beta']:g}: {int(pinned.sum())} runs pinned at the buffer, min q* = {low:.1f}")
    return ok, "; ".join(parts)


def _claim_standing_queue(data: dict[str, Any]) -> tuple[bool, str]:
    from ...judge.classes import PacketClass
    from .analysis_regime import STANDING

    parts, ok = [], True
    for p in data["panels"]:
        region = p["regime_point"] == STANDING
        steady = region & (p["packet_class"] == int(PacketClass.STEADY))
        q, qm = p["q_star"][steady], p["queue_mean"][steady]
        within = np.abs(qm - q) <= np.maximum(5.0, 0.25 * q)
        f_steady = float(steady.sum() / max(region.sum(), 1))
        f_within = float(within.mean()) if within.size else 0.0
        ok &= bool(region.sum() >= 5 and f_steady >= 0.9 and f_within >= 0.9)
        parts.append(
            f"β = {p['beta']:g}: {int(steady.sum())} of {int(region.sum())} runs steady, mean queue within "
            f"max(5, 25 %) of q* at {f_within:.0%}"
        )
    return ok, "; ".join(parts)


def plot_regime_map(data: dict[str, Any]) -> Any:
    """One panel per β: the model's regions (idle link, ripple, standing queue, oscillation, collapse) as a
    colour map, each packet run's class as a marker, a red ring where the model names another class."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from ...judge.classes import PacketClass
    from .analysis_regime import REGIMES

    region_colors = ["#f3e6c8", "#e4eef7", "#cfe6cf", "#f6d3d3", "#d9d2e9"]
    cmap = ListedColormap(region_colors)
    markers = {
        PacketClass.STEADY: ("o", "#2a7a2a"),
        PacketClass.OSCILLATING: ("^", "#c03030"),
        PacketClass.COLLAPSE: ("s", "#5a3d8a"),
        PacketClass.NOT_STATIONARY: ("x", "#666666"),
        PacketClass.FAILED: ("*", "#000000"),
    }
    fig, axes = plt.subplots(1, len(data["panels"]), figsize=(6.2 * len(data["panels"]), 5.0), sharey=True)
    axes = np.atleast_1d(axes)
    D, N = np.meshgrid(data["bdp"], data["flows"], indexing="ij")
    for ax, p in zip(axes, data["panels"], strict=True):
        ax.pcolormesh(
            data["fine_bdp"], data["fine_n"], p["regions"].T, cmap=cmap, vmin=-0.5, vmax=len(REGIMES) - 0.5,
            shading="nearest", rasterized=True,
        )  # fmt: skip
        for cls, (m, c) in markers.items():
            sel = p["packet_class"] == int(cls)
            if sel.any():
                ax.scatter(D[sel], N[sel], marker=m, color=c, s=30, zorder=3)
        miss = ~p["agrees"] & np.isin(p["packet_class"], [0, 1, 2])
        ax.scatter(D[miss], N[miss], s=110, facecolors="none", edgecolors="red", linewidths=1.4, zorder=4)
        s = p["summary"]
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("BDP (packets)")
        ax.set_title(
            f"β = {p['beta']:g}: the model names the class at {s['agreement']:.0%} of {s['scored']} runs"
        )
    axes[0].set_ylabel("N (flows)")
    handles = [Patch(color=region_colors[i], label=f"model: {r}") for i, r in enumerate(REGIMES)]
    handles += [
        Line2D([], [], marker=m, color=c, linestyle="", label=f"packet: {cls.label.replace('_', ' ')}")
        for cls, (m, c) in markers.items()
        if cls != PacketClass.FAILED
    ]
    handles.append(
        Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor="red", linestyle="", label="miss")
    )
    fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.suptitle(
        f"DWTCP's regimes over BDP × N (10 Gbps, target K = {MAP_K:g}, buffer {MAP_BUFFER}): "
        "the derived model's regions against the packet law's class"
    )
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    return fig


def _register() -> None:
    register(
        Figure(
            name="dwtcp_regime_map",
            title="DWTCP's packet class over BDP × N at two β against the derived regime boundaries",
            build=build_regime_map,
            plot=plot_regime_map,
            slow=True,
            claims=(
                Claim(
                    f"At each β the regime model (proofs/dwtcp_regime.md) names the packet run's class (steady, "
                    f"oscillating, collapse) at ≥ {TARGET_AGREEMENT:.0%} of the classified runs",
                    _claim_agreement,
                ),
                Claim(
                    "Every packet run collapsed with its queue pinned at the buffer (mean queue ≥ 0.9·B) lies on "
                    "or above the derived collapse boundary: q* = N·w* − BDP within 2 packets of B or above",
                    _claim_collapse_above_buffer,
                ),
                Claim(
                    "Where the derived boundary puts a standing queue (N > N* = BDP·β_w^(2/3) or 2N > BDP, below "
                    "the buffer) at least 90 % of the packet runs are steady, and at least 90 % of those hold a "
                    "mean queue within max(5 packets, 25 %) of q* = N·w* − BDP",
                    _claim_standing_queue,
                ),
            ),
        )
    )


_register()
