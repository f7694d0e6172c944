"""[D2TCP]'s deadline scenarios for the packet core: the §4.1.2 microbenchmark scaled to the 10 Gbps core, a mixed
workload of deadline flows against long flows, and long flows held at one imminence d (for the fluid cycle).

All on the DCTCP analysis link (10 Gbps, 100 µs, K = 65, g = 1/16) that the DCTCP and D2TCP laws share; the same
builder serves ``law="dctcp"`` and ``law="d2tcp"`` so the two differ only in the law.
"""

from __future__ import annotations

import numpy as np

from .build import PacketRun, build

__all__ = ["MICRO_MB", "MICRO_DEADLINES_S", "microbenchmark", "mixed_deadlines", "fixed_imminence"]

#: [D2TCP] §4.1.2: four flows of 150, 220, 350 and 500 MB with deadlines 1, 1.5, 2.5 and 4 s.
MICRO_MB = (150.0, 220.0, 350.0, 500.0)
MICRO_DEADLINES_S = (1.0, 1.5, 2.5, 4.0)
#: Scaling onto the 10 Gbps core: 1 s → 30 ms, and 1 MB → 66.7 packets (a 2 Gbps share of the paper's testbed is
#: 1/5 of our link, so sizes keep the paper's ratio of demand to capacity·deadline).
MICRO_TIME = 0.03
MICRO_PACKETS_PER_MB = 66.7


def microbenchmark(law: str, *, seed: int = 0) -> PacketRun:
    """[D2TCP] §4.1.2 scaled: four flows, sizes ∝ 150–500 MB, deadlines ∝ 1–4 s (see the module constants).

    Parameters
    ----------
    law : str
        ``"dctcp"`` or ``"d2tcp"`` (any registered law).
    seed : int
        Seed of the run.
    """
    return build(
        law,
        flows=4,
        sizes=[mb * MICRO_PACKETS_PER_MB for mb in MICRO_MB],
        deadlines=[d * MICRO_TIME for d in MICRO_DEADLINES_S],
        duration=1.05 * MICRO_DEADLINES_S[-1] * MICRO_TIME,
        seed=seed,
        trace_points=200,
    )


def mixed_deadlines(
    law: str, *, seed: int = 0, flows: int = 16, size: int = 1000, long_flows: int = 2
) -> PacketRun:
    """``flows`` deadline flows of ``size`` packets (deadlines uniform in [10, 40] ms, drawn from ``seed``) start
    together with ``long_flows`` long flows without deadline (d = 1)."""
    rng = np.random.default_rng(seed)
    dls = list(rng.uniform(0.01, 0.04, flows))
    n = flows + long_flows
    return build(
        law,
        flows=n,
        sizes=[float(size)] * flows + [float(2**30)] * long_flows,
        deadlines=dls + [float("inf")] * long_flows,
        starts=[0.0] * n,
        duration=0.06,
        seed=seed,
        trace_points=200,
    )


def fixed_imminence(d: float, *, flows: int = 10, duration: str = "60ms") -> PacketRun:
    """``flows`` long D2TCP flows held at imminence ``d`` ∈ {0.5, 1, 2}: 10⁶-packet flows with a far deadline
    (100 s: T_c/D < 0.5, clipped to 0.5), no deadline (d = 1), or a near one (1 s: T_c/D > 2, clipped to 2)."""
    if d not in (0.5, 1.0, 2.0):
        raise ValueError(f"d={d!r} is invalid: accepted 0.5, 1 or 2 (the caps of [D2TCP] and DCTCP's 1)")
    kw = {} if d == 1.0 else {"sizes": [1e6] * flows, "deadlines": [100.0 if d == 0.5 else 1.0] * flows}
    return build("d2tcp", flows=flows, duration=duration, trace_points=3000, seed=1, **kw)  # type: ignore[arg-type]
