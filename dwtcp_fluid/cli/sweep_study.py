"""``dwtcp-fluid sweep --law X`` for a law with a judged sweep (:mod:`dwtcp_fluid.sweep.study`): the study's axes
and settings from the flags its declaration names, checked before any work; the sweep with the DWTCP sweep's output
lock, store, ``--resume`` and integrity checks; one NetCDF and the agreement counts by class."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from ..atomic import remove_tree
from .common import UsageError, WorkError, accepted_of, emit_json, is_quiet, parse_list, print_written
from .limits import check_budget, check_scheduler
from .outputs import check_dir
from .sweep_results import same_code

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
    """Check the command line, run (or resume) the judged sweep of ``law``, write ``<out>/sweep-<law>-<hash>.nc`` and
    print its agreement counts (``raw``: every judged flag's value; ``given``: those on the command line; ``others``:
    the DWTCP sweep's flags given, refused)."""
    import hashlib
    import json as _json

    from ..reports.sweep_study import run_judged_sweep
    from ..sweep.integrity import OutputBusyError, output_lock, remove_stale
    from ..sweep.study_run import make_plan
    from .progress import progress_bar
    from .sweep_errors import _Interrupts, _sweep_error

    grid = _grid(law, raw, given, others, seed)
    if workers is not None and scheduler is not None:
        raise UsageError("--scheduler", scheduler, "either --workers N or --scheduler ADDR, not both")
    seconds, nbytes = estimate(grid)
    axes = " × ".join(a.flag for a in grid.sweep.axes)
    check_budget(axes, f"{grid.size} points", f"this {law} sweep", seconds=seconds, nbytes=nbytes, yes=yes)
    digest = hashlib.sha256(_json.dumps(grid.to_dict(), sort_keys=True).encode()).hexdigest()[:8]
    stem = f"sweep-{law}-{digest}"
    products = [f"{stem}.nc", f"{stem}.zarr"]
    if not force and not resume and _finished(Path(out) / f"{stem}.nc", grid):
        _reuse(Path(out) / f"{stem}.nc", json)  # a second run of a finished sweep reuses its result (exit 0)
        return
    # this grid's result computed by other code is refreshed, and the run says so
    why = _other_code(Path(out) / f"{stem}.nc", grid)
    out = check_dir("--out", out, products, force=force, keep=products if resume or why else ())
    if scheduler is not None:
        check_scheduler(scheduler)
    store = out / f"{stem}.zarr"
    err = Console(stderr=True)
    plan = make_plan(grid)
    done = [0.0, float(plan.done_shape[0] * plan.done_shape[1])]

    def kept() -> str:
        if int(done[0]) == 0:
            if not resume:
                remove_tree(store)
            return "nothing was kept"
        return (
            f"{int(done[0])} of {int(done[1])} chunks kept in {store}: rerun the same command with --resume"
        )

    if why and not force and not is_quiet():
        err.print(f"refreshing {out / f'{stem}.nc'}: {why}", highlight=False, soft_wrap=True)
    try:
        with output_lock(out / f".{stem}.lock"):
            check_dir("--out", out, products, force=force, keep=products if resume or why else ())
            for p in remove_stale(out, stem):
                if not is_quiet():
                    err.print(f"removed {p} (left by a killed run)", highlight=False)
            interrupted = _Interrupts()
            try:
                with progress_bar(f"sweep {law}: {grid.size} points", "chunks") as bar:

                    def progress(d: float, t: int) -> None:
                        done[:] = [d, t]
                        bar(d, t)

                    doc, _ds = run_judged_sweep(
                        grid, store, netcdf=out / f"{stem}.nc", resume=resume, workers=workers,
                        scheduler=scheduler, progress=progress, repair=not refuse_damaged,
                        report=lambda line: err.print(f"resume: {line}", highlight=False, soft_wrap=True),
                    )  # fmt: skip
            except KeyboardInterrupt:
                raise WorkError(f"sweep interrupted: {kept()}", code=130) from None
            except Exception as e:
                if interrupted():
                    raise WorkError(f"sweep interrupted: {kept()}", code=130) from None
                _sweep_error(e, store, refuse_damaged, kept)
            finally:
                interrupted.restore()
            remove_tree(store)  # finished: the store served the resume; the result is the NetCDF
    except OutputBusyError as e:
        raise UsageError("--out", str(out), f"a directory no other sweep is writing ({e})") from None
    if json:
        emit_json(doc)
        return
    _print(doc)
    print_written([doc["dataset"]])


def _of_grid(nc: Path, grid: Any) -> dict | None:
    """The attributes of ``nc`` when it is a readable result of this very grid (its recorded parameters are the
    grid's), else None."""
    import json

    if not nc.is_file():
        return None
    try:
        import xarray as xr

        with xr.open_dataset(nc, engine="h5netcdf") as ds:
            ok = "outcome" in ds and ds.attrs.get("parameters") == json.dumps(grid.to_dict(), sort_keys=True)
            return dict(ds.attrs) if ok else None
    except Exception:  # unreadable: not a finished result (refused unless --force replaces it)
        return None


def _finished(nc: Path, grid: Any) -> bool:
    """Whether ``nc`` is the finished result of this very grid, computed by this code."""
    attrs = _of_grid(nc, grid)
    return attrs is not None and same_code(attrs) is None


def _other_code(nc: Path, grid: Any) -> str | None:
    """Why ``nc``, a result of this very grid computed by other code, is refreshed; None otherwise."""
    attrs = _of_grid(nc, grid)
    return None if attrs is None else same_code(attrs)


def _reuse(nc: Path, json: bool) -> None:
    import xarray as xr

    from .._provenance import code_label
    from ..reports.sweep_study import judged_sweep_report

    ds = xr.load_dataset(nc, engine="h5netcdf")
    doc = judged_sweep_report(ds, dataset=nc, seconds=0.0) | {"reused": True, "code": code_label(ds.attrs)}
    if json:
        emit_json(doc)
        return
    _print(doc)


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
