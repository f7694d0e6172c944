"""One tolerance type and one verdict: whether a packet run and a fluid prediction say the same thing.

A :class:`Tolerance` is a stated bound on one measured quantity, written as data: which quantity of which side
(``of``: ``"packet"``, ``"fluid"`` or ``"context"``) is compared with which quantity of which other side
(``against``, None for a bound on one side alone), and the bound:

* a difference: |x − y| ≤ ``abs`` (in ``unit``; divided first by the context quantity ``scale`` when one is named,
  e.g. the buffer B or the threshold K) or |x − y| ≤ ``rel`` · |y| (``relative_to="against"``) or · |x|
  (``relative_to="of"``); with both, either bound suffices; over a vector (one value per flow group or per hop)
  every element must hold;
* a ratio band: ``ratio[0]`` ≤ x / y ≤ ``ratio[1]``;
* a one-sided bound: x ≥ ``at_least`` or x ≤ ``at_most`` (of x − y when ``against`` is given); ``strict`` makes
  it > or <.

A quantity named by a tuple of keys reads a vector (``("rate_1", "rate_2")``). A missing value (None) on a side a
bound needs is outside tolerance (one side oscillates, the other has no period).

:class:`Tolerances` is a check's stated set (indexed by name); :func:`verdict` applies one to a pair of summaries
and a run class. A run whose class says nothing about the law (not stationary, slow start, collapse, an imminence
not held, …) gets its own class as outcome and is never counted as agreement.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["Tolerance", "Tolerances", "Verdict", "verdict", "AGREE", "DISAGREE"]

#: Outcomes of a scored run; a run that is not scored has its class as outcome.
AGREE, DISAGREE = "agree", "disagree"


def _value(side: Mapping[str, Any], key: str | tuple[str, ...]) -> Any:
    """``side[key]`` as a float or an array (a tuple of keys reads a vector); None when any part is missing."""
    if isinstance(key, tuple):
        parts = [side.get(k) for k in key]
        if any(p is None for p in parts):
            return None
        return np.asarray(parts, dtype=float)
    v = side.get(key)
    if v is None:
        return None
    if isinstance(v, list | tuple | np.ndarray):
        return np.asarray(v, dtype=float)
    v = float(v)
    return None if math.isnan(v) else v


@dataclass(frozen=True)
class Tolerance:
    """A stated bound on one measured quantity (see the module docstring for the kinds of bound).

    ``name`` keys the check in a verdict's ``checks`` and ``measured``; ``quantity`` (default ``name``) and
    ``against_quantity`` (default ``quantity``) are keys of the sides' summaries; ``unit`` is the unit of the bound.
    ``scored=False`` reports the measurement without letting it decide the verdict.
    """

    name: str
    unit: str = "1"
    quantity: str | tuple[str, ...] | None = None
    of: str = "packet"
    against: str | None = "fluid"
    against_quantity: str | tuple[str, ...] | None = None
    abs: float | None = None
    rel: float | None = None
    relative_to: str = "against"
    scale: str | None = None
    ratio: tuple[float, float] | None = None
    at_least: float | None = None
    at_most: float | None = None
    strict: bool = False
    scored: bool = True

    def __post_init__(self) -> None:
        kinds = [self.abs is not None or self.rel is not None, self.ratio is not None,
                 self.at_least is not None or self.at_most is not None]  # fmt: skip
        if sum(kinds) != 1:
            raise ValueError(
                f"tolerance {self.name!r} is out of range: accepted exactly one of abs/rel, ratio, at_least/at_most"
            )
        if self.relative_to not in ("against", "of"):
            raise ValueError(f"relative_to={self.relative_to!r} is invalid: accepted 'against' or 'of'")
        if (self.abs is not None or self.rel is not None or self.ratio is not None) and self.against is None:
            raise ValueError(f"tolerance {self.name!r} compares two sides: 'against' is required")

    def replace(self, **changes: Any) -> Tolerance:
        """This tolerance with ``changes`` (e.g. ``scored=False``)."""
        import dataclasses

        return dataclasses.replace(self, **changes)

    @property
    def key(self) -> str | tuple[str, ...]:
        """The summary key (or keys) of the quantity on the ``of`` side."""
        return self.name if self.quantity is None else self.quantity

    def measure(self, sides: Mapping[str, Mapping[str, Any]]) -> tuple[float | None, bool]:
        """(measured value, within the bound) on ``sides`` = {"packet": …, "fluid": …, "context": …}.

        The measured value is the largest difference (``abs`` given), the largest relative difference (``rel``
        alone), the ratio (``ratio``; its extreme over a vector), or the smallest (``at_least``) or largest
        (``at_most``) value. None and False when a value the bound needs is missing.
        """
        x = _value(sides.get(self.of, {}), self.key)
        y = None
        if self.against is not None:
            y = _value(sides.get(self.against, {}), self.against_quantity or self.key)
            if y is None:
                return None, False
        if x is None:
            return None, False
        if self.ratio is not None:
            r = np.asarray(x, float) / np.asarray(y, float)
            lo, hi = self.ratio
            ok = bool(np.all((lo <= r) & (r <= hi)))
            worst = r.flat[int(np.argmax(np.abs(np.log(np.abs(r) + 1e-300))))] if np.ndim(r) else r
            return float(worst), ok
        if self.at_least is not None or self.at_most is not None:
            v = np.asarray(x, float) - (0.0 if y is None else np.asarray(y, float))
            if self.at_least is not None:
                m = float(np.min(v))
                return m, (m > self.at_least) if self.strict else (m >= self.at_least)
            m = float(np.max(v))
            assert self.at_most is not None
            return m, (m < self.at_most) if self.strict else (m <= self.at_most)
        d = np.abs(np.asarray(x, float) - np.asarray(y, float))
        if self.scale is not None:
            s = _value(sides.get("context", {}), self.scale)
            if s is None:
                raise KeyError(f"tolerance {self.name!r}: the context has no scale {self.scale!r}")
            d = d / np.asarray(s, float)
        ok = np.zeros(np.shape(d), bool)
        if self.abs is not None:
            ok |= d <= self.abs
        r = None
        if self.rel is not None:
            base = np.abs(np.asarray(y if self.relative_to == "against" else x, float))
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.where(base > 0, d / np.where(base > 0, base, 1.0), np.where(d > 0, np.inf, 0.0))
            ok |= r <= self.rel
        m = float(np.max(d)) if self.abs is not None else float(np.max(r))
        return m, bool(np.all(ok))

    def in_units(self, value: float) -> tuple[float, str]:
        """A value :meth:`measure` returned, with its unit for a reader: a relative difference (``rel`` alone) in
        percent, a ratio with "×", a difference or a bounded value in the tolerance's unit (none for "1")."""
        if self.ratio is not None:
            return value, "×"
        if (
            self.abs is None
            and self.rel is not None
            and not (self.at_least is not None or self.at_most is not None)
        ):
            return 100.0 * value, " %"
        return value, "" if self.unit == "1" else f" {self.unit}"

    def describe(self) -> str:
        """The bound in words (for tables and documents): ``name: |packet q − fluid q| ≤ 10 packets``."""

        def term(side: str | None, key: Any) -> str:
            k = key if isinstance(key, str) else "/".join(key)
            return k if side == "context" else f"{side} {k}"

        x = term(self.of, self.key)
        y = term(self.against, self.against_quantity or self.key) if self.against else ""
        if self.ratio is not None:
            return f"{self.name}: {self.ratio[0]:g} ≤ ({x}) / ({y}) ≤ {self.ratio[1]:g}"
        if self.at_least is not None or self.at_most is not None:
            op = (">" if self.strict else "≥") if self.at_least is not None else ("<" if self.strict else "≤")
            b = self.at_least if self.at_least is not None else self.at_most
            lhs = x if not y else f"{x} − {y}"
            return f"{self.name}: {lhs} {op} {b:g} {self.unit if self.unit != '1' else ''}".rstrip()
        parts = []
        if self.abs is not None:
            unit = "" if self.unit == "1" else f" {self.unit}"
            parts.append(f"{self.abs:g} × {self.scale}" if self.scale else f"{self.abs:g}{unit}")
        if self.rel is not None:
            parts.append(
                f"{self.rel:.0%} of the {self.against if self.relative_to == 'against' else self.of}"
            )
        return f"{self.name}: |{x} − {y}| ≤ " + " or ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set (JSON-ready)."""
        d = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items() if v is not None}
        d = {k: v for k, v in d.items() if not (k == "scored" and v) and not (k == "strict" and not v)}
        if d.get("relative_to") == "against" and self.rel is None:
            d.pop("relative_to")
        return d


