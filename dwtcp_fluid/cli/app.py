"""Root Typer application and its command groups. Command modules decorate these objects."""

from __future__ import annotations

import typer

from . import common

#: ``-h`` and ``--help`` on every command and group.
CONTEXT = {"help_option_names": ["-h", "--help"]}

app = typer.Typer(
    name="dwtcp-fluid",
    help="Check stability claims about DCTCP and DWTCP: fluid models, DDE solvers, sweeps, packet-level runs. "
    "Citations such as [DCTCP-A] eq. (8) are listed in REFERENCES.md.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish, PowerShell
    pretty_exceptions_enable=False,
    context_settings=CONTEXT,
)


def _version(value: bool) -> None:
    if value:
        from .._provenance import __version__

        typer.echo(f"dwtcp-fluid {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", help="Print the version and exit.", callback=_version, is_eager=True
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bars or notes on stderr (errors are still printed)."
    ),
) -> None:
    """Check stability claims about DCTCP and DWTCP: fluid models, DDE solvers, sweeps, packet-level runs."""
    common.set_quiet(quiet)


dwtcp_app = typer.Typer(
    help="DWTCP fluid model [DWTCP]: the k̄ < 2·BDP/√β condition, eigenvalues, simulation.",
    no_args_is_help=True,
    context_settings=CONTEXT,
)
dctcp_app = typer.Typer(
    help="DCTCP fluid model [DCTCP-A]: simulation, limit cycles, hybrid model, guidelines.",
    no_args_is_help=True,
    context_settings=CONTEXT,
)
packet_app = typer.Typer(
    help="Packet-level JAX core: the protocols' real per-ACK window laws.",
    no_args_is_help=True,
    context_settings=CONTEXT,
)

app.add_typer(dwtcp_app, name="dwtcp")
app.add_typer(dctcp_app, name="dctcp")
app.add_typer(packet_app, name="packet")
