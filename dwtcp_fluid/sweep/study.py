"""The judged sweep: any study's grid through its fluid predictors and the packet judge, point by point.

A study declares a :class:`JudgedSweep`: the law, its registered :class:`~dwtcp_fluid.judge.CrossCheck`, the grid
axes (:class:`Axis`: a name, the command-line flag, a range and a default), the fixed settings (:class:`Fixed`:
link, run length), how a point and the fixed settings make one setting of the check, the fluid models the check's
fluid side returns, the run classes its classifier names and the summary quantities recorded. It registers with
:func:`register_sweep`. :func:`run_judged` does the rest, for every law alike: the grid (:class:`JudgedGrid`)
on the chunked engine (:mod:`.engine`: in-process or Dask, a resumable Zarr store with a checksum per chunk),
every chunk through :func:`~dwtcp_fluid.judge.run_check` (the packet side per setting, the fluid side batched
over the chunk, the check's own verdict), and a dataset with, per point: the packet run's quantities and class,
each fluid model's prediction, the verdict per model with every tolerance's measured value, and the outcome
(``agree``, ``disagree``, or the run's own class when the check does not score it). :func:`summarize_judged`
counts the outcomes by run class and by packet class.

Chunks: the grid's first two axes lead (one chunk per pair of their values), the other axes are evaluated
together inside a chunk (one :func:`~dwtcp_fluid.judge.run_check` over their settings). A point whose packet or
fluid side raises is ``failed`` (never agreement); the other points of its chunk are kept.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..bounds import Bound
from ..judge import CrossCheck, Tolerances, run_check
from ..judge.classes import PacketClass
from ..judge.tolerance import AGREE, DISAGREE
from ..references import references_attr
from ..registry import Registry
from .engine import Evaluator, SweepPlan, run_plan
from .store import provenance

__all__ = [
    "Axis",
    "Fixed",
    "JudgedSweep",
    "JudgedGrid",
    "JudgedPlan",
    "register_sweep",
    "get_sweep",
    "sweep_laws",
    "run_judged",
    "summarize_judged",
    "FAILED",
    "REPORTED",
    "WITHIN",
]

#: Outcome of a point whose packet or fluid side raised (never agreement).
FAILED = "failed"
#: Verdict of a fluid model the check reports beside the scored ones (not judged).
REPORTED = "reported"
#: ``within`` codes: the tolerance was not measured (its class's set does not hold it), missed, held.
WITHIN = ("not_measured", "missed", "within")
#: Labels of the packet classes (:class:`~dwtcp_fluid.judge.classes.PacketClass`) and of a run without one.
PACKET_CLASSES = tuple(c.label for c in PacketClass) + ("not_classified",)


@dataclass(frozen=True)
class Axis:
    """One axis of a judged grid.

    Parameters
    ----------
    name : str
        The dataset dimension (and the key of the point's values a study's ``setting`` reads).
    flag : str
        Its command-line flag (a flag of :data:`dwtcp_fluid.cli.flags.FLAGS`).
    long_name, units : str
        Its CF attributes.
    bound : Bound
        The accepted range of every value.
    default : tuple of float
        The values when the axis is not given.
    """

    name: str
    flag: str
    long_name: str
    units: str
    bound: Bound
    default: tuple[float, ...]

    def values(self, given: Any = None) -> np.ndarray:
        """``given`` (default :attr:`default`) as sorted distinct floats in range, or ValueError naming the axis."""
        raw = self.default if given is None else given
        arr = np.atleast_1d(np.asarray(raw, dtype=float))
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{self.name}={raw!r} is invalid: accepted a non-empty list of numbers")
        for v in arr:
            self.bound.check(self.name, float(v))
        if np.unique(arr).size != arr.size:
            raise ValueError(f"{self.name}={raw!r} is invalid: accepted distinct values")
        return np.sort(arr)


@dataclass(frozen=True)
class Fixed:
    """A setting shared by every point (a link rate, a base RTT, a run length): its name, flag and default, as text
    with its unit (``"10Gbps"``, ``"100us"``); the study's ``setting`` parses and checks it."""

    name: str
    flag: str
    default: str


