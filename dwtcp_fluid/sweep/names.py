"""What a sweep's results are called and what it will cost, decided before any work.

Results are named by β and, unless the sweep is the default one for that β (what ``make sweep`` runs), a hash of
the whole configuration, so two sweeps with different grids or settings never write the same files. The estimate
of time and memory feeds the command's budget check (``dwtcp_fluid.cli.limits.check_budget``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from .grid import SweepGrid

__all__ = ["config_of", "estimate", "products_of", "stem_of", "sweep_config"]


def stem_of(grid: SweepGrid, config: dict) -> str:
    """``sweep-beta<β>`` for the default grid and settings (what ``make sweep`` writes), else that name plus a hash
    of the whole configuration: a sweep with other BDPs, flows or options never replaces another one's results.
    More than three β are named by the first, the last and their count (``sweep-beta0.0001-0.1x30-<hash>``), so a
    name stays short whatever the axis."""
    betas = [f"{b:g}" for b in grid.beta]
    # at most three β by name; a longer axis is named by its ends and length (the hash tells grids apart)
    stem = "sweep-beta" + ("_".join(betas) if len(betas) <= 3 else f"{betas[0]}-{betas[-1]}x{len(betas)}")
    if config == config_of(SweepGrid(beta=grid.beta), **_DEFAULT_OPTIONS):
        return stem
    digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:8]
    return f"{stem}-{digest}"


#: The settings of a plain ``dwtcp-fluid sweep --beta B`` (its results keep the short name).
_DEFAULT_OPTIONS = {
    "full": True,
    "packet": "all",
    "packet_sample": 2,
    "buffer": 250,
    "max_rtts": 400.0,
    "seed": 0,
}


def config_of(grid: SweepGrid, **options: object) -> dict:
    """Everything that changes a sweep's content: the grid and the evaluation and packet settings."""
    return {"grid": grid.to_dict(), **options}


def sweep_config(grid: SweepGrid, *, full: bool, packet: str, packet_sample: int, options: Any) -> dict:
    """The configuration of a sweep of ``grid`` (:func:`config_of`) with the packet pass's ``options``
    (:class:`~.packet_batch.PacketPassOptions`): its target queue K enters only when set, so the default sweep's
    results keep their name."""
    return config_of(
        grid,
        full=full,
        packet=packet,
        packet_sample=packet_sample,
        buffer=options.buffer,
        max_rtts=options.max_rtts,
        seed=options.seed,
        **({"target": options.k} if options.k else {}),
    )


def products_of(stem: str, *, figure: bool) -> list[str]:
    """The names a sweep ``stem`` writes or keeps in its output directory: the NetCDF, its stores (which
    ``resume`` continues) and, with ``figure``, its maps."""
    products = [f"{stem}.nc", f"{stem}.zarr", f"{stem}.packet.zarr"]
    if figure:
        products += [f"{stem}.png", f"{stem}-outcomes.png", f"{stem}-packet.png"]
    return products


#: Unit costs of the up-front estimate on the reference machine (2 cores): the frozen Jacobian, 2.7 million points
#: in 15 s (measured); the default full sweep (README) 494 s for 6250 points, 250 fluid runs and 250 packet
#: points, 36 s of it without the packet pass (split here as 4 ms per point for the delay-aware roots and 40 ms per
#: fluid run).
_SECONDS_PER_FROZEN_POINT = 6e-6  # frozen Jacobian, per (β, BDP, N, k̄/k̄*) point
_SECONDS_PER_ROOTS_POINT = 4e-3  # delay-aware roots (full sweep), per point
_SECONDS_PER_FLUID_RUN = 0.04  # delayed fluid runs (full sweep), per (β, BDP, N)
_SECONDS_PER_PACKET_RUN = 1.8  # packet-level DWTCP, per (β, BDP, N) point (batched)


def estimate(
    plan, n_points: int, n_runs: int, n_packet: int, full: bool, workers: int = 1
) -> tuple[float, float]:
    """Seconds and bytes the sweep will need: the dataset lives in the store, in memory and in the NetCDF; a full
    sweep's chunks also hold one chunk's batch of delayed fluid runs each (``workers`` chunks at once)."""
    from .outcomes_fluid import default_duration_rtts, fluid_batch_bytes

    sizes = plan.dim_sizes()
    per = 0.0
    for dims, dtype, _attrs in plan.variables().values():
        n = 1
        for d in dims:
            n *= sizes[d]
        per += n * np.dtype(dtype).itemsize
    seconds = n_points * _SECONDS_PER_FROZEN_POINT
    nbytes = 3.0 * per
    if full:
        seconds += n_points * _SECONDS_PER_ROOTS_POINT + n_runs * _SECONDS_PER_FLUID_RUN
        chunk_runs = min(plan.chunk, sizes["bdp"]) * sizes["flows"]
        nbytes += max(1, workers) * fluid_batch_bytes(chunk_runs, default_duration_rtts(plan.grid.beta))
    return seconds + n_packet * _SECONDS_PER_PACKET_RUN, nbytes
