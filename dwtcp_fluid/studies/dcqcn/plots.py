"""DCQCN's stability region and fluid runs (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_dcqcn_claims(data: dict[str, Any]) -> Any:
    """Three panels: τ_c(N) with the delay of the runs; the queue of the runs at that delay; the two starts."""
    import matplotlib.pyplot as plt

    fig, (a, b, c) = plt.subplots(1, 3, figsize=(13, 3.4))
    a.plot(data["flows"], data["tau_c_us"], "-o", ms=4, color="C0", label="τ_c(N), 100 Gbps")
    a.axhline(data["d_sweep_us"], color="0.4", ls="--", lw=0.8, label=f"τ* = {data['d_sweep_us']:g} µs")
    a.fill_between(data["flows"], 0, data["tau_c_us"], color="C0", alpha=0.12, label="stable")
    a.set_xlabel("flows N")
    a.set_ylabel("critical feedback delay τ_c [µs]")
    a.set_title("stability region ([ECN-OR-DELAY])")
    a.legend(loc="lower right", fontsize=7)
    for n, r, color in zip(data["run_flows"], data["runs"], ("C3", "C2", "C1"), strict=True):
        b.plot(r[:, 0] * 1e3, r[:, 4], color=color, lw=0.8, label=f"N = {n}")
    b.set_xlabel("time [ms]")
    b.set_ylabel("queue [packets]")
    b.set_title(f"fluid runs at τ* = {data['d_sweep_us']:g} µs")
    b.legend(loc="upper right", fontsize=7)
    for r, label, color in zip(data["starts"], ("30 % of line rate", "line rate"), ("C4", "C5"), strict=True):
        c.plot(r[:, 0] * 1e3, r[:, 4], color=color, lw=0.8, label=f"start at {label}")
    c.axhline(data["q_star"], color="0.3", ls=":", lw=0.9, label="q* (unique)")
    c.set_xlabel("time [ms]")
    c.set_ylabel("queue [packets]")
    c.set_title("100 Gbps, 50 µs, N = 10: one fixed point")
    c.set_ylim(bottom=0, top=max(3 * data["q_star"], float(np.max(data["starts"][0][:, 4])) * 1.05))
    c.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    return fig