@dataclass(frozen=True)
class JudgedSweep:
    """What a study declares so that the engine sweeps its law (see the module docstring).

    Parameters
    ----------
    law : str
        The law (``dwtcp-fluid sweep --law``).
    check : CrossCheck
        The registered cross-check that judges each point.
    axes : tuple of Axis
        The grid axes, in dataset order (at least two: the first two lead the chunks).
    fixed : tuple of Fixed
        The settings shared by every point.
    setting : callable
        ``setting(point, fixed) -> setting of the check``: ``point`` maps each axis name to its value, ``fixed``
        each fixed name to its text.
    options : callable
        ``options(fixed) -> dict``: the options of :func:`~dwtcp_fluid.judge.run_check` (the run length).
    models : tuple of str
        The fluid models the check's fluid side returns (those in ``check.against`` are judged, the others
        reported).
    classes : tuple of str
        Every run class the check's classifier returns (``("scored",)`` for a check without one).
    packet_quantities, fluid_quantities : tuple of (key, long_name, units)
        The summary keys recorded per point from the packet side and from each fluid model.
    packet_class : bool
        The packet side's summary has ``packet_class``, a label of :class:`~dwtcp_fluid.judge.classes.PacketClass`.
    title : str
        The dataset's title.
    """

    law: str
    check: CrossCheck[Any]
    axes: tuple[Axis, ...]
    fixed: tuple[Fixed, ...]
    setting: Callable[[Mapping[str, float], Mapping[str, str]], Any]
    options: Callable[[Mapping[str, str]], dict[str, Any]]
    models: tuple[str, ...]
    classes: tuple[str, ...]
    packet_quantities: tuple[tuple[str, str, str], ...]
    fluid_quantities: tuple[tuple[str, str, str], ...]
    packet_class: bool = False
    title: str = ""

    def __post_init__(self) -> None:
        if len(self.axes) < 2:
            raise ValueError(f"axes of sweep {self.law!r} are invalid: accepted at least two axes")
        names = [a.name for a in self.axes] + ["model", "tolerance_name"]
        if len(set(names)) != len(names):
            raise ValueError(
                f"axes of sweep {self.law!r} are invalid: accepted distinct names other than model, tolerance_name"
            )

    @property
    def outcomes(self) -> tuple[str, ...]:
        """Flag meanings of ``outcome``: agree, disagree, the run classes (a class not scored is its own outcome),
        failed."""
        return (AGREE, DISAGREE, *self.classes, FAILED)

    @property
    def tolerances(self) -> tuple[str, ...]:
        """Names of every tolerance the check states (over all its per-class sets)."""
        t = (
            self.check.stated_tolerances
            if self.check.stated_tolerances is not None
            else self.check.tolerances
        )
        if isinstance(t, Tolerances):
            return t.names
        if isinstance(t, Mapping):
            return tuple(dict.fromkeys(n for s in t.values() for n in s.names))
        raise ValueError(
            f"check {self.check.name!r} states no tolerances: accepted a check with stated_tolerances"
        )


def _accept(sweep: Any) -> JudgedSweep:
    if not isinstance(sweep, JudgedSweep):
        raise TypeError(f"register_sweep takes a JudgedSweep, not {type(sweep).__name__}")
    return sweep


#: The registered judged sweeps, by law (:class:`dwtcp_fluid.registry.Registry`: a plugin's study registers its
#: sweep without editing the package; a second one of the same law replaces the first).
SWEEPS: Registry[JudgedSweep] = Registry("law", lambda sweep: sweep.law, accept=_accept)


def register_sweep(sweep: JudgedSweep) -> JudgedSweep:
    """Register a study's :class:`JudgedSweep` under its law (a second one of the same law replaces the first)."""
    return SWEEPS.register(sweep)


def get_sweep(law: str) -> JudgedSweep:
    """The registered judged sweep of ``law``."""
    if law not in SWEEPS:
        raise ValueError(
            f"law={law!r} is invalid: accepted {' | '.join(sweep_laws()) or 'a registered sweep'}"
        )
    return SWEEPS[law]


def sweep_laws() -> tuple[str, ...]:
    """The laws of the registered judged sweeps, sorted."""
    return tuple(sorted(SWEEPS))


