"""Per-ACK arithmetic of each window law against hand-computed sequences (one flow, events fed by hand)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet.laws import Dctcp, DctcpPerAck, Dwtcp, Events, Reno, get_law
from dwtcp_fluid.packet.scouts import scout_receive
from dwtcp_fluid.params import DWTCP_EVALUATION

F = jnp.float32


def ev(
    t=0,
    ack=False,
    mark=False,
    nloss=0,
    timeout=False,
    snd_nxt=0,
    snd_una=0,
    scout_ok=0,
    scout_lost=0,
    d_s=0.0,
    ipg_s=0.0,
    rtt=10.0,
):
    b = lambda v: jnp.asarray([v], bool)  # noqa: E731
    i = lambda v: jnp.asarray([v], jnp.int32)  # noqa: E731
    f = lambda v: jnp.asarray([v], F)  # noqa: E731
    return Events(
        t=jnp.int32(t),
        ack=b(ack),
        mark=b(mark),
        nloss=i(nloss),
        timeout=b(timeout),
        snd_nxt=i(snd_nxt),
        snd_una=i(snd_una),
        scout_ok=i(scout_ok),
        scout_lost=i(scout_lost),
        d_s=f(d_s),
        ipg_s=f(ipg_s),
        rtt=f(rtt),
        active=b(True),
    )


def setup(law, **state):
    p = {k: F(v) for k, v in law.default_params().items()}
    s = law.init(p, 1)
    for k, v in state.items():
        s[k] = jnp.asarray([v], s[k].dtype)
    return p, s


def val(s, k):
    return float(np.asarray(s[k])[0])


def test_reno_slow_start_then_congestion_avoidance_and_halving_once_per_window():
    law = Reno(reduction="immediate")
    p, s = setup(law, cwnd=2.0, ssthresh=3.0)
    w = 2.0
    s = law.step(s, ev(ack=True, snd_una=1, snd_nxt=2), p)
    w += 1.0  # slow start (2 < 3)
    assert val(s, "cwnd") == pytest.approx(w)
    for k in range(3):
        s = law.step(s, ev(ack=True, snd_una=2 + k, snd_nxt=4), p)
        w += 1.0 / w  # congestion avoidance
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)
    s = law.step(s, ev(ack=True, mark=True, snd_una=5, snd_nxt=9), p)
    w = max(w / 2, 2.0)
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)
    # A second mark before snd_una reaches 9 (the window of the cut): no second halving, no growth.
    s = law.step(s, ev(ack=True, mark=True, snd_una=6, snd_nxt=9), p)
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)
    s = law.step(s, ev(ack=True, mark=True, snd_una=9, snd_nxt=12), p)
    assert val(s, "cwnd") == pytest.approx(max(w / 2, 2.0), rel=1e-6)
    s = law.step(s, ev(timeout=True, snd_una=12, snd_nxt=12), p)
    assert val(s, "cwnd") == 1.0


def test_dctcp_alpha_once_per_window_and_cut():
    law = Dctcp(reduction="immediate")
    p, s = setup(law, cwnd=10.0, ssthresh=5.0)
    g = 1 / 16
    alpha, w = 1.0, 10.0
    # First ACK closes the initial (empty) window: α ← (1−g)·1 + g·0 (F = 0/1), new window ends at snd_nxt = 10.
    s = law.step(s, ev(ack=True, snd_una=1, snd_nxt=10), p)
    alpha = (1 - g) * alpha
    w += 1 / w
    assert val(s, "alpha") == pytest.approx(alpha, rel=1e-6)
    # ACKs 2..10: marks on ACKs 4 and 5. The cut uses the α of the moment (first marked ACK only).
    for k in range(2, 11):
        marked = k in (4, 5)
        s = law.step(s, ev(ack=True, mark=marked, snd_una=k, snd_nxt=20), p)
        if k == 4:
            w = max(w * (1 - alpha / 2), 2.0)
        else:
            w += 1 / w
        if k == 10:  # snd_una reached the window end: F = 2 marked / 9 acked
            alpha = (1 - g) * alpha + g * (2 / 9)
    assert val(s, "alpha") == pytest.approx(alpha, rel=1e-5)
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-5)


def test_dctcp_cut_floor_and_hold():
    law = Dctcp(reduction="hold")
    p, s = setup(law, cwnd=2.5, ssthresh=1.0, alpha=1.0)
    s = law.step(s, ev(ack=True, mark=True, snd_una=1, snd_nxt=5), p)
    assert val(s, "cwnd") == 2.0  # 2.5·(1 − 1/2) = 1.25 floored at min_cwnd = 2
    s = law.step(s, ev(ack=True, snd_una=2, snd_nxt=5), p)
    assert val(s, "cwnd") == 2.0  # in CWR: no additive increase
    s = law.step(s, ev(ack=True, snd_una=5, snd_nxt=6), p)
    assert val(s, "cwnd") == 2.0  # snd_una = the cut's snd_nxt: still held (ns-3: ackNumber > m_recover)
    s = law.step(s, ev(ack=True, snd_una=6, snd_nxt=7), p)
    assert val(s, "cwnd") == pytest.approx(2.5)  # something above the cut's window acknowledged: +1/W again


def _acks(law, p, s, marks, nxt, una, losses=()):
    """Feed one data ACK per entry of ``marks`` (packet ``una`` acknowledged; ``losses``: ACK indices that report
    one loss), the sender sending new packets while inflight + 1 ≤ cwnd after each (the engine's window rule).
    Returns the window after each ACK and the final state, snd_nxt, snd_una."""
    seq = []
    for i, m in enumerate(marks):
        nl = 1 if i in losses else 0
        una += 1 + nl
        s = law.step(s, ev(ack=True, mark=m, nloss=nl, snd_una=una, snd_nxt=nxt), p)
        seq.append(val(s, "cwnd"))
        while nxt - una + 1 <= seq[-1]:
            nxt += 1
    return seq, s, nxt, una


def test_reno_prr_cwr_linux_tcp_cwnd_reduction():
    """Reno's default sender rule, hand-computed from Linux ``tcp_enter_cwr`` / ``tcp_cwnd_reduction`` /
    ``tcp_end_cwnd_reduction``: 10 packets in flight, cwnd 10, the first ACK echoes ECN → CWR with ssthresh 5,
    prior_cwnd 10, high_seq 10. Per ACK: inflight = snd_nxt − snd_una, prr_delivered = ACKs since the entry,
    prr_out = packets sent since it; while inflight > ssthresh cwnd = inflight + ⌈5·prr_delivered/10⌉ − prr_out
    (≥ 1 while prr_out = 0), then inflight + min(ssthresh − inflight, max(prr_delivered − prr_out, 1) + 1).
    Echoes in CWR change nothing; snd_una = high_seq does not end CWR (something *above* it must be acknowledged);
    the exit sets cwnd = ssthresh and the same ACK grows it by 1/5."""
    law = Reno()
    p, s = setup(law, cwnd=10.0, ssthresh=1.0)
    marks = [True, True] + [False] * 7 + [True, False]
    seq, s, nxt, una = _acks(law, p, s, marks, nxt=10, una=0)
    assert seq[:10] == [10.0, 9.0, 9.0, 8.0, 8.0, 7.0, 7.0, 6.0, 5.0, 5.0]
    assert val(s, "ssthresh") == 5.0 and int(s["ca"][0]) == 0
    assert seq[10] == pytest.approx(5.2, rel=1e-6)
    assert (
        nxt == 16
    )  # five packets sent while ten were delivered in CWR (the rate halved), one after the exit


def test_reno_prr_immediate_and_hold_differ_from_linux():
    """The same ACKs under the one-step cut: 5 at the first echo, +1/W per ACK at once (``immediate``) or only
    after the window of the cut (``hold``) — the rules ``--reduction`` names."""
    marks = [True, True] + [False] * 7 + [True, False]
    imm = _acks(Reno(reduction="immediate"), *setup(Reno(reduction="immediate"), cwnd=10.0, ssthresh=1.0),
                marks, nxt=10, una=0)[0]  # fmt: skip
    hold = _acks(Reno(reduction="hold"), *setup(Reno(reduction="hold"), cwnd=10.0, ssthresh=1.0),
                 marks, nxt=10, una=0)[0]  # fmt: skip
    assert imm[0] == hold[0] == 5.0
    assert imm[1] == 5.0 and imm[2] == pytest.approx(5.2, rel=1e-6)  # the second echo is in the cut's window
    assert hold[1:9] == [5.0] * 8
    # snd_una = 10 closes the cut's window for the immediate rule (≥): the echo there cuts again; hold and PRR wait
    # for something above it (>, Linux's and ns-3's CWR exit), then grow
    assert imm[9] == pytest.approx(imm[8] / 2, rel=1e-6)
    assert hold[9] == 5.0 and hold[10] == pytest.approx(5.2, rel=1e-6)


def test_reno_ns3_prr_cwr_as_ns3_tcp_prr_recovery():
    """``reduction="ns3-prr"``, hand-computed from ns-3 3.44 ``TcpSocketBase::EnterCwr`` (ssthresh =
    ``TcpNewReno::GetSsThresh(tcb, BytesInFlight())`` = max(2, 9/2) = 4.5 with 9 in flight after the entering ACK;
    Linux halves cwnd) → ``TcpPrrRecovery::EnterRecovery`` (RecoverFS = bytes in flight after the entering ACK: 9;
    ``DoRecovery(delivered, isDupAck=true)`` adds one segment) and ``ProcessAck``'s ``CA_CWR`` branch
    (``DoRecovery(delivered, false)`` on the same ACK): prr_delivered = 1 + 1 + 1 = 3 after the first ACK, one
    more per ACK after it. While inflight > ssthresh: cwnd = inflight + 4.5·prr_delivered/9 − prr_out, no ceil
    (ns-3 counts bytes and sends whole segments, as the engine's inflight + 1 ≤ cwnd). Same ACKs as the Linux
    test above: six packets go out for ten delivered (Linux: five), and the exit sets cwnd = 4.5."""
    law = Reno(reduction="ns3-prr")
    p, s = setup(law, cwnd=10.0, ssthresh=1.0)
    marks = [True, True] + [False] * 7 + [True, False]
    seq, s, nxt, una = _acks(law, p, s, marks, nxt=10, una=0)
    # (inflight, prr_delivered, prr_out) after each ACK in CWR, from the sends the window allows (4.5·12 packets²:
    # far below the uint32 wrap of the byte product, test below)
    hand = [(9, 3, 0), (9, 4, 1), (9, 5, 2), (8, 6, 2), (8, 7, 3), (7, 8, 3), (7, 9, 4), (6, 10, 4), (6, 11, 5),
            (5, 12, 5)]  # fmt: skip
    for got, (infl, pd, out) in zip(seq[:10], hand, strict=True):
        assert got == pytest.approx(infl + max(4.5 * pd / 9.0 - out, 0.0 if out else 1.0), rel=1e-6)
    assert val(s, "ssthresh") == 4.5 and int(s["ca"][0]) == 0
    assert seq[10] == pytest.approx(4.5 + 1 / 4.5, rel=1e-6)  # exit at ssthresh, then + 1/4.5
    assert nxt == 16 and val(s, "prior_cwnd") == 9.0


def test_reno_ns3_prr_recovery_as_ns3_new_reno():
    """``reduction="ns3-prr"`` in Recovery, hand-computed from ns-3 3.44 ``TcpSocketBase::EnterRecovery``
    (ssthresh = ``TcpNewReno::GetSsThresh(tcb, BytesInFlight())`` = max(2, pipe/2) with the pipe after the
    loss is marked: 10 − 1 acknowledged − 1 lost = 8, so 4, where Linux halves cwnd: 5; RecoverFS = 8) and
    ``TcpPrrRecovery::DoRecovery(delivered, isDupAck=true)`` on every duplicate ACK: one segment added to the
    delivered count while prr_delivered < RecoverFS, so prr_delivered = 2, 4, 6, 8, then 9, 10, 11, 12. While
    inflight > ssthresh: cwnd = inflight + 4·prr_delivered/8 − prr_out (≥ 1 before the first send). Four ACKs
    send one packet each (no reduction for the first half of the episode), then one per two; the exit
    (snd_una ≥ high_seq = 10) sets cwnd = 4 and the same ACK adds 1/4."""
    law = Reno(reduction="ns3-prr", ecn=False)
    p, s = setup(law, cwnd=10.0, ssthresh=1e9)
    seq, s, nxt, una = _acks(law, p, s, [False] * 9, nxt=10, una=0, losses=(0,))
    assert val(s, "prior_cwnd") == 8.0 and val(s, "ssthresh") == 4.0
    assert seq[:8] == [9.0, 9.0, 9.0, 9.0, 8.5, 8.0, 7.5, 7.0]
    assert int(s["ca"][0]) == 0 and seq[8] == pytest.approx(4.25, rel=1e-6)
    assert nxt == 16  # six packets sent in Recovery for eight delivered
    # Linux (``"prr"``) on the same ACKs: ssthresh = cwnd/2 = 5, prior_cwnd 10, ⌈5·prr_delivered/10⌉ − prr_out
    linux = Reno(ecn=False)
    pl, sl = setup(linux, cwnd=10.0, ssthresh=1e9)
    lseq, sl, lnxt, _ = _acks(linux, pl, sl, [False] * 9, nxt=10, una=0, losses=(0,))
    assert val(sl, "ssthresh") == 5.0 and lseq[:4] == [9.0, 8.0, 8.0, 7.0]


def test_reno_recovery_at_the_third_duplicate_ack():
    """``loss_entry="dupack3"``, hand-computed from ns-3 3.44 ``TcpSocketBase::DupAck`` (Recovery when
    ``m_dupAckCount`` reaches ``ReTxThreshold`` 3; before it, Disorder: no ``IncreaseWindow``, one new segment per
    duplicate ACK by limited transmit, the lost segment still in the pipe). cwnd 10, packet 0 lost, reported by
    the first ACK (packet 1): that ACK and the next leave cwnd = inflight + 1 = 9 (no 1/W growth) and send one
    packet each; the third enters Recovery with the pipe 12 − 4 = 8, so ssthresh 4 and RecoverFS 8 as in
    ``test_reno_ns3_prr_recovery_as_ns3_new_reno``, high_seq 12 (two packets later), and the episode runs as
    there, two ACKs later: exit at snd_una = 12, cwnd 4 + 1/4."""
    law = Reno(reduction="ns3-prr", ecn=False, loss_entry="dupack3")
    p, s = setup(law, cwnd=10.0, ssthresh=1e9)
    seq, s, nxt, una = _acks(law, p, s, [False] * 11, nxt=10, una=0, losses=(0,))
    assert seq[:2] == [9.0, 9.0] and int(s["recover"][0]) == 12
    assert seq[2:10] == [9.0, 9.0, 9.0, 9.0, 8.5, 8.0, 7.5, 7.0]
    assert val(s, "prior_cwnd") == 8.0 and val(s, "ssthresh") == 4.0
    assert int(s["ca"][0]) == 0 and seq[10] == pytest.approx(4.25, rel=1e-6)
    with pytest.raises(ValueError, match="loss_entry='dupack3' is invalid for law 'reno' with reduction"):
        Reno(reduction="immediate", loss_entry="dupack3")


def test_dctcp_increase_counted_against_the_floor_of_cwnd():
    """``ai_count="floor"``, hand-computed from ns-3 3.44 ``TcpLinuxReno::CongestionAvoidance`` (TcpDctcp's):
    w = m_cWnd / m_segmentSize in integer division, one segment added per w segments acknowledged. In congestion
    avoidance an ACK of one packet adds 1/⌊cwnd⌋: 1 at cwnd 1.5 (1.5 → 2.5; byte counting: 1.5 + 1/1.5), 1/2 at
    2.9 (→ 3.4), and 1/1 below one packet (0.5 → 1.5); slow start adds 1 either way."""
    for cw, ss, floor, cnt in (
        (1.5, 1.0, 2.5, 1.5 + 1 / 1.5),
        (2.9, 2.0, 3.4, 2.9 + 1 / 2.9),
        (0.5, 0.25, 1.5, 2.5),
    ):
        for count, want in (("floor", floor), ("cwnd", cnt)):
            law = Dctcp(ai_count=count)
            p, s = setup(law, cwnd=cw, ssthresh=ss, win_end=1000)
            s = law.step(s, ev(ack=True, snd_una=1, snd_nxt=5), p)
            assert val(s, "cwnd") == pytest.approx(want, rel=1e-6), (cw, count)
    law = Dctcp(ai_count="floor")
    p, s = setup(law, cwnd=1.5, ssthresh=8.0, win_end=1000)
    assert val(law.step(s, ev(ack=True, snd_una=1, snd_nxt=5), p), "cwnd") == 2.5  # slow start: +1
    with pytest.raises(ValueError, match="ai_count='x' is invalid for law 'dctcp'"):
        Dctcp(ai_count="x")


def test_ns3_prr_uint32_product_wraps():
    """ns-3's ``m_prrDelivered * m_ssThresh`` is a uint32 product of bytes (1460-byte segments): with ssthresh 50
    (73000 bytes) and RecoverFS 99 segments, prr_delivered 40 gives 40·1460·73000 = 4 263 200 000 < 2^32 and the
    count 4263200000/(99·1460²) = 20.202 − prr_out 5; at 41 the product 4 369 780 000 wraps to 74 812 704, the
    count 0.3545 − 5 < 0 and nothing is sent (cwnd = inflight 60). Linux (``"prr"``): ⌈50·41/99⌉ − 5 = 16."""
    from dwtcp_fluid.packet.laws.recovery import cwnd_reduction

    def one(pd_before, ns3):
        e = ev(ack=True, snd_una=40, snd_nxt=100)  # inflight 60 > ssthresh 50; prr_out = 100 − 95
        cw, _ = cwnd_reduction(
            jnp.float32(50.0), jnp.float32(99.0), jnp.int32(pd_before), jnp.int32(95), e, ns3
        )
        return float(np.asarray(cw).reshape(-1)[0])

    assert one(39, True) == pytest.approx(60 + 4263200000 / (99 * 1460**2) - 5, rel=1e-6)
    assert one(40, True) == 60.0
    assert one(40, False) == 60 + 16


def test_dctcp_prr_target_alpha_and_recovery():
    """DCTCP under PRR: the echo's target is max(W(1 − α/2), 2) (``dctcp_ssthresh``, α after this ACK's update);
    a loss reported in CWR moves to Recovery with ssthresh reset to max(cwnd/2, 2) (``dctcp_react_to_loss``)
    and no new prior_cwnd/high_seq; Recovery ends once snd_una ≥ high_seq (not above it), cwnd = ssthresh."""
    law = Dctcp()
    p, s = setup(law, cwnd=20.0, ssthresh=1.0, alpha=0.5, win_end=1000)
    s = law.step(s, ev(ack=True, mark=True, snd_una=1, snd_nxt=20), p)
    assert val(s, "ssthresh") == 15.0 and val(s, "prior_cwnd") == 20.0 and int(s["recover"][0]) == 20
    # inflight 19 > 15: cwnd = 19 + ⌈15·1/20⌉ − 0
    assert val(s, "cwnd") == 20.0
    s = law.step(s, ev(ack=True, nloss=1, snd_una=3, snd_nxt=21), p)
    # Recovery: ssthresh = 20/2; inflight 18, prr_delivered 2, prr_out 1: 18 + ⌈10·2/20⌉ − 1
    assert int(s["ca"][0]) == 2 and val(s, "ssthresh") == 10.0 and int(s["recover"][0]) == 20
    assert val(s, "cwnd") == 18.0
    s = law.step(s, ev(ack=True, snd_una=20, snd_nxt=21), p)
    assert int(s["ca"][0]) == 0 and val(s, "cwnd") == pytest.approx(10.1, rel=1e-6)  # exit at 10, then +1/10


def test_reno_prr_loss_keeps_cwr_target_and_no_ecn_option():
    """Reno: a loss in CWR keeps CWR's ssthresh (``tcp_enter_recovery`` does not re-run the reduction's init);
    with ``ecn=False`` an echo starts nothing and the window grows."""
    law = Reno()
    p, s = setup(law, cwnd=10.0, ssthresh=1.0)
    s = law.step(s, ev(ack=True, mark=True, snd_una=1, snd_nxt=10), p)
    s = law.step(s, ev(ack=True, nloss=1, snd_una=3, snd_nxt=11), p)
    assert int(s["ca"][0]) == 2 and val(s, "ssthresh") == 5.0
    law = Reno(ecn=False)
    p, s = setup(law, cwnd=10.0, ssthresh=1.0)
    s = law.step(s, ev(ack=True, mark=True, snd_una=1, snd_nxt=10), p)
    assert int(s["ca"][0]) == 0 and val(s, "cwnd") == pytest.approx(10.1, rel=1e-6)


def test_reduction_refused_by_name():
    with pytest.raises(ValueError, match=r"reduction='fast' is invalid for law 'dctcp': accepted one of prr"):
        Dctcp(reduction="fast")


def test_dctcp_per_ack_eq36_every_marked_ack():
    law = DctcpPerAck()
    p, s = setup(law, cwnd=20.0, ssthresh=1.0, alpha=0.5, win_end=1000)
    w = 20.0
    for k, marked in enumerate([True, True, False, True]):
        s = law.step(s, ev(ack=True, mark=marked, snd_una=k + 1, snd_nxt=100), p)
        w = w + 1 / w - (0.25 if marked else 0.0)  # eq. (36), α = 0.5, no once-per-window guard
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)
    assert val(s, "alpha") == 0.5  # window end (1000) not reached


def test_dwtcp_scout_ack_loss_and_decrease():
    law = Dwtcp()
    p, s = setup(law, cwnd=10.0, ssthresh=5.0)
    so_l = 64 / 1500
    beta_p = 0.001 * math.sqrt(1500)  # byte convention (docs/equations.md note 3)
    assert float(p["beta_p"]) == pytest.approx(beta_p, rel=1e-6)
    assert float(p["alpha0"]) == DWTCP_EVALUATION.alpha0 == 20.0
    w, a = 10.0, 20.0
    # Data ACK in congestion avoidance: +1/w.
    s = law.step(s, ev(t=1, ack=True, snd_una=1, snd_nxt=10, d_s=50.0), p)
    w += 1 / w
    # Scout ACK: w += α·S/L, then α doubles.
    s = law.step(s, ev(t=2, scout_ok=1, d_s=50.0), p)
    w += a * so_l
    a *= 2
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6) and val(s, "alpha") == a
    # Two lost Scouts: α / 4.
    s = law.step(s, ev(t=3, scout_lost=2, d_s=50.0), p)
    a /= 4
    assert val(s, "alpha") == a
    # d_t = rtt + k = 10 + 100 slots; d_s = 150 > d_t: w ← w·max(1 − β_p·sqrt(w)·(d_s − d_t)/d_s, 1/2).
    s = law.step(s, ev(t=4, d_s=150.0), p)
    w = w * max(1 - beta_p * math.sqrt(w) * 40 / 150, 0.5)
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)
    assert val(s, "ssthresh") == pytest.approx(w, rel=1e-6)  # "exit": ssthresh is the reduced window
    # At most once per T = rtt = 10 slots.
    s = law.step(s, ev(t=13, d_s=150.0), p)
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)
    s = law.step(s, ev(t=14, d_s=10000.0), p)
    w = w * max(1 - beta_p * math.sqrt(w) * (10000 - 110) / 10000, 0.5)
    assert val(s, "cwnd") == pytest.approx(w, rel=1e-6)


def test_dwtcp_literal_ssthresh_and_factor_floor():
    law = Dwtcp(ssthresh_on_decrease="literal")
    p, s = setup(law, cwnd=400.0, ssthresh=5.0)
    s = law.step(s, ev(t=0, d_s=1e6), p)
    assert val(s, "cwnd") == 200.0  # 1 − 0.0387·20 < 1/2 → floored at 1/2
    assert val(s, "ssthresh") == 400.0  # line 21 literally: ssthresh ← w before the cut → back in slow start
    s = law.step(s, ev(t=1, ack=True, snd_una=1, snd_nxt=2, d_s=0.0), p)
    assert val(s, "cwnd") == 201.0


def test_dwtcp_ipg_variant_case_split():
    law = Dwtcp(ipg=True)
    bw = 0.5
    a, b = (150 - 110) / 150, (300 - 110) / 300
    assert float(law.decrease_factor(F(1.0), F(150.0), F(110.0), F(300.0), F(110.0), F(bw))) == pytest.approx(
        1 - 2 * bw * a * b, rel=1e-6
    )
    assert float(law.decrease_factor(F(1.0), F(100.0), F(110.0), F(300.0), F(110.0), F(bw))) == pytest.approx(
        1 - 2 * bw * b * b, rel=1e-6
    )
    assert float(law.decrease_factor(F(1.0), F(150.0), F(110.0), F(100.0), F(110.0), F(bw))) == pytest.approx(
        1 - 2 * bw * a * a, rel=1e-6
    )


def test_scout_bookkeeping_in_time_late_and_timeout():
    i = lambda v: jnp.asarray([v], jnp.int32)  # noqa: E731
    st = {
        "sent": i(3),
        "unacked": i(0),
        "lost_upto": i(0),
        "last_delay": jnp.zeros(1, F),
        "last_gap": jnp.zeros(1, F),
        "last_rcv": i(0),
    }
    start, rtt, dt = i(0), i(10), jnp.asarray([25.0], F)
    # Scout 0 (sent at slot 0) acknowledged at slot 12: in time (12 ≤ 25).
    st, ok, lost, d_s, _ = scout_receive(st, jnp.int32(12), i(1), i(1), start, rtt, dt)
    assert (int(ok[0]), int(lost[0]), float(d_s[0])) == (1, 0, 12.0)
    # Scout 2 (sent at 20) acknowledged at 40 while Scout 1 never came back: 1 is lost (skipped), 2 in time.
    st, ok, lost, d_s, _ = scout_receive(st, jnp.int32(40), i(1), i(3), start, rtt, dt)
    assert (int(ok[0]), int(lost[0]), float(d_s[0])) == (1, 1, 20.0)
    # Scout 3 sent at 30 and nothing comes back: lost once older than d_t (at slot 56 > 30 + 25).
    st = {**st, "sent": i(4)}
    st, ok, lost, d_s, _ = scout_receive(st, jnp.int32(55), i(0), i(0), start, rtt, dt)
    assert int(lost[0]) == 0 and float(d_s[0]) == 25.0
    st, ok, lost, d_s, _ = scout_receive(st, jnp.int32(56), i(0), i(0), start, rtt, dt)
    assert int(lost[0]) == 1 and float(d_s[0]) == 26.0  # d_s = now − oldest unacknowledged send


def test_get_law_rejects_unknown():
    with pytest.raises(ValueError, match="law='bbr'"):
        get_law("bbr")
    with pytest.raises(ValueError, match="data_increase"):
        Dwtcp(data_increase="bytes")


def test_reduction_flag_on_the_command_line(capsys):
    """``--reduction`` is one flag of every window law that owns it: a value outside the rules, or the flag with a
    law without it, is one error line naming the flag and what is accepted (exit 2, nothing run)."""
    from dwtcp_fluid.cli import main

    assert main(["packet", "run", "--reduction", "fast", "--duration", "1ms", "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--reduction" in err and "prr | immediate | hold" in err
    assert main(["packet", "run", "--law", "dwtcp", "--reduction", "prr", "--duration", "1ms"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--reduction" in err and "dctcp" in err and "Traceback" not in err


def _cubic_ack(t: int, una: int, sample: float) -> Events:
    """One data ACK of one packet in slot ``t`` with RTT sample ``sample`` slots (CUBIC's HyStart tests)."""
    b = lambda v: jnp.asarray([v], bool)  # noqa: E731
    i = lambda v: jnp.asarray([v], jnp.int32)  # noqa: E731
    f = lambda v: jnp.asarray([v], F)  # noqa: E731
    return Events(t=jnp.int32(t), ack=b(True), mark=b(False), nloss=i(0), timeout=b(False), snd_nxt=i(una + 40),
                  snd_una=i(una), n_acked=i(1), rtt=f(83.0), rtt_sample=f(sample), active=b(True))  # fmt: skip


def test_cubic_hystart_ack_train_as_ns3():
    """``hystart="ns3"``, hand-computed from ns-3 3.44 ``TcpCubic::HystartUpdate`` (defaults: ``HyStartAckDelta``
    2 ms, low window 16): ACKs one slot apart (1.2 µs ≤ 2 ms) form a train; with the least RTT 100 slots (every
    sample 100, so srtt = 100), the first ACK more than 100 slots after the round began (slot 1000) ends slow
    start: ACK 101 at slot 1101, cwnd 20 + 100 = 120 → ssthresh 120, then the cubic increase (no +1). Below 16
    packets the check does not run (cwnd 10 → 15 over 250 slots); with ``hystart="off"`` slow start goes on; a timeout clears ``found``."""
    rounds = {"cwnd": 20.0, "hs_round": 1000, "hs_last": 1000, "hs_end": 10**6}
    law = get_law("cubic", reduction="ns3-prr", hystart="ns3")
    step = jax.jit(law.step)
    p, s = setup(law, **rounds)
    for k in range(1, 102):
        s = step(s, _cubic_ack(1000 + k, k, 100.0), p)
        if k == 100:
            assert val(s, "cwnd") == 120.0 and val(s, "ssthresh") == 1e9 and val(s, "hs_found") == 0
    assert val(s, "ssthresh") == 120.0 and val(s, "hs_found") == 1
    assert 120.0 < val(s, "cwnd") < 120.1 and val(s, "epoch") == 1101
    s = step(s, Events(**{**_cubic_ack(1102, 102, 100.0)._asdict(), "ack": jnp.asarray([False]),
                              "timeout": jnp.asarray([True])}), p)  # fmt: skip
    assert val(s, "hs_found") == 0 and val(s, "hs_dmin") == 0.0 and val(s, "cwnd") == 1.0
    p, s = setup(law, **{**rounds, "cwnd": 10.0})  # below HyStartLowWindow: ACKs 50 slots apart, no exit
    for k in range(1, 6):
        s = step(s, _cubic_ack(1000 + 50 * k, k, 100.0), p)
    assert val(s, "hs_found") == 0 and val(s, "cwnd") == 15.0
    off = get_law("cubic", reduction="ns3-prr")
    p, s = setup(off, cwnd=20.0)
    step = jax.jit(off.step)
    for k in range(1, 102):
        s = step(s, _cubic_ack(1000 + k, k, 100.0), p)
    assert val(s, "cwnd") == 121.0 and "hs_found" not in s
    with pytest.raises(ValueError, match="hystart='x' is invalid for law 'cubic'"):
        get_law("cubic", hystart="x")


def test_lost_retransmit_option_refusals():
    """``lost_retransmit`` accepts its choices only, and ``"rto"`` only where the engine can run it (one law, a
    single bottleneck, no delayed ACKs): one line naming the parameter."""
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet import engine as E
    from dwtcp_fluid.packet.batch import stack

    with pytest.raises(ValueError, match="lost_retransmit='x' is invalid for law 'reno'"):
        Reno(lost_retransmit="x")
    r = build(Reno(lost_retransmit="rto"), flows=2, duration="1ms", delack=2)
    with pytest.raises(ValueError, match="lost_retransmit='rto' is invalid with delack"):
        E.spec_for(r.cfg, r.engine_laws, stack([r.scenario]))
