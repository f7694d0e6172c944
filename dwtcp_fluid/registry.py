"""One registry idiom for everything a user may add: fluid models, packet laws, cross-checks and figures.

Each registry is a read-only mapping name → entry with a ``register`` method that works as a call or as a decorator
(``@register_law`` on a class, ``register_check(check)``), one error for an unknown name ("law='x' is invalid:
accepted a | b"), and listeners told of every registration (the command line rebuilds ``packet run --law``).

A user's own model, law, check or figure registers **without editing the package**: a distribution that declares
an entry point in the group ``dwtcp_fluid.plugins`` names a module; the first time any registry is read, every such
module is imported, and its module-level ``register_*`` calls run. In ``pyproject.toml``::

    [project.entry-points."dwtcp_fluid.plugins"]
    my_law = "my_package.my_law"

A plugin that fails to import is reported once as a warning naming the plugin and its error; the registries go on
without it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

__all__ = ["Registry", "PLUGIN_GROUP", "load_plugins", "loaded_plugins"]

T = TypeVar("T")

#: The entry-point group whose modules are imported before any registry is first read.
PLUGIN_GROUP = "dwtcp_fluid.plugins"

_PLUGINS: dict[str, str] = {}  # entry-point name → "ok" or the one-line error
_LOADING = False
_LOADED = False


def load_plugins() -> dict[str, str]:
    """Import every module named in the ``dwtcp_fluid.plugins`` entry-point group (once per process); returns
    entry-point name → ``"ok"`` or the error that stopped it."""
    global _LOADING, _LOADED
    if _LOADED or _LOADING:
        return dict(_PLUGINS)
    _LOADING = True
    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group=PLUGIN_GROUP):
            try:
                ep.load()
                _PLUGINS[ep.name] = "ok"
            except Exception as exc:  # a user's plugin: report it and go on
                _PLUGINS[ep.name] = f"{type(exc).__name__}: {exc}"
                warnings.warn(
                    f"dwtcp_fluid plugin {ep.name!r} ({ep.value}) was not loaded: {_PLUGINS[ep.name]}",
                    RuntimeWarning,
                    stacklevel=2,
                )
        _LOADED = True
    finally:
        _LOADING = False
    return dict(_PLUGINS)


def loaded_plugins() -> dict[str, str]:
    """The plugins imported so far (entry-point name → ``"ok"`` or its error)."""
    return dict(_PLUGINS)


class Registry(Mapping[str, T], Generic[T]):
    """Entries of one kind by name, in registration order.

    Parameters
    ----------
    kind : str
        The word in messages ("law", "model", "check", "figure").
    key : callable
        The name of an entry (``lambda cls: cls.name``).
    accept : callable, optional
        Turns what ``register`` is given into the entry, raising ``ValueError`` with a one-line message when it is
        not one (default: the argument itself).
    replace : bool
        Whether a second registration of a name replaces the first (True) or is refused (False).
    """

    def __init__(
        self,
        kind: str,
        key: Callable[[T], str],
        *,
        accept: Callable[[Any], T] | None = None,
        replace: bool = True,
    ) -> None:
        self.kind = kind
        self._key = key
        self._accept = accept
        self._replace = replace
        self._entries: dict[str, T] = {}
        self._listeners: list[Callable[[T], None]] = []

    # -- adding -------------------------------------------------------------------------------------------------------
    def register(self, item: Any) -> Any:
        """Add ``item`` (or what ``accept`` makes of it) under its name; returns ``item``, so it serves as a
        decorator."""
        entry = self._accept(item) if self._accept is not None else item
        name = self._key(entry)
        if not self._replace and name in self._entries:
            raise ValueError(f"{self.kind}={name!r} is invalid: already registered")
        self._entries[name] = entry
        for fn in list(self._listeners):
            fn(entry)
        return item

    def on_register(self, fn: Callable[[T], None]) -> None:
        """Call ``fn(entry)`` on every later registration."""
        self._listeners.append(fn)

    # -- reading (plugins load on the first read) ---------------------------------------------------------------------
    def _read(self) -> dict[str, T]:
        if not _LOADED:
            load_plugins()
        return self._entries

    def get_entry(self, name: str) -> T:
        """The entry called ``name``; an unknown name is a one-line ``ValueError`` listing the accepted ones."""
        entries = self._read()
        if name not in entries:
            raise ValueError(f"{self.kind}={name!r} is invalid: accepted one of {', '.join(entries)}")
        return entries[name]

    def names(self) -> tuple[str, ...]:
        """Registered names, in registration order."""
        return tuple(self._read())

    def __getitem__(self, name: str) -> T:
        return self._read()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(self._read()))

    def __len__(self) -> int:
        return len(self._read())

    def __contains__(self, name: object) -> bool:
        return name in self._read()

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._entries)})"
