"""Chunked sweep engine: in-process or on Dask, results in a resumable Zarr store, exported to NetCDF.

The engine knows no protocol: a grid is anything with the grid protocol (:class:`Grid`: its dimensions' sizes,
its two leading axes, its coordinates and its parameters), the DWTCP condition sweep's (β, BDP, N, k̄/k̄*) as
well as a judged sweep's or the network sweep's (hops, load). The grid is cut into chunks along its two leading
axes: chunk ``(ib, c)`` covers index ``ib`` of the first and indices ``[c·chunk, (c+1)·chunk)`` of the second.
Every chunk is evaluated by the same pure function (:func:`evaluate_chunk`), whichever engine runs it, so results
are identical bit for bit in-process and on Dask.

Only the driver writes. A chunk's arrays are written into the Zarr store first and its flag in ``done`` is set
afterwards, so an interrupted sweep leaves only complete chunks; ``resume=True`` skips them. When every chunk is
done the caller exports the dataset to NetCDF atomically (:func:`~.store.write_netcdf_atomic`).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import xarray as xr

from ..atomic import make_dirs
from .integrity import (
    StoreDamagedError,
    chunk_checksum,
    layout_damage,
    read_record,
    remove_record,
    write_record,
)

__all__ = ["Evaluator", "Grid", "SweepPlan", "evaluate_chunk", "run_plan", "open_store_dataset"]


class Grid(Protocol):
    """What the engine reads of a grid.

    ``dims()`` maps every dimension of the grid's variables to its size, the two leading axes first; ``lead()``
    gives those two axes as ``(name, values)``; ``coords()`` the dataset's coordinates; ``to_dict()`` everything
    that defines the grid (a resumed store must match it). ``labels``, optional, maps an axis name to how a resume
    report names it.
    """

    def dims(self) -> dict[str, int]: ...

    def lead(self) -> tuple[tuple[str, np.ndarray], tuple[str, np.ndarray]]: ...

    def coords(self) -> dict[str, Any]: ...

    def to_dict(self) -> dict[str, Any]: ...


def _scalar(v: Any) -> int | float:
    return int(v) if np.asarray(v).dtype.kind in "iu" else float(v)


@dataclass(frozen=True)
class Evaluator:
    """A group of variables computed per chunk.

    ``variables`` maps a name to ``(dims, dtype, attrs)``; the first dims are always the grid's two leading axes.
    ``fn(grid, ib, slice) -> {name: array}`` returns arrays of shape (1, len(slice), ...): index ``ib`` of the first
    leading axis, the indices ``slice`` of the second.
    """

    name: str
    variables: dict[str, tuple[tuple[str, ...], str, dict[str, Any]]]
    fn: Callable[[Any, int, slice], dict[str, np.ndarray]]


@dataclass(frozen=True)
class SweepPlan:
    """A grid (:class:`Grid`), the evaluators to run on it, the chunk size along its second leading axis, and
    where extra dims come from."""

    grid: Grid
    evaluators: tuple[Evaluator, ...]
    chunk: int = 5
    extra_coords: tuple[tuple[str, Any], ...] = ()

    def lead_sizes(self) -> tuple[int, int]:
        """Sizes of the two chunked leading dimensions."""
        (_, a), (_, b) = self.grid.lead()
        return len(a), len(b)

    @property
    def n_chunks(self) -> int:
        """Chunks along the second leading axis."""
        return -(-self.lead_sizes()[1] // self.chunk)

    @property
    def done_shape(self) -> tuple[int, int]:
        return self.lead_sizes()[0], self.n_chunks

    def chunks(self) -> Iterator[tuple[int, int]]:
        for ib in range(self.lead_sizes()[0]):
            for c in range(self.n_chunks):
                yield ib, c

    def chunk_slice(self, c: int) -> slice:
        """The indices of the second leading axis chunk ``c`` covers."""
        return slice(c * self.chunk, min((c + 1) * self.chunk, self.lead_sizes()[1]))

    def chunk_coords(self, ib: int, c: int) -> dict[str, Any]:
        """Where chunk ``(ib, c)`` sits on the grid: what its integrity record must name."""
        (a0, v0), (a1, v1) = self.grid.lead()
        sl = self.chunk_slice(c)
        return {f"{a0}_index": ib, a0: _scalar(v0[ib]), f"{a1}_indices": [sl.start, sl.stop],
                a1: [_scalar(v) for v in v1[sl]]}  # fmt: skip

    def describe(self, ib: int, c: int) -> str:
        """The chunk as a resume report names it."""
        (a0, v0), (a1, _) = self.grid.lead()
        labels = getattr(self.grid, "labels", {})
        sl = self.chunk_slice(c)
        return f"{labels.get(a0, a0)}={v0[ib]:g}, {labels.get(a1, a1)} {sl.start}:{sl.stop}"

    def variables(self) -> dict[str, tuple[tuple[str, ...], str, dict[str, Any]]]:
        out: dict[str, Any] = {}
        for ev in self.evaluators:
            out.update(ev.variables)
        return out

    def dim_sizes(self) -> dict[str, int]:
        sizes = dict(self.grid.dims())
        for name, values in self.extra_coords:
            sizes[name] = len(values)
        return sizes

    def signature(self) -> str:
        """What a resumed store must match: the grid, the chunking and the variables."""
        return json.dumps(
            {
                "grid": self.grid.to_dict(),
                "chunk": self.chunk,
                "evaluators": [ev.name for ev in self.evaluators],
                "variables": sorted(self.variables()),
            },
            sort_keys=True,
        )


def evaluate_chunk(
    plan: SweepPlan, ib: int, c: int, on_part: Callable[[float], None] | None = None
) -> dict[str, np.ndarray]:
    """Evaluate every evaluator on chunk ``(ib, c)`` (a pure function: the unit of work of both engines).

    ``on_part(fraction)`` is called after each evaluator with the fraction of the chunk's evaluators done (the
    in-process engine's progress bar moves within a chunk, not only between chunks)."""
    sl = plan.chunk_slice(c)
    out: dict[str, np.ndarray] = {}
    n_ev = len(plan.evaluators)
    for i_ev, ev in enumerate(plan.evaluators):
        res = ev.fn(plan.grid, ib, sl)
        missing = set(ev.variables) - set(res)
        if missing:
            raise RuntimeError(f"evaluator {ev.name!r} did not return {sorted(missing)}")
        out.update({k: np.asarray(v) for k, v in res.items() if k in ev.variables})
        if on_part is not None and i_ev + 1 < n_ev:
            on_part((i_ev + 1) / n_ev)
    return out


