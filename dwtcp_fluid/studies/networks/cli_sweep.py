"""``dwtcp-fluid dctcp network-sweep``: the parking lot over hops × cross-flow load, fluid model next to the packet
chain, written as an xarray dataset (NetCDF) like the DWTCP sweep.

A sibling of ``dctcp network`` (one setting, printed) rather than a sub-mode of it: a sweep has its own outputs
(``--out``, ``--force``, ``--resume``) and axes, which would be dead options on the one-setting command.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from ...cli.app import dctcp_app
from ...cli.common import (
    UsageError,
    emit_json,
    is_quiet,
    link_from_flags,
    print_written,
    require_unit,
)
from ...cli.flags import Use, declared
from ...cli.limits import check_budget
from ...cli.outputs import check_dir
from ...cli.sweep_errors import notes, resume_lines, sweep_errors

__all__ = ["network_sweep", "int_axis", "estimate"]

#: Unit costs of the pre-flight estimate, measured on the reference machine (2 cores) at 10 Gbps, 100 µs, 100 ms
#: (1000 base RTTs): the fluid network run took 8-9 s at 1 hop, 47 s at 2, 75-83 s at 4 and 221 s at 8 (linear in
#: the hops and in the run's length in RTTs, the solver's steps following the delay); the packet chain 1.3-15 s
#: for 1-8 hops (linear in the hops and in the packet slots T·C); tracemalloc's peak of one fluid run 4 MiB at
#: 1 hop, 7 MiB at 1 hop and 200 ms, 12 MiB at 2 hops (a generous 8 MiB per hop per 1000 RTTs here).
_FLUID_SECONDS_PER_HOP_KRTT = 28.0
_PACKET_SECONDS_PER_HOP_SLOT = 2.4e-5
_FLUID_BYTES_PER_HOP_KRTT = 8 * 2**20


def estimate(grid, d: float, C: float, T: float) -> tuple[float, float]:
    """Seconds and bytes of a network sweep over ``grid`` (base RTT ``d`` in s of the shortest group, capacity
    ``C`` in packets/s, run length ``T`` in s): every point's fluid run and packet chain one after another; the
    dataset three times (store, memory, NetCDF) plus the working memory of its longest point's fluid run."""
    from .checks_sweep import VARIABLES

    krtt = T / d / 1000.0
    hops = float(sum(grid.hops)) * grid.load.size
    seconds = hops * (krtt * _FLUID_SECONDS_PER_HOP_KRTT + T * C * _PACKET_SECONDS_PER_HOP_SLOT)
    per_point = sum(8 * (grid.links if len(dims) == 3 else 1) for dims, _, _ in VARIABLES.values())
    nbytes = 3.0 * grid.size * per_point + int(grid.hops.max()) * krtt * _FLUID_BYTES_PER_HOP_KRTT
    return seconds, nbytes


def int_axis(flag: str, text: str, lo: int, hi: int) -> list[int]:
    """``"1:6"`` (inclusive range) or ``"1,2,4"``: distinct integers in [lo, hi]."""
    accepted = f'distinct integers in [{lo}, {hi}]: a range "1:6" or a list "1,2,4"'
    s = str(text).strip()
    try:
        if ":" in s:
            a, b = (int(v) for v in s.split(":"))
            vals = list(range(a, b + 1))
        else:
            vals = [int(v) for v in s.split(",")]
    except ValueError:
        raise UsageError(flag, text, accepted) from None
    if not vals or len(set(vals)) != len(vals) or min(vals) < lo or max(vals) > hi:
        raise UsageError(flag, text, accepted)
    return sorted(vals)


