"""HPCC in htsim and in the packet core at the same settings: queue, rates, completion times of equal flows.

htsim (the anchor's ``build-datacenter.sh DIR`` builds ``DIR/sim/datacenter/htsim_hpcc``) runs its ``HPCCSrc``
(``sim/hpcc.cpp``) on a k = 4 fat tree; N senders in the other pods each send S packets to host 0, all starting
at once (htsim's driver starts every flow at time 0), so the only shared port is the ToR's downlink to host 0
and every path crosses 6 links. The packet core runs ``--law hpcc`` on one bottleneck with the same packet rate
(1564 bytes on the wire: htsim's 1500-byte payload plus its 64-byte header), the same unloaded RTT d (htsim's
6·2 link latencies plus the 6 data and 6 ACK serializations, rounded to the core's slot), η = 0.95, maxStage 5,
W_AI = 1 packet (htsim's ``_Wai = _mss``), W_init = B·T and the same flows, once with the reference updated once
per RTT ([HPCC] Alg. 1), once on every ACK (``update="per-ack"``, htsim's reading), and once on every ACK with the
telemetry reference L kept from the flow's first ACK (``telemetry="first"``, htsim's other reading: both together
are htsim's ``HPCCSrc``).

htsim's T (its ``HPCCSrc::_T``, the "known baseline RTT") is a constant 12 µs in the source; this script patches
the copy in ``DIR`` (never the anchor) so that T is read from ``HTSIM_HPCC_T_US`` and sets it to the setting's d,
so that both simulators run T = d. The patch and the rebuild of the HPCC objects happen once.

Measured on both sides, over the middle half of the ideal completion time N·S/C: the bottleneck queue (htsim: its
sampling queue logger on the ToR downlinks, every 10 µs, the busiest one; the core: its per-chunk queue integral),
mean and largest; and each flow's completion time: mean against N·S/C + d, and max/min (the spread of equal
flows started together: convergence to fair shares). htsim's windows are not comparable as numbers: with its
reference updated on every ACK its window grows far beyond the BDP (1e12 bytes in the first setting) while the host
NIC holds the sending rate at line rate.

Run: ``.venv/bin/python benchmarks/htsim_hpcc.py --htsim DIR [--json docs/data/htsim-hpcc.json]`` (the record
that docs/packet.md quotes). Without a built htsim it prints one
line and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WIRE_BYTES = 1564  # htsim: 1500-byte MSS + 64-byte header (HPCCPacket::ACKSIZE)
ACK_BYTES = 64
MSS = 1500
HOPS = 6  # host-ToR-agg-core-agg-ToR-host
PATCH_MARK = "HTSIM_HPCC_T_US"


@dataclass(frozen=True)
class Setting:
    """N flows of S packets at capacity (Gbps) and unloaded RTT d (µs)."""

    name: str
    flows: int
    gbps: float
    rtt_us: float
    size: int


SETTINGS = (
    Setting("n2-100g-10us", 2, 100.0, 10.0, 4000),
    Setting("n10-25g-50us", 10, 25.0, 50.0, 2000),
    Setting("n10-10g-100us", 10, 10.0, 100.0, 1200),
)


def slot_us(s: Setting) -> float:
    return WIRE_BYTES * 8 / (s.gbps * 1e3)


def matched_rtt_us(s: Setting) -> float:
    """d rounded to a whole number of the core's slots (both simulators use this d)."""
    return round(s.rtt_us / slot_us(s)) * slot_us(s)


def hop_latency_us(s: Setting) -> float:
    """htsim's per-link latency giving the unloaded RTT d on a 6-link path (data and ACK serializations
    included)."""
    ser = HOPS * (WIRE_BYTES + ACK_BYTES) * 8 / (s.gbps * 1e3)
    return (matched_rtt_us(s) - ser) / (2 * HOPS)


