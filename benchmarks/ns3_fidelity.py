"""Benchmark: ns-3 and the packet core on the same dumbbells, side by side, with stated tolerances.

ns-3 3.44 comes from PyPI (``pip install ns3``): the wheel ships the C++ headers (``ns3/include``) and shared
libraries (``ns3/lib64``). This script installs it into the running interpreter's environment when it is missing
(``--no-deps``: the scenario is C++, the wheel's Python bindings and their ``cppyy`` are not used), compiles
``benchmarks/ns3/dumbbell.cc`` against it with g++ (cached in ``.cache/ns3/``, keyed by the source and the ns-3
version), and runs each setting through ns-3 and through the packet core (:func:`dwtcp_fluid.packet.build`,
:func:`dwtcp_fluid.packet.run`).

Matched settings: dumbbell, 1500-byte packets, every link at the bottleneck's packet rate, step ECN marking of
an arrival that finds K or more packets waiting (DCTCP) or drop-tail without ECN (Reno, CUBIC), 250-packet buffer,
g = 1/16, α starting at 1, initial window 10, delayed ACKs off, SACK on, minimum RTO 1 ms, flows starting at a
random offset in [0, RTT), 200 ms, statistics over the last half, seeds 0, 1, 2 (ns-3 ``RngRun`` = seed + 1).
ns-3 runs its own TcpDctcp / TcpNewReno / TcpCubic with ``TcpL4Protocol::RecoveryType`` = TcpPrrRecovery
(``--ns3-reduction prr``, ns-3's default) or TcpClassicRecovery (``classic``: cwnd set to ssthresh at once).

Both sides are measured from raw time series by the same functions (:func:`queue_metrics`,
:func:`~dwtcp_fluid.packet.summary.jain_index`): the queue is the number of packets waiting at the bottleneck,
averaged over the core's chunks (12 slots, 14.4 µs at 10 Gbps; ns-3 integrates its queue exactly over the same
bins). Per setting, the seed means of

* mean queue; swing = 95th − 5th percentile of the binned queue (p5-p95 printed);
* period: :func:`~dwtcp_fluid.periods.autocorr_period` of the binned queue (``peak="first"``: the first
  autocorrelation peak above 0.1 after the first zero), None when the queue does not oscillate;
* α: the time average of each sender's α over the last half, averaged over the senders;
* utilization (bottleneck departures over the last half / capacity), Jain's index of the per-flow deliveries
  over the last half, drops and retransmission timeouts over the whole run.

Targets (:data:`TARGETS`, against ns-3): mean queue within max(3 packets, 5 %), period within 10 %, α within
10 %, swing within 15 %. A missed target is printed with the rule that differs (:func:`explain`).

The core's sender rule: ``--core-reduction`` sets the DCTCP/Reno law's ``reduction`` field where the law has
one (the default is the law's own); a law without that field runs its immediate cut and accepts ``immediate``,
or ``hold`` where it has ``cwr_hold``. ns-3 3.44's PRR is matched by the core's ``ns3-prr`` (the core's
``prr`` is Linux's ``tcp_cwnd_reduction``; ns-3's differs on the ACK that enters CWR and in a uint32 byte product,
:data:`NS3_PRR_DIFFERS`), ns-3's classic recovery (cwnd to ssthresh at once, no increase until the recovery point is
acknowledged) by ``hold`` (:data:`MATCHING_REDUCTION`). ns-3 runs are deterministic and kept in ``.cache/ns3/runs/``, so comparing another core
setting against the same ns-3 runs costs only the core's time (``--fresh`` runs ns-3 again).

Run: ``.venv/bin/python benchmarks/ns3_fidelity.py [--settings dctcp-n10-k65,...] [--seeds 3] [--duration 0.2]
[--core-reduction prr] [--ns3-reduction prr] [--core-loss-entry dupack3] [--core-ai-count floor]
[--core-hystart ns3] [--core-lost-retransmit rto] [--core-min-cwnd 1] [--jobs 2] [--json out.json] [--fresh]``. Cost: an ns-3 run of
200 ms at 10 Gbps takes tens of seconds of CPU (more with N); the default (10 settings × 3 seeds: 30 ns-3 and 30
core runs) tens of minutes of CPU on a shared machine, once: later runs reuse the cached ns-3 runs.
``--seeds 1`` costs a third.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import importlib.metadata
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

from dwtcp_fluid.packet.summary import jain_index  # noqa: E402
from dwtcp_fluid.periods import autocorr_period  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path(__file__).resolve().parent / "ns3" / "dumbbell.cc"
CACHE = ROOT / ".cache" / "ns3"
#: The ns-3 release the scenario is written against (its libraries are named libns3.44-*).
NS3_VERSION = "3.44"
NS3_REQUIREMENT = "ns3>=3.44,<3.45"
NS3_LIBS = ("applications", "internet", "traffic-control", "point-to-point", "bridge", "network", "core")

#: Targets against ns-3: mean queue within max(packets, fraction), period, α and swing within a fraction.
TARGETS = {"queue_packets": 3.0, "queue_rel": 0.05, "period_rel": 0.10, "alpha_rel": 0.10, "swing_rel": 0.15}
#: Lower and upper percentiles of the binned queue that define its swing.
SWING_PERCENTILES = (5.0, 95.0)
#: Run ns-3 again even where ``.cache/ns3/runs/`` holds the run (``--fresh``).
FRESH = False
#: The core law's options set where it has the field: ``loss_entry`` (``--core-loss-entry``), ``ai_count``
#: (``--core-ai-count``); an option not given is the law's own.
CORE_OPTIONS: dict[str, str] = {}
#: ns-3's TcpCubic runs HyStart (its default, as Linux's); ``--ns3-hystart off`` sets ``ns3::TcpCubic::HyStart`` false.
NS3_HYSTART = True


@dataclasses.dataclass(frozen=True)
class Setting:
    """One dumbbell: law ("dctcp": step marking at K; "reno", "cubic": drop-tail, no ECN), N, K, base RTT,
    capacity."""

    name: str
    law: str
    flows: int
    K: float = 65.0
    rtt: float = 100e-6
    capacity: float = 10e9
    buffer: int = 250
    g: float = 1.0 / 16.0


SETTINGS = (
    Setting("dctcp-n2-k65", "dctcp", 2),
    Setting("dctcp-n10-k65", "dctcp", 10),
    Setting("dctcp-n100-k65", "dctcp", 100),
    Setting("dctcp-n10-k20", "dctcp", 10, K=20.0),
    Setting("dctcp-n10-k65-50us", "dctcp", 10, rtt=50e-6),
    Setting("dctcp-n10-k65-5g", "dctcp", 10, capacity=5e9),
    Setting("reno-n2-droptail", "reno", 2),
    Setting("reno-n10-droptail", "reno", 10),
    Setting("cubic-n2-droptail", "cubic", 2),
    Setting("cubic-n10-droptail", "cubic", 10),
)
BY_NAME = {s.name: s for s in SETTINGS}


def fail(msg: str) -> None:
    """Bad input or a missing tool: one line, exit 2."""
    print(f"ns3_fidelity: {msg}", file=sys.stderr)
    raise SystemExit(2)


# --------------------------------------------------------------------------------------------------- metrics


def queue_metrics(q: np.ndarray, dt: float) -> dict[str, float | None]:
    """Mean, 5th and 95th percentiles, swing (their difference) and period (s) of a binned queue (packets,
    bins of ``dt`` s)."""
    x = np.asarray(q, float)
    lo, hi = np.percentile(x, SWING_PERCENTILES)
    return {
        "queue_mean": float(x.mean()),
        "queue_p5": float(lo),
        "queue_p95": float(hi),
        "swing": float(hi - lo),
        "period_s": autocorr_period(x, dt, peak="first"),
    }


def side_metrics(
    q: np.ndarray,
    dt: float,
    *,
    alpha: float | None,
    util: float,
    delivered: np.ndarray,
    drops: int,
    timeouts: int,
) -> dict[str, Any]:
    """Every compared quantity of one run from its last-half queue bins and counters."""
    out: dict[str, Any] = queue_metrics(q, dt)
    out.update(
        alpha=alpha, utilization=util, jain=jain_index(delivered), drops=int(drops), timeouts=int(timeouts)
    )
    return out


# --------------------------------------------------------------------------------------------------- ns-3


def ns3_root() -> Path:
    """The installed ns3 wheel's package directory (with include/ and lib64/); installs the wheel if missing."""
    try:
        dist = importlib.metadata.distribution("ns3")
    except importlib.metadata.PackageNotFoundError:
        print(f"ns3_fidelity: installing {NS3_REQUIREMENT} (--no-deps) ...", file=sys.stderr, flush=True)
        r = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--no-deps", NS3_REQUIREMENT],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["no output"])[-1]
            fail(f"pip install {NS3_REQUIREMENT} failed: {last}")
        importlib.invalidate_caches()
        dist = importlib.metadata.distribution("ns3")
    if not dist.version.startswith(NS3_VERSION):
        fail(f"ns3 {dist.version} is installed: accepted {NS3_REQUIREMENT}")
    root = Path(str(dist.locate_file("ns3")))
    if not (root / "include" / "ns3" / "core-module.h").is_file() or not (root / "lib64").is_dir():
        fail(f"ns3 wheel at {root} has no include/ns3/core-module.h or lib64/: accepted the PyPI wheel")
    return root


