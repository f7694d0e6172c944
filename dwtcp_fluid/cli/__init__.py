"""Command-line interface ``dwtcp-fluid`` (Typer). Thin: parse, call the library, print (rich or ``--json``)."""

from __future__ import annotations

import importlib
import os
import re
import sys
import traceback
import warnings
from typing import Any

try:  # typer >= 0.20 vendors click as typer._click; older releases depend on click itself
    from typer import _click as click
except ImportError:  # pragma: no cover
    import click
import typer

from .app import app
from .common import UsageError, WorkError, drop_warnings, flush_warnings
from .flags import install_checks

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
    "dwtcp_fluid.cli.tune",
    "dwtcp_fluid.cli.network",
    "dwtcp_fluid.cli.network_sweep",
    "dwtcp_fluid.cli.timely_network",
)


#: Command modules that import the JAX packet core when they load (its law registry builds their flags): loaded
#: only when the command line names their group, so ``dwtcp-fluid --help`` does not pay for JAX.
_HEAVY_GROUPS = {"dwtcp_fluid.cli.packet": "packet"}


def _load(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    completing = any(k.endswith("_COMPLETE") for k in os.environ)
    for name in _COMMAND_MODULES:
        group = _HEAVY_GROUPS.get(name)
        if group is None or group in args or completing:
            importlib.import_module(name)


def main(argv: list[str] | None = None) -> int:
    """Entry point and the CLI's single error path. Returns the exit status (the console script passes it on).

    - bad input (:class:`UsageError`, a click usage error, a ``ValueError`` from the library's parameter checks):
      exit 2, one stderr line naming the flag or path;
    - a failure while working (:class:`WorkError`, or any other exception): exit 1, one line saying what failed
      and what was kept;
    - ``--debug`` anywhere on the command line adds the traceback and lets warnings through; without it NumPy,
      SymPy and JAX warnings never reach the terminal (inputs that would produce them are refused up front).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    _load(args)
    debug = "--debug" in args
    args = [a for a in args if a != "--debug"]
    args = _global_flags_first(args)
    with warnings.catch_warnings():
        warnings.simplefilter("default" if debug else "ignore")
        try:
            # every option checked against the flag vocabulary while parsing (cli/flags.py)
            command = _command()
            # In non-standalone mode a command's ``typer.Exit(code)`` comes back as the return value.
            rv = command.main(args=args, standalone_mode=False, prog_name="dwtcp-fluid")
        except click.exceptions.NoArgsIsHelpError as e:
            e.show()
            return 0
        except click.exceptions.UsageError as e:
            return _fail(2, e.format_message().replace("\n", " "), debug)
        except UsageError as e:
            return _fail(2, str(e), debug)
        except WorkError as e:
            return _fail(e.code, str(e), debug)
        except ValueError as e:
            return _fail(2, _as_flag(_first_line(e), args), debug)
        except (typer.Abort, KeyboardInterrupt):
            return _fail(130, "interrupted (nothing was written)", debug)
        except typer.Exit as e:
            flush_warnings()
            return getattr(e, "exit_code", 0)
        except SystemExit as e:
            return e.code if isinstance(e.code, int) else 1
        except Exception as e:
            cmd = " ".join(a for a in args[:2] if not a.startswith("-"))
            return _fail(
                1,
                f"{cmd or 'dwtcp-fluid'} failed: {type(e).__name__}: {_first_line(e)} "
                "(no result was written; --debug shows the traceback)",
                debug,
            )
    flush_warnings()
    return rv if isinstance(rv, int) else 0


_BUILT: dict[Any, Any] = {}


def _registrations(t: typer.Typer) -> tuple:
    """What the click command tree is built from: every registered command and group, recursively."""
    cmds = tuple((i.name, id(i.callback)) for i in t.registered_commands)
    return cmds + tuple((g.name, _registrations(g.typer_instance)) for g in t.registered_groups)


def _command() -> Any:
    """The click command tree of :data:`app` with the flag vocabulary's checks (:func:`.flags.install_checks`),
    built once per set of registered commands (building it costs ~0.1 s; a law registered later rebuilds it)."""
    key = _registrations(app)
    if key not in _BUILT:
        _BUILT.clear()
        _BUILT[key] = install_checks(typer.main.get_command(app))
    return _BUILT[key]


#: Options of the root command that may appear anywhere on the command line (``dwtcp-fluid sweep --quiet``).
_GLOBAL_FLAGS = ("--quiet", "-q")


def _global_flags_first(args: list[str]) -> list[str]:
    """Move the root's global flags given after a subcommand to the front (before the first ``--``)."""
    end = args.index("--") if "--" in args else len(args)
    moved = [a for a in args[1:end] if a in _GLOBAL_FLAGS]
    if not moved:
        return args
    rest = [a for i, a in enumerate(args) if not (0 < i < end and a in _GLOBAL_FLAGS)]
    return [*dict.fromkeys(moved), *rest]


def _as_flag(message: str, args: list[str] | None = None) -> str:
    """A library message ``name=value is out of range: …`` names the CLI flag ``--name`` (the library's parameter
    names are the flags' names) when the user gave that flag; otherwise it says which given inputs led to it, and
    never names a flag the user did not give."""
    m = re.match(r"([a-z][a-z0-9_]*)=", message)
    if not m:
        return message
    flag = f"--{m.group(1).replace('_', '-')}"
    given = [a.split("=", 1)[0] for a in (args or []) if a.startswith("--")]
    if args is None or flag in given:
        return f"{flag} {message[m.end() :]}"
    flags = " ".join(dict.fromkeys(a for a in given if a not in ("--json", "--yes", "--force")))
    return f"the inputs{f' ({flags})' if flags else ''} give {message}"


def _first_line(e: BaseException) -> str:
    s = str(e).strip()
    return s.splitlines()[0] if s else type(e).__name__


def _fail(code: int, message: str, debug: bool) -> int:
    drop_warnings()  # a refused input gets one line: its error
    if debug:
        traceback.print_exc()
    sys.stderr.write(f"error: {message}\n")
    return code


__all__ = ["app", "main"]
