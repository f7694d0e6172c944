"""The Scout-faithful DWTCP model (busy-period model): both DDE solvers, closed forms, regimes, derivation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from dwtcp_fluid.dde import solve
from dwtcp_fluid.models import DwtcpBusyFluid
from dwtcp_fluid.studies.dctcp.checks import SUMMARY_KEYS
from dwtcp_fluid.studies.dwtcp.analysis_busy import (
    boundary_flows,
    busy_history,
    criterion,
    cycle_multiplier,
    jax_step,
    regime,
    run_busy_model,
    standing_queue_point,
)
from dwtcp_fluid.studies.dwtcp.checks_busy import setting

MODEL = DwtcpBusyFluid()


def _both(rtt: float, n: int, rtts: int = 100, refine: int = 1):
    P = setting(rtt, n)
    dt = jax_step(P) / refine
    ref = solve(MODEL, P, busy_history(P), (0.0, rtts * rtt))
    # the JAX solver's own step-doubling check is off: these tests measure its error against the reference
    jx = solve(MODEL, P, busy_history(P), (0.0, rtts * rtt), method="jax", dt=dt, check=False)
    assert ref.ok and jx.ok
    xr, xj = ref(jx.t, 0), jx.x[0]
    return np.abs(xr - xj).max(axis=0), xr


@pytest.mark.parametrize(
    ("rtt", "n"),
    [
        (1e-4, 2),
        pytest.param(1e-3, 50, marks=pytest.mark.slow),
        pytest.param(1e-3, 10, marks=pytest.mark.slow),
    ],
)
def test_solvers_agree_on_the_cycle(rtt, n):
    """SciPy (event-exact, tol 1e-10) and JAX (RK4, step min(τ/80, k/(40C))) agree over 60 RTTs of the cycle: the
    window within 0.5 % of its maximum, log2 α within 0.02, the busy age within 0.15 τ."""
    err, xr = _both(rtt, n, rtts=60)
    assert err[0] <= 5e-3 * xr[:, 0].max() and err[1] <= 0.02 and err[2] <= 0.15 * rtt, err


@pytest.mark.slow
@pytest.mark.parametrize(("rtt", "n"), [(1e-4, 2), (1e-3, 10)])
def test_jax_converges_to_the_reference(rtt, n):
    """Halving the JAX step cuts the window error at least twofold (the right-hand side has kinks at N·w = C·τ
    that the fixed step does not locate, so the order drops there) — unless it is already within 1e-4 of the
    window's maximum, the floor set by the reference's own interpolation (1 ms, N = 10: 3e-3 of 80 packets)."""
    err, xr = _both(rtt, n, rtts=60)
    err2, _ = _both(rtt, n, rtts=60, refine=2)
    assert err2[0] <= err[0] / 2 or err[0] <= 1e-4 * xr[:, 0].max(), (err, err2)


def test_solvers_agree_on_the_standing_queue():
    err, xr = _both(1e-4, 50, rtts=60)
    assert err[0] <= 1e-8 * xr[:, 0].max() and err[1] <= 1e-10, err


def test_summary_has_the_packet_keys():
    """The summary carries the packet core's keys, computed from the dense reference solution and matching the
    trajectory's own numbers: the mean window is the mean of q/N + BDP/N on a busy link."""
    P = setting(1e-4, 50)
    s = run_busy_model(P, warmup=50 * P.tau, window=60 * P.tau)
    assert set(SUMMARY_KEYS) <= set(s) and s["status"] == "ok" and s["regime"] == "standing queue"
    assert abs(s["queue_mean"] - (50 * s["window_mean"] - P.bdp)) < 1e-6
    assert s["period_s"] is None and s["amplitude"] == 0.5 * (s["queue_max"] - s["queue_min"])


def _rhs_w(P, w, b_far):
    """w' of the model with u = 1 on a busy link whose busy age (one RTT ago) is b_far."""
    p = MODEL.numeric_params(P)
    return MODEL.rhs([w, 0.0, b_far], [w, 0.0, b_far], 1.0, p, np)[0]


@pytest.mark.parametrize("n", [16, 30, 50])
def test_standing_queue_point_is_the_model_rest_point(n):
    """w* against a numeric root of the model's own w' (u = 1, b → ∞), and the eigenvalue against a finite
    difference of that w'."""
    P = setting(1e-4, n)
    fp = standing_queue_point(P)
    assert fp["regime"] == "standing queue" and fp["q"] > MODEL.ripple * n
    far = 1e12 * P.tau
    root = brentq(lambda w: _rhs_w(P, w, far), P.bdp / n, 50.0, xtol=1e-12)
    assert abs(root - fp["w"]) <= 1e-7 * fp["w"], (root, fp["w"])
    h = 1e-6 * fp["w"]
    fd = (_rhs_w(P, fp["w"] + h, far) - _rhs_w(P, fp["w"] - h, far)) / (2 * h)
    assert abs(fd - fp["eigenvalue"]) <= 1e-3 * abs(fp["eigenvalue"]), (fd, fp["eigenvalue"])
    assert fp["eigenvalue"] < 0 and fp["cut"] < 0.5


