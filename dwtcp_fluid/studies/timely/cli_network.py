"""``dwtcp-fluid timely network``: the TIMELY family's fluid model over a parking lot on a hop signal, optionally
against the packet core (``--packet``): the sibling of ``dctcp network``."""

from __future__ import annotations

import typer

from ...cli.app import CONTEXT, app
from ...cli.common import UsageError, emit_json, link_from_flags
from ...cli.flags import Use, declared

__all__ = ["timely_app", "network"]

timely_app = typer.Typer(
    help="The TIMELY family [TIMELY] over several bottlenecks on [PROXY]'s hop signals.",
    no_args_is_help=True,
    context_settings=CONTEXT,
)
app.add_typer(timely_app, name="timely")

_LAWS = ("timely", "patched")
_SIGNALS = ("sum", "max", "sum_squ")


@timely_app.command("network")
@declared(
    topology=Use(default="parking-lot:2", note="Here parking-lot:K (K hops, 1..6)."),
    law=Use(default="patched", note="Here timely | patched (Patched TIMELY)."),
    signal=Use(default="sum", note="Here sum (an RTT) | max | sum_squ."),
    flows=Use(default=1, note="Here the flows of the long group (1..64)."),
    capacity=Use(note="Of every link."),
    rtt=Use(default="20us", note="Of every flow; TIMELY's below T_low = 50 µs."),
    duration=Use(
        default="200ms", note="Of the fluid (and packet) run: TIMELY's additive start fills the links."
    ),
    packet=Use(default=False, note="Here a switch: also run the packet parking lot and score the pair."),
)
def network(
    topology: str,
    law: str,
    signal: str,
    flows: int,
    cross_flows: int,
    capacity: str,
    rtt: str,
    duration: str,
    packet: bool,
    seed: int,
    json: bool,
) -> None:
    """TIMELY or Patched TIMELY over a parking lot, each group driven by d + f(its hops' queueing delays): the
    Patched fixed point (TIMELY has a continuum), a JAX DDE run, and with --packet the packet law (timely-hops or
    timely-patched-hops) at the same setting, scored against the cross-check's stated tolerances."""
    from ...units import parse_time
    from .checks_network import TimelySetting
    from .report_network import timely_network_report

    kind, _, k = topology.partition(":")
    if kind != "parking-lot" or not (k.isascii() and k.isdigit()) or not 1 <= int(k) <= 6:
        raise UsageError("--topology", topology, "parking-lot:K with K in [1, 6]")
    if law not in _LAWS:
        raise UsageError("--law", law, " | ".join(_LAWS))
    if signal not in _SIGNALS:
        why = " (ind is a one-bit mark: dctcp network)" if signal == "ind" else ""
        raise UsageError("--signal", signal, " | ".join(_SIGNALS) + why)
    for flag, v in (("--flows", flows), ("--cross-flows", cross_flows)):
        if not 1 <= v <= 64:
            raise UsageError(flag, v, "an integer in [1, 64]")
    link = link_from_flags(capacity, rtt)
    try:
        T = parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, 'a time such as "200ms"') from None
    if not 20 * link.d <= T <= 2.0:
        raise UsageError("--duration", duration, "between 20 base RTTs and 2 s")
    s = TimelySetting(int(k), law, signal, flows, cross_flows, capacity, rtt, duration)
    from .analysis_network import OutsideBandError

    try:
        doc = timely_network_report(s, packet=packet, seed=seed)
    except OutsideBandError as e:
        head, _, accepted = str(e).partition(": accepted ")
        raise UsageError("--rtt", rtt, f"{accepted} ({head})") from None
    if json:
        emit_json(doc)
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{'Patched TIMELY' if law == 'patched' else 'TIMELY'} on {signal.upper()}, {s.name}")
    t.add_column("quantity")
    cols = ["fixed_point", "fluid"] + (["packet"] if packet else [])
    for c in cols:
        t.add_column(c.replace("_", " "))
    units = {
        "share": "share per flow (of line rate)",
        "queue": "mean queue per hop (packets)",
        "rtt_us": "path RTT (µs)",
    }
    for key, label in units.items():
        row = [label]
        for c in cols:
            v = doc[c].get(key)
            row.append(
                "continuum" if v is None and c == "fixed_point" else ", ".join(f"{x:.4g}" for x in v or [])
            )
        t.add_row(*row)
    if packet:
        sc = doc["score"]
        verdict = {True: "pass", False: "FAIL", None: "not scored"}[sc["passed"]]
        errs = ", ".join(f"{k} {v:.3g}" for k, v in sc["errors"].items())
        t.add_row(
            "class / verdict",
            "",
            "",
            f"{sc['class']} / {verdict} ({errs}; scored: {', '.join(sc['scored'])})",
        )
    Console().print(t)