@dctcp_app.command("network-sweep")
@declared(
    capacity=Use(note="Of every link."),
    rtt=Use(note="Of every cross flow."),
    marking_threshold=Use(note="Of every link."),
    duration=Use(note="Of the fluid and packet runs."),
    resume=Use(note="Here its verified points."),
    json=Use(note="Here the sweep's summary."),
)
def network_sweep(
    hops: str,
    cross_load: str,
    long_flows: int,
    capacity: str,
    rtt: str,
    rtt_long: str | None,
    marking_threshold: float,
    duration: str,
    out: Path,
    resume: bool,
    force: bool,
    yes: bool,
    json: bool,
) -> None:
    """Hops × cross-flow load of the DCTCP parking lot ([DCTCP-A] (5)-(8) per link): per point the fluid network
    model (per-group delays) and the packet chain — long-flow share, per-link queue and utilization, run classes —
    and their agreement within the cross-check's tolerances; writes <out>/network-sweep-<hash>.nc."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from ...units import parse_time
    from .checks_sweep import NetworkGrid, network_stem
    from .report import write_network_sweep

    h = int_axis("--hops", hops, 1, 16)
    loads = int_axis("--cross-load", cross_load, 1, 256)
    if not 1 <= long_flows <= 256:
        raise UsageError("--long-flows", long_flows, "an integer in [1, 256]")
    if not marking_threshold > 0:
        raise UsageError("--marking-threshold", marking_threshold, "packets > 0")
    link = link_from_flags(capacity, rtt)
    if rtt_long is not None:
        require_unit("--rtt-long", rtt_long, "time")
        try:
            ok = parse_time(rtt_long) > 0
        except ValueError:
            ok = False
        if not ok:
            raise UsageError("--rtt-long", rtt_long, 'a positive time such as "200us"')
    try:
        T = parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, 'a time such as "100ms"') from None
    if not 20 * link.d <= T <= 10.0:
        raise UsageError("--duration", duration, "between 20 base RTTs and 10 s")
    grid = NetworkGrid(
        h, loads, long_flows=long_flows, K=marking_threshold, capacity=capacity, rtt=rtt, rtt_long=rtt_long,
        duration=duration,
    )  # fmt: skip
    d = min(link.d, parse_time(rtt_long)) if rtt_long is not None else link.d
    seconds, nbytes = estimate(grid, d, link.C, T)
    check_budget(
        "--hops × --cross-load × --duration",
        f"{grid.size} points of {duration}",
        "this network sweep",
        seconds=seconds,
        nbytes=nbytes,
        yes=yes,
    )
    stem = network_stem(grid)
    products = [f"{stem}.nc", f"{stem}.zarr"]
    err = Console(stderr=True)
    with sweep_errors(out, stem), ExitStack() as stack:
        bar: list[Any] = []

        def progress(d: float, t: int) -> None:
            if not bar:  # shown from the sweep's first progress
                prog = stack.enter_context(
                    Progress(
                        TextColumn("[bold]network sweep[/] {task.description}"),
                        BarColumn(),
                        TextColumn("{task.completed:.0f}/{task.total:.0f} points"),
                        TimeElapsedColumn(),
                        TextColumn("ETA"),
                        TimeRemainingColumn(),
                        console=err,
                        transient=json or not err.is_terminal,
                        disable=(not err.is_terminal and json) or is_quiet(),
                    )
                )
                bar.extend((prog, prog.add_task(f"{grid.size} points", total=grid.size)))
            bar[0].update(bar[1], completed=d, total=t)

        summary, _ds = write_network_sweep(
            grid,
            out,
            resume=resume,
            progress=progress,
            report=resume_lines(err),
            note=notes(err),
            check=lambda keep: check_dir("--out", out, products, force=force, keep=keep),
        )
    if json:
        emit_json(summary)
        return
    from rich.table import Table

    t = Table(title=f"long-flow share of C, fluid / packet ({stem})")
    t.add_column("hops \\ cross flows")
    for n in summary["cross_load"]:
        t.add_column(str(n))
    for k, fl, pk, ag in zip(
        summary["hops"],
        summary["fluid_long_share"],
        summary["packet_long_share"],
        summary["point_agreement"],
        strict=True,
    ):
        t.add_row(
            str(k),
            *(f"{_share(f)} / {_share(p)} {a.replace('_', ' ')}" for f, p, a in zip(fl, pk, ag, strict=True)),
        )
    Console().print(t)
    print_written([summary["dataset"]])


def _share(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"
