"""DCQCN's packet law against hand-computed sequences of [DCQCN] eqs. (1)-(4), and the CP's RED marking.

Each test drives :class:`~dwtcp_fluid.packet.laws.dcqcn.Dcqcn` event by event (the law is elementwise, so one
flow is a length-1 array) and compares with the closed forms: α after k timer periods, the cut, the fast-recovery
halvings, the additive and hyper steps, the NP's CNP interval. Float32 law state: tolerances 1e-6 relative.
"""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet.laws import Events, get_law
from dwtcp_fluid.packet.laws.base import NEVER
from dwtcp_fluid.packet.laws.dcqcn import dcqcn_params
from dwtcp_fluid.packet.switch import red_probability
from dwtcp_fluid.params import LinkParams

RTOL = 1e-6
#: Round timers (slots) so that the hand sequences are exact.
TIMERS = {"cnp_interval": 50.0, "alpha_timer": 60.0, "inc_timer": 100.0, "byte_counter": 1e9, "r_ai": 0.01}


def _params(**over):
    p = dcqcn_params(LinkParams(capacity="40Gbps", rtt="20us"))
    p.update(TIMERS)
    p.update(over)
    return {k: np.float32(v) for k, v in p.items()}


def _ev(t, mark=False, ack=None, snd_nxt=0):
    a = mark if ack is None else ack
    return Events(
        t=np.array([t], np.int32),
        ack=np.array([a]),
        mark=np.array([mark]),
        snd_nxt=np.array([snd_nxt], np.int32),
    )


def _run(law, p, events, s=None):
    s = s or law.init(p, 1)
    for ev in events:
        s = law.step(s, ev, p)
    return s


def test_cut_on_cnp_and_alpha_update():
    """[DCQCN] eq. (2): R_T ← R_C, R_C ← R_C(1 − α/2) with α before its update, then α ← (1 − g)α + g."""
    law = get_law("dcqcn")
    p = _params(init_rate=0.8, init_alpha=0.5)
    s = _run(law, p, [_ev(10, mark=True)])
    g = float(p["g"])
    assert float(s["rt"][0]) == pytest.approx(0.8, rel=RTOL)
    assert float(s["rate"][0]) == pytest.approx(0.8 * (1 - 0.25), rel=RTOL)
    assert float(s["alpha"][0]) == pytest.approx((1 - g) * 0.5 + g, rel=RTOL)
    # the timers start at the CNP
    assert int(s["t_alpha"][0]) == 10 + 60 and int(s["t_inc"][0]) == 10 + 100


def test_alpha_decays_over_k_timer_periods_without_cnp():
    """[DCQCN] eq. (1): k α-timer periods without a CNP leave α = (1 − g)^k·α after the CNP's update."""
    law = get_law("dcqcn")
    p = _params(g=1.0 / 16.0, inc_timer=1e6)
    g = 1.0 / 16.0
    s = _run(law, p, [_ev(0, mark=True)])
    a0 = float(s["alpha"][0])
    assert a0 == pytest.approx(1.0, rel=RTOL)  # (1 − g)·1 + g
    k = 7
    s = _run(law, p, [_ev(60 * j) for j in range(1, k + 1)], s)
    assert float(s["alpha"][0]) == pytest.approx((1 - g) ** k * a0, rel=1e-5)
    # the law asks to be woken at the next period
    assert int(np.asarray(law.next_wake(s, _ev(60 * k), p))[0]) == 60 * (k + 1)


def test_timer_reading_of_alpha():
    """``alpha_update="timer"``: the CNP leaves α alone; the period that saw it ends with (1 − g)α + g, the next
    without one with (1 − g)·that."""
    law = get_law("dcqcn", alpha_update="timer")
    g = 1.0 / 8.0
    p = _params(g=g, init_alpha=0.5, inc_timer=1e6)
    s = _run(law, p, [_ev(0, mark=True)])
    assert float(s["alpha"][0]) == pytest.approx(0.5, rel=RTOL)
    s = _run(law, p, [_ev(60), _ev(120)], s)
    assert float(s["alpha"][0]) == pytest.approx((1 - g) * ((1 - g) * 0.5 + g), rel=RTOL)


def test_fast_recovery_then_additive_increase():
    """[DCQCN] eqs. (3)-(4): F = 5 timer expiries halve the distance to R_T; the 6th adds R_AI to R_T first."""
    law = get_law("dcqcn")
    p = _params(init_rate=0.4, alpha_timer=1e6)
    s = _run(law, p, [_ev(0, mark=True)])  # α = 1: R_C = 0.2, R_T = 0.4
    rc, rt = 0.2, 0.4
    for k in range(1, 6):
        s = _run(law, p, [_ev(100 * k)], s)
        rc = 0.5 * (rt + rc)
        assert float(s["rate"][0]) == pytest.approx(rc, rel=RTOL)
        assert float(s["rt"][0]) == pytest.approx(rt, rel=RTOL)
    assert rc == pytest.approx(0.4 - 0.2 * 0.5**5)
    s = _run(law, p, [_ev(600)], s)
    rt += 0.01
    rc = 0.5 * (rt + rc)
    assert float(s["rt"][0]) == pytest.approx(rt, rel=RTOL)
    assert float(s["rate"][0]) == pytest.approx(rc, rel=RTOL)


