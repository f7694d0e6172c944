"""The parking lot's beat-down and the hop signals on the skinny path (drawing only)."""

from __future__ import annotations

from typing import Any

__all__ = ["plot_multihop"]


def plot_multihop(data: dict[str, Any]) -> Any:
    """Left: long-flow share of the port rate vs hops (packet, mean-field and synchronized fixed points, fluid
    DDE). Right: the skinny path's primary flow per hop signal (share of its fair share, path RTT)."""
    import matplotlib.pyplot as plt

    from ...plots.style import apply_style

    apply_style()
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
    r = data["parking_lot"]
    ks = sorted(r)
    a.semilogy(ks, [r[k]["packet"] for k in ks], "o-", color="C0", label="packet (Linux DCTCP law)")
    a.semilogy(
        ks, [r[k]["mean_field"] for k in ks], "s--", color="k", label="fluid fixed point, independent hops"
    )
    a.semilogy(
        ks, [r[k]["synchronized"] for k in ks], "^:", color="C3", label="fluid fixed point, synchronized hops"
    )
    kd = [k for k in ks if "fluid_dde" in r[k]]
    a.semilogy(
        kd, [r[k]["fluid_dde"] for k in kd], "x", ms=9, color="C3", label="fluid DDE (reference solver)"
    )
    a.set_xticks(ks)
    a.set_xlabel("hops k crossed by the long flow")
    a.set_ylabel("long flow's share of the link")
    a.set_title("parking lot, 10 Gbps, 100 µs, K = 65")
    a.legend(fontsize=7)
    s = data["skinny"]
    names = list(s)
    x = range(len(names))
    b.bar(x, [s[n]["primary_over_fair"] for n in names], color="C0")
    b.set_xticks(list(x), names)
    b.set_ylabel("primary flow / max-min fair share")
    b2 = b.twinx()
    b2.plot(list(x), [s[n]["primary_rtt_us"] for n in names], "ko", label="path RTT")
    b2.set_ylabel("primary path RTT (µs)")
    b2.set_ylim(0, 1.15 * max(s[n]["primary_rtt_us"] for n in names))
    b.set_title("skinny path (5 hops, 1,1,1,3,6 cross flows), DCTCP by f(q)")
    fig.tight_layout()
    return fig
