"""Packet core against htsim, built and run in the same run: its four speed targets.

Setting (as the htsim driver ``dctcp_bench``): DCTCP, 10 Gbps, 100 µs, K = 65, 1500-byte packets, 250-packet
buffer, g = 1/16. A data packet is one bottleneck departure. Rows:

1. one scenario, 1 s of a 10 Gbps link (833 k packets), after compile — htsim ``-conns 10 -end 1``;
2. aggregate data packets/s, a batch of 256 scenarios (100 ms each) on every core — htsim: one process per core;
3. N = 1000 flows, 1 s: per-packet cost at N = 1000 over that at N = 10 (htsim: the same ratio), with htsim's
   settings (minimum RTO 250 ms, DCTCP's window floor 1 packet). With the core's defaults (RTO 1 ms, floor 2)
   1000 flows keep overflowing the 250-packet buffer and each delivered packet costs ~2.4 sends and ~0.9
   timeouts, so those rows are given too, and with a 2500-packet buffer (one send per packet);
4. compile: first call per distinct shape, and loading it from the persistent cache.

Rows 1, 2 and 4 are given for both engines: the JAX engine (the reference) and the native loop
(:mod:`dwtcp_fluid.packet.native`, bit-identical to it on this setting; ``engine="auto"`` picks it here). The
native loop's compile is Numba's first compile, and its load from Numba's on-disk cache in a fresh process. Row 3
runs on the native loop (bit-identical, so the sends and timeouts per packet are the reference's).

htsim is built with ``../shared/anchors/htsim/build.sh`` into a temporary directory (skipped with a message when it
cannot build). Times are medians of ``--repeat`` runs; the machine's load average is printed next to them (shared
machines are noisy). Every row also gives CPU time per data packet (this process's CPU time for the core with one
process, htsim's from the kernel's accounting of its children): CPU time barely moves with the machine's load, so
the CPU-time ratio is the comparison to quote from a shared machine.

``--laws dctcp,dwtcp`` prints, instead of the table, rows 1 and 2 for each law on both engines (``--engines
native``: one of them; DWTCP at its defaults, Scouts included) and each law's native CPU time per data packet over
native DCTCP's (the target "every law on the native path within 1.5× of native DCTCP's cost per data packet"); no
htsim.

``--profile`` prints where the packet core's time goes instead (CPU time per data packet of the compiled run for
short and long scenarios, called bare and through the batch path, and the native loop's; a naive ``vmap`` of the
JAX run over scenarios).

``--record PATH`` also writes the measurements as JSON (machine, load, settings, every row's numbers): the
documentation's speed figures are rendered from ``docs/data/packet-benchmark.json`` (``tools/docvalues.py``).

    .venv/bin/python benchmarks/packet.py [--repeat 3] [--batch 256] [--quick] [--htsim DIR] [--profile]
                                          [--laws dctcp,dwtcp] [--record docs/data/packet-benchmark.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from dwtcp_fluid.packet import batch as B  # noqa: E402
from dwtcp_fluid.packet import (
    build,  # noqa: E402
    calls,  # noqa: E402
    xla,  # noqa: E402
)
from dwtcp_fluid.packet import engine as E  # noqa: E402

ANCHOR = Path(__file__).resolve().parents[1] / ".." / "shared" / "anchors" / "htsim"


def _load() -> str:
    return os.getloadavg().__repr__() if hasattr(os, "getloadavg") else "n/a"


def build_htsim(out: Path) -> Path | None:
    """Build htsim's DCTCP driver into ``out``; None (with a message) when it cannot be built."""
    script = ANCHOR.resolve() / "build.sh"
    if not script.is_file():
        print(f"htsim: skipped ({script} not found)")
        return None
    t0 = time.perf_counter()
    r = subprocess.run(["bash", str(script), str(out)], capture_output=True, text=True)
    exe = out / "dctcp_bench"
    if r.returncode != 0 or not exe.is_file():
        print(f"htsim: skipped (build failed: {(r.stdout + r.stderr).strip().splitlines()[-1:]})")
        return None
    print(f"htsim: built in {time.perf_counter() - t0:.0f} s")
    return exe