# --- the Zarr store ---------------------------------------------------------------------------------------------


def _open_store(plan: SweepPlan, path: Path, resume: bool):
    import zarr

    sizes = plan.dim_sizes()
    if path.exists() and resume:
        try:
            root = zarr.open_group(str(path), mode="r+")
            signature = root.attrs.get("signature")
        except Exception as e:  # a file, or a directory that is no Zarr group: not a store this command wrote
            raise ValueError(
                f"resume={str(path)!r} is invalid: not a readable sweep store ({type(e).__name__}); "
                "accepted a store from the same sweep command (or run without --resume)"
            ) from None
        if signature != plan.signature():
            raise ValueError(
                f"resume={str(path)!r} is invalid: the store was written for another grid or variable set; "
                "accepted a store from the same sweep command (or run without --resume)"
            )
        return root
    if path.exists():
        shutil.rmtree(path)
    tmp = path.with_name(path.name + ".creating")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        root = zarr.open_group(str(tmp), mode="w")
        root.attrs["signature"] = plan.signature()
        for name, (dims, dtype, _attrs) in plan.variables().items():
            shape = tuple(sizes[d] for d in dims)
            chunks = (1, plan.chunk) + shape[2:]
            fill = np.nan if np.dtype(dtype).kind == "f" else 0
            root.create_array(name, shape=shape, chunks=chunks, dtype=dtype, fill_value=fill)
        root.create_array("done", shape=plan.done_shape, chunks=(1, 1), dtype=bool, fill_value=False)
        os.replace(tmp, path)  # the store appears complete with every chunk not done, or not at all
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # a full disk or an interrupt leaves no half-created store
        raise
    return zarr.open_group(str(path), mode="r+")


