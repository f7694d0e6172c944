"""D2TCP: DCTCP whose cut is scaled by the flow's deadline imminence, [D2TCP] §3.2.

The penalty is p = α^d ([D2TCP] eq. (1), the gamma correction) and the window update W ← W(1 − p/2) on a marked
window, W + 1 per RTT otherwise ([D2TCP] eq. (2)); α is DCTCP's estimate. The deadline imminence d = T_c/D, with
T_c = B/(3W/4) RTTs the time the remaining B packets need at the sawtooth's mean window 3W/4 ([D2TCP] §3.2.3) and
D the time left until the deadline, clipped to [d_min, d_max] = [0.5, 2]; a flow without a deadline has d = 1 and
behaves exactly as DCTCP.

[D2TCP] gives the target W(1 − p/2), not how the window reaches it; its implementation is built on the public DCTCP
kernel source ([D2TCP] §4.1.1), so the sender rule is DCTCP's (``reduction``, :mod:`.recovery`): by default Linux's CWR with
proportional rate reduction toward max(W(1 − p/2), 2), p taken at the ACK that enters CWR.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, NEVER, Events, LawOption
from .dctcp import G_OPTION, Dctcp
from .registry import register_law

__all__ = ["D2tcp", "completion_time", "imminence", "gamma_penalty"]


def completion_time(remaining: Any, cwnd: Any, rtt: Any) -> Any:
    """T_c = B / (3W/4) RTTs, [D2TCP] §3.2.3: slots to send ``remaining`` packets at the mean window 3W/4 of the
    sawtooth (``rtt`` in slots, ``cwnd`` and ``remaining`` in packets)."""
    return jnp.asarray(remaining, FLOAT) / (0.75 * jnp.asarray(cwnd, FLOAT)) * jnp.asarray(rtt, FLOAT)


def imminence(
    remaining: Any,
    cwnd: Any,
    rtt: Any,
    time_left: Any,
    d_min: Any = 0.5,
    d_max: Any = 2.0,
    has_deadline: Any = True,
) -> Any:
    """Deadline imminence d = T_c / D clipped to [d_min, d_max], [D2TCP] §3.2.3; 1 without a deadline.

    ``time_left`` is D in slots; a deadline already passed (D ≤ 0) is as imminent as allowed (d_max).
    """
    tc = completion_time(remaining, cwnd, rtt)
    D = jnp.asarray(time_left, FLOAT)
    d = jnp.where(D > 0, tc / jnp.where(D > 0, D, 1.0), d_max)
    return jnp.where(has_deadline, jnp.clip(d, d_min, d_max), 1.0).astype(FLOAT)


def gamma_penalty(alpha: Any, d: Any) -> Any:
    """p = α^d, [D2TCP] eq. (1); exactly α at d = 1 (the power is not evaluated there, so DCTCP is reproduced
    bit for bit)."""
    alpha = jnp.asarray(alpha, FLOAT)
    return jnp.where(d == 1.0, alpha, jnp.power(alpha, d)).astype(FLOAT)


@register_law
@dataclass(frozen=True)
class D2tcp(Dctcp):
    """D2TCP, [D2TCP] eqs. (1)-(2): DCTCP with the cut W ← W(1 − α^d/2), d from the flow's deadline.

    The flow's size and deadline come with every event (``ev.size``, ``ev.deadline``, set by ``build(sizes=...,
    deadlines=...)``); remaining B = size − snd_una. ``d_min``/``d_max`` are [D2TCP]'s caps (0.5, 2).
    """

    name: ClassVar[str] = "d2tcp"
    options: ClassVar[tuple[LawOption, ...]] = (
        G_OPTION,
        LawOption(
            "--d-min",
            "D2TCP lower cap of the imminence d, 0 < d_min ≤ 1.",
            0.5,
            param="d_min",
            lo=0.0,
            hi=1.0,
            lo_open=True,
        ),
        LawOption(
            "--d-max", "D2TCP upper cap of the imminence d, d_max ≥ 1.", 2.0, param="d_max", lo=1.0, hi=100.0
        ),
    )

    def default_params(self, **context: Any) -> dict[str, float]:
        """DCTCP's parameters and the caps ``d_min`` = 0.5, ``d_max`` = 2 ([D2TCP] §4.1.1)."""
        return {**super().default_params(**context), "d_min": 0.5, "d_max": 2.0}

    def penalty(self, alpha: Any, cwnd: Any, ev: Events, p: Mapping[str, Any]) -> Any:
        """p = α^d with d = imminence(B, W, RTT, D) at this event, [D2TCP] eq. (1)."""
        has = (jnp.asarray(ev.deadline) < NEVER) & (jnp.asarray(ev.size) < 2**30)
        remaining = jnp.maximum(jnp.asarray(ev.size) - jnp.asarray(ev.snd_una), 0)
        time_left = jnp.asarray(ev.deadline).astype(FLOAT) - jnp.asarray(ev.t).astype(FLOAT)
        d = imminence(remaining, cwnd, ev.rtt, time_left, p["d_min"], p["d_max"], has)
        return gamma_penalty(alpha, d)
