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

**Engines.** The JAX engine (:mod:`.engine`) is the reference. Where a run's spec is within the native loop's set
(:mod:`.native`: single bottleneck or routed ports, ACK-clocked DCTCP, D2TCP or Reno, DWTCP with its Scouts, paced TIMELY, Patched
TIMELY or Swift, paced HPCC and HPCC-PINT with in-band telemetry, open-loop senders and Scout-only probes, no
impairments),
``engine="auto"`` (the default) runs the native loop instead, proven bit-identical to the reference on that set;
:func:`choose_engine` decides.
``DWTCP_FLUID_PACKET_ENGINE=jax`` makes "auto" mean the reference everywhere (e.g. to re-run the figures on it).
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

__all__ = [
    "compiled",
    "stack",
    "run_prepared",
    "run_batch",
    "run_one",
    "choose_engine",
    "ENGINES",
    "MAX_BATCH",
    "PROCESS_MIN_SLOTS",
]

#: Engine choices: "auto" (native where it is bit-identical to the reference, else JAX), "jax", "native".
ENGINES = ("auto", "jax", "native")

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


def choose_engine(spec: EngineSpec, engine: str = "auto") -> str:
    """The engine that runs ``spec``: ``"native"`` or ``"jax"``. ``"auto"`` picks the native loop exactly when
    the spec's features and law are within its set (:func:`.native.unsupported` is empty; the environment
    variable ``DWTCP_FLUID_PACKET_ENGINE=jax`` turns that off); ``"native"`` on a spec outside it is a ValueError
    naming what is unsupported."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is invalid: accepted 'auto', 'jax' or 'native'")
    if engine == "auto" and os.environ.get("DWTCP_FLUID_PACKET_ENGINE", "").strip().lower() == "jax":
        return "jax"
    if engine == "jax":
        return "jax"
    from .native import unsupported

    bad = unsupported(spec)
    if engine == "native" and bad:
        raise ValueError(
            f"engine='native' does not run {', '.join(bad)}: accepted a single bottleneck or routed ports with dctcp, d2tcp, "
            "reno, dwtcp, timely, timely-patched, swift, hpcc, hpcc-pint, open-loop or scout-probe and no impairments "
            "(use engine='jax' or 'auto')"
        )
    return "jax" if bad else "native"


def run_prepared(
    spec: EngineSpec,
    scens: list[dict[str, Any]],
    max_batch: int = MAX_BATCH,
    workers: int | None = None,
    engine: str = "auto",
) -> list[dict[str, np.ndarray]]:
    """Run prepared scenarios (:func:`~.engine.prepare`) of one spec; returns the raw engine output of each.

    ``engine`` (:func:`choose_engine`) picks the engine. ``workers`` (default :envvar:`DWTCP_FLUID_PACKET_WORKERS`
    or the CPU count): the native loop runs the batch on that many threads; the JAX engine, with ``workers`` > 1
    and a batch of at least :data:`PROCESS_MIN_SLOTS` slots, splits it into ``workers`` contiguous parts: the
    parent runs the first, worker processes the others.
    """
    if choose_engine(spec, engine) == "native":
        from .native import run_prepared_native

        return run_prepared_native(spec, scens, int(workers) if workers else _workers())
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
    engine: str = "auto",
) -> dict[str, np.ndarray]:
    """Run a batch of scenarios of one configuration (every field of ``sc`` has a leading batch axis) on
    ``engine`` (:func:`choose_engine`).

    Returns per-chunk records (:mod:`.records`) with a leading batch axis.
    """
    sc = jax.tree.map(np.asarray, sc)
    spec = spec_for(cfg, law, sc)
    raw = run_prepared(spec, [prepare(spec, one) for one in _unstack(sc)], max_batch, workers, engine)
    stacked = {k: np.stack([r[k] for r in raw]) for k in raw[0]}
    return finish_records(stacked, cfg.n_chunks, int(np.asarray(sc.rtt).shape[-1]))


def run_one(
    cfg: PacketConfig, law: Law | tuple[Law, ...], sc: Scenario, engine: str = "auto"
) -> dict[str, np.ndarray]:
    """Run one scenario (no batch axis) on ``engine``; returns per-chunk records as NumPy arrays."""
    out = run_batch(cfg, law, stack([sc]), engine=engine)
    return {k: v[0] for k, v in out.items()}
