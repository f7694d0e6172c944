"""``dwtcp-fluid packet compare-fluid`` (and, from :mod:`.packet_run`, ``packet run`` and ``packet scenario``):
the packet-level JAX core (:mod:`dwtcp_fluid.packet`)."""

from __future__ import annotations

import math
from importlib import import_module
from typing import Any

import typer
from rich.table import Table

from ..params import DEFAULT_BETA, DEFAULT_CAPACITY, DEFAULT_G, DEFAULT_RTT, DWTCP_TARGET, TARGET_HELP

# ``packet run`` and ``packet scenario`` (flags from the law registry) live in their own module
from . import packet_run as packet_run  # noqa: E402
from .app import packet_app
from .common import UsageError, check_duration, emit_json, link_from_flags, require_unit
from .compare_table import compare_console
from .limits import check_budget
from .outputs import check_figure
from .progress import progress_bar

#: Seconds of one packet-vs-fluid comparison (one N, one RTT) on the reference machine (2 cores), for the estimate:
#: dwtcp runs the packet core and every fluid predictor (3 settings took 141 s), dctcp one packet and two fluid runs.
_SECONDS_PER_COMPARISON = {"dwtcp": 47.0, "dctcp": 10.0}

#: Laws whose cross-check runs its own settings (flows, link, rates, d): law -> (module, function). The function
#: takes ``(law, *, seed, as_json)``; one line here adds a law to ``compare-fluid`` (the others, dctcp and dwtcp,
#: take the settings from the flags).
OWN_SETTINGS: dict[str, tuple[str, str]] = {
    "timely": ("dwtcp_fluid.studies.timely.cli_compare", "compare_fluid_timely"),
    "timely-patched": ("dwtcp_fluid.studies.timely.cli_compare", "compare_fluid_timely"),
    "d2tcp": ("dwtcp_fluid.studies.d2tcp.cli_compare", "compare_fluid_d2tcp"),
    "cubic": ("dwtcp_fluid.studies.cubic.cli_compare", "compare_fluid_cubic"),
}


def _check(flag: str, value: float, ok: bool, accepted: str) -> None:
    if not ok:
        raise UsageError(flag, value, accepted)


