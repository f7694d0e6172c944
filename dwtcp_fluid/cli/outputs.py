"""Every output location of the CLI, checked before any work starts (one module, one set of rules).

A command names its outputs first (a directory with the files it will write, or one file) and calls
:func:`check_dir` or :func:`check_file`; each raises :class:`~.common.UsageError` (exit 2, one line naming the flag
and the path) when the location cannot take the output:

- the path, or the directory it would go in, is a file where a directory is needed (or the reverse);
- the nearest existing directory cannot take a new file (read-only, ``/proc``, no permission) — probed by creating
  and removing one temporary file, so the check is what the kernel says, not what the mode bits suggest;
- a result the command would replace already exists and ``--force`` was not given.

Nothing is created by a check: directories are made by the command when it writes.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .common import UsageError

__all__ = ["check_dir", "check_file", "check_figure"]


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _probe_writable(flag: str, path: Path, target: Path) -> None:
    """Raise unless a file can be created in the existing directory ``path`` (the probe is removed at once)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".dwtcp-fluid-probe.", dir=path)
    except OSError as e:
        raise UsageError(
            flag, str(target), f"a writable location ({path} is not writable: {e.strerror})"
        ) from None
    os.close(fd)
    os.unlink(tmp)


def _check_ancestors(flag: str, target: Path) -> None:
    """Every existing ancestor of ``target`` must be a directory, and the nearest one writable."""
    base = _nearest_existing(target.parent)
    if not base.is_dir():
        raise UsageError(flag, str(target), f"a path inside a directory ({base} is a file)")
    if not target.exists():
        _probe_writable(flag, base, target)


def check_dir(
    flag: str,
    path: str | Path,
    products: Iterable[str] = (),
    *,
    force: bool = False,
    keep: Iterable[str] = (),
) -> Path:
    """Check that directory ``path`` (``flag``) can receive the files ``products`` (names inside it).

    ``keep`` lists the products that may exist already (e.g. a store that ``--resume`` continues); every other
    existing product is refused unless ``force``. Returns ``path`` as a :class:`Path`.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(flag, str(path), "a directory (this path is a file)")
    _check_ancestors(flag, path)
    if path.is_dir():
        _probe_writable(flag, path, path)
    keep = set(keep)
    for name in products:
        p = path / name
        is_store = name.endswith(".zarr")
        if p.exists() and is_store != p.is_dir():
            kind = "a directory" if p.is_dir() else "a file"
            raise UsageError(flag, str(path), f"a directory where {name} can be written ({p} is {kind})")
        if p.exists() and name not in keep and not force:
            raise UsageError(
                flag, str(path), f"a directory without earlier results ({p} exists: --force replaces it)"
            )
    return path


def check_file(flag: str, path: str | Path, *, force: bool = False) -> Path:
    """Check that file ``path`` (``flag``) can be written: not a directory, its directory writable, and not an
    existing file unless ``force``."""
    if str(path).endswith(("/", os.sep)):
        raise UsageError(flag, str(path), "a file path (this one ends in a directory separator)")
    path = Path(path)
    if path.is_dir():
        raise UsageError(flag, str(path), "a file path (this path is a directory)")
    _check_ancestors(flag, path)
    if path.exists():
        if not force:
            raise UsageError(flag, str(path), "a path that does not exist yet (--force replaces it)")
        _probe_writable(flag, path.parent, path)
    return path


FIGURE_FORMATS = (".png", ".svg", ".pdf")


def check_figure(flag: str, path: str | Path) -> Path:
    """A figure file the user names (``--out``, ``--plot``): a known format and a writable place. An existing file
    is replaced — it is the figure asked for — but a directory, a file used as a directory, or an unwritable
    location is refused before any work."""
    if str(path).endswith(("/", os.sep)):
        return check_file(flag, path)  # refused there, as a directory path
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise UsageError(flag, str(path), "a file name ending in .png, .svg or .pdf")
    return check_file(flag, path, force=True)
