"""A registered figure: a data builder, a plotter and numeric claims (the records the recipes register).

Recipe modules (one per capability, in this package) call :func:`register` when imported;
:mod:`.catalog` imports them all and builds or checks the figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..registry import Registry

__all__ = ["Claim", "Figure", "ClaimResult", "FigureResult", "register", "registered"]


@dataclass(frozen=True)
class Claim:
    """A numeric statement a figure supports. ``check(data) -> (passed, measured text)``."""

    text: str
    check: Callable[[Any], tuple[bool, str]]


@dataclass(frozen=True)
class Figure:
    """A registered figure: ``build(quick) -> data`` (deterministic), ``plot(data) -> Figure``, claims.

    ``slow``: its build takes minutes of CPU (a grid of model runs, a packet campaign). ``figures --check --tier
    fast`` (``make test``) leaves it out; ``make test-all`` and CI (``.ci/run``) check every figure."""

    name: str
    title: str
    build: Callable[[bool], Any]
    plot: Callable[[Any], Any]
    claims: tuple[Claim, ...] = field(default_factory=tuple)
    slow: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "claims", tuple(self.claims))


@dataclass(frozen=True)
class ClaimResult:
    text: str
    passed: bool
    measured: str


@dataclass(frozen=True)
class FigureResult:
    name: str
    path: Path
    claims: tuple[ClaimResult, ...]
    image_ok: bool | None = None
    image_message: str = ""
    seconds: float = 0.0  # wall time of the build (data, claims, drawing)

    @property
    def ok(self) -> bool:
        return all(c.passed for c in self.claims) and self.image_ok is not False


#: name → figure, in registration order (:class:`dwtcp_fluid.registry.Registry`: a plugin's figure registers
#: without editing the package; registering a name again replaces it, so modules can be re-imported).
FIGURES: Registry[Figure] = Registry("figure", lambda fig: fig.name)


def register(fig: Figure) -> Figure:
    """Register a figure (idempotent for the same name, so modules can be re-imported)."""
    return FIGURES.register(fig)


def registered() -> dict[str, Figure]:
    """The figures registered so far, by name."""
    return dict(sorted(FIGURES.items()))
