"""Command-line interface ``dwtcp-fluid`` (Typer). Thin: parse, call the library, print (rich or ``--json``)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
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

from ..atomic import WRITE_ERRNOS, is_write_failure, transaction
from ..interrupts import INTERRUPT_CODE, redelivering, swallowed_interrupt
from .app import app
from .common import UsageError, WorkError, drop_warnings, flush_warnings
from .flags import install_checks

#: Modules that register commands on the Typer apps of :mod:`.app` (one per capability).
_COMMAND_MODULES = (
    "dwtcp_fluid.studies.dwtcp.cli",
    "dwtcp_fluid.cli.sweep",
    "dwtcp_fluid.cli.figures",
    "dwtcp_fluid.cli.proofs",
    "dwtcp_fluid.studies.dctcp.cli_hybrid",
    "dwtcp_fluid.cli.simulate",
    "dwtcp_fluid.cli.packet",
    "dwtcp_fluid.studies.dctcp.cli_limit_cycle",
    "dwtcp_fluid.cli.phase",
    "dwtcp_fluid.cli.tune",
    "dwtcp_fluid.studies.networks.cli",
    "dwtcp_fluid.studies.networks.cli_sweep",
    "dwtcp_fluid.studies.timely.cli_network",
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
    debug = "--debug" in args
    args = [a for a in args if a != "--debug"]
    args = _global_flags_first(args)
    with warnings.catch_warnings(), _signals():
        warnings.simplefilter("default" if debug else "ignore")
        try:
            # In non-standalone mode a command's ``typer.Exit(code)`` comes back as the return value; a failed
            # command's new files and the directories it created are removed by the transaction.
            with transaction():
                _load(args)
                # every option checked against the flag vocabulary while parsing (cli/flags.py)
                command = _command()
                rv = command.main(args=args, standalone_mode=False, prog_name="dwtcp-fluid")
                if swallowed_interrupt():  # the signal came while the command ran: it is interrupted
                    raise KeyboardInterrupt
                if isinstance(rv, int) and rv != 0:
                    raise _Failed(rv)
        except _Failed as e:
            if e.code == 130:  # click turned a KeyboardInterrupt (Ctrl-C, or SIGTERM's) into a return value
                return _fail(_interrupt_code(), "interrupted (nothing was written)", debug)
            flush_warnings()
            return e.code
        except click.exceptions.NoArgsIsHelpError as e:
            e.show()
            return 0
        except click.exceptions.UsageError as e:
            return _fail(2, e.format_message().replace("\n", " "), debug)
        except UsageError as e:
            return _fail(2, str(e), debug)
        except WorkError as e:
            if is_write_failure(e) and e.code == 1:
                return _fail(1, _write_failure(e, args), debug)
            # an interrupt reported by the command: its status is the signal's (SIGTERM: 143)
            return _fail(_interrupt_code() if e.code == 130 else e.code, str(e), debug)
        except OSError as e:
            if not is_write_failure(e):
                return _fail(1, _failed(e, args), debug)
            return _fail(1, _write_failure(e, args), debug)
        except ValueError as e:
            return _fail(2, _as_flag(_first_line(e), args), debug)
        except (typer.Abort, KeyboardInterrupt):
            return _fail(_interrupt_code(), "interrupted (nothing was written)", debug)
        except typer.Exit as e:
            flush_warnings()
            return getattr(e, "exit_code", 0)
        except SystemExit as e:
            return e.code if isinstance(e.code, int) else 1
        except Exception as e:
            if is_write_failure(e):
                return _fail(1, _write_failure(e, args), debug)
            return _fail(1, _failed(e, args), debug)
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
        _BUILT[key] = _one_line_summaries(install_checks(typer.main.get_command(app)))
    return _BUILT[key]


def _one_line_summaries(cmd: Any) -> Any:
    """``cmd`` with each subcommand's summary in its group's command list (``short_help``) set to the first
    paragraph of its help with the docstring's line breaks joined: rich keeps them in that list, where they broke
    the summary mid-sentence."""
    for sub in getattr(cmd, "commands", {}).values():
        if sub.short_help is None and sub.help:
            sub.short_help = " ".join(inspect.cleandoc(sub.help).split("\n\n")[0].split())
        _one_line_summaries(sub)
    return cmd


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


class _Failed(Exception):
    """A command that returned a non-zero status: its new outputs are rolled back like a raised failure's."""

    def __init__(self, code: int) -> None:
        self.code = code
        super().__init__(code)


