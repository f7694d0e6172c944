"""The judged sweep: any study's grid through its fluid predictors and the packet judge, point by point.

A study declares a :class:`JudgedSweep`: the law, its registered :class:`~dwtcp_fluid.judge.CrossCheck`, the grid
axes (:class:`Axis`: a name, the command-line flag, a range and a default), the fixed settings (:class:`Fixed`:
link, run length), how a point and the fixed settings make one setting of the check, the fluid models the check's
fluid side returns, the run classes its classifier names and the summary quantities recorded. It registers with
:func:`register_sweep`. :func:`.study_run.run_judged` does the rest, for every law alike: the grid (:class:`JudgedGrid`)
on the chunked engine (:mod:`.engine`: in-process or Dask, a resumable Zarr store with a checksum per chunk),
every chunk through :func:`~dwtcp_fluid.judge.run_check` (the packet side per setting, the fluid side batched
over the chunk, the check's own verdict), and a dataset with, per point: the packet run's quantities and class,
each fluid model's prediction, the verdict per model with every tolerance's measured value, and the outcome
(``agree``, ``disagree``, or the run's own class when the check does not score it). :func:`.study_run.summarize_judged`
counts the outcomes by run class and by packet class.

Chunks: the grid's first two axes lead (one chunk per pair of their values), the other axes are evaluated
together inside a chunk (one :func:`~dwtcp_fluid.judge.run_check` over their settings). A point whose packet or
fluid side raises is ``failed`` (never agreement); the other points of its chunk are kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bounds import Bound
from ..judge import CrossCheck, Tolerances
from ..judge.classes import PacketClass
from ..judge.tolerance import AGREE, DISAGREE
from ..params import BOUNDS
from ..registry import Registry
from ..units import parse_time

__all__ = [
    "Axis",
    "Fixed",
    "JudgedSweep",
    "JudgedGrid",
    "register_sweep",
    "get_sweep",
    "sweep_laws",
    "run_duration",
    "flows_axis",
    "rtt_axis",
    "split_flows",
    "MIN_RUN_RTTS",
    "MAX_RUN_SECONDS",
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
        each fixed name to its text. It refuses a setting it cannot run (ValueError naming the parameter): the grid
        calls it at its corners before any work (:func:`run_duration` checks a run length).
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


#: A point's run is at least this many base RTTs unless its study says otherwise: a check compares the last half,
#: and the judge's classifier reads at least 20 RTTs there.
MIN_RUN_RTTS = 40.0
#: The longest run of a sweep point (s) unless its study says otherwise.
MAX_RUN_SECONDS = 10.0


def run_duration(
    text: str,
    d: float,
    *,
    min_rtts: float = MIN_RUN_RTTS,
    max_rtts: float | None = None,
    max_seconds: float | None = MAX_RUN_SECONDS,
    example: str = "20ms",
) -> float:
    """A sweep point's run length ``text`` (``"40ms"``) in seconds, checked against the point's base RTT ``d`` (s):
    at least ``min_rtts`` base RTTs (the check compares a last part of the run), at most ``max_rtts`` base RTTs or
    ``max_seconds``. ValueError naming ``duration``, its value and the accepted range otherwise: the one check of
    the ``duration`` setting every study's ``setting``/``options`` makes."""
    try:
        T = parse_time(text)
    except ValueError:
        raise ValueError(f"duration={text!r} is invalid: accepted a time such as {example!r}") from None
    lo = min_rtts * d
    hi = max_rtts * d if max_rtts is not None else max_seconds
    if not (lo <= T and (hi is None or T <= hi)):
        upper = (
            ""
            if hi is None
            else f" <= {max_rtts:g} base RTTs ({hi:g} s)"
            if max_rtts is not None
            else f" <= {hi:g} s"
        )
        raise ValueError(
            f"duration={text!r} is out of range: accepted {min_rtts:g} base RTTs ({lo * 1e3:g} ms) <= duration"
            + upper
            + f" at the base RTT {d * 1e6:g} µs"
        )
    return T


def flows_axis(default: tuple[float, ...], *, groups: int = 1) -> Axis:
    """The axis N (``--flows``, :data:`~dwtcp_fluid.params.BOUNDS`' range) with its ``default`` values; with
    ``groups`` > 1, N flows split into that many groups that start apart (:func:`split_flows`), at least one each."""
    b = BOUNDS["flows"]
    if groups > 1:
        b = Bound(groups, b.hi, integer=True, why=f"flows in {groups} groups that start apart")
    return Axis("flows", "--flows", "number of flows N", "1", b, default)


def rtt_axis(default: tuple[float, ...]) -> Axis:
    """The axis d (``--rtt``, times with their unit): the base RTT, which is the feedback delay, in seconds."""
    return Axis("rtt", "--rtt", "base RTT d (the feedback delay)", "s", BOUNDS["rtt"], default)


def split_flows(n: int, groups: int = 2) -> tuple[int, ...]:
    """``n`` flows in ``groups`` groups, as even as whole flows allow (the later groups take the remainder)."""
    return tuple(n // groups + (1 if i >= groups - n % groups else 0) for i in range(groups))


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
        # the study checks its settings up front, at the grid's corners (the extremes of every axis)
        for corner in itertools.product(*({0, n - 1} for n in self.shape)):
            sw.setting(self.point(tuple(corner)), self.fixed)
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

    def dims(self) -> dict[str, int]:
        """The engine's grid protocol (:class:`~.engine.Grid`): every axis and its size, in dataset order."""
        return dict(zip(self.names, self.shape, strict=True))

    def lead(self) -> tuple[tuple[str, np.ndarray], tuple[str, np.ndarray]]:
        """The two leading axes (the chunks' axes) as ``(name, values)``."""
        a0, a1 = self.names[:2]
        return (a0, self.axes[a0]), (a1, self.axes[a1])

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
