"""CUBIC: packet and fluid traces over loss cycles, period and utilization against the buffer (drawing only)."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_cubic(data: dict[str, Any]) -> Any:
    """Three panels: window and queue of the traced setting (packet and fluid, last 6 s); the cycle period
    against B (closed form K and the fast-convergence pair, fluid with and without it, packet points); the
    utilization against B/BDP with the busy buffer (1 − β)/β·BDP."""
    import matplotlib.pyplot as plt

    from ...plots.style import apply_style

    apply_style()
    fig, ax = plt.subplots(1, 3, figsize=(14, 4))
    row = next(r for r in data["rows"] if "trace" in r["packet"])
    a = ax[0]
    b = a.twinx()
    t_end = row["packet"]["trace"]["t"][-1]
    # the two cores start differently, so their cycles have different phases: shift the fluid trace so that its
    # first cut in the shown 6 s meets the packet's (a drawing transform; the comparison is of the summaries)
    shift = _first_cut(row["packet"]["trace"], t_end - 6.0) - _first_cut(row["fluid"]["trace"], t_end - 6.0)
    for core, ls in (("packet", "-"), ("fluid", "--")):
        tr = row[core]["trace"]
        t = np.asarray(tr["t"]) + (shift if core == "fluid" else 0.0)
        sel = (t >= t_end - 6.0) & (t <= t_end)
        a.plot(t[sel], np.asarray(tr["window"])[sel], ls, color="C0", lw=1, label=f"{core} window")
        b.plot(t[sel], np.asarray(tr["queue"])[sel], ls, color="C3", lw=0.8, label=f"{core} queue")
    a.set_xlabel("time (s)")
    a.set_ylabel("window (pkt)", color="C0")
    b.set_ylabel("queue (pkt)", color="C3")
    a.legend(fontsize=7, loc="lower left")
    b.legend(fontsize=7, loc="lower right")
    a.set_title(
        f"{row['setting']}: one flow, 950 Mbps, 20 ms, B = 200, c = 400 (fluid phase-aligned)", fontsize=9
    )
    sw = data["sweep"]
    B = np.array([r["buffer"] for r in sw], dtype=float)
    a = ax[1]
    a.plot(B, [r["closed"]["period"] for r in sw], "k-", lw=1, label="K (closed form)")
    a.plot(B, [r["closed"]["period_fc"] for r in sw], "k:", lw=1, label="(2K_fc + K)/2, τ → 0")
    a.plot(B, [r["plain"]["period_s"] for r in sw], "o", color="C0", label="fluid, no fast conv.")
    a.plot(B, [r["fc"]["period_s"] for r in sw], "s", color="C1", label="fluid, fast conv.")
    pk = [(r["packet"]["period_s"], 200.0 if r["setting"] == "wan-1" else 2000.0) for r in data["rows"]
          if r["setting"] in ("wan-1", "wan-1-deep")]  # fmt: skip
    a.plot([x for _, x in pk], [p for p, _ in pk], "k^", ms=8, label="packet (fast conv.)")
    a.set_xscale("log")
    a.set_xlabel("buffer B (pkt)")
    a.set_ylabel("loss-cycle period (s)")
    a.legend(fontsize=7)
    a.set_title("period against the buffer")
    a = ax[2]
    x = B / data["bdp"]
    a.plot(x, [r["closed"]["utilization"] for r in sw], "k-", lw=1, label="closed form")
    a.plot(x, [r["plain"]["utilization"] for r in sw], "o", color="C0", label="fluid, no fast conv.")
    a.plot(x, [r["fc"]["utilization"] for r in sw], "s", color="C1", label="fluid, fast conv.")
    pk = [((200.0 if r["setting"] == "wan-1" else 2000.0) / data["bdp"], r["packet"]["utilization"])
          for r in data["rows"] if r["setting"] in ("wan-1", "wan-1-deep")]  # fmt: skip
    a.plot([x for x, _ in pk], [u for _, u in pk], "k^", ms=8, label="packet (fast conv.)")
    a.axvline(data["busy_buffer"] / data["bdp"], color="grey", ls=":", lw=1)
    a.text(
        data["busy_buffer"] / data["bdp"],
        0.5,
        " (1 − β)/β·BDP",
        fontsize=7,
        transform=a.get_xaxis_transform(),
    )
    a.set_xscale("log")
    a.set_xlabel("B / BDP")
    a.set_ylabel("utilization")
    a.legend(fontsize=7)
    a.set_title("a cut idles the link only below (1 − β)/β·BDP")
    fig.tight_layout()
    return fig


def _first_cut(tr: dict[str, Any], t_from: float) -> float:
    """Time of the first window drop by more than 10 % after ``t_from`` (s)."""
    t, w = np.asarray(tr["t"]), np.asarray(tr["window"])
    drop = np.nonzero((w[1:] < 0.9 * w[:-1]) & (t[1:] >= t_from))[0]
    return float(t[drop[0] + 1]) if drop.size else t_from
