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
    path = _record_path(store, ib, c)
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"ib": ib, "c": c, "coords": coords, "sha256": checksum}, sort_keys=True))
    os.replace(tmp, path)


def read_record(store: Path, ib: int, c: int) -> dict[str, Any] | None:
    """The chunk's record, or None when it is missing or unreadable."""
    try:
        rec = json.loads(_record_path(store, ib, c).read_text())
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) else None


def remove_record(store: Path, ib: int, c: int) -> None:
    _record_path(store, ib, c).unlink(missing_ok=True)


@contextlib.contextmanager
def output_lock(path: Path) -> Iterator[Path]:
    """Hold an exclusive lock on ``path`` (a lock file, created and removed here) or raise OutputBusyError.

    The lock file is removed on exit; a process that opened it just before (and so locks a removed file) notices
    the swap of inodes and tries again, so two holders can never coexist.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
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
    os.ftruncate(fd, 0)
    os.write(fd, f"pid {os.getpid()}".encode())
    try:
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)
