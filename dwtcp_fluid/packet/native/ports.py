# mypy: ignore-errors
# (Numba-compiled code: the stubs do not type intrinsics and decorator options)
"""Routed ports in the native loop (feature ``"ports"``, :mod:`..ports`): the port of a flow's route, a port's
fractional service grid and departure slot (:func:`..switch.is_service_slot`, :func:`..switch.departure_slot` on
one segment from slot 0), drop-tail enqueue with step marking (:func:`..ports.enqueue`), a Scout joining a port's
Scout queue (:func:`..ports.put_scout`, :func:`..events._scout_send`) and an idle service slot serving it
(:func:`..ports._serve_scouts`), in the reference's integer operations.

**State.** Each port ``p`` keeps its queue ``pq[p]``, its departure ring ``pdep`` (rows of :data:`PE` ints at
``(p·Rd + slot mod Rd)·PE``: flow, ECN mark so far, losses reported, send slot, hop index), its Scout queue
``psq`` (:data:`SE` ints per Scout at ``(p·Sc + i)·SE``: flow, Scout number, hop index; ``psqn[p]`` queued) and the
chunk's drops ``pdrops[p]``. The port parameters are ``pp``: rates (per mille of the slot rate), then data
buffers, then marking thresholds, ``P`` of each; a route is ``route[f·H + hop]``.
"""

from __future__ import annotations

from typing import Any

from numba import njit

from .core import JIT, NS, SCOUTS, SDROPPED, SSENT, START, active

__all__ = ["PE", "SE", "port_of", "service_slot", "port_enqueue", "put_scout", "port_scout_send"]

#: Port departure ring entry: flow, ECN mark so far, losses reported, send slot, hop index (:data:`..ports.PE`).
PE = 5
#: Port Scout queue entry: flow, Scout number, hop index (:data:`..ports.SE`).
SE = 3
_SCALE = 1000  # :data:`..switch.CAP_SCALE`


@njit(**JIT)
def port_of(route: Any, H: int, f: int, hop: int) -> int:
    """:func:`..ports.port_of`: the port at position ``hop`` of flow ``f``'s route (-1 past its end)."""
    return route[f * H + hop] if hop < H else -1


@njit(**JIT)
def _count(t: int, r: int) -> int:
    """:func:`..switch.service_count` of one segment from slot 0 at rate ``r``: service slots before ``t``."""
    return (t // _SCALE) * r + ((t % _SCALE) * r) // _SCALE


@njit(**JIT)
def service_slot(t: int, r: int) -> bool:
    """:func:`..switch.is_service_slot`: a transmission of a port at rate ``r`` completes in slot ``t`` (every
    slot at the highest rate)."""
    return r == _SCALE or _count(t + 1, r) > _count(t, r)


@njit(**JIT)
def port_enqueue(
    pq: Any, pdep: Any, pdrops: Any, pp: Any, P: int, Rd: int, p: int, t: int,
    f: int, mark0: int, nloss: int, sent: int, hop: int,
) -> bool:  # fmt: skip
    """:func:`..ports.enqueue` of a data packet (flow ``f``, ECN mark so far ``mark0``, ``nloss`` losses
    reported, sent in slot ``sent``, at position ``hop`` of its route) offered to port ``p`` in slot ``t``:
    drop-tail against the port's buffer, a step mark when it finds at least the port's threshold ahead, filed at
    its departure slot. Returns whether the port accepted it (a drop is counted in ``pdrops``)."""
    seen = pq[p]
    if seen >= pp[P + p]:
        pdrops[p] += 1
        return False
    r = pp[p]
    if r == _SCALE:  # the highest rate: every slot serves
        dslot = t + seen
    else:
        n = _count(t, r) + seen + 1
        dslot = -1 + (n // r) * _SCALE + ((n % r) * _SCALE + r - 1) // r
    o = (p * Rd + (dslot & (Rd - 1))) * PE
    pdep[o], pdep[o + 1] = f, mark0 | (1 if seen >= pp[2 * P + p] else 0)
    pdep[o + 2], pdep[o + 3], pdep[o + 4] = nloss, sent, hop
    pq[p] = seen + 1
    return True


@njit(**JIT)
def put_scout(psq: Any, psqn: Any, cnt: Any, sbuf: int, Sc: int, p: int, f: int, seq: int, hop: int) -> None:
    """:func:`..ports.put_scout`: Scout ``seq`` of flow ``f`` joins port ``p``'s Scout queue (drop-tail at
    ``sbuf``)."""
    n = psqn[p]
    if n < sbuf:
        o = (p * Sc + n) * SE
        psq[o], psq[o + 1], psq[o + 2] = f, seq, hop
        psqn[p] = n + 1
    else:
        cnt[SDROPPED] += 1


@njit(**JIT)
def port_scout_send(
    S: Any, cnt: Any, psq: Any, psqn: Any, sbuf: int, Sc: int, route: Any, H: int, f: int, t: int
) -> None:
    """:func:`..events._scout_send` with routed ports: flow ``f`` sends Scout ``s_sent`` in its slot start + s·P
    into the Scout queue of the first port of its route."""
    if (
        S[f * NS + SCOUTS] != 0
        and active(S, f, t)
        and t == S[f * NS + START] + S[f * NS + SSENT] * S[f * NS + SCOUTS]
    ):
        put_scout(psq, psqn, cnt, sbuf, Sc, route[f * H], f, S[f * NS + SSENT], 0)
        S[f * NS + SSENT] += 1
