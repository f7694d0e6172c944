"""Registered figure of the hops × cross-flow load sweep (:mod:`dwtcp_fluid.studies.networks.checks_sweep`): the long flow's share,
fluid network model (per-group delays, started off the symmetric subspace) next to the packet chain."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from .plots_sweep import plot_network_sweep

__all__ = ["build_network_sweep", "FIGURE_GRID"]

#: The small grid the figure affords: 4 points of 100 ms fluid and packet runs (270 s on the shared 2-core machine
#: at load 12; the per-group fluid runs at k = 2 dominate).
FIGURE_GRID = {"hops": (1, 2), "load": (1, 2)}


def build_network_sweep(quick: bool) -> dict[str, Any]:
    """Run the sweep on :data:`FIGURE_GRID` (10 Gbps, 100 µs, K = 65, one long flow) into a temporary store."""
    from .checks_sweep import (
        AGREEMENT,
        FLUID_CLASSES,
        PACKET_CLASSES,
        NetworkGrid,
        run_network_sweep,
    )

    grid = NetworkGrid(np.array(FIGURE_GRID["hops"]), np.array(FIGURE_GRID["load"]))
    with tempfile.TemporaryDirectory() as tmp:
        ds = run_network_sweep(grid, Path(tmp) / "store.zarr")
    names = (
        "fluid_long_share", "packet_long_share", "mean_field_long_share", "synchronized_long_share",
        "long_share_rel_error", "fluid_desync",
    )  # fmt: skip
    out: dict[str, Any] = {k: ds[k].values.tolist() for k in names}
    out["hops"], out["load"] = grid.hops.tolist(), grid.load.tolist()
    out["agreement"] = [[AGREEMENT[int(v)] for v in row] for row in ds["agreement"].values]
    out["fluid_class"] = [[FLUID_CLASSES[int(v)] for v in row] for row in ds["fluid_class"].values]
    out["packet_class"] = [[PACKET_CLASSES[int(v)] for v in row] for row in ds["packet_class"].values]
    return out


def _at(d: dict, name: str, k: int, n: int) -> Any:
    return d[name][d["hops"].index(k)][d["load"].index(n)]


def _claim_one_hop(d: dict) -> tuple[bool, str]:
    got = [_at(d, "agreement", 1, n) for n in d["load"]]
    errs = ", ".join(f"n={n}: {_at(d, 'long_share_rel_error', 1, n):.1%}" for n in d["load"])
    return all(g == "agree" for g in got), f"k = 1: {got}; long-share error {errs}"


def _claim_two_hops(d: dict) -> tuple[bool, str]:
    a, e = _at(d, "agreement", 2, 1), _at(d, "long_share_rel_error", 2, 1)
    f, p = _at(d, "fluid_long_share", 2, 1), _at(d, "packet_long_share", 2, 1)
    return a == "agree", f"k = 2, one cross flow: fluid {f:.3f}, packet {p:.3f} of C (error {e:.1%}, {a})"


def _claim_load(d: dict) -> tuple[bool, str]:
    n = max(d["load"])
    ds, f, p = (
        _at(d, "fluid_desync", 2, n),
        _at(d, "fluid_long_share", 2, n),
        _at(d, "packet_long_share", 2, n),
    )
    s = _at(d, "synchronized_long_share", 2, n)
    ok = ds < 1.0 and f > 2 * p and abs(f / s - 1) < 0.1
    return ok, (
        f"k = 2, {n} cross flows per hop: fluid hops within {ds:.2f} packets of each other, long share {f:.3f} "
        f"(synchronized fixed point {s:.3f}) = {f / p:.1f}× the packet chain's {p:.3f}"
    )


def _claim_beatdown(d: dict) -> tuple[bool, str]:
    r = [_at(d, "packet_long_share", 2, n) / _at(d, "packet_long_share", 1, n) for n in d["load"]]
    return all(x < 0.35 for x in r), "packet share(k=2)/share(k=1): " + ", ".join(f"{x:.2f}" for x in r)


register(
    Figure(
        "network_sweep",
        "DCTCP parking lot over hops × cross-flow load: the long flow's share, fluid network model vs packet chain",
        build_network_sweep,
        plot_network_sweep,
        (
            Claim(
                "one hop: fluid and packet agree within the stated tolerances at every load", _claim_one_hop
            ),
            Claim(
                "two hops, one cross flow: the desynchronized fluid model's long share is within 25% of the packet "
                "chain's",
                _claim_two_hops,
            ),
            Claim(
                "two hops, two cross flows per hop: the fluid hops stay within a packet of synchrony and overstate "
                "the long share > 2× (within 10% of the synchronized fixed point)",
                _claim_load,
            ),
            Claim(
                "packet beat-down faster than 1/k: share(k=2)/share(k=1) < 0.35 at every load",
                _claim_beatdown,
            ),
        ),
        slow=True,  # minutes of CPU: make test-all and CI check it
    )
)
