"""The bottleneck switch: strict-priority data/Scout queues, drop-tail buffers, step ECN marking, service slots.

* High priority: data packets, buffer ``buffer`` packets, drop-tail; step marking against K at enqueue (by the
  packets an arrival finds ahead of it) or at dequeue (by the occupancy at service, the departing packet
  included), with "≥ K" or "> K" folded into one integer threshold (:func:`mark_threshold`).
* RED-like marking instead of the step (feature ``"red"``, [DCQCN]'s CP): an arrival (or a departure) is marked
  with probability :func:`red_probability` of the same queue, between K_min = K and K_max, by a seeded draw.
* Low priority: Scouts (64 bytes), buffer ``scout_buffer``, served only in a service slot in which the data queue
  is empty; such a slot serves every queued Scout (the buffer holds at most one slot's worth).

Order inside a slot: arrivals are enqueued first (simultaneous senders in a seeded rotating order, so no flow is
always last when the buffer overflows), then one slot of service. A packet arriving at an empty queue is served
in the slot it arrives (zero queueing delay).

**The FIFO is a counter.** One data packet leaves per service slot, so an arrival that finds ``seen`` packets
ahead of it leaves at the ``seen + 1``-th service slot from now; the engine files the packet in a departure ring
at that slot when it is accepted, and the queue itself is just ``qlen``. At constant capacity every slot is a
service slot (departure at ``t + seen``). With a time-varying capacity (:func:`departure_slot`) the service slots
are the slots in which a transmission at the current rate completes: a link at a fraction r of the highest rate
completes one packet every 1/r slots on a fixed grid from the start of each capacity segment. (A real link that
was idle starts a packet as it arrives; on the grid it may finish up to one packet time at the current rate
earlier. At the highest rate the two agree.)
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp

from .laws.base import FLOAT, INT

__all__ = [
    "mark_threshold",
    "red_probability",
    "service_count",
    "is_service_slot",
    "departure_slot",
    "hash32",
    "uniform",
    "CAP_SCALE",
]

#: Capacities of a schedule are integers in units of 1/CAP_SCALE of the highest rate.
CAP_SCALE = 1000


def mark_threshold(K: float, cmp: str) -> int:
    """The step marker as an integer threshold on a queue length q: mark when q ≥ result.

    "ge": q ≥ K ⟺ q ≥ ceil(K); "gt": q > K ⟺ q ≥ floor(K) + 1 (q is an integer).
    """
    if cmp not in ("ge", "gt"):
        raise ValueError(f"mark_cmp={cmp!r} is invalid: accepted 'ge' or 'gt'")
    return int(math.ceil(K)) if cmp == "ge" else int(math.floor(K)) + 1


def red_probability(q: Any, kmin: Any, kmax: Any, pmax: Any) -> Any:
    """RED-like marking probability of a queue of ``q`` packets ([DCQCN] eq. (1), the CP): 0 for q ≤ K_min,
    P_max·(q − K_min)/(K_max − K_min) for K_min < q ≤ K_max, 1 above K_max. The step marker is the limit
    K_max → K_min; a draw below the probability marks (:func:`uniform`, keyed by seed, slot and flow)."""
    qf = jnp.asarray(q).astype(FLOAT)
    ramp = pmax * (qf - kmin) / jnp.maximum(kmax - kmin, 1e-6)
    return jnp.where(qf > kmax, 1.0, jnp.where(qf > kmin, ramp, 0.0)).astype(FLOAT)


def _segment(edges: Any, x: Any) -> Any:
    """Index of the last segment whose edge ≤ x (edges[0] ≤ x; padding edges are huge)."""
    return jnp.sum((edges[1:] <= x).astype(INT))


def service_count(t: Any, cap_start: Any, cap_rate: Any, cap_opp: Any) -> Any:
    """Service slots before slot ``t``: O(t) = cap_opp[g] + floor((t − cap_start[g])·rate_g / CAP_SCALE), computed
    as ⌊d/S⌋·rate + ⌊(d mod S)·rate/S⌋ (d = t − cap_start[g], S = CAP_SCALE) so that no int32 product overflows
    (d·rate would beyond 2³¹/S ≈ 2.1·10⁶ slots)."""
    g = _segment(cap_start, t)
    d, r = t - cap_start[g], cap_rate[g]
    return cap_opp[g] + (d // CAP_SCALE) * r + ((d % CAP_SCALE) * r) // CAP_SCALE


def is_service_slot(t: Any, cap_start: Any, cap_rate: Any, cap_opp: Any) -> Any:
    """A transmission completes in slot ``t``: O(t + 1) > O(t)."""
    return service_count(t + 1, cap_start, cap_rate, cap_opp) > service_count(t, cap_start, cap_rate, cap_opp)


def departure_slot(t: Any, seen: Any, cap_start: Any, cap_rate: Any, cap_opp: Any) -> Any:
    """Slot of the ``seen + 1``-th service slot at or after ``t``: the departure of a packet accepted in slot
    ``t`` behind ``seen`` packets. Smallest s with O(s + 1) ≥ n* = O(t) + seen + 1: in the segment g holding the
    n*-th service slot, s = cap_start[g] − 1 + ceil(m·CAP_SCALE / rate_g), m = n* − cap_opp[g] (computed as
    ⌊m/rate⌋·S + ceil((m mod rate)·S/rate), with no int32 overflow)."""
    n = service_count(t, cap_start, cap_rate, cap_opp) + seen + 1
    g = jnp.sum((cap_opp[1:] < n).astype(INT))
    m = n - cap_opp[g]
    r = cap_rate[g]
    return cap_start[g] - 1 + (m // r) * CAP_SCALE + ((m % r) * CAP_SCALE + r - 1) // r


def hash32(*xs: Any) -> Any:
    """A well-mixed uint32 of integer inputs (murmur3 finalizer over a multiplicative combination): the packet
    core's only source of randomness, so every draw is a pure function of (seed, slot, purpose)."""
    h = jnp.uint32(0x9E3779B9)
    for x in xs:
        h = (h ^ jnp.asarray(x).astype(jnp.uint32)) * jnp.uint32(0x85EBCA6B)
        h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def uniform(*xs: Any) -> Any:
    """A uniform float32 in [0, 1) keyed by the integers ``xs`` (24 random bits)."""
    return (hash32(*xs) >> 8).astype(FLOAT) * jnp.float32(1.0 / (1 << 24))
