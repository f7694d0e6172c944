"""Registered figure of the multi-hop work: the parking lot's beat-down (packet vs the network fluid model) and
[PROXY]'s skinny-path experiment per hop signal."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from .analysis_multihop import parking_lot_fixed_point
from .checks_multihop import TOLERANCES, ChainSetting, compare_chain
from .plots_multihop import plot_multihop

__all__ = ["build_multihop", "skinny_signals", "SKINNY_FLOWS"]

#: [PROXY] Fig. 5 as reconstructed here (the drawing is not in the text): a primary flow over 5 hops, one cross
#: flow on each of the first three, 3 on the fourth and 6 on the last (the bottleneck), equal base RTTs.
SKINNY_FLOWS = (1, 1, 1, 1, 3, 6)
_HOPS = (1, 2, 3, 4)
_FLUID_HOPS = (2, 3)


def _fluid_dde_share(k: int, duration: float = 0.1) -> float:
    """Long-flow share of C over the last half of a reference-solver run of the symmetric fluid parking lot."""
    from ...dde import solve
    from ...dde.summary import time_mean
    from ...models.dctcp_network import DctcpNetwork, NetworkParams, parking_lot_routes

    m, P = DctcpNetwork(parking_lot_routes(k)), NetworkParams.parking_lot(k)
    p = m.numeric_params(P)
    fp = parking_lot_fixed_point(k, p["C_1"], 65.0, 1e-4)
    hist = (fp.W_long,) + (fp.W_cross,) * k + (fp.P_long,) + (fp.p,) * k + (65.0,) * k
    sol = solve(m, P, hist, (0.0, duration))
    ts = np.linspace(duration / 2, duration, 10001)
    obs = m.observables(tuple(sol(ts, 0).T), p, np)
    return time_mean(ts, obs["rate_1"]) / p["C_1"]


def skinny_signals(duration: str = "60ms") -> dict[str, dict[str, float]]:
    """[PROXY]'s skinny experiment with the DCTCP-style hop-signal law: per signal, the primary flow's share of the
    port rate, its share over the max-min fair share 1/7, its path RTT (base + mean hop queues, µs), Jain's index
    over all flows, and the bottleneck's mean queue."""
    from ...packet.laws.dctcp_hops import DctcpHops
    from ...packet.multihop_run import run_topology

    out = {}
    for name, law in (
        ("IND/MAX", DctcpHops()),
        ("SUM", DctcpHops(signal="sum")),
        ("SUM_SQU", DctcpHops(signal="sum_squ")),
    ):
        s = run_topology("parking-lot:5", law, flows=SKINNY_FLOWS, K=1e6, duration=duration)
        x = s.throughput_share
        rtt = s.fluid_rtt_s[0] + s.queue_mean.sum() * s.slot_s
        out[name] = {
            "primary_share": float(x[0]),
            "primary_over_fair": float(x[0] * 7),
            "primary_rtt_us": float(rtt * 1e6),
            "jain": float(x.sum() ** 2 / (len(x) * (x**2).sum())),
            "bottleneck_queue": float(s.queue_mean[-1]),
        }
    return out


def build_multihop(quick: bool) -> dict[str, Any]:
    """Parking lots k = 1..4 (10 Gbps, 100 µs, K = 65, one flow per group, 100 ms packet runs) against the fluid
    fixed points and, for k = 2, 3, the fluid DDE; the skinny experiment per signal."""
    from ...params import LinkParams

    C = LinkParams().C
    rows = {}
    for k in _HOPS:
        c = compare_chain(ChainSetting(k))
        sync = parking_lot_fixed_point(k, C, 65.0, 1e-4, marks="synchronized")
        rows[k] = {
            "run_class": c.run_class, "passed": c.passed, "packet": c.long_share, "mean_field": c.fluid_long_share,
            "synchronized": sync.x_long / C, "errors": c.errors,
        }  # fmt: skip
    for k in _FLUID_HOPS:
        rows[k]["fluid_dde"] = _fluid_dde_share(k)
    return {"parking_lot": rows, "skinny": skinny_signals()}


def _claim_tolerance(d: dict) -> tuple[bool, str]:
    r = d["parking_lot"]
    ok = all(r[k]["run_class"] == "stationary" and r[k]["passed"] for k in (2, 3, 4))
    errs = ", ".join(f"k={k}: {r[k]['errors']['long_share_rel']:.1%}" for k in (2, 3, 4))
    return ok, f"long-share error vs mean-field {errs} (tolerance {TOLERANCES['long_share_rel'].rel:.0%})"


def _claim_dde(d: dict) -> tuple[bool, str]:
    r = d["parking_lot"]
    q = [r[k]["fluid_dde"] / r[k]["packet"] for k in _FLUID_HOPS]
    return all(x >= 2 for x in q), "fluid DDE / packet long share: " + ", ".join(f"{x:.1f}×" for x in q)


def _claim_beatdown(d: dict) -> tuple[bool, str]:
    r = d["parking_lot"]
    ratio = r[4]["packet"] / r[2]["packet"]
    return ratio < 0.35, f"packet share(k=4)/share(k=2) = {ratio:.3f} (1/k: 0.5, 1/k²: 0.25)"


def _claim_skinny(d: dict) -> tuple[bool, str]:
    s = d["skinny"]
    ok = all(v["primary_over_fair"] < 0.2 for v in s.values()) and s["IND/MAX"]["primary_share"] >= max(
        s["SUM"]["primary_share"], s["SUM_SQU"]["primary_share"]
    )
    return ok, "; ".join(
        f"{n}: {v['primary_over_fair']:.3f} of fair, {v['primary_rtt_us']:.0f} µs" for n, v in s.items()
    )


register(
    Figure(
        "multihop_beatdown",
        "DCTCP parking lot: the long flow's share, packet vs fluid; hop signals on [PROXY]'s skinny path",
        build_multihop,
        plot_multihop,
        (
            Claim(
                "packet long-flow share within the stated tolerance of the mean-field fixed point, k = 2, 3, 4",
                _claim_tolerance,
            ),
            Claim(
                "the symmetric fluid DDE gives the long flow ≥ 2× the packet share (its hops mark in sync), k = 2, 3",
                _claim_dde,
            ),
            Claim("packet beat-down faster than 1/k: share(k=4)/share(k=2) < 0.35", _claim_beatdown),
            Claim(
                "skinny path: the primary flow gets < 20% of its fair share with every signal; IND/MAX gives it the most",
                _claim_skinny,
            ),
        ),
        slow=True,  # minutes of CPU: make test-all and CI check it
    )
)
