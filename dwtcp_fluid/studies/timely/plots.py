"""TIMELY vs Patched TIMELY in [PROXY]'s incast: per-flow rates, RTT CDFs, and the noise sweep (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np

LAWS = (
    ("timely", "C0", "TIMELY"),
    ("timely-patched", "C3", "Patched TIMELY"),
    ("dctcp", "C2", "DCTCP (K = 65)"),
)


def plot_timely_incast(data: dict[str, Any]) -> Any:
    """Four panels: sorted per-flow throughput / fair share; fraction of flows near the fair share per random
    draw; RTT CDF; utilization and Jain index vs noise."""
    import matplotlib.pyplot as plt

    fig, (ar, ad, ac, an) = plt.subplots(1, 4, figsize=(15, 3.4))
    for law, color, label in LAWS:
        if law in data["rates"]:
            r = np.sort(data["rates"][law]) * data["flows"]
            ar.plot(np.arange(1, r.size + 1), r, "o", ms=3, color=color, label=label)
        rtt = np.sort(data["rtt_us"][law])
        ac.plot(rtt, np.arange(1, rtt.size + 1) / rtt.size, color=color, label=label)
    ar.axhline(1.0, color="0.4", ls="--", lw=0.8)
    ar.set_xlabel("flow (sorted)")
    ar.set_ylabel("throughput / fair share")
    ar.set_title(f"{data['flows']} flows, noise {data['noise_us']:g} µs")
    ar.legend(loc="upper left")
    seeds = np.asarray(data["draw_seeds"])
    for j, (law, color, label) in enumerate(LAWS[:2]):
        ad.bar(seeds + (j - 0.5) * 0.38, data["draw_within"][law], width=0.36, color=color, label=label)
    ad.set_xlabel("random draw (seed)")
    ad.set_ylabel(f"flows within ±{data['fair_band']:.0%} of C/N")
    ad.set_ylim(0, 1)
    ad.set_title("does each flow reach the fair share?")
    ad.legend(loc="upper left", fontsize=7)
    ac.set_xlabel("RTT seen by packets [µs]")
    ac.set_ylabel("CDF")
    ac.set_title("RTT distribution (base + queue/C)")
    ac.legend(loc="lower right")
    x = np.asarray(data["noise"])
    for law, color, label in LAWS[:2]:
        an.plot(x, data["noise_util"][law], "-o", color=color, ms=3, label=f"{label}: utilization")
        an.plot(x, data["noise_jain"][law], "--s", color=color, ms=3, label=f"{label}: Jain index")
    an.set_xlabel("RTT noise x, uniform in [0, x] [µs]")
    an.set_ylim(0, 1.05)
    an.set_title("measurement noise")
    an.legend(loc="lower left", fontsize=6.5)
    fig.tight_layout()
    return fig
