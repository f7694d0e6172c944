"""Per-flow state of the packet core: one packed int32 row per flow, read and written one flow at a time.

The engine keeps every flow's state (its own fields and its law's) in one ``[N·S]`` int32 array: float fields
are stored bit-cast, so one slice reads a flow and one update writes it back, whatever the number of flows.
Reads go through a ``lax.cond`` so that XLA materialises the slice before the array is updated in place (a plain
slice is fused into its consumers, which may then run after the update and force a copy of the whole array per
slot). The same holds for every ring the engine updates in place (:func:`rd`, :func:`wr`).

A flow is handled as a dict of scalars (engine fields by name, law fields as ``L0``, ``L1``, ...), and its
read-only inputs (RTT, start, stop, size, law index, Scout settings, deadline slot) as another dict (:func:`inputs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .laws.base import FLOAT, INT, NEVER, Events
from .state import EngineSpec

__all__ = ["Layout", "rd", "wr", "f2i", "i2f", "IN_READY", "STARTED", "FIN_COLS"]

# flag bits of the "flags" field
IN_READY, STARTED = 1, 2

#: Read-only per-flow inputs, in the order of the ``fin`` array (SDT is a float, bit-cast; ``lead``: the flow whose
#: Scout stream the flow reads, itself unless per-datapath Scouts share its host pair's stream).
FIN_COLS = ("rtt", "start", "stop", "size", "law", "scouts", "deadline", "lead", "sdt")

# Engine fields: (name, is_float). Cumulative counters feed the records; the integrals feed time averages.
_BASE = (
    ("infl", False),  # packets sent and not yet acknowledged or declared lost
    ("nxt", False),  # packets sent (snd_nxt)
    ("una", False),  # packets acknowledged or declared lost (snd_una)
    ("acked", False),  # packets delivered (acknowledged)
    ("pend", False),  # drops at the switch not yet reported by a later accepted packet
    ("last", False),  # slot of the last ACK, or of the send that armed the retransmission timer
    ("wake", False),  # slot of the flow's live timer-wheel entry (NEVER: none)
    ("flags", False),
    ("ns_int", False),  # pacing: next slot the flow may send (integer part)
    ("ns_frac", True),  # ... and its fractional part
    ("cwnd", True),  # mirrors of the law's window, rate and traced field
    ("rate", True),
    ("aux", True),
    ("cw_int", True),  # ∫ cwnd over active slots since t_int
    ("aux_int", True),
    ("t_int", False),
    ("drops", False),
    ("tmo", False),
    ("finish", False),  # slot the last packet of the flow was acknowledged (NEVER: not finished)
)
_SCOUT = (
    ("s_sent", False),  # Scouts sent (Scout s leaves at start + s·rtt)
    ("s_unacked", False),  # oldest Scout not yet acknowledged
    ("s_lostupto", False),  # oldest Scout not yet classified (acknowledged in time, or lost)
    ("s_lastdelay", True),
    ("s_lastgap", True),
    ("s_lastrcv", False),
)
_PATHS = (  # per-datapath Scouts ([DWTCP] §3.3): a stream's Scout ACKs and losses, and a reader's share of them
    ("s_okc", False),  # the flow's own Scout ACKs within d_t, cumulative (a stream's leader)
    ("s_lostc", False),  # the flow's own Scouts declared lost, cumulative
    ("s_okseen", False),  # the leader's Scout ACKs this flow has taken (a member of the pair)
    ("s_lostseen", False),  # the leader's lost Scouts this flow has taken
)
_RECEIVER = (
    ("r_loss", False),  # data packets lost after the bottleneck, not yet reported
    ("r_cnt", False),  # packets held by the delayed-ACK receiver
    ("r_ce", False),  # CE state of the held packets (DCTCP's two-state receiver)
    ("r_nloss", False),  # losses the held packets report
    ("r_dl", False),  # delayed-ACK deadline
    ("r_sent", False),  # send slot of the last held packet (RTT sample)
    ("r_last", False),  # arrival slot of the flow's last ACK (jitter without reordering)
)

_RTX = (  # lost retransmissions recovered by the timer only (a law's ``lost_retransmit="rto"``)
    ("rtx_owed", False),  # reported losses whose stand-in retransmission is not yet sent
    ("rtx_holes", False),  # stand-ins dropped: not reported, in flight until the timeout
    ("rtx_dl", False),  # slot of the timeout a dropped stand-in arms (NEVER: none)
    ("rtx_ghost", False),  # slot of the last timeout: ACKs of packets sent before it only count as deliveries
)


def f2i(x: Any) -> Any:
    """float32 → its int32 bits."""
    return lax.bitcast_convert_type(jnp.asarray(x, FLOAT), INT)


def i2f(x: Any) -> Any:
    """int32 bits → float32."""
    return lax.bitcast_convert_type(jnp.asarray(x, INT), FLOAT)


def rd(x: Any, off: Any, size: int) -> Any:
    """``x[off : off + size]`` of a carried 1-D array, materialised before any later in-place update of ``x``."""
    off = jnp.asarray(off, INT)
    return lax.cond(
        off >= 0,
        lambda: lax.dynamic_slice(x, (off,), (size,)),
        lambda: jnp.zeros((size,), x.dtype),
    )


def wr(x: Any, off: Any, val: Any) -> Any:
    """``x[off : off + len(val)] = val`` in place."""
    return lax.dynamic_update_slice(x, jnp.asarray(val, x.dtype), (jnp.asarray(off, INT),))


class Layout:
    """Column layout of the packed flow state for one :class:`~.state.EngineSpec`."""

    def __init__(self, spec: EngineSpec) -> None:
        fields = list(_BASE)
        if spec.has("scouts"):
            fields += list(_SCOUT)
        if spec.has("paths"):
            fields += list(_PATHS)
        if spec.has("loss") or spec.has("delack") or spec.has("jitter"):
            fields += list(_RECEIVER)
        if spec.has("rtx"):
            fields += list(_RTX)
        self.law_fields: list[list[tuple[str, bool]]] = []
        width = 0
        for law in spec.laws:
            st = _law_state_dtypes(law)
            self.law_fields.append(st)
            width = max(width, len(st))
        fields += [(f"L{i}", False) for i in range(width)]
        self.fields = tuple(fields)
        self.index = {name: i for i, (name, _) in enumerate(fields)}
        self.is_float = {name: fl for name, fl in fields}
        self.S = len(fields)

    def unpack(self, row: Any) -> dict[str, Any]:
        """A flow's row → dict of scalars (floats decoded)."""
        return {n: (i2f(row[i]) if fl else row[i]) for i, (n, fl) in enumerate(self.fields)}

    def pack(self, F: Mapping[str, Any]) -> Any:
        """Dict of scalars → the flow's row."""
        return jnp.stack([f2i(F[n]) if fl else jnp.asarray(F[n], INT) for n, fl in self.fields])

    def read(self, fs: Any, f: Any) -> dict[str, Any]:
        return self.unpack(rd(fs, f * self.S, self.S))

    def write(self, fs: Any, f: Any, F: Mapping[str, Any]) -> Any:
        return wr(fs, f * self.S, self.pack(F))

    def law_state(self, k: int, F: Mapping[str, Any]) -> dict[str, Any]:
        """Law ``k``'s state from the law columns of ``F`` (decoded with law ``k``'s dtypes)."""
        return {n: (i2f(F[f"L{i}"]) if fl else F[f"L{i}"]) for i, (n, fl) in enumerate(self.law_fields[k])}

    def with_law_state(self, k: int, F: Mapping[str, Any], s: Mapping[str, Any]) -> dict[str, Any]:
        """``F`` with law ``k``'s state ``s`` stored in the law columns (bit patterns as int32)."""
        out = dict(F)
        for i, (n, fl) in enumerate(self.law_fields[k]):
            out[f"L{i}"] = f2i(s[n]) if fl else jnp.asarray(s[n], INT)
        return out


