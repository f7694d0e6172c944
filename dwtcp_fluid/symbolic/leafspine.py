"""Leaf-spine fabrics and [PROXY]'s hop signals: what the fluid network model and TIMELY's law imply, checked.

Two checked statements behind the packet-level findings of the leaf-spine cross-check
(:mod:`dwtcp_fluid.crosscheck.leafspine`) and of the registered figure ``proxy_signals``:

* the DCTCP network model ([DCTCP-A] (5)-(8) over a routing matrix) has no access links: its queue equation lets
  a lone flow's rate W/R exceed the line rate, so a port fed by one line-rate link queues in the model and cannot
  in a network; the mean-field fixed point with line-rate access caps (:func:`~dwtcp_fluid.analysis.
  network_fixed_point.network_fixed_point`) reproduces the parking lot's fixed point exactly when uncapped;
* [TIMELY] Algorithm 1 below T_low adds δ whatever the RTT sample, so a hop signal f(q) changes nothing while
  base RTT + f(q) < T_low.
"""

from __future__ import annotations

import numpy as np

from ..analysis.multihop import parking_lot_fixed_point
from ..analysis.network_fixed_point import network_fixed_point
from ..models.dctcp_network import DctcpNetwork, NetworkParams
from .derivation import Derivation, Finding, Step, eq, numeric, predicate

__all__ = ["leafspine"]

_C, _K, _D = 10e9 / 8 / 1500, 65.0, 1e-4


def _lone_flow_queues() -> tuple[bool, str]:
    """dq/dt of the one-link model at q = 0 with W = 2·C·R: the model's queue grows at C (the line rate caps it at 0)."""
    m = DctcpNetwork(((0,),))
    p = m.numeric_params(NetworkParams(((0,),)))
    R = p["d_1"]
    x = (2.0 * p["C_1"] * R, 0.5, 0.0)
    dq = float(m.rhs(x, x, 1, p, np)[2])
    return abs(dq - p["C_1"]) < 1e-6 * p["C_1"], f"dq/dt = {dq:.6g} packets/s = C at W = 2·C·R, q = 0"


def _timely_ignores_signal() -> tuple[bool, str]:
    """TIMELY's step from one state with samples base + f for f = 0, 5, 20 µs (all below T_low): equal rates."""
    import jax.numpy as jnp

    from ..packet.laws.base import Events
    from ..packet.laws.timely import Timely

    law = Timely()
    p = law.default_params()
    s = {**law.init(p, 1), "prev_rtt": jnp.array([20.0]), "seg_acked": jnp.array([100])}
    base = 16.7  # 20 µs in slots at 10 Gbps
    rates = []
    for f_us in (0.0, 5.0, 20.0):
        sample = base + p["serial"] + f_us * 1e-6 * _C
        ev = Events(t=1, ack=jnp.array([True]), rtt_sample=jnp.array([sample]))
        rates.append(float(law.step(dict(s), ev, p)["rate"][0]))
    ok = max(rates) - min(rates) == 0.0 and abs(rates[0] - (p["init_rate"] + p["delta"])) < 1e-6
    return ok, f"rates {rates} (init {p['init_rate']} + δ {p['delta']:.6g})"


def leafspine() -> Derivation:
    """The derivation rendered to proofs/leafspine.md."""
    pl = parking_lot_fixed_point(3, _C, _K, _D)
    routes = ((0, 1, 2), (0,), (1,), (2,))
    steps = [
        Step(
            "The network model has no access links",
            "[DCTCP-A] eq. (7) per link",
            "Per link dq_l/dt = Σ_i A_li N_i W_i/R_i − C_l: nothing caps a flow's rate W/R at its host's line rate, so"
            " one flow alone on a port with W > C·R fills it; in a network its packets arrive at most one per slot"
            " and that port never queues.",
            [eq(r"\dot q\,|_{q=0,\,W=2CR}", "C")],
            predicate(_lone_flow_queues, "the model's right-hand side evaluated at one link, one flow"),
        ),
        Step(
            "Mean-field fixed point on any routing = the parking lot's when uncapped",
            "[DCTCP-A] eqs. (5)-(8)",
            "W_i = 2/P_i², P_i = 1 − Π(1 − p_l), each link full or unmarked (Fischer–Burmeister complementarity):"
            " on the 3-hop parking lot it returns the parking lot's own mark fraction.",
            [eq("p", f"{pl.p:.6f}")],
            numeric(
                lambda: float(network_fixed_point(routes, (1, 1, 1, 1), _C, _K, _D).p[0]), pl.p, rtol=1e-8
            ),
        ),
        Step(
            "Below T_low TIMELY ignores the signal",
            "[TIMELY] Algorithm 1 ([PROXY] §2.2)",
            "RTT < T_low ⇒ rate ← rate + δ, whatever the sample; a hop signal f(q) enters only once base RTT + f(q)"
            " ≥ T_low. With a 20 µs base RTT and T_low = 50 µs, SUM, MAX and SUM_SQU act alike until the path"
            " queues hold 30 µs.",
            [eq(r"r_{new}", r"r + \delta \quad (RTT < T_{low})")],
            predicate(_timely_ignores_signal, "the packet law's step for three samples below T_low"),
        ),
    ]
    findings = [
        Finding(
            "Leaf-spine in the DCTCP network model",
            "(not treated: [DWTCP] evaluates on a leaf-spine; [DCTCP-A] leaves general networks open)",
            "Fed the packet fabric's ECMP routing, the model's mean-field fixed point with line-rate access links"
            " matches the packet core on ECMP collisions (leaf-spine:4x2 permutations, every flow behind one"
            " bottleneck: shares exact to 1e-3, port queues within 0.11·K). The model as solved (DDE) has no access"
            " links: it queues to ≈ 0.97·K at every port one line-rate link feeds, where the packet queue is 0. On"
            " all-to-all loads (flows crossing a queued uplink and a queued downlink) the packet runs are stationary"
            " and both fluid readings miss the flow shares (200 ms, seeds 1 and 3): mean-field by 24 % and 21 %, the"
            " DDE by 31 % and 81 %.",
            "new finding",
            "The network model has no access links",
        ),
        Finding(
            "[PROXY]: MAX gives the lowest FCT",
            "[PROXY] §3.3, Fig. 9: the MAX function enables shorter flow completion times",
            "Not reproduced on leaf-spine:4x2 with web-search flows at 40 % load over 12 elephants (20 µs base RTT):"
            " mean FCT slowdown SUM 6.02, MAX 6.00, SUM_SQU 6.13 (2.2 % spread), DCTCP's one-bit IND 3.26. The mean"
            " path queueing is ~1 µs, far below the 30 µs at which Algorithm 1 starts reading the signal. On the"
            " skinny path, where queues oscillate, [PROXY]'s other claims hold: SUM gives the primary flow 3 % of its"
            " fair share (MAX 41 %) and the lowest path RTT (32.6 µs vs 36.4 µs). Figure proxy_signals checks these.",
            "not reproduced (depends on the load)",
            "Below T_low TIMELY ignores the signal",
        ),
    ]
    return Derivation(
        slug="leafspine",
        title="Leaf-spine fabrics and [PROXY]'s hop signals: the network model's access links, TIMELY below T_low",
        covers="[DCTCP-A] eqs. (5)-(8) over a leaf-spine routing; [TIMELY] Algorithm 1 with [PROXY]'s f(q).",
        findings=findings,
        steps=steps,
    )
