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
    emit_json,
    flush_warnings,
    link_from_flags,
    print_quantities,
    print_written,
    require_unit,
    warn_implausible,
)
from .limits import check_budget
from .outputs import check_figure
from .packet_noise import (
    check_noise_dist,
    check_noise_laws,
    rtt_noise_dist_option,
    rtt_noise_option,
    with_noise,
)

__all__ = ["build_run_command", "law_flags"]


def _check(flag: str, value: Any, ok: bool, accepted: str) -> None:
    if not ok:
        raise UsageError(flag, value, accepted)


def law_flags() -> dict[str, Any]:
    """Every registered law's command-line options by flag (a flag shared by several laws appears once), with
    the laws that own it: ``{flag: (LawOption, [law names])}``."""
    from ..packet.laws import LAWS

    out: dict[str, Any] = {}
    for name, cls in LAWS.items():
        for opt in cls.options:
            if opt.flag in out:
                out[opt.flag][1].append(name)
            else:
                out[opt.flag] = (opt, [name])
    return out


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


def _print(title: str, out: dict[str, Any]) -> None:
    print_quantities(title, out, skip=("throughput_pps", "fct_s", "records"))


def _run(**kw: Any) -> None:
    from ..packet import build
    from ..packet import run as run_packet
    from ..packet.laws import LAWS
    from ..packet.topology import TOPOLOGY_FORMS, parse_topology
    from ..units import parse_time
    from .packet_topology import run_chain_cli

    names = [s.strip() for s in str(kw["law"]).split(",") if s.strip()]
    for name in names or [kw["law"]]:
        _check("--law", kw["law"], name in LAWS, " | ".join(LAWS) + " (comma-separated to mix laws)")
    flows = kw["flows"]
    _check("--flows", flows, 1 <= flows <= 10000, "an integer in [1, 10000]")
    _check("--flows", flows, flows >= len(names), f"at least one flow per law ({len(names)})")
    K = kw["marking_threshold"]
    _check("--marking-threshold", K, math.isfinite(K) and K >= 0, "packets >= 0")
    _check("--buffer", kw["buffer"], 1 <= kw["buffer"] <= 10**6, "an integer in [1, 1000000]")
    _check("--mark-at", kw["mark_at"], kw["mark_at"] in ("enqueue", "dequeue"), "enqueue | dequeue")
    _check("--mark-cmp", kw["mark_cmp"], kw["mark_cmp"] in ("ge", "gt"), "ge | gt")
    _check("--loss", kw["loss"], 0 <= kw["loss"] < 1, "a probability in [0, 1)")
    _check("--delack", kw["delack"], 1 <= kw["delack"] <= 64, "an integer in [1, 64] (packets per ACK)")
    _check(
        "--jitter-dist",
        kw["jitter_dist"],
        kw["jitter_dist"] in ("uniform", "exponential"),
        "uniform | exponential",
    )
    check_noise_dist(kw["rtt_noise_dist"])
    _check("--engine", kw["engine"], kw["engine"] in ("auto", "jax", "native"), "auto | jax | native")
    if kw["plot"]:
        check_figure("--plot", kw["plot"])
    link = link_from_flags(kw["capacity"], kw["rtt"], kw["packet_size"], warn_now=False)
    times = {}
    for flag, key in (
        ("--duration", "duration"),
        ("--jitter", "jitter"),
        ("--delack-timeout", "delack_timeout"),
        ("--rtt-noise", "rtt_noise"),
    ):
        require_unit(flag, kw[key], "time")
        try:
            times[key] = parse_time(kw[key])
        except ValueError:
            raise UsageError(flag, kw[key], 'a time such as "100ms" or "200us"') from None
    _check(
        "--duration",
        kw["duration"],
        20.0 / link.C <= times["duration"] <= 100.0,
        "a time between 20 slots and 100 s",
    )
    # a run shorter than one RTT returns no ACK at all: nothing to report, refused rather than printed as zeros
    _check(
        "--rtt",
        kw["rtt"],
        link.d <= times["duration"],
        f"an RTT no longer than --duration ({kw['duration']})",
    )
    # the run's cost before any work: the core's rate (README, benchmarks/packet.py: 5.7 M data packets/s on the
    # reference machine, taken as 5 M/s, plus a compile of a few seconds) and the ACK ring of one RTT in slots
    packets = times["duration"] * link.C
    rtt_slots = 2 ** math.ceil(math.log2(max(min(link.d, times["duration"]) * link.C, 2.0) + 64))
    check_budget(
        "--duration",
        kw["duration"],
        f"a packet run of {packets:.3g} packet slots",
        seconds=packets / 5e6 + 3.0,
        nbytes=rtt_slots * 32 * 16 + flows * 4096,
        yes=bool(kw.get("yes")),
    )
    laws, params, values = [], [], {}
    for name in names:
        cls = LAWS[name]
        options, p = {}, {}
        for opt in cls.options:
            v = kw[opt.dest]
            if opt.option is not None:
                options[opt.option] = bool(v)
                values[opt.dest] = bool(v)
                continue
            v = opt.default if v is None else v
            lo_ok = opt.lo is None or (v > opt.lo if opt.lo_open else v >= opt.lo)
            hi_ok = opt.hi is None or (v < opt.hi if opt.hi_open else v <= opt.hi)
            _check(opt.flag, v, math.isfinite(v) and lo_ok and hi_ok, opt.help)
            p[opt.param] = opt.convert(v, link) if opt.convert else float(v)
            values[opt.dest] = v
        laws.append(cls(**options))
        params.append(p)
    for flag, (opt, owners) in law_flags().items():
        v = kw[opt.dest]
        given = bool(v) if opt.option is not None else v is not None
        if given and not set(owners) & set(names):
            raise UsageError(flag, f"with --law {kw['law']}", f"only with --law {' | '.join(owners)}")
    check_noise_laws(kw["rtt_noise"], times["rtt_noise"], laws)
    try:
        topo = parse_topology(kw["topology"])
    except ValueError:
        raise UsageError("--topology", kw["topology"], TOPOLOGY_FORMS) from None
    if topo.kind != "single":
        _check("--engine", kw["engine"], kw["engine"] != "native", "auto | jax with a multi-hop --topology")
        run_chain_cli(kw, topo, link, laws, params, times)
        return
    pr = build(
        laws if len(laws) > 1 else laws[0],
        link=link,
        flows=flows,
        K=K,
        duration=times["duration"],
        seed=kw["seed"],
        buffer=kw["buffer"],
        mark_at=kw["mark_at"],
        mark_cmp=kw["mark_cmp"],
        law_params=params if len(params) > 1 else params[0],
        jitter=times["jitter"],
        jitter_dist=kw["jitter_dist"],
        jitter_reorder=kw["reorder"],
        loss=kw["loss"],
        delack=kw["delack"],
        delack_timeout=times["delack_timeout"],
        rtt_noise=times["rtt_noise"],
        rtt_noise_dist=kw["rtt_noise_dist"],
    )
    warn_implausible(link, times["duration"])  # the inputs passed every check: warn before the work starts
    flush_warnings()
    out = run_packet(pr, engine=kw["engine"])
    if kw["plot"]:
        _plot(out, kw["plot"])
    out.pop("records")
    out.update({"seed": kw["seed"], "marking_threshold": K})
    for opt, _ in law_flags().values():
        out[opt.dest] = values.get(opt.dest)
    out.update({"slot_s": pr.slot, "capacity_pps": link.C, "rtt_s": link.d})
    out.update({"rtt_noise_s": times["rtt_noise"], "rtt_noise_dist": kw["rtt_noise_dist"]})
    if kw["json"]:
        emit_json(out)
        return
    _print(f"packet core: {kw['law']}, N = {flows}", out)


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
        P("rtt_noise", kw, default=rtt_noise_option(), annotation=str),
        P("rtt_noise_dist", kw, default=rtt_noise_dist_option(), annotation=str),
    ]
    for flag, (opt, owners) in law_flags().items():
        help_ = f"{opt.help} (law: {', '.join(owners)})"
        if opt.option is not None:
            params.append(P(opt.dest, kw, default=O(False, flag, help=help_), annotation=bool))
        else:
            params.append(
                P(
                    opt.dest,
                    kw,
                    default=O(None, flag, help=f"{help_} Default {opt.default:g}."),
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
    from ..packet import SCENARIOS, run_many

    if list_ or name is None:
        if json:
            emit_json({"scenarios": list(SCENARIOS)})
        else:
            Console().print("\n".join(SCENARIOS))
        return
    _check("NAME", name, name in SCENARIOS, " | ".join(SCENARIOS))
    from ..units import parse_time

    check_noise_dist(rtt_noise_dist)
    require_unit("--rtt-noise", rtt_noise, "time")
    try:
        noise = parse_time(rtt_noise)
    except ValueError:
        raise UsageError("--rtt-noise", rtt_noise, 'a time such as "25us"') from None
    runs = SCENARIOS[name](quick)
    if noise != 0.0:
        runs = with_noise(runs, rtt_noise, noise, rtt_noise_dist)
    outs = run_many(runs)
    for o in outs:
        o.pop("records")
    if json:
        emit_json({"scenario": name, "quick": quick, "runs": outs})
        return
    for i, o in enumerate(outs):
        _print(f"{name} [{i}]", o)


def _install() -> None:
    from ..packet.laws import on_register

    _register()
    on_register(_register)


_install()
