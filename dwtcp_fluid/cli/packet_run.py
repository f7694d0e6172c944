"""``dwtcp-fluid packet run`` and ``packet scenario``: the packet core from the command line.

The ``--law`` choices and every law-specific flag and its help come from the law registry
(:data:`dwtcp_fluid.packet.laws.LAWS` and each law's :attr:`~dwtcp_fluid.packet.laws.Law.options`): a law added as a
file (or registered from a notebook or a test) appears here without editing this module — the command is rebuilt
whenever a law is registered.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import typer
from rich.console import Console

from .app import packet_app
from .common import (
    UsageError,
    WorkError,
    emit_json,
    flush_warnings,
    link_from_flags,
    print_quantities,
    print_written,
    require_unit,
    warn,
    warn_implausible,
)
from .flags import Use, declared, parameter
from .limits import check_budget
from .outputs import check_figure
from .packet_laws import check, law_flags, law_param, laws_from_flags
from .packet_noise import check_noise_dist, rtt_noise_use
from .progress import progress_bar, status

__all__ = ["build_run_command"]


def _plot(summary: dict[str, Any], path: str) -> None:
    import matplotlib.pyplot as plt
    import numpy as np

    from ..plots.style import save_figure, style

    with style():
        fig = _draw_records(summary, plt, np)
        save_figure(fig, path)
        plt.close(fig)
    print_written([path])


def _draw_records(summary: dict[str, Any], plt: Any, np: Any) -> Any:
    """Queue and window at the end of each record chunk (the figure of ``packet run --plot``)."""
    rec = summary["records"]
    chunk_s = summary["duration_s"] / len(rec["q_end"])
    t = (np.arange(len(rec["q_end"])) + 1) * chunk_s * 1e3
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a1.plot(t, rec["q_end"], lw=0.8)
    a1.set_ylabel("queue (packets)")
    a2.plot(t, rec["cwnd_end"], lw=0.6)
    a2.set_ylabel("cwnd (packets)")
    a2.set_xlabel("time (ms)")
    a1.set_title(f"packet core: {summary['law']}, N = {summary['flows']}")
    fig.tight_layout()
    return fig


def _print(title: str, out: dict[str, Any], inputs: set[str] | None = None) -> None:
    """Results first, then the inputs the document echoes (``inputs``); a field the law does not define (None,
    e.g. DCTCP's α for DWTCP) is left out."""
    from ..reports.packet import RUN_ECHO_KEYS

    echo = set(RUN_ECHO_KEYS) | (inputs or set())
    shown = {k: v for k, v in out.items() if v is not None and v != ""}
    print_quantities(
        title, {k: v for k, v in shown.items() if k not in echo}, skip=("throughput_pps", "fct_s", "records")
    )
    print_quantities("inputs", {k: v for k, v in shown.items() if k in echo})


def _times(kw: dict[str, Any]) -> dict[str, float]:
    """The time flags in seconds (a bare number other than 0 is refused: it has no unit)."""
    from ..units import parse_time

    times = {}
    for flag, key in (
        ("--duration", "duration"),
        ("--jitter", "jitter"),
        ("--delack-timeout", "delack_timeout"),
        ("--rtt-noise", "rtt_noise"),
        ("--rto-min", "rto_min"),
    ):
        require_unit(flag, kw[key], "time")
        try:
            times[key] = parse_time(kw[key])
        except ValueError:
            raise UsageError(flag, kw[key], 'a time such as "100ms" or "200us"') from None
    return times


def _run(**kw: Any) -> None:
    from ..reports.packet import plan_packet_run
    from .packet_topology import print_chain

    if kw["plot"]:
        check_figure("--plot", kw["plot"])
    laws, options = laws_from_flags(kw)
    link = link_from_flags(kw["capacity"], kw["rtt"], kw["packet_size"], warn_now=False)
    times = _times(kw)
    keys = (
        "flows",
        "marking_threshold",
        "seed",
        "buffer",
        "mark_at",
        "mark_cmp",
        "jitter_dist",
        "reorder",
        "min_cwnd",
    )
    plan = plan_packet_run(
        laws,
        options,
        link=link,
        **{k: kw[k] for k in keys},
        loss=kw["loss"],
        delack=kw["delack"],
        rtt_noise_dist=kw["rtt_noise_dist"],
        topology=kw["topology"],
        traffic=kw["traffic"],
        engine=kw["engine"],
        **times,
    )
    if kw["plot"] and plan.topology != "single":
        raise UsageError("--plot", kw["plot"], f"no figure with --topology {plan.topology} (single only)")
    # the run's cost before any work: the core's rate (README, benchmarks/packet.py: 5.7 M data packets/s on the
    # reference machine, taken as 5 M/s, plus a compile of a few seconds) and the ACK ring of one RTT in slots
    packets = times["duration"] * link.C
    rtt_slots = 2 ** math.ceil(math.log2(max(min(link.d, times["duration"]) * link.C, 2.0) + 64))
    check_budget(
        "--duration",
        kw["duration"],
        f"a packet run of {packets:.3g} packet slots",
        seconds=packets / 5e6 + 3.0,
        nbytes=rtt_slots * 32 * 16 + kw["flows"] * 4096,
        yes=bool(kw.get("yes")),
    )
    warn_implausible(link, times["duration"])  # the inputs passed every check: warn before the work starts
    for line in plan.packet_run.meta.get("warnings", ()) if plan.packet_run is not None else ():
        warn(line)
    flush_warnings()
    if plan.topology == "single":
        with status(f"packet run: {packets:.3g} slots of {kw['law']} on {plan.topology}"):
            doc, data = plan.run()
    else:  # a multi-port run reports its chunks
        with progress_bar(f"packet run: {kw['law']} on {plan.topology}", "chunks") as bar:
            doc, data = plan.run(progress=bar)
    if doc.get("status", "ok") != "ok":  # a NaN/inf in the senders' state: a status, never NaN numbers
        if kw["json"]:
            emit_json({k: doc[k] for k in ("law", "flows", "status", "message") if k in doc})
        raise WorkError(f"packet run stopped with status {doc['status']}: {doc['message']}")
    if kw["plot"]:
        _plot(data.summary, kw["plot"])
    if kw["json"]:
        emit_json(doc)
    elif plan.topology == "single":
        _print(f"packet core: {doc['law']}, N = {doc['flows']}", doc, set(plan.echo))
    else:
        print_chain(doc)


def build_run_command() -> Any:
    """The ``packet run`` callback with one flag per registered law option (rebuilt when a law registers)."""
    from ..packet.laws import LAWS

    names = ", ".join(LAWS)
    params = [
        parameter(name, annotation, use)
        for name, annotation, use in (
            ("law", str, Use(note=f"Here: {names}; comma-separated to mix laws (flows split evenly).")),
            ("flows", int, None),
            ("capacity", str, None),
            ("rtt", str, None),
            ("packet_size", str, None),
            ("marking_threshold", float, None),
            ("duration", str, None),
            ("seed", int, Use(note="Here also of the start jitter, the send order and the impairments.")),
            ("buffer", int, None),
            ("mark_at", str, None),
            ("mark_cmp", str, None),
            ("jitter", str, None),
            ("jitter_dist", str, None),
            ("reorder", bool, None),
            ("loss", float, None),
            ("delack", int, None),
            ("delack_timeout", str, None),
            ("rto_min", str, None),
            ("min_cwnd", float | None, None),
            ("rtt_noise", str, rtt_noise_use()),
            ("rtt_noise_dist", str, None),
        )
    ]
    params += [law_param(flag, opt, owners) for flag, (opt, owners) in law_flags().items()]
    params += [
        parameter("plot", str | None, Use(note="Here a queue/window trace.")),
        parameter("json", bool),
        parameter("yes", bool),
        parameter("topology", str),
        parameter("traffic", str),
        parameter("engine", str),
    ]

    def run(**kwargs: Any) -> None:
        _run(**kwargs)

    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__doc__ = (
        "Run N flows of one law (or several, side by side) over a single bottleneck, with optional ACK-path jitter, "
        "random loss and delayed ACKs; summary over the last half of the run."
    )
    return run


def _register(_: Any = None) -> None:
    fn = build_run_command()
    for info in packet_app.registered_commands:
        if info.name == "run":
            info.callback = fn
            return
    packet_app.command("run")(fn)


@packet_app.command("scenario")
@declared(rtt_noise=rtt_noise_use())
def scenario_cmd(
    list_: bool,
    quick: bool,
    json: bool,
    rtt_noise: str,
    rtt_noise_dist: str,
    name: str = typer.Argument(None, help="A registered scenario (omit with --list)."),
) -> None:
    """Run a registered scenario (``dwtcp_fluid.packet.SCENARIOS``) and print each run's summary.

    --rtt-noise applies to every run of the scenario whose laws read the RTT (refused when none does, and for a
    scenario that sets its own noise, such as timely-noise).
    """
    from ..packet import SCENARIOS
    from ..reports.packet_scenario import run_packet_scenario

    if list_ or name is None:
        if json:
            emit_json({"scenarios": list(SCENARIOS)})
        else:
            Console().print("\n".join(SCENARIOS))
        return
    check("NAME", name, name in SCENARIOS, " | ".join(SCENARIOS))
    from ..units import parse_time

    check_noise_dist(rtt_noise_dist)
    require_unit("--rtt-noise", rtt_noise, "time")
    try:
        noise = parse_time(rtt_noise)
    except ValueError:
        raise UsageError("--rtt-noise", rtt_noise, 'a time such as "25us"') from None
    with status(f"packet scenario {name}{' (quick)' if quick else ''}: running"):
        doc, _ = run_packet_scenario(name, quick=quick, rtt_noise=noise, rtt_noise_dist=rtt_noise_dist)
    if json:
        emit_json(doc)
        return
    for i, o in enumerate(doc["runs"]):
        _print(f"{name} [{i}]", o)


def _install() -> None:
    from ..packet.laws import on_register

    _register()
    on_register(_register)


_install()
