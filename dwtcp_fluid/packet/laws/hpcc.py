"""HPCC, [HPCC] Algorithm 1 (window-based, in-band telemetry), and HPCC-PINT ([PINT]: one sampled value per packet).

Each data ACK echoes the bottleneck port's in-band telemetry (signal ``"int"``: queue ``qlen`` behind the packet
as it left, the port's cumulative transmitted packets ``txBytes`` and the departure slot ``ts``; the port rate B is
one packet per slot). With L the telemetry of the flow's previous ACK and T the base RTT (slots), one ACK does:

* MeasureInflight, [HPCC] Alg. 1 lines 1-10: txRate = (ack.txBytes − L.txBytes)/(ack.ts − L.ts);
  u' = min(ack.qlen, L.qlen)/(B·T) + txRate/B (the maximum over hops is the one hop of a single bottleneck);
  τ = min(ack.ts − L.ts, T); U ← (1 − τ/T)·U + (τ/T)·u';
  on routed ports (:mod:`~dwtcp_fluid.packet.ports`) the ACK carries one record per hop with that port's rate
  B_j, L keeps one record per hop (``int_hops``, the route length, set by the engine), u is the largest u'_j and
  τ that hop's (lines 3-7);
* ComputeWind, lines 11-20: if U ≥ η or incStage ≥ maxStage, W = W_c/(U/η) + W_AI (multiplicative), else
  W = W_c + W_AI (additive); only when the reference is updated: W_c ← W and incStage ← 0 (multiplicative) or
  incStage + 1 (additive);
* NewAck, lines 21-27: the reference is updated when ack.seq > lastUpdateSeq, and then lastUpdateSeq ← snd_nxt
  (once per RTT); otherwise W is recomputed from the unchanged W_c (every ACK reacts); R = W/T; L ← ack.L.

The sender paces at R = W/T (packets per slot, at most line rate) and keeps at most ⌈W⌉ packets in flight (the
public code's "send while the bytes in flight are below W"; a window below one packet still lets one out, the
pacing rate holds it below a packet per RTT).

Options (each an ambiguity, with its source):

* ``update``: ``"per-rtt"`` (Alg. 1 line 22, the paper) or ``"per-ack"`` (the reference W_c follows every ACK:
  htsim's ``HPCCSrc`` stores the returned window in the same variable it uses as W_c, so W_c ← W on every ACK);
* ``control``: ``"window"`` (Alg. 1: inflight ≤ W and pacing W/T) or ``"rate"`` (the public ns-3 code's
  ``UpdateRateHp`` runs the same recursion on the rate R = W/T, HPCC ns-3 issue #70; without its window,
  ``HAS_WIN 0``, nothing bounds the bytes in flight: pacing alone);
* ``telemetry``: ``"previous"`` (Alg. 1 line 27: L ← ack.L on every ACK) or ``"first"`` (htsim's
  ``HPCCSrc::measureInFlight`` stores the path's INT only on the flow's first ACK and never again: txRate is the
  port's average since that ACK and the queue term min(qlen, the first ACK's qlen));
* ``--max-stage``: the paper's 5 (also htsim's ``_max_stages``); the public ns-3 scripts default ``MI_THRESH 0``
  (every update multiplicative);
* ``--w-ai``: W_AI in packets; 0 (default) applies the sizing rule N_exp·W_AI = (1 − η)·W_init, W_init = B·T (the
  additive increases of N_exp flows fill the utilization headroom 1 − η), with ``--hpcc-nexp`` N_exp = 10
  (htsim's ``_N``); η = 0.95 is the paper's target utilization (also htsim's and the ns-3 scripts' ``U_TARGET``).

Interpretations: T is the scenario link's base RTT (one configured constant, as in [HPCC]; ``t_base`` 0 reads each
flow's own base RTT instead); the first ACK only stores L and sets lastUpdateSeq (no previous telemetry; the ns-3
code does the same); U starts at 1 (ns-3) and W_c at W_init = B·T, the window a flow starts with at line rate
([HPCC] starts every flow at line rate); two ACKs
with the same departure slot (delayed ACKs) count τ as one slot; W is held at or above ``rate_min``·T; losses and
timeouts leave the law unchanged (HPCC runs on a lossless fabric); W is held at or below ``CWND_CAP`` packets (a
per-ACK reference with the first ACK's telemetry compounds it without bound, as htsim's does).

**HPCC-PINT** (:class:`HpccPint`): [PINT] carries one value per packet instead of a per-hop list: the maximum over
the hops of the hop's utilization (the same u as above, filtered with τ/T; on routed ports the largest u'_j is
taken before the filter, as Alg. 1 does, where PINT's switches filter per hop before the maximum: the two agree
when one hop stays the largest), quantized to a power of
``--pint-base`` (1 + ε, the public code's 1.01), and only a fraction ``--pint-prob`` of packets carry it (chosen by a
hash of the slot and the sequence number, seeded by ``--pint-seed``). The sender runs ComputeWind on that value;
ACKs without it change nothing. On a single bottleneck the maximum over hops is the one hop, and the hop's value
is computed here from the telemetry between two sampled packets (the switch's own per-packet filter of
[PINT] sees every packet; over an RTT both average the same utilization).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from .base import FLOAT, INT, Events, Law, LawOption
from .registry import register_law

__all__ = ["Hpcc", "HpccPint", "hpcc_params", "HPCC_OPTIONS", "UPDATES", "CONTROLS", "TELEMETRY", "w_ai_rule"]

#: Reference-update choices (Alg. 1 line 22, or htsim's every-ACK reading).
UPDATES = ("per-rtt", "per-ack")
#: Control choices (Alg. 1's window, or the public code's rate without a window).
CONTROLS = ("window", "rate")
#: Telemetry reference choices (Alg. 1's previous ACK, or htsim's first ACK of the flow).
TELEMETRY = ("previous", "first")
#: The in-flight cap of the rate reading (packets): far above any BDP here, so pacing alone limits it.
CWND_CAP = 1.0e5


def hpcc_params(**over: float) -> dict[str, float]:
    """[HPCC]'s parameters in the engine's units: ``eta`` (1), ``max_stage`` (updates), ``w_ai`` (packets; 0 =
    the sizing rule :func:`w_ai_rule` with ``n_exp``), ``t_base`` (slots; 0 = the flow's base RTT), ``rate_min``
    (fraction of line rate), ``init_cwnd`` (the window before the first ACK: W_init = B·T, rounded up, when T is known), and PINT's ``pint_prob``,
    ``pint_base``, ``pint_seed``."""
    p = {
        "eta": 0.95,
        "max_stage": 5.0,
        "w_ai": 0.0,
        "n_exp": 10.0,
        "t_base": 0.0,
        "w0": 1.0,
        "rate_min": 1e-3,
        "init_cwnd": CWND_CAP,
        "pint_prob": 1.0,
        "pint_base": 1.01,
        "pint_seed": 0.0,
    }
    p.update({k: float(v) for k, v in over.items()})
    return p


def _link_params(context: Mapping[str, Any]) -> dict[str, float]:
    """[HPCC]'s parameters with T = the scenario link's base RTT in slots and the window W_init = B·T from the
    start (a flow with another base RTT keeps this T: [HPCC]'s T is one configured constant)."""
    link = None
    for key in ("dctcp", "dwtcp"):
        if context.get(key) is not None:
            link = context[key].link
    link = link or context.get("link")
    if link is None:
        return hpcc_params()
    T = float(link.C) * float(link.d)
    return hpcc_params(t_base=T, init_cwnd=float(np.ceil(T)))


def w_ai_rule(eta: Any, w_init: Any, n_exp: Any) -> Any:
    """W_AI from the sizing rule N_exp·W_AI = (1 − η)·W_init (packets)."""
    return (1.0 - eta) * w_init / n_exp


HPCC_OPTIONS: tuple[LawOption, ...] = (
    LawOption(
        "--eta", "HPCC target utilization η, 0 < η ≤ 1 ([HPCC]: 0.95).", 0.95, param="eta", lo=1e-3, hi=1.0
    ),
    LawOption(
        "--max-stage",
        "HPCC maxStage: additive updates before a multiplicative one ([HPCC]: 5; ns-3 scripts: 0).",
        5.0,
        param="max_stage",
        lo=0.0,
        hi=1e6,
    ),
    LawOption(
        "--w-ai",
        "HPCC additive increase W_AI (packets); 0 = (1 − η)·B·T/N_exp.",
        0.0,
        param="w_ai",
        lo=0.0,
        hi=1e6,
        unit="packets",
    ),
    LawOption(
        "--hpcc-nexp",
        "HPCC expected flow count N_exp of the W_AI sizing rule (htsim: 10).",
        10.0,
        param="n_exp",
        lo=1.0,
        hi=1e6,
    ),
    LawOption(
        "--hpcc-w0",
        "HPCC starting window W_init as a fraction of B·T ([HPCC]: 1, line rate).",
        1.0,
        param="w0",
        lo=1e-3,
        hi=1.0,
    ),
    LawOption(
        "--hpcc-update",
        "HPCC reference update: per-rtt ([HPCC] Alg. 1) or per-ack (htsim).",
        "per-rtt",
        option="update",
        choices=UPDATES,
    ),
    LawOption(
        "--hpcc-control",
        "HPCC control: window (Alg. 1, inflight ≤ W, pacing W/T) or rate (ns-3 code without window).",
        "window",
        option="control",
        choices=CONTROLS,
    ),
    LawOption(
        "--hpcc-telemetry",
        "HPCC telemetry reference L: previous ACK's ([HPCC] Alg. 1) or the flow's first ACK's (htsim).",
        "previous",
        option="telemetry",
        choices=TELEMETRY,
    ),
)

PINT_OPTIONS: tuple[LawOption, ...] = (
    LawOption(
        "--pint-prob",
        "PINT: fraction of packets carrying the telemetry value, 0 < p ≤ 1 (ns-3 scripts: 1).",
        1.0,
        param="pint_prob",
        lo=1e-6,
        hi=1.0,
    ),
    LawOption(
        "--pint-base",
        "PINT: quantization base 1 + ε of the carried utilization (ns-3 scripts: 1.01).",
        1.01,
        param="pint_base",
        lo=1.0,
        hi=2.0,
        lo_open=True,
    ),
    LawOption("--pint-seed", "PINT: seed of the sampling hash.", 0.0, param="pint_seed", lo=0.0, hi=1e9),
)


def _check(law: Any) -> None:
    if law.update not in UPDATES:
        raise ValueError(
            f"update={law.update!r} is invalid for law {law.name!r}: accepted one of {', '.join(UPDATES)}"
        )
    if law.control not in CONTROLS:
        raise ValueError(
            f"control={law.control!r} is invalid for law {law.name!r}: accepted one of {', '.join(CONTROLS)}"
        )
    if law.telemetry not in TELEMETRY:
        raise ValueError(
            f"telemetry={law.telemetry!r} is invalid for law {law.name!r}: accepted one of {', '.join(TELEMETRY)}"
        )


def _telemetry(ev: Events, law: str) -> tuple[Any, Any, Any, Any]:
    """The ACK's telemetry ``(qlen, tx, ts, rate)``: scalars and rate None on the single bottleneck (one hop at
    one packet per slot); per-hop vectors on routed ports, the rate in per mille of the highest (0: no hop)."""
    if ev.int_qlen is None:
        raise ValueError(
            f"law={law!r} is invalid here: it needs the in-band telemetry of the packet core's event engine"
        )
    rate = None if ev.int_rate is None else jnp.asarray(ev.int_rate, INT)
    return (jnp.asarray(ev.int_qlen, INT), jnp.asarray(ev.int_tx, INT), jnp.asarray(ev.int_ts, INT), rate)


def hop_keys(hops: int) -> tuple[tuple[str, str, str], ...]:
    """State fields of the telemetry L of each hop: ``(queue, tx counter, slot)``; hop 0 is ``lq``, ``ltx``,
    ``lts`` (the single bottleneck's), hop j ``lq{j}``, ``ltx{j}``, ``lts{j}``."""
    return tuple(("lq", "ltx", "lts") if j == 0 else (f"lq{j}", f"ltx{j}", f"lts{j}") for j in range(hops))


def _last(s: Mapping[str, Any], hops: int, per_hop: bool) -> tuple[Any, Any, Any]:
    """The stored telemetry L: scalars for the single bottleneck, per-hop vectors (last axis) on routed ports."""
    if not per_hop:
        return s["lq"], s["ltx"], s["lts"]
    return tuple(jnp.stack([s[k[i]] for k in hop_keys(hops)], axis=-1) for i in range(3))  # type: ignore[return-value]


def measure(
    s: Mapping[str, Any], q: Any, tx: Any, ts: Any, T: Any, L: tuple | None = None, rate: Any = None
) -> Any:
    """MeasureInflight, [HPCC] Alg. 1 lines 1-10: the new U.

    Single bottleneck (``rate`` None): one hop, B = 1 packet per slot, L = ``s``'s ``lq``, ``ltx``, ``lts``.
    Routed ports: ``q``, ``tx``, ``ts``, ``rate`` (per mille) and ``L`` are per-hop vectors; each hop j with
    B_j = rate_j/1000 gives u'_j = min(qlen_j, L.qlen_j)/(B_j·T) + txRate_j/B_j, and u is the largest u'_j, τ that
    hop's ack.ts − L.ts (the first hop on ties: Alg. 1 line 7's strict ``u' > u``); hops with rate 0 are no hops.
    At B = 1 every operation gives the single hop's bits (x/1 and 1·T are exact).

    The filter (1 − τ/T)·U + (τ/T)·u' is computed as U + (τ/T)·(u' − U): one product feeding a sum, which a
    compiler that contracts multiply-adds fuses the same way in every program (with two products it fuses either,
    and XLA's choice changed with the shapes of the engine's rings); the native loop fuses it explicitly."""
    lq, ltx, lts = (s["lq"], s["ltx"], s["lts"]) if L is None else L
    dts = jnp.maximum(ts - lts, 1).astype(FLOAT)
    tx_rate = (tx - ltx).astype(FLOAT) / dts
    if rate is None:
        u = jnp.minimum(q, lq).astype(FLOAT) / T + tx_rate
    else:
        B = rate.astype(FLOAT) / jnp.asarray(1000.0, FLOAT)
        hop = rate > 0
        Bs = jnp.where(hop, B, 1.0)
        u_j = jnp.where(hop, jnp.minimum(q, lq).astype(FLOAT) / (Bs * T) + tx_rate / Bs, -jnp.inf)
        j = jnp.argmax(u_j, axis=-1)[..., None]
        u = jnp.take_along_axis(u_j, j, axis=-1)[..., 0]
        dts = jnp.take_along_axis(dts, j, axis=-1)[..., 0]
        u = jnp.where(jnp.any(hop, axis=-1), u, s["u"])  # an ACK without a hop (none here) leaves U
    tau = jnp.minimum(dts, T)
    return s["u"] + (tau / T) * (u - s["u"])


def compute_wind(s: Mapping[str, Any], U: Any, update: Any, w_ai: Any, p: Mapping[str, Any]) -> tuple:
    """ComputeWind, [HPCC] Alg. 1 lines 11-20: ``(W, new W_c, new incStage)``."""
    mult = (U >= p["eta"]) | (s["stage"].astype(FLOAT) >= p["max_stage"])
    W = jnp.where(mult, s["wc"] / (jnp.maximum(U, 1e-6) / p["eta"]) + w_ai, s["wc"] + w_ai)
    wc = jnp.where(update, W, s["wc"])
    stage = jnp.where(update, jnp.where(mult, 0, s["stage"] + 1), s["stage"])
    return W, wc, stage


def hpcc_init(p: Mapping[str, Any], n: int, hops: int = 1) -> dict[str, Any]:
    """Per-flow state: cwnd cap and pacing rate (line rate until the first ACK), W, W_c, U, incStage,
    lastUpdateSeq, the previous ACK's telemetry L (one record per hop, :func:`hop_keys`) and whether there is
    one."""
    z = jnp.zeros(n, INT)
    extra = {k: z for hk in hop_keys(hops)[1:] for k in hk}
    return {
        "cwnd": jnp.full(
            n, jnp.where(p["init_cwnd"] < CWND_CAP, jnp.ceil(p["w0"] * p["init_cwnd"]), CWND_CAP), FLOAT
        ),
        "rate": jnp.full(n, p["w0"], FLOAT),
        "w": jnp.zeros(n, FLOAT),
        "wc": jnp.zeros(n, FLOAT),
        "u": jnp.ones(n, FLOAT),
        "stage": z,
        "lus": z,
        "lq": z,
        "ltx": z,
        "lts": z,
        "have": z,
        **extra,
    }


def hpcc_step(law: Any, s: dict[str, Any], ev: Events, p: Mapping[str, Any], U_of: Any) -> dict[str, Any]:
    """One event of HPCC; ``U_of(s, q, tx, ts, T, L, rate)`` → (the filtered U to keep, the U ComputeWind uses,
    whether this ACK carries it); ``L`` and ``rate`` as :func:`measure` takes them."""
    q, tx, ts, rate = _telemetry(ev, law.name)
    per_hop = rate is not None
    if per_hop and q.shape[-1] != law.int_hops:
        raise ValueError(
            f"int_hops={law.int_hops} is invalid for law {law.name!r}: the ACKs carry {q.shape[-1]} hops "
            "(accepted the route length, Law.with_int_hops)"
        )
    L = _last(s, law.int_hops, per_hop)
    T = jnp.where(p["t_base"] > 0, p["t_base"], jnp.maximum(jnp.asarray(ev.rtt, FLOAT), 1.0)).astype(FLOAT)
    w_init = p["w0"] * T  # w0·B·T, B = 1 packet per slot
    w_ai = jnp.where(p["w_ai"] > 0, p["w_ai"], w_ai_rule(p["eta"], w_init, p["n_exp"]))
    ack = jnp.asarray(ev.ack)
    first = ack & (s["have"] == 0)
    U_new, U, carried = U_of(s, q, tx, ts, T, L, rate)
    go = ack & ~first & carried
    wc0 = jnp.where(s["have"] == 0, w_init, s["wc"])
    st = dict(s, wc=wc0)
    upd = jnp.asarray(True) if law.update == "per-ack" else (ev.snd_una > s["lus"])
    W, wc, stage = compute_wind(st, U, go & upd, w_ai, p)
    W = jnp.clip(W, p["rate_min"] * T, CWND_CAP)  # the cap: a per-ACK reference can compound W without bound
    new_w = jnp.where(go, W, jnp.where(first, w_init, s["w"]))
    lus = jnp.where(first | (go & upd), ev.snd_nxt, s["lus"])
    # L ← ack.L (PINT: only a packet carrying the value; htsim's reading: only the first ACK)
    keep = ack & (first | (carried & (law.telemetry == "previous")))
    cap = jnp.maximum(jnp.ceil(new_w), 1.0) if law.control == "window" else jnp.full_like(new_w, CWND_CAP)
    touched = first | go
    hops = {}
    for j, (kq, kx, kt) in enumerate(hop_keys(law.int_hops)):
        qj, xj, tj = (q[..., j], tx[..., j], ts[..., j]) if per_hop else (q, tx, ts)
        hops[kq] = jnp.where(keep, qj, s[kq]).astype(INT)
        hops[kx] = jnp.where(keep, xj, s[kx]).astype(INT)
        hops[kt] = jnp.where(keep, tj, s[kt]).astype(INT)
    return {
        "cwnd": jnp.where(touched, cap, s["cwnd"]).astype(FLOAT),
        "rate": jnp.where(touched, jnp.clip(new_w / T, p["rate_min"], 1.0), s["rate"]).astype(FLOAT),
        "w": new_w.astype(FLOAT),
        "wc": jnp.where(go, wc, wc0).astype(FLOAT),
        "u": jnp.where(go, U_new, s["u"]).astype(FLOAT),
        "stage": jnp.where(go, stage, s["stage"]).astype(INT),
        "lus": lus.astype(INT),
        **{k: hops[k] for k in ("lq", "ltx", "lts")},
        "have": jnp.where(first, 1, s["have"]).astype(INT),
        **{k: v for k, v in hops.items() if k not in ("lq", "ltx", "lts")},
    }


@register_law
@dataclass(frozen=True)
class Hpcc(Law):
    """HPCC, [HPCC] Algorithm 1 (see the module docstring for units, defaults and interpretations).

    Parameters
    ----------
    update : {"per-rtt", "per-ack"}
        When the reference window W_c is updated.
    control : {"window", "rate"}
        Alg. 1's window with pacing, or the public code's rate without a window.
    telemetry : {"previous", "first"}
        The telemetry L that MeasureInflight compares with: the previous ACK's (Alg. 1) or the flow's first (htsim).
    int_hops : int
        Hops of telemetry per ACK: 1 on the single bottleneck; on routed ports the route length, which the engine
        sets (:meth:`with_int_hops`), not an option.
    """

    name: ClassVar[str] = "hpcc"
    signals: ClassVar[frozenset[str]] = frozenset({"int"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "u"
    aux_summary: ClassVar[str | None] = "u_mean"
    options: ClassVar[tuple[LawOption, ...]] = HPCC_OPTIONS
    update: str = "per-rtt"
    control: str = "window"
    telemetry: str = "previous"
    int_hops: int = 1

    def __post_init__(self) -> None:
        _check(self)
        if not (isinstance(self.int_hops, int) and 1 <= self.int_hops <= 64):
            raise ValueError(
                f"int_hops={self.int_hops!r} is out of range for law {self.name!r}: accepted 1..64"
            )

    def with_int_hops(self, hops: int) -> Hpcc:
        """This law keeping the telemetry L of ``hops`` hops (one record per hop of the route)."""
        return dataclasses.replace(self, int_hops=int(hops))

    def default_params(self, **context: Any) -> dict[str, float]:
        """[HPCC]'s parameters, T from the link (:func:`hpcc_params`)."""
        return _link_params(context)

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return hpcc_init(p, n, self.int_hops)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        def U_of(s: Mapping[str, Any], q: Any, tx: Any, ts: Any, T: Any, L: Any, rate: Any) -> tuple:
            U = measure(s, q, tx, ts, T, L, rate)
            return U, U, jnp.asarray(True)

        return hpcc_step(self, s, ev, p, U_of)


def pint_sampled(t: Any, seq: Any, prob: Any, seed: Any) -> Any:
    """Whether the packet of ACK slot ``t`` and sequence ``seq`` carries PINT's value: a 32-bit integer hash of
    (seed, t, seq) below ``prob``·2³² (deterministic; uniform over packets)."""
    h = (
        jnp.asarray(seq).astype(jnp.uint32) * jnp.uint32(2654435761)
        ^ jnp.asarray(t).astype(jnp.uint32) * jnp.uint32(40503)
        ^ jnp.asarray(seed).astype(jnp.uint32) * jnp.uint32(2246822519)
    )
    h = h ^ (h >> 15)
    h = h * jnp.uint32(2246822507)
    h = h ^ (h >> 13)
    u = (h >> 8).astype(FLOAT) / jnp.asarray(2.0**24, FLOAT)
    return u < prob


def pint_quantize(U: Any, base: Any) -> Any:
    """PINT's encoding of a utilization: the nearest power of ``base`` (1 + ε) in log scale."""
    lb = jnp.log(base)
    return jnp.exp(jnp.round(jnp.log(jnp.maximum(U, 1e-6)) / lb) * lb)


@register_law
@dataclass(frozen=True)
class HpccPint(Hpcc):
    """HPCC-PINT: [HPCC] Alg. 1 on [PINT]'s single sampled, quantized utilization (see the module docstring); the
    parameters are :func:`hpcc_params`' (PINT's among them, T from the link).

    Parameters
    ----------
    update, control, telemetry : as :class:`Hpcc`.
    """

    name: ClassVar[str] = "hpcc-pint"
    options: ClassVar[tuple[LawOption, ...]] = (*HPCC_OPTIONS, *PINT_OPTIONS)

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        def U_of(s: Mapping[str, Any], q: Any, tx: Any, ts: Any, T: Any, L: Any, rate: Any) -> tuple:
            carried = pint_sampled(ev.t, ev.snd_una, p["pint_prob"], p["pint_seed"])
            U = measure(s, q, tx, ts, T, L, rate)
            return U, pint_quantize(U, p["pint_base"]), carried

        return hpcc_step(self, s, ev, p, U_of)
