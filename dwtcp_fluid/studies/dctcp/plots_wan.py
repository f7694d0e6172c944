"""[DCTCP-WAN]'s claims re-measured: the metrics of each run side by side (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np

_STAR = ("star-dctcp", "star-cubic", "star-jitter", "star-loss", "star5", "star5-delack")
_WAN = ("wan-dctcp", "wan-noise", "wan-cubic-noise")


def plot_dctcp_wan(data: dict[str, Any]) -> Any:
    """Four panels: star RTT CoV and elephant window CoV; star p99 RTT; elephant throughput share (star, WAN);
    shares of DCTCP and CUBIC on one bottleneck."""
    import matplotlib.pyplot as plt

    from ...plots.style import apply_style

    apply_style()
    fig, ax = plt.subplots(2, 2, figsize=(10, 6.5))
    x = np.arange(len(_STAR))
    a = ax[0, 0]
    a.bar(x - 0.2, [data[k]["rtt_cov"] for k in _STAR], 0.4, label="RTT CoV")
    a.bar(x + 0.2, [data[k]["window_cov"] for k in _STAR], 0.4, label="elephant window CoV")
    a.set_xticks(x, _STAR, rotation=30, ha="right")
    a.legend()
    a.set_title("star: coefficients of variation")
    a = ax[0, 1]
    a.bar(x, [data[k]["rtt_p99_s"] * 1e3 for k in _STAR], 0.6)
    a.axhline(1.0, color="0.5", lw=0.8, ls=":")
    a.set_xticks(x, _STAR, rotation=30, ha="right")
    a.set_ylabel("p99 RTT (ms)")
    a.set_title(f"star: p99 RTT (largest possible reduction {data['p99_bound_star']:.0%})")
    keys = (*_STAR, *_WAN)
    a = ax[1, 0]
    xs = np.arange(len(keys))
    a.bar(xs, [data[k]["elephant_share"] for k in keys], 0.6)
    a.set_xticks(xs, keys, rotation=30, ha="right")
    a.set_ylabel("elephant throughput / capacity")
    a.set_title("elephant throughput share")
    a = ax[1, 1]
    tl = data["star-share"]["throughput_by_law"]
    a.bar([0, 1], [tl["dctcp"], tl["cubic"]], 0.6, color=["C0", "C3"])
    a.set_xticks([0, 1], ["DCTCP", "CUBIC"])
    a.set_ylabel("throughput (packets/s)")
    a.set_title("one DCTCP and one CUBIC flow, star")
    fig.suptitle(
        "[DCTCP-WAN] re-measured: star 950 Mbps / 1 ms / 100 pkts / K = 30; WAN 20 ms / 200 pkts / K = 200"
    )
    fig.tight_layout()
    return fig
