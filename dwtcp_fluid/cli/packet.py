"""``dwtcp-fluid packet compare-fluid`` (and, from :mod:`.packet_run`, ``packet run`` and ``packet scenario``):
the packet-level JAX core (:mod:`dwtcp_fluid.packet`)."""

from __future__ import annotations

import math

import typer
from rich.console import Console
from rich.table import Table

# ``packet run`` and ``packet scenario`` (flags from the law registry) live in their own module
from . import packet_run as packet_run  # noqa: E402
from .app import packet_app
from .common import UsageError, emit_json, link_from_flags, require_unit
from .outputs import check_figure


def _check(flag: str, value: float, ok: bool, accepted: str) -> None:
    if not ok:
        raise UsageError(flag, value, accepted)


@packet_app.command("compare-fluid")
def compare_fluid(
    law: str = typer.Option(
        "dctcp",
        "--law",
        help="dctcp (two DCTCP fluid models), dwtcp (every DWTCP one), timely or timely-patched (their fluid model), "
        "d2tcp (its fluid models at d = 0.5, 1, 2).",
    ),
    flows: str = typer.Option("2,10,100", "--flows", help="Comma-separated N values."),
    capacity: str = typer.Option("10Gbps", "--capacity", help='Bottleneck capacity ("10Gbps").'),
    rtt: str = typer.Option(
        "100us", "--rtt", help='Base RTT d ("100us"); with --law dwtcp a list ("100us,1ms").'
    ),
    packet_size: str = typer.Option("1500", "--packet-size", help="Packet size L in bytes."),
    marking_threshold: float = typer.Option(
        65.0, "--marking-threshold", help="DCTCP: ECN threshold K, packets."
    ),
    g: float = typer.Option(1.0 / 16.0, "--g", help="DCTCP: EWMA gain g, 0 < g ≤ 1."),
    duration: str = typer.Option(
        "100ms", "--duration", help="DCTCP: simulated time; the last half is compared."
    ),
    beta: float = typer.Option(0.001, "--beta", help="DWTCP: β (byte convention), 0 < β ≤ 1."),
    target: float = typer.Option(
        100.0, "--target", help="DWTCP: target queue K of d_t = τ + K·L/C, packets."
    ),
    buffer: int = typer.Option(5000, "--buffer", help="DWTCP: data buffer of the packet run, packets."),
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
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """The packet core next to fluid models at the same parameters.

    --law dctcp: the paper's (5)-(8) and the ACK-clocked model (q = N·W − C·d); mean queue, amplitude, period,
    window, α; the tolerances are judged against the ACK-clocked model, which the packet core follows (the paper's
    queue equation (7) lags by one RTT and lengthens the period 1.6-1.8x).

    --law dwtcp: every registered DWTCP fluid predictor (paper (5)/(6) and sqrt (3), α fixed or a state, with and
    without the one-RTT Scout delay) at 10 Gbps, β = 0.001, K = 100, buffer 5000 by default, for every N × RTT;
    a table of mean queue, amplitude, period, utilization, window, α and each model's gaps to the packet run.
    """
    from .common import parse_list
    from .packet_timely import TIMELY_LAWS, compare_fluid_timely

    _check(
        "--law",
        law,
        law in ("dctcp", "dwtcp", "d2tcp", *TIMELY_LAWS),
        "dctcp | dwtcp | d2tcp | " + " | ".join(TIMELY_LAWS),
    )
    if plot:
        check_figure("--plot", plot)
    if law in TIMELY_LAWS:  # the cross-check's own settings (flows, rates, link); only --seed applies
        compare_fluid_timely(law, seed=seed, as_json=json)
        return
    if law == "d2tcp":  # held-d settings of its own (d = 0.5, 1, 2); only --seed applies
        from .packet_d2tcp import compare_fluid_d2tcp

        compare_fluid_d2tcp(seed=seed, as_json=json)
        return
    ns = parse_list("--flows", flows)
    if not all(n >= 1 and n == int(n) for n in ns):
        raise UsageError("--flows", flows, "comma-separated integers >= 1")
    if law == "dwtcp":
        from .packet_dwtcp import compare_fluid_dwtcp

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
    from ..packet.crosscheck import TOLERANCES, compare_dctcp, within_tolerance
    from ..params import DctcpParams
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
    rows, data = [], {}
    for n in (int(x) for x in ns):
        P = DctcpParams(link=link, flows=n, K=marking_threshold, g=g)
        c = compare_dctcp(n, params=P, duration=dur, seed=seed)
        ok, text = within_tolerance(c)
        data[n] = c
        rows.append(
            {
                "flows": n,
                "wbar": c["wbar"],
                "packet": c["packet"],
                "fluid": c["fluid"],
                "fluid_window": c["fluid_window"],
                "diff": c["diff"],
                "diff_window": c["diff_window"],
                "ratio": c["ratio"],
                "ratio_window": c["ratio_window"],
                "within_tolerance": ok,
                "measured": text,
            }
        )
    if plot:
        import matplotlib.pyplot as plt

        from ..packet.figures import plot_packet_vs_fluid
        from ..plots.style import save_figure

        fig = plot_packet_vs_fluid(data, flows=tuple(data))
        save_figure(fig, plot)
        plt.close(fig)
    out = {"tolerances": TOLERANCES, "rows": rows, "duration_s": dur}
    if json:
        emit_json(out)
        return
    t = Table(title="DCTCP packet core vs two fluid models (last half of the run)")
    for col in (
        "N",
        "quantity",
        "packet",
        "paper (7)",
        "packet − paper",
        "ACK-clocked",
        "packet − ACK-clocked",
    ):
        t.add_column(col)
    f = lambda v: "—" if v is None else f"{v:.4g}"  # noqa: E731
    for r in rows:
        for k in ("queue_mean", "amplitude", "period_s", "window_mean", "alpha_mean"):
            t.add_row(
                str(r["flows"]),
                k,
                f(r["packet"][k]),
                f(r["fluid"][k]),
                f(r["diff"][k]),
                f(r["fluid_window"][k]),
                f(r["diff_window"][k]),
            )
        t.add_row(str(r["flows"]), "within tolerance", str(r["within_tolerance"]), "", "", "", "")
    console = Console()
    console.print(t)
    for r in rows:
        console.print(r["measured"])
