"""TIMELY rate law, [TIMELY] Algorithm 1 as printed in [PROXY] §2.2.

A rate-based law: the sender paces at ``rate`` (packets per slot, 1 = line rate) and ``cwnd`` is only a loose cap.
Once per *completion event* (every ``seg`` acknowledged packets: [TIMELY] updates once per segment of 16-64 KB,
not per packet) the law takes the RTT of the ACK that completes the segment and applies:

* RTT = t_completion − t_send − segment/line rate ([PROXY] §2.1): the engine's sample is send slot to ACK slot of
  the packet that completes the segment, so one slot (that packet's own transmission at line rate) is subtracted;
* new_rtt_diff = RTT − prev_rtt; rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff; g = rtt_diff / minRTT;
* RTT < T_low: rate ← rate + δ; RTT > T_high: rate ← rate·(1 − β(1 − T_high/RTT));
* otherwise g ≤ 0: rate ← rate + N·δ with N = 5 after ``hai_after`` consecutive non-positive gradients (HAI),
  else 1; g > 0: rate ← rate·(1 − β·g).

Interpretations (the algorithm does not say): losses and retransmission timeouts leave the rate unchanged
(Algorithm 1 reacts to RTT only; [TIMELY]'s NIC retransmits, the rate law never sees a loss), and the window is a
loose cap, so no sender rule (:mod:`.recovery`) applies; the first completion event has no previous RTT, so its new_rtt_diff
is 0; the HAI count is reset by any decrease (gradient or T_high); the rate is clipped to [``rate_min``, 1] (a
factor 1 − β·g < 0 would otherwise make it negative).

Gains and defaults — provenance: α = 0.875 (EWMA weight of the new difference), β = 0.8, δ = 10 Mb/s,
T_low = 50 µs, T_high = 500 µs, minRTT = 20 µs and a 16 KB segment (≈ 11 packets of 1500 B) are [TIMELY]'s
published values (as Zhu et al.'s reproduction uses them), quoted from that literature: **no seed states them**
([PROXY] prints Algorithm 1 with the symbols only; its N = 5 after 5 completion events is the one number it gives).
Every gain is therefore an option (``--timely-alpha``, ``--timely-beta``, ``--timely-delta``, ``--t-low``,
``--t-high``, ``--min-rtt``, ``--segment``), and ``tests/test_timely_gains.py`` shows the findings do not hinge on
them: ±50 % on δ, β, T_low, T_high keeps TIMELY's start-dependent split and the patch's single share in both cores
(the share is C/N unless T_low moves away from RTT_ref). Times are converted to slots and δ to packets per slot (δ/C) once, in :func:`timely_params`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from ...params import LinkParams
from .base import FLOAT, INT, Events, Law, LawOption
from .registry import register_law

__all__ = [
    "Timely",
    "timely_params",
    "timely_init",
    "timely_measure",
    "timely_reference_warnings",
    "TIMELY_OPTIONS",
    "clip_rate",
]

#: The in-flight cap of a rate-based TIMELY sender (packets): far above any BDP here, so pacing alone limits it.
CWND_CAP = 1.0e5


def _us(v: float, link: Any) -> float:
    """µs → slots of ``link`` (one slot = L/C)."""
    return float(v) * 1e-6 * float(link.C)


def _mbps(v: float, link: Any) -> float:
    """Mb/s → packets per slot (fraction of the link rate)."""
    return float(v) * 1e6 / float(link.capacity)


def _link(context: Mapping[str, Any]) -> Any:
    for key in ("dctcp", "dwtcp"):
        obj = context.get(key)
        if obj is not None:
            return obj.link
    return context.get("link") or LinkParams()


def timely_params(link: Any = None, **over: float) -> dict[str, float]:
    """[TIMELY]'s published gains (not stated by any seed; see the module docstring) for ``link`` in the engine's
    units (slots, packets per slot).

    Returns ``alpha`` (1), ``beta`` (1), ``delta`` (packets/slot), ``t_low``, ``t_high``, ``min_rtt`` (slots),
    ``seg`` (packets per completion event), ``hai_n`` (5), ``hai_after`` (5 events), ``rate_min`` (packets/slot),
    ``init_rate`` (packets/slot), ``serial`` (slots subtracted from each sample: one packet at line rate) and
    ``init_cwnd`` (the in-flight cap, packets).
    """
    link = link or LinkParams()
    p = {
        "alpha": 0.875,
        "beta": 0.8,
        "delta": _mbps(10.0, link),
        "t_low": _us(50.0, link),
        "t_high": _us(500.0, link),
        "min_rtt": _us(20.0, link),
        "seg": max(1.0, round(16384.0 / float(link.L))),
        "hai_n": 5.0,
        "hai_after": 5.0,
        "rate_min": _mbps(10.0, link),
        "init_rate": 0.1,
        "serial": 1.0,
        "init_cwnd": CWND_CAP,
    }
    p.update({k: float(v) for k, v in over.items()})
    return p


def timely_init(p: Mapping[str, Any], n: int) -> dict[str, Any]:
    """Per-flow state: rate (packets/slot), cwnd cap, previous RTT and gradient EWMA (slots), counters."""
    return {
        "cwnd": jnp.full(n, p["init_cwnd"], FLOAT),
        "rate": jnp.full(n, p["init_rate"], FLOAT),
        "prev_rtt": jnp.zeros(n, FLOAT),
        "rtt_diff": jnp.zeros(n, FLOAT),
        "grad": jnp.zeros(n, FLOAT),
        "seg_acked": jnp.zeros(n, INT),
        "neg_count": jnp.zeros(n, INT),
    }


def timely_measure(s: Mapping[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
    """The completion event and the gradient, Algorithm 1 lines 1-5 (shared by TIMELY and Patched TIMELY).

    Returns ``done`` (a completion event now), ``rtt`` (slots), the new ``prev_rtt``, ``rtt_diff``, ``grad``
    (normalized gradient, 1) and ``seg_acked``.
    """
    k = jnp.where(ev.ack, ev.n_acked, 0).astype(INT)
    acked = s["seg_acked"] + k
    done = ev.ack & (acked.astype(FLOAT) >= p["seg"])
    rtt = jnp.maximum(jnp.asarray(ev.rtt_sample, FLOAT) - p["serial"], 0.0)
    first = s["prev_rtt"] <= 0.0
    new_diff = jnp.where(first, 0.0, rtt - s["prev_rtt"])
    diff = (1.0 - p["alpha"]) * s["rtt_diff"] + p["alpha"] * new_diff
    return {
        "done": done,
        "rtt": rtt,
        "prev_rtt": jnp.where(done, jnp.maximum(rtt, 1e-6), s["prev_rtt"]).astype(FLOAT),
        "rtt_diff": jnp.where(done, diff, s["rtt_diff"]).astype(FLOAT),
        "grad": jnp.where(done, diff / p["min_rtt"], s["grad"]).astype(FLOAT),
        "seg_acked": jnp.where(done, 0, acked).astype(INT),
    }


def timely_reference_warnings(
    name: str, p: Mapping[str, Any], rtt: float, buffer: float, slot_s: float
) -> tuple[str, ...]:
    """TIMELY's thresholds against the base RTT ``rtt`` and the largest queueing delay (``buffer`` slots), in slots:
    T_high at or below the base RTT puts every sample above it (the rate only decreases, to ``rate_min``); T_low
    above base RTT + buffer puts every sample below it (the rate only increases, the buffer overflows). [TIMELY]
    fixes T_low = 50 µs and T_high = 500 µs for its datacenter; neither follows the RTT, so a mismatch is warned."""
    us = slot_s * 1e6
    out = []
    if p["t_high"] <= rtt:
        out.append(
            f"{name}: T_high = {p['t_high'] * us:.4g} µs is not above the base RTT {rtt * us:.4g} µs: every RTT "
            "sample is above it and the rate only decreases (set --t-high above the RTT)"
        )
    if p["t_low"] > rtt + buffer:
        out.append(
            f"{name}: T_low = {p['t_low'] * us:.4g} µs is above the largest RTT the buffer allows "
            f"({(rtt + buffer) * us:.4g} µs): every sample is below it and the rate only increases (set --t-low lower)"
        )
    return tuple(out)


def clip_rate(rate: Any, p: Mapping[str, Any]) -> Any:
    """The rate held in [rate_min, 1] packets per slot (line rate)."""
    return jnp.clip(rate, p["rate_min"], 1.0).astype(FLOAT)


def thresholds(rate: Any, rtt: Any, p: Mapping[str, Any]) -> tuple[Any, Any, Any, Any]:
    """Algorithm 1's two threshold branches: ``(low, high, rate_low, rate_high)``."""
    low = rtt < p["t_low"]
    high = rtt > p["t_high"]
    rate_low = rate + p["delta"]
    rate_high = rate * (1.0 - p["beta"] * (1.0 - p["t_high"] / jnp.maximum(rtt, 1e-6)))
    return low, high, rate_low, rate_high


