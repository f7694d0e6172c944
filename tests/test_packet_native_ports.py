"""Routed ports in the native loop against the JAX reference engine: every raw record array bit-identical.

Chains and a small fabric of ports at different rates (full, half, 0.7, a quarter of the slot rate), for DCTCP,
Reno, DWTCP with Scout-only probes, TIMELY and Swift (paced), open-loop Poisson senders with Scout-only probes;
each case asserts what it exercises so that the equality is not vacuous: ECN marks at a port after the first hop
(the first port of the chains never marks), drops at more than one port, retransmission timeouts, finished flows,
Scouts served after crossing several ports, Scouts dropped by a full Scout queue and Scouts lost. Slot counts past
2³¹/1000, where t·rate leaves int32, keep the ports' service grid exact. The reference compiles once per shape
(tens of seconds): the runs are ``slow``; the dispatch test is not.
"""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet import build
from dwtcp_fluid.packet import engine as E
from dwtcp_fluid.packet.batch import choose_engine, run_prepared, stack
from dwtcp_fluid.packet.laws import get_law

NEVER = 2**31 - 1
_BIG = 10**6


def _routed(law, kw: dict, routes, rates, buffers, kth):
    """``build(law, **kw)`` with flow i on ``routes[i]`` (port ids, -1 padded) and the ports' rates (per mille),
    buffers and marking thresholds."""
    pr = build(law, **kw)
    sc = pr.scenario._replace(
        route=np.asarray(routes, np.int32),
        port_rate=np.asarray(rates, np.int32),
        port_buffer=np.asarray(buffers, np.int32),
        port_kth=np.asarray(kth, np.int32),
    )
    return pr, sc


def _both(law, kw, ports, seeds=()):
    runs = [_routed(law, kw, *ports)] + [_routed(law, {**kw, "seed": s}, *ports) for s in seeds]
    pr, sc = runs[0]
    spec = E.spec_for(pr.cfg, pr.engine_laws, stack([sc]))
    scens = [E.prepare(spec, s) for _, s in runs]
    return (
        run_prepared(spec, scens, workers=1, engine="jax"),
        run_prepared(spec, scens, engine="native"),
        spec,
    )


#: A chain 0 → 1 whose second port runs at half rate, marks at 6 and holds 12 packets (the first never marks and
#: holds 100): six flows cross both ports, two (cross traffic) only the second.
_CHAIN = ([[0, 1]] * 6 + [[1, -1]] * 2, [1000, 500], [100, 12], [_BIG, 6])
#: A parking lot of three ports (the middle one at 0.7 of the slot rate), three times over: six long flows cross
#: all three, six cross flows each port; 4-packet buffers drop at every port, and whole windows are lost.
_LOT = (
    ([[0, 1, 2]] * 2 + [[0, -1, -1]] * 2 + [[1, -1, -1]] * 2 + [[2, -1, -1]] * 2) * 3,
    [1000, 700, 1000],
    [4, 4, 4],
    [_BIG, 4, 4],
)
#: The parking lot with every flow crossing at least two ports (a served Scout crossed several ports).
_LOT2 = ([[0, 1, 2]] * 2 + [[0, 1, -1]] * 3 + [[1, 2, -1]] * 3, [1000, 700, 1000], [10, 10, 10], [_BIG, 4, 4])
#: A two-tier fabric: hosts' edge ports 0-3 at a quarter of the slot rate (10 Gbps under a 40 Gbps core), core
#: ports 4-5 at full rate, downlinks 6-7 at a quarter; routes of one to three ports.
_FABRIC = (
    [[0, 4, 6], [1, 4, 7], [2, 5, 6], [3, 5, 7], [0, 4, 7], [1, 5, 6], [6, -1, -1], [2, 4, -1], [3, 5, 7]],
    [250, 250, 250, 250, 1000, 1000, 250, 250],
    [20, 20, 20, 20, 40, 40, 12, 12],
    [8, 8, 8, 8, 16, 16, 5, 5],
)

# (law, build kwargs, ports, what the run must exercise)
CASES = {
    "dctcp-chain": (
        "dctcp",
        dict(flows=8, duration="4ms", seed=3, rto="300us", trace_points=20),
        _CHAIN,
        ("marks", "drops@1"),
    ),
    "reno-lot": (
        "reno",
        dict(flows=24, duration="4ms", seed=5, rto="300us", trace_points=16),
        _LOT,
        ("drops@0", "drops@1", "drops@2", "timeouts"),
    ),
    "dwtcp-probes-lot": (
        (get_law("dwtcp"), get_law("scout-probe")),
        dict(flows=8, law_of_flow=[0, 1, 0, 0, 0, 1, 0, 0], duration="4ms", seed=1, trace_points=16),
        _LOT2,
        ("marks", "drops@1", "scouts_far", "scout_drops", "scout_losses"),
    ),
    "dctcp-fabric-finite": (
        "dctcp",
        dict(
            flows=9,
            duration="4ms",
            sizes=[40, 300, 2000, 80, 10**6, 500, 120, 60, 900],
            starts=["0us", "50us", "0us", "1ms", "0us", "2ms", "0us", "300us", "100us"],
            seed=4,
            rto="300us",
            trace_points=16,
        ),
        _FABRIC,
        ("marks", "finished", "drops@6"),
    ),
    "timely-chain-paced": (
        "timely",
        dict(flows=8, duration="3ms", seed=2, access=0.5, trace_points=12),
        _CHAIN,
        ("rate", "drops@1"),
    ),
    "swift-lot": (
        "swift",
        dict(flows=24, duration="3ms", seed=7, rto="200us", trace_points=12),
        _LOT,
        ("rate", "drops@0", "drops@1", "drops@2"),
    ),
    # open-loop Poisson senders (geometric gaps) and Scout-only probes on the fabric: the probes' Scouts cross
    # two and three ports
    "open-loop-probes-fabric": (
        (get_law("open-loop", arrivals="poisson"), get_law("scout-probe")),
        dict(
            flows=9,
            law_of_flow=[0] * 7 + [1] * 2,
            law_params=[{"rate": 0.12}, {}],
            scout_buffer=23,
            duration="3ms",
            seed=2,
            trace_points=12,
        ),
        _FABRIC,
        ("scouts", "scout_drops", "drops@6"),
    ),
}


