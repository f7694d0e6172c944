"""``dwtcp-fluid dwtcp condition`` and ``dwtcp-fluid dwtcp eigen``."""

from __future__ import annotations

import math

import typer
from rich.console import Console
from rich.table import Table

from ...cli.app import dwtcp_app
from ...cli.common import UsageError, emit_json, link_from_flags
from ...params import DEFAULT_BETA, DEFAULT_CAPACITY, DEFAULT_FLOWS, DEFAULT_RTT, DwtcpParams

_CAP = typer.Option(DEFAULT_CAPACITY, "--capacity", help='Bottleneck capacity ("10Gbps", "833333pps").')
_RTT = typer.Option(DEFAULT_RTT, "--rtt", help='Base RTT τ ("100us", "0.1ms", "1e-4s").')
_PKT = typer.Option("1500", "--packet-size", help="Packet size L in bytes.")
_FLOWS = typer.Option(DEFAULT_FLOWS, "--flows", help="Number of flows N ≥ 1.")
_BETA = typer.Option(DEFAULT_BETA, "--beta", help="DWTCP decrease gain β, 0 < β ≤ 1.")
_JSON = typer.Option(False, "--json", help="Print exactly one JSON object.")


def _params(
    beta: float, capacity: str, rtt: str, packet_size: str, flows: int, k: float = 0.0
) -> DwtcpParams:
    link = link_from_flags(capacity, rtt, packet_size)
    if not (isinstance(flows, int) and flows >= 1):
        raise UsageError("--flows", flows, "an integer >= 1")
    if not (math.isfinite(beta) and 0 < beta <= 1):
        raise UsageError("--beta", beta, "a number with 0 < beta <= 1")
    if not (math.isfinite(k) and k >= 0):
        raise UsageError("--target", k, "a queue target in packets >= 0")
    return DwtcpParams(link=link, flows=flows, beta=beta, k=k)


def _table(title: str, rows: list[tuple[str, str]]) -> None:
    t = Table(title=title, show_header=False)
    t.add_column("quantity", style="bold")
    t.add_column("value")
    for k, v in rows:
        t.add_row(k, v)
    Console().print(t)


@dwtcp_app.command("condition")
def condition(
    beta: float = _BETA,
    capacity: str = _CAP,
    rtt: str = _RTT,
    flows: int = _FLOWS,
    packet_size: str = _PKT,
    json: bool = _JSON,
) -> None:
    """The paper's condition k̄ < k̄* = 2·BDP/√β ([DWTCP] eq. (14)) in numbers."""
    from .report import condition_report

    P = _params(beta, capacity, rtt, packet_size, flows)
    out = condition_report(P)
    if json:
        emit_json(out)
        return
    _table(
        "DWTCP condition k̄ < 2·BDP/√β",
        [
            ("β", f"{P.beta:g}"),
            ("BDP", f"{P.bdp:.2f} packets"),
            ("fair-share window BDP/N", f"{P.window_fair_share:.3f} packets"),
            ("k̄* = 2·BDP/√β", f"{P.kbar_crit:.1f} packets = {out['kbar_crit_over_bdp']:.2f}·BDP"),
            (
                "k̄* as queueing delay",
                f"{out['kbar_crit_delay_s'] * 1e6:.1f} µs ({out['kbar_crit_bytes'] / 1e6:.2f} MB)",
            ),
            ("guideline β = 1/(2√(BDP/N))", f"{P.beta_guideline:.4g}"),
        ],
    )
    Console().print(out["meaning"])


@dwtcp_app.command("eigen")
def eigen(
    phase: str = typer.Option("decrease", "--phase", help="decrease (eq. (6)) or increase (eq. (7))."),
    kbar: float | None = typer.Option(
        None, "--kbar", help="Queue ahead of the Scout k̄ in packets (decrease)."
    ),
    window: float | None = typer.Option(
        None, "--window", help="Per-flow window w in packets (default BDP/N)."
    ),
    variant: str = typer.Option("paper", "--variant", help="paper (eqs. (5)/(6)) or sqrt (eq. (3))."),
    beta: float = _BETA,
    capacity: str = _CAP,
    rtt: str = _RTT,
    flows: int = _FLOWS,
    packet_size: str = _PKT,
    json: bool = _JSON,
) -> None:
    """Jacobian, eigenvalues and class of the DWTCP fluid model frozen at (w, q = k̄), eqs. (8)-(16)."""
    import numpy as np

    from .report import eigen_report

    if phase not in ("decrease", "increase"):
        raise UsageError("--phase", phase, "decrease or increase")
    if variant not in ("paper", "sqrt"):
        raise UsageError("--variant", variant, "paper or sqrt")
    P = _params(beta, capacity, rtt, packet_size, flows)
    if window is not None and not (math.isfinite(window) and window > 0):
        raise UsageError("--window", window, "a window in packets > 0")
    if phase == "decrease":
        if kbar is None:
            raise UsageError("--kbar", kbar, "a queue in packets > 0 (required with --phase decrease)")
        if not (math.isfinite(kbar) and kbar >= 0):
            raise UsageError("--kbar", kbar, "a queue in packets >= 0")
    out = eigen_report(P, phase=phase, kbar=kbar, window=window, variant=variant)
    J = np.array(out["jacobian"])
    ev = [complex(re, im) for re, im in out["eigenvalues"]]
    w, q, cls, stab = out["window"], out["kbar"], out["classification"], out["stability"]
    if json:
        emit_json(out)
        return
    _table(
        f"DWTCP {phase} phase, frozen at w = {w:.4g}, q = {q:.4g} packets",
        [
            ("Jacobian", np.array2string(J, precision=5)),
            ("eigenvalues (1/s)", ", ".join(f"{e.real:.5g}{e.imag:+.5g}j" for e in ev)),
            ("class", cls),
            ("stability of the frozen system", stab),
            ("k̄* = 2·BDP/√β", f"{P.kbar_crit:.1f} packets"),
        ],
    )
