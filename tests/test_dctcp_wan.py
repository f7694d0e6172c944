"""[DCTCP-WAN] scenarios: closed-form bounds, the loss-folded fluid model against the packet elephant, delayed ACKs
against the unchanged fluid model, every claim's verdict (slow), and deadlines in the summaries."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dwtcp_fluid.packet import build
from dwtcp_fluid.packet.scenarios import run_many
from dwtcp_fluid.packet.scenarios_wan import p99_rtt_bound, wan_metrics, wan_run
from dwtcp_fluid.studies.dctcp.figures_wan import LOSS, loss_fluid


def test_p99_bound_closed_form():
    # 100 packets of 1500 B at 950 Mbps = 1.263 ms of queue on a 1 ms path: at most 1 − 1/2.263 = 55.8 % lower
    q = 100 * 1500 * 8 / 950e6
    assert p99_rtt_bound("star") == pytest.approx(1 - 1e-3 / (1e-3 + q), rel=1e-9)
    assert p99_rtt_bound("star") == pytest.approx(0.558, abs=1e-3)


def test_bad_setting_and_laws():
    with pytest.raises(ValueError, match="setting"):
        wan_run("lan")
    with pytest.raises(ValueError, match="laws"):
        wan_run("star", ("dctcp", "cubic", "reno"), duration=0.05)


@pytest.fixture(scope="module")
def elephant_runs():
    prs = [wan_run("star", mice=0, loss=LOSS, duration=3.0, trace_points=500, seed=1)]
    prs += [wan_run("star", mice=0, delack=m, duration=0.5, trace_points=500) for m in (1, 2)]
    return [wan_metrics(pr, o) for pr, o in zip(prs, run_many(prs), strict=True)]


def test_loss_folded_fluid_matches_the_packet_elephant(elephant_runs):
    """0.1 % loss, one elephant: the fluid equilibrium W* = √(2/p) = 44.7 (queue empty); packet window and
    throughput within 15 % (about 100 loss events in the compared 2.25 s: ±1/√n ≈ 10 % of sampling noise)."""
    p = elephant_runs[0]
    f = loss_fluid("star", LOSS, 3.0)
    assert f["window_mean"] == pytest.approx(math.sqrt(2 / LOSS), abs=0.5)
    assert p["window_mean"] == pytest.approx(f["window_mean"], rel=0.15)
    assert p["elephant_share"] == pytest.approx(f["share"], rel=0.15)


def test_delayed_acks_leave_the_dctcp_loop_unchanged(elephant_runs):
    """With byte counting and DCTCP's two-state ECN receiver, m = 2 changes neither the increase nor α: mean queue
    within 3 packets and window within 5 % of m = 1, the case the unchanged fluid model describes."""
    one, two = elephant_runs[1], elephant_runs[2]
    assert two["queue_mean"] == pytest.approx(one["queue_mean"], abs=3.0)
    assert two["window_mean"] == pytest.approx(one["window_mean"], rel=0.05)
    assert two["elephant_share"] == pytest.approx(one["elephant_share"], abs=0.02)


def test_deadlines_met_counts_by_hand():
    """100 packets with a 1 s deadline finish in time; 10⁴ packets need ≥ 12 ms at 10 Gbps, so a 1 ms deadline is
    missed; a long flow has none."""
    out = run_many(
        [
            build(
                "d2tcp",
                flows=3,
                sizes=[100, 10_000, 2**30],
                deadlines=[1.0, 0.001, math.inf],
                duration="20ms",
            )
        ]
    )[0]
    assert out["deadline_flows"] == 2 and out["deadlines_met"] == 0.5
    assert out["fct_s"][1] > 0.012


@pytest.mark.slow
def test_every_dctcp_wan_claim_holds():
    from dwtcp_fluid.experiments.figure import registered
    from dwtcp_fluid.studies.dctcp.figures_wan import build_dctcp_wan

    fig = registered()["dctcp_wan_claims"]
    data = build_dctcp_wan(False)
    res = [(c.text, *c.check(data)) for c in fig.claims]
    assert all(ok for _, ok, _ in res), [r for r in res if not r[1]]
    assert np.isfinite(data["star-dctcp"]["rtt_cov"])
