"""Swift: the packet law against hand-computed event sequences of [Swift] Algorithm 1 and §3.5's target delay."""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet.laws import Events, get_law
from dwtcp_fluid.packet.laws.swift import flow_scaling, swift_params, target_delay
from dwtcp_fluid.params import LinkParams

F = jnp.float32
#: Hand-checkable parameters (slots, packets): target = 20 + 1·2 + fs(w), fs over [0.25, 16] packets, range 8.
HAND = {
    "ai": 1.0,
    "beta": 0.8,
    "max_mdf": 0.5,
    "base_target": 20.0,
    "h": 2.0,
    "hops": 1.0,
    "fs_range": 8.0,
    "fs_min_cwnd": 0.25,
    "fs_max_cwnd": 16.0,
    "endpoint_target": 10.0,
    "min_cwnd": 0.01,
    "max_cwnd": 1000.0,
    "init_cwnd": 20.0,
    "retx_reset": 3.0,
    "serial": 1.0,
}


def _fs(w: float) -> float:
    """fs(w) by hand: α = 8/(1/√0.25 − 1/√16) = 8/1.75, β = −α/4."""
    a = 8.0 / (2.0 - 0.25)
    return min(max(a / math.sqrt(w) - a / 4.0, 0.0), 8.0)


@functools.lru_cache(maxsize=4)
def _step(split: str):
    """The law's step, compiled once per option (op-by-op dispatch of every event would dominate the tests)."""
    lw = get_law("swift", split=split)
    return lw, jax.jit(lw.step)


def _feed(events, **over):
    """Feed one flow's law (t, rtt sample, kind) events; return (fcwnd, cwnd, rate) after each."""
    lw, step = _step(over.pop("options", {}).get("split", "fabric"))
    p = {k: F(v) for k, v in {**HAND, **over}.items()}
    s = lw.init(p, 1)
    out = []
    for t, rtt, kind in events:
        ev = Events(
            t=jnp.int32(t),
            ack=jnp.asarray([kind == "ack"]),
            timeout=jnp.asarray([kind == "timeout"]),
            nloss=jnp.asarray([1 if kind == "loss" else 0], jnp.int32),
            n_acked=jnp.asarray([1], jnp.int32),
            rtt_sample=jnp.asarray([rtt], F),
            rtt=F(19.0),
        )
        s = step(s, ev, p)
        out.append((float(s["fcwnd"][0]), float(s["cwnd"][0]), float(s["rate"][0])))
    return out


def test_flow_scaling_by_hand():
    p = {k: F(v) for k, v in HAND.items()}
    for w in (0.1, 0.25, 1.0, 4.0, 16.0, 50.0):
        assert float(flow_scaling(F(w), p)) == pytest.approx(_fs(w), abs=1e-5)
    assert float(flow_scaling(F(0.25), p)) == pytest.approx(8.0, abs=1e-5)  # fs_range at fs_min_cwnd
    assert float(flow_scaling(F(16.0), p)) == pytest.approx(0.0, abs=1e-5)  # 0 at fs_max_cwnd
    assert float(target_delay(F(4.0), p)) == pytest.approx(22.0 + _fs(4.0), abs=1e-5)


def test_increase_decrease_once_per_rtt_by_hand():
    # w = 20 ≥ fs_max: target 22. ACK at 21 → AI; at 40 (slot 30) → MD; at 40 again (slot 35 < 30 + 40) → held;
    # at 30 (slot 80 ≥ 30 + 40... guard is the last sample, 40) → MD again
    out = _feed([(10, 21.0, "ack"), (30, 40.0, "ack"), (35, 40.0, "ack"), (80, 30.0, "ack")])
    w = 20.0 + 1.0 / 20.0
    assert out[0][0] == pytest.approx(w, rel=1e-6)
    t = 22.0 + _fs(w)
    w *= max(1 - 0.8 * (40 - t) / 40, 0.5)
    assert out[1][0] == pytest.approx(w, rel=1e-6)
    assert out[2][0] == pytest.approx(w, rel=1e-6)  # at most one decrease per RTT
    t = 22.0 + _fs(w)
    w *= max(1 - 0.8 * (30 - t) / 30, 0.5)
    assert out[3][0] == pytest.approx(w, rel=1e-6)
    assert out[3][1] == pytest.approx(w, rel=1e-6)  # the engine's cap is the window above one packet
    assert out[3][2] == 1.0


def test_max_mdf_clips_the_decrease():
    out = _feed([(100, 400.0, "ack")])
    assert out[0][0] == pytest.approx(20.0 * 0.5, rel=1e-6)  # 1 − 0.8·(400 − 22)/400 < 0.5


def test_pacing_below_one_packet_by_hand():
    # w = 0.5: AI adds ai per ACK; the cap stays 1 packet and the rate is w/rtt (gap rtt/w)
    out = _feed([(100, 21.0, "ack"), (300, 60.0, "ack")], init_cwnd=0.5, options={"split": "total"})
    assert out[0][0] == pytest.approx(1.5, rel=1e-6)
    assert out[0][1] == pytest.approx(1.5, rel=1e-6)
    t = 22.0 + _fs(1.5)
    w = 1.5 * max(1 - 0.8 * (60 - t) / 60, 0.5)
    assert w < 1.0
    assert out[1][0] == pytest.approx(w, rel=1e-6)
    assert out[1][1] == 1.0
    assert out[1][2] == pytest.approx(w / 60.0, rel=1e-5)


