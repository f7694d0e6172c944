"""The packet core against the fluid models; join/leave; RTT fairness (drawing only)."""

from __future__ import annotations

from typing import Any

PACKET_VS_FLUID_FLOWS = (2, 10, 100)


def plot_packet_vs_fluid(data: dict[Any, Any], flows: tuple[int, ...] = PACKET_VS_FLUID_FLOWS) -> Any:
    """Queue and mean window, packet vs the paper's fluid model and the ACK-clocked one, the first 10 ms of the
    compared window, one row per N.

    Parameters
    ----------
    data : dict
        :func:`~dwtcp_fluid.compare_dctcp` results by N.
    flows : tuple of int
        The N drawn, one row each (keys of ``data``).
    """
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(flows), 2, figsize=(9, 2.3 * len(flows) + 0.4), sharex=True, squeeze=False)
    lines = (
        ("packet", dict(lw=0.8, color="C0", label="packet (Linux DCTCP)")),
        ("fluid", dict(lw=1.2, color="k", label="fluid (5)-(8), paper")),
        ("fluid_window", dict(lw=1.2, color="C3", ls="--", label="fluid, ACK-clocked q = N·W − C·d")),
    )
    for row, n in enumerate(flows):
        c = data[n]
        t0 = c["t_fluid"][0]
        aq, aw = axes[row]
        for src, style in lines:
            if f"t_{src}" not in c:
                continue
            t = c[f"t_{src}"]
            sel = t <= t0 + 0.01
            aq.plot((t[sel] - t0) * 1e3, c[f"q_{src}"][sel], **style)
            aw.plot(
                (t[sel] - t0) * 1e3, c[f"w_{src}"][sel], **{k: v for k, v in style.items() if k != "label"}
            )
        aq.axhline(c["K"], color="0.6", lw=0.5, ls=":")
        aq.set_ylabel(f"N = {n}\nqueue (pkt)")
        aw.set_ylabel("mean cwnd (pkt)")
        # a fixed point (N = 100) would otherwise be drawn on a 1e-5-packet scale
        for ax, lo_span in ((aq, 10.0), (aw, 2.0)):
            lo, hi = ax.get_ylim()
            if hi - lo < lo_span:
                mid = 0.5 * (lo + hi)
                ax.set_ylim(mid - lo_span / 2, mid + lo_span / 2)
    # the legend goes below the panels, never over the traces
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize="small", frameon=False)
    axes[0, 0].set_title("queue")
    axes[0, 1].set_title("window")
    for a in axes[-1]:
        a.set_xlabel("time after half the run (ms)")
    fig.suptitle("DCTCP: packet core vs two fluid models, 10 Gbps, 100 µs, K = 65, g = 1/16")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def plot_join_leave(data: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
    for f in range(data["throughput_gbps"].shape[1]):
        a1.plot(data["t"] * 1e3, data["throughput_gbps"][:, f], lw=1.0, label=f"flow {f + 1}")
    a1.set_ylabel("throughput (Gbps)")
    a1.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=5, frameon=False)  # above the panel, off data
    a2.plot(data["t_q"] * 1e3, data["q"], lw=0.6)
    a2.set_ylabel("queue (pkt)")
    a2.set_xlabel("time (ms)")
    fig.suptitle(
        "DWTCP packet core: five flows join and leave 20 ms apart (10 Gbps, 100 µs, β = 0.001, K = 100)"
    )
    fig.tight_layout()
    return fig


def plot_rtt_fairness(data: dict[str, Any]) -> Any:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    r = data["ratios"]
    ax.loglog(r, data["dctcp"], "o-", label="DCTCP")
    ax.loglog(r, data["dctcp-per-ack"], "s-", label="DCTCP per-ACK (36)")
    ax.loglog(r, r, "k--", lw=0.8, label="linear (∝ RTT⁻¹)")
    ax.loglog(r, r**2, "k:", lw=0.8, label="squared (∝ RTT⁻²)")
    ax.set_xlabel("RTT ratio")
    ax.set_ylabel("throughput ratio")
    ax.legend()
    ax.set_title("RTT fairness, 2 + 2 flows, 10 Gbps, K = 35, g = 1/16")
    fig.tight_layout()
    return fig
