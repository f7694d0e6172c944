"""RTT fairness in the DCTCP fluid model, [DCTCP-A] eqs. (37)-(38) (section 5).

The paper's ns2 experiment (Fig. 13): 4 flows on a 10 Gbps bottleneck, 2 with RTT1 = 100 µs, 2 with RTT2 from
100 µs to 1 ms, K = 35 packets, g = 1/16; throughput ratio against RTT ratio on log-log axes. Here the same
scenario runs in the fluid model (:class:`~dwtcp_fluid.models.dctcp_hetero.DctcpHetero`, two groups) with the batched JAX DDE
solver; the paper argues (section 5.2) that the fluid model gives equal average windows, i.e. linear
RTT-fairness: throughput ∝ 1/RTT, slope −1 of log(thr2/thr1) against log(RTT2/RTT1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dde import solve
from ...models.dctcp_hetero import DctcpHetero
from ...params import LinkParams, check_range

__all__ = ["rtt_fairness"]


def rtt_fairness(
    rtt_ratios: Any = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0),
    *,
    link: LinkParams | None = None,
    K: float = 35.0,
    g: float = 1.0 / 16.0,
    flows_per_group: int = 2,
    duration: float = 0.4,
    dt: float = 5e-6,
) -> dict[str, Any]:
    """Throughput of two flow groups against their RTT ratio in the fluid model (37)-(38).

    Parameters
    ----------
    rtt_ratios : sequence of float
        RTT2/RTT1 values (≥ 1); RTT1 is the link's ``rtt``.
    link : LinkParams
        Bottleneck (default 10 Gbps, RTT1 = 100 µs, 1500-byte packets).
    K : float
        Marking threshold, packets.
    g : float
        EWMA gain.
    flows_per_group : int
        Flows in each group.
    duration : float
        Simulated time in seconds; averages use the second half.
    dt : float
        JAX solver step, seconds (≤ RTT1).

    Returns
    -------
    dict with ``rtt_ratio``, ``thr1``, ``thr2`` (per-flow throughput, packets/s), ``ratio`` (thr1/thr2),
    ``W1``, ``W2`` (mean windows, packets), ``utilization``, ``slope`` (fit of log(thr2/thr1) on
    log(RTT2/RTT1)), ``status``.
    """
    link = LinkParams() if link is None else link
    r = np.asarray(rtt_ratios, dtype=float).ravel()
    for v in r:
        check_range("rtt_ratio", v, lo=1.0)
    check_range("K", K, lo=0.0)
    check_range("g", g, lo=0.0, hi=1.0, lo_open=True)
    n = check_range("flows_per_group", flows_per_group, lo=1, integer=True)
    check_range("duration", duration, lo=0.0, lo_open=True, why="seconds")
    model = DctcpHetero(groups=2)
    C, d = link.C, link.d
    params = [{"C": C, "K": K, "g": g, "N_1": n, "N_2": n, "RTT_1": d, "RTT_2": d * ri} for ri in r]
    # history (W_1, W_2, α_1, α_2, q): windows of 1 packet, α = 0, empty queue (the project's standard start)
    sol = solve(
        model, params, np.array([1.0, 1.0, 0.0, 0.0, 0.0]), (0.0, duration), method="jax", dt=dt, check=False
    )
    keep = sol.t >= 0.5 * duration
    W1 = sol.x[:, keep, 0].mean(axis=1)
    W2 = sol.x[:, keep, 1].mean(axis=1)
    thr1 = W1 / d
    thr2 = W2 / (d * r)
    util = n * (thr1 + thr2) / C
    sel = r > 1.0
    slope = (
        float(np.polyfit(np.log(r[sel]), np.log(thr2[sel] / thr1[sel]), 1)[0]) if sel.sum() >= 2 else np.nan
    )
    return {
        "rtt_ratio": r,
        "thr1": thr1,
        "thr2": thr2,
        "ratio": thr1 / thr2,
        "W1": W1,
        "W2": W2,
        "utilization": util,
        "slope": slope,
        "status": sol.status,
        "K": K,
        "g": g,
        "rtt1_s": d,
        "capacity_pps": C,
    }