def _layout(plan: SweepPlan) -> dict[str, tuple[tuple[int, ...], Any]]:
    """The arrays a store of ``plan`` holds: ``{name: (shape, dtype)}``, the done flags included."""
    sizes = plan.dim_sizes()
    out: dict[str, tuple[tuple[int, ...], Any]] = {
        name: (tuple(sizes[d] for d in dims), dtype)
        for name, (dims, dtype, _attrs) in plan.variables().items()
    }
    out["done"] = (tuple(plan.done_shape), bool)
    return out


def _resumable(plan: SweepPlan, root, path: Path, repair: bool, report: Callable[[str], None] | None):
    """The resumed store ``root`` and its done flags, or a new empty store when its layout is damaged (a variable
    missing, unreadable or of another shape or type; unreadable done flags): such damage cannot be repaired chunk by
    chunk, so the store is recreated and every chunk recomputed (``repair=False``: refused)."""
    why = layout_damage(root, _layout(plan))
    done = None
    if why is None:
        try:
            done = np.asarray(root["done"][...], dtype=bool)
        except Exception as e:  # a truncated or garbled flag chunk
            why = f"its done flags are unreadable ({type(e).__name__})"
    if why is None:
        return root, done
    if report:
        report(
            f"store {path.name}: {why}; "
            + ("recreated, every chunk recomputed" if repair else "kept as found")
        )
    if not repair:
        raise StoreDamagedError(f"{path}: {why}; nothing was changed")
    root = _open_store(plan, path, resume=False)
    return root, np.asarray(root["done"][...], dtype=bool)


def _chunk_coords(plan: SweepPlan, ib: int, c: int) -> dict[str, Any]:
    return plan.chunk_coords(ib, c)


def _read_chunk(root, plan: SweepPlan, ib: int, c: int) -> dict[str, np.ndarray]:
    sl = plan.chunk_slice(c)
    return {name: np.asarray(root[name][ib : ib + 1, sl]) for name in plan.variables()}


def _write_chunk(root, store: Path, plan: SweepPlan, ib: int, c: int, res: dict[str, np.ndarray]) -> None:
    sl = plan.chunk_slice(c)
    for name, arr in res.items():
        root[name][ib : ib + 1, sl] = arr
    # the checksum of what the store now holds (read back), then the record, then the flag: a chunk counts only
    # once its arrays are in and vouched for
    write_record(store, ib, c, _chunk_coords(plan, ib, c), chunk_checksum(_read_chunk(root, plan, ib, c)))
    root["done"][ib, c] = True


def verify_store(root, store: Path, plan: SweepPlan, done: np.ndarray) -> dict[tuple[int, int], str]:
    """Re-read every chunk marked done; return ``{(ib, c): why}`` for each one that cannot be trusted.

    A chunk is trusted only if it decodes, its record exists and names the same grid position, and the SHA-256 of
    its bytes equals the record's. Content equal to another chunk's record is reported as misplaced.
    """
    records = {(ib, c): read_record(store, ib, c) for ib, c in plan.chunks() if done[ib, c]}
    by_sum = {r["sha256"]: k for k, r in records.items() if r and "sha256" in r}
    bad: dict[tuple[int, int], str] = {}
    for (ib, c), rec in records.items():
        if rec is None:
            bad[ib, c] = "no checksum record"
            continue
        if rec.get("ib") != ib or rec.get("c") != c or rec.get("coords") != _chunk_coords(plan, ib, c):
            bad[ib, c] = "its record names another grid position"
            continue
        try:
            got = chunk_checksum(_read_chunk(root, plan, ib, c))
        except Exception as e:  # a truncated or garbled chunk fails to decode
            bad[ib, c] = f"unreadable ({type(e).__name__})"
            continue
        if got != rec.get("sha256"):
            other = by_sum.get(got)
            bad[ib, c] = (
                f"holds the data of chunk {other} (misplaced)"
                if other is not None
                else "content differs from its checksum (missing, truncated or altered)"
            )
    return bad


