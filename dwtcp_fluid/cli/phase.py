"""``dwtcp-fluid phase dwtcp|dctcp --plot FILE``: phase portraits (format from the extension: png, svg, pdf)."""

from __future__ import annotations

import math
from pathlib import Path

import typer

from ..params import (
    DEFAULT_BETA,
    DEFAULT_CAPACITY,
    DEFAULT_FLOWS,
    DEFAULT_G,
    DEFAULT_RTT,
    DWTCP_TARGET,
    TARGET_HELP,
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
from .outputs import check_figure
from .progress import status
from .simulate import _run, check_span

phase_app = typer.Typer(
    help="Phase portraits: vector field per law, nullclines, switching surfaces, equilibria, trajectories.",
    no_args_is_help=True,
)
app.add_typer(phase_app, name="phase")

_CAP = typer.Option(DEFAULT_CAPACITY, "--capacity", help='Bottleneck capacity ("10Gbps", "833333pps").')
_RTT = typer.Option(DEFAULT_RTT, "--rtt", help='Base RTT d = τ ("100us", "0.1ms", "1e-4s").')
_PKT = typer.Option("1500", "--packet-size", help="Packet size L in bytes.")
_PLOT = typer.Option(
    ..., "--plot", help="Figure file to write; the format follows the extension (.png, .svg, .pdf)."
)
_JSON = typer.Option(False, "--json", help="Also print one JSON object (equilibria, end states).")


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
def phase_dwtcp(
    plot: str = _PLOT,
    capacity: str = _CAP,
    rtt: str = _RTT,
    packet_size: str = _PKT,
    flows: int = typer.Option(DEFAULT_FLOWS, "--flows", help="Number of flows N ≥ 1."),
    beta: float = typer.Option(
        DEFAULT_BETA, "--beta", help="DWTCP decrease gain β, 0 < β ≤ 1 (as in eq. (6))."
    ),
    target: float = typer.Option(DWTCP_TARGET, "--target", help=TARGET_HELP),
    delay: bool = typer.Option(
        True,
        "--delay/--no-delay",
        help="Scout feedback one RTT late (default) or the paper's undelayed model.",
    ),
    variant: str = typer.Option("paper", "--variant", help="paper (eq. (6)) or sqrt (eq. (3))."),
    duration: str = typer.Option(
        "100ms", "--duration", help='Simulated time per trajectory ("100ms", "0.1s").'
    ),
    json: bool = _JSON,
) -> None:
    """DWTCP (w, q) portrait of [DWTCP] eqs. (6)/(7), with or without the feedback delay."""
    from .. import units
    from ..reports.phase import run_phase_dwtcp

    path = _check_plot(plot)
    link = link_from_flags(capacity, rtt, packet_size)
    if not (isinstance(flows, int) and flows >= 1):
        raise UsageError("--flows", flows, "an integer >= 1")
    if not (math.isfinite(beta) and 0 < beta <= 1):
        raise UsageError("--beta", beta, "a number with 0 < beta <= 1")
    if not (math.isfinite(target) and target >= 0):
        raise UsageError("--target", target, "a queue target in packets >= 0")
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
def phase_dctcp(
    plot: str = _PLOT,
    wbar: float | None = typer.Option(
        None, "--wbar", help="w̄ = (C·d + K)/N in packets (default 10, Fig. 4)."
    ),
    g: float = typer.Option(DEFAULT_G, "--g", help="EWMA gain g, 0 < g ≤ 1."),
    capacity: str | None = typer.Option(
        None, "--capacity", help="With --rtt, --marking-threshold, --flows: w̄."
    ),
    rtt: str = _RTT,
    packet_size: str = _PKT,
    flows: int = typer.Option(DEFAULT_FLOWS, "--flows", help="Number of flows N ≥ 1 (with --capacity)."),
    marking_threshold: float = typer.Option(
        65.0, "--marking-threshold", help="K in packets (with --capacity)."
    ),
    queue_floor: bool = typer.Option(
        False, "--queue-floor/--no-queue-floor", help="With --capacity: q ≥ 0 (section 3.3.2), ψ = K/(C·d)."
    ),
    duration: float = typer.Option(
        300.0, "--duration-rstar", help="Simulated time in units of R* (normalized model time, > 0)."
    ),
    json: bool = _JSON,
) -> None:
    """DCTCP normalized model (11)-(14) of [DCTCP-A]: W̃–q̃ projection, α̃ as colour (Fig. 4)."""
    from ..reports.phase import run_phase_dctcp
    from ..studies.dctcp.figures_phase import DCTCP_STARTS

    path = _check_plot(plot)
    if not (math.isfinite(g) and 0 < g <= 1):
        raise UsageError("--g", g, "a number with 0 < g <= 1")
    psi = None
    if capacity is not None:
        if wbar is not None:
            raise UsageError("--wbar", wbar, "either --wbar or the physical flags (--capacity ...), not both")
        link = link_from_flags(capacity, rtt, packet_size)
        if not (isinstance(flows, int) and flows >= 1):
            raise UsageError("--flows", flows, "an integer >= 1")
        if not (math.isfinite(marking_threshold) and marking_threshold > 0):
            raise UsageError("--marking-threshold", marking_threshold, "packets > 0")
        P = DctcpParams(link=link, flows=flows, K=marking_threshold, g=g)
        wbar = P.wbar
        psi = P.psi if queue_floor else None
    wbar = 10.0 if wbar is None else wbar
    if not (math.isfinite(wbar) and 0 < wbar <= 1e4):
        raise UsageError("--wbar", wbar, "packets in (0, 10000]")
    if not (math.isfinite(duration) and 0 < duration <= 1e5):
        raise UsageError("--duration-rstar", duration, "units of R* in (0, 100000]")
    with status(f"phase dctcp: integrating {len(DCTCP_STARTS)} trajectories"):
        doc, pp = run_phase_dctcp(wbar, g, psi=psi, duration=duration, out=path)
    _save(pp, path)
    if json:
        emit_json(doc)
