"""CUBIC's hybrid fluid model against its closed form (SymPy, proofs/cubic.md), hand-computed jumps, and the packet
core at stated tolerances (studies/cubic/checks.py)."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.models.cubic import CubicFluid, CubicParams, cubic_cut, loss_hits
from dwtcp_fluid.params import LinkParams
from dwtcp_fluid.studies.cubic.analysis import cycle_period, cycle_summary, run_cubic
from dwtcp_fluid.studies.cubic.checks import SETTINGS, SLOW_SETTINGS, TOLERANCES, compare_cubic
from dwtcp_fluid.studies.cubic.derive import closed_form


def _params(rtt="20ms", buffer=200.0, flows=1, fc=False, c=0.4):
    return CubicParams(link=LinkParams(capacity="950Mbps", rtt=rtt), flows=(flows,), buffer=buffer, c=c,
                       fast_convergence=fc)  # fmt: skip


def test_cut_by_hand():
    """At the plateau (s = 0) W = W_max = 100: W_max stays 100, cwnd 70, K = ∛(30/0.4). One second before it
    (s = −1) W = 120 − 0.4 = 119.6 < W_max: fast convergence, W_max = 0.85·W, K = ∛(0.15·W/0.4)."""
    p = {"c": 0.4, "beta": 0.7}
    y = cubic_cut([0.0, 100.0, 0.0, 50.0], p, 1, [True], fast_convergence=True)
    assert y.tolist() == pytest.approx(
        [-((30.0 / 0.4) ** (1 / 3)), 100.0, 70.0, 50.0]
    )  # W not below W_max: no FC
    y = cubic_cut(
        [-1.0, 120.0, 0.0, 50.0], p, 1, [True], fast_convergence=True
    )  # W = 120 − 0.4 = 119.6 < 120
    w = 119.6
    assert y.tolist() == pytest.approx([-(((0.85 - 0.7) * w / 0.4) ** (1 / 3)), 0.85 * w, 0.7 * w, 50.0])
    assert cubic_cut([-1.0, 120.0, 0.0, 50.0], p, 1, [False]).tolist() == [-1.0, 120.0, 0.0, 50.0]


def test_loss_hits_expected_flows_and_carry():
    """Two equal flows: D = 1 drop hits E = 2(1 − 1/2) = 1 flow; D = 50 both; E = 2(1 − 0.5^1.6) = 1.340 leaves a
    carry that makes every third episode hit both (rounded error diffusion)."""
    assert loss_hits([10.0, 10.0], [1, 1], 1.0) == ([True, False], pytest.approx(0.0))
    assert loss_hits([10.0, 12.0], [1, 1], 50.0)[0] == [True, True]
    assert loss_hits([10.0, 12.0], [1, 1], 0.2)[0] == [False, True]  # at least one: the largest window
    carry, counts = 0.0, []
    for _ in range(6):
        hit, carry = loss_hits([10.0, 10.0], [1, 1], 1.6, carry)
        counts.append(sum(hit))
    e = 2 * (1 - 0.5**1.6)
    assert counts == [1, 2, 1, 1, 2, 1] and sum(counts) == pytest.approx(6 * e, abs=0.5)


@pytest.mark.parametrize(
    "rtt, buffer, flows",
    [("20ms", 2000.0, 1), ("20ms", 200.0, 1), ("5ms", 2000.0, 2)],
    ids=["deep-buffer", "idle-link", "two-flows"],
)
def test_cycle_matches_the_closed_form(rtt, buffer, flows):
    """Without fast convergence, synchronized: the hybrid model's period, queue range, mean queue, mean window and
    utilization against proofs/cubic.md (c = 0.4: the queue settles within an RTT, the quasi-static limit)."""
    P = _params(rtt, buffer, flows)
    cf = closed_form(P)
    assert not cf["friendly"]
    s = cycle_summary(run_cubic(P, 8 * cf["period"], sync="all"))
    assert s["cuts"] >= 3
    assert s["period_s"] == pytest.approx(cf["period"], rel=0.01)
    assert s["window_mean"] == pytest.approx(cf["window_mean"], rel=0.01)
    assert s["utilization"] == pytest.approx(cf["utilization"], abs=0.002)
    assert s["queue_max"] == pytest.approx(cf["queue_max"], abs=1e-3)
    # the queue drains at most (1 − β)·C after a cut while W already regrows: its low point sits above the quasi-
    # static β(C·d + B) − C·d by the regrowth during the drain (4 % of B here)
    assert cf["queue_min"] - 1e-6 <= s["queue_min"] <= cf["queue_min"] + 0.05 * buffer
    if cf["queue_mean"] is not None:
        assert s["queue_mean"] == pytest.approx(cf["queue_mean"], abs=0.01 * buffer)


def test_friendly_region_period():
    """10 flows at 20 ms, B = 200, c = 0.4: W* = 178 < W_x = 600, AIMD(α, β) with the RTT the queue sets."""
    P = _params(flows=10)
    cf = closed_form(P)
    assert cf["friendly"]
    s = cycle_summary(run_cubic(P, 8 * cf["period_friendly"], sync="all"))
    assert s["period_s"] == pytest.approx(cf["period_friendly"], rel=0.02)
    assert s["utilization"] < 1.0  # B < 0.43·BDP: the link idles after every cut


def test_fast_convergence_alternates():
    """With fast convergence one flow's cycles alternate long/short; the mean lies between K and the τ → 0 form."""
    P = _params(buffer=2000.0, fc=True)
    cf = closed_form(P)
    r = run_cubic(P, 8 * cf["period_fc"])
    gaps = np.diff(r.cuts)[1:]
    assert len(gaps) >= 4
    a, b = gaps[0::2], gaps[1::2]
    assert a.min() > b.max() or b.min() > a.max()
    assert cf["period"] < cycle_period(r.cuts[1:]) < cf["period_fc"]


