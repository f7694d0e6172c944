"""Command-line interface ``dwtcp-fluid`` (Typer). Thin: parse, call the library, print (rich or ``--json``)."""

from __future__ import annotations

import importlib
import sys

try:  # typer >= 0.20 vendors click as typer._click; older releases depend on click itself
    from typer import _click as click
except ImportError:  # pragma: no cover
    import click
import typer

from .app import app
from .common import UsageError

#: Modules that register commands on the Typer apps of :mod:`.app` (one per capability).
_COMMAND_MODULES = (
    "dwtcp_fluid.cli.dwtcp",
    "dwtcp_fluid.cli.sweep",
    "dwtcp_fluid.cli.figures",
    "dwtcp_fluid.cli.proofs",
    "dwtcp_fluid.cli.hybrid",
    "dwtcp_fluid.cli.simulate",
    "dwtcp_fluid.cli.packet",
    "dwtcp_fluid.cli.limit_cycle",
    "dwtcp_fluid.cli.phase",
    "dwtcp_fluid.cli.network",
)


def _load() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name)


def main(argv: list[str] | None = None) -> int:
    """Entry point: usage errors and invalid values exit 2 with one line on stderr and no traceback.

    Returns the exit status (the console script passes it to ``sys.exit``).
    """
    _load()
    try:
        # In non-standalone mode a command's ``typer.Exit(code)`` comes back as the return value.
        rv = app(args=argv, standalone_mode=False, prog_name="dwtcp-fluid")
    except UsageError as e:
        sys.stderr.write(f"error: {e}\n")
        return 2
    except ValueError as e:
        sys.stderr.write(f"error: {str(e).splitlines()[0] if str(e) else type(e).__name__}\n")
        return 2
    except click.exceptions.NoArgsIsHelpError as e:
        e.show()
        return 0
    except click.exceptions.UsageError as e:
        msg = e.format_message().replace("\n", " ")
        sys.stderr.write(f"error: {msg}\n")
        return 2
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("error: aborted\n")
        return 1
    except typer.Exit as e:
        return getattr(e, "exit_code", 0)
    return rv if isinstance(rv, int) else 0


__all__ = ["app", "main"]
