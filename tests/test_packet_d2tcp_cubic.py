"""D2TCP and CUBIC packet laws against hand-computed events, and D2TCP with d = 1 against DCTCP bit for bit."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet import build, run
from dwtcp_fluid.packet.laws import Dctcp, Events, get_law
from dwtcp_fluid.packet.laws.base import NEVER
from dwtcp_fluid.packet.laws.cubic import Cubic, cubic_k, cubic_window
from dwtcp_fluid.packet.laws.d2tcp import D2tcp, gamma_penalty, imminence
from dwtcp_fluid.packet.laws.recovery import reduction_init

F = jnp.float32


def ev(t=0, ack=True, mark=False, nloss=0, snd_nxt=0, snd_una=0, rtt=100.0, size=2**30, deadline=NEVER,
       rtt_sample=0.0, timeout=False):  # fmt: skip
    i = lambda v: jnp.asarray([v], jnp.int32)  # noqa: E731
    b = lambda v: jnp.asarray([v], bool)  # noqa: E731
    return Events(
        t=jnp.int32(t), ack=b(ack), mark=b(mark), nloss=i(nloss), timeout=b(timeout), snd_nxt=i(snd_nxt),
        snd_una=i(snd_una), rtt=jnp.asarray([rtt], F), n_acked=i(1), size=i(size), deadline=i(deadline),
        rtt_sample=jnp.asarray([rtt_sample], F),
    )  # fmt: skip


def setup(law, p_over=None, **state):
    p = {k: F(v) for k, v in {**law.default_params(), **(p_over or {})}.items()}
    s = law.init(p, 1)
    for k, v in state.items():
        s[k] = jnp.asarray([v], s[k].dtype)
    return p, s


def v(s, k):
    return float(np.asarray(s[k])[0])


# --- D2TCP ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("time_left", "d"),
    # B = 300 packets, W = 40, RTT = 100 slots: T_c = 300/(0.75·40)·100 = 1000 slots.
    [(500.0, 2.0), (1000.0, 1.0), (1500.0, 2.0 / 3.0), (4000.0, 0.5), (400.0, 2.0), (0.0, 2.0), (-5.0, 2.0)],
)
def test_imminence_hand_values(time_left, d):
    assert float(imminence(300, 40.0, 100.0, time_left)) == pytest.approx(d, rel=1e-6)


def test_imminence_without_deadline_is_one():
    assert float(imminence(300, 40.0, 100.0, 10.0, has_deadline=False)) == 1.0


def test_gamma_penalty_hand_values():
    assert float(gamma_penalty(0.25, 2.0)) == pytest.approx(0.0625)
    assert float(gamma_penalty(0.25, 0.5)) == pytest.approx(0.5)
    assert float(gamma_penalty(F(0.3), F(1.0))) == float(F(0.3))  # exactly α at d = 1


@pytest.mark.parametrize(("deadline", "w_after"), [(1500 + 500, 40 * (1 - 0.0625 / 2)), (1500 + 1000, 35.0),
                                                   (1500 + 4000, 40 * (1 - 0.5 / 2)), (NEVER, 35.0)])  # fmt: skip
def test_d2tcp_cut_hand_computed(deadline, w_after):
    """α = 1/4, W = 40, B = 300, RTT = 100 slots at t = 1500: d = 2, 1, 0.5 and no deadline (d = 1); the one-step
    cut shows the target W(1 − α^d/2) at once (under PRR it is ssthresh)."""
    law = D2tcp(reduction="immediate")
    p, s = setup(law, cwnd=40.0, ssthresh=20.0, alpha=0.25, win_end=10**6, recover=0)
    e = ev(t=1500, mark=True, snd_nxt=45, snd_una=5, size=305, deadline=deadline)
    out = law.step(s, e, p)
    assert v(out, "cwnd") == pytest.approx(w_after, rel=1e-6)
    prr = D2tcp()
    assert v(prr.step({**s, **reduction_init(1)}, e, p), "ssthresh") == pytest.approx(w_after, rel=1e-6)
    assert v(out, "alpha") == 0.25  # window not closed: α unchanged


def test_d2tcp_without_deadline_steps_exactly_as_dctcp():
    rng = np.random.default_rng(3)
    a, b = D2tcp(), Dctcp()
    pa, sa = setup(a, cwnd=30.0, ssthresh=20.0)
    pb, sb = setup(b, cwnd=30.0, ssthresh=20.0)
    una = 0
    for t in range(1, 400):
        una += 1
        e = ev(
            t=t, mark=bool(rng.random() < 0.2), snd_nxt=una + 30, snd_una=una, nloss=int(rng.random() < 0.01)
        )
        sa, sb = a.step(sa, e, pa), b.step(sb, e, pb)
        for k in sb:
            assert np.array_equal(np.asarray(sa[k]), np.asarray(sb[k])), (t, k)


def test_d2tcp_long_flows_run_exactly_as_dctcp():
    ra = run(build("d2tcp", flows=2, duration="8ms", trace_points=40))
    rb = run(build("dctcp", flows=2, duration="8ms", trace_points=40))
    for k in ("queue_mean", "window_mean", "alpha_mean", "throughput_pps", "marked_fraction"):
        assert ra[k] == rb[k], k


def test_deadlines_validated():
    with pytest.raises(ValueError, match="deadlines"):
        build("d2tcp", flows=2, deadlines=[0.0, 1.0])


# --- CUBIC ------------------------------------------------------------------------------------------------------


def test_cubic_window_known_times():
    """W_max = 100, cut to 70: K = ∛(30/0.4) = ∛75 s; W(0) = 70, W(K) = 100, W(K + 1) = 100.4."""
    K = float(cubic_k(100.0, 70.0, 0.4))
    assert K == pytest.approx(75.0 ** (1 / 3), rel=1e-6)
    assert K == pytest.approx((100 * (1 - 0.7) / 0.4) ** (1 / 3), rel=1e-6)  # RFC 8312 eq. (2) form
    assert float(cubic_window(0.0, K, 100.0, 0.4)) == pytest.approx(70.0, rel=1e-5)
    assert float(cubic_window(K, K, 100.0, 0.4)) == pytest.approx(100.0, rel=1e-6)
    assert float(cubic_window(K + 1.0, K, 100.0, 0.4)) == pytest.approx(100.4, rel=1e-6)


def test_cubic_loss_then_epoch_then_growth():
    law = Cubic(reduction="immediate")
    p, s = setup(law, {"slot_s": 1e-3}, cwnd=100.0, ssthresh=50.0)
    s = law.step(s, ev(t=10, nloss=1, snd_nxt=200, snd_una=100), p)  # loss: β·W, W_max = W
    assert (v(s, "cwnd"), v(s, "w_max"), v(s, "ssthresh"), v(s, "epoch")) == pytest.approx(
        (70.0, 100.0, 70.0, -1)
    )
    s = law.step(s, ev(t=20, snd_nxt=200, snd_una=200), p)  # first ACK: epoch starts, K = ∛75
    K = 75.0 ** (1 / 3)
    assert (v(s, "epoch"), v(s, "k")) == pytest.approx((20, K), rel=1e-6)
    # t = 0 s in the epoch: W_est = 70 + α/70 with α = 3(1 − 0.7)/1.7 exceeds W_cubic(0) = 70, so the first ACK is
    # in the TCP-friendly region (RFC 8312 §4.2): cwnd = W_est.
    assert v(s, "cwnd") == pytest.approx(70.0 + (0.9 / 1.7) / 70.0, rel=1e-6)
    # At t = K + 1 s after the epoch (slot 20 + 1000(K + 1)), from cwnd = 99: target clipped W(K + 1.1) = 100.5324.
    t = 20 + round(1000 * (K + 1.0))
    s2 = {**s, "cwnd": jnp.asarray([99.0], F), "w_est": jnp.asarray([80.0], F)}
    out = law.step(s2, ev(t=t, snd_nxt=300, snd_una=250), p)
    ts = (t - 20) * 1e-3
    target = 0.4 * (ts + 0.1 - K) ** 3 + 100.0
    assert v(out, "cwnd") == pytest.approx(99.0 + (target - 99.0) / 99.0, rel=1e-5)


def test_cubic_tcp_friendly_region():
    """W_cubic(1 s) = 0.4(1 − ∛75)³ + 100 = 86.68 < W_est = 95: the window is W_est + α/W, α = 3(0.3)/1.7."""
    law = Cubic()
    K = 75.0 ** (1 / 3)
    p, s = setup(law, {"slot_s": 1e-3}, cwnd=90.0, ssthresh=70.0, w_max=100.0, k=K, w_est=95.0, epoch=0)
    out = law.step(s, ev(t=1000, snd_nxt=300, snd_una=250), p)
    assert 0.4 * (1 - K) ** 3 + 100 == pytest.approx(86.68, abs=0.01)
    assert v(out, "cwnd") == pytest.approx(95.0 + (0.9 / 1.7) / 90.0, rel=1e-6)


def test_cubic_fast_convergence_and_ecn_off():
    law = Cubic(reduction="immediate")
    p, s = setup(law, {"slot_s": 1e-3}, cwnd=80.0, ssthresh=50.0, w_max=100.0, k=1.0, epoch=0)
    out = law.step(s, ev(t=5, nloss=1, snd_nxt=100, snd_una=20), p)
    assert (v(out, "w_max"), v(out, "cwnd")) == pytest.approx((80 * 1.7 / 2, 56.0))
    slow = Cubic(fast_convergence=False, reduction="immediate").step(
        s, ev(t=5, nloss=1, snd_nxt=100, snd_una=20), p
    )
    assert v(slow, "w_max") == pytest.approx(80.0)
    marked = law.step(s, ev(t=5, mark=True, snd_nxt=100, snd_una=20), p)
    assert v(marked, "cwnd") > 80.0  # loss-based: a mark is no congestion signal
    assert v(
        Cubic(ecn=True, reduction="immediate").step(s, ev(t=5, mark=True, snd_nxt=100, snd_una=20), p), "cwnd"
    ) == pytest.approx(56.0)
    # Linux's rule (the default): W_max at the entry (fast convergence), ssthresh β·W, Recovery, and the window
    # by PRR: inflight 80 + ⌈56·1/80⌉ − 0 (Linux cubictcp_recalc_ssthresh from tcp_init_cwnd_reduction)
    prr = Cubic()
    out = prr.step({**s, **reduction_init(1)}, ev(t=5, nloss=1, snd_nxt=100, snd_una=20), p)
    assert (v(out, "w_max"), v(out, "ssthresh"), v(out, "cwnd"), v(out, "ca")) == pytest.approx(
        (68.0, 56.0, 81.0, 2)
    )


def test_cubic_slot_from_link_and_registry():
    from dwtcp_fluid.params import DctcpParams, LinkParams

    law = get_law("cubic")
    p = law.default_params(dctcp=DctcpParams(link=LinkParams(capacity="1Gbps")))
    assert p["slot_s"] == pytest.approx(1500 * 8 / 1e9)
    assert isinstance(get_law("d2tcp"), D2tcp)
    assert math.isclose(p["beta"], 0.7) and math.isclose(p["c"], 0.4)


def test_cubic_packet_loss_cycle_matches_the_closed_form():
    """One CUBIC flow on a 20 ms path (1 Gbps access, 950 Mbps bottleneck, 200-packet buffer), C = 400 so that
    cycles last about a second. Losses come at W_L = BDP + buffer = 1783 packets. With fast convergence the cycles
    alternate: after a loss below the previous W_max, W_max = 0.85·W_L and cwnd = 0.7·W_L, so W returns to W_L
    after 2·∛(0.15·W_L/C) = 1.75 s; after a loss at W_max, W creeps toward W_max and loses before K = ∛(0.3·W_L/C)."""
    from dwtcp_fluid.params import LinkParams

    link = LinkParams(capacity="1Gbps", rtt="20ms")
    # the closed form is the one-step β cut's (RFC 8312); Linux's PRR (the law's default) is not what it describes
    pr = build(Cubic(reduction="immediate"), link=link, flows=1, buffer=200, rto="200ms", duration=6.0, trace_points=3000,
               capacity_schedule=[(0.0, "950Mbps")], law_params={"c": 400.0}, start_jitter=False)  # fmt: skip
    rec = run(pr)["records"]
    drops = np.asarray(rec["drops"]).reshape(len(rec["drops"]), -1).sum(-1)
    t = np.nonzero(drops)[0] * pr.cfg.chunk * pr.slot
    episodes = [t[0]] + [b for a, b in zip(t[:-1], t[1:], strict=True) if b - a > 0.2]
    gaps = np.diff(episodes)[1:]  # the first gap follows slow start
    w_l = 950e6 / 12000 * 0.02 + 200
    long_gap, k_b = 2 * (0.15 * w_l / 400) ** (1 / 3), (0.3 * w_l / 400) ** (1 / 3)
    assert len(gaps) >= 3
    assert gaps[1] == pytest.approx(long_gap, rel=0.05)
    assert 0.5 * k_b < gaps[0] < k_b and 0.5 * k_b < gaps[2] < k_b
