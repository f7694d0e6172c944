"""Running a judged sweep (:mod:`.study` declares it): the dataset's variables, a chunk's evaluation through the
check, the plan on the chunked engine (:func:`run_judged`) and the counts of its outcomes (:func:`summarize_judged`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..judge import run_check
from ..judge.tolerance import AGREE, DISAGREE
from ..references import references_attr
from .engine import Evaluator, SweepPlan, run_plan
from .store import provenance
from .study import FAILED, PACKET_CLASSES, REPORTED, WITHIN, JudgedGrid, JudgedSweep

__all__ = ["make_plan", "run_judged", "summarize_judged"]


def _flags(names: tuple[str, ...], start: int = 0) -> dict[str, Any]:
    return {"flag_values": np.arange(start, start + len(names), dtype=np.int8), "flag_meanings": " ".join(
        n.replace(" ", "_") for n in names)}  # fmt: skip


def _variables(sw: JudgedSweep) -> dict[str, tuple[tuple[str, ...], str, dict[str, Any]]]:
    dims = tuple(a.name for a in sw.axes)
    dm, dmt = dims + ("model",), dims + ("model", "tolerance_name")
    out: dict[str, tuple[tuple[str, ...], str, dict[str, Any]]] = {
        "run_class": (dims, "int8", {"long_name": f"run class of the {sw.check.name} check (-1: failed)",
                                     **_flags(sw.classes)}),
        "outcome": (dims, "int8", {"long_name": "the judge's outcome: every judged model agrees, one disagrees, "
                                   "or the run's own class (not scored)", **_flags(sw.outcomes)}),
        "agree": (dims, "bool", {"long_name": "every judged fluid model agrees with the packet run", "units": "1"}),
        "verdict": (dm, "int8", {"long_name": "the judge's verdict per fluid model",
                                 **_flags((*sw.outcomes, REPORTED))}),
        "measured": (dmt, "float64", {"long_name": "the tolerance's measured value (units of the tolerance)",
                                      "units": "1"}),
        "within": (dmt, "int8", {"long_name": "the measured value within the stated tolerance",
                                 **_flags(WITHIN, start=-1)}),
    }  # fmt: skip
    if sw.packet_class:
        out["packet_class"] = (dims, "int8", {"long_name": "class of the packet run (the judge's classifier; "
                                              "-1: not classified)", **_flags(PACKET_CLASSES[:-1])})  # fmt: skip
    for key, long_name, units in sw.packet_quantities:
        out[f"packet_{key}"] = (dims, "float64", {"long_name": f"{long_name}, packet run", "units": units})
    for key, long_name, units in sw.fluid_quantities:
        out[f"fluid_{key}"] = (dm, "float64", {"long_name": f"{long_name}, fluid model", "units": units})
    return out


def _number(v: Any) -> float:
    try:
        return float("nan") if v is None else float(v)
    except (TypeError, ValueError):
        return float("nan")


def _summary(side: Any) -> Mapping[str, Any]:
    s = side.get("summary") if isinstance(side, Mapping) else None
    return s if isinstance(s, Mapping) else side


def _evaluate(grid: JudgedGrid, ib: int, sl: slice) -> dict[str, np.ndarray]:
    """Points (axis 0 index ``ib``, axis 1 indices ``sl``, every index of the other axes): arrays (1, n, …)."""
    sw = grid.sweep
    variables = _variables(sw)
    rest = grid.shape[2:]
    lead = (1, sl.stop - sl.start, *rest)
    n_m, n_t = len(sw.models), len(sw.tolerances)
    out: dict[str, np.ndarray] = {}
    for name, (dims, dtype, _a) in variables.items():
        shape = lead + ((n_m,) if "model" in dims else ()) + ((n_t,) if "tolerance_name" in dims else ())
        fill = np.nan if dtype == "float64" else (False if dtype == "bool" else -1)
        out[name] = np.full(shape, fill, dtype=dtype)
    idxs = [(j, *r) for j in range(sl.stop - sl.start) for r in itertools.product(*(range(n) for n in rest))]
    settings = [sw.setting(grid.point((ib, sl.start + j, *r)), grid.fixed) for j, *r in idxs]
    options = sw.options(grid.fixed)
    try:
        rows = run_check(sw.check, settings, seed=grid.seed, **options).rows
    except Exception:  # one point failed: run them one by one, so that the others are kept
        rows = []
        for s in settings:
            try:
                rows += run_check(sw.check, [s], seed=grid.seed, **options).rows
            except Exception:
                rows.append(None)
    outcomes, tols = sw.outcomes, sw.tolerances
    for (j, *r), row in zip(idxs, rows, strict=True):
        at = (0, j, *r)
        if row is None:
            out["outcome"][at] = out["verdict"][at] = outcomes.index(FAILED)
            continue
        cls = row.run_class if row.run_class is not None else "scored"
        if cls not in sw.classes:
            raise RuntimeError(
                f"check {sw.check.name!r} returned the run class {cls!r}, not one of {sw.classes}"
            )
        out["run_class"][at] = sw.classes.index(cls)
        out["outcome"][at] = outcomes.index(row.outcome)
        out["agree"][at] = row.agree
        pk = _summary(row.packet)
        if sw.packet_class:
            label = pk.get("packet_class")
            out["packet_class"][at] = PACKET_CLASSES.index(label) if label in PACKET_CLASSES[:-1] else -1
        for key, _ln, _u in sw.packet_quantities:
            out[f"packet_{key}"][at] = _number(pk.get(key))
        for im, m in enumerate(sw.models):
            fl = _summary(row.fluid.get(m, {}))
            for key, _ln, _u in sw.fluid_quantities:
                out[f"fluid_{key}"][(*at, im)] = _number(fl.get(key))
            v = row.verdicts.get(m)
            out["verdict"][(*at, im)] = (len(outcomes) if v is None
                                         else outcomes.index(v.outcome if v.outcome in outcomes else DISAGREE))  # fmt: skip
            if v is None:
                continue
            for it, t in enumerate(tols):
                if t in v.measured:
                    out["measured"][(*at, im, it)] = _number(v.measured[t])
                    out["within"][(*at, im, it)] = int(bool(v.checks.get(t)))
    return out


def make_plan(grid: JudgedGrid) -> SweepPlan:
    """One evaluator (the check at every point of a chunk), one pair of leading values per chunk."""
    sw = grid.sweep
    ev = Evaluator(f"judged:{sw.law}", _variables(sw), _evaluate)  # type: ignore[arg-type]
    extra = (("model", np.asarray(sw.models)), ("tolerance_name", np.asarray(sw.tolerances)))
    return SweepPlan(grid, (ev,), chunk=1, extra_coords=extra)


def run_judged(
    grid: JudgedGrid,
    store: str | Path,
    *,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    repair: bool = True,
) -> xr.Dataset:
    """Run (or resume) the judged sweep of ``grid`` into the Zarr ``store``; return the dataset with its attributes.

    Parameters
    ----------
    grid : JudgedGrid
        The study's sweep, the axis values, the fixed settings and the seed.
    store : str or Path
        Zarr store of the chunks (each with a checksum record; removed by the caller once the NetCDF is written).
    resume : bool
        Keep the verified chunks of an earlier run of the same grid into the same store.
    workers, scheduler
        Run the chunks on a new Dask ``LocalCluster(n_workers=workers)`` or on the scheduler at this address.
    progress : callable, optional
        ``progress(done, total)`` in chunks.
    report : callable, optional
        Receives one line per stored chunk that fails verification on resume.
    repair : bool
        Recompute such chunks (False: stop with :class:`~.integrity.StoreDamagedError`).

    Returns
    -------
    xarray.Dataset
        Dims: the axes, ``model`` (the fluid models), ``tolerance_name`` (the check's stated tolerances); per point
        ``run_class``, ``outcome``, ``agree``, ``packet_class`` (where the packet side classifies), ``packet_<q>``,
        ``fluid_<q>`` (per model), ``verdict`` (per model), ``measured`` and ``within`` (per model and tolerance name).
    """
    sw = grid.sweep
    plan = make_plan(grid)
    ds = run_plan(plan, Path(store), resume=resume, workers=workers, scheduler=scheduler, progress=progress,
                  report=report, repair=repair)  # fmt: skip
    stated = sw.check.stated()
    ds.attrs.update(
        provenance(
            grid.to_dict(),
            solver=f"the {sw.check.name} cross-check's packet and fluid sides "
            f"(dwtcp_fluid.judge.run_check), options {json.dumps(sw.options(grid.fixed), sort_keys=True)}",
            tolerance=json.dumps(stated, sort_keys=True, default=str),
        )  # fmt: skip
    )
    ds.attrs["Conventions"] = "CF-1.10"
    ds.attrs["title"] = sw.title or f"{sw.law}: the {sw.check.name} cross-check over a grid"
    ds.attrs["law"] = sw.law
    ds.attrs["check"] = sw.check.name
    ds.attrs["claim"] = sw.check.claim
    ds.attrs["judged_models"] = " ".join(
        m for m in sw.models if sw.check.against is None or m in sw.check.against
    )
    ds.attrs["references"] = references_attr(sw.check.claim)
    return ds


def _label(ds: xr.Dataset, var: str, code: int) -> str:
    meanings = ds[var].attrs["flag_meanings"].split()
    values = [int(v) for v in np.atleast_1d(ds[var].attrs["flag_values"])]
    return meanings[values.index(code)] if code in values else "none"


def summarize_judged(ds: xr.Dataset, *, max_disagreements: int = 5) -> dict[str, Any]:
    """Outcome counts of a judged sweep: overall, by run class and by packet class; where disagreements sit."""
    outcome = ds["outcome"].values.ravel()
    labels = [_label(ds, "outcome", int(o)) for o in outcome]

    def counts(mask: np.ndarray) -> dict[str, int]:
        sel = [lab for lab, m in zip(labels, mask, strict=True) if m]
        return {
            "points": len(sel),
            "agree": sel.count(AGREE),
            "disagree": sel.count(DISAGREE),
            "not_scored": len(sel) - sel.count(AGREE) - sel.count(DISAGREE),
        }

    out: dict[str, Any] = {"law": ds.attrs.get("law"), "check": ds.attrs.get("check"),
                           "axes": {d: ds[d].values.tolist() for d in ds["outcome"].dims},
                           "points": int(outcome.size), "outcomes": counts(np.ones(outcome.size, bool)),
                           "outcome_counts": {k: labels.count(k) for k in dict.fromkeys(labels)}}  # fmt: skip
    rc = ds["run_class"].values.ravel()
    out["by_run_class"] = {_label(ds, "run_class", int(c)) if c >= 0 else FAILED: counts(rc == c)
                           for c in sorted(set(rc.tolist()))}  # fmt: skip
    if "packet_class" in ds:
        pc = ds["packet_class"].values.ravel()
        out["by_packet_class"] = {(_label(ds, "packet_class", int(c)) if c >= 0 else "not classified"): counts(pc == c)
                                  for c in sorted(set(pc.tolist()))}  # fmt: skip
    bad = np.argwhere(
        ds["outcome"].values == list(ds["outcome"].attrs["flag_meanings"].split()).index(DISAGREE)
    )
    out["disagreement_examples"] = [
        {d: ds[d].values[i].item() for d, i in zip(ds["outcome"].dims, idx, strict=True)}
        for idx in bad[:max_disagreements]
    ]
    return out
