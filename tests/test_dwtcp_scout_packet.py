"""The Scout-faithful DWTCP model against the packet core's DWTCP law (10 Gbps, β = 0.001, K = 100, buffer 5000).

Packet runs: :func:`dwtcp_fluid.studies.dwtcp.checks_busy.packet_dwtcp`, which is the one definition of a DWTCP packet
run at a setting (:func:`dwtcp_fluid.studies.dwtcp.checks.packet_setting`, a point of the sweep's packet pass).
Rule: :func:`dwtcp_fluid.judge.classes.model_gaps` (mean queue within 10 packets or 20 %, utilization
within 0.02; a standing-queue model needs a packet queue that never empties; a steady packet run needs a model
whose amplitude is within the packet run's own oscillation threshold; an oscillating one a period within 15 % where
the packet period is regular). Measured on packet core v2, seeds 0, 1, 2 (proofs/dwtcp_busy.md): at the five
settings other than 1 ms N = 2, 12 of 15 pass; the three misses are periods at 100 µs (N = 2 seed 0: the packet
run oscillates, 0.80 vs 0.94 ms; N = 10 seeds 0, 2: 2.63 and 2.58 vs 3.12 ms), mean queue and utilization within
tolerance everywhere. 1 ms N = 2 is a phase arrangement whose utilization wanders (not stationary on seed 0, read
steady on seeds 1, 2). The default tests use seed 0 at 100 µs.
"""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.judge.classes import regular_period
from dwtcp_fluid.studies.dwtcp.analysis_busy import standing_queue_point
from dwtcp_fluid.studies.dwtcp.checks import model_gaps
from dwtcp_fluid.studies.dwtcp.checks_busy import (
    SETTINGS,
    existing_dwtcp,
    model_dwtcp,
    packet_dwtcp,
    setting,
)


def within_tolerance(pk: dict, md: dict) -> tuple[bool, list[str]]:
    v = model_gaps(pk, md)
    return v["verdict"] == "pass", v["why"]


def _pair(rtt: float, n: int, seed: int = 0):
    return packet_dwtcp([(rtt, n)], seed=seed)[0], model_dwtcp([(rtt, n)])[0]


def test_standing_queue_at_100us_n50():
    """The Scout is starved: no Scout served in 300 RTTs, α at its floor, the queue never empties; the model's
    standing queue meets the tolerances (packet 139.8 vs model 137.2, q* = 136.2)."""
    pk, md = _pair(1e-4, 50)
    assert pk["class"] == "steady" and pk["scouts_served_per_rtt"] == 0.0 and pk["alpha_mean"] == 1.0
    assert md["regime"] == "standing queue"
    ok, why = within_tolerance(pk, md)
    assert ok, why
    assert abs(pk["queue_mean"] - standing_queue_point(setting(1e-4, 50))["q"]) <= 10


def _only_the_period_misses(pk: dict, md: dict, lo: float, hi: float) -> None:
    """Mean queue and utilization within tolerance, the regular packet period missed by lo-hi (model slower)."""
    v = model_gaps(pk, md)
    assert v["verdict"] == "fail" and [w.endswith("within tolerance") for w in v["why"]] == [
        True,
        True,
        False,
    ], v["why"]
    assert pk["period_regular"] and lo < md["period_s"] / pk["period_s"] - 1 < hi, (
        pk["period_s"],
        md["period_s"],
    )


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_cycle_at_100us_n2():
    """The model cycles through q = 0 with a ripple of 3.1 packets (period 0.94 ms). The packet queue empties too;
    on seed 0 it swings by 5.5 packets, above the steady threshold max(5, N), with a regular period of 0.80 ms
    (cycle-length CV 0.03): the model's cycle is 17 % slow, a fail, while mean queue (3.8 vs 1.6) and utilization
    (0.952 vs 0.966) are within tolerance. (Seeds 1, 2 swing by 4.0 and 4.5: steady, and pass.)"""
    pk, md = _pair(1e-4, 2)
    assert md["regime"] == "cycle" and pk["queue_min"] == 0 and pk["class"] == "oscillating"
    _only_the_period_misses(pk, md, 0.10, 0.25)


def test_cycle_at_100us_n10():
    """Just below the boundary (N* = 10.66) both cycle: long busy periods ended by the ripple's trough; mean queue
    10.0 (seed 0) vs 7.2 (model). The packet period is regular (2.63 ms, CV 0.32) and the model's 3.12 ms is 19 %
    slow: a fail on the period only (seed 1: 2.86 ms, 9 %, pass; seed 2: 2.58 ms, 21 %). The model without the
    ripple and the sawtooth term puts N = 10 in the standing-queue regime (the old criterion
    β_w·(BDP/N)^{3/2} = 0.93 < 1)."""
    pk, md = _pair(1e-4, 10)
    assert md["regime"] == "cycle" and pk["queue_min"] == 0 and pk["class"] == "oscillating"
    _only_the_period_misses(pk, md, 0.10, 0.30)
    P = setting(1e-4, 10)
    assert P.beta_sqrt_packets * (P.bdp / 10) ** 1.5 < 1


def test_unscored_runs_are_never_agreement():
    for cls in ("not_stationary", "collapse"):
        v = model_gaps({"class": cls}, {"regime": "cycle", "status": "ok"})
        assert v["verdict"] == "not scored" and cls in v["why"][0]


