"""The cross-check: a packet run judged against fluid predictions, written once for every protocol.

A :class:`CrossCheck` is data: its settings, the packet side (a callable, one run per setting), the fluid side
(a callable over all settings, so that a batched solver runs them at once; it returns, per setting, one summary
per fluid model), the run classifier, the context (scales and references the tolerances read) and the stated
tolerances (one :class:`~dwtcp_fluid.judge.tolerance.Tolerances`, or a callable choosing one per setting and
run). :func:`run_check` runs it and returns a :class:`CheckResult` (the package's result protocol: ``status``,
``summary()``, ``to_dataset()``, ``plot()``); :func:`judge` applies the check's verdict to sides computed
elsewhere. Checks register with :func:`register_check` (a decorator on a function returning the check, or a call
on the check), and ``packet compare-fluid --law X`` finds the check that serves law X in the registry.

A side returns its summary (a dict of numbers), or ``{"summary": …, …}`` with traces or anything else the check's
``row`` (its JSON row) or figure needs beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

from ..registry import Registry
from ..results import Result, Status, Summary, new_axes
from .tolerance import AGREE, DISAGREE, Tolerances, Verdict, verdict

__all__ = [
    "CrossCheck",
    "fluid_row",
    "CheckRow",
    "CheckResult",
    "CheckSummary",
    "run_check",
    "judge",
    "register_check",
    "get_check",
    "check_names",
    "check_for_law",
    "compare_laws",
]

S = TypeVar("S")


def summary_of(side: Mapping[str, Any]) -> Mapping[str, Any]:
    """The summary of a side's return value (see the module docstring)."""
    s = side.get("summary") if isinstance(side, Mapping) else None
    return s if isinstance(s, Mapping) else side


@dataclass(frozen=True)
class CrossCheck(Generic[S]):
    """One cross-check of the packet core against fluid models.

    Parameters
    ----------
    name : str
        Registry name.
    claim : str
        What agreement means, in one line (with the paper's tags).
    settings : tuple
        The settings scored by default (any frozen objects of the study).
    packet : callable
        ``packet(setting, seed=…, **options)``: one packet run's side.
    fluid : callable
        ``fluid(settings, packets, **options)``: per setting, ``{model name: side}`` (``packets`` are the packet
        sides, for models that sample on the packet run's grid).
    tolerances : Tolerances, dict or callable
        The stated tolerances; a dict run class → Tolerances (the class picks the set); or
        ``tolerances(setting, packet, fluid)`` choosing a set per run and model (a law's set, a regime's set; the
        sides' summaries).
    classify : callable, optional
        ``classify(setting, packet, fluid_sides)`` → the run class; None: every run is ``"scored"``.
    scored_classes : tuple of str, optional
        The classes that are scored (None: all); other classes are their own outcome, never agreement.
    context : callable, optional
        ``context(setting, packet, model)`` → the scales, references and derived quantities the tolerances read
        (K, B, 1/N, …), per scored model (``model``: that model's side).
    against : tuple of str, optional
        The fluid models scored (None: every model of the fluid side); the others are reported.
    laws : tuple of str
        The ``packet compare-fluid --law`` names this check serves.
    columns : tuple of (header, key, factor)
        The quantities of the compare-fluid table (header with its unit, summary key, factor to the header's unit).
    row : callable, optional
        ``row(check_row)`` → the JSON row of one setting in the compare-fluid document (default
        :meth:`CheckRow.to_dict`).
    label : callable, optional
        ``label(setting)`` → its name in tables (default the setting's ``name`` or ``str``).
    document : dict or callable
        Extra keys of the compare-fluid document, or ``document(options)`` → them.
    settings_from : callable, optional
        ``settings_from(**flags)`` → settings, for a check whose settings come from the command line.
    stated_tolerances : Tolerances or dict of Tolerances, optional
        What the document states when ``tolerances`` is a callable: the whole set, or the named sets it chooses
        among.
    model_labels : dict
        Display names of fluid models in tables (default the model's key).
    figure : callable, optional
        ``figure(result)`` → the compare-fluid overlay figure of a :class:`CheckResult`.
    """

    name: str
    claim: str
    settings: tuple[S, ...]
    packet: Callable[..., Mapping[str, Any]]
    fluid: Callable[..., Sequence[Mapping[str, Mapping[str, Any]]]]
    tolerances: Tolerances | Mapping[str, Tolerances] | Callable[..., Tolerances]
    classify: Callable[..., str] | None = None
    scored_classes: tuple[str, ...] | None = None
    context: Callable[..., Mapping[str, Any]] | None = None
    against: tuple[str, ...] | None = None
    laws: tuple[str, ...] = ()
    columns: tuple[tuple[str, str, float], ...] = ()
    row: Callable[[CheckRow], dict[str, Any]] | None = None
    label: Callable[[S], str] | None = None
    document: dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]] = field(default_factory=dict)
    settings_from: Callable[..., tuple[S, ...]] | None = None
    stated_tolerances: Tolerances | dict[str, Tolerances] | None = None
    model_labels: dict[str, str] = field(default_factory=dict)
    figure: Callable[[CheckResult], Any] | None = None

    def replace(self, **changes: Any) -> CrossCheck[S]:
        return dataclasses.replace(self, **changes)

    def name_of(self, setting: S | None) -> str:
        if setting is None:
            return ""
        if self.label is not None:
            return self.label(setting)
        return str(getattr(setting, "name", setting))

    def tolerances_for(
        self, setting: S, packet: Mapping[str, Any], fluid: Mapping[str, Any], run_class: str | None = None
    ) -> Tolerances:
        """The tolerances that judge one run against one model (by class: a class that is not scored needs none;
        a scored class the dict does not name is an error, never an empty set that always agrees)."""
        t = self.tolerances
        if isinstance(t, Tolerances):
            return t
        if isinstance(t, Mapping):
            if run_class in t:
                return t[run_class]
            if self.scored_classes is not None and run_class not in self.scored_classes:
                return Tolerances()
            raise KeyError(f"check {self.name!r} states no tolerances for the run class {run_class!r}")
        return t(setting, packet, fluid)

    def stated(self) -> dict[str, Any]:
        """The stated tolerances as a document: :attr:`stated_tolerances` when given, else the fixed set or the
        sets by run class (name → bound, or set name → its bounds)."""
        t = self.stated_tolerances if self.stated_tolerances is not None else self.tolerances
        if isinstance(t, Tolerances):
            return t.to_dict()
        if isinstance(t, Mapping):
            return {k: v.to_dict() for k, v in t.items()}
        return {}


