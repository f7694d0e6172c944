"""``dwtcp-fluid sweep --law X`` for a law with a judged sweep (:mod:`dwtcp_fluid.sweep.study`): the study's axes
and settings from the flags its declaration names, checked before any work; the sweep by its orchestrator
(:func:`~dwtcp_fluid.reports.sweep_study.write_judged_sweep`: the DWTCP sweep's output lock, store, ``--resume`` and
integrity checks); the agreement counts by class."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rich.console import Console

from .common import UsageError, accepted_of, emit_json, parse_list, print_written
from .limits import check_budget, check_scheduler
from .outputs import check_dir

__all__ = ["judged_sweep", "estimate"]

#: Unit costs of the pre-flight estimate, measured on the reference machine (2 cores) with the DCTCP check: a point
#: at 10 Gbps, 100 µs, 100 ms (83,333 packet slots, two reference fluid runs) took 4 s, one at 1 Gbps, 20 ms
#: (1,667 slots) 0.2 s.
_SECONDS_PER_SLOT = 4.5e-5
_SECONDS_PER_POINT = 0.15


def estimate(grid: Any) -> tuple[float, float]:
    """Seconds and bytes of the judged sweep of ``grid``: every point's packet run and fluid runs one after
    another; the dataset three times (store, memory, NetCDF)."""
    from ..params import LinkParams
    from ..units import parse_time

    fx = grid.fixed
    slots = 1e4
    if {"capacity", "duration"} <= set(fx):
        link = LinkParams(capacity=fx["capacity"], packet_size=fx.get("packet_size", "1500"))
        slots = parse_time(fx["duration"]) * link.C
    sw = grid.sweep
    per_point = 8 * (6 + len(sw.models) * (len(sw.fluid_quantities) + 1 + 2 * len(sw.tolerances)))
    per_point += 8 * len(sw.packet_quantities)
    return grid.size * (_SECONDS_PER_POINT + _SECONDS_PER_SLOT * slots), 3.0 * grid.size * per_point


def _axis_values(flag: str, text: str) -> Any:
    """An axis's values as typed: numbers (:func:`parse_list`), or for a time, rate or size flag of the vocabulary
    each value and range end with its unit ("20us,50us", "20us:100us:5"), in the flag's unit (s, bit/s, bytes)."""
    from .flags import _value, vocabulary

    spec = vocabulary().get(flag)
    if spec is None or spec.kind not in ("time", "rate", "size"):
        return parse_list(flag, text)
    parts = str(text).split(":")
    try:
        if len(parts) == 3:
            lo, hi = (_value(flag, spec, p.strip()) for p in parts[:2])
            return parse_list(flag, f"{lo!r}:{hi!r}:{parts[2]}")
        return parse_list(flag, ",".join(repr(_value(flag, spec, t.strip())) for t in str(text).split(",")))
    except ValueError:
        raise UsageError(flag, text, spec.accepted(flag)) from None


def _grid(law: str, raw: dict[str, Any], given: set[str], others: dict[str, Any], seed: int) -> Any:
    """The law's checked grid from the flags its study declares; a flag of another law is refused."""
    from ..reports.sweep_study import judged_grid, judged_sweep_laws
    from ..sweep.study import get_sweep

    laws = judged_sweep_laws()
    if law not in laws:
        raise UsageError("--law", law, " | ".join(("dwtcp", *laws)))
    sw = get_sweep(law)
    own = [a.flag for a in sw.axes] + [f.flag for f in sw.fixed]
    foreign = {f: v for f, v in others.items() if not (f == "--figure" and v is False)}
    foreign |= {f: raw[f] for f in given if f not in own}
    for flag, value in sorted(foreign.items()):
        raise UsageError(flag, value, f"the flags of --law {law}: {' | '.join(own)}")
    axes: dict[str, Any] = {}
    for a in sw.axes:
        if a.flag in given:
            values = _axis_values(a.flag, raw[a.flag])
            try:
                axes[a.name] = a.values(values)
            except ValueError as e:
                raise UsageError(a.flag, raw[a.flag], accepted_of(e)) from None
    fixed = {f.name: str(raw[f.flag]) for f in sw.fixed if f.flag in given}
    try:
        return judged_grid(law, axes, fixed, seed)
    except ValueError as e:
        msg = str(e)
        for f in sw.fixed:
            if msg.startswith((f"{f.name}=", f"{f.name}:")):
                raise UsageError(f.flag, fixed.get(f.name, f.default), accepted_of(e)) from None
        for a in sw.axes:  # a value the study refuses (the packet core's shortest RTT)
            if msg.startswith(f"{a.name}=") and a.flag in given:
                raise UsageError(a.flag, raw[a.flag], accepted_of(e)) from None
        raise