@dataclass(frozen=True)
class Tolerances(Sequence[Tolerance]):
    """A check's stated tolerances: an ordered set of :class:`Tolerance`, indexed by position or by name."""

    items: tuple[Tolerance, ...]

    def __init__(self, *items: Tolerance) -> None:
        names = [t.name for t in items]
        if len(set(names)) != len(names):
            raise ValueError(f"tolerance names {names} are invalid: accepted distinct names")
        object.__setattr__(self, "items", tuple(items))

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Tolerance]:
        return iter(self.items)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for t in self.items:
                if t.name == key:
                    return t
            raise KeyError(key)
        return self.items[key]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.items)

    def replace(self, *items: Tolerance) -> Tolerances:
        """This set with the tolerances of the same names replaced (and new ones appended)."""
        new = {t.name: t for t in items}
        out = [new.pop(t.name, t) for t in self.items]
        return Tolerances(*out, *new.values())

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        """Every bound in words, separated by "; "."""
        return "; ".join(t.describe() for t in self.items)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """name → the tolerance's fields (JSON-ready)."""
        return {t.name: t.to_dict() for t in self.items}


@dataclass(frozen=True)
class Verdict:
    """What :func:`verdict` says of one run.

    ``outcome``: ``"agree"``, ``"disagree"`` or the run's own class when it is not scored; ``agree`` is True only
    for ``"agree"`` (a run that is not scored is never agreement); ``passed`` is None when not scored;
    ``checks`` and ``measured`` per tolerance name (every tolerance is measured, scored or not).
    """

    outcome: str
    run_class: str | None
    checks: dict[str, bool] = field(default_factory=dict)
    measured: dict[str, float | None] = field(default_factory=dict)
    scored: tuple[str, ...] = ()

    @property
    def agree(self) -> bool:
        return self.outcome == AGREE

    @property
    def passed(self) -> bool | None:
        return None if self.outcome not in (AGREE, DISAGREE) else self.outcome == AGREE

    @property
    def failed(self) -> list[str]:
        """Names of the scored tolerances that are missed."""
        return [k for k in self.scored if not self.checks[k]]

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "class": self.run_class, "checks": dict(self.checks),
                "measured": dict(self.measured), "scored": list(self.scored)}  # fmt: skip


