"""Swift, [Swift] Algorithm 1 and §3: a window AIMD on the measured delay against a target delay.

On every data ACK (``n`` packets acknowledged, ``delay`` its RTT sample in slots) the fabric window ``fcwnd``
(packets, fractional) follows [Swift] Algorithm 1:

* delay < target: additive increase, fcwnd ← fcwnd + ai·n/fcwnd when fcwnd ≥ 1, fcwnd + ai·n below 1;
* otherwise, at most once per RTT (``can_decrease``: now − t_last_decrease ≥ rtt): multiplicative decrease
  fcwnd ← fcwnd·max(1 − β·(delay − target)/delay, 1 − max_mdf);
* then fcwnd is clamped to [min_cwnd, max_cwnd], and t_last_decrease ← now when it fell.

The target delay is [Swift] §3.5's: target = base_target + hops·h + fs(fcwnd), with the flow-count scaling
fs(w) = clip(fs_α/√w + fs_β, 0, fs_range), fs_α = fs_range/(1/√fs_min_cwnd − 1/√fs_max_cwnd),
fs_β = −fs_α/√fs_max_cwnd: 0 at fs_max_cwnd and above, fs_range at fs_min_cwnd and below, growing as 1/√w
between (many flows, small windows: a higher target, the queue [Swift] lets N flows build).

Below one packet Swift paces ([Swift] §3.3): the inter-packet gap is rtt/cwnd. The engine keeps at most
⌊cap⌋ packets in flight and paces a rate-based law at ``rate`` (packets per slot), so the law is rate-based:
``cwnd`` (the engine's cap) is max(fcwnd, 1), and ``rate`` is fcwnd/rtt below one packet, the line rate (1: the
window alone limits) above. A retransmission timeout decreases fcwnd by (1 − max_mdf) when it may decrease, and
sets it to min_cwnd after ``retx_reset`` consecutive timeouts ([Swift] Algorithm 1, "On Retransmit Timeout"); a
loss reported with an ACK ("fast recovery") decreases it by (1 − max_mdf) when it may.

Options (each an ambiguity of the paper, with its source):

* ``split`` — [Swift] §3.2 splits the RTT into the fabric delay (the network) and the endpoint delay (the hosts'
  queues) and keeps one window per part, cwnd = min(fcwnd, ecwnd). ``"fabric"`` (default, the paper): the fabric
  window reacts to rtt − endpoint delay and an endpoint window ``ecwnd`` on the endpoint delay against
  ``endpoint_target``; this engine models no host queue, so the endpoint delay is 0 and ecwnd only increases (it
  binds only while it is smaller than fcwnd, e.g. at the start). ``"total"``: one window on the whole RTT sample
  (htsim's ``SwiftSubflowSrc::adjust_cwnd``, which uses now − ts_echo).
* ``md_rtt`` — the "rtt" of ``can_decrease`` and of the pacing gap: ``"sample"`` (default: the RTT just
  measured, Algorithm 1's ``rtt``) or ``"srtt"`` (htsim: the EWMA 7/8·srtt + 1/8·sample, its ``_rtt``).

Defaults — provenance: [Swift] names ai, β, max_mdf, base_target, h, fs_range, fs_min_cwnd, fs_max_cwnd but does
not publish the deployment's numbers; the defaults are htsim's (``sim/swift.cpp``, ``SwiftSubflowSrc::connect``,
each marked "a guess" there): ai = 1, β = 0.8, max_mdf = 0.5, h = 20 µs/6.55, fs_range = 5 × 20 µs = 100 µs,
fs_min_cwnd = 0.1, fs_max_cwnd = 100 packets, max_cwnd = 1000 packets, min_cwnd = 10 bytes, retx_reset = 5.
htsim's base target is a fixed 20 µs (its topology's unloaded RTT); here ``base_target`` defaults to the link's
base RTT plus one packet time (the unloaded RTT sample of this engine, ``serial``), so that the target covers
propagation on any link and hops·h + fs(fcwnd) is the queueing the target allows. hops = 1 (one bottleneck).

Units: windows in packets, times in slots (one slot = one packet's transmission time).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from ...formulas import swift_flow_scaling
from ...params import BOUNDS
from .base import FLOAT, INT, Events, Law, LawOption
from .registry import register_law
from .timely import _link, _us

__all__ = ["Swift", "swift_params", "flow_scaling", "target_delay", "SPLITS", "MD_RTTS"]

SPLITS = ("fabric", "total")
MD_RTTS = ("sample", "srtt")
#: htsim's base target delay (µs) from which its h and fs_range are derived (``sim/swift.cpp``).
HTSIM_BASE_US = 20.0


def swift_params(link: Any = None, **over: float) -> dict[str, float]:
    """Swift's defaults (module docstring: htsim's values, [Swift] states the form) in slots and packets.

    Returns ``ai``, ``beta``, ``max_mdf`` (1), ``base_target``, ``h``, ``fs_range``, ``endpoint_target`` (slots),
    ``hops`` (1), ``fs_min_cwnd``, ``fs_max_cwnd``, ``min_cwnd``, ``max_cwnd``, ``init_cwnd`` (packets),
    ``retx_reset`` (timeouts) and ``serial`` (slots: one packet's own transmission in each sample).
    """
    from ...params import LinkParams

    link = link or LinkParams()
    p = {
        "ai": 1.0,
        "beta": 0.8,
        "max_mdf": 0.5,
        "base_target": float(link.d) * float(link.C) + 1.0,
        "h": _us(HTSIM_BASE_US / 6.55, link),
        "hops": 1.0,
        "fs_range": _us(5.0 * HTSIM_BASE_US, link),
        "fs_min_cwnd": 0.1,
        "fs_max_cwnd": 100.0,
        "endpoint_target": _us(HTSIM_BASE_US, link),
        "min_cwnd": 10.0 / float(link.L),
        "max_cwnd": 1000.0,
        "init_cwnd": 10.0,
        "retx_reset": 5.0,
        "serial": 1.0,
    }
    p.update({k: float(v) for k, v in over.items()})
    return p


def flow_scaling(w: Any, p: Mapping[str, Any], xp: Any = jnp) -> Any:
    """fs(w) = clip(fs_α/√w + fs_β, 0, fs_range), [Swift] §3.5 (slots; ``w`` packets)."""
    return swift_flow_scaling(xp.maximum(w, 1e-9), p["fs_range"], p["fs_min_cwnd"], p["fs_max_cwnd"], xp)


def target_delay(w: Any, p: Mapping[str, Any], xp: Any = jnp) -> Any:
    """target = base_target + hops·h + fs(w), [Swift] §3.5 (slots)."""
    return p["base_target"] + p["hops"] * p["h"] + flow_scaling(w, p, xp)


def _aimd(w: Any, n: Any, delay: Any, target: Any, can_dec: Any, p: Mapping[str, Any]) -> Any:
    """One ACK of [Swift] Algorithm 1 on window ``w``: AI below the target, MD (if allowed) at or above it."""
    inc = jnp.where(w >= 1.0, w + p["ai"] * n / jnp.maximum(w, 1e-9), w + p["ai"] * n)
    dec = w * jnp.maximum(1.0 - p["beta"] * (delay - target) / jnp.maximum(delay, 1e-6), 1.0 - p["max_mdf"])
    return jnp.where(delay < target, inc, jnp.where(can_dec, dec, w))


@register_law
@dataclass(frozen=True)
class Swift(Law):
    """Swift, [Swift] Algorithm 1 with §3.5's target delay (module docstring for options, defaults and units)."""

    split: str = "fabric"
    md_rtt: str = "sample"

    name: ClassVar[str] = "swift"
    signals: ClassVar[frozenset[str]] = frozenset({"rtt"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "fcwnd"
    aux_summary: ClassVar[str | None] = "fcwnd_mean"
    options: ClassVar[tuple[LawOption, ...]] = (
        LawOption("--swift-ai", "Swift additive increment ai (packets per RTT), > 0. htsim's value.", 1.0,
                  param="ai", lo=0.0, hi=1e3, lo_open=True),
        LawOption("--swift-beta", "Swift multiplicative decrease constant β, > 0. htsim's value.", 0.8,
                  param="beta", bound=BOUNDS["swift_beta"]),
        LawOption("--max-mdf", "Swift largest multiplicative decrease factor max_mdf, 0 < max_mdf < 1. htsim's.",
                  0.5, param="max_mdf", lo=0.0, hi=1.0, lo_open=True, hi_open=True),
        LawOption("--base-target", 'Swift base target delay, a time ("30us").', 100.0, param="base_target",
                  lo=1e-3, hi=1e8, convert=lambda v, link: _us(v, link), unit="us",
                  default_from_link=lambda link: round(float(link.d) * 1e6 + 1e6 * float(link.L) * 8.0
                                                       / float(link.capacity), 9),
                  default_note="the link's base RTT plus one packet time (htsim: a fixed 20 µs)"),
        LawOption("--hop-scale", 'Swift per-hop target scaling h, a time ("3.05us"). htsim: 20 µs/6.55.',
                  round(HTSIM_BASE_US / 6.55, 6), param="h", lo=0.0, hi=1e8, convert=lambda v, link: _us(v, link),
                  unit="us"),
        LawOption("--swift-hops", "Swift hop count of the path in the target, ≥ 0 (one bottleneck: 1).", 1.0,
                  param="hops", lo=0.0, hi=64.0),
        LawOption("--fs-range", 'Swift flow-scaling range fs_range, a time ("100us"). htsim: 5 × 20 µs.',
                  5.0 * HTSIM_BASE_US, param="fs_range", lo=0.0, hi=1e8, convert=lambda v, link: _us(v, link),
                  unit="us"),
        LawOption("--fs-min-cwnd", "Swift fs_min_cwnd (packets), below --fs-max-cwnd. htsim's value.", 0.1,
                  param="fs_min_cwnd", lo=1e-6, hi=1e6, lo_open=True, unit="packets", below="--fs-max-cwnd"),
        LawOption("--fs-max-cwnd", "Swift fs_max_cwnd (packets). htsim's value.", 100.0, param="fs_max_cwnd",
                  lo=1e-6, hi=1e6, lo_open=True, unit="packets"),
        LawOption("--swift-split", "Swift delay split: fabric (fabric and endpoint windows, [Swift] §3.2) or "
                  "total (one window on the RTT, htsim).", "fabric", option="split", choices=SPLITS),
        LawOption("--swift-md-rtt", "Swift rtt of the once-per-RTT decrease and pacing: sample (Algorithm 1) or "
                  "srtt (htsim's EWMA).", "sample", option="md_rtt", choices=MD_RTTS),
    )  # fmt: skip

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ValueError(f"split={self.split!r} is invalid: accepted one of {', '.join(SPLITS)}")
        if self.md_rtt not in MD_RTTS:
            raise ValueError(f"md_rtt={self.md_rtt!r} is invalid: accepted one of {', '.join(MD_RTTS)}")

    def default_params(self, **context: Any) -> dict[str, float]:
        """Swift's defaults for the scenario's link (:func:`swift_params`)."""
        over = {"init_cwnd": float(context["init_cwnd"])} if "init_cwnd" in context else {}
        return swift_params(_link(context), **over)

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        w = jnp.full(n, p["init_cwnd"], FLOAT)
        return {
            "cwnd": jnp.maximum(w, 1.0),
            "rate": jnp.where(w >= 1.0, 1.0, w / p["base_target"]).astype(FLOAT),
            "fcwnd": w,
            "ecwnd": w,
            "rtt_est": jnp.zeros(n, FLOAT),
            "t_dec": jnp.full(n, -(2**30), INT),  # may decrease at once
            "retx": jnp.zeros(n, INT),
        }

    def reference_warnings(
        self, p: Mapping[str, Any], *, rtt: float, buffer: float, slot_s: float
    ) -> tuple[str, ...]:
        """The smallest target (base_target + hops·h) at or below the unloaded RTT sample (every sample is then
        above it: the window only decreases), or the largest beyond what the buffer can hold."""
        us = slot_s * 1e6
        lo = p["base_target"] + p["hops"] * p["h"]
        out = []
        if lo <= rtt + p["serial"]:
            out.append(
                f"{self.name}: the target delay base_target + hops·h = {lo * us:.4g} µs is not above the unloaded "
                f"RTT {(rtt + p['serial']) * us:.4g} µs: every sample is above it and the window only decreases "
                "(raise --base-target)"
            )
        if lo + p["fs_range"] > rtt + buffer:
            out.append(
                f"{self.name}: the largest target {(lo + p['fs_range']) * us:.4g} µs is above the largest RTT the "
                f"buffer allows ({(rtt + buffer) * us:.4g} µs): with many flows the queue overflows first"
            )
        return tuple(out)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        t = jnp.asarray(ev.t, INT)
        ack = jnp.asarray(ev.ack)
        delay = jnp.asarray(ev.rtt_sample, FLOAT)
        n = jnp.where(ack, jnp.asarray(ev.n_acked), 0).astype(FLOAT)
        first = s["rtt_est"] <= 0.0
        if self.md_rtt == "srtt":
            est = jnp.where(first, delay, 0.875 * s["rtt_est"] + 0.125 * delay)
        else:
            est = delay
        rtt_est = jnp.where(ack, est, s["rtt_est"]).astype(FLOAT)
        # can_decrease with the rtt known before this ACK (Algorithm 1 computes it first; htsim likewise)
        guard = jnp.where(first, jnp.asarray(ev.rtt, FLOAT), s["rtt_est"])
        can_dec = (t - s["t_dec"]).astype(FLOAT) >= guard
        w0, e0 = s["fcwnd"], s["ecwnd"]
        # the data ACK: fabric window on the fabric delay (= the sample: no endpoint delay in this engine)
        w = jnp.where(ack, _aimd(w0, n, delay, target_delay(w0, p), can_dec, p), w0)
        # losses reported with the ACK (fast recovery) and timeouts, [Swift] Algorithm 1
        loss = jnp.asarray(ev.nloss) > 0
        to = jnp.asarray(ev.timeout)
        retx = jnp.where(to, s["retx"] + 1, jnp.where(ack, 0, s["retx"]))
        cut = jnp.where(can_dec, 1.0 - p["max_mdf"], 1.0)
        w = jnp.where(loss | to, w * cut, w)
        w = jnp.where(to & (retx.astype(FLOAT) >= p["retx_reset"]), p["min_cwnd"], w)
        w = jnp.clip(w, p["min_cwnd"], p["max_cwnd"])
        if self.split == "fabric":
            # endpoint window on the endpoint delay (0 here: always below endpoint_target, so only AI)
            e = jnp.where(ack, _aimd(e0, n, 0.0, p["endpoint_target"], can_dec, p), e0)
            e = jnp.where(loss | to, e * cut, e)
            e = jnp.where(to & (retx.astype(FLOAT) >= p["retx_reset"]), p["min_cwnd"], e)
            e = jnp.clip(e, p["min_cwnd"], p["max_cwnd"])
        else:
            e = w
        eff = jnp.minimum(w, e)
        fell = eff < jnp.minimum(w0, e0)
        t_dec = jnp.where(fell, t, s["t_dec"])
        gap_rtt = jnp.where(rtt_est > 0.0, rtt_est, jnp.asarray(ev.rtt, FLOAT))
        rate = jnp.where(eff >= 1.0, 1.0, eff / jnp.maximum(gap_rtt, 1.0))
        return {
            "cwnd": jnp.maximum(eff, 1.0).astype(FLOAT),
            "rate": jnp.clip(rate, 1e-6, 1.0).astype(FLOAT),
            "fcwnd": w.astype(FLOAT),
            "ecwnd": e.astype(FLOAT),
            "rtt_est": rtt_est,
            "t_dec": t_dec.astype(INT),
            "retx": retx.astype(INT),
        }
