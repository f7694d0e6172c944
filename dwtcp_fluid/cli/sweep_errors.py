"""What a sweep command says on stderr (every sweep command alike): its orchestrator's notes and the resumed store's
verification, and the one-line error of what the orchestrator leaves to it (a damaged store that may not be
repaired, a refused resume). An interrupt or a failure arrives as :class:`~dwtcp_fluid.sweep.outputs.SweepStopped`,
its line already saying what was kept."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .common import UsageError, WorkError, is_quiet

__all__ = ["notes", "resume_lines", "stopped_error", "sweep_errors"]


def stopped_error(e: Exception, store: object) -> Exception:
    """The one-line error of a sweep that raised ``e``: a damaged store (:class:`StoreDamagedError`, with
    ``--refuse-damaged``), a refused ``--resume`` of ``store``; any other error as it is."""
    from ..sweep.integrity import StoreDamagedError

    if isinstance(e, StoreDamagedError):
        return WorkError(f"{e} (rerun without --refuse-damaged to recompute those chunks)")
    if isinstance(e, ValueError) and str(e).startswith("resume="):
        return UsageError("--resume", str(store), str(e).split("accepted ", 1)[-1])
    return e


@contextmanager
def sweep_errors(out: str | Path, stem: str) -> Iterator[None]:
    """A sweep orchestrator's failures as one-line errors: another sweep writing ``out`` (a usage error of
    ``--out``), an interrupt or a failure (:class:`~dwtcp_fluid.sweep.outputs.SweepStopped`, its line saying what
    was kept), a damaged store or a refused resume of ``out/stem.zarr`` (:func:`stopped_error`); any other error
    as it is."""
    from ..sweep.integrity import OutputBusyError
    from ..sweep.outputs import SweepStopped

    try:
        yield
    except OutputBusyError as e:
        raise UsageError("--out", str(out), f"a directory no other sweep is writing ({e})") from None
    except SweepStopped as e:
        raise WorkError(str(e), code=e.code) from None
    except (RuntimeError, ValueError) as e:
        error = stopped_error(e, Path(out) / f"{stem}.zarr")
        if error is e:
            raise
        raise error from None


def notes(err: Any) -> Callable[[str], None]:
    """The sweep orchestrators' ``note`` hook: each line (a stale file removed, a result refreshed) on the stderr
    console ``err``, unless ``--quiet``."""

    def note(line: str) -> None:
        if not is_quiet():
            err.print(line, highlight=False, soft_wrap=not line.startswith("removed "))

    return note


def resume_lines(err: Any) -> Callable[[str], None]:
    """The sweep orchestrators' ``report`` hook: each line of a resumed store's verification, ``resume: ...``."""
    return lambda line: err.print(f"resume: {line}", highlight=False, soft_wrap=True)