def test_endpoint_window_binds_only_while_smaller():
    # fabric split: ecwnd starts at init_cwnd and only increases (endpoint delay 0 < endpoint_target)
    out = _feed([(10, 21.0, "ack"), (20, 21.0, "ack")], init_cwnd=2.0)
    assert out[1][0] == pytest.approx(2.0 + 0.5 + 1 / 2.5, rel=1e-6)
    lw = get_law("swift")
    assert lw.split == "fabric"


def test_timeouts_and_losses_by_hand():
    out = _feed([(100, 0.0, "timeout"), (110, 0.0, "timeout"), (300, 0.0, "timeout"), (400, 0.0, "timeout")],
                options={"split": "total"})  # fmt: skip
    # 1st: may decrease (100 − 0 ≥ 19) → ×0.5; 2nd at 110: not a full RTT since 100 → held; 3rd: count 3 = reset
    assert [o[0] for o in out[:3]] == pytest.approx([10.0, 10.0, 0.01], rel=1e-6)
    loss = _feed([(100, 25.0, "loss")], options={"split": "total"})
    assert loss[0][0] == pytest.approx(10.0, rel=1e-6)


def test_defaults_follow_the_link_and_bad_options_are_refused():
    link = LinkParams(capacity="10Gbps", rtt="20us")
    p = swift_params(link)
    slot = 1500 * 8 / 10e9
    assert p["base_target"] == pytest.approx(20e-6 / slot + 1.0)
    assert p["fs_range"] == pytest.approx(100e-6 / slot)
    assert p["h"] == pytest.approx(20e-6 / 6.55 / slot)
    with pytest.raises(ValueError, match="split"):
        get_law("swift", split="host")
    np.testing.assert_allclose(p["min_cwnd"], 10 / 1500)


# --- fluid model, fixed point, stability region -----------------------------------------------------------------


def test_fixed_point_against_the_cubic_solved_by_numpy():
    from dwtcp_fluid.models.swift import SwiftParams
    from dwtcp_fluid.studies.swift.analysis import fixed_point

    for n, rtt in ((2, "20us"), (10, "100us"), (64, "10us")):
        P = SwiftParams(link=LinkParams(capacity="10Gbps", rtt=rtt), flows=(n,))
        C, d = P.link.C, P.link.d
        T0 = P.base_target + P.hops * P.h
        a = P.fs_range / (1 / math.sqrt(P.fs_min_cwnd) - 1 / math.sqrt(P.fs_max_cwnd))
        b = -a / math.sqrt(P.fs_max_cwnd)
        s = [z.real for z in np.roots([n, 0.0, -C * (T0 + b), -C * a]) if abs(z.imag) < 1e-9 and z.real > 0]
        assert len(s) == 1
        w_hand = s[0] ** 2
        assert P.fs_min_cwnd < w_hand < P.fs_max_cwnd  # inside the scaled range at these settings
        w, q = fixed_point(P)
        assert w == pytest.approx(w_hand, rel=1e-9)
        assert q == pytest.approx(C * (n * w_hand / C - d) - 1, rel=1e-9)


def test_critical_ratio_puts_a_root_on_the_imaginary_axis():
    from dwtcp_fluid.studies.swift.analysis import critical_ratio, crossing_frequency

    for beta, kappa in ((0.8, 0.0), (0.8, 0.3), (3.0, 0.05), (1.5, 1.0)):
        w, r = crossing_frequency(beta, kappa), critical_ratio(beta, kappa)
        mu = 1j * w
        f = mu**2 + mu + beta * np.exp(-mu * r) * (kappa * mu + kappa + 1)
        assert abs(f) < 1e-9 * (1 + w**2)
    # κ = 0: ω⁴ + ω² = β², r* = atan(1/ω)/ω (by hand at β = 0.8: ω² = (√3.56 − 1)/2)
    w = math.sqrt((math.sqrt(1 + 4 * 0.64) - 1) / 2)
    assert critical_ratio(0.8, 0.0) == pytest.approx(math.atan(1 / w) / w, rel=1e-12)


@pytest.mark.slow
def test_linear_verdict_of_the_cross_check_settings():
    from dwtcp_fluid.studies.swift.analysis import critical_beta, linear_abscissa, normalized
    from dwtcp_fluid.studies.swift.checks import SETTINGS

    for s in SETTINGS:
        r, k, _ = normalized(s.params())
        assert 0 < r < 1 and 0 <= k < 1
        assert (linear_abscissa(s.params()) < 0) == (s.beta < critical_beta(r, k))
    assert {s.beta for s in SETTINGS} == {0.8, 3.0}


@pytest.mark.slow
def test_packet_law_agrees_with_the_fluid_model_at_every_setting():
    from dwtcp_fluid.judge import run_check
    from dwtcp_fluid.studies.swift.checks import CHECK

    res = run_check(CHECK)
    classes = [r.run_class for r in res.rows]
    assert "stable" in classes and "oscillating" in classes
    bad = [(r.name, r.verdicts["fluid"].checks) for r in res.rows if not r.agree]
    assert not bad, bad
