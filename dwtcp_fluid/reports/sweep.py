"""JSON document of ``sweep``: the summary of a DWTCP condition sweep's dataset.

The document summarizes a dataset, so the function takes one (``dw.sweep_report(dw.run_sweep(grid))``, or a
NetCDF written earlier: ``dw.sweep_report(xarray.open_dataset("results/sweep-beta0.001.nc"))``) rather than
running the sweep itself: a notebook runs the sweep once and can summarize it, plot it and slice it without
recomputing, and the CLI keeps what only a command line has (the output lock, ``--resume``, the progress bars and
what an interrupt kept). What the dataset cannot know about its own run (where it was written, how long it took,
the packet pass's cost, the engine) enters as keywords; each is None when not given.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._json import to_jsonable

__all__ = ["finished", "packet_cost", "refresh_reason", "sweep_report", "write_sweep"]


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


def finished(nc: Path, config_json: str) -> bool:
    """Whether ``nc`` is the finished result of the sweep configuration ``config_json``, computed by this code."""
    from ..sweep.outputs import result_attrs, same_code

    attrs = result_attrs(nc, "eig_class")
    return attrs is not None and attrs.get("sweep_config") == config_json and same_code(attrs) is None


def refresh_reason(nc: Path, config_json: str) -> str | None:
    """Why the readable sweep result ``nc``, named as this sweep's result, is not its finished result and is
    recomputed: it does not record its configuration, records another one (the defaults of another version), or was
    computed by other code. None when ``nc`` is no sweep result or is the finished one."""
    from .._provenance import code_label
    from ..sweep.outputs import result_attrs, same_code

    attrs = result_attrs(nc, "eig_class")
    if attrs is None or finished(nc, config_json):
        return None
    if "sweep_config" not in attrs:
        return f"it does not record its configuration ({code_label(attrs)})"
    if attrs["sweep_config"] != config_json:
        return f"it holds another grid or other settings under this name ({code_label(attrs)})"
    return same_code(attrs)


def write_sweep(
    grid: Any,
    out: str | Path,
    *,
    full: bool = True,
    packet: str = "all",
    packet_sample: int = 2,
    packet_options: Any = None,
    figure: bool = True,
    resume: bool = False,
    force: bool = False,
    repair: bool = True,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float, int], None] | None = None,
    packet_progress: Callable[[int, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
    warn: Callable[[str], None] | None = None,
    check: Callable[[list[str]], None] | None = None,
) -> tuple[dict[str, Any], Any]:
    """``dwtcp-fluid sweep``'s orchestrator: run (or resume, or reuse) the DWTCP condition sweep of ``grid`` into
    directory ``out`` and return its document (:func:`sweep_report`) and dataset.

    The results are named by :func:`~dwtcp_fluid.sweep.names.stem_of` (``sweep-beta<β>[-<hash>]``): the NetCDF
    and, with ``figure``, the maps (:func:`~dwtcp_fluid.studies.dwtcp.figures_sweep_maps.draw_sweep_maps`). Under
    the output's lock (:func:`~dwtcp_fluid.sweep.outputs.locked_output`) the finished result of this very
    configuration, computed by this code, is reused (``reused`` in the document: a second ``make sweep``); another
    result under its name is refreshed, and ``note`` says why. The sweep itself is
    :func:`~dwtcp_fluid.sweep.run_sweep` on a Zarr store next to the results, which ``resume`` continues and a
    finished run removes. An interrupt or a failure raises :class:`~dwtcp_fluid.sweep.outputs.SweepStopped`
    saying what was kept.

    Parameters
    ----------
    grid : SweepGrid
        The (β, BDP, N, k̄/k̄*) grid.
    out : str or Path
        The output directory (created when written).
    full, packet, packet_sample, packet_options :
        The evaluation (``full``: the delayed fluid runs and delay-aware roots beside the frozen Jacobian) and the
        packet pass (``"all"``, ``"sample"`` of ``packet_sample`` points, ``"none"``; its
        :class:`~dwtcp_fluid.sweep.packet_batch.PacketPassOptions`).
    figure : bool
        Draw the maps next to the dataset.
    resume, force, repair :
        Continue the stores; replace earlier results; recompute damaged chunks of a resumed store (else
        :class:`~dwtcp_fluid.sweep.integrity.StoreDamagedError`).
    workers, scheduler :
        Dask (both None: in-process).
    progress, packet_progress : callable, optional
        ``progress(done, total)`` in chunks, ``packet_progress(done, total)`` in packet points.
    report, note, warn : callable, optional
        One line each: the resumed store's verification (a chunk recomputed, as
        :func:`~dwtcp_fluid.sweep.run_sweep` reports it); what the run did to the output besides the sweep (stale
        files removed, a result refreshed); a warning about a result read back.
    check : callable, optional
        ``check(keep)``: the caller's check of the output location, given the products that may exist already;
        called before the lock and again under it.
    """
    import time
    import warnings

    import xarray as xr

    from ..atomic import remove_tree
    from ..studies.dwtcp.figures_sweep_maps import draw_sweep_maps
    from ..sweep import run_sweep, write_netcdf_atomic
    from ..sweep.names import products_of, stem_of, sweep_config
    from ..sweep.outputs import SweepStopped, locked_output, stopping
    from ..sweep.packet_batch import PacketPassOptions
    from ..sweep.predictors import migrate_names
    from ..sweep.run import FROZEN, make_plan

    popts = PacketPassOptions() if packet_options is None else packet_options
    plan = make_plan(grid, "full" if full else (FROZEN,))
    config_json = json.dumps(
        sweep_config(grid, full=full, packet=packet, packet_sample=packet_sample, options=popts),
        sort_keys=True,
    )
    stem = stem_of(grid, json.loads(config_json))
    products = products_of(stem, figure=figure)
    out = Path(out)
    say = note or (lambda line: None)

    def keep() -> list[str]:
        # resume continues the stores; the finished result of this very configuration and code is reused, and
        # another result under its name (another configuration or code) is refreshed
        nc = out / f"{stem}.nc"
        return products if resume or finished(nc, config_json) or refresh_reason(nc, config_json) else []

    if check is not None:
        check(keep())
    store = out / f"{stem}.zarr"
    created = not out.exists()
    try:
        with locked_output(out, stem, check=None if check is None else lambda: check(keep()), note=say):
            nc = out / f"{stem}.nc"
            if not force and not resume and finished(nc, config_json):
                with warnings.catch_warnings(
                    record=True
                ) as seen:  # written under the predictors' former names
                    warnings.simplefilter("always")
                    ds = migrate_names(xr.load_dataset(nc, engine="h5netcdf"))
                for w in seen:
                    if warn is not None:
                        warn(f"{nc}: {w.message}")
                maps = draw_sweep_maps(ds, out, stem, full=full, only_missing=True) if figure else []
                doc = sweep_report(ds, dataset=nc, store=None, figure=maps[0] if maps else None, figures=maps,
                                   seconds=0.0, reused=True)  # fmt: skip
                return doc, ds
            why = None if force else refresh_reason(nc, config_json)
            if why:
                say(f"refreshing {nc}: {why}")
            chunks_done = [0, grid.beta.size * plan.n_chunks]

            def kept() -> str:
                if chunks_done[0] == 0:
                    if not resume:  # a store this run created and filled with nothing: not left behind
                        remove_tree(store)
                        remove_tree(store.with_suffix(".packet.zarr"))
                    return "nothing was kept" + (
                        f" ({nc}, the earlier result, is unchanged)" if nc.is_file() else ""
                    )
                return (
                    f"{chunks_done[0]} of {chunks_done[1]} chunks kept in {store}: rerun the same command with "
                    "--resume"
                )

            def chunks(done: float, total: int) -> None:
                chunks_done[:] = [int(done), total]  # in-process, done also moves by fractions of a chunk
                if progress is not None:
                    progress(done, total)

            t0 = time.perf_counter()
            cost: dict = {}
            with stopping(kept):
                ds = run_sweep(
                    grid,
                    plan=plan,
                    store=store,
                    resume=resume,
                    workers=workers,
                    scheduler=scheduler,
                    progress=chunks,
                    packet=packet,
                    packet_sample=packet_sample,
                    packet_options=popts,
                    packet_progress=packet_progress,
                    packet_report=cost,
                    seed=popts.seed,
                    repair=repair,
                    report=report,
                )
            elapsed = time.perf_counter() - t0
            ds.attrs["sweep_config"] = config_json
            try:
                path = write_netcdf_atomic(ds, nc)
                maps = draw_sweep_maps(ds, out, stem, full=full) if figure else []
            except KeyboardInterrupt:  # every chunk is in the store: the results are one resume away
                raise SweepStopped(f"sweep interrupted: {kept()}", code=130) from None
            except OSError as e:
                raise SweepStopped(
                    f"sweep could not write its results: {e.strerror or type(e).__name__} ({e.filename}); "
                    f"every chunk is kept in {store}: free space and rerun the same command with --resume"
                ) from e
            # finished: the stores served the resume and go; the results are the NetCDF and the maps
            remove_tree(store)
            remove_tree(store.with_suffix(".packet.zarr"))
    finally:
        if created and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a run that failed before writing anything leaves no empty directory behind
    doc = sweep_report(ds, dataset=path, store=None, figure=maps[0] if maps else None, figures=maps,
                       seconds=elapsed, packet_report=cost, workers=workers, scheduler=scheduler)  # fmt: skip
    return doc, ds
