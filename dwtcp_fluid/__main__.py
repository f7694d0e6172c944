"""``python -m dwtcp_fluid`` and the console script ``dwtcp-fluid``: the CLI (:func:`dwtcp_fluid.cli.main`).

:func:`entry` installs the SIGTERM handler and the re-delivery of an interrupt a GC callback swallows
(:mod:`dwtcp_fluid.interrupts`) before the CLI's imports (numpy, JAX and typer take a second or more), so a SIGINT or
SIGTERM at any moment is handled as Ctrl-C is: a clean exit with status 130 or 143, never a signal death or a lost
interrupt.
"""

import os
import signal
import sys

from .interrupts import INTERRUPT_CODE, redelivering

_TERM = [False]


def _on_term(signum: int, frame: object) -> None:
    _TERM[0] = True
    INTERRUPT_CODE[0] = 128 + signum
    raise KeyboardInterrupt


def entry() -> None:
    """Run the CLI (:func:`dwtcp_fluid.cli.entry`); an interrupt during its imports exits 130 or 143 as well."""
    try:
        sys.unraisablehook = redelivering(sys.unraisablehook)
        signal.signal(signal.SIGTERM, _on_term)
        from .cli import entry as cli_entry
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted (nothing was written)\n")
        sys.stderr.flush()
        os._exit(143 if _TERM[0] else 130)
    cli_entry()


if __name__ == "__main__":
    entry()
