"""D3: the switch's allocation against [D3] §4.2 by hand, and the engine's switch hook on two flows."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet.laws import get_law
from dwtcp_fluid.packet.laws.d3 import allocate as _allocate

F = jnp.float32
allocate = jax.jit(_allocate)  # one compilation for every call below


def _table(rows):
    t = np.zeros((5, 3), np.float32)
    for i, r in enumerate(rows):
        t[i] = r
    return jnp.asarray(t)


def test_allocation_by_hand():
    # empty switch, a request of 0.3: the desire plus the spare share (1 − 0.3)/1
    g, t = allocate(_table([]), 0, F(0.3), F(1.0))
    assert float(g) == pytest.approx(1.0)
    np.testing.assert_allclose(np.asarray(t[0]), [1.0, 0.3, 1.0], rtol=1e-6)
    # flow 0 holds (a 0.65, d 0.3); flow 1 asks 0: A = 0.65, left 0.35, D = 0.3, fs = 0.7/2 → min(0.35, 0.35)
    g, t = allocate(_table([(0.65, 0.3, 1.0)]), 1, F(0.0), F(1.0))
    assert float(g) == pytest.approx(0.35, rel=1e-6)
    # flow 0 re-asks 0.4 while flow 1 holds 0.35: its old 0.65 is removed; left 0.65 ≥ 0.4, D = 0.4, fs = 0.3
    g, _ = allocate(_table([(0.65, 0.3, 1.0), (0.35, 0.0, 1.0)]), 0, F(0.4), F(1.0))
    assert float(g) == pytest.approx(0.65, rel=1e-6)
    # demand beyond capacity: first come, first served — flow 2 asks 0.5 with 0.8 granted to others: gets 0.2
    g, _ = allocate(_table([(0.5, 0.5, 1.0), (0.3, 0.3, 1.0)]), 2, F(0.5), F(1.0))
    assert float(g) == pytest.approx(0.2, rel=1e-6)


def test_bad_option_is_refused():
    with pytest.raises(ValueError, match="late"):
        get_law("d3", late="never")


def test_switch_law_runs_alone_and_not_on_the_multiport_core():
    from dwtcp_fluid.packet import build, run
    from dwtcp_fluid.packet.multihop_run import run_topology

    with pytest.raises(ValueError, match="runs alone"):
        run(build(["d3", "dctcp"], flows=2, duration="1ms", law_of_flow=[0, 1]))
    with pytest.raises(ValueError, match="keeps state at the switch"):
        run_topology("parking-lot:2", "d3", duration="1ms")


@pytest.mark.slow
def test_two_flows_deadline_flow_gets_its_rate_and_releases_it():
    from dwtcp_fluid.packet import build, run
    from dwtcp_fluid.params import LinkParams

    link = LinkParams(capacity="10Gbps", rtt="20us")
    pr = build("d3", link=link, flows=2, sizes=[3000, 2**30], deadlines=[0.010, float("inf")], duration=0.02,
               start_jitter=False, trace_points=20)  # fmt: skip
    r = run(pr)
    rec = r["records"]
    rate = rec["alpha_sum"] / np.maximum(rec["active"], 1)
    # first chunk: the deadline flow asks 3000/8333 slots = 0.36 and gets it plus half the spare, (1 − 0.36)/2
    assert rate[1, 0] == pytest.approx(0.36 + 0.32, abs=0.05)
    assert rate[1, 0] + rate[1, 1] == pytest.approx(1.0, abs=0.02)
    assert r["deadlines_met"] == 1.0
    # after the FIN the long flow gets the whole link
    assert rate[-1, 1] == pytest.approx(1.0, abs=1e-3)