#: Command-line flags shared by the TIMELY laws (values in the paper's units, converted with the link).
#: Appended to the help of every gain option: where the default comes from.
_PUB = " [TIMELY]'s published value; no seed states it."

TIMELY_OPTIONS: tuple[LawOption, ...] = (
    LawOption(
        "--timely-alpha",
        "TIMELY EWMA weight α of the new RTT difference, 0 < α ≤ 1." + _PUB,
        0.875,
        param="alpha",
        lo=1e-6,
        hi=1.0,
    ),
    LawOption(
        "--timely-beta",
        "TIMELY multiplicative decrease factor β, 0 < β ≤ 1." + _PUB,
        0.8,
        param="beta",
        lo=1e-6,
        hi=1.0,
    ),
    LawOption(
        "--timely-delta",
        'TIMELY additive step δ, a rate ("10Mbps").' + _PUB,
        10.0,
        param="delta",
        lo=1e-6,
        hi=1e7,
        convert=_mbps,
        unit="mbps",
    ),
    LawOption(
        "--t-low",
        'TIMELY T_low, a time ("50us") below T_high.' + _PUB,
        50.0,
        param="t_low",
        lo=0.0,
        hi=1e8,
        convert=_us,
        unit="us",
        below="--t-high",
    ),
    LawOption(
        "--t-high",
        'TIMELY T_high, a time ("500us").' + _PUB,
        500.0,
        param="t_high",
        lo=1e-3,
        hi=1e8,
        convert=_us,
        unit="us",
    ),
    LawOption(
        "--min-rtt",
        'TIMELY minRTT normalizing the gradient, a time ("20us").' + _PUB,
        20.0,
        param="min_rtt",
        lo=1e-3,
        hi=1e8,
        convert=_us,
        unit="us",
    ),
    LawOption(
        "--segment",
        "TIMELY segment per completion event (packets), ≥ 1." + _PUB,
        11.0,
        param="seg",
        lo=1.0,
        hi=1e6,
        unit="packets",
    ),
    LawOption(
        "--init-rate",
        "TIMELY initial rate (fraction of line rate), 0 < r ≤ 1.",
        0.1,
        param="init_rate",
        lo=1e-6,
        hi=1.0,
        unit="fraction",
    ),
)


