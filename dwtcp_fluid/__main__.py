"""``python -m dwtcp_fluid`` and the console script ``dwtcp-fluid``: the CLI (:func:`dwtcp_fluid.cli.main`).

:func:`entry` installs the SIGTERM handler before the CLI's imports (numpy, JAX and typer take a second or more), so
a SIGTERM at any moment is handled as Ctrl-C is: a clean exit with status 143, never a signal death.
"""

import os
import signal
import sys

_TERM = [False]


def _on_term(signum: int, frame: object) -> None:
    _TERM[0] = True
    common = sys.modules.get("dwtcp_fluid.cli.common")
    if common is not None and hasattr(common, "INTERRUPT_CODE"):
        common.INTERRUPT_CODE[0] = 128 + signum
    raise KeyboardInterrupt


def entry() -> None:
    """Run the CLI (:func:`dwtcp_fluid.cli.entry`); an interrupt during its imports exits 130 or 143 as well."""
    try:
        signal.signal(signal.SIGTERM, _on_term)
        from .cli import entry as cli_entry
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted (nothing was written)\n")
        sys.stderr.flush()
        os._exit(143 if _TERM[0] else 130)
    cli_entry()


if __name__ == "__main__":
    entry()
