"""``dwtcp-fluid sweep``: the DWTCP condition k̄ < 2·BDP/√β over a (β, BDP, N, k̄/k̄*) grid (``--law dwtcp``, the
default), or another law's judged sweep (``--law dctcp``: :mod:`.sweep_study`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from .app import app
from .common import (
    UsageError,
    accepted_of,
    emit_json,
    flush_warnings,
    is_quiet,
    parse_list,
    print_written,
    require_unit,
    warn,
)
from .flags import Use, declared
from .limits import check_budget, check_scheduler
from .outputs import check_dir
from .sweep_errors import notes, resume_lines, sweep_errors
from .sweep_print import print_summary

if TYPE_CHECKING:  # imported where used, so `--help` stays fast
    from ..sweep import SweepGrid


def _grid(beta: str, bdp: str, flows: str, kbar_ratio: str, capacity: str, packet_size: str) -> SweepGrid:
    from ..sweep import SweepGrid

    require_unit("--capacity", capacity, "rate")

    axes = {
        "--beta": parse_list("--beta", beta),
        "--bdp": parse_list("--bdp", bdp),
        "--flows": parse_list("--flows", flows),
        "--kbar-ratio": parse_list("--kbar-ratio", kbar_ratio),
    }
    names = {"--beta": "beta", "--bdp": "bdp", "--flows": "flows", "--kbar-ratio": "kbar_ratio"}
    for flag, name in names.items():
        try:
            SweepGrid(**{name: axes[flag]})
        except ValueError as e:
            raise UsageError(
                flag,
                {"--beta": beta, "--bdp": bdp, "--flows": flows, "--kbar-ratio": kbar_ratio}[flag],
                accepted_of(e),
            ) from None
    if (
        float(axes["--bdp"].min()) < 1.0
    ):  # legal but odd: warned as every command warns a BDP below one packet
        warn(
            f"--bdp {bdp!r} holds BDPs below one packet (smallest {float(axes['--bdp'].min()):.3g}): the fluid "
            "models and the packet runs are not meant for them"
        )
    try:
        return SweepGrid(
            beta=axes["--beta"],
            bdp=axes["--bdp"],
            flows=axes["--flows"],
            kbar_ratio=axes["--kbar-ratio"],
            capacity=capacity,
            packet_size=packet_size,
        )
    except ValueError as e:
        flag = "--capacity" if "capacity" in str(e) else "--packet-size"
        raise UsageError(flag, capacity if flag == "--capacity" else packet_size, accepted_of(e)) from None


#: The DWTCP sweep's own flags (its axes and its packet pass): refused with another --law.
DWTCP_FLAGS = {"beta": "--beta", "bdp": "--bdp", "kbar_ratio": "--kbar-ratio", "full": "--full",
               "packet": "--packet", "packet_sample": "--packet-sample", "packet_buffer": "--packet-buffer",
               "packet_max_rtts": "--packet-max-rtts", "target": "--target", "figure": "--figure"}  # fmt: skip
#: The flags of the judged sweeps' axes and settings (which law has which: its study's declaration), by parameter.
JUDGED_FLAGS = {"flows": "--flows", "marking_threshold": "--marking-threshold", "g": "--g", "eta": "--eta",
                "capacity": "--capacity", "rtt": "--rtt", "packet_size": "--packet-size", "duration": "--duration",
                "swift_beta": "--swift-beta"}  # fmt: skip


@app.command("sweep")
@declared(
    law=Use(
        default="dwtcp",
        note="Here the law swept: dwtcp (the condition sweep, default) or a law whose study declares a judged sweep "
        "(dctcp: --marking-threshold × --g × --flows; hpcc, hpcc-pint: --eta × --flows; dcqcn, timely, "
        "timely-patched: --rtt × --flows; swift: --swift-beta × --flows), each point judged by the "
        "law's packet-vs-fluid cross-check.",
    ),
    beta=Use(default="0.001", note='Here β values: "0.001" or "0.001,0.01" or "1e-4:1e-1:4log".'),
    flows=Use(default="1,2,5,10,20,50,100,200,500,1000", note="Here the numbers of flows N (list or range)."),
    capacity=Use(note="Here τ = BDP/C along the grid."),
    resume=Use(note="Here the complete chunks, each one verified first."),
    packet=Use(
        note="Here packet-level DWTCP at every (β, BDP, N) point (all, default), a seeded sample, or none "
        "(--frozen-only implies none)."
    ),
    target=Use(default=0.0, note="Here of the sweep's packet runs (d_t = τ + K/C; 0: d_t = τ)."),
    seed=Use(note="Here also of the sample."),
    marking_threshold=Use(default=None, note="dctcp: marking thresholds K (list or range; default 65)."),
    g=Use(default=None, note="dctcp: EWMA gains g (list or range; default 1/16)."),
    eta=Use(note="hpcc, hpcc-pint: target utilizations η (list or range; default 0.95)."),
    rtt=Use(
        default=None,
        note='Judged sweeps: of every point (dctcp: "100us", hpcc: "50us", swift: "100us"), or the RTT axis (dcqcn, '
        'timely, timely-patched: "2.4us,20us", each value with its unit).',
    ),
    duration=Use(default=None, note='Judged sweeps: of every packet and fluid run (dctcp: "100ms").'),
    swift_beta=Use(default=None, note="swift: decrease constants β (list or range; default 0.8,3)."),
    json=Use(note="Here the sweep's summary."),
)
def sweep(
    ctx: typer.Context,
    law: str,
    beta: str,
    bdp: str,
    flows: str,
    kbar_ratio: str,
    capacity: str,
    packet_size: str,
    out: Path,
    workers: int | None,
    scheduler: str | None,
    resume: bool,
    refuse_damaged: bool,
    force: bool,
    yes: bool,
    full: bool,
    packet: str | None,
    packet_sample: int | None,
    packet_buffer: int,
    packet_max_rtts: float,
    target: float,
    seed: int,
    figure: bool,
    marking_threshold: str | None,
    g: str | None,
    eta: str | None,
    rtt: str | None,
    duration: str | None,
    swift_beta: str | None,
    json: bool,
) -> None:
    """Check the DWTCP condition k̄ < 2·BDP/√β ([DWTCP] eq. (14)) against the eigenvalues of
    the frozen Jacobian (8) at every grid point, the delayed fluid runs and delay-aware roots, and against the
    packet-level DWTCP law at every (β, BDP, N) point (--packet); write results/sweep-beta<β>.nc and maps next to
    it.

    With --law dctcp (or another law with a judged sweep): the law's grid, every point through the packet core, the
    fluid models and the judge; write results/sweep-<law>-<hash>.nc and print the agreement counts by class."""
    given = {p for p in ctx.params if ctx.get_parameter_source(p) is not None
             and ctx.get_parameter_source(p).name == "COMMANDLINE"}  # fmt: skip
    if law != "dwtcp":
        from .sweep_study import judged_sweep

        raw = {flag: ctx.params[p] for p, flag in JUDGED_FLAGS.items()}
        judged_sweep(law=law, raw=raw, given={JUDGED_FLAGS[p] for p in given if p in JUDGED_FLAGS},
                     others={DWTCP_FLAGS[p]: ctx.params[p] for p in given if p in DWTCP_FLAGS}, out=out,
                     workers=workers, scheduler=scheduler, resume=resume, refuse_damaged=refuse_damaged,
                     force=force, yes=yes, seed=seed, json=json)  # fmt: skip
        return
    for p in ("marking_threshold", "g", "eta", "rtt", "duration", "swift_beta"):
        if p in given:
            raise UsageError(JUDGED_FLAGS[p], ctx.params[p], "the flags of --law dwtcp: --beta | --bdp | --flows | "
                             "--kbar-ratio | --capacity | --packet-size and the packet pass's")  # fmt: skip
    from ..reports.sweep import write_sweep
    from ..sweep.names import estimate, products_of, stem_of, sweep_config
    from ..sweep.packet_batch import PacketPassOptions
    from ..sweep.packet_pass import PACKET_MODES
    from ..sweep.run import FROZEN, make_plan

    grid = _grid(beta, bdp, flows, kbar_ratio, capacity, packet_size)
    if workers is not None and workers < 1:
        raise UsageError("--workers", workers, "an integer >= 1")
    if workers is not None and scheduler is not None:
        raise UsageError("--scheduler", scheduler, "either --workers N or --scheduler ADDR, not both")
    n3 = grid.beta.size * grid.bdp.size * grid.flows.size
    if packet is not None and packet not in PACKET_MODES:
        raise UsageError("--packet", packet, " | ".join(PACKET_MODES))
    if packet_sample is not None and not 0 <= packet_sample <= n3:
        raise UsageError(
            "--packet-sample", packet_sample, f"an integer in [0, {n3}] (points of the β × BDP × N grid)"
        )
    if packet is None:
        # --frozen-only implies none; --packet-sample M alone chooses the sample (M = 0: none)
        packet = (
            "none"
            if not full
            else ("all" if packet_sample is None else "sample" if packet_sample else "none")
        )
    if packet_sample is None:
        packet_sample = min(2, n3)
    if packet == "sample" and packet_sample == 0:
        packet = "none"
    if not 1 <= packet_buffer <= 10**6:
        raise UsageError("--packet-buffer", packet_buffer, "an integer in [1, 1000000]")
    if not (50.0 <= packet_max_rtts <= 1e5):
        raise UsageError("--packet-max-rtts", packet_max_rtts, "RTTs in [50, 100000]")
    if not 0.0 <= target <= 1e8:
        raise UsageError("--target", target, "packets in [0, 1e8]")
    popts = PacketPassOptions(k=target, buffer=packet_buffer, max_rtts=packet_max_rtts, seed=seed)
    plan = make_plan(grid, "full" if full else (FROZEN,))
    # every check before any work: the grid's cost, the output location, the scheduler
    n_pk = 0 if packet == "none" else n3 if packet == "all" else packet_sample
    seconds, nbytes = estimate(plan, grid.size, n3, n_pk, full, workers or 1)
    check_budget(
        "--beta × --bdp × --flows × --kbar-ratio",
        f"{grid.size} points",
        "this sweep",
        seconds=seconds,
        nbytes=nbytes,
        yes=yes,
    )
    stem = stem_of(
        grid, sweep_config(grid, full=full, packet=packet, packet_sample=packet_sample, options=popts)
    )
    products = products_of(stem, figure=figure)
    err = Console(stderr=True)
    checked = [False]

    def check(keep: list[str]) -> None:
        check_dir("--out", out, products, force=force, keep=keep)
        if not checked[0]:  # the first check: then the scheduler, and the warnings come before the work
            checked[0] = True
            if scheduler is not None:
                check_scheduler(scheduler)
            flush_warnings()

    with sweep_errors(out, stem), _bars(err, grid, plan, packet, n_pk, json) as (progress, packet_progress):
        summary, _ds = write_sweep(
            grid, out, full=full, packet=packet, packet_sample=packet_sample, packet_options=popts,
            figure=figure, resume=resume, force=force, repair=not refuse_damaged, workers=workers,
            scheduler=scheduler, progress=progress, packet_progress=packet_progress,
            report=resume_lines(err),
            note=notes(err),
            warn=lambda line: (warn(line), flush_warnings()), check=check,
        )  # fmt: skip
    if not summary["reused"]:
        print_written([summary["dataset"], *summary["figures"]])
    if json:
        emit_json(summary)
        return
    print_summary(summary)


@contextmanager
def _bars(err: Console, grid, plan, packet: str, n_pk: int, json: bool) -> Iterator[tuple]:
    """The sweep's progress bars on stderr (chunks; packet points when the packet pass runs), shown from the first
    progress the sweep reports: a reused result shows none."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    tasks: dict[str, Any] = {}
    with ExitStack() as stack:

        def task(name: str) -> Any:
            if not tasks:
                prog = stack.enter_context(
                    Progress(
                        TextColumn("[bold]sweep[/] {task.description}"),
                        BarColumn(),
                        MofNCompleteColumn(),  # whole chunks done (the bar moves by fractions of one)
                        TextColumn("{task.fields[unit]}"),
                        TimeElapsedColumn(),
                        TimeRemainingColumn(),
                        console=err,
                        transient=json or not err.is_terminal,  # a log gets the one-line messages, not a bar
                        disable=(not err.is_terminal and json) or is_quiet(),
                    )
                )
                tasks["prog"] = prog
                tasks["chunks"] = prog.add_task(
                    f"{grid.size} points", total=grid.beta.size * plan.n_chunks, unit="chunks"
                )
                if packet != "none":
                    tasks["packet"] = prog.add_task("packet-level DWTCP", total=n_pk, unit="points")
            return tasks[name]

        def progress(done: float, total: int) -> None:
            t = task("chunks")
            tasks["prog"].update(t, completed=done, total=total)

        def packet_progress(done: int, total: int) -> None:
            t = task("packet")
            tasks["prog"].update(t, completed=done, total=total)

        yield progress, packet_progress