def htsim(exe: Path, conns: int, end: float = 1.0, procs: int = 1) -> dict[str, float]:
    """Run ``procs`` htsim processes at once; returns the slowest run time and the total data packets."""
    cpu0 = _children_cpu()
    ps = [
        subprocess.Popen(
            [str(exe), "-conns", str(conns), "-end", str(end)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(procs)
    ]
    outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in ps]
    return {
        "run_s": max(o["run_s"] for o in outs),
        "pkts": float(sum(o["data_pkts_acked"] for o in outs)),
        "cpu_s": _children_cpu() - cpu0,  # includes htsim's setup and exit: an upper bound of its loop's cost
    }


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (htsim runs)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _per_pkt(runs: list[dict]) -> tuple[float, float]:
    """Median wall seconds and median CPU ns per data packet of htsim or packet-core runs."""
    wall = statistics.median(r["run_s"] / r["pkts"] for r in runs)
    cpu = statistics.median(r["cpu_ns"] if "cpu_ns" in r else r["cpu_s"] / r["pkts"] * 1e9 for r in runs)
    return wall, cpu


def core(
    flows: int, duration: str, batch: int, engine: str = "auto", law: str = "dctcp", **kw
) -> dict[str, float]:
    """Compile (first call) and run (second call) a batch of the packet core on ``engine``; data packets and
    slots."""
    runs = [build(law, flows=flows, duration=duration, seed=i, trace_points=200, **kw) for i in range(batch)]
    pr = runs[0]
    spec = E.spec_for(pr.cfg, pr.engine_laws, B.stack([pr.scenario]))
    scens = [E.prepare(spec, r.scenario) for r in runs]
    t0 = time.perf_counter()
    B.run_prepared(spec, scens, engine=engine)
    first = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    raw = B.run_prepared(spec, scens, engine=engine)
    t_run, cpu = time.perf_counter() - t0, time.process_time() - c0
    sent = sum(float(r["sent_cum"][:, :flows].max(axis=0).sum()) for r in raw)
    pkts = [float(r["busy"].sum()) for r in raw]
    # this process's share: all of it with one process (the native loop's threads count in it), the first part
    # when JAX worker processes ran the others
    mine = (
        len(raw)
        if len(raw) * int(scens[0]["n_slots"]) < B.PROCESS_MIN_SLOTS
        or B.choose_engine(spec, engine) == "native"
        else -(-len(raw) // B._workers())
    )
    return {
        "run_s": t_run,
        "compile_s": max(first - t_run, 0.0),
        "pkts": sum(pkts),
        "cpu_ns": cpu / max(sum(pkts[:mine]), 1.0) * 1e9,
        "sends_per_pkt": sent / max(sum(pkts), 1.0),
    }


def compile_times(flows: int = 10) -> dict[str, float]:
    """First compile of a fresh shape, and loading the same program from the persistent cache."""
    with tempfile.TemporaryDirectory() as d:
        old = os.environ.get("DWTCP_FLUID_CACHE_DIR")
        os.environ["DWTCP_FLUID_CACHE_DIR"] = d
        try:
            pr = build(
                "dctcp", flows=flows, duration="1ms", trace_points=7, buffer=333
            )  # a shape nothing else used
            spec = E.spec_for(pr.cfg, pr.engine_laws, B.stack([pr.scenario]))
            scens = [E.prepare(spec, pr.scenario)]
            t0, c0 = time.perf_counter(), time.process_time()
            B.run_prepared(spec, scens, engine="jax")
            t_compile, c_compile = time.perf_counter() - t0, time.process_time() - c0
            hoisted = all(xla.hoisting_active(fn) for fn in calls._COMPILED.values())
            calls._COMPILED.clear()
            t0 = time.perf_counter()
            B.run_prepared(spec, scens, engine="jax")
            t_load = time.perf_counter() - t0
        finally:
            if old is None:
                os.environ.pop("DWTCP_FLUID_CACHE_DIR", None)
            else:
                os.environ["DWTCP_FLUID_CACHE_DIR"] = old
    return {"compile_s": t_compile, "compile_cpu": c_compile, "load_s": t_load, "hoisted": hoisted}


_NATIVE_FIRST_CALL = """
import json, time
from dwtcp_fluid.packet import build, engine as E, batch as B
pr = build("dctcp", flows=10, duration="1ms", trace_points=7)
spec = E.spec_for(pr.cfg, pr.engine_laws, B.stack([pr.scenario]))
scens = [E.prepare(spec, pr.scenario)]
t0, c0 = time.perf_counter(), time.process_time()
B.run_prepared(spec, scens, engine="native")
print(json.dumps({"s": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""


def native_compile_times() -> dict[str, float]:
    """The native loop's first call in a fresh process: Numba's compile (empty cache), then the same from the
    on-disk cache the first one wrote (``cache=True``; a user's first run pays the compile once)."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, JAX_PLATFORMS="cpu")
        out = []
        for _ in range(2):
            r = subprocess.run(
                [sys.executable, "-c", _NATIVE_FIRST_CALL], env=env, capture_output=True, text=True
            )
            out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return {"compile_s": out[0]["s"], "compile_cpu": out[0]["cpu"], "load_s": out[1]["s"]}


def _scenarios(n: int, duration: str) -> tuple[E.EngineSpec, list[dict]]:
    runs = [build("dctcp", flows=10, duration=duration, seed=i, trace_points=200) for i in range(n)]
    spec = E.spec_for(runs[0].cfg, runs[0].engine_laws, B.stack([runs[0].scenario]))
    return spec, [E.prepare(spec, r.scenario) for r in runs]


def _cpu_ns(fn, pkts: float, repeat: int) -> float:
    """Least CPU time of ``repeat`` calls of ``fn``, per data packet (least: the run least disturbed by others)."""
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best / pkts * 1e9


def _native(compiled) -> str:
    """How many of a compiled program's while loops XLA's small-loop pass turned into native code."""
    text = compiled.as_text()
    return f"{text.count('xla_cpu_small_call')} of {text.count(' while(')}"


def profile(repeat: int) -> None:
    """Where the packet core's time goes (CPU time per data packet, DCTCP N = 10 as in the table)."""
    import jax
    import numpy as np

    print(f"where the time goes (CPU ns per data packet, least of {repeat}); load average {_load()}")
    one = lambda a: jax.tree.map(lambda v: np.asarray(v)[None], a)  # noqa: E731
    for n, dur in ((1, "1s"), (8, "100ms"), (64, "10ms")):
        spec, scens = _scenarios(n, dur)
        fn = calls.compiled(spec, one(scens[0]))
        args = [one(sc) for sc in scens]
        pkts = sum(float(np.asarray(fn(a)["busy"]).sum()) for a in args)
        bare = _cpu_ns(lambda: [jax.block_until_ready(fn(a)) for a in args], pkts, repeat)  # noqa: B023
        path = _cpu_ns(lambda: B.run_prepared(spec, scens, workers=1, engine="jax"), pkts, repeat)  # noqa: B023
        B.run_prepared(spec, scens[:1], workers=1, engine="native")  # compile or load outside the timing
        nat = _cpu_ns(lambda: B.run_prepared(spec, scens, workers=1, engine="native"), pkts, repeat)  # noqa: B023
        slots = sum(int(sc["n_slots"]) for sc in scens)
        print(
            f"  {n:3d} x {dur:>5}: compiled run {bare:6.1f} ns/pkt ({bare * pkts / slots:6.1f} ns/slot), "
            f"through the batch path {path:6.1f} ns/pkt; native loop {nat:5.1f} ns/pkt"
        )
    print(f"  loops compiled as native code (no kernel launch per event): {_native(fn)}")
    # the obvious batching: vmap the whole run over scenarios (a batched while loop selects its whole carry
    # every trip, and a batched in-place update is a scatter, which XLA's small-loop pass cannot compile natively)
    spec, scens = _scenarios(8, "10ms")
    st = jax.tree.map(lambda *v: np.stack(v), *scens)
    shapes = jax.tree.map(lambda v: jax.ShapeDtypeStruct(v.shape, v.dtype), st)
    vm = xla.compile_packet(lambda s: jax.vmap(lambda o: E._run_one(spec, o))(s), (shapes,), ("vmap", spec))
    out = vm(st)
    pkts = float(np.asarray(out["busy"]).sum())
    ns = _cpu_ns(lambda: jax.block_until_ready(vm(st)), pkts, max(1, repeat // 2))
    ref = B.run_prepared(spec, scens, workers=1, engine="jax")
    same = all(np.array_equal(np.asarray(out[k])[i], r[k]) for i, r in enumerate(ref) for k in r)
    print(
        f"  vmap of the run over 8 scenarios x 10 ms: {ns:.0f} ns/pkt, loops compiled as native code: "
        f"{_native(vm)}, bit-identical to one call per scenario: {same}"
    )
    print(f"load average after: {_load()}")


def laws_table(
    laws: list[str], batch: int, repeat: int, engines: tuple[str, ...] = ("jax", "native")
) -> None:
    """Rows 1 and 2 for each law on ``engines``, and each law's native cost per data packet over DCTCP's."""
    cores = os.cpu_count() or 1
    print(f"per law, N = 10, 10 Gbps, 100 us, buffer 250; {cores} cores; load average {_load()}")
    print("CPU time per data packet is this process's CPU time (native threads included) over its packets.")
    native_one: dict[str, float] = {}
    native_bat: dict[str, float] = {}
    for law in laws:
        for e in engines:
            ones = [core(10, "1s", 1, e, law) for _ in range(repeat)]
            bats = [core(10, "100ms", batch, e, law) for _ in range(repeat)]
            one_s, one_cpu = (statistics.median(r[k] for r in ones) for k in ("run_s", "cpu_ns"))
            pps, bat_cpu = (
                statistics.median(r["pkts"] / r["run_s"] for r in bats),
                statistics.median(r["cpu_ns"] for r in bats),
            )
            if e == "native":
                native_one[law], native_bat[law] = one_cpu, bat_cpu
            print(
                f"  {law:>6} [{e:>6}]: one scenario 1 s: {one_s:.3f} s wall, CPU {one_cpu:.0f} ns/pkt "
                f"({ones[0]['pkts']:.0f} pkts); batch {batch} x 100 ms: {pps:.2e} data pkt/s wall, "
                f"CPU {bat_cpu:.0f} ns/pkt; load {_load()}",
                flush=True,
            )
    if "dctcp" in native_one:
        for law in native_one:
            print(
                f"  {law:>6} native CPU per packet / native DCTCP's: one scenario "
                f"{native_one[law] / native_one['dctcp']:.2f}, batch {native_bat[law] / native_bat['dctcp']:.2f}"
                " (target ≤ 1.5)"
            )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--quick", action="store_true", help="batch 32, one repeat (a smoke run)")
    ap.add_argument("--htsim", default=None, help="an already built htsim directory (with dctcp_bench)")
    ap.add_argument("--profile", action="store_true", help="where the time goes, instead of the table")
    ap.add_argument("--record", type=Path, default=None, help="also write the measurements to this JSON file")
    ap.add_argument(
        "--laws", default=None, help="comma-separated laws: rows 1-2 per law instead of the table"
    )
    ap.add_argument(
        "--engines", default="jax,native", help="with --laws: the engines to run (comma-separated)"
    )
    a = ap.parse_args(argv)
    if a.laws:
        if a.quick:
            a.batch, a.repeat = 32, 1
        engines = tuple(x.strip() for x in a.engines.split(",") if x.strip())
        bad = [e for e in engines if e not in ("jax", "native")]
        if bad or not engines:
            print(f"--engines {a.engines!r} is invalid: accepted jax, native or both", file=sys.stderr)
            raise SystemExit(2)
        laws_table([x.strip() for x in a.laws.split(",") if x.strip()], a.batch, a.repeat, engines)
        return
    if a.profile:
        os.environ.setdefault("DWTCP_FLUID_CACHE_DIR", "off")
        profile(max(a.repeat, 3))
        return
    if a.quick:
        a.batch, a.repeat = 32, 1
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(
        f"packet core vs htsim, DCTCP 10 Gbps 100 us K=65 buffer 250; {cores} cores; load average {_load()}"
    )
    os.environ.setdefault("DWTCP_FLUID_CACHE_DIR", "off")  # time real compiles below (row 4 times the cache)
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(a.htsim) / "dctcp_bench" if a.htsim else build_htsim(Path(tmp))
        if exe is not None and not exe.is_file():
            print(f"htsim: skipped ({exe} not found)")
            exe = None
        h = {}
        if exe is not None:
            ones = [htsim(exe, 10) for _ in range(a.repeat)]
            h["one"] = statistics.median(o["run_s"] for o in ones)
            h["one_cpu"] = statistics.median(o["cpu_s"] / o["pkts"] * 1e9 for o in ones)
            h["pps_core"] = ones[0]["pkts"] / ones[0]["run_s"]
            par = [htsim(exe, 10, 1.0, cores) for _ in range(a.repeat)]
            h["pps_all"] = statistics.median(p["pkts"] / p["run_s"] for p in par)
            h["cpu_all"] = statistics.median(p["cpu_s"] / p["pkts"] * 1e9 for p in par)
            h10, h10_cpu = _per_pkt([htsim(exe, 10) for _ in range(a.repeat)])
            h1000, h1000_cpu = _per_pkt([htsim(exe, 1000) for _ in range(a.repeat)])
            h["ratio"], h["ratio_cpu"] = h1000 / h10, h1000_cpu / h10_cpu
        eng: dict[str, dict[str, float]] = {}
        for e in ("jax", "native"):
            ones_c = [core(10, "1s", 1, e) for _ in range(a.repeat)]
            bats = [core(10, "100ms", a.batch, e) for _ in range(a.repeat)]
            eng[e] = {
                "one": statistics.median(r["run_s"] for r in ones_c),
                "one_cpu": statistics.median(r["cpu_ns"] for r in ones_c),
                "one_compile": ones_c[0]["compile_s"],
                "bat": statistics.median(r["pkts"] / r["run_s"] for r in bats),
                "bat_cpu": statistics.median(r["cpu_ns"] for r in bats),
            }
            print(f"  {e}: done, load average {_load()}", flush=True)
        hts = {"rto": "250ms", "law_params": {"min_cwnd": 1.0}}
        h10c = _per_pkt([core(10, "1s", 1, **hts) for _ in range(a.repeat)])
        h1000c = _per_pkt(rh := [core(1000, "1s", 1, **hts) for _ in range(a.repeat)])
        c10 = _per_pkt([core(10, "1s", 1) for _ in range(a.repeat)])
        c1000 = _per_pkt(r1000 := [core(1000, "1s", 1) for _ in range(a.repeat)])
        c1000b = _per_pkt(r1000b := [core(1000, "1s", 1, buffer=2500) for _ in range(a.repeat)])
        comp = compile_times()
        ncomp = native_compile_times()

    def hs(key: str, fmt: str) -> str:
        return fmt.format(h[key]) if key in h else "skipped"

    rows = []
    for e, x in eng.items():
        rows.append(
            (
                f"one scenario, 1 s of 10 Gbps (833 k pkts) [{e}]",
                hs("one", "{:.3f} s") + (f", CPU {h['one_cpu']:.0f} ns/pkt" if "one" in h else ""),
                f"{x['one']:.3f} s, CPU {x['one_cpu']:.0f} ns/pkt (first call +{x['one_compile']:.1f} s)",
                f"≤ 2× htsim: {x['one'] / h['one']:.2f}× (CPU {x['one_cpu'] / h['one_cpu']:.2f}×)"
                if "one" in h
                else "≤ 2× htsim",
            )
        )
    for e, x in eng.items():
        rows.append(
            (
                f"data pkt/s, batch {a.batch} x 100 ms, {cores} cores [{e}]",
                hs("pps_all", "{:.2e}")
                + (f" ({h['pps_core']:.2e}/core), CPU {h['cpu_all']:.0f} ns/pkt" if "pps_core" in h else ""),
                f"{x['bat']:.2e}, CPU {x['bat_cpu']:.0f} ns/pkt",
                f"≥ 3× htsim: {x['bat'] / h['pps_all']:.2f}× (CPU {h['cpu_all'] / x['bat_cpu']:.2f}×)"
                if "pps_all" in h
                else "≥ 3× htsim",
            )
        )
    rows += [
        (
            "per-packet cost N = 1000 / N = 10 (RTO 250 ms, floor 1) [native]",
            hs("ratio", "{:.2f}") + (f" (CPU {h['ratio_cpu']:.2f})" if "ratio" in h else ""),
            f"{h1000c[0] / h10c[0]:.2f} (CPU {h1000c[1] / h10c[1]:.2f}; {rh[0]['sends_per_pkt']:.2f} sends/pkt)",
            "≤ 1.5",
        ),
        (
            "  core defaults (RTO 1 ms, floor 2), buffer 250",
            "",
            f"{c1000[0] / c10[0]:.2f} (CPU {c1000[1] / c10[1]:.2f}; {r1000[0]['sends_per_pkt']:.2f} sends/pkt)",
            "",
        ),
        (
            "  core defaults, N = 1000 with a 2500-packet buffer",
            "",
            f"{c1000b[0] / c10[0]:.2f} (CPU {c1000b[1] / c10[1]:.2f}; {r1000b[0]['sends_per_pkt']:.2f} sends/pkt)",
            "",
        ),
        (
            "compile (first call) / from the persistent cache [jax]",
            "—",
            f"{comp['compile_s']:.1f} s (CPU {comp['compile_cpu']:.1f} s) / {comp['load_s']:.2f} s "
            f"(one kernel: {comp['hoisted']})",
            "one per law and shape bucket",
        ),
        (
            "compile (first call) / from Numba's disk cache [native]",
            "—",
            f"{ncomp['compile_s']:.1f} s (CPU {ncomp['compile_cpu']:.1f} s) / {ncomp['load_s']:.2f} s",
            "one for every shape and law",
        ),
    ]
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    head = ("", "htsim", "packet core", "target")
    print(" | ".join(x.ljust(w[i]) for i, x in enumerate(head)))
    print("-+-".join("-" * n for n in w))
    for r in rows:
        print(" | ".join(x.ljust(w[i]) for i, x in enumerate(r)))
    print(f"load average after: {_load()}")
    if a.record is not None:
        rec = record(
            a,
            cores,
            load_before,
            h,
            eng,
            (h10c, h1000c, rh),
            (c10, c1000, r1000, c1000b, r1000b),
            comp,
            ncomp,
        )
        a.record.parent.mkdir(parents=True, exist_ok=True)
        tmp = a.record.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, indent=1) + "\n")
        tmp.replace(a.record)
        print(f"wrote {a.record}")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def record(a, cores, load_before, h, eng, htsim_like, defaults, comp, ncomp) -> dict:
    """The measurements as one JSON-able dict (the file ``--record`` writes)."""
    import datetime

    from dwtcp_fluid import __version__
    from dwtcp_fluid._provenance import git_revision

    h10c, h1000c, rh = htsim_like
    c10, c1000, r1000, c1000b, r1000b = defaults
    ht = None
    if h:
        ht = {
            "one_s": h["one"],
            "one_cpu_ns": h["one_cpu"],
            "batch_pps": h["pps_all"],
            "batch_pps_per_core": h["pps_core"],
            "batch_cpu_ns": h["cpu_all"],
            "n1000_ratio": h["ratio"],
            "n1000_cpu_ratio": h["ratio_cpu"],
        }
    engines = {}
    for e, x in eng.items():
        c = comp if e == "jax" else ncomp
        engines[e] = {
            "one_s": x["one"],
            "one_cpu_ns": x["one_cpu"],
            "first_call_extra_s": x["one_compile"],
            "batch_pps": x["bat"],
            "batch_cpu_ns": x["bat_cpu"],
            "compile_s": c["compile_s"],
            "cache_load_s": c["load_s"],
            "one_time_over_htsim": x["one"] / h["one"] if h else None,
            "batch_vs_htsim": x["bat"] / h["pps_all"] if h else None,
            "batch_cpu_vs_htsim": h["cpu_all"] / x["bat_cpu"] if h else None,
        }
    return {
        "benchmark": "benchmarks/packet.py",
        "setting": "DCTCP, N = 10, 10 Gbps, 100 us, K = 65, 1500-byte packets, buffer 250, g = 1/16",
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "package_version": __version__,
        "git_revision": git_revision(),
        "repeat": a.repeat,
        "batch": a.batch,
        "machine": {
            "cpu": _cpu_model(),
            "cores": cores,
            "load_before": load_before,
            "load_after": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        },
        "htsim": ht,
        "engines": engines,
        "n1000": {
            "engine": "native",
            "core_ratio": h1000c[0] / h10c[0],
            "core_cpu_ratio": h1000c[1] / h10c[1],
            "sends_per_pkt": rh[0]["sends_per_pkt"],
            "defaults_cpu_ratio": c1000[1] / c10[1],
            "defaults_sends_per_pkt": r1000[0]["sends_per_pkt"],
            "buffer2500_cpu_ratio": c1000b[1] / c10[1],
            "buffer2500_sends_per_pkt": r1000b[0]["sends_per_pkt"],
        },
    }


if __name__ == "__main__":
    main()
