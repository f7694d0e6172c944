"""``tune dwtcp``: the busy-period model's smooth piece against its closed form, the non-smooth piece the search
is derivative-free for, the search against a brute-force grid (slow), the guideline arithmetic, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.params import DwtcpParams, LinkParams
from dwtcp_fluid.studies.dctcp.tune import TuneRange
from dwtcp_fluid.studies.dwtcp.analysis_busy import standing_queue_point
from dwtcp_fluid.studies.dwtcp.tune import busy_observables, grid_search, guideline_beta, tune_dwtcp
from dwtcp_fluid.studies.dwtcp.tune_search import _better

RUN = {"warmup_rtts": 50.0, "window_rtts": 100.0}


def test_standing_queue_closed_form_and_independent_of_K() -> None:
    """Where Φ(BDP/N) < 1 the objective is smooth and closed-form: q* = N·w* − BDP with w* the root of
    x/w = β_w·(w + x/(2w))^{3/2} (brentq, no solver), whatever K. K enters only through the lateness
    (b − k/C)/(τ + b), which tends to 1 as the busy age b grows linearly: the approach is algebraic, ~(τ + k/C)/b,
    so after 150 RTTs the batched model is within 5 packets of q* at two K a factor 4 apart (above it, by more at
    the larger K) and the two within 3 packets."""
    rng = TuneRange("10Gbps", ("100us", "100us"), (50, 50), points=2)
    o = busy_observables(rng, [1e-3, 1e-3], [50.0, 200.0], **RUN)
    P = DwtcpParams(
        link=LinkParams("10Gbps", "100us"), flows=50, beta=1e-3, k=50.0, scout_size=64.0, alpha0=20.0
    )
    q = standing_queue_point(P)["q"]
    assert o["standing"].all() and o["ok"].all()
    assert np.allclose(o["queue_mean"][:, 0], q, atol=5.0)
    assert q - 0.5 < o["queue_mean"][0, 0] < o["queue_mean"][1, 0] < o["queue_mean"][0, 0] + 3.0
    assert (o["utilization"] > 1 - 1e-9).all()


def test_filter_order() -> None:
    """Feasible beats infeasible whatever the values; feasible by value; infeasible by violation."""
    assert _better((500.0, 0.0), (1.0, 1e-3))
    assert not _better((1.0, 1e-3), (500.0, 0.0))
    assert _better((10.0, 0.0), (11.0, 0.0)) and not _better((11.0, 0.0), (10.0, 0.0))
    assert _better((99.0, 1e-3), (1.0, 2e-3))


def test_guideline_readings() -> None:
    """β ≈ 1/(2·sqrt(BDP/N)) by hand: 10 Gbps, 100 µs (BDP 83.33 packets), N = 10, 1500-byte packets."""
    g = guideline_beta(1e10 / 8 / 1500 * 1e-4, 10, 1500.0)
    assert g["packets_in_bytes_beta"] == pytest.approx(0.17320508, rel=1e-6)  # 1/(2·sqrt(8.3333))
    assert g["consistent"] == pytest.approx(4.4721360e-3, rel=1e-6)  # 1/(2·sqrt(12500))


@pytest.mark.slow
def test_search_agrees_with_grid() -> None:
    """On a small range the search is feasible, within 2 % of the feasible grid optimum of the same objective, its
    β within one grid spacing of the grid's, with fewer evaluations (K is compared through the objective only: the
    worst-case queue is nearly flat in K inside the feasible set, see the figure's claims)."""
    rng = TuneRange("10Gbps", ("100us", "100us"), (2, 30), points=2)
    r = tune_dwtcp(rng, **RUN)
    assert r.ok
    bs, ks = np.geomspace(1e-5, 1e-2, 16), np.geomspace(20, 1000, 10)
    G = grid_search(rng, bs, ks, **RUN)
    assert G["any_feasible"]
    db = math.log10(bs[1] / bs[0])
    assert abs(math.log10(r.beta / G["beta"])) <= db + 1e-9
    # within 2 % of the grid's best: the search is local and stops at a 0.03-decade step (measured: 117.0 vs
    # 116.6 packets here; on the full range it is 7 % better than the 0.1-decade grid, the figure's claim)
    assert r.summary().objective_value <= 1.02 * G["objective_value"]
    assert r.model_runs * 2 < G["model_runs"]  # the ≥ 10× count is on the full range (the test below)


