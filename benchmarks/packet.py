"""Packet core against htsim, built and run in the same run: the four targets of the packet core v2.

Setting (as the htsim driver ``dctcp_bench``): DCTCP, 10 Gbps, 100 µs, K = 65, 1500-byte packets, 250-packet
buffer, g = 1/16. A data packet is one bottleneck departure. Rows:

1. one scenario, 1 s of a 10 Gbps link (833 k packets), after compile — htsim ``-conns 10 -end 1``;
2. aggregate data packets/s, a batch of 256 scenarios (100 ms each) on every core — htsim: one process per core;
3. N = 1000 flows, 1 s: per-packet cost at N = 1000 over that at N = 10 (htsim: the same ratio), with htsim's
   settings (minimum RTO 250 ms, DCTCP's window floor 1 packet). With the core's defaults (RTO 1 ms, floor 2)
   1000 flows keep overflowing the 250-packet buffer and each delivered packet costs ~2.4 sends and ~0.9
   timeouts, so those rows are given too, and with a 2500-packet buffer (one send per packet);
4. compile: first call per distinct shape, and loading it from the persistent cache.

htsim is built with ``../shared/anchors/htsim/build.sh`` into a temporary directory (skipped with a message when it
cannot build). Times are medians of ``--repeat`` runs; the machine's load average is printed next to them (shared
machines are noisy).

    .venv/bin/python benchmarks/packet.py [--repeat 3] [--batch 256] [--quick] [--htsim DIR]
"""

from __future__ import annotations

