"""The sweep's packet pass: the packet core's DWTCP law at every (β, BDP, N) point (or a seeded sample), written to
the dataset with the agreement of every registered predictor, resumable.

Modes: ``"all"`` (every point of β × BDP × N), ``"sample"`` (``m`` seeded points, :func:`sample_points`),
``"none"``. The variables have dims (beta, bdp, flows); points outside a sample have ``packet_class = not_run``,
NaN floats, False flags and 0 counts.

Resume: with a store path, each point's final results go into ``<stem>.packet.zarr`` next to the sweep's Zarr store
as soon as its batch finishes (values first, then its ``done`` flag); ``resume=True`` keeps the points done by an
interrupted run with the same grid, mode, sample and options, and runs the others.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from ..judge.classes import PacketClass
from .grid import SweepGrid
from .integrity import (
    StoreDamagedError,
    chunk_checksum,
    layout_damage,
    read_record,
    remove_record,
    write_record,
)
from .outcomes_packet import (
    CLASSIFIED,
    NOT_RUN,
    PACKET_CLASS_ATTRS,
    PACKET_VARIABLES,
    PacketPassOptions,
    agreement_variables,
    empty_outcomes,
    packet_agreement,
    packet_outcomes,
    state_accuracy,
)

__all__ = ["PACKET_MODES", "sample_points", "packet_pass", "summarize_packet", "PacketPassSummary"]

PACKET_MODES = ("none", "sample", "all")
_D3 = ("beta", "bdp", "flows")


def sample_points(grid: SweepGrid, m: int, seed: int = 0) -> np.ndarray:
    """``m`` distinct (β, BDP, N) index triples drawn with a seeded generator (deterministic), shape (m, 3)."""
    n = grid.beta.size * grid.bdp.size * grid.flows.size
    if not (isinstance(m, int) and 0 <= m <= n):
        raise ValueError(
            f"packet_sample={m!r} is out of range: accepted an integer 0 <= packet_sample <= {n}"
        )
    flat = np.sort(np.random.default_rng(seed).choice(n, size=m, replace=False))
    return np.stack(np.unravel_index(flat, (grid.beta.size, grid.bdp.size, grid.flows.size)), axis=-1)


def _attrs(name: str, table: dict[str, tuple[str, str]]) -> dict[str, Any]:
    long_name, units = table[name]
    attrs: dict[str, Any] = {"long_name": long_name, "units": units}
    if name == "packet_class":
        attrs.update(PACKET_CLASS_ATTRS)
        attrs.pop("units")
    return attrs


class _Store:
    """Per-point results of the packet pass in a Zarr group with a ``done`` flag per point."""

    def __init__(
        self,
        path: Path,
        signature: str,
        template: dict[str, np.ndarray],
        resume: bool,
        on_damage: Callable[[str], None] | None = None,
        repair: bool = True,
    ) -> None:
        import zarr

        m = next(iter(template.values())).size
        resumed = path.exists() and resume
        if resumed:
            try:
                root = zarr.open_group(str(path), mode="r+")
                stored = root.attrs.get("signature")
            except Exception as e:  # a file, or a directory that is no Zarr group
                raise ValueError(
                    f"resume={str(path)!r} is invalid: not a readable packet store ({type(e).__name__}); "
                    "accepted a store from the same sweep command (or run without --resume)"
                ) from None
            if stored != signature:
                raise ValueError(
                    f"resume={str(path)!r} is invalid: the packet pass was written for another grid, sample or "
                    "options; accepted a store from the same sweep command (or run without --resume)"
                )
            layout = {name: ((m,), arr.dtype) for name, arr in template.items()} | {"done": ((m,), bool)}
            why = layout_damage(root, layout)
            if why is None:
                try:
                    np.asarray(root["done"][...])
                except Exception as e:  # a truncated or garbled flag chunk
                    why = f"its done flags are unreadable ({type(e).__name__})"
            if why is not None:
                # a variable or the flags cannot be repaired point by point: the store is recreated
                if on_damage:
                    action = "recreated, every point recomputed" if repair else "kept as found"
                    on_damage(f"packet store {path.name}: {why}; {action}")
                if not repair:
                    raise StoreDamagedError(f"{path}: {why}; nothing was changed")
                resumed = False
        if not resumed:
            root = self._create(path, signature, template, m)
        self.root, self.path, self._template = root, path, template
        if resumed:
            self._verify(on_damage, repair)

    @staticmethod
    def _create(path: Path, signature: str, template: dict[str, np.ndarray], m: int):
        import zarr

        if path.exists():
            shutil.rmtree(path)
        tmp = path.with_name(path.name + ".creating")
        if tmp.exists():
            shutil.rmtree(tmp)
        try:
            root = zarr.open_group(str(tmp), mode="w")
            root.attrs["signature"] = signature
            for name, arr in template.items():
                root.create_array(name, shape=(m,), chunks=(m,), dtype=arr.dtype, fill_value=arr[0])
            root.create_array("done", shape=(m,), chunks=(m,), dtype=bool, fill_value=False)
            os.replace(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)  # a full disk or an interrupt leaves no half-created store
            raise
        return zarr.open_group(str(path), mode="r+")

    def _point_sums(self, values: dict[str, np.ndarray], idx: np.ndarray) -> list[str]:
        return [chunk_checksum({name: values[name][i : i + 1] for name in PACKET_VARIABLES}) for i in idx]

    def _verify(self, on_damage: Callable[[str], None] | None, repair: bool) -> None:
        """Keep a point done so far only if its stored values match the checksum written with them."""
        done = self.done()
        idx = np.flatnonzero(done)
        if not idx.size:
            return
        try:
            sums = self._point_sums(self.read(), idx)
        except Exception as e:  # truncated or garbled: no point can be trusted nor written into it
            why = f"its values are unreadable ({type(e).__name__})"
            if on_damage:
                action = "recreated, every point recomputed" if repair else "kept as found"
                on_damage(f"packet store {self.path.name}: {why}; {action}")
            if not repair:
                raise StoreDamagedError(f"{self.path}: {why}; nothing was changed") from None
            self.root = self._create(self.path, self.root.attrs["signature"], self._template, done.size)
            return
        bad = []
        for i, got in zip(idx, sums, strict=True):
            rec = read_record(self.path, 0, int(i))
            if rec is None or rec.get("sha256") != got:
                bad.append(int(i))
        if not bad:
            return
        if on_damage:
            action = "recomputed" if repair else "kept as found"
            on_damage(
                f"packet store {self.path.name}: {len(bad)} of {idx.size} points fail their checksum; {action}"
            )
        if not repair:
            raise StoreDamagedError(
                f"{self.path}: {len(bad)} packet points cannot be trusted; nothing was changed"
            )
        done[bad] = False
        self.root["done"][...] = done
        for i in bad:
            remove_record(self.path, 0, i)

    def done(self) -> np.ndarray:
        return np.asarray(self.root["done"][...])

    def read(self) -> dict[str, np.ndarray]:
        return {name: np.asarray(self.root[name][...]) for name in PACKET_VARIABLES}

    def write(self, idx: np.ndarray, values: dict[str, np.ndarray]) -> None:
        for name in PACKET_VARIABLES:
            arr = self.root[name][...]
            arr[idx] = values[name]
            self.root[name][...] = arr
        done = self.root["done"][...]
        done[idx] = True
        # the records of what the store now holds (read back), then the flags: a point counts only once its values
        # are in and vouched for
        back = self.read()
        for i, checksum in zip(idx, self._point_sums(back, np.asarray(idx)), strict=True):
            write_record(self.path, 0, int(i), {"point": int(i)}, checksum)
        self.root["done"][...] = done


def packet_pass(
    grid: SweepGrid,
    mode: str,
    *,
    m: int = 2,
    seed: int = 0,
    options: PacketPassOptions | None = None,
    fluid: dict[str, np.ndarray] | None = None,
    store: str | Path | None = None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    report: dict[str, Any] | None = None,
    on_damage: Callable[[str], None] | None = None,
    repair: bool = True,
) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, Any]]]:
    """Run the packet pass and return dataset variables ``{name: (dims, array, attrs)}`` on (beta, bdp, flows).

    ``fluid`` holds the sweep's fluid-run variables on (beta, bdp, flows) (for the fluid predictors' verdicts);
    ``report`` receives the cost breakdown and the per-predictor agreement summary. A resumed store is verified
    against its checksum; damage is reported through ``on_damage`` and recomputed (``repair=False``: refused).
    """
    if mode not in PACKET_MODES:
        raise ValueError(f"packet={mode!r} is invalid: accepted one of {', '.join(PACKET_MODES)}")
    opts = options or PacketPassOptions(seed=seed)
    shape = (grid.beta.size, grid.bdp.size, grid.flows.size)
    if mode == "all":
        idx = np.argwhere(np.ones(shape, dtype=bool))
    elif mode == "sample":
        idx = sample_points(grid, m, seed)
    else:
        return {}
    beta, bdp, flows = grid.beta[idx[:, 0]], grid.bdp[idx[:, 1]], grid.flows[idx[:, 2]]
    res: dict[str, np.ndarray]
    if len(idx):
        st = None
        todo = np.arange(len(idx))
        if store is not None:
            sig = json.dumps(
                {
                    "grid": grid.to_dict(),
                    "mode": mode,
                    "points": idx.tolist(),
                    "options": asdict(opts) | {"workers": None},
                },
                sort_keys=True,
            )
            st = _Store(Path(store), sig, empty_outcomes(len(idx)), resume, on_damage, repair)
            todo = np.flatnonzero(~st.done())
        res = st.read() if st is not None else empty_outcomes(len(idx))
        if todo.size:

            def on_final(sel: np.ndarray, values: dict[str, np.ndarray]) -> None:
                if st is not None:
                    st.write(todo[sel], values)

            new = packet_outcomes(
                beta[todo],
                bdp[todo],
                flows[todo],
                capacity_pps=grid.C,
                packet_size=grid.packet_size,
                options=opts,
                progress=progress,
                on_final=on_final,
                report=report,
            )
            for k in PACKET_VARIABLES:
                res[k][todo] = new[k]
    else:
        res = empty_outcomes(0)
    grid_arrays = {k: v.reshape(shape) for k, v in empty_outcomes(int(np.prod(shape))).items()}
    for name in PACKET_VARIABLES:
        grid_arrays[name][tuple(idx.T)] = res[name]
    B, D, N = np.meshgrid(grid.beta, grid.bdp, grid.flows, indexing="ij")
    agree, summ = packet_agreement(
        B, D, N, grid_arrays, capacity_pps=grid.C, packet_size=grid.packet_size, fluid=fluid, k=opts.k,
        buffer=opts.buffer,
    )  # fmt: skip
    table = {
        **PACKET_VARIABLES,
        **agreement_variables(list(summ), [n for n, a in summ.items() if a.get("classes")]),
    }
    out = {name: (_D3, arr, _attrs(name, table)) for name, arr in grid_arrays.items()}
    out.update({name: (_D3, arr, _attrs(name, table)) for name, arr in agree.items()})
    if report is not None:
        report["agreement"] = summ
    return out


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f} %"


def _g(x: float | None, spec: str) -> str:
    return "—" if x is None or not np.isfinite(x) else format(x, spec)


class PacketPassSummary(dict):  # type: ignore[type-arg]
    """The packet pass's summary (:func:`summarize_packet`): a plain dict of its numbers, shown as a short table
    (its classes, and each predictor's agreement with the packet runs) where a notebook or a REPL displays it."""

    def table(self) -> str:
        """The summary as a few lines of text: points and classes, then one row per predictor."""
        c = self.get("class_counts", {})
        lines = [
            f"packet pass: {self['points']} points run ("
            + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in c.items())
            + f"), {self['scored']} scored (steady or oscillating)",
            f"peak queue {_g(self.get('kbar_obs_max'), '.0f')} packets"
            f" = {_g(self.get('kbar_obs_over_kbar_crit_max'), '.3g')}·k̄* at most;"
            f" scored utilization ≥ {_g(self.get('utilization_min_scored'), '.3f')};"
            f" {self.get('capped', 0)} runs capped",
        ]
        rows = [("predictor", "scored", "agrees", "says steady: runs steady", "says not steady: runs steady")]
        notes = []
        for name, a in self.get("agreement", {}).items():
            if a is None:
                rows.append((name, "—", "not evaluated", "", ""))
            elif a.get("classes"):
                rows.append((f"{name} (every class)", str(a["scored"]), _pct(a["agreement"]), "", ""))
                st = a["state"]
                notes.append(
                    f"  {name}: over {st['steady_points']} steady runs its mean queue is within tolerance at"
                    f" {_pct(st['queue_within'])}, its utilization at {_pct(st['utilization_within'])}"
                )
            else:
                v = a["by_verdict"]
                rows.append(
                    (name, str(a["scored"]), _pct(a["agreement"]),
                     f"{v['steady']['packet_steady']}/{v['steady']['scored']}",
                     f"{v['not_steady']['packet_steady']}/{v['not_steady']['scored']}")
                )  # fmt: skip
        width = [max(len(r[i]) for r in rows) for i in range(5)]
        for r in rows:
            cells = (
                x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, width, strict=True))
            )
            lines.append(("  " + "  ".join(cells)).rstrip())
        lines += notes
        lines.append(f"  (a dict: {', '.join(self)})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.table() if "points" in self else dict.__repr__(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        p.text(repr(self))


def summarize_packet(ds: Any) -> PacketPassSummary:
    """Counts per packet class, scored points, per-predictor agreement (over scored points where it predicts) and
    the scored points split by the predictor's verdict (``by_verdict``: scored, packet runs steady)."""
    from .predictors import predictors

    cls = ds["packet_class"].values
    run = cls != NOT_RUN
    counts = {c.label: int((cls == int(c)).sum()) for c in PacketClass}
    scored = ds["packet_scored"].values
    steady = cls == int(PacketClass.STEADY)
    agreement = {}
    for name in predictors(verdict=True):
        key = name.replace("-", "_")
        if f"packet_{key}_agrees" not in ds:
            agreement[name] = None
            continue
        if f"packet_{key}_predicts_class" in ds:
            agreement[name] = _class_summary(ds, key, cls)
            continue
        sc = scored & ds[f"packet_{key}_defined"].values
        n = int(sc.sum())
        says = ds[f"packet_{key}_predicts_steady"].values.astype(bool)
        agreement[name] = {
            "scored": n,
            "agreement": float(ds[f"packet_{key}_agrees"].values.sum() / n) if n else None,
            # the scored points split by the predictor's verdict, with the packet runs that were steady in each
            "by_verdict": {
                verdict: {"scored": int((sc & part).sum()), "packet_steady": int((sc & part & steady).sum())}
                for verdict, part in (("steady", says), ("not_steady", ~says))
            },
        }
    kobs = ds["packet_kbar_obs"].values[run]
    return PacketPassSummary(
        {
            "points": int(run.sum()),
            "class_counts": counts,
            "scored": int(scored.sum()),
            "agreement": agreement,
            "kbar_obs_max": float(np.nanmax(kobs)) if kobs.size else None,
            "kbar_obs_over_kbar_crit_max": float(
                np.nanmax((ds["packet_kbar_obs"] / ds["kbar_crit"]).values[run])
            )
            if kobs.size and "kbar_crit" in ds
            else None,
            "utilization_min_scored": float(ds["packet_utilization"].values[scored].min())
            if scored.any()
            else None,
            "window_rtts_min": float(np.nanmin(ds["packet_window_rtts"].values[run])) if kobs.size else None,
            "capped": int(ds["packet_capped"].values.sum()),
            "flow_slots": int(ds["packet_flow_slots"].values.sum()),
        }
    )


def _class_summary(ds: Any, key: str, cls: np.ndarray) -> dict[str, Any]:
    """A class predictor's agreement over every classified run, its confusion by class and its state accuracy."""
    sc = np.isin(cls, [int(c) for c in CLASSIFIED]) & ds[f"packet_{key}_defined"].values.astype(bool)
    pc = ds[f"packet_{key}_predicts_class"].values
    n = int(sc.sum())
    return {
        "classes": True,
        "scored": n,
        "agreement": float(ds[f"packet_{key}_agrees"].values.sum() / n) if n else None,
        "by_class": {
            a.label: {b.label: int((sc & (cls == int(a)) & (pc == int(b))).sum()) for b in CLASSIFIED}
            for a in CLASSIFIED
        },
        "state": state_accuracy(
            cls,
            sc,
            {k: ds[k].values for k in ("packet_queue_mean", "packet_utilization")},
            ds[f"packet_{key}_queue_mean"].values,
            ds[f"packet_{key}_utilization"].values,
        ),
    }