def test_bad_inputs():
    with pytest.raises(ValueError, match="buffer=0"):
        CubicParams(buffer=0)
    with pytest.raises(ValueError, match="beta=1"):
        CubicParams(beta=1)
    with pytest.raises(ValueError, match="duration"):
        run_cubic(CubicParams(), -1.0)
    with pytest.raises(ValueError, match="sync"):
        run_cubic(CubicParams(), 1.0, sync="some")
    with pytest.raises(ValueError, match="groups"):
        CubicFluid(groups=0)


def _check(rows):
    for r in rows:
        assert r["class"] == "loss cycle", r
        assert r["agree"], (r["setting"], r["checks"], r["packet"], r["fluid"])


def test_packet_vs_fluid_ten_flows():
    """wan-10 (10 flows, 20 ms, B = 200, c = 400): period, queue, utilization and shares within TOLERANCES, and an
    episode hits (almost) every flow in both cores."""
    rows = compare_cubic(tuple(s for s in SETTINGS if s.name == "wan-10"))
    _check(rows)
    assert rows[0]["packet"]["flows_hit"] >= 9 and rows[0]["fluid"]["flows_hit"] >= 9


@pytest.mark.slow
def test_packet_vs_fluid_all_settings():
    rows = compare_cubic(tuple(s for s in SETTINGS if s.name != "wan-10"))
    _check(rows)
    star = next(r for r in rows if r["setting"] == "star-2")
    # the friendly star drops a packet or two per episode: both cores cut 1-2 of the 2 flows
    assert 1.0 < star["packet"]["flows_hit"] < 1.8 and 1.0 < star["fluid"]["flows_hit"] < 1.8
    assert TOLERANCES["period"].rel <= 0.15


@pytest.mark.slow
def test_packet_vs_fluid_wan_dumbbell_rfc_constant():
    """[DCTCP-WAN]'s WAN dumbbell at RFC 8312's c = 0.4 (cycles of 10-15 s)."""
    rows = compare_cubic(SLOW_SETTINGS)
    _check(rows)
    # RFC 8312's own c: the hybrid model's cycle lies between K and the τ → 0 fast-convergence form
    cf = closed_form(SLOW_SETTINGS[0].params())
    assert cf["period"] < rows[0]["fluid"]["period_s"] < cf["period_fc"]


@pytest.mark.slow
def test_cli_compare_fluid_cubic_json(capsys):
    import json

    from dwtcp_fluid.cli import main

    code = main(["packet", "compare-fluid", "--law", "cubic", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["law"] == "cubic" and d["agree"] is True
    assert [r["setting"] for r in d["rows"]] == [s.name for s in SETTINGS]
    assert d["tolerances"] == TOLERANCES.to_dict()