def judged_sweep(
    *,
    law: str,
    raw: dict[str, Any],
    given: set[str],
    others: dict[str, Any],
    out: Path,
    workers: int | None,
    scheduler: str | None,
    resume: bool,
    refuse_damaged: bool,
    force: bool,
    yes: bool,
    seed: int,
    json: bool,
) -> None:
    """Check the command line, run (or resume, or reuse) the judged sweep of ``law``
    (:func:`~dwtcp_fluid.reports.sweep_study.write_judged_sweep`) and print its agreement counts (``raw``: every
    judged flag's value; ``given``: those on the command line; ``others``: the DWTCP sweep's flags given, refused)."""
    from ..reports.sweep_study import judged_stem, write_judged_sweep
    from .progress import progress_bar
    from .sweep_errors import notes, resume_lines, sweep_errors

    grid = _grid(law, raw, given, others, seed)
    if workers is not None and scheduler is not None:
        raise UsageError("--scheduler", scheduler, "either --workers N or --scheduler ADDR, not both")
    seconds, nbytes = estimate(grid)
    axes = " × ".join(a.flag for a in grid.sweep.axes)
    check_budget(axes, f"{grid.size} points", f"this {law} sweep", seconds=seconds, nbytes=nbytes, yes=yes)
    stem = judged_stem(grid)
    products = [f"{stem}.nc", f"{stem}.zarr"]
    err = Console(stderr=True)
    checked = [False]

    def check(keep: list[str]) -> None:
        check_dir("--out", out, products, force=force, keep=keep)
        if not checked[0] and scheduler is not None:
            check_scheduler(scheduler)
        checked[0] = True

    with sweep_errors(out, stem), ExitStack() as stack:
        bar: list[Any] = []

        def progress(d: float, t: int) -> None:
            if not bar:  # shown from the sweep's first progress: a reused result shows none
                bar.append(stack.enter_context(progress_bar(f"sweep {law}: {grid.size} points", "chunks")))
            bar[0](d, t)

        doc, _ds = write_judged_sweep(
            grid, out, resume=resume, force=force, repair=not refuse_damaged, workers=workers,
            scheduler=scheduler, progress=progress,
            report=resume_lines(err),
            note=notes(err), check=check,
        )  # fmt: skip
    if json:
        emit_json(doc)
        return
    _print(doc)
    if not doc.get("reused"):
        print_written([doc["dataset"]])


def _print(doc: dict[str, Any]) -> None:
    """The agreement counts by run class and by packet class, as one table."""
    from rich.table import Table

    when = (
        f"reused, computed from these very sources: {doc['code']}"
        if doc.get("reused")
        else f"{doc['seconds']} s"
    )
    t = Table(title=f"sweep --law {doc['law']}: {doc['points']} points judged by the {doc['check']} check "
              f"({', '.join(doc['judged_models'])}; {when})")  # fmt: skip
    for col in ("class", "points", "agree", "disagree", "not scored"):
        t.add_column(col, justify="left" if col == "class" else "right")
    rows = [("all", doc["outcomes"])]
    rows += [(f"run: {k.replace('_', ' ')}", v) for k, v in doc["by_run_class"].items()]
    rows += [(f"packet: {k.replace('_', ' ')}", v) for k, v in doc.get("by_packet_class", {}).items()]
    for name, c in rows:
        t.add_row(name, str(c["points"]), str(c["agree"]), str(c["disagree"]), str(c["not_scored"]))
    Console().print(t)
