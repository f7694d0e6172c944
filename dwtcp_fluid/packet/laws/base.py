"""The window-law interface shared by every law module (adding a law = adding a file in this package).

A law is a frozen, hashable dataclass: its fields are *static* options (interpretations of an ambiguous line of a
paper, compiled into the kernel), while numeric gains live in a ``params`` mapping of scalars that may differ per
scenario under ``vmap``. Each law acts on per-flow state vectors of shape ``[N]`` and is called once per slot with
the :class:`Events` of that slot. The engine guarantees at most one data ACK per flow per slot (one bottleneck
departure per slot, fixed return delay per flow), so calling :meth:`Law.step` once per slot *is* the per-ACK law.

Units: windows in packets, time in slots (one slot = one data packet's transmission time L/C at the bottleneck).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import jax.numpy as jnp

__all__ = ["Events", "Law", "FLOAT", "INT", "window_closed", "reno_increase", "window_init"]

#: Floating dtype of window-law state. float32 halves memory traffic; per-ACK increments (≥ 1/W_max ≈ 1e-3)
#: stay far above float32 resolution for windows below ~10⁴ packets.
FLOAT = jnp.float32
INT = jnp.int32


class Events(NamedTuple):
    """What one slot brings to each flow's sender; every field has shape ``[N]`` except ``t``.

    Attributes
    ----------
    t : int
        The slot index (slots since the start of the run).
    ack : bool
        A data ACK arrived.
    mark : bool
        That ACK echoes an ECN mark (ECE).
    nloss : int
        Data losses signalled with this ACK (detected at the first later delivery of the flow, SACK-like).
    timeout : bool
        The retransmission timer fired (every outstanding packet of the flow was lost).
    snd_nxt : int
        Packets sent so far (cumulative, before this slot's sends).
    snd_una : int
        Packets acknowledged or known lost so far (cumulative, including this slot's ACK and losses).
    scout_ok : int
        Scout ACKs received within the target delay d_t in this slot.
    scout_lost : int
        Scouts declared lost in this slot (dropped, or older than d_t without an ACK).
    d_s : float
        Scout delay d_s in slots, Algorithm 1 line 18 with the sign fixed (equations.md DWTCP note).
    ipg_s : float
        Scout inter-arrival gap in slots (for DWTCP's inter-packet-gap variant).
    rtt : float
        Base RTT of the flow in slots (Algorithm 1's T, "physical hardware RTT").
    active : bool
        The flow is between its start and stop slot.
    """

    t: Any
    ack: Any
    mark: Any
    nloss: Any
    timeout: Any
    snd_nxt: Any
    snd_una: Any
    scout_ok: Any
    scout_lost: Any
    d_s: Any
    ipg_s: Any
    rtt: Any
    active: Any


@dataclass(frozen=True)
class Law:
    """Base class of window laws. Subclasses set ``name``, ``uses_scouts``, ``has_alpha`` and implement
    :meth:`default_params`, :meth:`init` and :meth:`step`."""

    name: ClassVar[str] = "law"
    #: The engine sends and serves Scouts for this law (DWTCP).
    uses_scouts: ClassVar[bool] = False
    #: The law carries a DCTCP-style congestion estimate ``alpha`` in [0, 1] (reported as ``alpha_mean``).
    has_alpha: ClassVar[bool] = False

    def default_params(self, **context: Any) -> dict[str, float]:
        """Numeric parameters (floats) for one scenario; ``context`` may hold ``dctcp``/``dwtcp`` parameter objects."""
        raise NotImplementedError

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        """Initial per-flow state, a dict of ``[n]`` arrays that contains at least ``"cwnd"`` (packets)."""
        raise NotImplementedError

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        """One slot of the law for all flows: returns the new state."""
        raise NotImplementedError


def window_init(p: Mapping[str, Any], n: int, ssthresh_inf: float) -> dict[str, Any]:
    """The state every window law starts from: ``init_cwnd`` packets, no ssthresh yet, no window to recover."""
    return {
        "cwnd": jnp.full(n, p["init_cwnd"], FLOAT),
        "ssthresh": jnp.full(n, ssthresh_inf, FLOAT),
        "recover": jnp.zeros(n, INT),
    }


def window_closed(snd_una: Any, recover: Any) -> Any:
    """True once every packet sent before the last reaction has been acknowledged (one reaction per window)."""
    return snd_una >= recover


def reno_increase(cwnd: Any, ssthresh: Any, ack: Any) -> Any:
    """Reno/NewReno increase on one data ACK: +1 packet in slow start (cwnd < ssthresh), +1/cwnd otherwise.

    This is the standard per-ACK form of "+1 packet per RTT" (RFC 5681) and the default reading of DWTCP's data
    ACK increase (equations.md, DWTCP note 1).
    """
    inc = jnp.where(cwnd < ssthresh, 1.0, 1.0 / cwnd)
    return jnp.where(ack, cwnd + inc, cwnd)
