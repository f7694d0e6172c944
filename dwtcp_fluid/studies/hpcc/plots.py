"""HPCC's claims: queue and utilization against N with the closed form, throughput after a join (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_hpcc_claims(data: dict[str, Any]) -> Any:
    """Three panels: mean queue / B·T vs N (packet points, closed form line); utilization vs N; the two flows'
    throughput after the join for each variant."""
    import matplotlib.pyplot as plt

    fig, (aq, au, aj) = plt.subplots(1, 3, figsize=(14, 3.6))
    n = np.asarray([r["flows"] for r in data["sweep"]], float)
    bdp = np.asarray([r["closed"]["bdp"] for r in data["sweep"]])
    qp = np.asarray([r["packet"]["queue_mean"] for r in data["sweep"]]) / bdp
    qc = np.asarray([r["closed"]["queue_mean"] for r in data["sweep"]]) / bdp
    up = np.asarray([r["packet"]["utilization"] for r in data["sweep"]])
    uc = np.asarray([r["closed"]["utilization"] for r in data["sweep"]])
    aq.plot(n, qc, "-", color="0.3", label="closed form max(0, κ − (1 − η))")
    aq.plot(n, qp, "o", color="C0", label="packet core")
    aq.set_xscale("log")
    aq.set_xlabel("flows N (W_AI sized for N_exp = 10)")
    aq.set_ylabel("mean queue / B·T")
    aq.set_title("standing queue")
    aq.legend(fontsize=7)
    au.plot(n, uc, "-", color="0.3", label="closed form min(1, η + κ)")
    au.plot(n, up, "o", color="C0", label="packet core")
    au.set_xscale("log")
    for ax in (aq, au):
        ax.set_xticks(n, [f"{int(v)}" for v in n])
        ax.minorticks_off()
    au.set_xlabel("flows N")
    au.set_ylabel("utilization")
    au.set_ylim(0.9, 1.01)
    au.set_title("utilization")
    au.legend(fontsize=7)
    for (label, j), color in zip(data["joins"].items(), ("C0", "C1", "C3"), strict=False):
        aj.plot(
            j["t"], j["thr"][:, 1], color=color, lw=0.8, label=f"{label}: joiner ({j['t_conv']:.0f} RTTs)"
        )
        aj.plot(j["t"], j["thr"][:, 0], color=color, lw=0.8, ls=":")
    aj.axhline(0.5 * (0.95 + data["kappa2"]), color="0.4", ls="--", lw=0.8)
    aj.set_xlabel("base RTTs after the join")
    aj.set_ylabel("throughput / C (dotted: first flow)")
    aj.set_xlim(-10, max(j["t"][-1] for j in data["joins"].values()))
    aj.set_title("convergence after a join")
    aj.legend(fontsize=6.5, loc="upper right")
    fig.tight_layout()
    return fig
