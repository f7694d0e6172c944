"""A native event loop for the packet core: an accelerator of the reference engine, bit-identical on its set.

The JAX engine (:mod:`..engine`) is the packet core's one definition of the slot semantics. This package runs the
same slots as hand-written native code (:mod:`.loop`, compiled by Numba, cached on disk), for the feature set that a
single bottleneck with ACK-clocked DCTCP, D2TCP or Reno flows, DWTCP flows with their Scouts, TIMELY, Patched
TIMELY or Swift flows (paced at their rate and their access link, RTT samples with uniform or Gaussian noise), HPCC
and HPCC-PINT flows (paced at their rate, reading the port's in-band telemetry per ACK), open-loop senders
(CBR or Poisson) and Scout-only probes needs: no jitter, random loss, delayed ACKs, capacity schedule, RED
marking or switch state, and no debug residual; on one bottleneck or on routed ports (:mod:`.ports`: chains
and fabrics of ports with their own rates, buffers, thresholds and Scout queues). Several laws run together when they are
open-loop senders and probes, or instances of one law (their parameters may differ) and probes. It returns the same
raw records as the reference, so summaries and traces cannot tell which engine ran; ``tests/test_packet_native.py``
(``tests/test_packet_native_hpcc.py`` for HPCC, ``tests/test_packet_native_ports.py`` on routed ports) checks
every record array for equality with the reference engine's (drops, timeouts, finite flows, Scout sends, drops and losses, paced rates included).
This second copy of the slot semantics is the one exception to "one definition per mechanism", accepted only
because it is proven bit-identical: a change of the reference engine must be made here too, or the tests fail.

Why: the reference compiles its slot loop into one XLA kernel, but XLA keeps every value in its own buffer
(~130 ns of CPU per data packet); this loop keeps a scenario's state in a few small flat arrays (~20 ns). A batch
runs its scenarios on threads (the loop releases the GIL), one per core.

:func:`unsupported` says which features of an :class:`~..state.EngineSpec` the native loop lacks; the dispatcher
(:func:`..batch.choose_engine`) runs it only when that is empty.
"""

from __future__ import annotations

import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..laws.d2tcp import D2tcp
from ..laws.dctcp import Dctcp
from ..laws.dwtcp import Dwtcp
from ..laws.hpcc import Hpcc, HpccPint
from ..laws.open_loop import OpenLoop, ScoutProbe
from ..laws.recovery import REDUCTIONS
from ..laws.reno import Reno
from ..laws.swift import Swift
from ..laws.timely import Timely
from ..laws.timely_patched import TimelyPatched
from ..state import EngineSpec
from . import cache as _cache  # noqa: F401 (before the loop's modules: their compiled code's cache key)
from .core import (
    LAW_D2TCP,
    LAW_DCTCP,
    LAW_DWTCP,
    LAW_HPCC,
    LAW_HPCC_PINT,
    LAW_OPEN,
    LAW_PROBE,
    LAW_RENO,
    LAW_SWIFT,
    LAW_TIMELY,
    LAW_TIMELY_PATCHED,
)

__all__ = ["unsupported", "run_prepared_native"]

