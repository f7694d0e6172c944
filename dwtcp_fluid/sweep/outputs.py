"""Where a sweep's results go, for every sweep alike (the DWTCP condition sweep, the judged sweeps, the network
sweep): the output held under one lock while what a killed run left is removed (:func:`locked_output`), whether a
result on disk was computed by this very code (:func:`same_code`, :func:`result_attrs`), and how a sweep that
stopped says what it kept (:class:`SweepStopped`, :func:`stopping`).

A sweep's orchestrator (``dw.write_sweep``, ``dw.write_judged_sweep``, ``dw.write_network_sweep``) runs inside
these; what it kept is its own to say (chunks of a store that ``resume`` continues, or nothing).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..interrupts import Interrupts
from .integrity import StoreDamagedError, output_lock, remove_stale

__all__ = ["SweepStopped", "locked_output", "result_attrs", "same_code", "stopping"]


class SweepStopped(RuntimeError):
    """A sweep that stopped before its result: interrupted, failed, or unable to write its result. The message is
    one line saying what stopped it and what was kept; ``code`` is the exit status a command gives it (1; 130 for an
    interrupt)."""

    def __init__(self, message: str, code: int = 1) -> None:
        self.code = code
        super().__init__(message)


def same_code(attrs: Mapping[str, Any]) -> str | None:
    """None when a dataset's ``attrs`` record the sources of this very code, else why not, naming the code that
    computed it and this one (:func:`~dwtcp_fluid._provenance.code_label`)."""
    from .._provenance import code_label, provenance_attrs

    here = provenance_attrs()
    if attrs.get("source_digest") == here["source_digest"]:
        return None
    return f"it was computed by other code ({code_label(attrs)}; this code: {code_label(here)})"


def result_attrs(nc: Path, variable: str) -> dict | None:
    """The attributes of the readable dataset ``nc`` holding ``variable``, else None (no file, or unreadable: not a
    result, which the output check refuses unless it may be replaced)."""
    if not nc.is_file():
        return None
    try:
        import xarray as xr

        with xr.open_dataset(nc, engine="h5netcdf") as ds:
            return dict(ds.attrs) if variable in ds else None
    except Exception:
        return None


@contextlib.contextmanager
def locked_output(
    out: Path,
    stem: str,
    *,
    check: Callable[[], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Iterator[Path]:
    """Hold the lock of output ``stem`` in directory ``out`` (:func:`~.integrity.output_lock`; another writer:
    :class:`~.integrity.OutputBusyError`), run ``check`` under it (the caller's check of the output location,
    repeated now that no other sweep can finish there), then remove what a killed run of ``stem`` left, one
    ``note`` line each."""
    with output_lock(out / f".{stem}.lock"):
        if check is not None:
            check()
        for p in remove_stale(out, stem):
            if note is not None:
                note(f"removed {p} (left by a killed run)")
        yield out


#: Errors of a sweep's work that stop it with what it kept said (any other error is raised as it is).
_FAILURES = (ValueError, OSError, RuntimeError, ArithmeticError, MemoryError)


@contextlib.contextmanager
def stopping(
    kept: Callable[[], str], what: str = "sweep", *, failures: Iterable[type] = _FAILURES
) -> Iterator[None]:
    """Run a sweep's work: an interrupt (KeyboardInterrupt, or whatever error a library raised while one was being
    delivered, :class:`~dwtcp_fluid.interrupts.Interrupts`) stops it as ``SweepStopped("<what> interrupted:
    <kept()>", 130)``, one of ``failures`` as ``SweepStopped("<what> failed: <error>; <kept()>")``. A damaged store
    that may not be repaired (:class:`~.integrity.StoreDamagedError`) and a refused resume (a ValueError naming
    ``resume``) are raised as they are: nothing was changed, so nothing is said to be kept."""
    interrupted = Interrupts()
    try:
        yield
    except KeyboardInterrupt:
        raise SweepStopped(f"{what} interrupted: {kept()}", code=130) from None
    except Exception as e:
        if interrupted():
            raise SweepStopped(f"{what} interrupted: {kept()}", code=130) from None
        if isinstance(e, StoreDamagedError) or (isinstance(e, ValueError) and str(e).startswith("resume=")):
            raise
        if isinstance(e, tuple(failures)):
            raise SweepStopped(f"{what} failed: {type(e).__name__}: {e}; {kept()}") from None
        raise
    finally:
        interrupted.restore()
