"""The leaf-spine FCT campaign of :mod:`.checks_fabric` (load × seed × protocol) on the sweep engine's store.

:class:`FabricGrid` holds the loads, the seeds, the protocols and the shared settings; :func:`run_fabric_campaign`
runs it through :func:`~dwtcp_fluid.sweep.engine.run_plan`: one chunk per (load, seed), both protocols in the chunk
(they share the chunk's arrivals), in-process or on Dask (``workers``: a local cluster; ``scheduler``: an existing
one), into a Zarr store with a checksum per chunk, resumable (``resume``: verified chunks are kept, damaged ones
recomputed), and returned as an xarray Dataset with dims (load, seed, law). A campaign estimated beyond an hour
of CPU (:func:`estimate_seconds`) runs only when confirmed (``yes``).

Run::

    python -m dwtcp_fluid.studies.dwtcp.checks_campaign --loads 0.2,0.4,0.6,0.8 --seeds 0,1,2 \\
        --cdf websearch --store results/fabric.zarr [--resume] [--workers N | --scheduler ADDR] [--yes]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ...sweep.engine import Evaluator, SweepPlan, run_plan
from ...sweep.store import provenance
from .checks_fabric import FABRIC, FABRIC_LAWS, SIZE_BINS, fabric_run

__all__ = [
    "FabricGrid",
    "run_fabric_campaign",
    "estimate_seconds",
    "CPU_S_PER_PORT_SLOT",
    "CPU_S_PER_RUN",
    "main",
]

#: Planning figure for :func:`estimate_seconds`: CPU seconds per simulated slot and routed port of the event
#: engine on one core (the claims' 16-host, 40-port runs took about 10 µs per slot, i.e. 2.5e-7 per port-slot).
CPU_S_PER_PORT_SLOT = 2.5e-7
#: Planning figure: CPU seconds per run besides its slots (workload, routing, the engine's compile of a new shape).
CPU_S_PER_RUN = 5.0
#: A campaign estimated beyond this many CPU seconds asks for confirmation.
CONFIRM_ABOVE_S = 3600.0

_DIMS = ("load", "seed", "law")


def _v(long_name: str, units: str = "1", dtype: str = "float64") -> tuple:
    return (_DIMS, dtype, {"long_name": long_name, "units": units})


VARIABLES: dict[str, tuple] = {
    "slowdown_mean": _v("mean FCT slowdown of the measured flows"),
    "slowdown_p99": _v("99th percentile FCT slowdown of the measured flows"),
    **{
        f"{b}_{q}": _v(f"{'mean' if q == 'mean' else '99th percentile'} FCT slowdown, {b} flows")
        for b in SIZE_BINS
        for q in ("mean", "p99")
    },
    "measured": _v("flows measured", dtype="int64"),
    "unfinished": _v("measured flows not finished at the end of the run", dtype="int64"),
    "queue_host": _v("mean queue of the host ports", "packets"),
    "queue_nic": _v("mean queue of the NICs", "packets"),
    "queue_core": _v("mean queue of the core ports", "packets"),
    "scouts_sent": _v("Scouts sent", dtype="int64"),
    "scouts_dropped": _v("Scouts dropped at a low-priority queue", dtype="int64"),
    "data_packets": _v("data packets delivered", dtype="int64"),
    "timeouts": _v("retransmission timeouts", dtype="int64"),
    "spill": _v("ACKs deferred by a slot", dtype="int64"),
    "timers_lost": _v("timers lost", dtype="int64"),
}


@dataclass(frozen=True)
class FabricGrid:
    """Loads (fractions of the edge rate), seeds and protocols (:data:`~.checks_fabric.FABRIC_LAWS`), with the
    workload and the run lengths (s) shared by every point; values are checked here."""

    loads: Any
    seeds: Any = (0,)
    laws: tuple[str, ...] = tuple(FABRIC_LAWS)
    cdf: str = "websearch"
    arrivals: float = 0.08
    duration: float = 0.16
    warmup: float = 0.01

    def __post_init__(self) -> None:
        from ...packet.workloads import CDFS
        from ...params import check_range

        loads = np.atleast_1d(np.asarray(self.loads, float))
        if loads.size == 0 or len(set(loads.tolist())) != loads.size:
            raise ValueError(f"loads={self.loads!r} is invalid: accepted distinct loads in (0, 1)")
        for v in loads:
            check_range(
                "load", float(v), lo=0.0, hi=1.0, lo_open=True, hi_open=True, why="fraction of the edge rate"
            )
        seeds = np.atleast_1d(np.asarray(self.seeds))
        if (
            seeds.size == 0
            or seeds.dtype.kind not in "iu"
            or seeds.min() < 0
            or len(set(seeds.tolist())) != seeds.size
        ):
            raise ValueError(f"seeds={self.seeds!r} is invalid: accepted distinct integers >= 0")
        for law in self.laws:
            if law not in FABRIC_LAWS:
                raise ValueError(f"law={law!r} is invalid: accepted {', '.join(FABRIC_LAWS)}")
        if self.cdf not in CDFS:
            raise ValueError(f"cdf={self.cdf!r} is invalid: accepted {', '.join(CDFS)}")
        check_range("arrivals", self.arrivals, lo=0.0, lo_open=True, why="seconds")
        check_range("duration", self.duration, lo=self.arrivals, why="seconds, at least the arrivals")
        check_range("warmup", self.warmup, lo=0.0, hi=self.arrivals, hi_open=True, why="seconds")
        object.__setattr__(self, "loads", np.sort(loads))
        object.__setattr__(self, "seeds", np.sort(seeds.astype(np.int64)))
        object.__setattr__(self, "laws", tuple(self.laws))

    def to_dict(self) -> dict[str, Any]:
        return {
            "loads": self.loads.tolist(),
            "seeds": self.seeds.tolist(),
            "laws": list(self.laws),
            "cdf": self.cdf,
            "arrivals": self.arrivals,
            "duration": self.duration,
            "warmup": self.warmup,
            "fabric": {k: v for k, v in vars(FABRIC).items()},
        }

    #: How a resume report names the leading axes.
    labels = {"load": "load", "seed": "seeds"}

    def dims(self) -> dict[str, int]:
        """The engine's grid protocol: dimension sizes, leading axes first."""
        return {"load": self.loads.size, "seed": self.seeds.size, "law": len(self.laws)}

    def lead(self) -> tuple[tuple[str, np.ndarray], tuple[str, np.ndarray]]:
        """The two chunked leading axes: one chunk per (load, seed)."""
        return ("load", self.loads), ("seed", self.seeds)

    def coords(self) -> dict[str, Any]:
        return {
            "load": ("load", self.loads, {"long_name": "offered load per host", "units": "1"}),
            "seed": (
                "seed",
                self.seeds,
                {"long_name": "seed of the arrivals, sizes and destinations", "units": "1"},
            ),
            "law": ("law", np.array(self.laws), {"long_name": "protocol"}),
        }