@dataclass(frozen=True)
class JudgedGrid:
    """A study's grid: the values of every axis, the fixed settings and the seed of the packet runs.

    ``axes`` maps axis names to values (an axis not named takes its default); ``fixed`` maps fixed names to text (a
    name not given takes its default). Every value is checked here, before any work: a value out of range, a name
    that is no axis or fixed setting of the sweep, or a setting the study refuses raises ValueError naming it.
    """

    sweep: JudgedSweep
    axes: Mapping[str, Any] = field(default_factory=dict)
    fixed: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0

    def __post_init__(self) -> None:
        sw = self.sweep
        for given, known, what in ((self.axes, [a.name for a in sw.axes], "an axis"),
                                   (self.fixed, [f.name for f in sw.fixed], "a setting")):  # fmt: skip
            unknown = sorted(set(given) - set(known))
            if unknown:
                raise ValueError(
                    f"{unknown[0]}={given[unknown[0]]!r} is invalid: not {what} of the {sw.law} sweep; accepted "
                    + " | ".join(known)
                )
        object.__setattr__(self, "axes", {a.name: a.values(self.axes.get(a.name)) for a in sw.axes})
        object.__setattr__(self, "fixed", {f.name: str(self.fixed.get(f.name, f.default)) for f in sw.fixed})
        if not (isinstance(self.seed, int) and 0 <= self.seed < 2**32):
            raise ValueError(f"seed={self.seed!r} is out of range: accepted an integer 0 <= seed < 2**32")
        sw.setting(
            self.point((0,) * len(sw.axes)), self.fixed
        )  # the study checks its settings once, up front
        sw.options(self.fixed)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.sweep.axes)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.axes[n].size for n in self.names)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def point(self, idx: tuple[int, ...]) -> dict[str, float]:
        """The axis values at index tuple ``idx`` (integers for an integer axis)."""
        out: dict[str, float] = {}
        for a, i in zip(self.sweep.axes, idx, strict=True):
            v = float(self.axes[a.name][i])
            out[a.name] = int(v) if a.bound.integer else v
        return out

    def coords(self) -> dict[str, tuple]:
        return {
            a.name: (a.name, self.axes[a.name].astype(np.int64) if a.bound.integer else self.axes[a.name],
                     {"long_name": a.long_name, "units": a.units})
            for a in self.sweep.axes
        }  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "law": self.sweep.law,
            "check": self.sweep.check.name,
            "axes": {n: v.tolist() for n, v in self.axes.items()},
            "fixed": dict(self.fixed),
            "seed": self.seed,
        }


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


@dataclass(frozen=True)
class JudgedPlan(SweepPlan):
    """The engine's plan over a :class:`JudgedGrid`: chunks along its first two axes, one pair of values each."""

    def lead_sizes(self) -> tuple[int, int]:
        s = self.grid.shape
        return s[0], s[1]

    def dim_sizes(self) -> dict[str, int]:
        sizes = dict(zip(self.grid.names, self.grid.shape, strict=True))
        sizes.update({n: len(v) for n, v in self.extra_coords})
        return sizes

    def chunk_coords(self, ib: int, c: int) -> dict[str, Any]:
        a0, a1 = self.grid.names[:2]
        sl = self.bdp_slice(c)
        return {f"{a0}_index": ib, a0: float(self.grid.axes[a0][ib]), f"{a1}_indices": [sl.start, sl.stop],
                a1: [float(v) for v in self.grid.axes[a1][sl]]}  # fmt: skip

    def describe(self, ib: int, c: int) -> str:
        a0, a1 = self.grid.names[:2]
        sl = self.bdp_slice(c)
        return f"{a0}={self.grid.axes[a0][ib]:g}, {a1} {sl.start}:{sl.stop}"


def make_plan(grid: JudgedGrid) -> JudgedPlan:
    """One evaluator (the check at every point of a chunk), one pair of leading values per chunk."""
    sw = grid.sweep
    ev = Evaluator(f"judged:{sw.law}", _variables(sw), _evaluate)  # type: ignore[arg-type]
    extra = (("model", np.asarray(sw.models)), ("tolerance_name", np.asarray(sw.tolerances)))
    return JudgedPlan(grid, (ev,), chunk_bdp=1, extra_coords=extra)  # type: ignore[arg-type]


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
