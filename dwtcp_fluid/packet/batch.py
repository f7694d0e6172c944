"""Running batches of the packet core: compiled programs per shape, calls of a bounded size, and worker processes.

A batch of prepared scenarios of one :class:`~.state.EngineSpec` runs as one call per scenario of the spec's
single compiled program (see :func:`_run_calls` for why not larger calls). XLA:CPU runs one computation at a time per
process (two threads, or two CPU devices, measured no faster than one), so a large batch is also split across
worker processes (:mod:`.workers`), one per core: the parent runs its share while the workers run theirs. Workers
are started once and kept; they load the compiled program from the persistent cache (:mod:`.xla`) or compile it.
Small batches, and laws defined outside the package (which a fresh process cannot import), run in the parent
only; a worker that fails leaves its share to the parent. Every scenario's result is independent of the others
and of the split.

``DWTCP_FLUID_PACKET_WORKERS`` sets the number of processes (default: the CPU count; 1 disables the workers).
"""

from __future__ import annotations

import math
import os
from typing import Any

import jax
import numpy as np

from .calls import _run_calls, compiled
from .engine import prepare, spec_for
from .laws.base import Law
from .records import finish_records
from .state import EngineSpec, PacketConfig, Scenario

__all__ = ["compiled", "stack", "run_prepared", "run_batch", "run_one", "MAX_BATCH", "PROCESS_MIN_SLOTS"]

#: Kept for compatibility: every call runs one scenario (see :func:`_run_calls`).
MAX_BATCH = 1
#: Worker processes are used only for batches of at least this many slots in total (~2 s of work on one core),
#: so that starting them (~2 s, once per process) cannot dominate.
PROCESS_MIN_SLOTS = 16_000_000


def stack(scenarios: list[Scenario]) -> Scenario:
    """Stack scenarios of the same configuration into one batch."""
    return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *scenarios)


def _unstack(sc: Scenario) -> list[Scenario]:
    b = int(np.asarray(sc.rtt).shape[0])
    return [jax.tree.map(lambda a, i=i: np.asarray(a)[i], sc) for i in range(b)]


def _workers() -> int:
    env = os.environ.get("DWTCP_FLUID_PACKET_WORKERS")
    return max(1, int(env)) if env else max(1, os.cpu_count() or 1)


def _portable(spec: EngineSpec) -> bool:
    """A fresh process can rebuild the laws (their classes live in importable modules of the package)."""
    return all(type(law).__module__.startswith("dwtcp_fluid.") for law in spec.laws)


def run_prepared(
    spec: EngineSpec, scens: list[dict[str, Any]], max_batch: int = MAX_BATCH, workers: int | None = None
) -> list[dict[str, np.ndarray]]:
    """Run prepared scenarios (:func:`~.engine.prepare`) of one spec; returns the raw engine output of each.

    With ``workers`` > 1 (default :envvar:`DWTCP_FLUID_PACKET_WORKERS` or the CPU count) and a batch of at least
    :data:`PROCESS_MIN_SLOTS` slots, the batch is split into ``workers`` contiguous parts: the parent runs the
    first, worker processes the others.
    """
    n = int(workers) if workers else _workers()
    slots = sum(int(s["n_slots"]) for s in scens)
    n = min(n, len(scens))
    if n <= 1 or slots < PROCESS_MIN_SLOTS or not _portable(spec):
        return _run_calls(spec, scens, max_batch)
    size = math.ceil(len(scens) / n)
    parts = [scens[i : i + size] for i in range(0, len(scens), size)]
    from .workers import pool

    # compile (and store in the persistent cache) before the workers load it, without running a scenario twice
    compiled(spec, jax.tree.map(lambda a: np.asarray(a)[None], parts[0][0]))
    jobs = [w.submit((spec, p, max_batch)) for w, p in zip(pool(len(parts) - 1), parts[1:], strict=True)]
    out = _run_calls(spec, parts[0], max_batch)
    for job, p in zip(jobs, parts[1:], strict=True):
        try:
            out += job.result()
        except Exception:  # a worker died or failed: its share runs here
            out += _run_calls(spec, p, max_batch)
    return out


def run_batch(
    cfg: PacketConfig,
    law: Law | tuple[Law, ...],
    sc: Scenario,
    max_batch: int = MAX_BATCH,
    workers: int | None = None,
) -> dict[str, np.ndarray]:
    """Run a batch of scenarios of one configuration (every field of ``sc`` has a leading batch axis).

    Returns per-chunk records (:mod:`.records`) with a leading batch axis.
    """
    sc = jax.tree.map(np.asarray, sc)
    spec = spec_for(cfg, law, sc)
    raw = run_prepared(spec, [prepare(spec, one) for one in _unstack(sc)], max_batch, workers)
    stacked = {k: np.stack([r[k] for r in raw]) for k in raw[0]}
    return finish_records(stacked, cfg.n_chunks, int(np.asarray(sc.rtt).shape[-1]))


def run_one(cfg: PacketConfig, law: Law | tuple[Law, ...], sc: Scenario) -> dict[str, np.ndarray]:
    """Run one scenario (no batch axis); returns per-chunk records as NumPy arrays."""
    out = run_batch(cfg, law, stack([sc]))
    return {k: v[0] for k, v in out.items()}
