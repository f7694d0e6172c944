"""``dwtcp-fluid dctcp hybrid``: α*, convergence rates and Theorem 3's bounds of the DCTCP hybrid model."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from ...cli.app import dctcp_app
from ...cli.common import UsageError, emit_json, link_from_flags
from ...cli.flags import Use, declared
from ...params import DctcpParams


@dctcp_app.command("hybrid")
@declared(
    flows=Use(default=2, note="Here N of the convergence run (and of W* from the physical flags)."),
    capacity=Use(default=None, note="With --rtt and --marking-threshold: W* from (C·d + K)/N."),
    rtt=Use(note="With --capacity."),
    marking_threshold=Use(note="With --capacity."),
    packet_size=Use(note="With --capacity."),
)
def hybrid(
    wstar: float,
    g: float,
    flows: int,
    capacity: str,
    rtt: str,
    marking_threshold: float,
    packet_size: str,
    json: bool,
) -> None:
    """Hybrid model of section 4 of [DCTCP-A]: α* (23), rates (25)/(26), Theorem 3 bounds.

    Rates are per RTT; times in RTTs. Give --wstar, or --capacity/--rtt/--marking-threshold/--flows.
    """
    from . import analysis_hybrid as hy
    from .report import hybrid_report

    if wstar is None:
        if capacity is None:
            raise UsageError(
                "--wstar", None, "a window in packets > 0, or --capacity/--rtt/--marking-threshold"
            )
        link = link_from_flags(capacity, rtt, packet_size)
        wstar = DctcpParams(link=link, flows=flows, K=marking_threshold, g=g).W_star
    if not (math.isfinite(wstar) and wstar > 0):
        raise UsageError("--wstar", wstar, "a window in packets > 0")
    out = hybrid_report(wstar, g, flows)
    if json:
        emit_json(out)
        return
    t = Table(title=f"DCTCP hybrid model, W* = {wstar:g} packets, g = {g:g}", show_header=False)
    t.add_column("quantity", style="bold")
    t.add_column("value")
    t.add_row("α* (23)", f"{out['alpha_star']:.6g}")
    t.add_row("Theorem 3 bounds", f"({out['alpha_bounds'][0]:.4g}, {out['alpha_bounds'][1]:.4g})")
    t.add_row(
        "β_DCTCP = min(g, γ) (25)", f"{out['rate_dctcp']:.6g} /RTT (limited by {out['rate_limited_by']})"
    )
    t.add_row("β_TCP (26)", f"{out['rate_tcp']:.6g} /RTT")
    t.add_row("β_TCP/β_DCTCP", f"{out['rate_ratio']:.4f} (paper's asymptote 2 ln 2 = {hy.LN2X2:.4f})")
    c = out["convergence"]

    def rtts(v: float | None) -> str:
        return f"{v:.1f}" if v is not None else f"not within {c['epochs']} epochs"

    t.add_row(
        f"worst-case convergence, N={flows}", f"{rtts(c['t_window_rtt'])} RTTs (α: {rtts(c['t_alpha_rtt'])})"
    )
    Console().print(t)