def _exercised(raw: dict, ports, what: tuple[str, ...]) -> None:
    routes = np.asarray(ports[0])
    far = (routes >= 0).sum(axis=1) > 1
    checks = {
        "marks": lambda: raw["marks_cum"][-1] > 0,
        "timeouts": lambda: raw["timeouts_cum"][-1].sum() > 0,
        "finished": lambda: np.any(raw["finish"] != NEVER),
        # Scouts are served only at the last port of their route: with every route longer than one port, each
        # served Scout crossed several ports
        "scouts_far": lambda: raw["scouts_served_cum"][-1] > 0 and far.all(),
        "scouts": lambda: raw["scouts_served_cum"][-1] > 0,
        "scout_drops": lambda: raw["scouts_dropped_cum"][-1] > 0,
        "scout_losses": lambda: raw["scouts_lost_cum"][-1] > 0,
        "rate": lambda: len(np.unique(raw["alpha_end"])) > 3,
    }
    for w in what:
        if w.startswith("drops@"):
            p = int(w[6:])
            assert raw["port_drops"][:, p].sum() > 0, f"the run has no drops at port {p}"
        else:
            assert checks[w](), f"the run has no {w}: the equality would be vacuous"
    if "marks" in what:  # the first port of every case never marks: the marks were made after the first hop
        assert ports[3][0] == _BIG or ports is _FABRIC


def _assert_identical(ref: list[dict], nat: list[dict]) -> None:
    for a, b in zip(ref, nat, strict=True):
        assert sorted(a) == sorted(b)
        for k in a:
            x, y = np.asarray(a[k]), np.asarray(b[k])
            assert x.dtype == y.dtype and x.shape == y.shape, k
            assert np.array_equal(x, y), f"{k}: first difference at {np.argwhere(x != y)[:1].tolist()}"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_native_routed_ports_equal_the_reference(name):
    law, kw, ports, what = CASES[name]
    ref, nat, spec = _both(law, dict(kw), ports, seeds=(11,))
    assert spec.has("ports") and choose_engine(spec) == "native"
    _exercised(ref[0], ports, what)
    _assert_identical(ref, nat)


def test_dispatch_runs_routed_ports_natively():
    """A routed run of a native law picks the native loop; what routed ports refuse stays refused by name."""
    for law in ("dctcp", "reno", "dwtcp", "timely"):
        pr, sc = _routed(law, dict(flows=8, duration="1ms", trace_points=2), *_CHAIN)
        spec = E.spec_for(pr.cfg, pr.engine_laws, stack([sc]))
        assert spec.has("ports") and choose_engine(spec) == "native", law
    pr, sc = _routed("cubic", dict(flows=8, duration="1ms", trace_points=2), *_CHAIN)
    spec = E.spec_for(pr.cfg, pr.engine_laws, stack([sc]))
    assert choose_engine(spec) == "jax"
    with pytest.raises(ValueError, match="cubic"):
        choose_engine(spec, "native")


@pytest.mark.slow
def test_port_grid_stays_exact_past_two_to_the_31_over_the_rate_scale():
    """Two flows start at 2.57 s (10 Gbps: slot 2.1·10⁶, where t·rate in per mille leaves int32 at 2³¹/1000 ≈
    2 147 484) through a full-rate port and a 0.7-rate port: both engines give the same records, and the 0.7 port's
    service slots in every chunk are those of ⌊t·700/1000⌋ in exact integers (the full-rate port serves every
    slot, which gives the chunk boundaries); packets cross the 0.7 port in the chunk holding the overflow point."""
    kw = dict(
        flows=2, duration="2.6s", starts=["2.57s", "2.575s"], start_jitter=False, trace_points=26, seed=1
    )
    ref, nat, _ = _both("dctcp", kw, ([[0, 1], [1, -1]], [1000, 700], [50, 50], [_BIG, 10]))
    _assert_identical(ref, nat)
    r = ref[0]
    t1 = np.cumsum(r["port_opps"][:, 0].astype(np.int64))
    t0 = t1 - r["port_opps"][:, 0]
    assert t1[-1] > 2**31 // 1000 + 10_000
    np.testing.assert_array_equal(r["port_opps"][:, 1], (t1 * 700) // 1000 - (t0 * 700) // 1000)
    k = int(np.searchsorted(t1, 2**31 // 1000, side="right"))
    assert r["port_busy"][k, 1] > 0 and r["port_busy"][k, 0] > 0