@pytest.mark.parametrize("n", [16, 30, 50])
def test_rest_point_is_the_per_rtt_map_of_the_packet_law(n):
    """Independent of the fluid: N identical flows under Algorithm 1 with the link never idle, as a per-RTT map —
    once per τ the window is cut by β_w·sqrt(w) at the top of its ramp (lateness 1), then grows by data ACKs,
    dw/dt = C/(N·w), for one τ (w² rises by 2·C·τ/N). The mean window over the map's sawtooth matches the
    model's w* (ŵ = w + τ/(2R)) within 0.2 %, the queue within 0.3 packets; without the sawtooth term (saw = 0)
    the queue is 3-5 packets off."""
    P = setting(1e-4, n)
    bw, C, tau = P.beta_sqrt_packets, P.link.C, P.tau
    top = 10.0
    for _ in range(3000):
        low = top * (1 - bw * math.sqrt(top))
        top = math.sqrt(low**2 + 2 * C * tau / n)
    ts = np.linspace(0.0, tau, 20001)
    w_map = float(np.trapezoid(np.sqrt(low**2 + 2 * C * ts / n), ts) / tau)
    fp = standing_queue_point(P)
    assert abs(fp["w"] - w_map) <= 2e-3 * w_map and abs(fp["q"] - (n * w_map - P.bdp)) <= 0.3
    flat = standing_queue_point(P, DwtcpBusyFluid(saw=0.0))
    assert abs(flat["q"] - (n * w_map - P.bdp)) >= 3.0


@pytest.mark.parametrize("n", [2, 10, 50])
def test_gap_count_is_that_of_uniform_spacings(n):
    """G = N·(1 − 1/D)^{N−1} against a Monte Carlo of N trains at uniform random phases: the N spacings of D idle
    slots, counting those at least one slot long (20,000 draws), within 3 %."""
    P = setting(1e-3, n)
    p = MODEL.numeric_params(P)
    rng = np.random.default_rng(1)
    for D in (20.0, 60.0, 200.0):
        w = (P.bdp - D) / n
        cuts = np.sort(rng.uniform(0.0, D, size=(20_000, n - 1)), axis=1)
        edges = np.concatenate([np.zeros((20_000, 1)), cuts, np.full((20_000, 1), D)], axis=1)
        mc = float(np.mean(np.sum(np.diff(edges, axis=1) >= 1.0, axis=1)))
        g = float(MODEL.gaps(np.asarray(w), p, np))
        assert abs(g - mc) <= 0.03 * mc + 0.02, (n, D, g, mc)


def test_reset_rate_regimes():
    """Saturated beyond the ripple's reach: no reset; inside it: ν = 2/τ (a trough once per RTT); idle: G/τ."""
    P = setting(1e-4, 10)
    p = MODEL.numeric_params(P)
    bdp, tau = P.bdp, P.tau
    for q, want in [
        (MODEL.ripple * 10 + 1.0, 0.0),
        (1.0, 2 / tau),
        (-40.0, MODEL.gaps(np.asarray((bdp - 40) / 10), p, np) / tau),
    ]:
        assert math.isclose(float(MODEL.reset_rate(np.asarray((bdp + q) / 10), p, np)), want, abs_tol=1e-9)


def test_trajectory_settles_where_the_lateness_has_reached():
    """At 100 µs, N = 50 the model's window approaches w* as 1/t (the lateness 1 − (τ + k/C)/(τ + b) → 1 with the
    busy age b ≈ t): at t = 400 RTTs it sits within 0.01 packet of the quasi-static root at that lateness."""
    P = setting(1e-4, 50)
    T = 400 * P.tau
    sol = solve(MODEL, P, busy_history(P), (0.0, T))
    w, la, b = sol(np.array([T]), 0)[0]
    bd = sol(np.array([T - P.tau]), 0)[0][2]
    quasi = brentq(lambda x: _rhs_w(P, x, bd), P.bdp / 50, 50.0, xtol=1e-12)
    assert abs(w - quasi) <= 0.01 and la == 0.0 and b > 0.99 * T, (w, quasi, la, b)
    assert abs(50 * w - P.bdp - standing_queue_point(P)["q"]) < 1.5


@pytest.mark.parametrize(("rtt", "n", "expected"), [(1e-4, 10, "cycle"), (1e-4, 11, "standing queue"),
                                                    (1e-3, 106, "cycle"), (1e-3, 107, "standing queue")])  # fmt: skip