def verdict(
    tolerances: Tolerances | Sequence[Tolerance],
    packet: Mapping[str, Any],
    fluid: Mapping[str, Any],
    *,
    context: Mapping[str, Any] | None = None,
    run_class: str | None = None,
    scored_classes: Sequence[str] | None = None,
) -> Verdict:
    """The one verdict of a cross-check: every tolerance measured on (packet, fluid, context); the outcome is
    ``"agree"`` when every scored tolerance holds, ``"disagree"`` when one is missed, and ``run_class`` itself
    when that class is not in ``scored_classes`` (None: every class is scored) — a run that is not stationary,
    in slow start or collapsed says nothing about the law, and is never counted as agreement."""
    sides = {"packet": packet, "fluid": fluid, "context": context or {}}
    checks, measured = {}, {}
    for t in tolerances:
        measured[t.name], checks[t.name] = t.measure(sides)
    scored = tuple(t.name for t in tolerances if t.scored)
    if run_class is not None and scored_classes is not None and run_class not in scored_classes:
        return Verdict(run_class, run_class, checks, measured, scored)
    status = fluid.get("status", "ok")
    if isinstance(status, str) and status != "ok":  # the model's solver failed: a miss, whatever was measured
        return Verdict(DISAGREE, run_class, {}, {}, ())
    ok = all(checks[k] for k in scored)
    return Verdict(AGREE if ok else DISAGREE, run_class, checks, measured, scored)