def _evaluate(grid: FabricGrid, il: int, sl: slice) -> dict[str, np.ndarray]:
    """Points (loads[il], seeds[sl]) for every protocol: arrays (1, n, laws)."""
    n = sl.stop - sl.start
    out = {k: np.zeros((1, n, len(grid.laws)), v[1]) for k, v in VARIABLES.items()}
    for j, s in enumerate(range(sl.start, sl.stop)):
        for k, law in enumerate(grid.laws):
            r = fabric_run(law, float(grid.loads[il]), cdf=grid.cdf, arrivals=grid.arrivals,
                           duration=grid.duration, warmup=grid.warmup, seed=int(grid.seeds[s]))  # fmt: skip
            sd = r["slowdown"]
            row = {"slowdown_mean": sd.get("mean", np.nan), "slowdown_p99": sd.get("p99", np.nan)}
            for b in SIZE_BINS:
                row[f"{b}_mean"] = sd[b].get("mean", np.nan)
                row[f"{b}_p99"] = sd[b].get("p99", np.nan)
            for key in VARIABLES:
                out[key][0, j, k] = row[key] if key in row else r[key]
    return out


EVALUATOR = Evaluator("fabric", VARIABLES, _evaluate)  # type: ignore[arg-type]


def estimate_seconds(grid: FabricGrid) -> float:
    """CPU seconds the campaign should take on one core: runs × (:data:`CPU_S_PER_RUN` + slots × ports ×
    :data:`CPU_S_PER_PORT_SLOT`)."""
    slots = grid.duration * FABRIC.core_gbps * 1e9 / (8 * 1500)
    runs = grid.loads.size * grid.seeds.size * len(grid.laws)
    return runs * (CPU_S_PER_RUN + slots * FABRIC.n_ports * CPU_S_PER_PORT_SLOT)


