"""Root Typer application and its command groups. Command modules decorate these objects."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="dwtcp-fluid",
    help="Check stability claims about DCTCP and DWTCP: fluid models, DDE solvers, sweeps, packet-level runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
dwtcp_app = typer.Typer(
    help="DWTCP fluid model: the k̄ < 2·BDP/√β condition, eigenvalues, simulation.", no_args_is_help=True
)
dctcp_app = typer.Typer(
    help="DCTCP fluid model: simulation, limit cycles, hybrid model, guidelines.", no_args_is_help=True
)
packet_app = typer.Typer(
    help="Packet-level JAX core: the protocols' real per-ACK window laws.", no_args_is_help=True
)

app.add_typer(dwtcp_app, name="dwtcp")
app.add_typer(dctcp_app, name="dctcp")
app.add_typer(packet_app, name="packet")