def test_regime_boundary(rtt, n, expected):
    """N* = 10.66 flows at 100 µs, 106.6 at 1 ms (β = 0.001 in bytes, L = 1500 B); Φ(BDP/10) = 1.0894 by hand
    (x = 8.3333, c = 1/4, s = 1/2: β_w·9.0687^{3/2}·1.0300); without ripple and sawtooth (c = s = 0) Φ reduces to
    β_w·x^{3/2} and N* to the closed form BDP·β_w^{2/3} = 9.54."""
    P = setting(rtt, n)
    assert regime(P) == expected
    assert math.isclose(boundary_flows(P), 10.6565 * rtt / 1e-4, rel_tol=1e-4)
    assert math.isclose(criterion(setting(1e-4, 10)), 1.0894, rel_tol=1e-4)
    bare = DwtcpBusyFluid(ripple=0.0, saw=0.0)
    assert math.isclose(boundary_flows(P, bare), P.bdp * P.beta_sqrt_packets ** (2 / 3), rel_tol=1e-9)


@pytest.mark.parametrize(
    ("rtt", "n", "oscillates"),
    [
        (1e-4, 2, True),
        (1e-4, 10, True),
        (1e-4, 50, False),
        pytest.param(1e-3, 50, True, marks=pytest.mark.slow),
    ],
)
def test_the_model_behaves_as_its_regime(rtt, n, oscillates):
    """Cycle regime: a period (at N = 10 the cycle stays above q = 0: the ripple's trough resets the busy age at
    q = N/4); standing queue: none, α at its floor, the link never idles."""
    P = setting(rtt, n)
    s = run_busy_model(P, warmup=50 * rtt, window=(150 if n == 10 else 60) * rtt)  # N = 10: 31-RTT cycles
    assert (s["period_s"] is not None) == oscillates and (regime(P) == "cycle") == oscillates
    if oscillates:
        assert s["queue_min"] < MODEL.ripple * n
    else:
        assert s["queue_min"] > 0 and s["utilization"] == 1.0 and s["alpha_mean"] == 1.0


def test_cycle_attracts():
    c = cycle_multiplier(setting(1e-4, 2), rtts=150)
    assert 0 < c["multiplier"] < 1 and len(c["ratios"]) >= 5
    assert math.isclose(c["period_s"], 0.936e-3, rel_tol=0.05)


def test_bad_input():
    with pytest.raises(ValueError, match="lag_rtts"):
        DwtcpBusyFluid(lag_rtts=0.5)
    with pytest.raises(ValueError, match="gap_cap"):
        DwtcpBusyFluid(gap_cap=0.0)
    with pytest.raises(ValueError, match="saw"):
        DwtcpBusyFluid(saw=1.5)
    with pytest.raises(ValueError, match="ripple"):
        DwtcpBusyFluid(ripple=-1.0)
    with pytest.raises(ValueError, match="k=0"):
        MODEL.numeric_params(setting(1e-4, 2).replace(k=0.0))
    with pytest.raises(ValueError, match="window"):
        run_busy_model(setting(1e-4, 2), window=1e-4)


def test_derivation_is_registered_and_its_identities_hold():
    """The rendered proof's key relations against numbers: the rest-point equation in seconds, q* and N*."""
    from dwtcp_fluid.symbolic.registry import DERIVATIONS

    assert any(f.__name__ == "dwtcp_busy" for f in DERIVATIONS)
    P = setting(1e-4, 50)
    fp = standing_queue_point(P)
    bw, bdp, w = P.beta_sqrt_packets, P.bdp, fp["w"]
    # 1/R = β_w ŵ^{3/2}/τ with R = N w / C and ŵ = w + τ/(2R), in seconds, not in the proof's packets
    R = 50 * w / P.link.C
    assert math.isclose(1 / R, bw * (w + 0.5 * P.tau / R) ** 1.5 / P.tau, rel_tol=1e-10)
    assert math.isclose(fp["q"], 50 * w - bdp, rel_tol=1e-12)


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_batch_equals_points():
    """One batched JAX solve (τ rescaled to 1) at two RTTs and three N against the reference solver point by point:
    mean queue within 0.5 packet + 2 %, utilization within 0.002, the same regime and oscillation."""
    from dwtcp_fluid.studies.dwtcp.analysis_busy_batch import run_busy_batch

    keys = [(1e-4, 2), (1e-4, 50), (1e-3, 50)]
    pts = [setting(rtt, n) for rtt, n in keys]
    batch = run_busy_batch(pts, warmup_rtts=30, window_rtts=60)
    for P, b in zip(pts, batch, strict=True):
        r = run_busy_model(P, warmup=30 * P.tau, window=60 * P.tau)
        assert b["status"] == "ok" and b["regime"] == r["regime"]
        assert abs(b["queue_mean"] - r["queue_mean"]) <= 0.5 + 0.02 * r["queue_mean"], (P.tau, P.flows, b, r)
        assert abs(b["utilization"] - r["utilization"]) <= 2e-3
        assert (b["period_s"] is None) == (r["period_s"] is None)
        assert b["duration_s"] == pytest.approx(90 * P.tau)
    with pytest.raises(ValueError, match="window_rtts"):
        run_busy_batch(pts, window_rtts=10)