def open_store_dataset(plan: SweepPlan, path: Path) -> xr.Dataset:
    """The store's content as a Dataset with coordinates and attrs (all chunks must be done)."""
    import zarr

    root = zarr.open_group(str(path), mode="r")
    coords: dict[str, Any] = dict(plan.grid.coords())
    for name, values in plan.extra_coords:
        coords[name] = (name, np.asarray(values))
    data = {
        name: (dims, np.asarray(root[name][...]), attrs)
        for name, (dims, _dt, attrs) in plan.variables().items()
    }
    return xr.Dataset(data, coords=coords)


# --- engines -------------------------------------------------------------------------------------------------


def run_plan(
    plan: SweepPlan,
    store: Path,
    *,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[float, int], None] | None = None,
    repair: bool = True,
    report: Callable[[str], None] | None = None,
) -> xr.Dataset:
    """Run every chunk not yet done, in-process (default), on a new ``LocalCluster(n_workers=workers)`` or on the
    Dask scheduler at ``scheduler``; return the complete Dataset (attrs added by the caller).

    ``progress(done, total)`` counts chunks; in-process, ``done`` also moves by fractions within a chunk.

    With ``resume`` every chunk already done is verified first (:func:`verify_store`); each untrusted chunk is
    reported as one line through ``report`` and recomputed, or, with ``repair=False``, the run stops with
    :class:`~.integrity.StoreDamagedError` before computing anything.
    """
    if workers is not None and scheduler is not None:
        raise ValueError(
            "workers and scheduler are exclusive: accepted one of --workers N or --scheduler ADDR"
        )
    if workers is not None and not (isinstance(workers, int) and workers >= 1):
        raise ValueError(f"workers={workers!r} is out of range: accepted an integer >= 1")
    store = Path(store)
    make_dirs(store.parent)
    root = _open_store(plan, store, resume)
    if resume:
        root, done = _resumable(plan, root, store, repair, report)
    else:
        done = np.asarray(root["done"][...])
    if resume:
        bad = verify_store(root, store, plan, done)
        for (ib, c), why in sorted(bad.items()):
            if report:
                action = "recomputed" if repair else "kept as found"
                report(f"chunk ({ib}, {c}) [{plan.describe(ib, c)}]: {why}; {action}")
        if bad and not repair:
            raise StoreDamagedError(
                f"{store}: {len(bad)} of {int(done.sum())} completed chunks cannot be trusted; nothing was changed"
            )
        for ib, c in bad:
            done[ib, c] = False
            root["done"][ib, c] = False
            remove_record(store, ib, c)
    todo = [(ib, c) for ib, c in plan.chunks() if not done[ib, c]]
    total = done.size
    n_done = int(done.sum())
    if progress:
        progress(n_done, total)

    def record(ib: int, c: int, res: dict[str, np.ndarray]) -> None:
        nonlocal n_done
        _write_chunk(root, store, plan, ib, c, res)
        n_done += 1
        if progress:
            progress(n_done, total)

    if workers is None and scheduler is None:
        part = (lambda f: progress(n_done + f, total)) if progress else None
        for ib, c in todo:
            record(ib, c, evaluate_chunk(plan, ib, c, part))
    elif todo:
        from dask.distributed import Client, LocalCluster, as_completed

        cluster = None
        if workers is not None:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=40,
            )
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout="30s")
        try:
            futs = {client.submit(evaluate_chunk, plan, ib, c, pure=False): (ib, c) for ib, c in todo}
            for fut in as_completed(futs):
                ib, c = futs[fut]
                record(ib, c, fut.result())
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    return open_store_dataset(plan, store)
