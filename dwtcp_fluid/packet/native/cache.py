"""The on-disk cache of the native loop's compiled code, keyed by every source file of the loop.

Numba caches a compiled function next to its source (``__pycache__``) and reuses it while that one file is
unchanged; the loop's entry point inlines functions from the other modules of this package, so a change there
alone would load stale code. This module registers a cache locator that keys the functions of this package by
the hash of all its source files together (Numba's own ``get_source_stamp`` keys by the one file). It must be
imported before the loop's modules (the package ``__init__`` does). If Numba's internals differ from what it
expects, caching of the loop is turned off (correct, only a recompile per process) rather than left stale.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

__all__ = ["source_digest", "INSTALLED"]

_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """sha256 of the package's source files (names and contents, sorted by name)."""
    h = hashlib.sha256()
    for p in sorted(_DIR.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _install() -> bool:
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover (numba is a dependency)
        return False
    base = getattr(caching, "InTreeCacheLocator", None)
    impl = getattr(caching, "CacheImpl", None)
    if base is None or impl is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return False
    if any(getattr(c, "_dwtcp_native", False) for c in impl._locator_classes):
        return True

    class _PackageLocator(base):  # type: ignore[misc, valid-type]
        """Numba's in-tree locator, stamped with the whole package's sources."""

        _dwtcp_native = True

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if Path(py_file).resolve().parent != _DIR:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self) -> Any:
            return (super().get_source_stamp(), source_digest())

    impl._locator_classes.insert(0, _PackageLocator)
    return True


INSTALLED = _install()
