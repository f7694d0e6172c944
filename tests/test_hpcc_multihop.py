"""HPCC on routed ports: per-hop in-band telemetry ([HPCC] Alg. 1's max over hops) by hand, what is refused, a
one-port route bit-identical to the single bottleneck, and chains against the closed-form fixed point
(:mod:`dwtcp_fluid.studies.hpcc.checks_multihop`)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet.laws.hpcc import Hpcc, measure


def _f(x):
    return jnp.asarray(x, jnp.float32)


def test_measure_takes_the_hop_with_the_largest_utilization_by_hand():
    """Alg. 1 lines 2-9 on three hop slots (T = 50 slots, U = 0.9): hop 0 at the full rate, L = (2, 100, 10), ack =
    (3, 120, 30): τ = 20, txRate = 1, u' = 2/50 + 1 = 1.04; hop 1 at half rate, L = (10, 50, 20), ack = (10, 55,
    30): τ = 10, txRate = 0.5, u' = 10/(0.5·50) + 0.5/0.5 = 1.4; hop 2 has rate 0 (past the route's end) and huge
    values that must not count. The max is hop 1: U = 0.9 + (10/50)·(1.4 − 0.9) = 1.0. With hop 1's queue at 0,
    u'_1 = 1.0 < 1.04: hop 0 wins with its own τ = 20: U = 0.9 + 0.4·0.14 = 0.956."""
    s = {"u": _f(0.9)}
    L = (jnp.array([2, 10, 0]), jnp.array([100, 50, 0]), jnp.array([10, 20, 0]))
    ack = dict(q=jnp.array([3, 10, 999]), tx=jnp.array([120, 55, 10**6]), ts=jnp.array([30, 30, 31]))
    rate = jnp.array([1000, 500, 0])
    U = measure(s, ack["q"], ack["tx"], ack["ts"], _f(50.0), L, rate)
    assert float(U) == pytest.approx(1.0, abs=1e-6)
    L0 = (jnp.array([2, 0, 0]), L[1], L[2])
    U = measure(s, ack["q"], ack["tx"], ack["ts"], _f(50.0), L0, rate)
    assert float(U) == pytest.approx(0.956, abs=1e-6)


def test_one_hop_at_the_full_rate_is_the_single_bottleneck_bit_for_bit():
    """The per-hop form at B = 1 is the single hop's arithmetic (x/1 and 1·T are exact), compiled as the engine
    compiles it, over many values."""
    import jax

    rng = np.random.default_rng(0)
    n = 512
    s = {"u": _f(rng.uniform(0.5, 1.5, n)), "lq": jnp.asarray(rng.integers(0, 50, n), jnp.int32),
         "ltx": jnp.asarray(rng.integers(0, 10**6, n), jnp.int32),
         "lts": jnp.asarray(rng.integers(0, 10**6, n), jnp.int32)}  # fmt: skip
    q = jnp.asarray(rng.integers(0, 50, n), jnp.int32)
    tx = s["ltx"] + jnp.asarray(rng.integers(0, 300, n), jnp.int32)
    ts = s["lts"] + jnp.asarray(rng.integers(0, 300, n), jnp.int32)
    T = _f(83.33)

    def both(s, q, tx, ts):
        L = tuple(s[k][:, None] for k in ("lq", "ltx", "lts"))
        rate = jnp.full((n, 1), 1000, jnp.int32)
        return measure(s, q, tx, ts, T), measure(s, q[:, None], tx[:, None], ts[:, None], T, L, rate)

    one, per = jax.jit(both)(s, q, tx, ts)
    np.testing.assert_array_equal(np.asarray(per), np.asarray(one))


