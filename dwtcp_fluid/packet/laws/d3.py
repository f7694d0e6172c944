"""D3, [D3] §4: deadline flows ask the switch for a rate once per RTT, the switch allocates greedily.

Sender ([D3] §4.1): once per RTT the next data packet carries a rate request: a flow with a deadline asks for its
desired rate r = remaining / time left (packets per slot; remaining = size − acknowledged, time left = deadline −
now), a flow without one (or past its deadline, ``late="fair"``) asks for r = 0. When that packet's ACK returns,
the flow sends at the granted rate a for the next RTT and the next packet carries the next request.

Switch ([D3] §4.2): the router keeps, per flow, the last allocation and desire (the sums A, D and the count N of
the paper: the header's "previous allocation" and "previous desire" fields, held here by the switch itself). On a
request r of flow f it removes f's previous allocation, takes the capacity left, left = C − A, and the spare
share fs = max(0, (C − D)/N) with D including r, and grants a = min(r + fs, left) when left ≥ r (the desire plus a
fair share of what no deadline needs), a = max(left, 0) otherwise (first come, first served: a request that cannot
be met gets what is left). A finished flow's FIN releases its row.

A flow granted less than one packet per RTT sends at that floor (``base``: [D3] sends header-only packets at a base
rate so that a flow granted nothing can keep asking; here the request rides on a data packet, one per RTT). The
window is a loose cap (a rate law). [D3] does not specify C's slack for queue drain; C is the line rate here.

Options: ``late`` — a flow past its deadline asks for 0 (``"fair"``, default: it shares what is left) or keeps
asking for its remaining size over one RTT (``"greedy"``); [D3] §4.3 discusses quenching such flows, not done here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import FLOAT, INT, NEVER, Events, Law, LawOption
from .registry import register_law
from .timely import _link

__all__ = ["D3", "allocate", "LATE"]

LATE = ("fair", "greedy")
#: The in-flight cap of the rate-paced sender (packets): pacing alone limits it.
CWND_CAP = 1.0e5


def allocate(table: Any, f: Any, r: Any, capacity: Any) -> tuple[Any, Any]:
    """[D3] §4.2's allocation of a request ``r`` (packets per slot) of flow ``f`` against the switch table
    ``[flows, 3]`` (columns: allocation, desire, registered): returns (grant, new table)."""
    a_col, d_col, n_col = table[:, 0], table[:, 1], table[:, 2]
    others = jnp.arange(table.shape[0]) != f
    A = jnp.sum(jnp.where(others, a_col, 0.0))
    D = jnp.sum(jnp.where(others, d_col, 0.0)) + r
    N = jnp.sum(jnp.where(others, n_col, 0.0)) + 1.0
    left = capacity - A
    fs = jnp.maximum(0.0, (capacity - D) / N)
    grant = jnp.where(left >= r, jnp.minimum(r + fs, left), jnp.maximum(left, 0.0))
    row = jnp.stack([grant, r, jnp.asarray(1.0, FLOAT)]).astype(FLOAT)
    return grant.astype(FLOAT), table.at[f].set(row)


@register_law
@dataclass(frozen=True)
class D3(Law):
    """D3, [D3] §4 (module docstring): per-RTT rate requests, greedy allocation at the switch."""

    late: str = "fair"

    name: ClassVar[str] = "d3"
    signals: ClassVar[frozenset[str]] = frozenset()
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "rate"
    aux_summary: ClassVar[str | None] = "rate_mean"
    switch_width: ClassVar[int] = 3
    options: ClassVar[tuple[LawOption, ...]] = (
        LawOption("--d3-late", "D3 request of a flow past its deadline: fair (0: a share of what is left) or "
                  "greedy (its remaining data in one RTT).", "fair", option="late", choices=LATE),
    )  # fmt: skip

    def __post_init__(self) -> None:
        if self.late not in LATE:
            raise ValueError(f"late={self.late!r} is invalid: accepted one of {', '.join(LATE)}")

    def default_params(self, **context: Any) -> dict[str, float]:
        """``init_cwnd`` (the in-flight cap, packets), ``base`` (packets per RTT of a flow granted less) and
        ``init_rate`` (packets per slot before the first grant: ``base`` per base RTT of the link)."""
        link = _link(context)
        return {
            "init_cwnd": CWND_CAP,
            "base": 1.0,
            "init_rate": 1.0 / max(float(link.d) * float(link.C), 1.0),
        }

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {
            "cwnd": jnp.full(n, p["init_cwnd"], FLOAT),
            "rate": jnp.full(
                n, p["init_rate"], FLOAT
            ),  # the first request, then the base rate until its grant
            "grant": jnp.zeros(n, FLOAT),
            "req": jnp.ones(n, INT),  # the next accepted packet carries a request
            "req_seq": jnp.full(n, -1, INT),  # the request packet awaiting its ACK (−1: none)
            "asked": jnp.zeros(n, INT),  # requests made (the first is sent at once)
        }

    def at_switch(
        self, s: dict[str, Any], table: Any, f: Any, pkt: Mapping[str, Any], p: Mapping[str, Any]
    ) -> tuple[dict[str, Any], Any]:
        """A packet carrying a request: the desired rate, the switch's allocation ([D3] §4.1-4.2)."""
        ask = s["req"] > 0
        remaining = jnp.maximum(pkt["size"] - pkt["una"], 0).astype(FLOAT)
        has_dl = pkt["deadline"] != NEVER
        left_t = (pkt["deadline"] - pkt["t"]).astype(FLOAT)
        late = has_dl & (left_t <= 0)
        r = jnp.where(has_dl & ~late, remaining / jnp.maximum(left_t, 1.0), 0.0)
        if self.late == "greedy":
            r = jnp.where(late, remaining / jnp.maximum(pkt["rtt"], 1.0), r)
        r = jnp.clip(r, 0.0, pkt["capacity"]).astype(FLOAT)
        grant, new = allocate(table, f, r, pkt["capacity"])
        out = dict(s)
        out["grant"] = jnp.where(ask, grant, s["grant"]).astype(FLOAT)
        out["req"] = jnp.where(ask, 0, s["req"]).astype(INT)
        out["req_seq"] = jnp.where(ask, pkt["seq"], s["req_seq"]).astype(INT)
        out["asked"] = (s["asked"] + ask.astype(INT)).astype(INT)
        # the first request leaves at once; afterwards one per RTT, paced by the grant
        return out, jnp.where(ask, new, table)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        # the request packet's ACK (or a timeout) brings the grant: send at it for the next RTT, ask again
        back = (
            (jnp.asarray(ev.ack) | jnp.asarray(ev.timeout))
            & (s["req_seq"] >= 0)
            & (ev.snd_una > s["req_seq"])
        )
        floor = p["base"] / jnp.maximum(jnp.asarray(ev.rtt, FLOAT), 1.0)
        rate = jnp.where(back, jnp.clip(jnp.maximum(s["grant"], floor), 1e-6, 1.0), s["rate"])
        return {
            "cwnd": s["cwnd"],
            "rate": rate.astype(FLOAT),
            "grant": s["grant"],
            "req": jnp.where(back, 1, s["req"]).astype(INT),
            "req_seq": jnp.where(back, -1, s["req_seq"]).astype(INT),
            "asked": s["asked"],
        }