def _law_state_dtypes(law: Any) -> list[tuple[str, bool]]:
    """(field, is_float) of a law's state, from the dtypes of :meth:`Law.init` (evaluated abstractly)."""
    p = {k: jnp.float32(v) for k, v in law.default_params().items()}
    st = jax.eval_shape(lambda: law.init(p, 1))
    if "cwnd" not in st:
        raise ValueError(f"law={law.name!r} state has no 'cwnd': every law keeps a window (packets)")
    if law.rate_based and "rate" not in st:
        raise ValueError(f"law={law.name!r} is rate-based but its state has no 'rate' (packets per slot)")
    out = []
    for name, v in st.items():
        if v.dtype == jnp.float32:
            out.append((name, True))
        elif v.dtype == jnp.int32 or v.dtype == jnp.bool_:
            out.append((name, False))
        else:
            raise ValueError(
                f"law={law.name!r} state field {name!r} has dtype {v.dtype}: accepted float32, int32"
            )
    return out


def inputs(fin: Any, f: Any) -> dict[str, Any]:
    """A flow's read-only inputs (``fin`` is never updated, so a plain slice is safe)."""
    row = lax.dynamic_slice(fin, (jnp.asarray(f, INT) * len(FIN_COLS),), (len(FIN_COLS),))
    d = {n: row[i] for i, n in enumerate(FIN_COLS)}
    d["sdt"] = i2f(d["sdt"])
    return d


