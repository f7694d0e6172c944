"""D2TCP: its fluid limit cycle against the imminence d, the packet law at fixed d against it, and deadlines met
in the packet core against DCTCP ([D2TCP] §3.2, §4.1.2)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from ...packet.deadlines import fixed_imminence, microbenchmark, mixed_deadlines
from ...packet.scenarios import run_many
from ...params import DCTCP_ANALYSIS
from .analysis import d2tcp_cycles
from .plots import plot_d2tcp

__all__ = ["build_d2tcp", "DIMMS", "MIXED_SEEDS"]

#: Imminence values of the fluid cycle sweep, and the flow counts.
DIMMS = (0.5, 0.75, 1.0, 1.5, 2.0)
CYCLE_FLOWS = (2, 10, 40)
#: Seeds of the mixed deadline workload.
MIXED_SEEDS = tuple(range(8))


def _queue_stats(pr: Any, out: dict[str, Any]) -> dict[str, float]:
    """p5 of the chunk minima and p95 of the chunk maxima of the queue (≈ 20 µs chunks), and the p5–p95 swing of
    the chunk-mean queue, over the compared half of the run."""
    rec, w = out["records"], slice(pr.warmup_chunks, None)
    q = np.asarray(rec["q_sum"][w], float) / pr.cfg.chunk
    return {
        "q_min": float(np.percentile(rec["q_min"][w], 5)),
        "q_max": float(np.percentile(rec["q_max"][w], 95)),
        "swing": float(np.percentile(q, 95) - np.percentile(q, 5)),
        "queue_mean": float(out["queue_mean"]),
    }


def build_d2tcp(quick: bool) -> dict[str, Any]:
    """Fluid cycles at each d of :data:`DIMMS` for N in :data:`CYCLE_FLOWS`; packet runs at d = 0.5, 1, 2 (N = 10);
    the scaled microbenchmark and the mixed workload with both laws."""
    data: dict[str, Any] = {
        "cycles": {n: d2tcp_cycles(DCTCP_ANALYSIS.replace(flows=n), DIMMS) for n in CYCLE_FLOWS}
    }
    fixed = {d: fixed_imminence(d) for d in (0.5, 1.0, 2.0)}
    micro = {law: microbenchmark(law) for law in ("dctcp", "d2tcp")}
    mixed = [(law, s, mixed_deadlines(law, seed=s)) for s in MIXED_SEEDS for law in ("dctcp", "d2tcp")]
    runs = [*fixed.values(), *micro.values(), *(pr for _, _, pr in mixed)]
    outs = run_many(runs)
    k = len(fixed)
    data["packet_fixed"] = {
        d: _queue_stats(pr, o) for (d, pr), o in zip(fixed.items(), outs[:k], strict=True)
    }
    data["micro"] = {
        law: {"fct_s": o["fct_s"], "deadlines_met": o["deadlines_met"]}
        for law, o in zip(micro, outs[k : k + 2], strict=True)
    }
    data["micro_deadlines_s"] = [float(x) for x in np.asarray(micro["dctcp"].scenario.deadline - micro[
        "dctcp"].scenario.start) * micro["dctcp"].slot]  # fmt: skip
    met: dict[str, list[float]] = {"dctcp": [], "d2tcp": []}
    for (law, _, _), o in zip(mixed, outs[k + 2 :], strict=True):
        met[law].append(float(o["deadlines_met"]))
    data["mixed_met"] = met
    return data


def _c_stable(data: dict[str, Any]) -> tuple[bool, str]:
    rows = [r for n in CYCLE_FLOWS for r in data["cycles"][n]]
    ok = all(r["ok"] and r["above_floor"] and r["rho"] < 1 for r in rows)
    worst = max(r["rho"] for r in rows)
    return ok, f"largest Floquet multiplier ρ = {worst:.3f} over d ∈ [0.5, 2], N = 2, 10, 40"


def _c_swing(data: dict[str, Any]) -> tuple[bool, str]:
    txt, ok = [], True
    for n in CYCLE_FLOWS:
        amp = [r["amplitude"] for r in data["cycles"][n]]
        rho = [r["rho"] for r in data["cycles"][n]]
        ok = ok and all(a > b for a, b in zip(amp, amp[1:], strict=False)) and rho[0] > rho[2]
        txt.append(f"N = {n}: swing {amp[0]:.1f} (d = 0.5) → {amp[2]:.1f} (1) → {amp[-1]:.1f} (2) pkt")
    return ok, "; ".join(txt)


def _c_packet(data: dict[str, Any]) -> tuple[bool, str]:
    fl = {r["dimm"]: r for r in data["cycles"][10]}
    pk = data["packet_fixed"]
    dmin = [pk[d]["q_min"] - fl[d]["q_min"] for d in (0.5, 1.0, 2.0)]
    dmax = [pk[d]["q_max"] - fl[d]["q_max"] for d in (0.5, 1.0, 2.0)]
    sw = [pk[d]["swing"] for d in (0.5, 1.0, 2.0)]
    ok = max(map(abs, dmin)) <= 7 and max(map(abs, dmax)) <= 5 and sw[0] > sw[1] > sw[2]
    return ok, (
        "packet − fluid q_min " + ", ".join(f"{x:+.1f}" for x in dmin) + "; q_max " + ", ".join(f"{x:+.1f}" for x in dmax)
        + " pkt (d = 0.5, 1, 2); packet swing " + ", ".join(f"{x:.1f}" for x in sw)
    )  # fmt: skip


def _c_micro(data: dict[str, Any]) -> tuple[bool, str]:
    a, b = data["micro"]["dctcp"], data["micro"]["d2tcp"]
    gain = [1 - b["fct_s"][i] / a["fct_s"][i] for i in (0, 1)]
    ok = min(gain) >= 0.05 and b["deadlines_met"] >= a["deadlines_met"]
    return ok, (
        f"flows 0, 1 finish {gain[0]:.0%}, {gain[1]:.0%} earlier; deadlines met DCTCP {a['deadlines_met']:.2f}, "
        f"D2TCP {b['deadlines_met']:.2f}"
    )


def _c_mixed(data: dict[str, Any]) -> tuple[bool, str]:
    a, b = np.mean(data["mixed_met"]["dctcp"]), np.mean(data["mixed_met"]["d2tcp"])
    return 0.0 <= b - a <= 0.1, f"deadlines met over {len(MIXED_SEEDS)} seeds: DCTCP {a:.3f}, D2TCP {b:.3f}"


register(
    Figure(
        name="d2tcp_imminence",
        title="D2TCP: fluid limit cycle against d, packet law at fixed d, deadlines met against DCTCP",
        build=build_d2tcp,
        plot=plot_d2tcp,
        claims=(
            Claim(
                "[D2TCP] §3.2.4's worry, a far-deadline d < 1 destabilizing the loop: NOT in the fluid model — the "
                "cycle is orbitally stable (ρ < 1) for d ∈ [0.5, 2] at N = 2, 10, 40",
                _c_stable,
            ),
            Claim(
                "but d < 1 (the deeper cut α^d > α) enlarges the queue swing and raises ρ; d > 1 shrinks both",
                _c_swing,
            ),
            Claim(
                "packet D2TCP held at d = 0.5, 1, 2 (N = 10): queue minimum within 7 and maximum within 5 packets of "
                "the fluid cycle, with the same ordering of swings",
                _c_packet,
            ),
            Claim(
                "[D2TCP] §4.1.2 scaled (four flows, deadlines ∝ 1–4 s): REPRODUCED in direction — the two nearest-"
                "deadline flows finish ≥ 5 % earlier than under DCTCP, no deadline lost",
                _c_micro,
            ),
            Claim(
                "16 deadline flows against 2 long flows: D2TCP meets at least as many deadlines as DCTCP, a gain of "
                "≤ 10 points (modest at this scale)",
                _c_mixed,
            ),
        ),
        slow=True,  # minutes of CPU: make test-all and CI check it
    )
)
