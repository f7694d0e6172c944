"""Impairments of the packet core on hand-computed tiny cases: delayed ACKs (DCTCP's two-state receiver), random
loss, ACK-path jitter with and without reordering, a time-varying bottleneck, a long WAN RTT."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet import build, register_law, run
from dwtcp_fluid.packet.laws import Events, Law
from dwtcp_fluid.packet.laws.base import FLOAT
from dwtcp_fluid.packet.receiver import delack_receive

SLOT = 1500 * 8 / 10e9  # one slot at 10 Gbps with 1500-byte packets
I = jnp.int32


def slots(n: float) -> float:
    return n * SLOT


def one_flow(**kw: Any) -> tuple[Any, dict]:
    """One Reno flow, ECN off in effect, no start jitter, one chunk per slot."""
    base = dict(flows=1, K=1e6, start_jitter=False, law_params={"init_cwnd": 2.0})
    base.update(kw)
    dur = base.pop("n_slots") * SLOT - SLOT / 2
    pr = build("reno", duration=dur, trace_points=10**6, debug=True, **base)
    out = run(pr)
    assert pr.cfg.chunk == 1
    return pr, out


def test_two_state_receiver_acknowledges_marks_exactly():
    """CE sequence 0 0 1 1 1 0 with m = 2: ACKs (2 packets, ECE 0), (2, ECE 1), then the CE change acknowledges
    the single held marked packet at once (1, ECE 1); the last packet stays held. Marked packets the sender
    counts (packets of ECE ACKs) = 3, exactly the marked ones ([DCTCP] section 3.1)."""
    st = {"cnt": I(0), "ce": I(0), "nloss": I(0), "sent": I(0)}
    acks = []
    for i, ce in enumerate([0, 0, 1, 1, 1, 0]):
        r = delack_receive(st, jnp.asarray(True), jnp.asarray(bool(ce)), I(0), I(i), I(2))
        for kind in ("flush", "full"):
            if bool(r[kind]):
                acks.append((int(r[f"{kind}_n"]), int(r[f"{kind}_ece"]), int(r[f"{kind}_sent"])))
        st = r["state"]
    assert acks == [(2, 0, 1), (2, 1, 3), (1, 1, 4)]
    assert int(st["cnt"]) == 1 and int(st["ce"]) == 0
    assert sum(n for n, ece, _ in acks if ece) == 3


def test_delayed_acks_every_m_packets_or_timeout_by_hand():
    """One Reno flow, RTT 10 slots, initial window 3, one ACK per 2 packets or 5 slots. Packets leave in slots
    0, 1, 2: the ACK of 0-1 reaches the sender at 11; packet 2 is flushed by the timer at 2 + 5 = 7, its ACK
    arrives at 17. At 11 the window grows by 2 (slow start, +packets acknowledged) to 5: packets leave in 11-14,
    acknowledged in pairs at 22 and 24; at 17 the window is 6: two more leave in 17, 18."""
    _, out = one_flow(
        rtts=[slots(10)], delack=2, delack_timeout=slots(5), n_slots=25, law_params={"init_cwnd": 3.0}
    )
    rec = out["records"]
    got = {t: int(n) for t, n in enumerate(rec["delivered"][:, 0]) if n}
    assert got == {11: 2, 17: 1, 22: 2, 24: 2}
    assert np.flatnonzero(rec["busy"]).tolist() == [0, 1, 2, 11, 12, 13, 14, 17, 18, 22, 23, 24]
    assert out["conservation_error"] == 0.0


def test_every_packet_lost_times_out_every_rto_by_hand():
    """Loss probability 1 (in float32): the two first packets (slots 0, 1) are lost after the bottleneck, no ACK
    comes back, and the retransmission timer (10 slots from the send that armed it) fires at 10, 20, 30, 40, each
    time restarting from one packet that is lost again."""
    _, out = one_flow(rtts=[slots(4)], rto=slots(10), loss=1 - 2**-25, n_slots=45)
    rec = out["records"]
    assert np.flatnonzero(rec["sent"][:, 0]).tolist() == [0, 1, 10, 20, 30, 40]
    assert np.flatnonzero(rec["timeouts"][:, 0]).tolist() == [10, 20, 30, 40]
    assert out["random_losses"] == 6 and rec["delivered"].sum() == 0
    assert out["conservation_error"] == 0.0  # lost packets are still departures (busy) at the switch


def test_random_loss_rate_and_conservation():
    """p = 1 %: the lost fraction of departures is within 4 binomial standard deviations of p, every loss is
    reported or still pending (debug residual 0), and the seed fixes the losses."""
    kw = dict(flows=2, duration="20ms", loss=0.01, debug=True, trace_points=50)
    a, b = run(build("dctcp", **kw)), run(build("dctcp", **kw))
    n = float(a["records"]["busy"].sum())
    p = a["random_losses"] / n
    assert abs(p - 0.01) < 4 * np.sqrt(0.01 * 0.99 / n)
    assert a["conservation_error"] == 0.0 and a["random_losses"] == b["random_losses"]
    c = run(build("dctcp", seed=5, **kw))
    assert c["random_losses"] != a["random_losses"]


def test_constant_jitter_delays_every_ack_by_hand():
    """Every ACK delayed by exactly 3 slots (a jitter distribution with one value): with RTT 4 and window 2, the
    packets of slots 0, 1 are acknowledged at 7, 8 (not 4, 5), and the slow-start bursts follow from there."""
    _, out = one_flow(rtts=[slots(4)], jitter_dist=[slots(3)] * 4, n_slots=16)
    rec = out["records"]
    assert np.flatnonzero(rec["delivered"][:, 0]).tolist() == [7, 8, 14, 15]
    assert rec["busy"].tolist() == [1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1]


@register_law
@dataclass(frozen=True)
class PacedProbe(Law):
    """Paces at 0.2 of the line rate; its traced field is the mean of its RTT samples."""

    name: ClassVar[str] = "paced-probe-test"
    signals: ClassVar[frozenset[str]] = frozenset({"rtt"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "mean_rtt"

    def default_params(self, **context: Any) -> dict[str, float]:
        return {}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        z = jnp.zeros(n, FLOAT)
        return {
            "cwnd": jnp.full(n, 1e6, FLOAT),
            "rate": jnp.full(n, 0.2, FLOAT),
            "sum": z,
            "k": z,
            "mean_rtt": z,
        }

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        add = jnp.where(ev.ack, 1.0, 0.0)
        tot, k = s["sum"] + add * ev.rtt_sample, s["k"] + add
        mean = tot / jnp.maximum(k, 1.0)
        return {"cwnd": s["cwnd"], "rate": s["rate"], "sum": tot, "k": k, "mean_rtt": mean.astype(FLOAT)}


def test_jitter_mean_delay_and_no_reordering():
    """Uniform jitter on [0, 40] slots, one flow paced every 5 slots. With reordering the mean RTT sample is the
    base RTT + 20 slots; without, an ACK waits for the one before it (a later arrival for some), so the mean is
    larger, and the seed fixes every draw."""
    kw = dict(flows=1, duration="8ms", jitter=slots(40), trace_points=20, start_jitter=False)
    on = run(build("paced-probe-test", jitter_reorder=True, **kw))
    off = run(build("paced-probe-test", jitter_reorder=False, **kw))
    rtt = 83
    m_on, m_off = float(on["records"]["alpha_end"][-1, 0]), float(off["records"]["alpha_end"][-1, 0])
    assert m_on == pytest.approx(rtt + 20, abs=1.5)
    assert m_off > m_on + 1.0
    again = run(build("paced-probe-test", jitter_reorder=False, **kw))
    assert float(again["records"]["alpha_end"][-1, 0]) == m_off


def test_half_capacity_serves_every_other_slot_by_hand():
    """Capacity C/2 for 20 slots, then C. At half rate a transmission completes in slots 1, 3, 5, ...: packet 0
    (sent in slot 0) leaves in 1, packet 1 (sent in 1, behind packet 0) in 3; their ACKs (RTT 4) come at 5, 7 and
    each sends one packet more in slow start, which leave in 5, 7, 9, 11, ..."""
    C = 10e9 / (1500 * 8)
    sched = [(0.0, C / 2), (slots(20), C)]
    _, out = one_flow(rtts=[slots(4)], capacity_schedule=sched, n_slots=40)
    rec = out["records"]
    assert rec["busy"][:12].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    assert rec["opps"][:20].sum() == 10 and rec["opps"][20:].tolist() == [1] * 20
    assert np.flatnonzero(rec["delivered"][:9, 0]).tolist() == [5, 7]
    assert out["conservation_error"] == 0.0


def test_wan_rtt_of_20ms():
    """One flow over a 20 ms path (16,667 slots at 10 Gbps): its first ACK arrives exactly one RTT after its
    first packet; the ACK wheel is sized by the RTT, not the run."""
    pr = build(
        "reno", flows=1, rtts=["20ms"], duration="25ms", trace_points=250, start_jitter=False, debug=True
    )
    out = run(pr)
    rec = out["records"]
    chunk = pr.cfg.chunk
    first = int(np.flatnonzero(rec["delivered"][:, 0])[0])
    assert first == 16667 // chunk
    assert out["conservation_error"] == 0.0