def test_regular_period():
    """A sine of period 40 samples: regular, period 40; a sparse random spike train: irregular (cycle lengths
    vary by more than half their mean) and its period is never scored."""
    t = np.arange(2000)
    period, ncyc, cv, regular = regular_period(10 + 5 * np.sin(2 * np.pi * t / 40), 1.0)
    assert regular and abs(period - 40) < 0.5 and ncyc >= 45 and cv < 0.05
    rng = np.random.default_rng(0)
    spikes = np.where(rng.random(2000) < 0.02, 20.0, 0.0)
    _, _, cv2, regular2 = regular_period(spikes, 1.0)
    assert not regular2 and cv2 > 0.5
    pk = {"class": "oscillating", "queue_mean": 1.0, "queue_min": 0.0, "utilization": 0.9, "period_s": 0.5,
          "period_regular": False, "cycles": 30, "cycle_cv": 0.8}  # fmt: skip
    ok, why = within_tolerance(
        pk, {"regime": "cycle", "queue_mean": 1.5, "utilization": 0.91, "period_s": 1.0, "status": "ok"}
    )
    assert ok and "not scored" in why[2]


#: Outcome of each setting at seed 0: met, the period missed, or the packet run's class.
_EXPECTED = {(1e-4, 2): "period", (1e-4, 10): "period", (1e-4, 50): "met", (1e-3, 2): "not_stationary",
             (1e-3, 10): "met", (1e-3, 50): "met"}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("rtt", "n"), SETTINGS)
def test_six_settings(rtt, n):
    """Each setting at seed 0: met, the period missed (100 µs, N = 2 and 10), or (1 ms, N = 2) never scored. At 1 ms
    the packet runs are steady (N = 10: amplitude 7.0 within 10; N = 50: 42.0 within 50) and so is the model by the
    same threshold (7.5, 40.6)."""
    pk, md = _pair(rtt, n)
    v = model_gaps(pk, md)
    if _EXPECTED[(rtt, n)] == "met":
        assert v["verdict"] == "pass", v["why"]
    elif _EXPECTED[(rtt, n)] == "period":
        _only_the_period_misses(pk, md, 0.10, 0.30)
    else:
        assert v["verdict"] == "not scored" and pk["class"] == _EXPECTED[(rtt, n)], v["why"]
    assert len(SETTINGS) == 6


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_other_seeds(seed):
    """Seeds 1 and 2 at the five settings other than 1 ms N = 2: met everywhere but at 100 µs N = 10 on seed 2,
    where the packet period is regular and the model's 21 % slow (2.58 vs 3.12 ms; seed 1: 2.86 ms, 9 %, met)."""
    runs = [key for key in SETTINGS if key != (1e-3, 2)]
    # the reference solver: the JAX run of this model is flagged INACCURATE by its own step-doubling check at three
    # of these settings (error estimate of w up to 0.56 packets), at about the same CPU time
    for pk, md in zip(packet_dwtcp(runs, seed=seed), model_dwtcp(runs), strict=True):
        if (seed, pk["rtt"], pk["flows"]) == (2, 1e-4, 10):
            _only_the_period_misses(pk, md, 0.10, 0.30)
            continue
        ok, why = within_tolerance(pk, md)
        assert ok, (pk["rtt"], pk["flows"], why)
        if (pk["rtt"], pk["flows"]) == (1e-4, 10):
            assert pk["period_regular"] and "period" in why[2], why


@pytest.mark.slow
def test_queue_delay_models_miss():
    """Every queue-delay model (paper, sqrt, ±Scout α, ±1 RTT) misses the packet mean queue by more than the
    tolerance where the busy-period model meets it (100 µs N = 2, 1 ms N = 50)."""
    keys = [(1e-4, 2), (1e-3, 50)]
    ex = existing_dwtcp(keys)
    for (rtt, n), pk, row in zip(keys, packet_dwtcp(keys), ex, strict=True):
        q = pk["queue_mean"]
        for name, s in row.items():
            dq = abs(s["queue_mean"] - q)
            assert dq > 10 and dq > 0.2 * q, (rtt, n, name, s["queue_mean"], q)


@pytest.mark.slow
@pytest.mark.parametrize("n", [13, 16, 30])
def test_standing_queue_beyond_the_boundary(n):
    """Past the boundary (N* = 10.66 at 100 µs) the packet queue never empties and sits within 10 packets or 20 %
    of q* (N = 13-30: within 2.3 packets, seed 0); the packet core's own boundary lies between N = 11 (cycles) and 13."""
    pk = packet_dwtcp([(1e-4, n)])[0]
    q = standing_queue_point(setting(1e-4, n))["q"]
    assert pk["queue_min"] > 0 and pk["utilization"] == 1.0
    assert abs(pk["queue_mean"] - q) <= max(10.0, 0.2 * q), (pk["queue_mean"], q)


@pytest.mark.slow
def test_boundary_is_off_by_one():
    """N = 11 at 100 µs: the model stands (q* = 4.8 packets, above its ripple's reach of 2.75), the packet core
    still cycles through q = 0 with periods of 4.4-5.9 ms: the model's boundary is one flow low."""
    pk = packet_dwtcp([(1e-4, 11)])[0]
    assert standing_queue_point(setting(1e-4, 11))["regime"] == "standing queue" and pk["queue_min"] == 0