import argparse
import json
import os
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
    ps = [
        subprocess.Popen(
            [str(exe), "-conns", str(conns), "-end", str(end)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(procs)
    ]
    outs = [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in ps]
    return {"run_s": max(o["run_s"] for o in outs), "pkts": float(sum(o["data_pkts_acked"] for o in outs))}


def _median(fn, repeat: int) -> tuple[float, dict]:
    """Median of ``repeat`` runs and the first run's details (its compile time)."""
    runs = [fn() for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), runs[0][1]


def core(flows: int, duration: str, batch: int, **kw) -> dict[str, float]:
    """Compile (first call) and run (second call) a batch of the packet core; data packets and slots."""
    runs = [
        build("dctcp", flows=flows, duration=duration, seed=i, trace_points=200, **kw) for i in range(batch)
    ]
    pr = runs[0]
    spec = E.spec_for(pr.cfg, pr.engine_laws, B.stack([pr.scenario]))
    scens = [E.prepare(spec, r.scenario) for r in runs]
    t0 = time.perf_counter()
    B.run_prepared(spec, scens)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    raw = B.run_prepared(spec, scens)
    t_run = time.perf_counter() - t0
    sent = sum(float(r["sent_cum"][:, :flows].max(axis=0).sum()) for r in raw)
    return {
        "run_s": t_run,
        "compile_s": max(first - t_run, 0.0),
        "pkts": float(sum(r["busy"].sum() for r in raw)),
        "sends_per_pkt": sent / max(float(sum(r["busy"].sum() for r in raw)), 1.0),
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
            t0 = time.perf_counter()
            B.run_prepared(spec, scens)
            t_compile = time.perf_counter() - t0
            hoisted = all(xla.hoisting_active(fn) for fn in calls._COMPILED.values())
            calls._COMPILED.clear()
            t0 = time.perf_counter()
            B.run_prepared(spec, scens)
            t_load = time.perf_counter() - t0
        finally:
            if old is None:
                os.environ.pop("DWTCP_FLUID_CACHE_DIR", None)
            else:
                os.environ["DWTCP_FLUID_CACHE_DIR"] = old
    return {"compile_s": t_compile, "load_s": t_load, "hoisted": hoisted}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--quick", action="store_true", help="batch 32, one repeat (a smoke run)")
    ap.add_argument("--htsim", default=None, help="an already built htsim directory (with dctcp_bench)")
    a = ap.parse_args(argv)
    if a.quick:
        a.batch, a.repeat = 32, 1
    cores = os.cpu_count() or 1
    print(
        f"packet core v2 vs htsim, DCTCP 10 Gbps 100 us K=65 buffer 250; {cores} cores; load average {_load()}"
    )
    os.environ.setdefault("DWTCP_FLUID_CACHE_DIR", "off")  # time real compiles below (row 4 times the cache)
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(a.htsim) / "dctcp_bench" if a.htsim else build_htsim(Path(tmp))
        h = {}
        if exe is not None:
            h["one"] = _median(lambda: (htsim(exe, 10)["run_s"], {}), a.repeat)[0]
            r = htsim(exe, 10)
            h["pps_core"] = r["pkts"] / r["run_s"]
            par = [htsim(exe, 10, 1.0, cores) for _ in range(a.repeat)]
            h["pps_all"] = statistics.median(p["pkts"] / p["run_s"] for p in par)
            h10 = _median(lambda: ((x := htsim(exe, 10))["run_s"] / x["pkts"], {}), a.repeat)[0]
            h1000 = _median(lambda: ((x := htsim(exe, 1000))["run_s"] / x["pkts"], {}), a.repeat)[0]
            h["ratio"] = h1000 / h10
        one, one_r = _median(lambda: ((r := core(10, "1s", 1))["run_s"], r), a.repeat)
        bat, bat_r = _median(lambda: ((r := core(10, "100ms", a.batch))["pkts"] / r["run_s"], r), a.repeat)
        hts = {"rto": "250ms", "law_params": {"min_cwnd": 1.0}}
        h10c, _ = _median(lambda: ((r := core(10, "1s", 1, **hts))["run_s"] / r["pkts"], r), a.repeat)
        h1000c, rh = _median(lambda: ((r := core(1000, "1s", 1, **hts))["run_s"] / r["pkts"], r), a.repeat)
        c10, _ = _median(lambda: ((r := core(10, "1s", 1))["run_s"] / r["pkts"], r), a.repeat)
        c1000, r1000 = _median(lambda: ((r := core(1000, "1s", 1))["run_s"] / r["pkts"], r), a.repeat)
        c1000b, r1000b = _median(
            lambda: ((r := core(1000, "1s", 1, buffer=2500))["run_s"] / r["pkts"], r), a.repeat
        )
        comp = compile_times()

    def hs(key: str, fmt: str) -> str:
        return fmt.format(h[key]) if key in h else "skipped"

    rows = [
        (
            "one scenario, 1 s of 10 Gbps (833 k pkts)",
            hs("one", "{:.3f} s"),
            f"{one:.3f} s (compile {one_r['compile_s']:.1f} s)",
            f"≤ 2× htsim: {one / h['one']:.2f}×" if "one" in h else "≤ 2× htsim",
        ),
        (
            f"data pkt/s, batch {a.batch} x 100 ms, {cores} cores",
            hs("pps_all", "{:.2e}") + (f" ({h['pps_core']:.2e}/core)" if "pps_core" in h else ""),
            f"{bat:.2e}",
            f"≥ 3× htsim: {bat / h['pps_all']:.2f}×" if "pps_all" in h else "≥ 3× htsim",
        ),
        (
            "per-packet cost N = 1000 / N = 10 (RTO 250 ms, floor 1)",
            hs("ratio", "{:.2f}"),
            f"{h1000c / h10c:.2f} ({rh['sends_per_pkt']:.2f} sends/pkt)",
            "≤ 1.5",
        ),
        (
            "  core defaults (RTO 1 ms, floor 2), buffer 250",
            "",
            f"{c1000 / c10:.2f} ({r1000['sends_per_pkt']:.2f} sends/pkt)",
            "",
        ),
        (
            "  core defaults, N = 1000 with a 2500-packet buffer",
            "",
            f"{c1000b / c10:.2f} ({r1000b['sends_per_pkt']:.2f} sends/pkt)",
            "",
        ),
        (
            "compile (first call) / from the persistent cache",
            "—",
            f"{comp['compile_s']:.1f} s / {comp['load_s']:.2f} s (one kernel: {comp['hoisted']})",
            "one per law and shape bucket",
        ),
    ]
    w = [max(len(r[i]) for r in rows) for i in range(4)]
    head = ("", "htsim", "packet core v2", "target")
    print(" | ".join(x.ljust(w[i]) for i, x in enumerate(head)))
    print("-+-".join("-" * n for n in w))
    for r in rows:
        print(" | ".join(x.ljust(w[i]) for i, x in enumerate(r)))
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
