"""``dwtcp-fluid phase dwtcp|dctcp --plot FILE``: phase portraits (format from the extension: png, svg, pdf)."""

from __future__ import annotations

import math
from pathlib import Path

import typer

from ..params import (
    DctcpParams,
    DwtcpParams,
)
from .app import app
from .common import (
    UsageError,
    emit_json,
    link_from_flags,
    print_written,
    require_unit,
    warn,
    warn_implausible,
)
from .flags import REQUIRED, Use, declared
from .outputs import check_figure
from .progress import status
from .simulate import _run, check_span

phase_app = typer.Typer(
    help="Phase portraits: vector field per law, nullclines, switching surfaces, equilibria, trajectories.",
    no_args_is_help=True,
)
app.add_typer(phase_app, name="phase")

#: ``--plot`` is the command's output (required); ``--json`` adds the document.
_PLOT = Use(default=REQUIRED)
_JSON = Use(note="Here in addition to the figure (equilibria, end states).")


def _check_plot(plot: str) -> Path:
    return check_figure("--plot", plot)


def _save(pp, path: Path) -> None:
    from ..plots.style import save_figure, style
    from ..results import Status

    stopped = [Status(tr.status) for tr in pp.trajectories if not Status(tr.status).ok]
    if stopped:  # a budget or a solver failure: said, and drawn up to where each trajectory stopped
        warn(
            f"{len(stopped)} of {len(pp.trajectories)} trajectories stopped early ({stopped[0].name.lower()}: "
            f"{stopped[0].message}); they are drawn up to where they stopped"
        )

    with style():
        fig, _, _ = pp.plot()
        save_figure(fig, path)
    print_written([path])


@phase_app.command("dwtcp")
@declared(plot=_PLOT, json=_JSON, duration=Use(note="Per trajectory."))
def phase_dwtcp(
    plot: str,
    capacity: str,
    rtt: str,
    packet_size: str,
    flows: int,
    beta: float,
    target: float,
    delay: bool,
    variant: str,
    duration: str,
    json: bool,
) -> None:
    """DWTCP (w, q) portrait of [DWTCP] eqs. (6)/(7), with or without the feedback delay."""
    from .. import units
    from ..reports.phase import run_phase_dwtcp

    path = _check_plot(plot)
    link = link_from_flags(capacity, rtt, packet_size)
    if variant not in ("paper", "sqrt"):
        raise UsageError("--variant", variant, "paper or sqrt")
    accepted = 'a time in (0, 10s] such as "100ms" or "0.1s"'
    require_unit("--duration", duration, "time")
    try:
        T = units.parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, accepted) from None
    if not (math.isfinite(T) and 0 < T <= 10.0):
        raise UsageError("--duration", duration, accepted)
    P = DwtcpParams(link=link, flows=flows, beta=beta, k=target)
    check_span("--duration", duration, T, link.rtt + P.k / link.C)
    warn_implausible(link, T)
    with status("phase dwtcp: integrating the trajectories"):
        doc, pp = _run(run_phase_dwtcp, P, duration=T, delay=delay, variant=variant, out=path)
    _save(pp, path)
    if json:
        emit_json(doc)


@phase_app.command("dctcp")
@declared(
    plot=_PLOT,
    json=_JSON,
    wbar=Use(note="Default 10 (Fig. 4)."),
    capacity=Use(default=None, note="With --rtt, --marking-threshold, --flows: w̄."),
    flows=Use(note="With --capacity."),
    marking_threshold=Use(note="With --capacity."),
    duration=Use(flag="--duration-rstar"),
)
def phase_dctcp(
    plot: str,
    wbar: float | None,
    g: float,
    capacity: str | None,
    rtt: str,
    packet_size: str,
    flows: int,
    marking_threshold: float,
    queue_floor: bool,
    duration: float,
    json: bool,
) -> None:
    """DCTCP normalized model (11)-(14) of [DCTCP-A]: W̃–q̃ projection, α̃ as colour (Fig. 4)."""
    from ..reports.phase import run_phase_dctcp
    from ..studies.dctcp.figures_phase import DCTCP_STARTS

    path = _check_plot(plot)
    psi = None
    if capacity is not None:
        if wbar is not None:
            raise UsageError("--wbar", wbar, "either --wbar or the physical flags (--capacity ...), not both")
        link = link_from_flags(capacity, rtt, packet_size)
        if not (math.isfinite(marking_threshold) and marking_threshold > 0):
            raise UsageError("--marking-threshold", marking_threshold, "packets > 0")
        P = DctcpParams(link=link, flows=flows, K=marking_threshold, g=g)
        wbar = P.wbar
        psi = P.psi if queue_floor else None
    wbar = 10.0 if wbar is None else wbar
    if not (math.isfinite(wbar) and 0 < wbar <= 1e4):
        raise UsageError("--wbar", wbar, "packets in (0, 10000]")
    with status(f"phase dctcp: integrating {len(DCTCP_STARTS)} trajectories"):
        doc, pp = run_phase_dctcp(wbar, g, psi=psi, duration=duration, out=path)
    _save(pp, path)
    if json:
        emit_json(doc)