def campaign_stem(grid: FabricGrid) -> str:
    """``fabric-campaign-<hash>``: named by a hash of the grid and its settings."""
    return (
        "fabric-campaign-"
        + hashlib.sha256(json.dumps(grid.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
    )


def run_fabric_campaign(
    grid: FabricGrid,
    store: str | Path,
    *,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    yes: bool = False,
    progress: Callable[[float, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    repair: bool = True,
) -> xr.Dataset:
    """Run (or resume) the campaign into the Zarr ``store``; return the dataset (dims load, seed, law) with its
    provenance. Refuses (ValueError naming ``yes``) a campaign estimated above :data:`CONFIRM_ABOVE_S` CPU seconds
    unless ``yes``."""
    est = estimate_seconds(grid)
    if est > CONFIRM_ABOVE_S and not yes:
        raise ValueError(
            f"yes=False is invalid for this campaign: estimated {est / 3600:.1f} CPU hours on one core; "
            "accepted --yes to run a campaign above one hour"
        )
    plan = SweepPlan(grid, (EVALUATOR,), chunk=1)  # type: ignore[arg-type]
    ds = run_plan(plan, Path(store), resume=resume, workers=workers, scheduler=scheduler, progress=progress,
                  report=report, repair=repair)  # fmt: skip
    ds.attrs.update(
        provenance(
            grid.to_dict(),
            solver="packet core event engine on routed ports (dwtcp_fluid/packet/ports.py), "
            "dwtcp_fluid.studies.dwtcp.checks_fabric.fabric_run",
        )
    )
    ds.attrs["Conventions"] = "CF-1.10"
    ds.attrs["title"] = f"DWTCP vs DCTCP FCT slowdowns on a {FABRIC.n_hosts}-host leaf-spine ([DWTCP] §5.3)"
    ds.attrs["estimated_cpu_s"] = est
    return ds


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v]


def main(argv: Sequence[str] | None = None) -> int:
    """Command line (see the module docstring); bad input: one line and exit 2."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m dwtcp_fluid.studies.dwtcp.checks_campaign")
    ap.add_argument("--loads", default="0.2,0.4,0.6,0.8")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--laws", default=",".join(FABRIC_LAWS))
    ap.add_argument("--cdf", default="websearch")
    ap.add_argument("--arrivals", type=float, default=0.08, help="seconds of arrivals")
    ap.add_argument("--duration", type=float, default=0.16, help="seconds per run")
    ap.add_argument("--warmup", type=float, default=0.01, help="seconds of arrivals not measured")
    ap.add_argument("--store", default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--scheduler", default=None)
    ap.add_argument("--yes", action="store_true")
    ap.add_argument("--out", default=None, help="NetCDF file of the result")
    a = ap.parse_args(argv)
    try:
        seeds = [int(v) for v in a.seeds.split(",") if v]
        grid = FabricGrid(_floats(a.loads), seeds, tuple(a.laws.split(",")), cdf=a.cdf, arrivals=a.arrivals,
                          duration=a.duration, warmup=a.warmup)  # fmt: skip
        store = Path(a.store or f"results/{campaign_stem(grid)}.zarr")
        ds = run_fabric_campaign(
            grid, store, resume=a.resume, workers=a.workers, scheduler=a.scheduler, yes=a.yes,
            progress=lambda d, t: print(f"{d:g}/{t} chunks", file=sys.stderr),
            report=lambda line: print(line, file=sys.stderr),
        )  # fmt: skip
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.out:
        from ...sweep.store import write_netcdf_atomic

        write_netcdf_atomic(ds, a.out)
    print(json.dumps({"store": str(store), "estimated_cpu_s": ds.attrs["estimated_cpu_s"],
                      "slowdown_mean": ds["slowdown_mean"].mean("seed").to_pandas().to_dict()}, default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
