"""The CLI's progress displays on stderr: a spinner for a step, a bar over counted work, a bar over named steps
(none with ``--quiet``)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .common import flush_warnings, is_quiet

__all__ = ["progress_bar", "status", "steps"]


@contextmanager
def status(message: str) -> Iterator[None]:
    """A spinner with elapsed time on stderr while a step runs (none with ``--quiet``)."""
    flush_warnings()
    if is_quiet():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(message):
        yield


def _bar_columns() -> tuple:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )


@contextmanager
def progress_bar(description: str, unit: str = "steps") -> Iterator[Callable[[float, float], None]]:
    """The CLI's one progress convention for work over a few seconds: a rich bar on stderr with whole counts
    ("3/12 runs"), elapsed time and ETA (none with ``--quiet``). Yields ``update(done, total)``, the signature of
    the library's ``progress=`` hooks (:func:`dwtcp_fluid.run_sweep`, :func:`dwtcp_fluid.solve`, ...), so a
    command passes it straight through. A run that fails leaves no bar behind, so its error is the one line on
    stderr: on an exception out of the block, or when the command calls ``update.discard()`` (a run that returned
    a failed status)."""
    flush_warnings()
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    with Progress(*_bar_columns(), console=console, disable=is_quiet(), transient=False) as bar:
        task = bar.add_task(description, total=None, unit=unit)

        def update(done: float, total: float) -> None:
            bar.update(task, completed=int(done), total=max(int(total), 1))

        def discard() -> None:
            bar.live.transient = True  # erased on a terminal
            if (
                not console.is_terminal
            ):  # to a file or pipe nothing of the bar is written, not even its newline
                console.file = io.StringIO()

        update.discard = discard  # type: ignore[attr-defined]
        try:
            yield update
        except BaseException:
            discard()
            raise


@contextmanager
def steps(total: int, description: str) -> Iterator[Callable[[str], None]]:
    """A rich progress bar on stderr over ``total`` named steps, with elapsed time and ETA; yields
    ``start(name)``, called as each step begins (the previous one is then counted done)."""
    flush_warnings()
    from rich.console import Console
    from rich.progress import Progress

    with Progress(*_bar_columns(), console=Console(stderr=True), disable=is_quiet(), transient=False) as bar:
        task = bar.add_task(description, total=total, unit="")
        started = [0]

        def start(name: str) -> None:
            if started[0]:
                bar.advance(task)
            started[0] += 1
            bar.update(task, description=f"{description}: {name}")

        yield start
        bar.update(task, completed=total, description=description)
