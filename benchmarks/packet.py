"""Packet-core throughput: data packets per second for one scenario and for vmapped batches, compile time apart.

Setting of the issue: N = 10 DCTCP flows, 10 Gbps, 100 µs, K = 65, g = 1/16. A data packet is one bottleneck
departure (one busy slot). Batches go through ``run_batch``, which runs vmapped calls of at most ``MAX_BATCH``
scenarios (the aggregate rate falls for larger vmapped batches on CPU).

Where the time goes (measured on 2 shared cores): one scenario pays ~50 XLA kernels per slot (printed at the
end), each a separate dispatch on the CPU runtime, so ~3–5 µs per slot whatever N; under vmap the dispatch cost is
shared, but every slot updates every flow's state ([batch, N] arrays through the law, the sender and the
accumulators, ~10³ element operations per scenario-slot) plus batched scatter/gather for the FIFO, ~1 µs per
scenario-slot. Prints a table; ``--quick`` shortens the runs (for a smoke test), ``--batches`` and
``--duration`` change the sweep. Peak memory is the process's maximum resident set size after each row (it only
grows, so read it as an upper bound for that row and the rows before it).

    .venv/bin/python benchmarks/packet.py [--law dctcp] [--duration 100ms] [--batches 1,16,64,256] [--quick]
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
from dwtcp_fluid.packet.engine import MAX_BATCH, _as_arrays, compiled, run_batch, stack  # noqa: E402

#: htsim on this machine class, per core (issue 7): 1.3–1.8 M data packets/s.
HTSIM_PPS = 1.5e6


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench(law: str, duration: str, batch: int, flows: int) -> dict[str, float]:
    runs = [build(law, flows=flows, duration=duration, seed=i, trace_points=200) for i in range(batch)]
    pr = runs[0]
    sub = min(batch, MAX_BATCH)
    arg = _as_arrays(stack([r.scenario for r in runs[:sub]]))
    t0 = time.perf_counter()
    compiled(pr.cfg, pr.law).lower(arg).compile()
    t_compile = time.perf_counter() - t0
    jax.block_until_ready(compiled(pr.cfg, pr.law)(arg))  # warm the jit cache (same shapes)
    batch_sc = stack([r.scenario for r in runs])
    t0 = time.perf_counter()
    out = run_batch(pr.cfg, pr.law, batch_sc)
    t_run = time.perf_counter() - t0
    busy = float(np.asarray(out["busy"]).sum())
    return {
        "batch": batch,
        "slots": pr.cfg.n_slots,
        "compile_s": t_compile,
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
