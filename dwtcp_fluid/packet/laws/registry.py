"""The law registry: law classes by name (:class:`dwtcp_fluid.registry.Registry`, so a plugin's law registers
without editing the package), and listeners told of every registration (the command line)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ...registry import Registry
from .base import Law

__all__ = ["LAWS", "register_law", "on_register", "law_names", "get_law"]


def _accept(cls: Any) -> type[Law]:
    if not (isinstance(cls, type) and issubclass(cls, Law)) or cls.name == Law.name:
        raise ValueError(f"law={cls!r} is invalid: accepted a Law subclass with its own name")
    return cls


#: name → law class, in registration order (a later registration of a name replaces it).
LAWS: Registry[type[Law]] = Registry("law", lambda cls: cls.name, accept=_accept)

_L = TypeVar("_L", bound=type[Law])


def register_law(cls: _L) -> _L:
    """Class decorator: make ``cls`` available by ``cls.name`` (a later registration of the name replaces it)."""
    return LAWS.register(cls)


def on_register(fn: Callable[[type[Law]], None]) -> None:
    """Call ``fn(cls)`` whenever a law is registered (the command line rebuilds ``packet run``)."""
    LAWS.on_register(fn)


def law_names() -> tuple[str, ...]:
    """Registered law names, in registration order."""
    return LAWS.names()


def get_law(name: str, **options: Any) -> Law:
    """The law called ``name`` with its static options, e.g. ``get_law("dctcp", reduction="immediate")``."""
    return LAWS.get_entry(name)(**options)
