"""DWTCP window law with Scouts, Algorithm 1 and [DWTCP] eqs. (1), (2).

Windows are in packets; the paper's byte quantities are converted once here: a data ACK's ``l = L`` bytes is one
packet, a Scout ACK's ``α·S`` bytes is ``α·S/L`` packets, and β·sqrt(w) with w in bytes equals
``beta_sqrt_packets·sqrt(w)`` with w in packets (``DwtcpParams.beta_sqrt_packets`` = β·sqrt(L) in the paper's byte
convention, docs/equations.md DWTCP note 3). Time is in slots; d_s, d_t and T are converted to slots by the engine.

Interpretations of ambiguous lines (each a named option; defaults first):

* ``data_increase``: ``"ca"`` (default) adds 1/w packet per data ACK (+1 packet per RTT), the reading of (1) and
  the fluid model (3); ``"literal"`` adds l = L (one packet) per data ACK as line 14 reads (docs/equations.md note 1).
* ``slow_start``: ``"standard"`` (default) adds one packet per data ACK while w < ssthresh (doubling per RTT);
  ``"literal"`` applies line 12, w ← 2w + α·s, on every ACK (doubling per ACK).
* ``ipg``: False (default) uses (1); True uses the inter-packet-gap variant (four cases, factor 2β).
* ``ssthresh_on_decrease``: line 21 sets ssthresh ← w *before* line 22 reduces w, so read literally
  (``"literal"``) the reduced window is below ssthresh, the flow is back in slow start (line 11) and regains
  the pre-decrease window within about one RTT — the decrease is undone. The default ``"exit"`` reads line 21 as
  "leave slow start": ssthresh is set to the reduced window, as TCP does after a reduction.
* d_s uses rcvTime − sendTime (line 18's sign fixed); a Scout later than d_t counts as lost for α; the decrease is
  evaluated every slot ("ScoutDelayed" fires as soon as d_s > d_t) and applied at most once per T = base RTT;
  the factor is floored at 1/2 (line 22).
* α bounds (note 2): ``alpha_min`` = 1 (Algorithm 1's initial value: one Scout's worth of bytes) and
  ``alpha_max`` = 1000 (α·S = 64 kB ≈ 43 packets per Scout ACK, about half a 10 Gbps × 100 µs BDP: doubling
  without a cap would make one Scout ACK add more than the whole buffer within a dozen RTTs).
* Order on a Scout ACK: the window grows by the current α·S, then α doubles.
* Scout injection rate (``--scout-rate`` x, §3.3): x Scouts per base RTT per flow, default 1 (the paper's
  baseline). Every Scout ACK adds α·S/L and doubles α and every lost Scout halves α whatever x is: the paper varies
  x "instead of changing the Scout coefficient" (§5.4), so a higher x is a larger increase per RTT.
* Per-datapath Scouts (``--scout-per datapath``, §3.3; the testbed's §6.1 setting): one Scout stream per host
  pair (flow f on pair f mod ``--scout-paths``), sent by the pair's first Scout-using flow at its Scout rate. Each
  Scout ACK's bandwidth signal is "distributed equally among all active flows": every flow of the pair adds
  α·S/(L·n), n the pair's flows between their start and stop slots, and doubles its own α; the delay signal
  (d_s, the Scout gap, lost Scouts) is "conveyed to all active flows". The pair's other flows read the leader's
  stream at their own events (data ACKs, timers), at most one RTT after the leader; the stream ends when the
  leader's flow ends.
* Data losses (not covered by the paper) halve the window at once, once per window, like Reno's ``"immediate"``
  rule; timeouts restart at 1. [DWTCP] §6.1's implementation is a kernel module over Linux's unchanged TCP stack,
  whose loss recovery is PRR (:mod:`.recovery`); the law keeps the one-step halving (no option) because Algorithm 1's
  own decrease (line 22) is a one-step cut and data losses are rare where the Scouts keep the queue short.

The engine calls the law at every event of the flow (data ACK, Scout ACK, Scout loss, timeout) and at the slot
:meth:`Dwtcp.next_wake` returns: the first slot at which "ScoutDelayed" can fire without another event (d_s only
grows between events), so the decrease happens at exactly the slot the per-slot check of Algorithm 1 would take.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import jax.numpy as jnp

from ...params import BETA_HELP, BOUNDS, DEFAULT_BETA, DWTCP_TARGET, TARGET_HELP, Bound
from .base import FLOAT, INT, NEVER, Events, Law, LawOption, window_closed
from .registry import register_law
from .reno import SSTHRESH_INF

__all__ = ["Dwtcp"]

#: Range of the Scout injection rate x (Scouts per base RTT): from one Scout every 16 RTTs to 16 per RTT.
SCOUT_RATE_MIN, SCOUT_RATE_MAX = 1.0 / 16.0, 16.0

#: Where Scouts are sent from: each flow, or each host pair (per-datapath, [DWTCP] §3.3).
SCOUT_PER = ("flow", "datapath")

#: Scout ACKs of one flow handled in one slot; more would need several Scouts of the flow served in one idle slot.
_MAX_SCOUT_ACKS = 4


def _beta_packets(beta: float, link: Any) -> float:
    """β of the paper's byte convention → β for windows in packets (β·sqrt(L), docs/equations.md note 3)."""
    return float(beta) * float(link.L) ** 0.5