def _command_name(args: list[str]) -> str:
    return " ".join(a for a in args[:2] if not a.startswith("-")) or "dwtcp-fluid"


def _failed(e: BaseException, args: list[str]) -> str:
    return (
        f"{_command_name(args)} failed: {type(e).__name__}: {_first_line(e)} "
        "(no result was written; --debug shows the traceback)"
    )


def _write_failure(e: BaseException, args: list[str]) -> str:
    """One line for a device that could not take the output (full disk, I/O error): which file, why, what was
    kept (a resumable store's own message says so; otherwise nothing: the transaction removed the new files)."""
    cause: BaseException | None = e
    while cause is not None and not (isinstance(cause, OSError) and cause.errno in WRITE_ERRNOS):
        cause = cause.__cause__ or cause.__context__
    why = os.strerror(cause.errno) if isinstance(cause, OSError) and cause.errno else "write failed"
    where = f" {cause.filename}" if isinstance(cause, OSError) and cause.filename else ""
    if isinstance(e, WorkError) and "--resume" in str(e):
        return f"{_command_name(args)} could not write{where}: {why}; {str(e).rsplit('; ', 1)[-1]}"
    return f"{_command_name(args)} could not write{where}: {why} (nothing was written)"


def _interrupt_code() -> int:
    return INTERRUPT_CODE[0]


@contextlib.contextmanager
def _signals():
    """SIGTERM is handled as Ctrl-C is (KeyboardInterrupt: the same clean exit, resume hints and rollback), with
    exit status 143; an interrupt swallowed by a finalizer or GC callback is delivered again
    (:mod:`dwtcp_fluid.interrupts`); outside the main thread (a test runner's worker) nothing is installed."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: object) -> None:
        INTERRUPT_CODE[0] = 128 + signum
        raise KeyboardInterrupt

    INTERRUPT_CODE[0] = 130
    # the hook first, then the handler (and the reverse on the way out): a collection between the two statements
    # runs the GC callbacks, and an interrupt swallowed there with the handler but not yet the hook was lost
    old_hook = sys.unraisablehook
    sys.unraisablehook = redelivering(old_hook)
    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        swallowed_interrupt()
        signal.signal(signal.SIGTERM, old)
        sys.unraisablehook = old_hook


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


def entry() -> None:
    """The console script ``dwtcp-fluid``: :func:`main`, and after an interrupt an immediate exit.

    An interrupted command may leave JAX/XLA or Dask threads mid-computation; letting the interpreter finalize
    under them can end in a signal death (SIGSEGV) after the clean message. After an interrupt the output streams
    are flushed and the process exits at once with the status (130 or 143), skipping interpreter teardown. Once
    the command is over, SIGINT and SIGTERM are ignored: the interpreter's teardown restores the default handlers
    of signals it handles (a signal death), never of ignored ones, so a signal then leaves the command's own status.
    """
    import signal

    try:
        code = main()
    except KeyboardInterrupt:  # a second Ctrl-C while the first one's cleanup ran
        sys.stderr.write("error: interrupted\n")
        code = _interrupt_code()
    for sig in (signal.SIGINT, signal.SIGTERM):  # the command is over: a signal now changes nothing
        signal.signal(sig, signal.SIG_IGN)
    if code in (130, 143):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    sys.exit(code)


__all__ = ["app", "entry", "main"]
