"""``sweep --law X`` for a law with a judged sweep: the study's grid through its cross-check at every point.

:func:`judged_sweep_laws` lists the laws whose study registers a :class:`~dwtcp_fluid.sweep.study.JudgedSweep`
(every study's ``checks*`` modules are imported, so a new study's sweep is found without editing this file);
:func:`judged_grid` checks a grid before any work; :func:`run_judged_sweep` is the one orchestrator: it runs (or
resumes) the sweep, writes its NetCDF and returns its document and dataset; :func:`judged_sweep_report` is the document of a dataset
(one written earlier included).
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

__all__ = ["judged_sweep_laws", "judged_grid", "run_judged_sweep", "judged_sweep_report"]


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
