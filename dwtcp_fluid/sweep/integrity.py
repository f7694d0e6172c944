"""What makes a resumed sweep store trustworthy: per-chunk checksums with grid coordinates, and an output lock.

Every completed chunk ``(ib, c)`` of a sweep store gets a record ``<store>/integrity/<ib>_<c>.json`` holding its
grid coordinates (β index and value, BDP indices and values) and the SHA-256 of its arrays *as read back from the
store* (so the record also vouches for the write). ``--resume`` re-reads every chunk marked done and keeps it only
if the bytes, the record and the grid agree; a chunk that is missing, truncated, bit-flipped, moved or lacks a
record is reported in one line and recomputed (or the run is refused, :class:`StoreDamagedError`).

:func:`output_lock` serializes writers of one output: a second sweep into the same store is refused while the first
holds the lock (:class:`OutputBusyError`), instead of deleting and recreating the first one's store.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "OutputBusyError",
    "StoreDamagedError",
    "chunk_checksum",
    "layout_damage",
    "remove_stale",
    "output_lock",
    "read_record",
    "write_record",
]


class StoreDamagedError(RuntimeError):
    """A resumed store holds damaged chunks and repairing them was not allowed."""


class OutputBusyError(RuntimeError):
    """Another process holds the lock of this output."""


def chunk_checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over the chunk's arrays in name order (name, dtype, shape and bytes of each)."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _record_path(store: Path, ib: int, c: int) -> Path:
    return store / "integrity" / f"{ib}_{c}.json"


def write_record(store: Path, ib: int, c: int, coords: dict[str, Any], checksum: str) -> None:
    """Write the chunk's record atomically (temporary name, then rename)."""
    from ..atomic import write_text

    record = json.dumps({"ib": ib, "c": c, "coords": coords, "sha256": checksum}, sort_keys=True)
    write_text(_record_path(store, ib, c), record, journal=False)


def read_record(store: Path, ib: int, c: int) -> dict[str, Any] | None:
    """The chunk's record, or None when it is missing or unreadable."""
    try:
        rec = json.loads(_record_path(store, ib, c).read_text())
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def layout_damage(root: Any, expected: dict[str, tuple[tuple[int, ...], Any]]) -> str | None:
    """Why the store ``root`` does not hold the arrays ``expected`` (``{name: (shape, dtype)}``), or None.

    Checked before any chunk is trusted or written: a variable that is missing, whose metadata cannot be read, or
    whose shape or data type differs cannot be repaired chunk by chunk (writing into it fails, or silently keeps the
    wrong type), so the caller recreates the store or refuses it."""
    for name, (shape, dtype) in expected.items():
        try:
            arr = root[name]
            got_shape, got_dtype = tuple(arr.shape), np.dtype(arr.dtype)
        except Exception as e:  # missing, or metadata that does not parse
            return f"variable {name!r} is missing or its metadata is unreadable ({type(e).__name__})"
        if got_shape != tuple(shape):
            return f"variable {name!r} has shape {got_shape}, not {tuple(shape)}"
        if got_dtype != np.dtype(dtype):
            return f"variable {name!r} has data type {got_dtype}, not {np.dtype(dtype)}"
    return None


def remove_record(store: Path, ib: int, c: int) -> None:
    _record_path(store, ib, c).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(directory: Path, stem: str) -> list[Path]:
    """Remove what a killed run of output ``stem`` left in ``directory`` and return it: its lock file when no live
    process holds it, temporary files of the final dataset (``.<stem>.nc.*.tmp``), and half-created stores
    (``*.zarr.creating``). Call it while holding :func:`output_lock` (no other writer of ``stem`` exists then)."""
    removed: list[Path] = []
    if not directory.is_dir():
        return removed
    for p in sorted(directory.glob(f".{stem}.nc.*.tmp")) + sorted(directory.glob(f"{stem}*.zarr.creating")):
        if p.is_dir() and not p.is_symlink():
            import shutil

            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p)
    for lock in sorted(directory.glob(".*.lock")):
        if _stale_lock(lock):
            lock.unlink(missing_ok=True)
            removed.append(lock)
    return removed


def _stale_lock(path: Path) -> bool:
    """A lock file no process holds (its flock is free) and whose recorded pid is not alive."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: a live writer
        fcntl.flock(fd, fcntl.LOCK_UN)
        text = os.read(fd, 64).decode(errors="replace").split()
        pid = int(text[-1]) if text and text[-1].isdigit() else None
        return pid is None or (pid != os.getpid() and not _alive(pid))
    finally:
        os.close(fd)


@contextlib.contextmanager
def output_lock(path: Path) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (a lock file, created and removed here) or raise OutputBusyError.

    The lock file is removed on exit; a process that opened it just before (and so locks a removed file) notices
    the swap of inodes and tries again, so two holders can never coexist.
    """
    from ..atomic import WriteError, make_dirs

    make_dirs(path.parent)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            try:
                holder = path.read_text().strip() or "another process"
            except OSError:
                holder = "another process"
            raise OutputBusyError(f"{path} is held by {holder}") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}".encode())
    except OSError as e:  # a full disk: no lock file is left behind
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)
        raise WriteError(e.errno, e.strerror, str(path)) from e
    try:
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)
