"""TimelyNetwork: the TIMELY family over a routing matrix (models.timely_network), its Patched fixed point
(analysis.timely_network), the packet parking lot against it (crosscheck.timely_network) and `timely network`.

Solver agreement (SciPy reference vs batched JAX) runs in the model contract (tests/test_model_contract.py: the
cases timely-patched-network-max, timely-network-paths)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from dwtcp_fluid.models.dctcp_network import NetworkParams, parking_lot_routes
from dwtcp_fluid.models.timely import TimelyFluid, TimelyParams
from dwtcp_fluid.models.timely_network import TimelyNetwork, TimelyNetworkParams, path_signal
from dwtcp_fluid.studies.timely.analysis_network import patched_fixed_point


@pytest.mark.parametrize("patched", [False, True])
def test_one_link_one_group_is_timely_fluid(patched):
    """On one link with one group the network model is TimelyFluid (an independent single-link definition)."""
    net = TimelyNetwork(((0,),), patched=patched)
    one = TimelyFluid(groups=1, patched=patched)
    P = TimelyParams(flows=(3,))
    p1 = one.numeric_params(P)
    pn = net.numeric_params(
        TimelyNetworkParams(NetworkParams(((0,),), capacity="10Gbps", rtt="20us", flows=3))
    )
    assert pn["C_1"] == p1["C"] and pn["d_1"] == p1["d"] and pn["tau"] == p1["d"]
    rng = np.random.default_rng(0)
    for _ in range(50):
        x = [rng.uniform(1e4, 8e5), rng.uniform(-0.5, 0.5), rng.uniform(0.0, 80.0)]
        xd = [rng.uniform(1e4, 8e5), rng.uniform(-0.5, 0.5), rng.choice([0.0, rng.uniform(0.0, 80.0)])]
        a = np.array(net.rhs(x, xd, 0, pn, np), dtype=float)
        b = np.array(one.rhs(x, xd, 0, p1, np), dtype=float)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)


def test_path_signal_is_the_packet_laws_hop_signal():
    """f(q/C) over a path equals the packet law's f(q)/C with one port rate (timely-hops' sample, in seconds)."""
    from dwtcp_fluid.packet.hop_signals import hop_signal

    C = 833333.3
    q = np.array([[3.0, 17.0, 0.0], [40.0, 2.0, 9.0], [0.0, 0.0, 0.0]])
    for kind in ("sum", "max", "sum_squ"):
        want = np.asarray(hop_signal(q, kind), dtype=float) / C
        got = [path_signal(list(row / C), [0.0] * 3, kind, np)[0] for row in q]
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="signal='ind' is invalid.*one-bit"):
        TimelyNetwork(parking_lot_routes(2), signal="ind")


def test_signal_slopes_are_the_signals_derivatives():
    """dRTT/dt the gradient reads is d/dt f(r(t)) (central differences along a straight path in r)."""
    r0, v = np.array([2e-5, 3e-5, 1e-5]), np.array([1.0, -0.5, 2.0])
    h = 1e-9
    for kind in ("sum", "max", "sum_squ"):
        s = lambda t, kind=kind: path_signal(list(r0 + t * v), [0.0] * 3, kind, np)[0]  # noqa: E731
        _, slope = path_signal(list(r0), list(v), kind, np)
        assert slope == pytest.approx((s(h) - s(-h)) / (2 * h), rel=1e-5)


@pytest.mark.parametrize("hops,cross", [(2, 1), (3, 2)])
def test_patched_fixed_point_against_the_balance_solved_by_sympy(hops, cross):
    """The bracketed fixed point equals the root of the parking lot's balance written out here and solved by
    SymPy (φ = k for SUM, √k for SUM_SQU), and MAX gives the fair share."""
    P = TimelyNetworkParams.parking_lot(hops, flows=(1,) + (cross,) * hops, rtt="20.4us")
    m = TimelyNetwork(parking_lot_routes(hops), patched=True)
    p = m.numeric_params(P)
    C, d, a, dl, b = p["C_1"], p["d_1"], p["rtt_ref"], p["delta"], p["beta"]
    R0 = sp.Symbol("R0", positive=True)

    def rtt(R):
        return a * (1 + dl / (b * R))

    for signal, phi in (("sum", hops), ("sum_squ", np.sqrt(hops))):
        x = patched_fixed_point(TimelyNetwork(parking_lot_routes(hops), patched=True, signal=signal), P)
        E = sp.nsimplify(d) + phi * (rtt((C - R0) / cross) - d) - rtt(R0)
        roots = [float(r) for r in sp.solve(sp.numer(sp.together(E)), R0) if 0 < float(r) < C]
        assert len(roots) == 1 and x[0] == pytest.approx(roots[0], rel=1e-7)
        assert x[1] == pytest.approx((C - x[0]) / cross, rel=1e-9)
        assert x[-1] / C + d == pytest.approx(rtt(x[1]), rel=1e-9)  # the cross flow's RTT rests its law
    xm = patched_fixed_point(TimelyNetwork(parking_lot_routes(hops), patched=True, signal="max"), P)
    assert xm[0] == pytest.approx(C / (1 + cross), rel=1e-9)


def test_sum_long_rate_tends_to_the_capacity_free_limit():
    """SUM at k = 2: as C grows the long rate tends to δ·RTT_ref/(β(k − 1)(RTT_ref − d)) (proof step 7)."""
    m = TimelyNetwork(parking_lot_routes(2), patched=True)
    rates = []
    for cap in ("10Gbps", "100Gbps", "1000Gbps"):
        P = TimelyNetworkParams.parking_lot(2, capacity=cap, rtt="20us")
        p = m.numeric_params(P)
        rates.append(patched_fixed_point(m, P)[0])
    limit = p["delta"] * p["rtt_ref"] / (p["beta"] * (p["rtt_ref"] - p["d_1"]))
    errs = [abs(r - limit) / limit for r in rates]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 1e-3


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_packet_parking_lot_agrees_with_the_fluid_patched_sum():
    """The cheap cross-check: Patched TIMELY on SUM, 2 hops, 100 ms, within the stated tolerances."""
    from dwtcp_fluid.studies.timely.checks_network import TimelySetting, fluid_side, judged, packet_side

    s = TimelySetting(2, "patched", "sum", duration="100ms")
    (fl,) = fluid_side([s])
    pk = packet_side(s)
    row = judged(s, pk, fl)
    assert row["class"] == "stationary" and row["passed"], row
    assert pk.share[0] < 0.01  # the long flow starved in the packet core too (proofs/timely_network.md)


@pytest.mark.slow
def test_cross_check_settings():
    """The ≥ 3 parking-lot settings of the report: every stationary one is scored, at least three pass."""
    from dwtcp_fluid.studies.timely.checks_network import SETTINGS, compare_all

    rows = compare_all(SETTINGS)
    assert all((r["passed"] is None) == (r["class"] != "stationary") for r in rows)
    assert sum(bool(r["passed"]) for r in rows) >= 3, [(r["setting"], r["passed"], r["errors"]) for r in rows]


def test_cli_refuses_bad_input(capsys):
    from dwtcp_fluid.cli import main

    for argv, flag in (
        (["--signal", "ind"], "--signal"),
        (["--law", "swift"], "--law"),
        (["--topology", "leaf-spine:4x2"], "--topology"),
        (["--cross-flows", "0"], "--cross-flows"),
        (["--duration", "1us"], "--duration"),
    ):
        assert main(["timely", "network", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and flag in err


@pytest.mark.slow
def test_cli_json_is_the_report(capsys):
    import dwtcp_fluid as dw
    from dwtcp_fluid.cli import main
    from dwtcp_fluid.studies.timely.checks_network import TimelySetting

    assert (
        main(["timely", "network", "--law", "timely", "--signal", "max", "--duration", "20ms", "--json"]) == 0
    )
    doc = json.loads(capsys.readouterr().out)
    want = dw.timely_network_report(TimelySetting(2, "timely", "max", duration="20ms"))
    assert {k: doc[k] for k in want} == json.loads(json.dumps(want))


def test_multihop_engine_paces_at_the_fractional_rate():
    """A flow paced at 0.3 packet per slot over one port sends at slots ⌈k/0.3⌉, k = 0..29, in 100 slots: 30
    packets (the schedule kept its fraction); restarting it from each send slot gave 1/⌈1/0.3⌉ = 0.25, 25."""
    from collections.abc import Mapping
    from dataclasses import dataclass
    from typing import Any, ClassVar

    import jax.numpy as jnp

    from dwtcp_fluid.packet.laws.base import FLOAT, Events, Law
    from dwtcp_fluid.packet.multihop import run_network

    @dataclass(frozen=True)
    class Fixed(Law):
        name: ClassVar[str] = "fixed-rate-test"
        signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
        rate_based: ClassVar[bool] = True

        def default_params(self, **context: Any) -> dict[str, float]:
            return {"r": 0.3}

        def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
            return {"cwnd": jnp.full(n, 100.0, FLOAT), "rate": jnp.full(n, p["r"], FLOAT)}

        def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
            return s

    rec = run_network(
        Fixed(), {"r": 0.3}, routes=[(0,)], rtt=[20], start=[0], n_ports=1, kth=[99], buffer=16, rto=1000,
        seed=0, n_chunks=2, chunk=50, size=np.array([2**30]),
    )  # fmt: skip
    assert rec["delivered"].sum() == 30
