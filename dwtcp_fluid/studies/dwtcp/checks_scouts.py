"""[DWTCP] §2.1's premise in the packet core: Scouts in the low-priority queue under open-loop high-priority load.

Two experiments, both on one 10 Gbps, 100 µs bottleneck with the packet core's strict-priority switch (250-packet
data buffer, 10-Scout low-priority buffer):

* **Amplification** (§2.1, §3.2, Fig. 2a): ``n`` open-loop senders (``open-loop`` law, CBR or Poisson) at a total
  load ρ, plus Scout-only probes (``scout-probe``: one 64-byte Scout per RTT each, a vanishing low-priority load).
  The data packets' mean wait is W_H = Σ queue after service / departures (Little's law, exact in slots: a packet
  that finds ``seen`` packets is counted in ``seen`` slots' queues), the Scouts' mean wait W_L = Σ slots in the Scout
  queue / Scouts served (record ``scouts_wait``); theory: :func:`.derive_priority.wait_formulas`.
* **Loss onset** (§3.2, Fig. 2b): a staircase of open-loop Poisson senders, one joining every ``step`` RTTs, each
  adding ``load_step`` of the link, so the load rises through 100 %; ``probes`` Scout probes run throughout. The
  first Scout dropped at the switch (a full low-priority queue) and the first data packet dropped (a full data
  buffer) are read from the per-RTT records; their gap in RTTs is the "early notification".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...judge import Tolerance, Tolerances
from ...packet.build import PacketRun, build
from ...packet.laws import get_law
from ...packet.scenarios import run_many
from ...params import LinkParams
from .analysis_priority import wait_formulas

__all__ = [
    "amplification_run",
    "amplification_measure",
    "amplification_table",
    "onset_run",
    "onset_measure",
    "onset_table",
    "TOLERANCES",
    "theory_gaps",
]

#: Relative tolerances of the packet core's waits against the slotted theory (Poisson, 1 s per point, 2 seeds
#: pooled): W_H is a mean over ~10⁶ packets (a few % of sampling error at ρ = 0.92), W_L over ~3·10⁴ Scouts whose
#: waits are long and correlated (≈ 10 % at ρ = 0.92).
TOLERANCES = Tolerances(
    Tolerance("W_H", "1", against="theory", against_quantity="theory_W_H", rel=0.06),
    Tolerance("W_L", "1", against="theory", against_quantity="theory_W_L", rel=0.15),
)


def theory_gaps(row: dict[str, Any]) -> dict[str, tuple[float | None, bool]]:
    """Each tolerance of :data:`TOLERANCES` on one row of :func:`amplification_table` (Poisson): (relative gap,
    within)."""
    sides = {"packet": row, "theory": row}
    return {t.name: t.measure(sides) for t in TOLERANCES}


_LINK = LinkParams(capacity="10Gbps", rtt="100us")


def amplification_run(
    rho: float,
    *,
    arrivals: str = "poisson",
    senders: int = 20,
    probes: int = 2,
    scout_buffer: int = 23,
    duration: float = 0.5,
    seed: int = 0,
) -> PacketRun:
    """``senders`` open-loop senders at load ρ/senders each (``arrivals``: "cbr" or "poisson") and ``probes``
    Scout-only probes on the 10 Gbps, 100 µs bottleneck; ``duration`` seconds, the first 10 % discarded. The
    Scout buffer defaults to the largest the switch has (23 Scouts, one slot's worth): the theory's Scout queue
    never overflows, and with 2 probes a Scout is dropped only after waiting ≈ 11 RTTs."""
    if not 0.0 < rho < 1.0:
        raise ValueError(f"rho={rho!r} is out of range: accepted 0 < rho < 1 (the waits diverge at 1)")
    laws = [get_law("open-loop", arrivals=arrivals), get_law("scout-probe")]
    return build(
        laws,
        link=_LINK,
        flows=senders + probes,
        law_of_flow=[0] * senders + [1] * probes,
        law_params=[{"rate": rho / senders}, {}],
        scout_buffer=scout_buffer,
        duration=duration,
        trace_points=50,
        warmup_fraction=0.1,
        seed=seed,
    )


def amplification_measure(pr: PacketRun, out: dict[str, Any]) -> dict[str, float]:
    """Load, W_H and W_L (slots), their ratio, and the one-way queueing delays with the transmissions (a data
    packet's 1 slot, a Scout's S/L) from one run's records (chunks after the warm-up)."""
    rec, w = out["records"], slice(pr.warmup_chunks, None)
    slots = pr.cfg.chunk * (pr.cfg.n_chunks - pr.warmup_chunks)
    busy = float(rec["busy"][w].sum())
    served = float(rec["scouts_served"][w].sum())
    wh = float(rec["q_sum"][w].sum()) / busy
    wl = float(rec["scouts_wait"][w].sum()) / max(served, 1.0)
    s = 1.0 / pr.cfg.scouts_per_slot
    return {
        "load": busy / slots,
        "W_H": wh,
        "W_L": wl,
        "ratio": wl / wh if wh > 0 else float("inf"),
        "owd_ratio": (wl + s) / (wh + 1.0),
        "packets": busy,
        "scouts": served,
        "scouts_dropped": float(rec["scouts_dropped"][w].sum()),
        "data_drops": float(rec["drops"][w].sum()),
    }


def amplification_table(
    rhos: Sequence[float],
    *,
    arrivals: str = "poisson",
    seeds: Sequence[int] = (0,),
    senders: int = 20,
    probes: int = 2,
    scout_buffer: int = 23,
    duration: float = 0.5,
) -> list[dict[str, Any]]:
    """One row per load: the packet core's waits (seeds pooled by packets and Scouts) and, for Poisson senders,
    the slotted theory with m₂ = ρ²(1 − 1/senders) (the Binomial number of sends per slot)."""
    prs = [
        amplification_run(
            r,
            arrivals=arrivals,
            senders=senders,
            probes=probes,
            scout_buffer=scout_buffer,
            duration=duration,
            seed=s,
        )
        for r in rhos
        for s in seeds
    ]
    outs = run_many(prs)
    rows = []
    for i, rho in enumerate(rhos):
        ms = [
            amplification_measure(prs[i * len(seeds) + j], outs[i * len(seeds) + j])
            for j in range(len(seeds))
        ]
        pk, sc = sum(m["packets"] for m in ms), sum(m["scouts"] for m in ms)
        wh = sum(m["W_H"] * m["packets"] for m in ms) / pk
        wl = sum(m["W_L"] * m["scouts"] for m in ms) / max(sc, 1.0)
        row: dict[str, Any] = {
            "rho": rho,
            "arrivals": arrivals,
            "load": float(np.mean([m["load"] for m in ms])),
            "W_H": wh,
            "W_L": wl,
            "ratio": wl / wh if wh > 0 else float("inf"),
            "owd_ratio": float(np.mean([m["owd_ratio"] for m in ms])),
            "scouts": sc,
            "scout_drop_fraction": sum(m["scouts_dropped"] for m in ms)
            / max(sc + sum(m["scouts_dropped"] for m in ms), 1.0),
            "seeds": list(seeds),
        }
        if arrivals == "poisson":
            th = wait_formulas(rho, rho**2 * (1 - 1 / senders))
            row.update(
                theory_W_H=th["W_H"], theory_W_L=th["W_L"], theory_ratio=th["ratio"], cobham=th["cobham"]
            )
        rows.append(row)
    return rows


def onset_run(
    step_rtts: float,
    *,
    load_step: float = 0.0105,
    senders: int = 100,
    probes: int = 10,
    hold_rtts: float = 500.0,
    seed: int = 0,
) -> PacketRun:
    """A staircase of ``senders`` open-loop Poisson senders of ``load_step`` each, one joining every ``step_rtts``
    RTTs (the load reaches 100 % after 1/load_step of them), and ``probes`` Scout probes from the start; records
    once per RTT; the run lasts the staircase plus ``hold_rtts`` RTTs at the final load (above 100 %: the data
    buffer then overflows within a few hundred RTTs)."""
    rtt = _LINK.d
    starts = [i * step_rtts * rtt for i in range(senders)] + [0.0] * probes
    laws = [get_law("open-loop", arrivals="poisson"), get_law("scout-probe")]
    dur = (senders * step_rtts + hold_rtts) * rtt
    return build(
        laws,
        link=_LINK,
        flows=senders + probes,
        law_of_flow=[0] * senders + [1] * probes,
        law_params=[{"rate": load_step}, {}],
        starts=starts,
        start_jitter=False,
        duration=dur,
        trace_points=int(round(dur / rtt)),
        warmup_fraction=0.0,
        seed=seed,
    )


def onset_measure(pr: PacketRun, out: dict[str, Any], load_step: float, step_rtts: float) -> dict[str, Any]:
    """First record chunk (≈ 1 RTT each) with a Scout dropped and with a data packet dropped, in RTTs from the start,
    the offered load at each, and the lead of the Scout's loss in RTTs (None where one never happens)."""
    rec = out["records"]
    chunk_rtt = pr.cfg.chunk * pr.slot / pr.link.d

    def first(x: np.ndarray) -> float | None:
        i = np.flatnonzero(x > 0)
        return float(i[0] * chunk_rtt) if i.size else None

    ts, th = first(rec["scouts_dropped"]), first(rec["drops"].sum(-1))

    def load_at(t: float | None) -> float | None:
        n = pr.cfg.n_flows - int(np.sum(np.asarray(pr.scenario.law_idx) == 1))
        return None if t is None else float(load_step * min(np.floor(t / step_rtts) + 1, n))

    return {
        "step_rtts": step_rtts,
        "scout_loss_rtt": ts,
        "data_loss_rtt": th,
        "load_at_scout_loss": load_at(ts),
        "load_at_data_loss": load_at(th),
        "lead_rtts": None if ts is None or th is None else th - ts,
    }


def onset_table(
    steps: Sequence[float], *, seeds: Sequence[int] = (0,), load_step: float = 0.0105, probes: int = 10
) -> list[dict[str, Any]]:
    """:func:`onset_measure` for each staircase step (RTTs per sender) and seed."""
    prs = [onset_run(s, load_step=load_step, probes=probes, seed=sd) for s in steps for sd in seeds]
    outs = run_many(prs)
    rows = []
    for k, (pr, o) in enumerate(zip(prs, outs, strict=True)):
        row = onset_measure(pr, o, load_step, steps[k // len(seeds)])
        row["seed"] = seeds[k % len(seeds)]
        rows.append(row)
    return rows
