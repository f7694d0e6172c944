"""``sweep --law X`` for a law with a judged sweep: the study's grid through its cross-check at every point.

:func:`judged_sweep_laws` lists the laws whose study registers a :class:`~dwtcp_fluid.sweep.study.JudgedSweep`
(every study's ``checks*`` modules are imported, so a new study's sweep is found without editing this file);
:func:`judged_grid` checks a grid before any work; :func:`run_judged_sweep` runs (or resumes) the sweep, writes its
NetCDF and returns its document and dataset; :func:`write_judged_sweep` is the command's orchestrator (an output
directory with its lock, the reuse of a finished result, what an interrupt kept); :func:`judged_sweep_report` is the
document of a dataset (one written earlier included).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import xarray as xr

from ..sweep.study import JudgedGrid, get_sweep, sweep_laws
from ..sweep.study_run import run_judged, summarize_judged
from ._json import to_jsonable
from .compare import _discover

__all__ = [
    "judged_sweep_laws",
    "judged_grid",
    "judged_stem",
    "run_judged_sweep",
    "judged_sweep_report",
    "write_judged_sweep",
]


def judged_sweep_laws() -> tuple[str, ...]:
    """The laws with a registered judged sweep, sorted."""
    _discover()
    return sweep_laws()


def judged_grid(
    law: str, axes: Mapping[str, Any] | None = None, fixed: Mapping[str, str] | None = None, seed: int = 0
) -> JudgedGrid:
    """The checked grid of ``law``'s sweep: ``axes`` (axis name → values; the others their defaults), ``fixed``
    (setting name → text with its unit), the packet runs' ``seed``. ValueError naming what is refused."""
    if law not in judged_sweep_laws():
        raise ValueError(f"law={law!r} is invalid: accepted {' | '.join(judged_sweep_laws())}")
    return JudgedGrid(get_sweep(law), dict(axes or {}), dict(fixed or {}), seed)


