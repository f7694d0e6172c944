"""Patched TIMELY (Zhu et al., relayed in [PROXY] §2.2 and §2.4): the decrease acts on the absolute RTT.

The gradient branch of [TIMELY] Algorithm 1 is replaced, at every completion event inside [T_low, T_high], by

    w(g) = 0 for g ≤ −1/4,  2g + 1/2 for −1/4 < g < 1/4,  1 for g ≥ 1/4       (gradient weight)
    rate ← δ·(1 − w(g)) + rate·(1 − β·w(g)·(RTT − RTT_ref)/RTT_ref)

with RTT_ref = 50 µs ([PROXY] §2.4's choice: "Since RTTs are on the order of 30 µs, we choose RTT_ref = 50 µs as a
reasonable parameter to achieve positive queues"), by default raised to the base RTT + 20 µs where that is higher
(:func:`~dwtcp_fluid.params.patched_rtt_ref`): at or below the base RTT the fixed point lies below an empty queue
and the rate falls to about δ/β per flow (at 100 µs with 50 µs: 0.6 % utilization). Such an RTT_ref, given
explicitly, is warned (:meth:`TimelyPatched.reference_warnings`). At a constant queue g = 0 and
w = 1/2, so the rate stops moving where β·rate·(RTT − RTT_ref)/RTT_ref = δ: one RTT for all flows fixes one rate
(``proofs/timely.md``). The error is normalized by RTT_ref ([PROXY]: RTT_ref "scales the rate decrease"); the
threshold branches, the RTT measurement and the gradient EWMA are TIMELY's (:mod:`.timely`), shared, not copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from ...params import patched_rtt_ref
from .base import FLOAT, Events, Law, LawOption
from .registry import register_law
from .timely import (
    TIMELY_OPTIONS,
    _link,
    _us,
    clip_rate,
    thresholds,
    timely_init,
    timely_measure,
    timely_params,
    timely_reference_warnings,
)

__all__ = ["TimelyPatched", "weight"]


def weight(g: Any, xp: Any = jnp) -> Any:
    """Patched TIMELY's gradient weight w(g): 0 below −1/4, 2g + 1/2 between, 1 above 1/4."""
    return xp.minimum(xp.maximum(2.0 * g + 0.5, 0.0), 1.0)


@register_law
@dataclass(frozen=True)
class TimelyPatched(Law):
    """Patched TIMELY (see the module docstring); ``rtt_ref`` is a law parameter (slots, default max(50 µs, base
    RTT + 20 µs))."""

    name: ClassVar[str] = "timely-patched"
    signals: ClassVar[frozenset[str]] = frozenset({"rtt"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "rate"
    aux_summary: ClassVar[str | None] = "rate_mean"
    options: ClassVar[tuple[LawOption, ...]] = (
        *TIMELY_OPTIONS,
        LawOption(
            "--rtt-ref",
            'Patched TIMELY RTT_ref, a time ("50us").',
            50.0,
            param="rtt_ref",
            lo=1e-3,
            hi=1e8,
            convert=_us,
            unit="us",
            default_from_link=lambda link: round(patched_rtt_ref(link.d) * 1e6, 9),
            default_note="max(50, base RTT + 20) µs ([PROXY] §2.4: 50 µs for RTTs of about 30 µs)",
        ),
    )

    def default_params(self, **context: Any) -> dict[str, float]:
        """TIMELY's defaults plus ``rtt_ref`` = max(50 µs, base RTT + 20 µs) in slots."""
        link = _link(context)
        return timely_params(link, rtt_ref=_us(patched_rtt_ref(link.d) * 1e6, link))

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return timely_init(p, n)

    def reference_warnings(
        self, p: Mapping[str, Any], *, rtt: float, buffer: float, slot_s: float
    ) -> tuple[str, ...]:
        """TIMELY's thresholds, and RTT_ref at or below the base RTT (the patch then decreases the rate to about
        δ/β per flow: no queue can bring the RTT down to RTT_ref)."""
        out = timely_reference_warnings(self.name, p, rtt, buffer, slot_s)
        if p["rtt_ref"] <= rtt:
            us = slot_s * 1e6
            out += (
                f"{self.name}: RTT_ref = {p['rtt_ref'] * us:.4g} µs is not above the base RTT {rtt * us:.4g} µs: "
                "the fixed point lies below an empty queue and the rate falls to about δ/β per flow (set --rtt-ref "
                "above the RTT; [PROXY] §2.4 chose 50 µs for RTTs of about 30 µs)",
            )
        return out

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        m = timely_measure(s, ev, p)
        rate, rtt = s["rate"], m["rtt"]
        low, high, rate_low, rate_high = thresholds(rate, rtt, p)
        w = weight(m["grad"])
        err = (rtt - p["rtt_ref"]) / p["rtt_ref"]
        rate_w = p["delta"] * (1.0 - w) + rate * (1.0 - p["beta"] * w * err)
        new = jnp.where(low, rate_low, jnp.where(high, rate_high, rate_w))
        return {
            **{k: m[k] for k in ("prev_rtt", "rtt_diff", "grad", "seg_acked")},
            "cwnd": s["cwnd"],
            "rate": jnp.where(m["done"], clip_rate(new, p), rate).astype(FLOAT),
            "neg_count": s["neg_count"],
        }