def test_hyper_increase_when_both_counters_pass_f():
    """Both the timer and the byte counter past F: R_T grows by (min(i_T, i_B) − F)·R_HAI ([DCQCN] §3.1)."""
    law = get_law("dcqcn")
    p = _params(init_rate=0.4, alpha_timer=1e6, byte_counter=10.0, F=1.0, r_hai=0.02)
    s = _run(law, p, [_ev(0, mark=True, snd_nxt=0)])
    # timer expiry 1 (i_T = 1: FR), byte expiry 1 at 10 packets (i_B = 1: FR), timer 2 (i_T = 2 > F: AI)
    s = _run(law, p, [_ev(100, snd_nxt=5), _ev(150, ack=True, snd_nxt=10), _ev(200, snd_nxt=12)], s)
    rt = 0.4 + 0.01
    assert float(s["rt"][0]) == pytest.approx(rt, rel=RTOL)
    # byte expiry 2 (i_B = 2): both > F, min − F = 1 → hyper
    s = _run(law, p, [_ev(210, ack=True, snd_nxt=20)], s)
    assert int(s["i_t"][0]) == 2 and int(s["i_b"][0]) == 2
    assert float(s["rt"][0]) == pytest.approx(rt + 0.02, rel=RTOL)


def test_np_sends_at_most_one_cnp_per_interval():
    """[DCQCN] §3.1 NP: a second marked ACK within N = 50 slots is no CNP; one at N later is."""
    law = get_law("dcqcn")
    p = _params(init_rate=0.8, alpha_timer=1e6, inc_timer=1e6, init_alpha=1.0)
    s = _run(law, p, [_ev(0, mark=True), _ev(49, mark=True)])
    assert float(s["rate"][0]) == pytest.approx(0.4, rel=RTOL)
    s = _run(law, p, [_ev(50, mark=True)], s)
    assert float(s["rate"][0]) == pytest.approx(0.4 * 0.5, rel=RTOL)
    assert int(s["last_cnp"][0]) == 50


def test_no_timers_before_the_first_cnp():
    """Flows start at line rate with the RP idle: no wake-up before a CNP ([DCQCN] §3)."""
    law = get_law("dcqcn")
    p = _params()
    s = _run(law, p, [_ev(5, ack=True)])
    assert float(s["rate"][0]) == 1.0
    assert int(np.asarray(law.next_wake(s, _ev(5), p))[0]) == NEVER


def test_red_probability_closed_form():
    """[DCQCN] eq. (5): 0 up to K_min, the ramp to P_max at K_max, 1 above."""
    q = np.array([0, 5, 6, 55, 105, 106])
    got = np.asarray(red_probability(q, 5.0, 105.0, 0.01))
    want = np.array([0.0, 0.0, 0.01 / 100, 0.01 * 50 / 100, 0.01, 1.0])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)


def test_law_refuses_unknown_alpha_update():
    with pytest.raises(ValueError, match="alpha_update='x' is invalid: accepted paper | timer"):
        get_law("dcqcn", alpha_update="x")


@pytest.mark.slow
def test_red_with_a_vertical_ramp_is_the_step_marker():
    """RED with P_max = 1 and K_max = K_min + 1/2 marks exactly when q > K_min: the same run, record for record,
    as the step marker with "gt" at K = K_min (DCQCN with its CP off, ``cp_pmax = 0``)."""
    from dwtcp_fluid.packet import build, run

    link = LinkParams(capacity="10Gbps", rtt="20us")
    kw = {"link": link, "flows": 4, "duration": "3ms", "buffer": 400, "mark_cmp": "gt", "trace_points": 30}
    red = build("dcqcn", law_params={"cp_kmin": 20.0, "cp_kmax": 20.5, "cp_pmax": 1.0}, **kw)
    step = build("dcqcn", K=20.0, law_params={"cp_pmax": 0.0}, **kw)
    assert red.meta["marking"]["kind"] == "red" and "marking" not in step.meta
    a, b = run(red, engine="jax"), run(step, engine="jax")
    assert int(np.asarray(a["records"]["marks"]).sum()) > 0
    # the RP's far wake-ups re-armed after each pacing wake-up keep one timer entry (none overflows or is lost)
    assert a["timer_overflows"] == 0 and a["timers_lost"] == 0
    for k in ("q_end", "q_sum", "marks", "delivered", "alpha_end"):
        np.testing.assert_array_equal(np.asarray(a["records"][k]), np.asarray(b["records"][k]), err_msg=k)
