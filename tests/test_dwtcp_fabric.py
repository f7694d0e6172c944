"""[DWTCP]'s leaf-spine FCT study (dwtcp_fluid/studies/dwtcp/checks_fabric.py): the fabric's routes and rates, the
all-to-all Poisson workload's offered load, the slowdown statistics, and a lone flow's completion time on the
fabric against its hand-computed timeline."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.studies.dwtcp.checks_fabric import FABRIC, Fabric, fabric_workload, slowdown_stats


def test_routes_cross_the_ports_of_their_hosts_and_leaves():
    f = Fabric(leaves=3, spines=2, hosts=8)
    assert f.n_hosts == 24 and f.n_ports == 2 * 24 + 2 * 3 * 2
    ports = set()
    pairs = [(a, b) for a in range(24) for b in range(24) if a != b]
    src, dst = np.array(pairs).T
    routes = f.routes(src, dst, seed=1)
    for (a, b), r in zip(pairs, routes, strict=True):
        ports.update(r)
        assert r[0] == a and r[-1] == 24 + 12 + b  # the source's NIC, the destination's host port
        if a // 8 == b // 8:
            assert len(r) == 2
        else:
            s = r[1] - 24 - (a // 8) * 2
            assert 0 <= s < 2 and r[2] == 24 + 6 + s * 3 + b // 8
    assert ports == set(range(f.n_ports))  # every port carries some route
    rate = f.port_rates()
    assert (rate[:24] == 250).all() and (rate[24:36] == 1000).all() and (rate[36:] == 250).all()
    assert (f.port_class() == np.repeat([0, 1, 2], [24, 12, 24])).all()


def test_the_papers_subscription_is_kept():
    # [DWTCP] §5.1: 144 hosts, 9 leaves of 16 at 10 Gbps under 4 spines at 40 Gbps: 1:1
    assert FABRIC.hosts * FABRIC.edge_gbps == FABRIC.spines * FABRIC.core_gbps
    assert 16 * 10.0 == 4 * 40.0


def test_workload_offers_the_load_to_every_host():
    load = 0.5
    w = fabric_workload(load, fabric=FABRIC, arrivals=2.0, seed=3)
    offered = w["bytes"].sum() * 8 / (2.0 * FABRIC.n_hosts * 10e9)
    # web search's sizes have a coefficient of variation of about 2: ~9,000 flows, standard error ~2 %
    assert offered == pytest.approx(load, rel=0.08)
    assert np.all(w["src"] != w["dst"]) and np.all(np.diff(w["starts"]) >= 0)
    counts = np.bincount(w["dst"], minlength=FABRIC.n_hosts)
    assert counts.min() > 0.8 * counts.mean()  # destinations uniform over the hosts
    with pytest.raises(ValueError, match="load=1.5"):
        fabric_workload(1.5)


def test_slowdown_stats_by_bin():
    slow = np.array([1.0, 2.0, 3.0, 10.0])
    nb = np.array([50e3, 100e3, 500e3, 5e6])
    s = slowdown_stats(slow, nb)
    assert s["mean"] == pytest.approx(4.0, rel=1e-12)
    assert s["small"] == {"flows": 2, "mean": 1.5, "p99": pytest.approx(1.99, rel=1e-12)}
    assert s["medium"]["flows"] == 1 and s["large"]["mean"] == 10.0


@pytest.mark.slow
@pytest.mark.parametrize("law", ["dctcp", "dwtcp"])
def test_a_lone_flow_finishes_on_its_timeline(law, monkeypatch):
    """One 1-packet flow across the core on an empty fabric: its FCT is the base RTT plus the packet's service at
    the four ports (two at 10 Gbps: 4 core slots each; two at 40 Gbps: 1 slot each) plus a forwarding slot per
    hop after the first, within the slot grid's alignment (±4 slots)."""
    from dwtcp_fluid.studies.dwtcp import checks_fabric as cf

    def one(load, *, fabric, cdf, arrivals, seed):
        return {"starts": np.array([1e-4]), "sizes": np.array([1]), "bytes": np.array([1500]),
                "src": np.array([0]), "dst": np.array([fabric.n_hosts - 1])}  # fmt: skip

    monkeypatch.setattr(cf, "fabric_workload", one)
    r = cf.fabric_run(law, 0.5, duration=0.002, warmup=0.0, keep_slowdowns=True)
    slot = 1500 * 8 / 40e9
    expect = 100e-6 + (4 + 1 + 1 + 4 + 3) * slot
    fct = r["slowdowns"][0] * (1500 * 8 / 10e9 + 100e-6)
    assert fct == pytest.approx(expect, abs=4 * slot)
    assert r["unfinished"] == 0 and r["spill"] == 0 and r["drops"] == 0
