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

from ..params import DEFAULT_CAPACITY, DEFAULT_RTT
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
from .limits import check_budget
from .outputs import check_figure
from .packet_laws import check, choice_param, example, law_flags, laws_from_flags
from .packet_noise import check_noise_dist, rtt_noise_dist_option, rtt_noise_option
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

    O = typer.Option  # noqa: N806
    P = inspect.Parameter  # noqa: N806
    kw = P.KEYWORD_ONLY
    names = ", ".join(LAWS)
    params = [
        P(
            "law",
            kw,
            default=O(
                "dctcp", "--law", help=f"Law: {names}; comma-separated to mix laws (flows split evenly)."
            ),
            annotation=str,
        ),
        P("flows", kw, default=O(10, "--flows", help="Number of long-lived flows N ≥ 1."), annotation=int),
        P(
            "capacity",
            kw,
            default=O(DEFAULT_CAPACITY, "--capacity", help='Bottleneck capacity ("10Gbps", "833333pps").'),
            annotation=str,
        ),
        P("rtt", kw, default=O(DEFAULT_RTT, "--rtt", help='Base RTT ("100us", "20ms").'), annotation=str),
        P(
            "packet_size",
            kw,
            default=O("1500", "--packet-size", help="Packet size L in bytes."),
            annotation=str,
        ),
        P(
            "marking_threshold",
            kw,
            default=O(65.0, "--marking-threshold", help="ECN threshold K, packets."),
            annotation=float,
        ),
        P("duration", kw, default=O("100ms", "--duration", help='Simulated time ("100ms").'), annotation=str),
        P(
            "seed",
            kw,
            default=O(0, "--seed", help="Seed (start jitter, send order, impairments)."),
            annotation=int,
        ),
        P("buffer", kw, default=O(250, "--buffer", help="Data buffer, packets (drop-tail)."), annotation=int),
        P(
            "mark_at",
            kw,
            default=O("enqueue", "--mark-at", help="ECN marking at 'enqueue' or 'dequeue'."),
            annotation=str,
        ),
        P(
            "mark_cmp",
            kw,
            default=O("ge", "--mark-cmp", help="Mark when queue 'ge' (≥) or 'gt' (>) K."),
            annotation=str,
        ),
        P(
            "jitter",
            kw,
            default=O(
                "0s", "--jitter", help="ACK-path jitter: largest delay (uniform) or mean (exponential)."
            ),
            annotation=str,
        ),
        P(
            "jitter_dist",
            kw,
            default=O("uniform", "--jitter-dist", help="Jitter distribution: uniform | exponential."),
            annotation=str,
        ),
        P(
            "reorder",
            kw,
            default=O(False, "--reorder", help="Jittered ACKs of a flow may overtake each other."),
            annotation=bool,
        ),
        P(
            "loss",
            kw,
            default=O(0.0, "--loss", help="Probability of losing a data packet after the bottleneck."),
            annotation=float,
        ),
        P(
            "delack",
            kw,
            default=O(1, "--delack", help="Delayed ACKs: one ACK per this many packets (1: off)."),
            annotation=int,
        ),
        P(
            "delack_timeout",
            kw,
            default=O("1ms", "--delack-timeout", help="Delayed-ACK timeout."),
            annotation=str,
        ),
        P(
            "rto_min",
            kw,
            default=O("1ms", "--rto-min", help="Retransmission timeout of every sender (Linux's rto_min)."),
            annotation=str,
        ),
        P(
            "min_cwnd",
            kw,
            default=O(
                None,
                "--min-cwnd",
                help="Window floor after a decrease, packets (default: the law's, 2 for DCTCP, Reno and CUBIC, "
                "1 for DWTCP).",
            ),
            annotation=float | None,
        ),
        P("rtt_noise", kw, default=rtt_noise_option(), annotation=str),
        P("rtt_noise_dist", kw, default=rtt_noise_dist_option(), annotation=str),
    ]
    for flag, (opt, owners) in law_flags().items():
        help_ = f"{opt.help} (law: {', '.join(owners)})"
        if opt.choices is not None:
            params.append(choice_param(flag, opt, owners))
        elif opt.option is not None:
            params.append(P(opt.dest, kw, default=O(False, flag, help=help_), annotation=bool))
        elif opt.quantity is not None:  # a time or a rate: typed with its unit
            params.append(
                P(
                    opt.dest,
                    kw,
                    default=O(None, flag, help=f"{help_} Default {example(opt)[1:-1]}."),
                    annotation=str | None,
                )
            )
        else:
            params.append(
                P(
                    opt.dest,
                    kw,
                    default=O(
                        None, flag, help=f"{help_} Default {opt.default_note or format(opt.default, 'g')}."
                    ),
                    annotation=float | None,
                )
            )
    params += [
        P(
            "plot",
            kw,
            default=O(None, "--plot", help="Write a queue/window trace figure to FILE."),
            annotation=str | None,
        ),
        P("json", kw, default=O(False, "--json", help="Print exactly one JSON object."), annotation=bool),
        P(
            "yes",
            kw,
            default=O(False, "--yes", help="Run even if estimated over 1 h or 2 GiB."),
            annotation=bool,
        ),
        P(
            "topology",
            kw,
            default=O(
                "single",
                "--topology",
                help="single | path:K | parking-lot:K (multi-hop chain) | leaf-spine:LxS (--flows per leaf pair).",
            ),
            annotation=str,
        ),
        P(
            "traffic",
            kw,
            default=O(
                "all-to-all", "--traffic", help="leaf-spine traffic: all-to-all | permutation (seeded)."
            ),
            annotation=str,
        ),
        P(
            "engine",
            kw,
            default=O(
                "auto",
                "--engine",
                help="auto (the native loop where it is bit-identical to the JAX reference) | jax | native.",
            ),
            annotation=str,
        ),
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
def scenario_cmd(
    name: str = typer.Argument(None, help="A registered scenario (omit with --list)."),
    list_: bool = typer.Option(False, "--list", help="List the registered scenarios."),
    quick: bool = typer.Option(False, "--quick", help="The short version (as CI runs it)."),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
    rtt_noise: str = rtt_noise_option(),
    rtt_noise_dist: str = rtt_noise_dist_option(),
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