@dataclass
class CheckRow:
    """One setting of a check: the run class, both sides (as returned), a verdict and the context per scored
    fluid model."""

    check: str
    setting: Any
    name: str
    run_class: str | None
    packet: Mapping[str, Any]
    fluid: Mapping[str, Mapping[str, Any]]
    verdicts: dict[str, Verdict]
    context: dict[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def agree(self) -> bool:
        """Every scored model agrees (a run that is not scored never agrees)."""
        return bool(self.verdicts) and all(v.agree for v in self.verdicts.values())

    @property
    def outcome(self) -> str:
        """``"agree"``, ``"disagree"`` or the run's own class."""
        outs = {v.outcome for v in self.verdicts.values()}
        if outs == {AGREE}:
            return AGREE
        if DISAGREE in outs:
            return DISAGREE
        return self.run_class or DISAGREE

    def to_dict(self) -> dict[str, Any]:
        return {
            "setting": self.name,
            "class": self.run_class,
            "packet": dict(summary_of(self.packet)),
            "fluid": {k: dict(summary_of(v)) for k, v in self.fluid.items()},
            "verdicts": {k: v.to_dict() for k, v in self.verdicts.items()},
            "agree": self.agree,
        }


@dataclass(frozen=True)
class CheckSummary(Summary):
    """Counts of a check's outcomes: settings, scored runs, agreements, disagreements and the own classes."""

    check: str
    settings: int
    scored: int
    agree: int
    disagree: int
    own_classes: dict[str, int]
    failed: dict[str, list[str]]


@dataclass
class CheckResult(Result):
    """The rows of one :func:`run_check` (one per setting), in the result protocol.

    ``status`` is :attr:`Status.OK` for every setting that ran (a run's disagreement is a finding, not a failure);
    ``messages`` says each row's outcome.
    """

    check: CrossCheck[Any]
    rows: list[CheckRow]
    status: np.ndarray = field(init=False)
    messages: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.status = np.full(len(self.rows), int(Status.OK), dtype=np.int32)
        self.messages = [r.outcome for r in self.rows]

    @property
    def agree(self) -> bool:
        """Every setting agrees."""
        return all(r.agree for r in self.rows)

    def summary(self) -> CheckSummary:
        own: dict[str, int] = {}
        for r in self.rows:
            if r.outcome not in (AGREE, DISAGREE):
                own[r.outcome] = own.get(r.outcome, 0) + 1
        return CheckSummary(
            check=self.check.name,
            settings=len(self.rows),
            scored=sum(r.outcome in (AGREE, DISAGREE) for r in self.rows),
            agree=sum(r.outcome == AGREE for r in self.rows),
            disagree=sum(r.outcome == DISAGREE for r in self.rows),
            own_classes=own,
            failed={r.name: sorted({k for v in r.verdicts.values() for k in v.failed}) for r in self.rows},
        )

    def to_dataset(self) -> Any:
        """One element per (setting, scored model): the outcome and every tolerance's measured value and check."""
        import xarray as xr

        from .._provenance import provenance_attrs

        elems = [(r, m, v) for r in self.rows for m, v in r.verdicts.items()]
        names = sorted({k for _, _, v in elems for k in v.measured})
        data: dict[str, Any] = {
            "setting": ("element", [r.name for r, _, _ in elems]),
            "model": ("element", [m for _, m, _ in elems]),
            "outcome": ("element", [v.outcome for _, _, v in elems]),
        }
        for k in names:
            vals = [v.measured.get(k) for _, _, v in elems]
            data[f"measured_{k}"] = ("element", [np.nan if x is None else float(x) for x in vals])
            data[f"within_{k}"] = ("element", [bool(v.checks.get(k, False)) for _, _, v in elems])
        ds = xr.Dataset(data)
        ds.attrs.update(provenance_attrs())
        ds.attrs["check"] = self.check.name
        ds.attrs["claim"] = self.check.claim
        return ds

    def plot(self, ax: Any = None) -> Any:
        """Outcome per setting and model: green agree, red disagree, grey a class that is not scored."""
        ax = new_axes(ax)
        colors = {AGREE: "tab:green", DISAGREE: "tab:red"}
        labels = []
        for i, r in enumerate(self.rows):
            for j, v in enumerate(r.verdicts.values()):
                ax.scatter([j], [i], s=120, color=colors.get(v.outcome, "0.6"))
                ax.annotate(v.outcome, (j, i), textcoords="offset points", xytext=(8, -3), fontsize=7)
            labels.append(r.name)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        models = list(self.rows[0].verdicts) if self.rows else []
        ax.set_xticks(range(len(models)), models, fontsize=7)
        ax.set_title(f"{self.check.name}: packet core vs fluid model")
        return ax


def fluid_row(r: CheckRow) -> dict[str, Any]:
    """The compare-fluid JSON row of a check whose fluid side is one model named ``"fluid"``: the setting, its run
    class, that model's checks (none where the class is not scored), the verdict and both sides' summaries."""
    return {
        "setting": r.name,
        "class": r.run_class,
        "checks": r.verdicts["fluid"].checks if "fluid" in r.verdicts else {},
        "agree": r.agree,
        "packet": r.packet,
        "fluid": r.fluid["fluid"],
    }


def judge(
    check: CrossCheck[Any],
    setting: Any,
    packet: Mapping[str, Any],
    fluid: Mapping[str, Mapping[str, Any]],
) -> CheckRow:
    """The check's verdict on sides computed elsewhere: class, context, then one :func:`verdict` per scored model."""
    pk = summary_of(packet)
    run_class = check.classify(setting, packet, fluid) if check.classify else None
    models = check.against if check.against is not None else tuple(fluid)
    verdicts, contexts = {}, {}
    for m in models:
        fl = summary_of(fluid[m])
        ctx = contexts[m] = dict(check.context(setting, packet, fluid[m])) if check.context else {}
        verdicts[m] = verdict(
            check.tolerances_for(setting, pk, fl, run_class), pk, fl, context=ctx, run_class=run_class,
            scored_classes=check.scored_classes,
        )  # fmt: skip
    return CheckRow(check.name, setting, check.name_of(setting), run_class, packet, fluid, verdicts, contexts)


def run_check(
    check: CrossCheck[S],
    settings: Sequence[S] | None = None,
    *,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> CheckResult:
    """Every setting (default the check's) through the packet core and the fluid side, judged.

    ``options`` go to both sides (e.g. a fluid solver); ``progress(done, total)`` counts the packet runs.
    """
    sets = tuple(check.settings if settings is None else settings)
    packets = []
    for i, s in enumerate(sets):
        if progress:
            progress(i, len(sets))
        packets.append(check.packet(s, seed=seed, **options))
    if progress:
        progress(len(sets), len(sets))
    fluids = check.fluid(sets, packets, **options)
    rows = [judge(check, s, p, f) for s, p, f in zip(sets, packets, fluids, strict=True)]
    return CheckResult(check, rows)


def _accept(check: Any) -> CrossCheck[Any]:
    if isinstance(check, CrossCheck):
        return check
    if callable(check):
        made = check()
        if not isinstance(made, CrossCheck):
            raise TypeError(f"{check.__name__} returned {type(made).__name__}, not a CrossCheck")
        return made
    raise TypeError(
        f"register_check takes a CrossCheck or a function returning one, not {type(check).__name__}"
    )


#: The registered checks, by name (:class:`dwtcp_fluid.registry.Registry`: a plugin's check registers without
#: editing the package).
CHECKS: Registry[CrossCheck[Any]] = Registry("check", lambda c: c.name, accept=_accept)


def register_check(check: Any) -> Any:
    """Register a :class:`CrossCheck` (called on it) or the check a function returns (as a decorator); returns
    what it was given. A second check of the same name replaces the first."""
    return CHECKS.register(check)


def get_check(name: str) -> CrossCheck[Any]:
    """The registered check ``name``."""
    return CHECKS.get_entry(name)


def check_names() -> tuple[str, ...]:
    """The registered checks' names, in registration order."""
    return CHECKS.names()


def check_for_law(law: str) -> CrossCheck[Any]:
    """The registered check that serves ``packet compare-fluid --law law``."""
    for c in CHECKS.values():
        if law in c.laws:
            return c
    raise ValueError(f"law={law!r} is invalid: accepted {' | '.join(compare_laws())}")


def compare_laws() -> tuple[str, ...]:
    """Every law some registered check serves, in registration order."""
    return tuple(law for c in CHECKS.values() for law in c.laws)
