"""DCQCN rate law: the reaction point (RP), notification point (NP) and congestion point (CP) of [DCQCN] §3.

A rate-based law: the sender paces at the current rate R_C (packets per slot, 1 = line rate); ``cwnd`` is only a
loose cap. The law runs at three kinds of events of one flow:

* **NP** ([DCQCN] §3.1): the receiver sends a CNP for a marked packet unless it sent one for this flow less than
  N = 50 µs ago. The engine echoes each packet's mark on its ACK over a constant return path, so the law applies
  the interval to the marked ACKs it receives: a CNP is a marked ACK at least N after the previous CNP (the same
  sequence, shifted by the constant return delay).
* **RP cut on a CNP** ([DCQCN] eq. (2)): R_T ← R_C, R_C ← R_C·(1 − α/2), α ← (1 − g)·α + g (the cut uses α
  before its update, the order of eq. (2)); the byte counter, the increase timer and both stage counts restart.
* **α timer** ([DCQCN] eq. (1)): every τ' = 55 µs without a CNP, α ← (1 − g)·α (``alpha_update="paper"``: a CNP
  restarts the α timer). Option ``alpha_update="timer"``: α is updated only on a free-running τ' timer,
  α ← (1 − g)·α + g if a CNP arrived in the period, else (1 − g)·α, and the CNP does not touch α (the Mellanox
  reading of the public ns-3 RDMA code, ``RdmaHw::UpdateAlphaMlx``).
* **Rate increase** ([DCQCN] eqs. (3)-(4)): an increase event is an expiry of the timer T = 55 µs or of the byte
  counter B = 10 MB (bytes sent since the last CNP, read from ``snd_nxt``); each expiry raises its stage count.
  With i_T and i_B the counts after the expiry, the event is *fast recovery* while max(i_T, i_B) ≤ F (F = 5):
  R_C ← (R_T + R_C)/2; *additive increase* once one count exceeds F: R_T ← R_T + R_AI, then R_C ← (R_T + R_C)/2;
  *hyper increase* once both do: R_T ← R_T + (min(i_T, i_B) − F)·R_HAI, then the same average.

The timers start at the first CNP (before it the flow sends at line rate, [DCQCN] §3: flows start at line rate;
``init_active`` = 1 arms them at the flow's first event instead, for a flow started at a rate below line rate);
both rates are clipped to [``rate_min``, 1]; α starts at 1. Losses and timeouts leave the rate unchanged (RoCE
retransmits below the rate law; with the default buffer nothing is lost).

**CP** ([DCQCN] §3.1, eq. (1) of the fluid model): the switch marks with the RED-like probability
:func:`~dwtcp_fluid.packet.switch.red_probability` between K_min = 5 KB and K_max = 200 KB with P_max = 1 %. The
law's ``cp_kmin``, ``cp_kmax`` (packets) and ``cp_pmax`` set the switch of a run of this law
(:func:`~dwtcp_fluid.packet.build`; the run's ``K`` is then K_min); marking at enqueue or dequeue is the run's
``mark_at``.

Defaults — provenance: g = 1/256, T = 55 µs, B = 10 MB, K_min = 5 KB, K_max = 200 KB, P_max = 1 % are [DCQCN]'s
parameter table (§5); N = 50 µs, τ' = 55 µs, F = 5 and R_AI = 40 Mb/s are [DCQCN] §3.1 and the values its fluid
model is evaluated with ([ECN-OR-DELAY] §3). R_HAI is not in those: 10·R_AI = 400 Mb/s, the ratio of the public
ns-3 RDMA configurations (an option, ``--dcqcn-rhai``). Times are converted to slots and rates to packets per slot
once, in :func:`dcqcn_params`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp

from ...params import LinkParams
from .base import FLOAT, INT, NEVER, Events, Law, LawOption
from .registry import register_law
from .timely import CWND_CAP, _link, _mbps, _us

__all__ = ["Dcqcn", "dcqcn_params", "increase_event", "ALPHA_UPDATES"]

#: Readings of the α update (see the module docstring).
ALPHA_UPDATES = ("paper", "timer")
#: "No CNP yet" as a slot: far enough back that the first marked ACK is a CNP.
_LONG_AGO = -(2**30)


def _kb(v: float, link: Any) -> float:
    """KB (10³ bytes) → packets of ``link``."""
    return float(v) * 1000.0 / float(link.L)


def _mb(v: float, link: Any) -> float:
    """MB (10⁶ bytes) → packets of ``link``."""
    return float(v) * 1e6 / float(link.L)


def dcqcn_params(link: Any = None, **over: float) -> dict[str, float]:
    """[DCQCN]'s defaults (module docstring) for ``link`` in the engine's units (slots, packets, packets/slot).

    Returns ``g`` (1), ``cnp_interval``, ``alpha_timer``, ``inc_timer`` (slots), ``byte_counter`` (packets),
    ``F`` (expiries of fast recovery), ``r_ai``, ``r_hai``, ``rate_min``, ``init_rate`` (packets/slot), ``init_alpha`` (1), ``init_active`` (0: the RP idle until the first CNP; 1: its timers and byte counter run from
    the flow's first event, as after a CNP — a flow started inside the stationary regime),
    ``cp_kmin``, ``cp_kmax`` (packets), ``cp_pmax`` (1) and ``init_cwnd`` (the in-flight cap, packets).
    """
    link = link or LinkParams()
    p = {
        "g": 1.0 / 256.0,
        "cnp_interval": _us(50.0, link),
        "alpha_timer": _us(55.0, link),
        "inc_timer": _us(55.0, link),
        "byte_counter": _mb(10.0, link),
        "F": 5.0,
        "r_ai": _mbps(40.0, link),
        "r_hai": _mbps(400.0, link),
        "rate_min": _mbps(10.0, link),
        "init_rate": 1.0,
        "init_alpha": 1.0,
        "init_active": 0.0,
        "cp_kmin": _kb(5.0, link),
        "cp_kmax": _kb(200.0, link),
        "cp_pmax": 0.01,
        "init_cwnd": CWND_CAP,
    }
    p.update({k: float(v) for k, v in over.items()})
    return p


def increase_event(rc: Any, rt: Any, i_t: Any, i_b: Any, p: Mapping[str, Any]) -> tuple[Any, Any]:
    """One rate-increase event with stage counts ``i_t`` (timer) and ``i_b`` (byte counter) after the expiry,
    [DCQCN] eqs. (3)-(4): fast recovery, additive or hyper increase of R_T, then R_C ← (R_T + R_C)/2."""
    F = p["F"]
    hi = jnp.maximum(i_t, i_b).astype(FLOAT)
    lo = jnp.minimum(i_t, i_b).astype(FLOAT)
    step = jnp.where(lo > F, (lo - F) * p["r_hai"], jnp.where(hi > F, p["r_ai"], 0.0))
    rt = jnp.clip(rt + step, p["rate_min"], 1.0)
    return jnp.clip(0.5 * (rt + rc), p["rate_min"], 1.0), rt


_PAPER = " [DCQCN]'s value."

DCQCN_OPTIONS: tuple[LawOption, ...] = (
    LawOption("--dcqcn-g", "DCQCN α gain g, 0 < g ≤ 1." + _PAPER, 1.0 / 256.0, param="g", lo=1e-6, hi=1.0),
    LawOption(
        "--cnp-interval",
        'DCQCN NP: at most one CNP per flow per this time ("50us").' + _PAPER,
        50.0,
        param="cnp_interval",
        lo=0.0,
        hi=1e8,
        convert=_us,
        unit="us",
    ),
    LawOption(
        "--alpha-timer",
        'DCQCN α update period τ\' ("55us").' + _PAPER,
        55.0,
        param="alpha_timer",
        lo=1e-3,
        hi=1e8,
        convert=_us,
        unit="us",
    ),
    LawOption(
        "--inc-timer",
        'DCQCN rate-increase timer T ("55us").' + _PAPER,
        55.0,
        param="inc_timer",
        lo=1e-3,
        hi=1e8,
        convert=_us,
        unit="us",
    ),
    LawOption(
        "--byte-counter",
        "DCQCN byte counter B (MB).",
        10.0,
        param="byte_counter",
        lo=1e-3,
        hi=1e6,
        convert=_mb,
        unit="MB",
    ),
    LawOption(
        "--fast-recovery", "DCQCN fast-recovery stages F." + _PAPER, 5.0, param="F", lo=0.0, hi=1e3, unit=""
    ),
    LawOption(
        "--dcqcn-rai",
        'DCQCN additive step R_AI, a rate ("40Mbps").' + _PAPER,
        40.0,
        param="r_ai",
        lo=0.0,
        hi=1e7,
        convert=_mbps,
        unit="mbps",
    ),
    LawOption(
        "--dcqcn-rhai",
        'DCQCN hyper step R_HAI, a rate ("400Mbps"; 10·R_AI as in the public ns-3 configurations).',
        400.0,
        param="r_hai",
        lo=0.0,
        hi=1e7,
        convert=_mbps,
        unit="mbps",
    ),
    LawOption(
        "--cp-kmin",
        "DCQCN CP K_min (KB); sets the switch's marking (--marking-threshold is not used)." + _PAPER,
        5.0,
        param="cp_kmin",
        lo=0.0,
        hi=1e6,
        convert=_kb,
        unit="KB",
    ),
    LawOption(
        "--cp-kmax",
        "DCQCN CP K_max (KB), above K_min." + _PAPER,
        200.0,
        param="cp_kmax",
        lo=0.0,
        hi=1e6,
        convert=_kb,
        unit="KB",
    ),  # fmt: skip
    LawOption(
        "--cp-pmax",
        "DCQCN CP P_max, 0 ≤ P ≤ 1 (0: no CP of the law, the step marker at --marking-threshold)." + _PAPER,
        0.01,
        param="cp_pmax",
        lo=0.0,
        hi=1.0,
    ),
    LawOption(
        "--alpha-update",
        "DCQCN α update: 'paper' ([DCQCN] eq. (1), CNP restarts the α timer) or 'timer' (free-running, ns-3).",
        "paper",
        option="alpha_update",
        choices=ALPHA_UPDATES,
    ),
)


@register_law
@dataclass(frozen=True)
class Dcqcn(Law):
    """DCQCN, [DCQCN] §3 (see the module docstring for units, defaults and readings)."""

    name: ClassVar[str] = "dcqcn"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
    rate_based: ClassVar[bool] = True
    has_alpha: ClassVar[bool] = True
    aux: ClassVar[str | None] = "rate"
    aux_summary: ClassVar[str | None] = "rate_mean"
    options: ClassVar[tuple[LawOption, ...]] = DCQCN_OPTIONS

    alpha_update: str = "paper"

    def __post_init__(self) -> None:
        if self.alpha_update not in ALPHA_UPDATES:
            raise ValueError(
                f"alpha_update={self.alpha_update!r} is invalid: accepted {' | '.join(ALPHA_UPDATES)}"
            )

    def default_params(self, **context: Any) -> dict[str, float]:
        """[DCQCN]'s defaults for the scenario's link (:func:`dcqcn_params`)."""
        return dcqcn_params(_link(context))

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        """``init_rate`` (line rate), α = ``init_alpha`` (1), ``init_active`` (0: the RP idle until the first CNP; 1: its timers and byte counter run from
        the flow's first event, as after a CNP — a flow started inside the stationary regime), no CNP yet, timers off."""
        return {
            "cwnd": jnp.full(n, p["init_cwnd"], FLOAT),
            "rate": jnp.full(n, p["init_rate"], FLOAT),
            "rt": jnp.full(n, p["init_rate"], FLOAT),
            "alpha": jnp.full(n, p["init_alpha"], FLOAT),
            "last_cnp": jnp.full(n, _LONG_AGO, INT),
            "t_alpha": jnp.full(n, NEVER, INT),
            "t_inc": jnp.full(n, NEVER, INT),
            "bc_base": jnp.zeros(n, INT),
            "i_t": jnp.zeros(n, INT),
            "i_b": jnp.zeros(n, INT),
            "cnp_seen": jnp.zeros(n, INT),
        }

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        t = jnp.asarray(ev.t, INT)
        g = p["g"]
        rc, rt, alpha = s["rate"], s["rt"], s["alpha"]
        t_alpha, t_inc, i_t, i_b = s["t_alpha"], s["t_inc"], s["i_t"], s["i_b"]
        bc_base = s["bc_base"]
        # a flow started inside the stationary regime (init_active): its RP runs from its first event
        arm = (p["init_active"] > 0) & (t_inc >= NEVER) & jnp.asarray(ev.active)
        t_inc = jnp.where(arm, t + jnp.round(p["inc_timer"]).astype(INT), t_inc)
        t_alpha = jnp.where(arm, t + jnp.round(p["alpha_timer"]).astype(INT), t_alpha)
        bc_base = jnp.where(arm, jnp.asarray(ev.snd_nxt, INT), bc_base)
        # α timer (one expiry per call: the engine calls the law at each wake-up it asked for)
        due_a = t >= t_alpha
        if self.alpha_update == "paper":
            alpha = jnp.where(due_a, (1.0 - g) * alpha, alpha)
        else:
            alpha = jnp.where(due_a, (1.0 - g) * alpha + g * (s["cnp_seen"] > 0), alpha)
        cnp_seen = jnp.where(due_a, 0, s["cnp_seen"])
        t_alpha = jnp.where(due_a, t_alpha + jnp.round(p["alpha_timer"]).astype(INT), t_alpha)
        # increase timer
        due_t = t >= t_inc
        i_t = i_t + due_t.astype(INT)
        rc_t, rt_t = increase_event(rc, rt, i_t, i_b, p)
        rc, rt = jnp.where(due_t, rc_t, rc), jnp.where(due_t, rt_t, rt)
        t_inc = jnp.where(due_t, t_inc + jnp.round(p["inc_timer"]).astype(INT), t_inc)
        # byte counter (bytes sent since the last CNP, counted from snd_nxt), only once timers run
        bc = jnp.round(p["byte_counter"]).astype(INT)
        due_b = (t_inc < NEVER) & (jnp.asarray(ev.snd_nxt, INT) - bc_base >= bc)
        i_b = i_b + due_b.astype(INT)
        rc_b, rt_b = increase_event(rc, rt, i_t, i_b, p)
        rc, rt = jnp.where(due_b, rc_b, rc), jnp.where(due_b, rt_b, rt)
        bc_base = jnp.where(due_b, bc_base + bc, bc_base)
        # NP + RP cut
        cnp = ev.ack & ev.mark & (t - s["last_cnp"] >= jnp.round(p["cnp_interval"]).astype(INT))
        rt = jnp.where(cnp, rc, rt)
        rc = jnp.where(cnp, jnp.maximum(rc * (1.0 - alpha / 2.0), p["rate_min"]), rc)
        if self.alpha_update == "paper":
            alpha = jnp.where(cnp, (1.0 - g) * alpha + g, alpha)
            t_alpha = jnp.where(cnp, t + jnp.round(p["alpha_timer"]).astype(INT), t_alpha)
        else:
            first = cnp & (s["t_alpha"] >= NEVER)
            t_alpha = jnp.where(first, t + jnp.round(p["alpha_timer"]).astype(INT), t_alpha)
        cnp_seen = jnp.where(cnp, 1, cnp_seen)
        return {
            "cwnd": s["cwnd"],
            "rate": rc.astype(FLOAT),
            "rt": rt.astype(FLOAT),
            "alpha": alpha.astype(FLOAT),
            "last_cnp": jnp.where(cnp, t, s["last_cnp"]).astype(INT),
            "t_alpha": t_alpha.astype(INT),
            "t_inc": jnp.where(cnp, t + jnp.round(p["inc_timer"]).astype(INT), t_inc).astype(INT),
            "bc_base": jnp.where(cnp, jnp.asarray(ev.snd_nxt, INT), bc_base).astype(INT),
            "i_t": jnp.where(cnp, 0, i_t).astype(INT),
            "i_b": jnp.where(cnp, 0, i_b).astype(INT),
            "cnp_seen": cnp_seen.astype(INT),
        }

    def next_wake(self, s: Mapping[str, Any], ev: Events, p: Mapping[str, Any]) -> Any:
        """The next α or increase timer expiry (:data:`NEVER` before the first CNP)."""
        return jnp.minimum(s["t_alpha"], s["t_inc"]).astype(INT)
