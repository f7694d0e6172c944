"""HPCC and HPCC-PINT packet laws ([HPCC] Alg. 1, [PINT]) against hand-computed sequences, and the in-band
telemetry the single-bottleneck engine stamps on each data packet (signal "int") against the slot semantics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet import build, register_law, run
from dwtcp_fluid.packet.laws import Events, Law, get_law
from dwtcp_fluid.packet.laws.base import FLOAT, INT
from dwtcp_fluid.packet.laws.hpcc import hpcc_params, pint_quantize, pint_sampled
from dwtcp_fluid.params import LinkParams

TOL = 1e-5  # float32 law arithmetic on values of order 10


def _ev(t: int, una: int, nxt: int, q: int, tx: int, ts: int, ack: bool = True) -> Events:
    return Events(t=t, ack=ack, snd_una=una, snd_nxt=nxt, rtt=10.0, int_qlen=q, int_tx=tx, int_ts=ts)


def _run(law: Law, p: dict, evs: list[Events]) -> list[dict]:
    s = {k: v[0] for k, v in law.init(p, 1).items()}
    out = []
    for ev in evs:
        s = {k: np.asarray(v) for k, v in law.step(s, ev, p).items()}
        out.append(s)
    return out


def test_hpcc_alg1_hand_sequence():
    """η = 0.95, maxStage = 2, W_AI = 1, T = 10 slots (B = 1 packet/slot), computed by hand from [HPCC] Alg. 1:

    1. first ACK: L ← (q 4, tx 100, ts 10); W = W_c = W_init = B·T = 10; lastUpdateSeq ← snd_nxt = 15.
    2. (6, 102, 12): txRate = 2/2 = 1, u' = min(6, 4)/10 + 1 = 1.4, τ = 2, U = 0.8·1 + 0.2·1.4 = 1.08;
       seq 2 ≤ 15: W = 10/(1.08/0.95) + 1 = 9.7962963, W_c stays 10.
    3. (2, 110, 20): u' = min(2, 6)/10 + 8/8 = 1.2, τ = 8, U = 0.2·1.08 + 0.8·1.2 = 1.176; seq 16 > 15: W = W_c =
       10·0.95/1.176 + 1 = 9.0782313, incStage 0, lastUpdateSeq ← 25.
    4. (0, 113, 30): txRate = 0.3, τ = T, U = 0.3 < η, incStage 0 < 2: W = W_c = 10.0782313, incStage 1.
    5. (0, 118, 40): U = 0.5, incStage 1 < 2: W = W_c = 11.0782313, incStage 2.
    6. (0, 125, 50): U = 0.7, incStage 2 ≥ maxStage: W = 11.0782313·0.95/0.7 + 1 = 16.0347996, incStage 0.
    """
    law = get_law("hpcc")
    p = hpcc_params(eta=0.95, max_stage=2.0, w_ai=1.0)
    evs = [
        _ev(20, 1, 15, 4, 100, 10),
        _ev(21, 2, 16, 6, 102, 12),
        _ev(30, 16, 25, 2, 110, 20),
        _ev(40, 26, 35, 0, 113, 30),
        _ev(50, 36, 45, 0, 118, 40),
        _ev(60, 46, 55, 0, 125, 50),
    ]
    out = _run(law, p, evs)
    W = [10.0, 9.7962963, 9.0782313, 10.0782313, 11.0782313, 16.0347996]
    Wc = [10.0, 10.0, 9.0782313, 10.0782313, 11.0782313, 16.0347996]
    U = [1.0, 1.08, 1.176, 0.3, 0.5, 0.7]
    stage = [0, 0, 0, 1, 2, 0]
    for k, s in enumerate(out):
        assert float(s["w"]) == pytest.approx(W[k], rel=TOL), k
        assert float(s["wc"]) == pytest.approx(Wc[k], rel=TOL), k
        assert float(s["u"]) == pytest.approx(U[k], rel=TOL), k
        assert int(s["stage"]) == stage[k], k
        assert float(s["rate"]) == pytest.approx(min(W[k] / 10.0, 1.0), rel=TOL), k  # R = W/T
        assert float(s["cwnd"]) == np.ceil(W[k]), k  # inflight ≤ ⌈W⌉
    assert [int(s["lus"]) for s in out] == [15, 15, 25, 35, 45, 55]


def test_hpcc_per_ack_reference_and_rate_control():
    """Per-ACK reference update (htsim's reading): ACK 2 of the sequence above moves W_c to 9.7962963 at once; the
    rate reading keeps no window (cap 1e5) and the same pacing rate W/T."""
    p = hpcc_params(eta=0.95, max_stage=2.0, w_ai=1.0)
    evs = [_ev(20, 1, 15, 4, 100, 10), _ev(21, 2, 16, 6, 102, 12)]
    per_ack = _run(get_law("hpcc", update="per-ack"), p, evs)
    assert float(per_ack[1]["wc"]) == pytest.approx(9.7962963, rel=TOL)
    rate = _run(get_law("hpcc", control="rate"), p, evs)
    assert float(rate[1]["cwnd"]) == 1e5
    assert float(rate[1]["rate"]) == pytest.approx(0.97962963, rel=TOL)


def test_hpcc_first_ack_telemetry():
    """htsim's reading (telemetry "first"): L stays the first ACK's (q 4, tx 100, ts 10), computed by hand on the
    sequence above: ACK 2 as Alg. 1 (U = 1.08); ACK 3 (2, 110, 20): txRate = 10/10 = 1, u' = min(2, 4)/10 + 1 =
    1.2, τ = T, U = 1.2, seq 16 > 15: W = W_c = 10·0.95/1.2 + 1 = 8.9166667; ACK 4 (0, 113, 30): txRate = 13/20 =
    0.65, τ = T, U = 0.65 < η, incStage 0 < 2: W = W_c = 9.9166667."""
    p = hpcc_params(eta=0.95, max_stage=2.0, w_ai=1.0)
    evs = [
        _ev(20, 1, 15, 4, 100, 10),
        _ev(21, 2, 16, 6, 102, 12),
        _ev(30, 16, 25, 2, 110, 20),
        _ev(40, 26, 35, 0, 113, 30),
    ]
    out = _run(get_law("hpcc", telemetry="first"), p, evs)
    for k, (w, u) in enumerate([(10.0, 1.0), (9.7962963, 1.08), (8.9166667, 1.2), (9.9166667, 0.65)]):
        assert float(out[k]["w"]) == pytest.approx(w, rel=TOL), k
        assert float(out[k]["u"]) == pytest.approx(u, rel=TOL), k
        assert (int(out[k]["lq"]), int(out[k]["ltx"]), int(out[k]["lts"])) == (4, 100, 10), k
    with pytest.raises(ValueError, match="telemetry='last' is invalid"):
        get_law("hpcc", telemetry="last")


def test_hpcc_w_ai_rule_and_timer_events():
    """W_AI = 0 applies N_exp·W_AI = (1 − η)·B·T: T = 10, η = 0.9, N_exp = 4 → W_AI = 0.25; a timer event (no ACK)
    changes nothing."""
    law = get_law("hpcc")
    p = hpcc_params(eta=0.9, max_stage=0.0, n_exp=4.0)
    evs = [_ev(20, 1, 15, 0, 100, 10), _ev(30, 2, 16, 0, 110, 20), _ev(31, 2, 16, 0, 0, 0, ack=False)]
    out = _run(law, p, evs)
    # ACK 2: txRate = 1, U = 0.0·1 + 1.0·1 (τ = T) = 1; multiplicative (maxStage 0): W = 10·0.9/1 + 0.25
    assert float(out[1]["w"]) == pytest.approx(9.25, rel=TOL)
    assert {k: float(v) for k, v in out[2].items()} == {k: float(v) for k, v in out[1].items()}


def test_pint_quantization_and_sampling():
    """PINT's value is the nearest power of 1 + ε in log scale (1.01^10 = 1.1046221 for 1.1, 1.01^-9 = 0.9143398
    for 0.914), and a fraction p of packets carries it (p = 0.25 over 20000 packets: 0.25 ± 0.015, 5σ)."""
    assert float(pint_quantize(jnp.asarray(1.1, FLOAT), 1.01)) == pytest.approx(1.01**10, rel=1e-5)
    assert float(pint_quantize(jnp.asarray(0.914, FLOAT), 1.01)) == pytest.approx(1.01**-9, rel=1e-5)
    seq = jnp.arange(20000, dtype=INT)
    frac = float(jnp.mean(pint_sampled(seq * 3 + 7, seq, 0.25, 0.0)))
    assert frac == pytest.approx(0.25, abs=0.015)
    assert bool(jnp.all(pint_sampled(seq, seq, 1.0, 0.0)))


def test_hpcc_pint_with_every_packet_and_fine_base_follows_hpcc():
    """With p = 1 the PINT law runs ComputeWind on the quantized U: at base 1.0001 its windows stay within 0.01 %
    of HPCC's on the hand sequence."""
    p = hpcc_params(eta=0.95, max_stage=2.0, w_ai=1.0, pint_prob=1.0, pint_base=1.0001)
    evs = [_ev(20, 1, 15, 4, 100, 10), _ev(21, 2, 16, 6, 102, 12), _ev(30, 16, 25, 2, 110, 20)]
    a = _run(get_law("hpcc"), p, evs)
    b = _run(get_law("hpcc-pint"), p, evs)
    for x, y in zip(a, b, strict=True):
        assert float(y["w"]) == pytest.approx(float(x["w"]), rel=1e-4)