def _vertex_model(calls: list[tuple[float, float, int]]):
    """A stand-in for the busy-period model with a hand-solvable optimum, on the default 3 × 3 range (point
    i = 3·(RTT index) + (N index)). In x = log10 β, y = log10 K: value (3 − x)·(2 at the centre point 4, else 1),
    worst at the centre, an interior point; utilization ≥ 0.99 ⇔ x ≤ 0.6·y + c with c = −5 at the edge point 1
    (lowest RTT, middle N) and −4 elsewhere; amplitude ≤ threshold ⇔ x ≤ −0.3·y + a with a = −3 at corner 0 and
    −2.5 elsewhere. The optimum is the vertex of the two binding lines: y* = 2/0.9, x* = 0.6·y* − 5."""

    def fake(rng, beta, K, point, *, dt_rtts, **run):
        x, y, p = np.log10(np.asarray(beta, float)), np.log10(np.asarray(K, float)), np.asarray(point, int)
        calls.extend(zip(x.round(9), y.round(9), p, strict=True))
        N = rng.grid()[1][p]
        thr = np.maximum(5.0, N)
        v = (3.0 - x) * np.where(p == 4, 2.0, 1.0)
        c, a = np.where(p == 1, -5.0, -4.0), np.where(p == 0, -3.0, -2.5)
        return {"queue_mean": v, "queue_max": v + 1.0, "utilization": 0.99 - 0.01 * (x - 0.6 * y - c),
                "amplitude": thr * (1.0 + (x + 0.3 * y - a)), "threshold": thr, "standing": p == p,
                "ok": p == p}  # fmt: skip

    return fake


def test_working_set_grows_and_certifies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search starts on the corners; the worst point (the centre) and a binding constraint (an edge point) are
    not corners, so the certification must add them: the optimum is the hand-solved vertex (within the last step,
    0.0625 decade), the reported value is over every point, and the model runs counted are exactly the distinct
    (candidate, point) runs the model made — fewer than candidates × points."""
    import dwtcp_fluid.studies.dwtcp.tune_search as search

    calls: list[tuple[float, float, int]] = []
    monkeypatch.setattr(search, "pair_observables", _vertex_model(calls))
    r = tune_dwtcp(TuneRange())
    y = 2 / 0.9
    x = 0.6 * y - 5
    assert r.ok
    assert abs(math.log10(r.beta) - x) <= 0.0625 and abs(math.log10(r.K) - y) <= 0.0625 / 0.3
    assert {0, 1, 2, 4, 6, 8} <= set(r.working_set)
    s = r.summary()
    assert s.objective_value == pytest.approx((3 - math.log10(r.beta)) * 2, rel=1e-12)
    assert (s.worst_point["rtt_s"], s.worst_point["flows"]) == (
        TuneRange().grid()[0][4],
        TuneRange().grid()[1][4],
    )
    assert r.model_runs == len(set(calls)) < 9 * r.evaluations


@pytest.mark.slow
def test_default_search_runs_tenth_of_grid() -> None:
    """Issue 17's count: on the default range the search makes at most 1/10 of the model runs of the default
    validation grid (every one of its GRID candidates at every point), same objective, model and points."""
    from dwtcp_fluid.studies.dwtcp.tune import GRID

    rng = TuneRange("10Gbps", ("100us", "300us"), (2, 100), points=3)
    r = tune_dwtcp(rng)
    assert r.ok
    assert r.model_runs * 10 <= GRID[0] * GRID[1] * rng.grid()[0].size


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--rtt", "300us:100us"], "--rtt"),
        (["--flows", "0:10"], "--flows"),
        (["--objective", "latency"], "--objective"),
        (["--utilization-min", "1.5"], "--utilization-min"),
        (["--points", "1"], "--points"),
        (["--capacity", "fast"], "--capacity"),
    ],
)
def test_tune_dwtcp_cli_bad_input(args: list[str], flag: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["tune", "dwtcp", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and flag in err[0]


def test_tune_dwtcp_bad_input() -> None:
    with pytest.raises(ValueError, match="objective"):
        tune_dwtcp(TuneRange(), objective="latency")
    with pytest.raises(ValueError, match="beta0"):
        tune_dwtcp(TuneRange(), beta0=0.5)
    with pytest.raises(ValueError, match="utilization_min"):
        tune_dwtcp(TuneRange(), utilization_min=0.0)
