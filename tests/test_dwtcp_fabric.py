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
    """One 1-packet flow across the core on an empty fabric: its FCT is the base RTT (333 slots of 0.3 µs) plus one
    forwarding slot per hop after the first (3) plus the waits for a service slot: up to 3 slots at each of the two
    10 Gbps ports (a service slot every 4 slots) and up to 1 at each 40 Gbps port and at the send."""
    from dwtcp_fluid.studies.dwtcp import checks_fabric as cf

    def one(load, *, fabric, cdf, arrivals, seed):
        return {"starts": np.array([1e-4]), "sizes": np.array([1]), "bytes": np.array([1500]),
                "src": np.array([0]), "dst": np.array([fabric.n_hosts - 1])}  # fmt: skip

    monkeypatch.setattr(cf, "fabric_workload", one)
    r = cf.fabric_run(law, 0.5, duration=0.002, warmup=0.0, keep_slowdowns=True)
    slot = 1500 * 8 / 40e9
    fct = r["slowdowns"][0] * (1500 * 8 / 10e9 + 100e-6)
    base = round(100e-6 / slot) + 3
    assert base - 1e-6 <= fct / slot <= base + 3 + 3 + 2 + 1 + 1e-6
    assert r["unfinished"] == 0 and r["spill"] == 0 and r["drops"] == 0


def test_campaign_refuses_bad_input_and_asks_for_yes(tmp_path, capsys):
    from dwtcp_fluid.studies.dwtcp.checks_campaign import (
        FabricGrid,
        estimate_seconds,
        main,
        run_fabric_campaign,
    )

    assert main(["--loads", "0.2,1.5", "--store", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "load=1.5" in err[0]
    assert main(["--laws", "reno", "--store", str(tmp_path / "s")]) == 2
    assert "law='reno'" in capsys.readouterr().err
    big = FabricGrid([0.2, 0.4, 0.6, 0.8], list(range(40)), duration=1.0)
    # 320 runs of 1 s (3.3e6 slots of 0.3 µs) on 40 ports at 2.5e-7 s per port-slot, plus 5 s each
    assert estimate_seconds(big) == pytest.approx(320 * (5 + (40e9 / 12000) * 40 * 2.5e-7), rel=1e-9)
    with pytest.raises(ValueError, match="--yes"):
        run_fabric_campaign(big, tmp_path / "big.zarr")
    assert not (tmp_path / "big.zarr").exists()


@pytest.mark.slow
def test_campaign_runs_and_resumes(tmp_path, monkeypatch):
    """A 2-load campaign into a store; a resume recomputes nothing and returns the same numbers; the stored
    slowdowns are fabric_run's."""
    from dwtcp_fluid.studies.dwtcp import checks_campaign as cf
    from dwtcp_fluid.studies.dwtcp.checks_fabric import fabric_run

    grid = cf.FabricGrid([0.3, 0.6], [0], arrivals=0.004, duration=0.008, warmup=0.0)
    ds = cf.run_fabric_campaign(grid, tmp_path / "c.zarr")
    assert ds["slowdown_mean"].shape == (2, 1, 2) and np.isfinite(ds["slowdown_mean"]).all()
    ref = fabric_run("dwtcp", 0.6, arrivals=0.004, duration=0.008, warmup=0.0, seed=0)
    assert float(ds["slowdown_mean"].sel(load=0.6, seed=0, law="dwtcp")) == ref["slowdown"]["mean"]
    calls = []
    monkeypatch.setattr(cf, "fabric_run", lambda *a, **k: calls.append(a))
    again = cf.run_fabric_campaign(grid, tmp_path / "c.zarr", resume=True)
    assert calls == [] and again["slowdown_p99"].equals(ds["slowdown_p99"])