@register_law
@dataclass(frozen=True)
class IntProbe(Law):
    """A fixed window that records the telemetry of its ACKs: the last queue, the largest gap between the port's
    transmitted packets and the slots elapsed (0 on a busy port), and the ACK's lag after the departure slot."""

    name: ClassVar[str] = "int-probe-test"
    signals: ClassVar[frozenset[str]] = frozenset({"int"})
    aux: ClassVar[str | None] = "q"

    def default_params(self, **context: Any) -> dict[str, float]:
        return {"w": 60.0}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        z = jnp.zeros(n, INT)
        return {"cwnd": jnp.full(n, p["w"], FLOAT), "q": jnp.zeros(n, FLOAT), "gap": z, "lag": z, "ltx": z,
                "lts": z}  # fmt: skip

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        on = jnp.asarray(ev.ack) & (s["lts"] > 0)
        gap = jnp.abs((ev.int_tx - s["ltx"]) - (ev.int_ts - s["lts"]))
        return {
            "cwnd": s["cwnd"],
            "q": jnp.where(ev.ack, ev.int_qlen, s["q"]).astype(FLOAT),
            "gap": jnp.where(on & (ev.t > 2000), jnp.maximum(s["gap"], gap), s["gap"]).astype(INT),
            "lag": jnp.where(ev.ack, ev.t - ev.int_ts, s["lag"]).astype(INT),
            "ltx": jnp.where(ev.ack, ev.int_tx, s["ltx"]).astype(INT),
            "lts": jnp.where(ev.ack, ev.int_ts, s["lts"]).astype(INT),
        }