def judged_sweep_report(
    ds: xr.Dataset, *, dataset: str | Path | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """The document of a judged sweep's dataset: outcome counts overall, by run class and by packet class, the
    stated tolerances, where it was written and how long it took (None when not given)."""
    import json

    doc = summarize_judged(ds)
    doc["tolerances"] = json.loads(ds.attrs.get("tolerance") or "{}")
    doc["judged_models"] = ds.attrs.get("judged_models", "").split()
    doc["dataset"] = None if dataset is None else str(dataset)
    doc["seconds"] = None if seconds is None else round(float(seconds), 1)
    return to_jsonable(doc)


def run_judged_sweep(
    grid: JudgedGrid,
    store: str | Path,
    *,
    netcdf: str | Path | None = None,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    repair: bool = True,
) -> tuple[dict[str, Any], xr.Dataset]:
    """Run (or resume) the judged sweep of ``grid`` into the Zarr ``store``
    (:func:`~dwtcp_fluid.sweep.study_run.run_judged`), write the dataset to ``netcdf`` (atomically; None: not
    written) and return its document (:func:`judged_sweep_report`, with where it was written and the seconds it
    took) and the dataset. The store is kept (the caller removes it once the NetCDF is in place)."""
    import time

    from ..sweep.store import write_netcdf_atomic

    t0 = time.perf_counter()
    ds = run_judged(grid, store, resume=resume, workers=workers, scheduler=scheduler, progress=progress,
                    report=report, repair=repair)  # fmt: skip
    seconds = time.perf_counter() - t0
    path = None if netcdf is None else write_netcdf_atomic(ds, netcdf)
    return judged_sweep_report(ds, dataset=path, seconds=seconds), ds


def judged_stem(grid: JudgedGrid) -> str:
    """The name of a judged sweep's results, ``sweep-<law>-<hash of the grid>``."""
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps(grid.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
    return f"sweep-{grid.sweep.law}-{digest}"


def _of_grid(nc: Path, grid: JudgedGrid) -> dict | None:
    """The attributes of ``nc`` when it is a readable result of this very grid (its recorded parameters are the
    grid's), else None."""
    import json

    from ..sweep.outputs import result_attrs

    attrs = result_attrs(nc, "outcome")
    ok = attrs is not None and attrs.get("parameters") == json.dumps(grid.to_dict(), sort_keys=True)
    return attrs if ok else None


def write_judged_sweep(
    grid: JudgedGrid,
    out: str | Path,
    *,
    resume: bool = False,
    force: bool = False,
    repair: bool = True,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
    check: Callable[[list[str]], None] | None = None,
) -> tuple[dict[str, Any], xr.Dataset]:
    """``dwtcp-fluid sweep --law X``'s orchestrator: run (or resume, or reuse) the judged sweep of ``grid`` into
    directory ``out`` as ``<out>/sweep-<law>-<hash>.nc`` (:func:`judged_stem`) and return its document and dataset.

    The finished result of this very grid, computed by this code, is reused (``reused`` in the document: a second
    run computes nothing); one of this grid computed by other code is refreshed, and ``note`` says why. Under the
    output's lock (:func:`~dwtcp_fluid.sweep.outputs.locked_output`) the sweep runs on a Zarr store next to the
    result (:func:`run_judged_sweep`), which ``resume`` continues and a finished run removes. An interrupt or a
    failure raises :class:`~dwtcp_fluid.sweep.outputs.SweepStopped` saying what was kept.

    ``resume`` continues the store, ``force`` replaces an earlier result (and never reuses one), ``repair``
    recomputes damaged chunks of a resumed store (else :class:`~dwtcp_fluid.sweep.integrity.StoreDamagedError`);
    ``workers`` or ``scheduler`` run the chunks on Dask (both None: in-process). ``progress(done, total)`` counts
    chunks; ``report`` gets the resumed store's verification, one line per chunk recomputed; ``note`` what the run
    did to the output besides the sweep (stale files removed, a result refreshed); ``check(keep)`` is the caller's
    check of the output location, given the products that may exist already, called before the lock and again
    under it.
    """
    from .._provenance import code_label
    from ..atomic import remove_tree
    from ..sweep.outputs import locked_output, same_code, stopping
    from ..sweep.study_run import make_plan

    out = Path(out)
    stem = judged_stem(grid)
    nc = out / f"{stem}.nc"
    products = [f"{stem}.nc", f"{stem}.zarr"]
    attrs = _of_grid(nc, grid)
    if not force and not resume and attrs is not None and same_code(attrs) is None:
        # a second run of a finished sweep reuses its result
        ds = xr.load_dataset(nc, engine="h5netcdf")
        doc = judged_sweep_report(ds, dataset=nc, seconds=0.0)
        return doc | {"reused": True, "code": code_label(ds.attrs)}, ds
    # this grid's result computed by other code is refreshed
    why = None if attrs is None else same_code(attrs)
    keep = products if resume or why else []
    if check is not None:
        check(keep)
    store = out / f"{stem}.zarr"
    plan = make_plan(grid)
    done = [0.0, float(plan.done_shape[0] * plan.done_shape[1])]

    def kept() -> str:
        if int(done[0]) == 0:
            if not resume:
                remove_tree(store)
            return "nothing was kept"
        return (
            f"{int(done[0])} of {int(done[1])} chunks kept in {store}: rerun the same command with --resume"
        )

    def chunks(d: float, t: int) -> None:
        done[:] = [d, t]
        if progress is not None:
            progress(d, t)

    if why and not force and note is not None:
        note(f"refreshing {nc}: {why}")
    with locked_output(out, stem, check=None if check is None else lambda: check(keep), note=note):
        with stopping(kept):
            doc, ds = run_judged_sweep(grid, store, netcdf=nc, resume=resume, workers=workers, scheduler=scheduler,
                                       progress=chunks, repair=repair, report=report)  # fmt: skip
        remove_tree(store)  # finished: the store served the resume; the result is the NetCDF
    return doc, ds
