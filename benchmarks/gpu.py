"""The packet core and the batched DDE solver on a GPU, next to the native loop on 2 CPU cores of the same machine.

Nothing in the toolkit requires a GPU; this script measures what one buys. Two tables, each from one process:

1. **Packet core.** DCTCP N = 10, 10 Gbps, 100 µs, K = 65, 250-packet buffer, g = 1/16 (the setting of
   ``benchmarks/packet.py``), each scenario ``--duration`` of simulated time, seeds 0..B-1. The JAX engine's batch
   on the GPU is ``jax.vmap`` of the reference engine's whole run over the B scenarios (one XLA while loop whose
   every trip advances all B scenarios by one event); the native loop (:mod:`dwtcp_fluid.packet.native`) runs the
   same B scenarios on 2 threads with this process pinned to 2 cores. Rows: batch size B, scenarios/s and data
   packets/s of each, and whether the GPU's records equal the native loop's (the native loop is bit-identical to
   the JAX engine on the CPU; ``vmap`` vectorizes the float32 arithmetic of α, which may round differently, so
   equality is reported, not assumed: all records, the integer records — packets, marks, drops, queue — and the
   largest relative difference of the float records). The crossing batch size is the smallest B at which the GPU's data packets/s exceed the native
   loop's, or "none up to" the largest B measured.
2. **DDE solver.** :func:`dwtcp_fluid.dde.solve` with ``method="jax"`` (event-aware RK4, dt = R*/14), DCTCP
   N = 10, 100 ms simulated, each element its own g in [0.03, 0.12]: ms per trajectory at rising batch sizes on
   the default JAX device, and the largest |Δq| (packets) of four elements against the SciPy reference solver at
   rtol = atol = 1e-12.

Run on the GPU machine (``JAX_PLATFORMS`` unset or ``cuda``), and for the CPU baseline of table 2 the same with
``JAX_PLATFORMS=cpu`` under ``taskset -c 0,1``. Each row is printed (flushed) as soon as it is measured, and
``--record PATH`` appends each row as one JSON line, so a run cut short keeps what it measured; ``--collect`` turns
such files into the one document the documentation's GPU numbers are rendered from
(``docs/data/gpu-benchmark.json``, read by ``tools/docvalues.py``).

    python benchmarks/gpu.py [--batches 64,256,1024,4096] [--duration 10ms] [--dde-batches 256,4096,65536]
                             [--skip-packet] [--skip-dde] [--record PATH]
    python benchmarks/gpu.py --collect a.jsonl b.jsonl > docs/data/gpu-benchmark.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
try:  # 2 cores for the whole process, before JAX sizes its CPU thread pool
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:2]))
except (AttributeError, OSError):
    pass

import jax  # noqa: E402
import numpy as np  # noqa: E402

from dwtcp_fluid.packet import batch as B  # noqa: E402
from dwtcp_fluid.packet import build  # noqa: E402
from dwtcp_fluid.packet import engine as E  # noqa: E402


def _emit(record: Path | None, row: dict) -> None:
    print(
        "  " + "  ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()),
        flush=True,
    )
    if record is not None:
        with record.open("a") as f:
            f.write(json.dumps(row) + "\n")


def _scenarios(n: int, duration: str, law: str = "dctcp") -> tuple[E.EngineSpec, list[dict]]:
    runs = [build(law, flows=10, duration=duration, seed=i, trace_points=50) for i in range(n)]
    spec = E.spec_for(runs[0].cfg, runs[0].engine_laws, B.stack([runs[0].scenario]))
    return spec, [E.prepare(spec, r.scenario) for r in runs]


def _lot_scenarios(n: int, duration: str, law: str, hops: int = 2, per_group: int = 4):
    """A parking lot of ``hops`` routed ports (:mod:`dwtcp_fluid.packet.ports`), every port at the link rate
    with a 250-packet buffer and K = 65: ``per_group`` long flows cross every port, ``per_group`` short flows
    cross each port alone; seeds 0..n-1 draw the start slots."""
    from dwtcp_fluid.packet.multihop import route_array

    routes = [tuple(range(hops))] * per_group + [(j,) for j in range(hops) for _ in range(per_group)]
    route = route_array(routes)[0]
    scs = []
    for i in range(n):
        pr = build(law, flows=len(routes), duration=duration, seed=i, trace_points=50)
        scs.append(
            pr.scenario._replace(
                route=route,
                port_rate=np.full(hops, 1000, np.int32),
                port_buffer=np.full(hops, 250, np.int32),
                port_kth=np.full(hops, 65, np.int32),
            )
        )
    spec = E.spec_for(pr.cfg, pr.engine_laws, B.stack(scs[:1]))
    return spec, [E.prepare(spec, sc) for sc in scs]


def _timed(fn, *args):
    """(result, seconds of the second call, seconds the first call spent beyond it: compilation)."""
    t0 = time.perf_counter()
    jax.block_until_ready(fn(*args))
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = jax.block_until_ready(fn(*args))
    t = time.perf_counter() - t0
    return out, t, max(first - t, 0.0)


def ports_table(batches: list[int], cpu_batch: int, duration: str, law: str, record: Path | None) -> None:
    """The routed-port engine (JAX only: the native loop refuses ``"ports"``): the batch on the default device
    next to the same ``vmap`` on this process's 2 CPU cores (at ``cpu_batch`` scenarios; per-scenario cost on the
    CPU does not fall with the batch), records compared between the two devices. Packets/s count a packet once at
    every port that serves it."""
    dev, cpu = jax.devices()[0], jax.devices("cpu")[0]
    print(f"routed ports: {law} on a 2-port parking lot (4 long + 2x4 short flows), {duration} per scenario; "
          f"JAX device {dev.platform}:{dev.device_kind} vs JAX on 2 CPU cores", flush=True)  # fmt: skip
    spec, scens = _lot_scenarios(cpu_batch, duration, law)
    stacked = jax.tree.map(lambda *v: np.stack(v), *scens)
    with jax.default_device(cpu):
        run_cpu = jax.jit(jax.vmap(lambda o: E._run_one(spec, o)))
        ref, t_cpu, c_cpu = _timed(run_cpu, jax.device_put(stacked, cpu))
    ref = jax.tree.map(np.asarray, ref)
    cpu_pkts_s = float(ref["port_busy"].sum()) / t_cpu
    crossing = None
    for b in batches:
        spec, scens = _lot_scenarios(b, duration, law)
        stacked = jax.tree.map(lambda *v: np.stack(v), *scens)
        run = jax.jit(jax.vmap(lambda o: E._run_one(spec, o)))  # noqa: B023
        out, t_dev, comp = _timed(run, stacked)
        out = jax.tree.map(np.asarray, out)
        k = min(b, cpu_batch)
        ints = [key for key in ref if not np.issubdtype(ref[key].dtype, np.floating)]
        same_int = sum(all(np.array_equal(out[key][i], ref[key][i]) for key in ints) for i in range(k))
        row = {
            "table": "ports", "law": law, "device": f"{dev.platform}:{dev.device_kind}", "batch": b,
            "duration": duration, "dev_compile_s": comp, "dev_s": t_dev, "dev_scen_per_s": b / t_dev,
            "dev_pkts_per_s": float(out["port_busy"].sum()) / t_dev, "cpu2_batch": cpu_batch,
            "cpu2_compile_s": c_cpu, "cpu2_scen_per_s": cpu_batch / t_cpu, "cpu2_pkts_per_s": cpu_pkts_s,
            "integer_records_identical": f"{same_int}/{k}",
        }  # fmt: skip
        _emit(record, row)
        if crossing is None and row["dev_pkts_per_s"] > cpu_pkts_s:
            crossing = b
    print(
        f"  crossing batch size: {crossing if crossing is not None else f'none up to {batches[-1]}'}",
        flush=True,
    )


def packet_table(batches: list[int], duration: str, record: Path | None, law: str = "dctcp") -> None:
    dev = jax.devices()[0]
    print(f"packet core: {law} N = 10, {duration} per scenario; JAX device {dev.platform}:{dev.device_kind}; "
          f"native loop on 2 cores", flush=True)  # fmt: skip
    crossing = None
    for b in batches:
        spec, scens = _scenarios(b, duration, law)
        stacked = jax.tree.map(lambda *v: np.stack(v), *scens)
        run = jax.jit(jax.vmap(lambda o: E._run_one(spec, o)))  # noqa: B023
        t0 = time.perf_counter()
        out = jax.block_until_ready(run(stacked))
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = jax.block_until_ready(run(stacked))
        t_gpu = time.perf_counter() - t0
        busy = np.asarray(out["busy"])
        pkts = float(busy.sum())
        B.run_prepared(spec, scens[:1], workers=2, engine="native")  # compile or load outside the timing
        t0 = time.perf_counter()
        nat = B.run_prepared(spec, scens, workers=2, engine="native")
        t_nat = time.perf_counter() - t0
        pkts_nat = float(sum(r["busy"].sum() for r in nat))
        same = sum(all(np.array_equal(np.asarray(out[k])[i], r[k]) for k in r) for i, r in enumerate(nat))
        ints = [k for k in nat[0] if not np.issubdtype(nat[0][k].dtype, np.floating)]
        same_int = sum(
            all(np.array_equal(np.asarray(out[k])[i], r[k]) for k in ints) for i, r in enumerate(nat)
        )
        rel = max(
            float(np.max(np.abs(np.asarray(out[k])[i] - r[k]) / np.maximum(np.abs(r[k]), 1e-30), initial=0.0))
            for i, r in enumerate(nat)
            for k in r
            if k not in ints
        )
        row = {
            "table": "packet", "law": law, "device": f"{dev.platform}:{dev.device_kind}", "batch": b,
            "duration": duration,
            "gpu_compile_s": max(first - t_gpu, 0.0), "gpu_s": t_gpu, "gpu_scen_per_s": b / t_gpu,
            "gpu_pkts_per_s": pkts / t_gpu, "native2_s": t_nat, "native2_scen_per_s": b / t_nat,
            "native2_pkts_per_s": pkts_nat / t_nat, "identical": f"{same}/{b}",
            "integer_records_identical": f"{same_int}/{b}", "float_records_max_rel_diff": rel,
        }  # fmt: skip
        _emit(record, row)
        if crossing is None and pkts / t_gpu > pkts_nat / t_nat:
            crossing = b
    print(
        f"  crossing batch size: {crossing if crossing is not None else f'none up to {batches[-1]}'}",
        flush=True,
    )


def dde_table(batches: list[int], record: Path | None) -> None:
    from dwtcp_fluid.dde import solve
    from dwtcp_fluid.models import DctcpFluid
    from dwtcp_fluid.params import DCTCP_ANALYSIS

    model, P = DctcpFluid(), DCTCP_ANALYSIS.replace(flows=10)
    p = model.numeric_params(P)
    dt = P.R_star / 14.0
    h0, t_end = [1.0, 0.0, 0.0], 0.1
    dev = jax.devices()[0]
    print(f"DDE solver: DCTCP N = 10, {t_end * 1e3:.0f} ms simulated, JAX RK4 dt = R*/14, device "
          f"{dev.platform}:{dev.device_kind}", flush=True)  # fmt: skip
    for b in batches:
        gs = np.linspace(0.03, 0.12, b)
        pb = {k: np.full(b, v) for k, v in p.items()}
        pb["g"] = gs
        t0 = time.perf_counter()
        solve(model, pb, h0, (0.0, t_end), method="jax", dt=dt)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        sol = solve(model, pb, h0, (0.0, t_end), method="jax", dt=dt)
        t_b = time.perf_counter() - t0
        errs = []
        for i in (0, b // 3, 2 * b // 3, b - 1):
            r = solve(model, P.replace(g=float(gs[i])), h0, (0.0, t_end), rtol=1e-12, atol=1e-12)
            errs.append(float(np.abs(np.asarray(sol.x)[i, :, 2] - r(np.asarray(sol.t))[:, 2]).max()))
        row = {
            "table": "dde", "device": f"{dev.platform}:{dev.device_kind}", "batch": b,
            "compile_s": max(first - t_b, 0.0), "batch_s": t_b, "ms_per_trajectory": t_b / b * 1e3,
            "max_dq_packets": max(errs),
        }  # fmt: skip
        _emit(record, row)


def collect(paths: list[Path]) -> dict:
    """Rows of ``--record`` files as one document by batch size: ``packet[B]`` (DCTCP), ``packet_<law>[B]``,
    ``ports_<law>[B]`` and ``dde[device][B]``."""
    doc: dict = {"packet": {}, "dde": {}}
    for path in paths:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            table, law = row["table"], row.get("law", "dctcp")
            for key in {
                "packet": ("identical", "integer_records_identical"),
                "ports": ("integer_records_identical",),
            }.get(table, ()):  # "k/B": a count
                row[f"{key}_n"] = int(row[key].split("/")[0])
            if table == "dde":
                doc["dde"].setdefault(row["device"].split(":")[0], {})[str(row["batch"])] = row
            else:
                name = "packet" if (table, law) == ("packet", "dctcp") else f"{table}_{law}"
                doc.setdefault(name, {})[str(row["batch"])] = row
    return doc


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", default="64,256,1024,4096", help="packet batch sizes (comma-separated)")
    ap.add_argument("--duration", default="10ms", help="simulated time per packet scenario (default 10ms)")
    ap.add_argument("--dde-batches", default="256,4096,65536", help="DDE batch sizes (comma-separated)")
    ap.add_argument("--laws", default="dctcp", help="laws of the packet table (comma-separated)")
    ap.add_argument(
        "--ports-batches", default="64,1024,8192", help="routed-port batch sizes (comma-separated)"
    )
    ap.add_argument("--ports-cpu-batch", type=int, default=32, help="routed-port batch on 2 CPU cores")
    ap.add_argument("--ports-law", default="dwtcp", help="law of the routed-port table")
    ap.add_argument("--skip-packet", action="store_true")
    ap.add_argument("--skip-ports", action="store_true")
    ap.add_argument("--skip-dde", action="store_true")
    ap.add_argument("--record", type=Path, default=None, help="append each row as a JSON line to this file")
    ap.add_argument(
        "--collect", type=Path, nargs="+", default=None, help="print --record files as one JSON document"
    )
    a = ap.parse_args(argv)
    if a.collect:
        print(json.dumps(collect(a.collect), indent=1))
        return
    if not a.skip_packet:
        for law in a.laws.split(","):
            packet_table([int(x) for x in a.batches.split(",")], a.duration, a.record, law)
    if not a.skip_ports:
        ports_table(
            [int(x) for x in a.ports_batches.split(",")], a.ports_cpu_batch, a.duration, a.ports_law, a.record
        )
    if not a.skip_dde:
        dde_table([int(x) for x in a.dde_batches.split(",")], a.record)


if __name__ == "__main__":
    main()