_KINDS = {
    Dctcp: LAW_DCTCP,
    Reno: LAW_RENO,
    Dwtcp: LAW_DWTCP,
    D2tcp: LAW_D2TCP,
    Timely: LAW_TIMELY,
    TimelyPatched: LAW_TIMELY_PATCHED,
    Swift: LAW_SWIFT,
    OpenLoop: LAW_OPEN,
    ScoutProbe: LAW_PROBE,
    Hpcc: LAW_HPCC,
    HpccPint: LAW_HPCC_PINT,
}
#: Laws without state (their step changes nothing): they run beside one law with state, or with each other.
_STATELESS = (OpenLoop, ScoutProbe)
#: The static options of each law that the native loop implements (a new option is unsupported until it is).
_OPTIONS = {
    Dctcp: ("reduction", "ai_count"),
    D2tcp: ("reduction", "ai_count"),
    Reno: ("ecn", "reduction", "loss_entry", "lost_retransmit"),
    Dwtcp: ("data_increase", "slow_start", "ipg", "ssthresh_on_decrease", "scout_per"),
    Timely: (),
    TimelyPatched: (),
    Swift: ("split", "md_rtt"),
    OpenLoop: ("arrivals",),
    ScoutProbe: (),
    Hpcc: ("update", "control", "telemetry", "int_hops"),
    HpccPint: ("update", "control", "telemetry", "int_hops"),
}
#: The engine features the native loop runs, by law (every other feature is unsupported). A rate law paces (at
#: its rate, and an access link slower than the bottleneck) and reads RTT samples, with uniform or Gaussian noise;
#: HPCC paces at its rate and reads the port's in-band telemetry.
_RATE = frozenset({"rtt", "rate", "pacing", "gauss-noise"})
_INT = frozenset({"int", "rate", "pacing"})
_FEATURES = {
    Reno: frozenset({"rtx"}),
    Dwtcp: frozenset({"scouts", "paths"}),
    Timely: _RATE,
    TimelyPatched: _RATE,
    Swift: _RATE,
    OpenLoop: frozenset({"rate", "pacing"}),
    ScoutProbe: frozenset({"scouts"}),
    Hpcc: _INT,
    HpccPint: _INT,
}
_CUM = (
    "marks_cum",
    "scouts_sent_cum",
    "scouts_served_cum",
    "scouts_dropped_cum",
    "scouts_lost_cum",
    "scouts_wait_cum",
)


def unsupported(spec: EngineSpec) -> list[str]:
    """What of ``spec`` the native loop does not run (empty: it runs it bit-identically to the reference). Several
    laws run together when they are open-loop senders and Scout-only probes, or one law with state and probes."""
    types_ = {type(law) for law in spec.laws}
    stateful = {law for law in spec.laws if not isinstance(law, _STATELESS)}  # equal laws: one element
    mix_ok = len(stateful) == 0 or (len(stateful) == 1 and types_ - {ScoutProbe} == {type(*stateful)})
    ok = frozenset().union(*(_FEATURES.get(t, frozenset()) for t in types_)) | {"mixed", "ports"}
    out = [f"feature {f!r}" for f in sorted(spec.features - ok)]
    if spec.has("ports") and spec.has("int"):  # the native ports stamp no telemetry
        out.append("feature 'int' on routed ports")
    if not (types_ <= set(_KINDS) and mix_ok):
        names = ", ".join(law.name for law in _KINDS)
        out.append(
            f"law {'+'.join(law.name for law in spec.laws)!r} (native: {names}; together only open-loop and "
            "scout-probe, or one law (its instances may differ in parameters) and scout-probe)"
        )
    else:
        for law in spec.laws:
            extra = [f.name for f in dataclasses.fields(law) if f.name not in _OPTIONS[type(law)]]
            if extra:
                out.append(f"{law.name} option(s) {extra}")
    if {"int", "ports"} <= spec.features or any(getattr(law, "int_hops", 1) != 1 for law in spec.laws):
        out.append("in-band telemetry on routed ports (per-hop INT)")
    if spec.debug:
        out.append("debug residual")
    return out