def ns3_binary(root: Path) -> Path:
    """The compiled scenario, built with g++ into the cache when the source or the ns-3 version changed."""
    version = importlib.metadata.version("ns3")
    key = hashlib.sha256(SOURCE.read_bytes() + version.encode()).hexdigest()[:12]
    exe = CACHE / f"dumbbell-{key}"
    if exe.is_file():
        return exe
    gxx = shutil.which(os.environ.get("CXX", "g++"))
    if gxx is None:
        fail("g++ not found: accepted a C++20 compiler as CXX or g++ on PATH")
    CACHE.mkdir(parents=True, exist_ok=True)
    lib = root / "lib64"
    cmd = [
        gxx,
        "-std=c++20",
        "-O1",
        "-w",
        "-DNS3_BUILD_PROFILE_RELEASE",
        "-DNS3_LOG_ENABLE",
        "-DNS3_ASSERT_ENABLE",
        f"-I{root / 'include'}",
        str(SOURCE),
        "-o",
        "",
        f"-L{lib}",
        f"-Wl,-rpath,{lib}",
        *(f"-lns{NS3_VERSION}-{m}" for m in NS3_LIBS),
    ]
    fd, tmp = tempfile.mkstemp(dir=CACHE, prefix=".dumbbell-")
    os.close(fd)
    cmd[cmd.index("")] = tmp
    print(f"ns3_fidelity: compiling {SOURCE.name} against ns-3 {version} ...", file=sys.stderr, flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        Path(tmp).unlink(missing_ok=True)
        first = next((ln for ln in r.stderr.splitlines() if "error" in ln), r.stderr.strip()[:300])
        fail(f"g++ failed on {SOURCE.name}: {first}")
    os.replace(tmp, exe)
    for stale in (*CACHE.glob("dumbbell-*"), *CACHE.glob("runs/dumbbell-*")):  # of an older source or ns-3
        if not stale.name.startswith(exe.name):
            stale.unlink(missing_ok=True)
    return exe


def run_ns3(exe: Path, s: Setting, seed: int, recovery: str, duration: float, bins: int) -> dict[str, Any]:
    """One ns-3 run; its raw series and counters. A run is deterministic given the binary and its arguments, so
    its output is kept in ``.cache/ns3/runs/`` (keyed by both) and reused (``--fresh``: run again)."""
    args = [
        f"--flows={s.flows}",
        f"--capacity={s.capacity!r}",
        f"--rtt={s.rtt!r}",
        f"--K={s.K!r}",
        f"--buffer={s.buffer}",
        f"--law={s.law}",
        f"--recovery={recovery}",
        f"--g={s.g!r}",
        "--minRto=0.001",
        f"--duration={duration!r}",
        f"--bins={bins}",
        f"--seed={seed + 1}",
    ]
    if s.law == "cubic" and not NS3_HYSTART:  # the attribute's default through ns-3's command line
        args.append("--ns3::TcpCubic::HyStart=0")
    key = hashlib.sha256(" ".join([exe.name, *args]).encode()).hexdigest()[:16]
    cached = CACHE / "runs" / f"{exe.name}-{key}.json"
    if cached.is_file() and not FRESH:
        return json.loads(cached.read_text())
    r = subprocess.run([str(exe), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ns-3 {s.name} seed {seed}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    out = r.stdout.strip().splitlines()[-1]
    raw = json.loads(out)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(f".tmp{os.getpid()}.{seed}")
    tmp.write_text(out)
    os.replace(tmp, cached)
    return raw


def ns3_metrics(raw: dict[str, Any], s: Setting) -> dict[str, Any]:
    if raw["drops_elsewhere"]:
        raise RuntimeError(f"ns-3 {s.name}: {raw['drops_elsewhere']} drops outside the bottleneck queue")
    bins = int(raw["bins"])
    dt = raw["duration_s"] / bins
    half = bins // 2
    q = np.asarray(raw["queue_mean_bins"], float)[half:]
    window = raw["duration_s"] - half * dt
    util = raw["bottleneck_packets_last_half"] / (raw["packet_rate_pps"] * window)
    alpha = float(np.mean(raw["alpha_mean_flows"])) if s.law == "dctcp" else None
    return side_metrics(
        q,
        dt,
        alpha=alpha,
        util=util,
        delivered=np.asarray(raw["rx_bytes_last_half"], float),
        drops=raw["drops"],
        timeouts=raw["timeouts"],
    )


# --------------------------------------------------------------------------------------------------- core


def core_law(s: Setting, reduction: str | None) -> Any:
    """The packet core's law for a setting; ``reduction`` goes to the law only where it has that field (a law
    without one runs the immediate cut, so "immediate" is accepted there and anything else refused)."""
    from dwtcp_fluid.packet import LAWS, get_law

    opts: dict[str, Any] = {} if s.law == "dctcp" else {"ecn": False}
    if reduction is not None:
        fields = {f.name for f in dataclasses.fields(LAWS[s.law])}
        if "reduction" in fields:
            opts["reduction"] = reduction
        elif reduction == "hold" and "cwr_hold" in fields:
            opts["cwr_hold"] = True
        elif reduction != "immediate":
            fail(
                f"--core-reduction={reduction}: this packet core's {s.law} law has no 'reduction' field "
                "(it runs the immediate cut): accepted immediate (or hold where it has cwr_hold)"
            )
    fields = {f.name for f in dataclasses.fields(LAWS[s.law])}
    opts.update({k: v for k, v in CORE_OPTIONS.items() if k in fields})
    try:
        return get_law(s.law, **opts)
    except ValueError as e:
        fail(f"--core-reduction={reduction}: {e}")


def core_reduction_name(s: Setting, reduction: str | None) -> str:
    """The reduction the core's law runs: its ``reduction`` field; for a law without one, "hold" where its
    ``cwr_hold`` is set, else "immediate"."""
    law = core_law(s, reduction)
    return str(getattr(law, "reduction", "hold" if getattr(law, "cwr_hold", False) else "immediate"))


def core_build(
    s: Setting, seed: int, duration: float, reduction: str | None, min_cwnd: float | None = None
) -> Any:
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.params import DctcpParams, LinkParams

    link = LinkParams(capacity=s.capacity, rtt=s.rtt, packet_size=1500.0)
    n_slots = int(round(duration * link.C))
    # Reno runs drop-tail: the marking threshold is above the buffer (and the law ignores marks)
    K = s.K if s.law == "dctcp" else float(s.buffer + 1)
    return build(
        core_law(s, reduction),
        link=link,
        flows=s.flows,
        K=K,
        duration=duration,
        seed=seed,
        buffer=s.buffer,
        rto="1ms",
        dctcp=DctcpParams(link=link, flows=s.flows, K=K, g=s.g),
        trace_points=max(100, n_slots // 12),
        delack=1,
        law_params=None if min_cwnd is None or s.law != "dctcp" else {"min_cwnd": min_cwnd},
    )


def core_metrics(pr: Any) -> dict[str, Any]:
    from dwtcp_fluid.packet import run

    pk = run(pr)
    rec = pk["records"]
    w = slice(pr.warmup_chunks, None)
    dt = pr.cfg.chunk * pr.slot
    q = np.asarray(rec["q_sum"][w], float) / pr.cfg.chunk
    delivered = np.asarray(rec["delivered"][w], float).sum(0)
    timeouts = int(np.asarray(rec["timeouts"]).sum())
    return side_metrics(
        q,
        dt,
        alpha=pk["alpha_mean"],
        util=pk["utilization"],
        delivered=delivered,
        drops=pk["drops"],
        timeouts=timeouts,
    )


# --------------------------------------------------------------------------------------------------- compare


def seed_mean(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean over seeds of each quantity (a period only where every seed has one)."""
    out: dict[str, Any] = {}
    for k in runs[0]:
        vals = [r[k] for r in runs]
        out[k] = None if any(v is None for v in vals) else float(np.mean(vals))
    out["period_seeds"] = sum(r["period_s"] is not None for r in runs)
    return out


def verdicts(ns3: dict[str, Any], core: dict[str, Any]) -> dict[str, tuple[bool | None, str]]:
    """Pass/fail per target (None: not scored) with the tolerance as printed."""
    t = TARGETS
    out: dict[str, tuple[bool | None, str]] = {}
    tol = max(t["queue_packets"], t["queue_rel"] * ns3["queue_mean"])
    out["queue_mean"] = (abs(core["queue_mean"] - ns3["queue_mean"]) <= tol, f"±{tol:.1f}")
    for key, rel in (("period_s", "period_rel"), ("alpha", "alpha_rel"), ("swing", "swing_rel")):
        a, b = ns3[key], core[key]
        if a is None and b is None:
            out[key] = (None, "—")
        elif a is None or b is None or a == 0:
            out[key] = (False, f"±{t[rel]:.0%}")
        else:
            out[key] = (abs(b - a) <= t[rel] * abs(a), f"±{t[rel]:.0%}")
    return out


#: The core's reduction that runs ns-3's recovery type: ns-3 3.44's TcpPrrRecovery in CWR is the core's
#: "ns3-prr" (Linux's PRR, "prr", with ns-3's entry credit, divisor and uint32 byte product:
#: :mod:`dwtcp_fluid.packet.laws.recovery`); ns-3's classic recovery sets cwnd to ssthresh at once and adds nothing
#: until the recovery point is acknowledged (the core's "hold").
MATCHING_REDUCTION = {"prr": "ns3-prr", "classic": "hold"}
#: What ns-3 3.44's TcpPrrRecovery does on an ECN echo that Linux's tcp_cwnd_reduction (the core's "prr") does not.
NS3_PRR_DIFFERS = (
    "ns-3 3.44's PRR is not Linux's: on the ACK that enters CWR, TcpPrrRecovery::EnterRecovery runs "
    "DoRecovery(isDupAck=true) (+1 segment) and ProcessAck's CA_CWR branch runs DoRecovery again, so "
    "prr_delivered starts at 2·acked + 1 (Linux: acked), divided by the flight after the ACK (Linux: prior_cwnd); "
    "with windows of a dozen packets ns-3 then sends about what is delivered during CWR and cuts at the exit "
    "(cwnd ← ssthresh), one RTT late; and m_prrDelivered·m_ssThresh is a uint32 byte product that wraps once "
    "prr_delivered·ssthresh ≥ 2015 packets² (windows ≳ 45), after which ns-3 sends nothing until inflight is at "
    "ssthresh; in Recovery every duplicate ACK adds one segment while prr_delivered < RecoverFS. The core's "
    "ns3-prr runs ns-3's rule"
)


def explain(
    s: Setting,
    key: str,
    ns3: dict[str, Any],
    core: dict[str, Any],
    core_red: str,
    ns3_red: str,
    min_cwnd: float | None = None,
    loss_entry: str | None = None,
) -> str:
    """Why a target is missed: the sender or switch rule that differs, with the numbers that show it
    (``loss_entry``: the core law's, where it has one)."""
    why = []
    matched = MATCHING_REDUCTION[ns3_red] == core_red
    if ns3_red == "prr" and core_red == "prr":
        why.append(NS3_PRR_DIFFERS)
    elif not matched and key != "alpha":
        why.append(
            f"window reduction differs: core {core_red}, ns-3 {ns3_red} (the match of ns-3 {ns3_red} is the core's "
            f"{MATCHING_REDUCTION[ns3_red]}; PRR spreads the cut over an RTT, and PRR and classic add nothing until "
            "the window of the cut is acknowledged)"
        )
    wbar = (s.capacity / (1500 * 8) * s.rtt + ns3["queue_mean"]) / s.flows
    if s.law == "dctcp" and wbar < 4.0 and min_cwnd is not None and min_cwnd < 2.0:
        why.append(
            f"w̄ = (C·d + q)/N = {wbar:.1f} packets with the core's floor at {min_cwnd:g} (ns-3's TcpDctcp::GetSsThresh sets none"
            "): the floor no longer decides; the remaining rule difference at windows of 1-2 packets is not "
            "traced"
        )
    elif s.law == "dctcp" and wbar < 4.0:
        frozen = core["swing"] is not None and core["swing"] < 1.0
        why.append(
            f"w̄ = (C·d + q)/N = {wbar:.1f} packets: the window floor decides the fixed point (core: "
            "W ≥ 2 after a cut, Linux dctcp_ssthresh; ns-3 TcpDctcp::GetSsThresh has no floor)"
            + ("; the core's queue is frozen at its standing value" if frozen else "")
        )
    if s.law in ("reno", "cubic"):
        entry = (
            "both enter Recovery at the third duplicate ACK (the core's loss_entry=dupack3)"
            if loss_entry == "dupack3"
            else "ns-3 enters Recovery at the third duplicate ACK (the core at the first ACK that reports the "
            "loss: its loss_entry=first)"
        )
        rtx = (
            "ns-3 retransmits and a lost retransmission costs it an RFC 6298 timeout, as the core's "
            "lost_retransmit=rto (whose timer runs from the stand-in's send, at the core's fixed 1 ms; ns-3's from "
            "the first partial ACK, at srtt + max(1 ms clock granularity, 4·rttvar))"
            if CORE_OPTIONS.get("lost_retransmit") == "rto"
            else "ns-3 retransmits, and a lost retransmission costs it an RFC 6298 timeout; the core does not "
            "retransmit and times out only when every packet in flight is lost (its lost_retransmit=report)"
        )
        why.append(
            f"loss recovery differs: drops ns-3 {ns3['drops']:.0f} vs core {core['drops']:.0f}, timeouts ns-3 "
            f"{ns3['timeouts']:.1f} vs core {core['timeouts']:.1f} per run ({entry}; {rtx})"
        )
    hystart = CORE_OPTIONS.get("hystart") == "ns3"
    if s.law == "cubic" and hystart and NS3_HYSTART and key != "alpha":
        why.append(
            "both run HyStart (the core's hystart=ns3): the first slow start ends at the same rule and the drops "
            "come to the same order; what keeps ns-3's cycle longer after it is not traced"
        )
    elif s.law == "cubic" and s.flows <= 2 and key != "alpha" and NS3_HYSTART:
        why.append(
            "ns-3's TcpCubic runs HyStart (the core's slow start has none): its first slow start ends before the "
            "buffer overflows and leaves the two flows at unequal windows (Jain's index, drops), which lengthens "
            "the cycle; --ns3-hystart off runs ns-3 without it"
        )
    if key == "alpha" and not why:
        why.append(
            f"α ns-3/core = {ns3['alpha'] / core['alpha']:.3f} with the queue means within "
            f"{abs(ns3['queue_mean'] - core['queue_mean']):.1f} packets: not explained by the marking "
            "threshold or the reduction"
        )
    if not why and matched:
        why.append(f"same reduction ({core_red}) on both sides: the two implementations of it differ")
    return "; ".join(why) or "no rule difference identified"


def fmt(v: Any, key: str) -> str:
    if v is None:
        return "—"
    if key == "period_s":
        return f"{v * 1e3:.3f} ms"
    if key in ("alpha", "utilization", "jain"):
        return f"{v:.3f}"
    if key in ("drops", "timeouts"):
        return f"{v:.0f}"
    return f"{v:.1f}"


ROWS = ("queue_mean", "swing", "period_s", "alpha", "utilization", "jain", "drops", "timeouts")


def print_table(results: list[dict[str, Any]]) -> None:
    print(f"{'setting':<22}{'quantity':<12}{'ns-3':>22}{'core':>22}{'target':>9}  verdict")
    for r in results:
        s, n, c, v = r["setting"], r["ns3"], r["core"], r["verdicts"]
        for key in ROWS:
            a, b = fmt(n[key], key), fmt(c[key], key)
            if key == "swing":
                a = f"{n['queue_p5']:.0f}-{n['queue_p95']:.0f} ({a})"
                b = f"{c['queue_p5']:.0f}-{c['queue_p95']:.0f} ({b})"
            if key == "period_s":
                a, b = f"{a} [{n['period_seeds']}/{r['seeds']}]", f"{b} [{c['period_seeds']}/{r['seeds']}]"
            ok, tol = v.get(key, (None, ""))
            verdict = "" if key not in v else {True: "pass", False: "FAIL", None: "n/a"}[ok]
            print(f"{s:<22}{key:<12}{a:>22}{b:>22}{tol:>9}  {verdict}")
            if ok is False:
                print(f"{'':<34}why: {r['why'][key]}")
        print()


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line and exit 2 (no usage block)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        fail(message)


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--settings", default=",".join(BY_NAME), help=f"comma-separated, from: {', '.join(BY_NAME)}"
    )
    ap.add_argument("--seeds", type=int, default=3, help="seeds per setting, 1-20 (default 3)")
    ap.add_argument("--duration", type=float, default=0.2, help="simulated seconds, 0.01-2 (default 0.2)")
    ap.add_argument(
        "--core-reduction",
        default=None,
        help="the core law's 'reduction': prr, ns3-prr, immediate, hold; default: the law's own (prr)",
    )
    ap.add_argument(
        "--ns3-reduction",
        choices=("prr", "classic"),
        default="prr",
        help="ns-3 TcpL4Protocol::RecoveryType: TcpPrrRecovery (default) or TcpClassicRecovery",
    )
    ap.add_argument(
        "--core-min-cwnd",
        type=float,
        default=None,
        help="the core DCTCP law's window floor after a cut, packets, 1-10 (default: the law's own, 2 = Linux's"
        " dctcp_ssthresh; ns-3's TcpDctcp::GetSsThresh sets none; Reno and CUBIC keep theirs, 2 as ns-3's)",
    )
    ap.add_argument(
        "--core-loss-entry",
        choices=("first", "dupack3"),
        default=None,
        help="the core law's 'loss_entry' (Reno, CUBIC): Recovery at the first ACK that reports a loss, or at the"
        " third duplicate ACK as ns-3; default: the law's own (first)",
    )
    ap.add_argument(
        "--core-ai-count",
        choices=("cwnd", "floor"),
        default=None,
        help="the core DCTCP law's 'ai_count': the increase per ACK n/cwnd, or n/max(floor(cwnd), 1) as ns-3's"
        " TcpLinuxReno (TcpDctcp's); default: the law's own (cwnd)",
    )
    ap.add_argument(
        "--core-lost-retransmit",
        choices=("report", "rto"),
        default=None,
        help="the core law's 'lost_retransmit' (Reno, CUBIC): a lost retransmission reported with the next packet,"
        " or recovered only by the retransmission timer as ns-3; default: the law's own (report)",
    )
    ap.add_argument(
        "--core-hystart",
        choices=("off", "ns3"),
        default=None,
        help="the core CUBIC law's 'hystart': none, or ns-3 3.44 TcpCubic's HyStart; default: the law's own (off)",
    )
    ap.add_argument(
        "--ns3-hystart",
        choices=("on", "off"),
        default="on",
        help="ns-3 TcpCubic's HyStart (default on, as ns-3 and Linux; the core's slow start has none)",
    )
    ap.add_argument("--jobs", type=int, default=1, help="ns-3 runs in parallel, 1-64 (default 1)")
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--fresh", action="store_true", help="run ns-3 again instead of reusing cached runs")
    ap.add_argument(
        "--record",
        default=None,
        help="merge the seed means into this JSON document under --as (the documentation's tables read"
        " docs/data/ns3-fidelity.json)",
    )
    ap.add_argument("--as", dest="record_as", default=None, help="the key --record writes under")
    a = ap.parse_args(argv)
    names = [x.strip() for x in a.settings.split(",") if x.strip()]
    for x in names:
        if x not in BY_NAME:
            fail(f"--settings has {x!r}: accepted {', '.join(BY_NAME)}")
    if not names:
        fail("--settings is empty: accepted one or more of " + ", ".join(BY_NAME))
    if not 1 <= a.seeds <= 20:
        fail(f"--seeds={a.seeds}: accepted 1 to 20")
    if not (math.isfinite(a.duration) and 0.01 <= a.duration <= 2.0):
        fail(f"--duration={a.duration}: accepted 0.01 to 2 seconds")
    if a.core_min_cwnd is not None and not (math.isfinite(a.core_min_cwnd) and 1 <= a.core_min_cwnd <= 10):
        fail(f"--core-min-cwnd={a.core_min_cwnd}: accepted 1 to 10 packets")
    if (a.record is None) != (a.record_as is None):
        fail("--record and --as go together: accepted both or neither")
    if not 1 <= a.jobs <= 64:
        fail(f"--jobs={a.jobs}: accepted 1 to 64")
    settings = [BY_NAME[x] for x in names]
    global FRESH, NS3_HYSTART
    FRESH = a.fresh
    NS3_HYSTART = a.ns3_hystart == "on"
    CORE_OPTIONS.clear()
    CORE_OPTIONS.update(
        {
            k: v
            for k, v in (
                ("loss_entry", a.core_loss_entry),
                ("ai_count", a.core_ai_count),
                ("lost_retransmit", a.core_lost_retransmit),
                ("hystart", a.core_hystart),
            )
            if v is not None
        }
    )
    for s in settings:
        core_law(s, a.core_reduction)  # refuse an unsupported --core-reduction before any work

    t0 = time.perf_counter()
    exe = ns3_binary(ns3_root())
    builds = {
        (s.name, k): core_build(s, k, a.duration, a.core_reduction, a.core_min_cwnd)
        for s in settings
        for k in range(a.seeds)
    }
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futs = {
            key: pool.submit(
                run_ns3, exe, BY_NAME[key[0]], key[1], a.ns3_reduction, pr.duration, pr.cfg.n_chunks
            )
            for key, pr in builds.items()
        }
        core_runs = {key: core_metrics(pr) for key, pr in builds.items()}
        ns3_runs = {key: ns3_metrics(f.result(), BY_NAME[key[0]]) for key, f in futs.items()}
    results = []
    for s in settings:
        n = seed_mean([ns3_runs[(s.name, k)] for k in range(a.seeds)])
        c = seed_mean([core_runs[(s.name, k)] for k in range(a.seeds)])
        v = verdicts(n, c)
        if s.law != "dctcp":
            v.pop("alpha")
        core_red = core_reduction_name(s, a.core_reduction)
        loss_entry = getattr(core_law(s, a.core_reduction), "loss_entry", None)
        why = {
            k: explain(s, k, n, c, core_red, a.ns3_reduction, a.core_min_cwnd, loss_entry)
            for k, (ok, _) in v.items()
            if ok is False
        }
        results.append(
            {
                "setting": s.name,
                "params": dataclasses.asdict(s),
                "seeds": a.seeds,
                "ns3": n,
                "core": c,
                "verdicts": v,
                "why": why,
                "core_reduction": core_red,
                "core_min_cwnd": a.core_min_cwnd,
                "core_loss_entry": loss_entry,
                "core_ai_count": getattr(core_law(s, a.core_reduction), "ai_count", None),
                "core_lost_retransmit": getattr(core_law(s, a.core_reduction), "lost_retransmit", None),
                "core_hystart": getattr(core_law(s, a.core_reduction), "hystart", None),
                "ns3_reduction": a.ns3_reduction,
                "ns3_hystart": a.ns3_hystart,
                "per_seed": {
                    "ns3": [ns3_runs[(s.name, k)] for k in range(a.seeds)],
                    "core": [core_runs[(s.name, k)] for k in range(a.seeds)],
                },
            }
        )
    print(
        f"ns-3 {importlib.metadata.version('ns3')} ({a.ns3_reduction}) vs packet core "
        f"({', '.join(sorted({r['core_reduction'] for r in results}))}); {a.seeds} seed(s), {a.duration:g} s, "
        "last half; seed means"
    )
    print_table(results)
    scored = [ok for r in results for ok, _ in r["verdicts"].values() if ok is not None]
    print(f"{sum(scored)}/{len(scored)} targets met; {time.perf_counter() - t0:.0f} s wall")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=float))
    if a.record:
        record(Path(a.record), a.record_as, results, a)
    return 0


def record(path: Path, key: str, results: list[dict[str, Any]], a: argparse.Namespace) -> None:
    """Merge ``results`` (seed means, verdicts, reasons) into the JSON document ``path`` under ``key``, by
    setting; written whole through a temporary file."""
    doc = json.loads(path.read_text()) if path.is_file() else {}
    doc[key] = {
        "command": "benchmarks/ns3_fidelity.py " + " ".join(sys.argv[1:]),
        "ns3_version": importlib.metadata.version("ns3"),
        "seeds": a.seeds,
        "duration_s": a.duration,
        "settings": {
            r["setting"]: {
                k: r[k]
                for k in (
                    "ns3",
                    "core",
                    "verdicts",
                    "why",
                    "core_reduction",
                    "core_min_cwnd",
                    "core_loss_entry",
                    "core_ai_count",
                    "core_lost_retransmit",
                    "core_hystart",
                    "ns3_hystart",
                )
            }
            for r in results
        },
        "met": sum(ok for r in results for ok, _ in r["verdicts"].values() if ok is not None),
        "targets": sum(1 for r in results for ok, _ in r["verdicts"].values() if ok is not None),
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(doc, indent=1, default=float) + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    raise SystemExit(main())
