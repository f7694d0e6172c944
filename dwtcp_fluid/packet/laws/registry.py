"""The law registry: law classes by name, and listeners told of every registration (the command line)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .base import Law

__all__ = ["LAWS", "register_law", "on_register", "law_names", "get_law"]

LAWS: dict[str, type[Law]] = {}
_LISTENERS: list[Callable[[type[Law]], None]] = []
_L = TypeVar("_L", bound=type[Law])


def register_law(cls: _L) -> _L:
    """Class decorator: make ``cls`` available by ``cls.name`` (a later registration of the name replaces it)."""
    if not (isinstance(cls, type) and issubclass(cls, Law)) or cls.name == Law.name:
        raise ValueError(f"law={cls!r} is invalid: accepted a Law subclass with its own name")
    LAWS[cls.name] = cls
    for fn in list(_LISTENERS):
        fn(cls)
    return cls


def on_register(fn: Callable[[type[Law]], None]) -> None:
    """Call ``fn(cls)`` whenever a law is registered (the command line rebuilds ``packet run``)."""
    _LISTENERS.append(fn)


def law_names() -> tuple[str, ...]:
    """Registered law names, in registration order."""
    return tuple(LAWS)


def get_law(name: str, **options: Any) -> Law:
    """The law called ``name`` with its static options, e.g. ``get_law("dctcp", reduction="immediate")``."""
    if name not in LAWS:
        raise ValueError(f"law={name!r} is invalid: accepted one of {', '.join(LAWS)}")
    return LAWS[name](**options)