def _inputs(spec: EngineSpec, s: dict[str, Any]) -> tuple[np.ndarray, ...]:
    from .core import N_SC
    from .delay_target import option_bits as swift_option_bits
    from .int_law import option_bits as hpcc_option_bits
    from .scout_law import option_bits

    main = next((i for i, law in enumerate(spec.laws) if not isinstance(law, _STATELESS)), 0)
    law = spec.laws[main]
    sc = np.zeros(N_SC, np.int64)
    if isinstance(law, Dwtcp):
        opt, red = option_bits(law), 0
    elif isinstance(law, Swift):
        opt, red = swift_option_bits(law), 0
    elif isinstance(law, Hpcc):
        opt, red = hpcc_option_bits(law), 0
    elif isinstance(law, Timely | TimelyPatched | OpenLoop | ScoutProbe):  # no options, no sender rule
        opt, red = 0, 0
    else:
        from .window import OPT_AI_FLOOR, OPT_DUPACK3, OPT_ECN, OPT_RTO_RTX

        ecn = True if isinstance(law, Dctcp) else getattr(law, "ecn")  # noqa: B009 (a Reno option)
        dup3 = getattr(law, "loss_entry", "first") == "dupack3"
        floor = getattr(law, "ai_count", "cwnd") == "floor"
        rto_rtx = getattr(law, "lost_retransmit", "report") == "rto"
        opt = (OPT_ECN if ecn else 0) | (OPT_DUPACK3 if dup3 else 0) | (OPT_AI_FLOOR if floor else 0)
        opt |= OPT_RTO_RTX if rto_rtx else 0
        red = REDUCTIONS.index(law.reduction)
    kind = _KINDS[type(law)]
    noisy = kind in (LAW_TIMELY, LAW_TIMELY_PATCHED, LAW_SWIFT) and float(s["rtt_noise"]) != 0.0
    uni = (
        (1 if bool(s["rtt_noise_uniform"]) else 2) if noisy else 0
    )  # the noise's draw: none, uniform, Gaussian
    sc[:] = [s["kth"], s["mark_dequeue"], s["buffer"], s["rto"], s["seed"], s["n_slots"], s["chunk"],
             kind, opt, red, spec.has("scouts"), s["scout_buffer"], spec.has("pacing"), uni]  # fmt: skip
    names = ("g", "alpha0", "init_cwnd", "min_cwnd", "beta_p", "s_over_l", "k", "alpha_min", "alpha_max",
             "scout_window", "d_min", "d_max", "alpha", "beta", "delta", "t_low", "t_high", "min_rtt", "seg",
             "hai_n", "hai_after", "rate_min", "init_rate", "serial", "rtt_ref")  # fmt: skip
    swift = ("ai", "beta", "max_mdf", "base_target", "h", "hops", "fs_range", "fs_min_cwnd", "fs_max_cwnd",
             "endpoint_target", "min_cwnd", "max_cwnd", "retx_reset")  # fmt: skip
    hpcc = ("eta", "max_stage", "w_ai", "n_exp", "t_base", "w0", "pint_prob", "pint_base", "pint_seed")
    lawp = np.array(
        [[q.get(k, 0.0) for k in names] + [s["rtt_noise"], s["access"]] + [q.get(k, 0.0) for k in swift + hpcc]
         for q in s["law"]],
        np.float32,
    )  # fmt: skip
    P = spec.n_ports if spec.has("ports") else 0
    shape = np.array(
        [spec.ack_rows, spec.ack_lanes, spec.dep_rows, spec.timer_rows, spec.timer_lanes, spec.n_chunks,
         spec.scout_cap, P, spec.route_len],
        np.int64,
    )  # fmt: skip
    if P:  # each flow's route (-1 padded), the ports' rates, buffers and thresholds
        route = np.asarray(s["route"], np.int64)
        pp = np.concatenate([np.asarray(s[k], np.int64) for k in ("port_rate", "port_buffer", "port_kth")])
    else:
        route, pp = np.zeros(1, np.int64), np.zeros(3, np.int64)
    fin = np.ascontiguousarray(s["fin"].reshape(spec.n_flows, -1))
    sdt = np.ascontiguousarray(fin[:, -1]).view(np.float32)
    order, start_at = np.asarray(s["order"], np.int64), np.asarray(s["start_at"], np.int64)
    # each law's kind (+256: geometric gaps) and each flow's initial window, traced field and pacing rate
    lk = np.array([_KINDS[type(x)] + (256 if x.poisson_pacing else 0) for x in spec.laws], np.int64)
    init = np.array([_initial(x, q) for x, q in zip(spec.laws, s["law"], strict=True)], np.float32)
    fx0 = np.ascontiguousarray(init[fin[:, 4]])
    return fin, sdt, fx0, lk, order, start_at, sc, lawp, shape, route, pp


