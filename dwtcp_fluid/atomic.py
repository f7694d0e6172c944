"""Writes that cannot lie: the one way the package puts a file on disk.

Every output (a figure, a proof, a dataset, a JSON document, a store's record) is written under a temporary name
in its target directory, flushed and ``fsync``-ed, then renamed over the target, and the directory is synced: a
reader sees the old file or the complete new one, never a part. A failure anywhere (``ENOSPC``, ``EIO``, a quota)
removes the temporary file and raises :class:`WriteError`, an :class:`OSError` naming the target path.

A command runs inside :func:`transaction`: the directories it creates (:func:`make_dirs`) and the new files it
publishes are journaled, and when the command fails they are removed again (files first, then the directories it
created, deepest first, if empty), so a failed command leaves nothing behind. Files replaced in place cannot be
restored and are kept (they are complete: the rename is atomic).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "WRITE_ERRNOS",
    "WriteError",
    "atomic_path",
    "is_write_failure",
    "make_dirs",
    "remove_tree",
    "transaction",
    "write_bytes",
    "write_text",
]

#: The errors of a device that cannot take the data (full, failing, over quota, too big, read-only).
WRITE_ERRNOS = frozenset(
    e
    for e in (
        errno.ENOSPC,
        errno.EIO,
        getattr(errno, "EDQUOT", None),
        errno.EFBIG,
        errno.EROFS,
    )
    if e is not None
)


class WriteError(OSError):
    """A file could not be written; ``filename`` is the target (not the temporary name)."""


def is_write_failure(e: BaseException) -> bool:
    """Whether ``e`` (or an exception it was raised from) is a device failure of :data:`WRITE_ERRNOS`."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in WRITE_ERRNOS:
            return True
        e = e.__cause__ or e.__context__
    return False


# --- the journal of one command ----------------------------------------------------------------------------------

_LOCK = threading.Lock()
_JOURNAL: list[dict[str, list[Path]]] = []


def _note(kind: str, path: Path) -> None:
    with _LOCK:
        if _JOURNAL:
            _JOURNAL[-1][kind].append(path)


@contextlib.contextmanager
def transaction() -> Iterator[None]:
    """Journal the directories created and the new files published inside; on an exception (any, including
    KeyboardInterrupt) remove them again and re-raise."""
    entry: dict[str, list[Path]] = {"dirs": [], "files": []}
    with _LOCK:
        _JOURNAL.append(entry)
    try:
        yield
    except BaseException:
        rollback(entry)
        raise
    finally:
        with _LOCK:
            _JOURNAL.remove(entry)


def rollback(entry: dict[str, list[Path]]) -> None:
    """Remove the journaled new files and then the journaled directories that are left empty (deepest first)."""
    for f in reversed(entry["files"]):
        with contextlib.suppress(OSError):
            if f.is_dir() and not f.is_symlink():
                shutil.rmtree(f)
            else:
                f.unlink()
    for d in sorted(set(entry["dirs"]), key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            d.rmdir()  # only if empty: a directory that holds anything else is kept


def make_dirs(path: str | Path) -> Path:
    """``mkdir -p path``, journaling each directory created (a failed command removes them if empty)."""
    path = Path(path)
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            continue
        except OSError as e:
            raise WriteError(e.errno, e.strerror, str(d)) from e
        _note("dirs", d)
    return path


def publish_new(path: str | Path) -> None:
    """Journal ``path`` (a file or directory tree the caller created) as a new output of the running command."""
    _note("files", Path(path))


def _fsync_dir(d: Path) -> None:
    with contextlib.suppress(OSError):  # some filesystems cannot sync a directory; the rename is still atomic
        fd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _umask() -> int:
    """The process umask (mkstemp creates files 0600; published files get the usual permissions)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _hold_signals() -> object:
    """Defer SIGINT and SIGTERM in the main thread (where Python runs its handlers): a handler that only records
    the signal replaces the installed one; return what :func:`_release_signals` needs, or None in another thread.
    (A thread's signal mask would not do: the kernel hands a process-directed signal to any thread not blocking it,
    and Python then runs the handler in the main thread.)"""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return None
    pending: list[int] = []
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        old[sig] = signal.signal(sig, lambda signum, frame: pending.append(signum))
    return old, pending


def _release_signals(held: object) -> None:
    """Reinstall the handlers :func:`_hold_signals` replaced and raise a signal that arrived meanwhile again, to be
    handled by them at once."""
    import signal

    if held is None:
        return
    old, pending = held  # type: ignore[misc]
    for sig, handler in old.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    for sig in dict.fromkeys(pending):
        signal.raise_signal(sig)


@contextlib.contextmanager
def atomic_path(path: str | Path, *, journal: bool = True) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; once the block has written it, sync it and rename it to ``path``.

    For writers that need a file name (matplotlib, h5netcdf). On any failure the temporary file is removed and the
    target is untouched; a device failure is raised as :class:`WriteError` naming ``path``. ``journal=False`` keeps
    a new file out of the command's journal (a store's internal record, kept for ``--resume``).
    """
    path = Path(path)
    make_dirs(path.parent)
    new = not path.exists()
    # SIGINT/SIGTERM are deferred from the temporary file's creation until its clean-up is armed: an interrupt in
    # between (inside mkstemp, before the try) would leave it behind
    held = _hold_signals()
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        _release_signals(held)
        raise WriteError(e.errno, e.strerror, str(path)) from e
    except BaseException:
        _release_signals(held)
        raise
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        _release_signals(held)  # a pending interrupt is raised here, inside the clean-up's reach
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if is_write_failure(e) and not isinstance(e, WriteError):
            err = e if isinstance(e, OSError) and e.errno in WRITE_ERRNOS else None
            code = err.errno if err is not None else errno.ENOSPC
            raise WriteError(code, os.strerror(code), str(path)) from e
        raise
    if new and journal:
        _note("files", path)


def write_bytes(path: str | Path, data: bytes, *, journal: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path, journal=journal) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
    return Path(path)


def write_text(path: str | Path, text: str, *, journal: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_path`)."""
    return write_bytes(path, text.encode("utf-8"), journal=journal)


def remove_tree(path: str | Path) -> None:
    """Remove a file or directory tree if it exists (a store's temporary ``.creating`` tree, say)."""
    p = Path(path)
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()
