"""Compile the native packet loop ahead of its first use (``make install``)."""

from __future__ import annotations

import time

from .batch import stack
from .build import build
from .engine import prepare, spec_for
from .native import run_prepared_native

__all__ = ["precompile"]


def precompile() -> float:
    """Compile the native loop now (one compiled signature serves every law) and store it in Numba's on-disk cache,
    so that later processes load it (a few seconds) instead of each compiling it (about 50 s of CPU): ``make install``
    calls it once, as a package with a C extension compiles it at install time. Returns the seconds it took."""
    t0 = time.perf_counter()
    pr = build("dwtcp", flows=2, duration="1ms", trace_points=7)
    spec = spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))
    run_prepared_native(spec, [prepare(spec, pr.scenario)], 1)
    return time.perf_counter() - t0