def test_hpcc_is_accepted_on_chains_and_per_hop_int_is_refused_where_not_carried():
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet.engine import spec_for
    from dwtcp_fluid.packet.laws import get_law
    from dwtcp_fluid.packet.native import unsupported
    from dwtcp_fluid.packet.topology import check_law_on, parse_topology

    for t in ("path:2", "parking-lot:3", "leaf-spine:2x1"):
        check_law_on(get_law("hpcc"), parse_topology(t))
        check_law_on(get_law("hpcc-pint"), parse_topology(t))
    pr = build("hpcc", flows=2, duration="1ms")
    route = dict(route=np.array([[0, 1], [1, -1]], np.int32), port_rate=np.array([1000, 1000], np.int32),
                 port_buffer=np.array([50, 50], np.int32), port_kth=np.array([10**6, 10**6], np.int32))  # fmt: skip
    spec = spec_for(pr.cfg, pr.engine_laws, pr.scenario._replace(**route))
    assert {"int", "ports"} <= spec.features and spec.laws[0].int_hops == 2
    assert any("in-band telemetry on routed ports" in u for u in unsupported(spec))
    # the single bottleneck keeps one hop and stays on the native loop
    assert Hpcc().int_hops == 1 and unsupported(spec_for(pr.cfg, pr.engine_laws, pr.scenario)) == []
    pr = build("hpcc", flows=2, duration="1ms", delack=2)
    with pytest.raises(ValueError, match=r"route is invalid with delack \(with in-band telemetry\)"):
        spec_for(pr.cfg, pr.engine_laws, pr.scenario._replace(**route))
    with pytest.raises(ValueError, match="int_hops=0 is out of range"):
        Hpcc(int_hops=0)


@pytest.mark.slow
@pytest.mark.parametrize("law", ["hpcc", "hpcc-pint"])
def test_a_one_port_route_is_single_bottleneck_hpcc_bit_for_bit(law):
    """Per-hop telemetry on a one-port route at the full rate reproduces the single-bottleneck run record for
    record (the law's traced U included)."""
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet.batch import run_one

    pr = build(law, flows=6, duration="2ms", buffer=40, K=1e6, seed=3)
    sc = pr.scenario
    ref = run_one(pr.cfg, pr.engine_laws, sc, engine="jax")
    n = len(np.asarray(sc.rtt))
    got = run_one(pr.cfg, pr.engine_laws, sc._replace(
        route=np.zeros((n, 1), np.int32), port_rate=np.array([1000], np.int32),
        port_buffer=np.array([int(sc.buffer)], np.int32), port_kth=np.array([int(sc.kth)], np.int32),
    ), engine="jax")  # fmt: skip
    assert ref["drops"].sum() > 0  # the start at line rate overflows the 40-packet buffer
    for k, v in ref.items():
        if k in ("q_sum", "q_min", "q_max", "busy", "opps", "q_end"):
            continue
        np.testing.assert_array_equal(got[k], v, err_msg=k)
    np.testing.assert_array_equal(got["port_q_sum"][:, 0], ref["q_sum"])


@pytest.mark.slow
def test_hpcc_on_chains_settles_on_the_closed_form_fixed_point():
    """:data:`~dwtcp_fluid.studies.hpcc.checks_multihop.SETTINGS` (HPCC and HPCC-PINT on parking-lot:2, path:2,
    parking-lot:3) within the check's stated tolerances; the bottleneck hop's queue stands near
    N·W_AI − (1 − η)·C·T and the long flows get its fair share."""
    from dwtcp_fluid.studies.hpcc.checks_multihop import compare_hpcc_chains

    res = compare_hpcc_chains()
    bad = [(r.name, r.verdicts) for r in res.rows if not r.agree]
    assert not bad, bad
    for r in res.rows:
        assert r.packet["drops"] == 0, r.name  # the buffer is lossless