def test_engine_telemetry_matches_slot_semantics():
    """Two flows with a fixed window of 60 over 100 µs at 10 Gbps (C·d = 83 slots) keep 120 − 83 = 37 packets
    queued (tests/test_packet_interface.py): the telemetry echoes a queue of 36-37 behind each departing packet, a
    port that sends one packet per slot (transmitted packets = slots elapsed between two ACKs), and reaches the
    sender one base RTT (83 slots) after the departure."""
    pr = build(
        "int-probe-test", flows=2, duration="3ms", K=1000, buffer=500, trace_points=10, start_jitter=False
    )
    pk = run(pr)
    rec = pk["records"]
    q_last = rec["alpha_end"][-1]
    assert np.all((q_last >= 36) & (q_last <= 37)), q_last
    assert pk["utilization"] == pytest.approx(1.0, abs=0.02)


@pytest.mark.slow
def test_hpcc_single_bottleneck_standing_queue():
    """Four HPCC flows, 25 Gbps, 20 µs (B·T = 41.7 packets), W_AI = 1, η = 0.95: the fixed point of Alg. 1 has
    N·W = η·B·T + N·W_AI, so the queue stands at N·W_AI − (1 − η)·B·T = 4 − 2.08 = 1.9 packets at full utilization
    (``proofs/hpcc.md``); the packet run's mean queue is within 1.5 packets and its utilization above 0.97."""
    link = LinkParams(capacity="25Gbps", rtt="20us")
    pr = build("hpcc", link=link, flows=4, duration="2ms", buffer=2000, trace_points=20, start_jitter=False,
               law_params={"w_ai": 1.0})  # fmt: skip
    pk = run(pr)
    assert pk["queue_mean"] == pytest.approx(1.92, abs=1.5)
    assert pk["utilization"] > 0.97


def test_hpcc_engines_and_multihop_refusal():
    """The native loop runs the telemetry (``auto`` picks it); an impairment it lacks (random loss) runs on the
    reference and ``engine="native"`` names it; the multi-hop core has no telemetry, so the law refuses it with
    one line."""
    from dwtcp_fluid.packet.batch import choose_engine, stack
    from dwtcp_fluid.packet.engine import spec_for

    pr = build("hpcc", flows=2, duration="1ms")
    assert choose_engine(spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario])), "auto") == "native"
    pr = build("hpcc", flows=2, duration="1ms", loss=0.01)
    spec = spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))
    assert choose_engine(spec, "auto") == "jax"
    with pytest.raises(ValueError, match="loss"):
        choose_engine(spec, "native")
    with pytest.raises(ValueError, match="in-band telemetry"):
        get_law("hpcc").step(get_law("hpcc").init(hpcc_params(), 1), Events(t=1, ack=True), hpcc_params())