@packet_app.command("compare-fluid")
def compare_fluid(
    law: str = typer.Option(
        "dctcp",
        "--law",
        help="dctcp (two DCTCP fluid models), dwtcp (every DWTCP one), timely or timely-patched (their fluid model), "
        "d2tcp (its fluid models at d = 0.5, 1, 2), cubic (its hybrid fluid model).",
    ),
    flows: str = typer.Option("2,10,100", "--flows", help="Comma-separated N values."),
    capacity: str = typer.Option(DEFAULT_CAPACITY, "--capacity", help='Bottleneck capacity ("10Gbps").'),
    rtt: str = typer.Option(
        DEFAULT_RTT, "--rtt", help='Base RTT d ("100us"); with --law dwtcp a list ("100us,1ms").'
    ),
    packet_size: str = typer.Option("1500", "--packet-size", help="Packet size L in bytes."),
    marking_threshold: float = typer.Option(
        65.0, "--marking-threshold", help="DCTCP: ECN threshold K, packets."
    ),
    g: float = typer.Option(DEFAULT_G, "--g", help="DCTCP: EWMA gain g, 0 < g ≤ 1."),
    duration: str = typer.Option(
        "100ms", "--duration", help="DCTCP: simulated time; the last half is compared."
    ),
    beta: float = typer.Option(DEFAULT_BETA, "--beta", help="DWTCP: β (byte convention), 0 < β ≤ 1."),
    target: float = typer.Option(DWTCP_TARGET, "--target", help="DWTCP: " + TARGET_HELP),
    buffer: int = typer.Option(
        5000,
        "--buffer",
        help="DWTCP: data buffer of the packet run, packets (5000: no drops, as the fluid models it is compared "
        "with have no buffer; packet run's 250 is [DWTCP]'s switch buffer).",
    ),
    models: str = typer.Option(
        None, "--models", help="DWTCP: comma-separated fluid predictors (default: all)."
    ),
    packet_rtts: float = typer.Option(
        200.0, "--packet-rtts", help="DWTCP: measured RTTs after a 20-RTT warm-up."
    ),
    fluid_rtts: float = typer.Option(
        1000.0, "--fluid-rtts", help="DWTCP: fluid run length in RTTs (last half)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the packet run."),
    plot: str = typer.Option(None, "--plot", help="Write the packet-vs-fluid overlay figure to FILE."),
    yes: bool = typer.Option(False, "--yes", help="Run a comparison estimated to need over 1 h or 2 GiB."),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """The packet core next to fluid models at the same parameters.

    --law dctcp: the paper's (5)-(8) and the ACK-clocked model (q = N·W − C·d); mean queue, amplitude, period,
    window, α; the tolerances are judged against the ACK-clocked model, which the packet core follows (the paper's
    queue equation (7) lags by one RTT and lengthens the period 1.6-1.8x).

    --law dwtcp: every registered DWTCP fluid predictor (simplified (5)/(6) and sqrt (3), α fixed or a state, with
    and without the one-RTT Scout delay) at 10 Gbps, β = 0.001, K = 100, buffer 5000 by default, for every N × RTT;
    a table of mean queue, amplitude, period, utilization, window, α and each model's gaps to the packet run.
    """
    from .common import parse_list

    _check(
        "--law",
        law,
        law in ("dctcp", "dwtcp", *OWN_SETTINGS),
        "dctcp | dwtcp | " + " | ".join(OWN_SETTINGS),
    )
    if plot:
        check_figure("--plot", plot)
    if (
        law in OWN_SETTINGS
    ):  # laws whose cross-check has its own settings (flows, link, d); only --seed applies
        module, function = OWN_SETTINGS[law]
        getattr(import_module(module, __package__), function)(law, seed=seed, as_json=json)
        return
    ns = parse_list("--flows", flows)
    if not all(n >= 1 and n == int(n) for n in ns):
        raise UsageError("--flows", flows, "comma-separated integers >= 1")
    n_rtts = len([r for r in str(rtt).split(",") if r.strip()]) if law == "dwtcp" else 1
    check_budget(
        "--flows",
        flows if len(str(flows)) <= 40 else f"{str(flows)[:40]}…",
        f"{len(ns) * n_rtts} comparisons",
        seconds=len(ns) * n_rtts * _SECONDS_PER_COMPARISON[law],
        nbytes=50e6,  # the comparisons run one after another
        yes=yes,
    )
    if law == "dwtcp":
        from ..studies.dwtcp.cli_compare import compare_fluid_dwtcp

        compare_fluid_dwtcp(
            [int(n) for n in ns],
            rtt=rtt,
            capacity=capacity,
            packet_size=packet_size,
            beta=beta,
            target=target,
            buffer=buffer,
            models=models,
            packet_rtts=packet_rtts,
            fluid_rtts=fluid_rtts,
            seed=seed,
            plot=plot,
            as_json=json,
        )
        return
    from ..reports.compare import run_compare_fluid
    from ..units import parse_time

    _check("--g", g, math.isfinite(g) and 0 < g <= 1, "a number with 0 < g <= 1")
    _check(
        "--marking-threshold",
        marking_threshold,
        math.isfinite(marking_threshold) and marking_threshold >= 0,
        "packets >= 0",
    )
    link = link_from_flags(capacity, rtt, packet_size)
    require_unit("--duration", duration, "time")
    try:
        dur = parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, 'a positive time such as "100ms"') from None
    _check("--duration", duration, 200.0 / link.C <= dur <= 10.0, "a time between 200 slots and 10 s")
    check_duration(link, dur)
    with progress_bar("compare-fluid dctcp", "settings") as bar:
        out, data = run_compare_fluid(
            "dctcp",
            [int(n) for n in ns],
            links=[link],
            marking_threshold=marking_threshold,
            g=g,
            duration=dur,
            seed=seed,
            progress=bar,
        )
    rows = out["rows"]
    if plot:
        import matplotlib.pyplot as plt

        from ..packet.figures import plot_packet_vs_fluid
        from ..plots.style import save_figure

        fig = plot_packet_vs_fluid(data, flows=tuple(data))
        save_figure(fig, plot)
        plt.close(fig)
    if json:
        emit_json(out)
        return
    tables = dctcp_tables(rows, link, marking_threshold, g)
    console = compare_console()
    for t in tables:
        console.print(t)
    for r in rows:
        console.print(r["measured"])


def dctcp_tables(rows: list[dict[str, Any]], link: Any, marking_threshold: float, g: float) -> list[Table]:
    """One :func:`~.compare_table.compare_table` per N of the DCTCP document's ``rows``: the packet core, the
    paper's fluid model [DCTCP-A] (5)-(8) and the ACK-clocked one (the model the tolerances score)."""
    from .compare_table import compare_table

    out = []
    for r in rows:
        title = (
            f"DCTCP, N = {r['flows']}, τ = {link.d * 1e6:.0f} µs (BDP {link.bdp:.0f}), K = {marking_threshold:g}, "
            f"g = {g:g}: packet core vs fluid models (last half of the run)"
        )
        verdict = "pass" if r["within_tolerance"] else "fail (measured below)"
        out.append(
            compare_table(
                title,
                [
                    ("packet", r["packet"], ""),
                    (
                        "fluid (5)-(8) [DCTCP-A]",
                        r["fluid"],
                        "not scored: the tolerances score the ACK-clocked model",
                    ),
                    ("fluid, ACK-clocked", r["fluid_window"], verdict),
                ],
            )
        )
    return out
