"""``dwtcp-fluid dwtcp condition`` and ``dwtcp-fluid dwtcp eigen``."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from ...cli.app import dwtcp_app
from ...cli.common import UsageError, emit_json, link_from_flags
from ...cli.flags import declared
from ...params import DwtcpParams


def _params(
    beta: float, capacity: str, rtt: str, packet_size: str, flows: int, k: float = 0.0
) -> DwtcpParams:
    link = link_from_flags(capacity, rtt, packet_size)
    return DwtcpParams(link=link, flows=flows, beta=beta, k=k)


def _table(title: str, rows: list[tuple[str, str]]) -> None:
    t = Table(title=title, show_header=False)
    t.add_column("quantity", style="bold")
    t.add_column("value")
    for k, v in rows:
        t.add_row(k, v)
    Console().print(t)


@dwtcp_app.command("condition")
@declared()
def condition(
    beta: float,
    capacity: str,
    rtt: str,
    flows: int,
    packet_size: str,
    json: bool,
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
@declared()
def eigen(
    phase: str,
    kbar: float | None,
    window: float | None,
    variant: str,
    beta: float,
    capacity: str,
    rtt: str,
    flows: int,
    packet_size: str,
    json: bool,
) -> None:
    """Jacobian, eigenvalues and class of the DWTCP fluid model frozen at (w, q = k̄), eqs. (8)-(16)."""
    import numpy as np

    from .report import eigen_report

    if phase not in ("decrease", "increase"):
        raise UsageError("--phase", phase, "decrease or increase")
    if variant not in ("paper", "sqrt"):
        raise UsageError("--variant", variant, "paper or sqrt")
    P = _params(beta, capacity, rtt, packet_size, flows)
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
