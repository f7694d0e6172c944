"""Impairments of the path, as the per-scenario arrays of :class:`~.state.Scenario` ([DCTCP-WAN], [DWTCP]).

* ACK-path jitter: every ACK (and Scout ACK) is delayed by a seeded draw from a distribution — uniform on
  [0, jitter], exponential with mean ``jitter``, or any distribution given by its quantiles — with reordering of
  one flow's ACKs allowed or not. [DCTCP-WAN] adds 200 µs of jitter in the data center and 2 ms on a 20 ms WAN path.
* Random data loss with probability p on the link after the bottleneck ([DCTCP-WAN]: 0.1 %): the packet uses its
  service slot, never reaches the receiver, and the flow's next delivered packet reports it (SACK-like).
* Delayed ACKs: one ACK per m packets, or ``timeout`` after the first unacknowledged one, with DCTCP's two-state
  receiver (a change of CE state acknowledges the held packets at once, with the old ECE).
* Time-varying bottleneck capacity: a schedule of (start time, rate) segments, rates up to the link's capacity
  (which defines the slot); [DWTCP] Fig. 16 varies the rate every 0.1 s as 0.4, 0.7, 1, 10, 0.8 Gbps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..units import parse_time, rate_to_pps
from .state import NEVER, pow2
from .switch import CAP_SCALE

__all__ = ["JITTER_POINTS", "jitter_table", "capacity_schedule", "FIG16_SCHEDULE"]

#: Quantiles in a jitter table.
JITTER_POINTS = 256
#: [DWTCP] Fig. 16: the bottleneck's rate every 0.1 s.
FIG16_SCHEDULE = (
    ("0s", "0.4Gbps"),
    ("100ms", "0.7Gbps"),
    ("200ms", "1Gbps"),
    ("300ms", "10Gbps"),
    ("400ms", "0.8Gbps"),
)
# longest schedule segment in slots at the highest rate: (t − start)·rate/1000 must fit in int32
_MAX_SEGMENT = (2**31 - 1) // CAP_SCALE


def _seconds(v: Any) -> float:
    return parse_time(v) if isinstance(v, str) else float(v)


def jitter_table(jitter: Any, dist: str | Sequence[Any] = "uniform", slot: float = 1.0) -> np.ndarray:
    """The jitter distribution as ``JITTER_POINTS`` quantiles in slots (zeros: no jitter).

    Parameters
    ----------
    jitter : time
        Uniform: the largest delay (uniform on [0, jitter]); exponential: the mean. Ignored for a sequence.
    dist : {"uniform", "exponential"} or sequence of times
        The distribution; a sequence is an empirical distribution (its sample quantiles are used).
    slot : float
        Slot length in seconds.
    """
    q = (np.arange(JITTER_POINTS) + 0.5) / JITTER_POINTS
    if isinstance(dist, str):
        j = _seconds(jitter) if jitter is not None else 0.0
        if not np.isfinite(j) or j < 0:
            raise ValueError(f"jitter={jitter!r} is out of range: accepted a time ≥ 0")
        if dist == "uniform":
            vals = q * j
        elif dist == "exponential":
            vals = -np.log1p(-q) * j
        else:
            raise ValueError(f"jitter_dist={dist!r} is invalid: accepted 'uniform', 'exponential' or samples")
    else:
        samples = np.asarray([_seconds(v) for v in dist], float)
        if samples.size == 0 or np.any(~np.isfinite(samples)) or np.any(samples < 0):
            raise ValueError("jitter_dist samples are invalid: accepted a non-empty sequence of times ≥ 0")
        vals = np.quantile(samples, q)
    return (vals / slot).astype(np.float32)


def capacity_schedule(
    schedule: Sequence[tuple[Any, Any]] | None, capacity_pps: float, packet_size: float, n_slots: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(cap_start, cap_rate, cap_opp)`` for a schedule of ``(start time, rate)`` pairs (rates as "0.4Gbps" or
    "833333pps", or a float in packets/s), first start 0; rates may not exceed the link's capacity, which defines
    the slot. Rates are kept in units of 1/1000 of the highest rate (≥ 1); long segments are split so that the
    integer service counts stay exact; the arrays are padded to a power of two with segments that never begin.
    """
    if not schedule:
        return np.zeros(1, np.int32), np.full(1, CAP_SCALE, np.int32), np.zeros(1, np.int32)
    slot = 1.0 / capacity_pps
    starts: list[int] = []
    rates: list[int] = []
    for i, (ts, r) in enumerate(schedule):
        t = _seconds(ts)
        pps = rate_to_pps(r, packet_size) if isinstance(r, str) else float(r)
        if i == 0 and t != 0:
            raise ValueError(f"capacity_schedule starts at {ts!r}: accepted a first segment starting at 0")
        if i and int(round(t / slot)) <= starts[-1]:
            raise ValueError(f"capacity_schedule time {ts!r} is invalid: accepted increasing times")
        if not (0 < pps <= capacity_pps * (1 + 1e-9)):
            raise ValueError(
                f"capacity_schedule rate {r!r} is out of range: accepted 0 < rate ≤ the link capacity "
                f"({capacity_pps:.6g} packets/s)"
            )
        starts.append(int(round(t / slot)))
        rates.append(max(1, int(round(pps / capacity_pps * CAP_SCALE))))
    # split segments longer than _MAX_SEGMENT slots (the last one runs to the end of the run)
    bounds = starts + [max(n_slots, starts[-1]) + 1]
    s_out, r_out = [], []
    for a, b, r in zip(bounds[:-1], bounds[1:], rates, strict=True):
        for s in range(a, b, _MAX_SEGMENT):
            s_out.append(s)
            r_out.append(r)
    opp = [0]
    for i in range(1, len(s_out)):
        opp.append(opp[-1] + (s_out[i] - s_out[i - 1]) * r_out[i - 1] // CAP_SCALE)
    g = pow2(len(s_out))
    pad = g - len(s_out)
    return (
        np.asarray(s_out + [NEVER] * pad, np.int32),
        np.asarray(r_out + [CAP_SCALE] * pad, np.int32),
        np.asarray(opp + [NEVER] * pad, np.int32),
    )