def active(F: Mapping[str, Any], fi: Mapping[str, Any], t: Any) -> Any:
    """Between start and stop with data left ([DWTCP]'s flows stop sending Scouts when they stop)."""
    return (t >= fi["start"]) & (t < fi["stop"]) & (F["acked"] < fi["size"])


def active_slots(F: Mapping[str, Any], fi: Mapping[str, Any], a: Any, b: Any) -> Any:
    """Slots of [a, b) in which the flow is active: [start, min(stop, finish)) ∩ [a, b)."""
    end = jnp.minimum(fi["stop"], F["finish"])
    return jnp.maximum(jnp.minimum(b, end) - jnp.maximum(a, fi["start"]), 0)


def integrate(F: Mapping[str, Any], fi: Mapping[str, Any], t: Any) -> dict[str, Any]:
    """Add the window (and traced field) times the active slots of [t_int, t) to the integrals; t_int ← t.
    Called before every change of the law state, so the integrals are exact for the piecewise-constant window."""
    n = active_slots(F, fi, F["t_int"], t).astype(FLOAT)
    return {**F, "cw_int": F["cw_int"] + F["cwnd"] * n, "aux_int": F["aux_int"] + F["aux"] * n, "t_int": t}


def call_law(
    spec: EngineSpec, lay: Layout, F: Mapping[str, Any], fi: Mapping[str, Any], ev: Events, params: Any
) -> tuple[dict[str, Any], Any]:
    """Run the flow's law on one event; returns the new ``F`` (law columns and the cwnd/rate/aux mirrors) and
    the law's next wake-up slot. With several laws in the run, a ``lax.switch`` on the flow's law index."""

    def branch(k: int) -> Any:
        law = spec.laws[k]

        def fn(F: dict[str, Any]) -> tuple[dict[str, Any], Any]:
            s = law.step(lay.law_state(k, F), ev, params[k])
            out = lay.with_law_state(k, F, s)
            out["cwnd"] = jnp.asarray(s["cwnd"], FLOAT)
            out["rate"] = jnp.asarray(s["rate"], FLOAT) if law.rate_based else jnp.asarray(1.0, FLOAT)
            out["aux"] = jnp.asarray(s[law.aux], FLOAT) if law.aux else jnp.asarray(0.0, FLOAT)
            wake = jnp.asarray(law.next_wake(s, ev, params[k]), INT)
            return out, wake

        return fn

    F = dict(F)
    if len(spec.laws) == 1:
        return branch(0)(F)
    return lax.switch(fi["law"], [branch(k) for k in range(len(spec.laws))], F)


def never() -> Any:
    return jnp.asarray(NEVER, INT)
