"""``dwtcp-fluid dctcp limit-cycle`` and ``dwtcp-fluid dctcp guide``: DCTCP limit cycles and guidelines."""

from __future__ import annotations

import math

import typer
from rich.console import Console
from rich.table import Table

from ...cli.app import dctcp_app
from ...cli.common import UsageError, WorkError, emit_json, link_from_flags, print_quantities
from ...cli.progress import progress_bar
from ...params import DEFAULT_FLOWS, DEFAULT_G, DEFAULT_RTT, DctcpParams


@dctcp_app.command("limit-cycle")
def limit_cycle(
    wbar: float = typer.Option(
        None, "--wbar", help="w̄ = (C·d + K)/N in packets (> 0); or use physical flags."
    ),
    g: float = typer.Option(DEFAULT_G, "--g", help="DCTCP EWMA gain, 0 < g ≤ 1."),
    psi: float = typer.Option(
        None, "--psi", help="ψ = K/(C·d) > 0: queue floor for the throughput (with --wbar)."
    ),
    capacity: str = typer.Option(
        None, "--capacity", help='Bottleneck capacity ("10Gbps"); with --rtt, --flows, --marking-threshold.'
    ),
    rtt: str = typer.Option(DEFAULT_RTT, "--rtt", help='Base RTT d ("100us").'),
    flows: int = typer.Option(DEFAULT_FLOWS, "--flows", help="N, with --capacity."),
    marking_threshold: float = typer.Option(
        65.0, "--marking-threshold", help="K in packets, with --capacity."
    ),
    packet_size: str = typer.Option("1500", "--packet-size", help="Packet size in bytes, with --capacity."),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """Limit cycle of the normalized DCTCP model (11)-(14) of [DCTCP-A] and Theorem 1's ρ.

    Normalized units: q̃ in C·R*, period in R*, throughput as a fraction of C (with the queue floor of
    section 3.3.2 when ψ is known). rho_paper is ρ(Z1·Z2) with exp(∫J), rho_monodromy with the true
    transition matrices, rho_return_map from finite differences of the return map.
    """
    from .report import limit_cycle_report

    if not (isinstance(g, int | float) and math.isfinite(g) and 0 < g <= 1):
        raise UsageError("--g", g, "a number with 0 < g <= 1")
    physical = None
    if wbar is None:
        if capacity is None:
            raise UsageError("--wbar", None, "packets > 0, or --capacity/--rtt/--flows/--marking-threshold")
        link = link_from_flags(capacity, rtt, packet_size)
        if not (isinstance(flows, int) and flows >= 1):
            raise UsageError("--flows", flows, "an integer >= 1")
        if not (math.isfinite(marking_threshold) and marking_threshold > 0):
            raise UsageError("--marking-threshold", marking_threshold, "packets > 0")
        physical = DctcpParams(link=link, flows=flows, K=marking_threshold, g=g)
        wbar, psi = physical.wbar, physical.psi
    if not (math.isfinite(wbar) and wbar > 0):
        raise UsageError("--wbar", wbar, "packets > 0")
    if psi is not None and not (math.isfinite(psi) and psi > 0):
        raise UsageError("--psi", psi, "a number > 0")
    out = limit_cycle_report(wbar, g, psi=psi, physical=physical)
    if out["status"] != "ok":
        # a status, never numbers: the finder did not reach the fixed point or could not follow the cycle
        if json:
            emit_json(out)
        raise WorkError(f"the limit-cycle finder gave no result at w̄ = {wbar:g}, g = {g:g}: {out['message']}")
    if json:
        emit_json(out)
        return
    print_quantities(
        f"DCTCP limit cycle, w̄ = {wbar:g}, g = {g:g} (normalized: time in R*, queue q̃ = (q − K)/(C·R*), "
        "negative below K)",
        out,
    )
    if physical is not None and isinstance(out.get("physical"), dict):
        print_quantities(
            f"the same cycle in physical units (C = {physical.link.C:.6g} packets/s, R* = d + K/C = "
            f"{physical.R_star:.6g} s, K = {physical.K:g} packets)",
            out["physical"],
        )


@dctcp_app.command("guide")
def guide(
    capacity: str = typer.Option(..., "--capacity", help='Bottleneck capacity ("10Gbps").'),
    rtt: str = typer.Option(..., "--rtt", help='Base RTT d ("300us").'),
    flows: int = typer.Option(None, "--flows", help="N long-lived flows (default: worst case over N)."),
    packet_size: str = typer.Option("1500", "--packet-size", help="Packet size in bytes."),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """K and the g range from our limit cycles and the hybrid model, next to the paper's (17), (18), (27)."""
    from .report import guide_report

    link = link_from_flags(capacity, rtt, packet_size)
    if flows is not None and not (isinstance(flows, int) and flows >= 1):
        raise UsageError("--flows", flows, "an integer >= 1")
    if link.bdp < 2.0:
        raise UsageError("--rtt", rtt, f"a C·d of at least 2 packets (got {link.bdp:.3g})")
    with progress_bar("dctcp guide: limit cycles", "iterations (at most)") as bar:
        out = guide_report(link, flows, progress=bar)
    if json:
        emit_json(out)
        return
    con = Console()
    t = Table(title=f"DCTCP guidelines, C·d = {out['bdp_packets']:.1f} packets", show_header=True)
    t.add_column("quantity")
    t.add_column("ours (from the data)")
    t.add_column("paper")
    p = out["paper"]
    t.add_row(
        "K (packets)",
        f"{out['K_packets']:.1f} ({out['K_fraction_of_bdp']:.3f}·C·d)",
        f"{p['K_packets']:.1f} (0.17·C·d)",
    )
    t.add_row("g lower", f"{out['g_min']:.4f}", f"{p['g_min']:.4f}")
    t.add_row("g upper", f"{out['g_max']:.4f}", f"{p['g_max']:.4f}")
    con.print(t)
    for line in out["reasoning"]:
        con.print("• " + line)