def prepare_htsim(root: Path) -> Path | None:
    """The T-patched ``htsim_hpcc`` under ``root`` (patched and rebuilt once), or None when htsim is not built."""
    exe = root / "sim" / "datacenter" / "htsim_hpcc"
    src = root / "sim" / "hpcc.cpp"
    if not exe.exists() or not src.exists():
        return None
    text = src.read_text()
    if PATCH_MARK not in text:
        old = "simtime_picosec HPCCSrc::_T = timeFromUs(12.0);"
        if old not in text:
            raise SystemExit(f"htsim: {src} has no '{old}' to patch")
        new = (
            'simtime_picosec HPCCSrc::_T = timeFromUs(getenv("' + PATCH_MARK + '") ? '
            'atof(getenv("' + PATCH_MARK + '")) : 12.0);'
        )
        src.write_text("#include <cstdlib>\n" + text.replace(old, new))
        for tgt, d in (("libhtsim.a", root / "sim"), ("htsim_hpcc", root / "sim" / "datacenter")):
            r = subprocess.run(["make", "-s", "-C", str(d), tgt], capture_output=True, text=True)
            if r.returncode:
                raise SystemExit(f"htsim: rebuilding {tgt} failed:\n{r.stderr[-2000:]}")
    return exe


def htsim_queue(log: Path, t0: float, t1: float) -> tuple[float, float]:
    """Mean and largest queue (packets) of the busiest ToR downlink over [t0, t1] µs, from htsim's binary log:
    44-byte records after ``# TRACE`` (time s, type, id, event + 100·type, three values); the sampling queue
    logger writes (last, min, max) bytes every 10 µs as QUEUE_APPROX (5) / QUEUE_RANGE (0)."""
    raw = log.read_bytes()
    rec = np.dtype([("t", "<f8"), ("type", "<u4"), ("id", "<u4"), ("ev", "<u4"), ("v1", "<f8"), ("v2", "<f8"),
                    ("v3", "<f8")])  # fmt: skip
    body = raw[raw.index(b"# TRACE\n") + len(b"# TRACE\n") :]
    r = np.frombuffer(body[: len(body) // rec.itemsize * rec.itemsize], dtype=rec)
    r = r[(r["type"] == 5) & (r["ev"] == 500) & (r["t"] * 1e6 >= t0) & (r["t"] * 1e6 <= t1)]
    best = max(np.unique(r["id"]), key=lambda i: float(np.mean(r["v1"][r["id"] == i])))
    q = r[r["id"] == best]
    return float(np.mean(q["v1"])) / WIRE_BYTES, float(np.max(q["v3"])) / WIRE_BYTES


def run_htsim(exe: Path, s: Setting) -> dict:
    """One setting through htsim: the bottleneck queue over the middle half and the completion times (µs)."""
    d = matched_rtt_us(s)
    C = s.gbps * 1e3 / (WIRE_BYTES * 8)  # packets per µs
    ideal = s.flows * s.size / C
    with tempfile.TemporaryDirectory() as tmp:
        cm = Path(tmp) / "incast.cm"
        lines = ["Nodes 16", f"Connections {s.flows}"]
        lines += [f"{4 + i}->0 id {i + 1} start 0 size {s.size * MSS}" for i in range(s.flows)]
        cm.write_text("\n".join(lines) + "\n")
        log = Path(tmp) / "log.dat"
        cmd = [str(exe), "-nodes", "16", "-conns", str(s.flows), "-tm", str(cm), "-strat", "ecmp_host",
               "-paths", "16", "-q", "5000", "-pfc_thresholds", "4000", "4500", "-mtu", str(MSS),
               "-linkspeed", str(int(s.gbps * 1e3)), "-hop_latency", f"{hop_latency_us(s):.6f}",
               "-end", str(int(2 * ideal + 50 * d)), "-log", "tor_downqueue", "-o", str(log)]  # fmt: skip
        env = dict(os.environ, **{PATCH_MARK: f"{d:.6f}"})
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, check=True).stdout
        qmean, qmax = htsim_queue(log, 0.25 * ideal, 0.75 * ideal)
    fct = [float(m.group(1)) for m in re.finditer(r"^Flow \S+ finished at (\S+)", out, re.M)]
    if len(fct) != s.flows:
        raise SystemExit(f"htsim {s.name}: {len(fct)} of {s.flows} flows finished")
    return summary(s, np.array(fct), qmean, qmax)


def run_core(s: Setting, update: str, telemetry: str = "previous") -> dict:
    """One setting through the packet core's ``hpcc`` law."""
    from dwtcp_fluid.packet import build, run
    from dwtcp_fluid.packet.laws.hpcc import Hpcc
    from dwtcp_fluid.params import LinkParams

    d = matched_rtt_us(s)
    link = LinkParams(capacity=f"{s.gbps}Gbps", rtt=f"{d}us", packet_size=float(WIRE_BYTES))
    C = float(link.C) * 1e-6
    ideal = s.flows * s.size / C
    points = 400
    pr = build(
        Hpcc(update=update, telemetry=telemetry), link=link, flows=s.flows, duration=(1.5 * ideal + 20 * d) * 1e-6, sizes=[float(s.size)] * s.flows,
        starts=[0.0] * s.flows, start_jitter=False, buffer=5000, trace_points=points,
        law_params={"eta": 0.95, "w_ai": 1.0, "max_stage": 5.0},
    )  # fmt: skip
    pk = run(pr)  # the native loop (bit-identical to the JAX engine on HPCC)
    rec = pk["records"]
    chunk_us = pr.duration * 1e6 / len(rec["q_end"])
    mid = slice(int(0.25 * ideal / chunk_us), int(0.75 * ideal / chunk_us))
    queue = float(np.sum(rec["q_sum"][mid]) / np.sum(rec["opps"][mid]))
    fin = np.asarray(rec["finish"], float)  # per flow: the slot of its last ACK, -1 if unfinished
    if np.any(fin < 0):
        raise SystemExit(f"core {s.name}: a flow did not finish")
    return summary(s, fin * pr.slot * 1e6, queue, float(np.max(rec["q_max"][mid])))


def summary(s: Setting, fct: np.ndarray, queue: float, queue_max: float) -> dict:
    """Queue (packets) and completion times (µs) of one run; ``fct_ideal`` = N·S/C + d."""
    C = s.gbps * 1e3 / (WIRE_BYTES * 8)
    return {
        "queue": queue,
        "queue_max": queue_max,
        "fct_mean_us": float(np.mean(fct)),
        "fct_max_us": float(np.max(fct)),
        "fct_spread": float(np.max(fct) / np.min(fct)),
        "fct_ideal_us": s.flows * s.size / C + matched_rtt_us(s),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--htsim", default=os.environ.get("HTSIM_BUILD", ""), help="build-datacenter.sh's OUTDIR")
    ap.add_argument("--settings", default=",".join(s.name for s in SETTINGS))
    ap.add_argument("--json", default="")
    a = ap.parse_args(argv)
    exe = prepare_htsim(Path(a.htsim)) if a.htsim else None
    if exe is None:
        print(
            "htsim_hpcc not built (run ../shared/anchors/htsim/build-datacenter.sh DIR, then --htsim DIR): skipped"
        )
        return 0
    by_name = {s.name: s for s in SETTINGS}
    names = a.settings.split(",")
    for n in names:
        if n not in by_name:
            print(f"--settings {n!r} is invalid: accepted {', '.join(by_name)}", file=sys.stderr)
            return 2
    rows = {}
    for n in names:
        s = by_name[n]
        rows[n] = {
            "htsim": run_htsim(exe, s),
            "per-ack-first": run_core(s, "per-ack", "first"),
            "per-ack": run_core(s, "per-ack"),
            "per-rtt": run_core(s, "per-rtt"),
        }
        rows[n]["d_us"] = matched_rtt_us(s)
        rows[n]["kappa"] = s.flows / (s.gbps * 1e3 / (WIRE_BYTES * 8) * matched_rtt_us(s))
    hdr = f"{'setting':16} {'source':13} {'queue':>7} {'q max':>7} {'FCT µs':>9} {'/ideal':>7} {'last/ideal':>10} {'max/min':>8}"
    print(hdr)
    for n, r in rows.items():
        for src in ("htsim", "per-ack-first", "per-ack", "per-rtt"):
            v = r[src]
            print(f"{n:16} {src:13} {v['queue']:7.2f} {v['queue_max']:7.1f} {v['fct_mean_us']:9.1f} "
                  f"{v['fct_mean_us'] / v['fct_ideal_us']:7.3f} {v['fct_max_us'] / v['fct_ideal_us']:10.3f} {v['fct_spread']:8.3f}")  # fmt: skip
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