@register_law
@dataclass(frozen=True)
class Timely(Law):
    """TIMELY, [TIMELY] Algorithm 1 (see the module docstring for units, defaults and interpretations)."""

    name: ClassVar[str] = "timely"
    signals: ClassVar[frozenset[str]] = frozenset({"rtt"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "rate"
    aux_summary: ClassVar[str | None] = "rate_mean"
    options: ClassVar[tuple[LawOption, ...]] = TIMELY_OPTIONS

    def default_params(self, **context: Any) -> dict[str, float]:
        """[TIMELY]'s defaults for the scenario's link (:func:`timely_params`)."""
        return timely_params(_link(context))

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return timely_init(p, n)

    def reference_warnings(
        self, p: Mapping[str, Any], *, rtt: float, buffer: float, slot_s: float
    ) -> tuple[str, ...]:
        """T_low and T_high against the RTT (:func:`timely_reference_warnings`)."""
        return timely_reference_warnings(self.name, p, rtt, buffer, slot_s)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        m = timely_measure(s, ev, p)
        rate, g, rtt = s["rate"], m["grad"], m["rtt"]
        low, high, rate_low, rate_high = thresholds(rate, rtt, p)
        nonpos = g <= 0.0
        count = jnp.where(nonpos, s["neg_count"] + 1, 0)
        n_step = jnp.where(count >= p["hai_after"], p["hai_n"], 1.0)
        rate_grad = jnp.where(nonpos, rate + n_step * p["delta"], rate * (1.0 - p["beta"] * g))
        new = jnp.where(low, rate_low, jnp.where(high, rate_high, rate_grad))
        done = m["done"]
        # the HAI count follows the gradient branch only; a T_high decrease ends a run of non-positive gradients
        count = jnp.where(low, s["neg_count"], jnp.where(high, 0, count))
        return {
            "cwnd": s["cwnd"],
            "rate": jnp.where(done, clip_rate(new, p), rate).astype(FLOAT),
            "prev_rtt": m["prev_rtt"],
            "rtt_diff": m["rtt_diff"],
            "grad": m["grad"],
            "seg_acked": m["seg_acked"],
            "neg_count": jnp.where(done, count, s["neg_count"]).astype(INT),
        }
