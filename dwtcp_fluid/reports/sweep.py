"""JSON document of ``sweep``: the summary of a DWTCP condition sweep's dataset.

The document summarizes a dataset, so the function takes one (``dw.sweep_report(dw.run_sweep(grid))``, or a
NetCDF written earlier: ``dw.sweep_report(xarray.open_dataset("results/sweep-beta0.001.nc"))``) rather than
running the sweep itself: a notebook runs the sweep once and can summarize it, plot it and slice it without
recomputing, and the CLI keeps what only a command line has (the output lock, ``--resume``, the progress bars and
what an interrupt kept). What the dataset cannot know about its own run (where it was written, how long it took,
the packet pass's cost, the engine) enters as keywords; each is None when not given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._json import to_jsonable

__all__ = ["packet_cost", "sweep_report"]


def packet_cost(report: dict[str, Any]) -> dict[str, Any]:
    """Cost breakdown of the sweep's packet pass (the ``packet_report`` that :func:`~dwtcp_fluid.sweep.run_sweep`
    fills): per N, points, engine calls ("batches"), simulated flow-slots and measured seconds."""
    per_n: dict[int, dict[str, Any]] = {}
    for b in report["batches"]:
        d = per_n.setdefault(int(b["flows"]), {"points": 0, "batches": 0, "flow_slots": 0, "seconds": 0.0})
        d["points"] += b["points"]
        d["batches"] += 1
        d["flow_slots"] += b["flow_slots"]
        d["seconds"] += b["seconds"]
    return {"seconds": report["seconds"], "per_flows": per_n, "batches": report["batches"]}


def sweep_report(
    sweep: Any,
    *,
    dataset: str | Path | None = None,
    store: str | Path | None = None,
    figure: str | Path | None = None,
    figures: list[str | Path] | None = None,
    seconds: float | None = None,
    packet_report: dict[str, Any] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    reused: bool = False,
) -> dict[str, Any]:
    """``sweep --json``'s document: the DWTCP condition k̄ < 2·BDP/√β ([DWTCP] eq. (14)) against the frozen
    Jacobian (8) and, when evaluated, the delayed fluid runs, the delay-aware roots and the packet law.

    Parameters
    ----------
    sweep : SweepResult or xarray.Dataset
        A sweep (:func:`dwtcp_fluid.run_sweep`) or its dataset (also one read back from its NetCDF).
    dataset, store, figure : str or Path, optional
        Where the NetCDF, the Zarr store and the condition map were written (recorded, not read).
    figures : list of str or Path, optional
        Every map written next to the dataset (the condition map first).
    seconds : float, optional
        Wall-clock seconds of the run.
    packet_report : dict, optional
        The ``packet_report`` dict :func:`~dwtcp_fluid.sweep.run_sweep` filled: its seconds and, when the packet
        pass ran, its cost per N (:func:`packet_cost`).
    workers, scheduler : optional
        The Dask settings of the run (both None: in-process).
    reused : bool
        Whether the dataset is the finished result of an earlier identical run, reused rather than recomputed.

    Returns
    -------
    dict
        :func:`dwtcp_fluid.sweep.summarize`'s counts and agreement rates, then ``dataset``, ``store``, ``figure``,
        ``figures``, ``seconds``, ``packet_seconds``, ``packet_cost``, ``engine``, ``reused`` and ``code`` (the code
        that computed the dataset, from its provenance attributes).
    """
    import xarray as xr

    from .._provenance import code_label
    from ..sweep import summarize
    from ..sweep.predictors import migrate_names

    ds = sweep if isinstance(sweep, xr.Dataset) else sweep.to_dataset()  # a SweepResult
    ds = migrate_names(ds)  # a dataset written under the fluid predictors' former names
    rep = packet_report or {}
    doc = summarize(ds)
    doc.update(
        {
            "dataset": None if dataset is None else str(dataset),
            "store": None if store is None else str(store),
            "figure": None if figure is None else str(figure),
            "figures": [str(f) for f in figures or ()],
            "seconds": seconds,
            "packet_seconds": rep.get("seconds"),
            "packet_cost": packet_cost(rep) if rep.get("batches") else None,
            "engine": "in-process"
            if workers is None and scheduler is None
            else f"dask ({workers or scheduler})",
            "reused": bool(reused),
            "code": code_label(ds.attrs),
        }
    )
    return to_jsonable(doc)
