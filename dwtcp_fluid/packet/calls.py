"""Calls of a compiled packet program in this process: one program per engine spec, one scenario per call.

Shared by :mod:`.batch` (the parent's share of a batch) and :mod:`.workers` (a worker process's share).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from .engine import _run_many
from .state import EngineSpec
from .xla import compile_packet

__all__ = ["compiled"]

_COMPILED: dict[Any, Any] = {}


def compiled(spec: EngineSpec, example: dict[str, Any]) -> Any:
    """The compiled batch program for ``spec`` (in-process cache, then the persistent cache of :mod:`.xla`)."""
    leaves, tree = jax.tree.flatten(example)
    key = (spec, str(tree), tuple((np.shape(a), np.asarray(a).dtype.str) for a in leaves))
    fn = _COMPILED.get(key)
    if fn is None:
        args = jax.tree.map(lambda a: jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype), example)
        fn = compile_packet(lambda s: _run_many(spec, s), (args,), spec)
        _COMPILED[key] = fn
    return fn


def _run_calls(
    spec: EngineSpec, scens: list[dict[str, Any]], max_batch: int = 1
) -> list[dict[str, np.ndarray]]:
    """Run in this process, one scenario per call of the spec's single program.

    One program per spec (never one per batch size): XLA:CPU contracts multiply-adds differently in programs of
    different batch sizes, which changed results in the last bit (measured: α after a few ms of DCTCP), so one
    program makes every result independent of the batch and of its split. A call costs ~0.1 ms of dispatch, and
    calls cannot overlap in one process anyway. (``max_batch`` is kept for compatibility.)
    """
    fn = compiled(spec, jax.tree.map(lambda a: np.asarray(a)[None], scens[0]))
    out: list[dict[str, np.ndarray]] = []
    for one in scens:
        res = fn(jax.tree.map(lambda a: np.asarray(a)[None], one))
        out.append({k: np.asarray(v)[0] for k, v in res.items()})
    return out