def test_closed_form_by_hand():
    """parking-lot:2 with 2 long flows, 1 on hop 0, 8 on hop 1, W_AI = 1, C·d = 83.33, η = 0.95: hop 1 is the
    bottleneck (N = 10): q = 10 − 0.05·83.33 = 5.833, each of its flows 1/10; hop 0: a = 0.2, k = 0.012,
    U² − 1.162·U + 0.19 = 0 → U = 0.9651, its own flow 0.7651."""
    from dwtcp_fluid.studies.hpcc.checks_multihop import chain_fixed_point

    fp = chain_fixed_point(((0, 1), (0,), (1,)), (2, 1, 8), 2, bdp=250 / 3, w_ai=1.0, eta=0.95)
    np.testing.assert_allclose(fp["queue"], [0.0, 10 - 0.05 * 250 / 3], atol=1e-9)
    s = 0.2 + 0.95 + 0.012
    U0 = (s + np.sqrt(s * s - 4 * 0.2 * 0.95)) / 2
    np.testing.assert_allclose(fp["utilization"], [U0, 1.0], atol=1e-12)
    np.testing.assert_allclose(fp["group_share"], [0.1, U0 - 0.2, 0.1], atol=1e-12)
    assert abs(U0 - 0.9651) < 1e-4
    # path:2 with 10 flows: hop 0 is the single bottleneck, hop 1 forwards its paced output (full, no queue)
    fp = chain_fixed_point(((0, 1),), (10,), 2, bdp=250 / 3, w_ai=1.0, eta=0.95)
    np.testing.assert_allclose(fp["queue"], [10 - 0.05 * 250 / 3, 0.0], atol=1e-9)
    np.testing.assert_allclose(fp["utilization"], [1.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(fp["group_share"], [0.1], atol=1e-12)
    with pytest.raises(ValueError, match="one most loaded hop"):
        chain_fixed_point(((0, 1), (0,), (1,)), (2, 2, 2), 2, bdp=250 / 3, w_ai=1.0, eta=0.95)


@pytest.mark.slow
def test_cli_runs_hpcc_on_a_parking_lot():
    """``packet run --law hpcc --topology parking-lot:2`` runs on routed ports: both ports busy, a flow's share
    on every route, no drop at the default 250-packet buffer with 2 flows per group."""
    import contextlib
    import io
    import json

    from dwtcp_fluid.cli import main

    argv = "packet run --law hpcc --topology parking-lot:2 --flows 2 --duration 3ms --json".split()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    assert rc == 0
    doc = json.loads(out.getvalue())
    assert doc["law"] == "hpcc" and doc["routes"] == [[0, 1], [0], [1]]
    assert min(doc["utilization"]) > 0.9 and doc["drops"] == 0
    assert all(s > 0.1 for s in doc["group_share"])


@pytest.mark.slow
def test_a_half_rate_second_hop_is_read_at_its_own_rate():
    """10 HPCC flows over ports 0 (full rate) → 1 (half rate), 10 Gbps / 100 µs (T = C·d = 83.3 slots), W_AI = 1:
    hop 1 reads u' = q/(B·T) + txRate/B with B = 1/2, so it is the single bottleneck of ``proofs/hpcc.md`` at
    B·T = 41.7 packets: U* = η + N·W_AI/(B·T) = 1.19, q* = N·W_AI − (1 − η)·B·T = 7.92 packets, its service slots
    all busy; hop 0 forwards half its rate without a queue. Tolerances as the ``hpcc-chains`` check's: queues within
    0.02·C·d = 1.67 packets, busy fractions within 0.01, each flow's share within 0.01 of 1/20 of the full rate
    (last half of 20 ms)."""
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet.batch import run_one
    from dwtcp_fluid.params import LinkParams

    link = LinkParams(capacity="10Gbps", rtt="100us")
    pr = build("hpcc", link=link, flows=10, duration="20ms", buffer=2000, K=1e6, trace_points=40,
               start_jitter=False, law_params={"w_ai": 1.0})  # fmt: skip
    sc = pr.scenario._replace(
        route=np.tile(np.array([[0, 1]], np.int32), (10, 1)),
        port_rate=np.array([1000, 500], np.int32),
        port_buffer=np.array([2000, 2000], np.int32),
        port_kth=np.array([10**6, 10**6], np.int32),
    )
    rec = run_one(pr.cfg, pr.engine_laws, sc, engine="jax")
    w = rec["port_q_sum"].shape[0] // 2
    n = (rec["port_q_sum"].shape[0] - w) * pr.cfg.chunk
    BT, cd = 0.5 * link.C * link.d, link.C * link.d
    q = rec["port_q_sum"][w:].sum(0) / n
    np.testing.assert_allclose(q, [0.0, 10 * 1.0 - 0.05 * BT], atol=0.02 * cd)
    np.testing.assert_allclose(rec["port_busy"][w:].sum(0) / n, [0.5, 0.5], atol=0.01)
    np.testing.assert_allclose(rec["delivered"][w:].sum(0) / n, np.full(10, 0.05), atol=0.01)
    assert rec["drops"].sum() == 0