@register_law
@dataclass(frozen=True)
class Dwtcp(Law):
    """DWTCP, Algorithm 1 of [DWTCP] (see the module docstring for every interpretation).

    Parameters
    ----------
    data_increase : {"ca", "literal"}
    slow_start : {"standard", "literal"}
    ipg : bool
        Use the inter-packet-gap decrease (the variant after Algorithm 1) instead of (1).
    ssthresh_on_decrease : {"exit", "literal"}
    scout_per : {"flow", "datapath"}
        One Scout stream per flow (Algorithm 1) or per host pair (§3.3's per-datapath Scouts).
    """

    name: ClassVar[str] = "dwtcp"
    signals: ClassVar[frozenset[str]] = frozenset({"scout"})
    aux: ClassVar[str | None] = "alpha"
    aux_summary: ClassVar[str | None] = "scout_alpha_mean"
    options: ClassVar[tuple[LawOption, ...]] = (
        LawOption(
            "--beta",
            BETA_HELP,
            DEFAULT_BETA,
            param="beta_p",
            bound=BOUNDS["beta"],
            convert=_beta_packets,
        ),
        LawOption("--target", "DWTCP: " + TARGET_HELP, DWTCP_TARGET, param="k", bound=BOUNDS["k"]),
        LawOption("--ipg", "DWTCP only: the inter-packet-gap decrease variant.", False, option="ipg"),
        LawOption(
            "--scout-rate",
            "DWTCP: Scout injection rate x of [DWTCP] §3.3, Scouts per base RTT per flow (1: one per RTT, the "
            "paper's baseline; above 1: sub-RTT injection; below 1: one Scout every 1/x RTTs); the period is "
            "rounded to whole slots.",
            1.0,
            param="scout_rate",
            lo=SCOUT_RATE_MIN,
            hi=SCOUT_RATE_MAX,
        ),
        LawOption(
            "--scout-per",
            "DWTCP: one Scout stream per flow, or per datapath ([DWTCP] §3.3: one stream per host pair, its "
            "bandwidth signal shared equally by the pair's flows and its delay signal given to each).",
            "flow",
            option="scout_per",
            choices=SCOUT_PER,
        ),
        LawOption(
            "--scout-paths",
            "DWTCP with --scout-per datapath: host pairs D; flow f is on pair f mod D.",
            1.0,
            param="scout_paths",
            bound=Bound(1.0, 1e5, integer=True, why="host pairs"),
        ),
    )
    data_increase: Literal["ca", "literal"] = "ca"
    slow_start: Literal["standard", "literal"] = "standard"
    ipg: bool = False
    ssthresh_on_decrease: Literal["exit", "literal"] = "exit"
    scout_per: Literal["flow", "datapath"] = "flow"

    def __post_init__(self) -> None:
        if self.scout_per not in SCOUT_PER:
            raise ValueError(
                f"scout_per={self.scout_per!r} is invalid: accepted {' or '.join(map(repr, SCOUT_PER))}"
            )
        if self.data_increase not in ("ca", "literal"):
            raise ValueError(f"data_increase={self.data_increase!r} is invalid: accepted 'ca' or 'literal'")
        if self.slow_start not in ("standard", "literal"):
            raise ValueError(f"slow_start={self.slow_start!r} is invalid: accepted 'standard' or 'literal'")
        if self.ssthresh_on_decrease not in ("exit", "literal"):
            raise ValueError(
                f"ssthresh_on_decrease={self.ssthresh_on_decrease!r} is invalid: accepted 'exit' or 'literal'"
            )

    def default_params(self, **context: Any) -> dict[str, float]:
        """From ``dwtcp`` (a :class:`~dwtcp_fluid.params.DwtcpParams`, default the DWTCP_EVALUATION preset):
        ``beta_p`` (β for w in packets), ``s_over_l`` (S/L), ``k`` (target queue K of eq. (2), packets),
        ``alpha0``, ``alpha_min``, ``alpha_max``, ``init_cwnd`` (10), ``min_cwnd`` (1 packet, keeps the ACK
        clock), ``scout_window`` (Scouts per d_t for the IPG target ipg_t = d_t/scout_window, default 1),
        ``scout_rate`` (Scouts per base RTT, [DWTCP] §3.3's x, default 1: read by the engine's Scout schedule,
        :func:`~..scouts.scout_period`, not by the law's step)."""
        from ...params import DWTCP_EVALUATION

        dw = context.get("dwtcp") or DWTCP_EVALUATION
        return {
            "beta_p": float(dw.beta_sqrt_packets),
            "s_over_l": float(dw.scout_ratio),
            "k": float(dw.k),
            "alpha0": float(dw.alpha0),
            "alpha_min": 1.0,
            "alpha_max": 1000.0,
            "init_cwnd": float(context.get("init_cwnd", 10.0)),
            "min_cwnd": 1.0,
            "scout_window": 1.0,
            "scout_rate": 1.0,
            "scout_paths": 1.0,
        }

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {
            "cwnd": jnp.full(n, p["init_cwnd"], FLOAT),
            "ssthresh": jnp.full(n, SSTHRESH_INF, FLOAT),
            "alpha": jnp.full(n, p["alpha0"], FLOAT),
            "det": jnp.full(n, -(2**30), INT),
            "recover": jnp.zeros(n, INT),
        }

    def decrease_factor(self, w: Any, d_s: Any, d_t: Any, ipg_s: Any, ipg_t: Any, beta_p: Any) -> Any:
        """Multiplicative factor of the decrease (≤ 1, floored at 1/2), line 22 of Algorithm 1 / eq. (1)."""
        bw = beta_p * jnp.sqrt(w)
        a = (d_s - d_t) / jnp.maximum(d_s, 1e-9)
        if not self.ipg:
            f = 1.0 - bw * a
        else:
            b = (ipg_s - ipg_t) / jnp.maximum(ipg_s, 1e-9)
            late, gap = d_s > d_t, ipg_s > ipg_t
            f = jnp.where(
                late & gap,
                1.0 - 2.0 * bw * a * b,
                jnp.where(gap, 1.0 - 2.0 * bw * b * b, 1.0 - 2.0 * bw * a * a),
            )
        return jnp.maximum(f, 0.5)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        w, ssthresh, alpha, det, recover = s["cwnd"], s["ssthresh"], s["alpha"], s["det"], s["recover"]
        loss = ev.nloss > 0
        data = ev.ack & ~loss
        slow = w < ssthresh
        # Data ACK (lines 9-14, docs/equations.md note 1).
        if self.slow_start == "standard":
            ss_w = w + 1.0
        else:
            ss_w = 2.0 * w
        ca_w = w + (1.0 / w if self.data_increase == "ca" else 1.0)
        w = jnp.where(data, jnp.where(slow, ss_w, ca_w), w)
        # Scout ACKs: w += α·S/L (per datapath: the flow's share of it), then α doubles (capped); repeated for
        # each Scout ACK of the slot.
        s_over_l = p["s_over_l"] * ev.scout_share if self.scout_per == "datapath" else p["s_over_l"]
        for j in range(_MAX_SCOUT_ACKS):
            on = ev.scout_ok > j
            if self.slow_start == "literal":
                w = jnp.where(on & slow, 2.0 * w + alpha * s_over_l, jnp.where(on, w + alpha * s_over_l, w))
            else:
                w = jnp.where(on, w + alpha * s_over_l, w)
            alpha = jnp.where(on, jnp.minimum(2.0 * alpha, p["alpha_max"]), alpha)
        # Scout losses (dropped, or later than d_t): α halves per lost Scout (floored).
        alpha = jnp.maximum(alpha * jnp.exp2(-jnp.asarray(ev.scout_lost).astype(FLOAT)), p["alpha_min"])
        # ScoutDelayed (lines 17-24): d_s > d_t and now ≥ DET + T.
        d_t = ev.rtt + p["k"]
        ipg_t = d_t / p["scout_window"]
        late = (ev.d_s > d_t) | ((ev.ipg_s > ipg_t) if self.ipg else False)
        dec = late & ev.active & (ev.t >= det + ev.rtt.astype(INT))
        factor = self.decrease_factor(w, ev.d_s, d_t, ev.ipg_s, ipg_t, p["beta_p"])
        w_dec = jnp.maximum(w * factor, p["min_cwnd"])
        ssthresh = jnp.where(dec, w if self.ssthresh_on_decrease == "literal" else w_dec, ssthresh)
        w = jnp.where(dec, w_dec, w)
        det = jnp.where(dec, ev.t, det)
        # Data loss: halve once per window (not in the paper).
        loss_cut = loss & window_closed(ev.snd_una, recover)
        halved = jnp.maximum(w * 0.5, p["min_cwnd"])
        w = jnp.where(loss_cut, halved, w)
        ssthresh = jnp.where(loss_cut, halved, ssthresh)
        recover = jnp.where(loss_cut, ev.snd_nxt, recover)
        to = ev.timeout
        ssthresh = jnp.where(to, jnp.maximum(w * 0.5, 2.0), ssthresh)
        w = jnp.where(to, 1.0, w)
        recover = jnp.where(to, ev.snd_nxt, recover)
        return {
            "cwnd": w.astype(FLOAT),
            "ssthresh": ssthresh.astype(FLOAT),
            "alpha": alpha.astype(FLOAT),
            "det": det,
            "recover": recover,
        }

    def next_wake(self, s: Mapping[str, Any], ev: Events, p: Mapping[str, Any]) -> Any:
        """The first slot after ``ev.t`` at which "ScoutDelayed" fires if no other event comes: d_s > d_t holds
        from the next slot on when the last Scout ACK was late, else from the slot the oldest unacknowledged Scout
        becomes older than d_t (the IPG variant: the same with the Scout gap against ipg_t); and not before
        DET + T. :data:`NEVER` when the flow is inactive or no Scout is pending."""
        t = jnp.asarray(ev.t, INT)
        d_t = ev.rtt + p["k"]
        ipg_t = d_t / p["scout_window"]
        never = jnp.asarray(NEVER, INT)
        pending = ev.scout_wait_from < NEVER
        from_wait = jnp.where(
            pending, ev.scout_wait_from + jnp.floor(d_t).astype(INT) + 1, never
        )  # first slot with now − send > d_t
        late_at = jnp.where(ev.scout_last_delay > d_t, t + 1, from_wait)
        if self.ipg:
            from_gap = ev.scout_last_rcv + jnp.floor(ipg_t).astype(INT) + 1
            late_at = jnp.minimum(late_at, jnp.where(ev.scout_last_gap > ipg_t, t + 1, from_gap))
        at = jnp.maximum(jnp.maximum(late_at, s["det"] + ev.rtt.astype(INT)), t + 1)
        return jnp.where(ev.active & (late_at < never), at, never)
