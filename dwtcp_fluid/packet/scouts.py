"""Sender-side Scout bookkeeping for DWTCP (section 3.3 and Algorithm 1 of [DWTCP]).

Each Scout-using flow sends one 64-byte Scout per Scout period P_f, from its start slot on, so Scout ``s`` of flow f
leaves at ``start_f + s·P_f``: the send time follows from the sequence number and needs no per-Scout storage. P_f is
the base RTT divided by the Scout injection rate x of [DWTCP] §3.3 (Scouts per base RTT, default 1: one Scout per
RTT), rounded to whole slots (:func:`scout_period`). The receiver reflects every Scout; Scout ACKs return in order
(FIFO low-priority queue, fixed return delay).

Per flow the sender keeps: Scouts sent, the oldest Scout not yet acknowledged (for d_s), the oldest Scout not yet
classified (acknowledged in time or lost), the last Scout's delay (rcvTime − sendTime, line 18 with the sign fixed)
and the gap between the last two Scout ACK arrivals (for the inter-packet-gap variant).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .laws.base import FLOAT, INT

__all__ = ["scout_due", "scout_period", "scout_receive"]


def scout_period(rtt: Any, rate: Any) -> Any:
    """The Scout period in slots (int64) of flows with base RTT ``rtt`` (slots) sending ``rate`` Scouts per base RTT
    ([DWTCP] §3.3's injection rate x): rtt/x rounded to the nearest slot, at least one slot (at most one Scout per
    flow per slot). x = 1 gives the base RTT exactly."""
    import numpy as np

    return np.maximum(np.rint(np.asarray(rtt, np.float64) / np.asarray(rate, np.float64)), 1).astype(np.int64)


def scout_due(t: Any, start: Any, period: Any, live: Any) -> Any:
    """Flows that send a Scout in slot ``t``: one per Scout period from the start slot, while ``live``."""
    return live & (t >= start) & (jnp.mod(t - start, period) == 0)


def scout_receive(
    st: dict[str, Any], t: Any, cnt: Any, seqp1: Any, start: Any, period: Any, d_t: Any
) -> tuple:
    """Process this slot's Scout ACKs and Scout timeouts; return the new bookkeeping and the law's inputs.

    Parameters
    ----------
    st : dict
        ``sent``, ``unacked``, ``lost_upto`` (int [N]), ``last_delay``, ``last_gap`` (float [N], slots),
        ``last_rcv`` (int [N], slot).
    period : int [N]
        Scout period in slots (Scout ``s`` left at ``start + s·period``).
    cnt, seqp1 : int [N]
        Scout ACKs arriving now per flow and 1 + the largest sequence number among them (0 if none).
    d_t : float [N]
        Target Scout delay in slots.

    Returns
    -------
    st, n_ok, n_lost, d_s, ipg_s
        ``n_ok`` Scout ACKs within d_t, ``n_lost`` Scouts declared lost (skipped in the ACK stream, late, or older
        than d_t without an ACK), the Scout delay d_s = max(last delay, now − oldest unacked send) and the Scout
        gap ipg_s = max(last gap, now − last Scout ACK arrival), both in slots.
    """
    sent, unacked, lost_upto = st["sent"], st["unacked"], st["lost_upto"]
    got = cnt > 0
    s = seqp1 - 1
    delay = (t - (start + s * period)).astype(FLOAT)
    fresh = got & (s >= lost_upto)
    span = s - lost_upto + 1  # Scouts lost_upto..s are classified now
    in_time = fresh & (delay <= d_t)
    n_ok = jnp.where(in_time, jnp.minimum(cnt, span), 0)
    n_lost = jnp.where(fresh, span, 0) - n_ok
    lost_upto = jnp.where(fresh, s + 1, lost_upto)
    unacked = jnp.where(got, jnp.maximum(unacked, s + 1), unacked)
    last_delay = jnp.where(got, delay, st["last_delay"])
    last_gap = jnp.where(got, (t - st["last_rcv"]).astype(FLOAT), st["last_gap"])
    last_rcv = jnp.where(got, t, st["last_rcv"])
    # Timeout: the oldest unclassified Scout is older than d_t (sends are ≥ 1 slot apart: at most one per slot).
    pending = lost_upto < sent
    timed_out = pending & ((t - (start + lost_upto * period)).astype(FLOAT) > d_t)
    n_lost = n_lost + timed_out.astype(INT)
    lost_upto = lost_upto + timed_out.astype(INT)
    waiting = jnp.where(unacked < sent, (t - (start + unacked * period)).astype(FLOAT), 0.0)
    d_s = jnp.maximum(last_delay, waiting)
    ipg_s = jnp.maximum(last_gap, (t - last_rcv).astype(FLOAT))
    new = {
        "sent": sent,
        "unacked": unacked,
        "lost_upto": lost_upto,
        "last_delay": last_delay,
        "last_gap": last_gap,
        "last_rcv": last_rcv,
    }
    return new, n_ok, n_lost, d_s, ipg_s