def _initial(law: Any, p: dict[str, Any]) -> tuple[float, float, float]:
    """A flow's initial (window, traced field, pacing rate) under ``law`` with parameters ``p`` (its ``init``)."""
    if isinstance(law, Timely | TimelyPatched):
        return p["init_cwnd"], p["init_rate"], p["init_rate"]
    if isinstance(law, OpenLoop):
        return p["init_cwnd"], 0.0, p["rate"]
    if isinstance(law, Swift):  # cwnd max(w, 1), fcwnd w, rate 1 or w/base_target below one packet
        w = np.float32(p["init_cwnd"])
        return max(w, 1.0), w, 1.0 if w >= 1.0 else w / np.float32(p["base_target"])
    if isinstance(law, Hpcc):  # U = 1, the pacing rate w0 (line rate by default)
        from .int_law import initial_window

        return initial_window(p), 1.0, p["w0"]
    aux = p["alpha0"] if isinstance(law, Dctcp | D2tcp | Dwtcp) else 0.0
    return p["init_cwnd"], aux, 1.0


def _run(spec: EngineSpec, s: dict[str, Any]) -> dict[str, np.ndarray]:
    from .loop import N_REC, run_scenario, work_sizes
    from .scout_law import exp2_table

    C, N = spec.n_chunks, spec.n_flows
    out_f = np.zeros((C, 4, N), np.float32)
    out_i = np.zeros((C, 7, N), np.int32)
    out_q = np.zeros(C, np.float32)
    out_s = np.zeros(N_REC * C + N + 3, np.int32)
    sizes = (spec.ack_rows, spec.ack_lanes, spec.dep_rows, spec.timer_rows, spec.timer_lanes, spec.scout_cap)
    fin, sdt, fx0, lk, order, start_at, sc, lp, shape, route, pp = _inputs(spec, s)
    P = int(shape[7])
    ni, nf = work_sizes(N, *sizes, P)
    wi, wf = np.empty(ni, np.int64), np.empty(nf, np.float32)
    out_p, out_pi = np.zeros((C, max(P, 1)), np.float32), np.zeros((C, 4, max(P, 1)), np.int32)
    ex2 = exp2_table() if any(isinstance(x, Dwtcp) for x in spec.laws) else np.ones(1, np.float32)
    run_scenario(
        fin, sdt, fx0, lk, order, start_at, sc, lp, ex2, shape, wi, wf, out_f, out_i, out_q, out_s, route, pp,
        out_p, out_pi,
    )  # fmt: skip
    out: dict[str, np.ndarray] = {"q_sum": out_q}
    if P:  # per port, [chunk, P]
        out["port_q_sum"] = out_p.copy()
        for j, k in enumerate(("port_busy", "port_opps", "port_drops", "port_q_end")):
            out[k] = out_pi[:, j].copy()
    per_chunk = out_s[: N_REC * C].reshape(C, N_REC)
    for j, k in enumerate(("q_min", "q_max", "busy", "opps", "q_end") + _CUM):
        out[k] = per_chunk[:, j].copy()
    for j, k in enumerate(("cwnd_sum", "alpha_sum", "cwnd_end", "alpha_end")):
        out[k] = out_f[:, j].copy()
    keys = ("active", "inflight_end", "pending_end", "delivered_cum", "sent_cum", "drops_cum", "timeouts_cum")
    for j, k in enumerate(keys):
        out[k] = out_i[:, j].copy()
    out["random_losses_cum"] = np.zeros(C, np.int32)
    out["finish"] = out_s[N_REC * C : N_REC * C + N].copy()
    for j, k in enumerate(("spill", "tw_over", "tw_lost")):
        out[k] = out_s[N_REC * C + N + j].copy()
    return out


def run_prepared_native(
    spec: EngineSpec, scens: list[dict[str, Any]], workers: int | None = None
) -> list[dict[str, np.ndarray]]:
    """Run prepared scenarios (:func:`..engine.prepare`) in the native loop; the raw records of each, as the
    reference's :func:`..batch.run_prepared` returns them. A batch runs on ``workers`` threads (default: the
    CPU count), each scenario on one thread; results do not depend on the split."""
    bad = unsupported(spec)
    if bad:
        raise ValueError(f"engine='native' does not run {', '.join(bad)}: use engine='jax' or 'auto'")
    n = min(len(scens), int(workers) if workers else (os.cpu_count() or 1))
    if n <= 1:
        return [_run(spec, s) for s in scens]
    with ThreadPoolExecutor(n) as ex:
        return list(ex.map(lambda s: _run(spec, s), scens))
