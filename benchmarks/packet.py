"""Packet-core throughput: data packets per second for one scenario and for batches, compile time apart.

Setting of the issue: N = 10 DCTCP flows, 10 Gbps, 100 µs, K = 65, g = 1/16. A data packet is one bottleneck
departure (one busy slot). Batches go through ``run_batch``: calls of at most ``MAX_BATCH`` = 64 scenarios, run
concurrently on one thread per core.

Where the time goes (measured on 2 cores): every slot runs ~56 XLA CPU kernels (43 fusions, ~11 loop-carry
copies, one scatter, one row read; the count is printed at the end). A kernel costs about 50 ns to launch plus
about 0.27 ns per (flow, scenario) element it touches, so one scenario pays ~2.9 µs per slot (launch-bound:
0.35 M data packets/s) and a call of 64 scenarios ~13 µs per slot (0.2 µs per scenario-slot); above ~64 scenarios
per call the per-slot working set (the ACK ring, ~(RTT + buffer) × N × B × 4 bytes) leaves the cache. Fewer
kernels per slot, not fewer operations, is what would move both numbers: unrolling or blocking several slots per
loop iteration was measured and did not help (XLA duplicates work across the fused slots). Peak memory is the
process's maximum resident set size after each row (it only grows: an upper bound for that row and the ones
before it).

    .venv/bin/python benchmarks/packet.py [--law dctcp] [--duration 100ms] [--batches 1,16,64,256] [--quick]
                                          [--one-second]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import jax  # noqa: E402
import numpy as np  # noqa: E402

from dwtcp_fluid.packet import build  # noqa: E402
from dwtcp_fluid.packet.engine import _as_arrays, compiled, run_batch, stack  # noqa: E402

#: htsim on this machine class, per core (issue 7): 1.3–1.8 M data packets/s.
HTSIM_PPS = 1.5e6


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench(law: str, duration: str, batch: int, flows: int) -> dict[str, float]:
    runs = [build(law, flows=flows, duration=duration, seed=i, trace_points=200) for i in range(batch)]
    pr = runs[0]
    batch_sc = stack([r.scenario for r in runs])
    # first call: compiles the call shapes run_batch uses for this batch size (then runs); second call: run only
    t0 = time.perf_counter()
    run_batch(pr.cfg, pr.law, batch_sc)
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = run_batch(pr.cfg, pr.law, batch_sc)
    t_run = time.perf_counter() - t0
    busy = float(np.asarray(out["busy"]).sum())
    return {
        "batch": batch,
        "slots": pr.cfg.n_slots,
        "compile_s": max(t_first - t_run, 0.0),
        "run_s": t_run,
        "pps": busy / t_run,
        "sim_s_per_s": batch * pr.duration / t_run,
        "peak_mb": _peak_mb(),
    }


def kernels_per_slot(law: str = "dctcp", flows: int = 10) -> int:
    """XLA kernels (fusions, scatters, gathers, dynamic slices) in the compiled one-slot loop body, unbatched.

    On CPU each kernel costs a dispatch (~0.1 µs) whatever its size, so this count times the dispatch cost is
    the floor of the per-slot time of one scenario; batching amortises it over the scenarios.
    """
    import re

    pr = build(law, flows=flows, duration="1ms", trace_points=10)
    txt = compiled(pr.cfg, pr.law).lower(_as_arrays(stack([pr.scenario]))).compile().as_text()
    best = 0
    for comp in re.split(r"\n(?=\S)", txt):
        n = len(re.findall(r"= \S+ (?:fusion|scatter|gather|dynamic-slice|dynamic-update-slice)\(", comp))
        best = max(best, n)
    return best


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--law", default="dctcp")
    ap.add_argument("--duration", default="100ms")
    ap.add_argument("--flows", type=int, default=10)
    ap.add_argument("--batches", default="1,16,64,256")
    ap.add_argument("--quick", action="store_true", help="10 ms runs, batches 1 and 16")
    ap.add_argument("--one-second", action="store_true", help="also time one scenario of 1 s (target: ≤ 1 s)")
    a = ap.parse_args(argv)
    duration, batches = a.duration, [int(b) for b in a.batches.split(",")]
    if a.quick:
        duration, batches = "10ms", [1, 16]
    print(f"packet core: law={a.law} N={a.flows} 10Gbps 100us K=65, {duration} per scenario, {jax.devices()}")
    print(
        f"{'batch':>6} {'slots':>9} {'compile s':>10} {'run s':>8} {'M data pkt/s':>13} {'x htsim/core':>13} "
        f"{'sim s/s':>8} {'peak MB':>8}"
    )
    for b in batches:
        r = bench(a.law, duration, b, a.flows)
        print(
            f"{r['batch']:>6} {r['slots']:>9} {r['compile_s']:>10.2f} {r['run_s']:>8.2f} {r['pps'] / 1e6:>13.2f} "
            f"{r['pps'] / HTSIM_PPS:>13.2f} {r['sim_s_per_s']:>8.3f} {r['peak_mb']:>8.0f}"
        )
        sys.stdout.flush()
    if a.one_second:
        r = bench(a.law, "1s", 1, a.flows)
        print(
            f"one scenario, 1 s of a 10 Gbps link: {r['run_s']:.2f} s after a {r['compile_s']:.2f} s compile "
            f"({r['pps'] / 1e6:.2f} M data pkt/s)"
        )
    print(f"XLA kernels in the one-slot loop body (unbatched): {kernels_per_slot(a.law, a.flows)}")


if __name__ == "__main__":
    main()
