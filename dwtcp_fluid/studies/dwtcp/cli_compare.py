"""``dwtcp-fluid packet compare-fluid --law dwtcp``: the DWTCP packet law next to every registered fluid predictor."""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table

from ...cli.common import UsageError, emit_json, link_from_flags, print_written
from ...cli.compare_table import compare_console
from ...cli.outputs import check_figure
from ...cli.progress import progress_bar


def _check(flag: str, value: Any, ok: bool, accepted: str) -> None:
    if not ok:
        raise UsageError(flag, value, accepted)


def _verdict(g: dict[str, Any]) -> str:
    """The verdict, with the reason when it is not a pass."""
    if g["verdict"] == "pass":
        return "pass"
    if g["verdict"] == "not scored":
        return "not scored: " + g["why"][0]
    failed = [w for w in g["why"] if w.endswith("outside tolerance") or w.startswith("model solver")]
    return "fail: " + "; ".join(failed)


def compare_fluid_dwtcp(
    flows: list[int],
    *,
    rtt: str,
    capacity: str,
    packet_size: str,
    beta: float,
    target: float,
    buffer: int,
    models: str | None,
    packet_rtts: float,
    fluid_rtts: float,
    seed: int,
    plot: str | None,
    as_json: bool,
) -> None:
    """Validate the flags, run :func:`~dwtcp_fluid.studies.dwtcp.checks.compare_dwtcp` for every N × RTT, print
    a table (or one JSON object) and optionally write the overlay figure."""
    from ...reports.compare import run_compare_fluid
    from ...sweep.predictors import predictors
    from .checks import TOLERANCES

    _check("--beta", beta, math.isfinite(beta) and 0 < beta <= 1, "a number with 0 < beta <= 1")
    _check("--target", target, math.isfinite(target) and target >= 0, "packets >= 0")
    _check("--buffer", buffer, 1 <= buffer <= 10**6, "an integer in [1, 1000000]")
    _check(
        "--packet-rtts",
        packet_rtts,
        math.isfinite(packet_rtts) and 10 <= packet_rtts <= 1e5,
        "RTTs in [10, 1e5]",
    )
    _check(
        "--fluid-rtts", fluid_rtts, math.isfinite(fluid_rtts) and 10 <= fluid_rtts <= 1e5, "RTTs in [10, 1e5]"
    )
    _check("--flows", flows, all(1 <= n <= 10000 for n in flows), "integers in [1, 10000]")
    rtts = [r.strip() for r in str(rtt).split(",") if r.strip()]
    _check("--rtt", rtt, bool(rtts), 'times such as "100us,1ms"')
    links = [link_from_flags(capacity, r, packet_size) for r in rtts]
    if plot:
        check_figure("--plot", plot)
    names = tuple(predictors(simulate=True))
    if models:
        chosen = tuple(m.strip() for m in models.split(",") if m.strip())
        bad = [m for m in chosen if m not in names]
        _check("--models", models, bool(chosen) and not bad, " | ".join(names))
        names = chosen
    with progress_bar("compare-fluid dwtcp", "runs") as bar:
        doc, results = run_compare_fluid(
            "dwtcp",
            flows,
            links=links,
            beta=beta,
            k=target,
            buffer=buffer,
            models=names,
            packet_rtts=packet_rtts,
            fluid_rtts=fluid_rtts,
            seed=seed,
            progress=bar,
        )
    if plot:
        from ...plots.style import save_figure, style
        from .plots_packet import plot_dwtcp_overlay

        with style():
            save_figure(plot_dwtcp_overlay(results), plot)
        print_written([plot])
    if as_json:
        emit_json(doc)
        return
    con = compare_console()
    for t in dwtcp_tables(results):
        con.print(t)
    con.print(
        f"verdict: pass when the mean queue is within {TOLERANCES['queue_mean_abs']:g} packets or "
        f"{TOLERANCES['queue_mean_rel']:.0%}, the utilization within {TOLERANCES['utilization_abs']:g} and the period "
        f"within {TOLERANCES['period_rel']:.0%} (where the packet period is regular; a standing-queue model needs a "
        "packet queue that never empties) of the packet run; not scored when the packet run says nothing."
    )


def dwtcp_tables(results: list[dict[str, Any]]) -> list[Table]:
    """One :func:`~dwtcp_fluid.cli.compare_table.compare_table` per setting of
    :func:`~dwtcp_fluid.studies.dwtcp.checks.compare_dwtcp`'s ``results``: the packet run, then each model."""
    from ...cli.compare_table import compare_table

    out = []
    for r in results:
        st, pk = r["setting"], r["packet"]
        title = (
            f"DWTCP, N = {st['flows']}, τ = {st['rtt_s'] * 1e6:.0f} µs (BDP {st['bdp']:.0f}), β = {st['beta']:g}, "
            f"K = {st['k']:g}, buffer {st['buffer']}: packet law vs fluid models"
        )
        rows = [(f"packet ({pk['class']})", pk, "")]
        rows += [(name, m, _verdict(r["gaps"][name])) for name, m in r["models"].items()]
        out.append(compare_table(title, rows))
    return out
