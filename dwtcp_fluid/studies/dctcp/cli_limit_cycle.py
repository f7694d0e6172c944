"""``dwtcp-fluid dctcp limit-cycle`` and ``dwtcp-fluid dctcp guide``: DCTCP limit cycles and guidelines."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from ...cli.app import dctcp_app
from ...cli.common import UsageError, WorkError, emit_json, link_from_flags, print_quantities
from ...cli.flags import REQUIRED, Use, declared
from ...cli.progress import progress_bar
from ...params import DctcpParams


@dctcp_app.command("limit-cycle")
@declared(
    wbar=Use(note="Or the physical flags."),
    capacity=Use(default=None, note="With --rtt, --flows, --marking-threshold."),
    flows=Use(note="With --capacity."),
    marking_threshold=Use(note="With --capacity."),
    packet_size=Use(note="With --capacity."),
)
def limit_cycle(
    wbar: float,
    g: float,
    psi: float,
    capacity: str,
    rtt: str,
    flows: int,
    marking_threshold: float,
    packet_size: str,
    json: bool,
) -> None:
    """Limit cycle of the normalized DCTCP model (11)-(14) of [DCTCP-A] and Theorem 1's ρ.

    Normalized units: q̃ in C·R*, period in R*, throughput as a fraction of C (with the queue floor of
    section 3.3.2 when ψ is known). rho_paper is ρ(Z1·Z2) with exp(∫J), rho_monodromy with the true
    transition matrices, rho_return_map from finite differences of the return map.
    """
    from .report import limit_cycle_report

    physical = None
    if wbar is None:
        if capacity is None:
            raise UsageError("--wbar", None, "packets > 0, or --capacity/--rtt/--flows/--marking-threshold")
        link = link_from_flags(capacity, rtt, packet_size)
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
@declared(
    capacity=Use(default=REQUIRED),
    rtt=Use(default=REQUIRED),
    flows=Use(default=None, note="Default: the worst case over N."),
)
def guide(
    capacity: str,
    rtt: str,
    flows: int,
    packet_size: str,
    json: bool,
) -> None:
    """K and the g range from our limit cycles and the hybrid model, next to the paper's (17), (18), (27)."""
    from .report import guide_report

    link = link_from_flags(capacity, rtt, packet_size)
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
