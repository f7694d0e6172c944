"""Multi-hop packet core: per-hop marking on a hand-computed tiny chain, the hop-queue signal, the unchanged
single bottleneck, the CLI, and the cross-check against the DCTCP network fluid model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet.laws.base import FLOAT, Events, Law
from dwtcp_fluid.packet.multihop import run_network
from dwtcp_fluid.packet.topology import parse_topology
from dwtcp_fluid.studies.networks.checks_multihop import SETTINGS, TOLERANCES, compare_chain


@dataclass(frozen=True)
class _Fixed(Law):
    """A fixed window of 3 packets that records the largest 10·(hop-0 queue) + (hop-1 queue) its ACKs report."""

    name: ClassVar[str] = "fixed-window-test"
    signals: ClassVar[frozenset[str]] = frozenset({"ecn", "hops"})
    aux: ClassVar[str | None] = "hq"

    def default_params(self, **context: Any) -> dict[str, float]:
        return {"w": 3.0}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        z = jnp.zeros(n, FLOAT)
        return {"cwnd": jnp.full(n, p["w"], FLOAT), "hq": z - 1}

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        hq = ev.hop_queues if ev.hop_queues is not None else jnp.zeros((1, 2))
        code = 10 * hq[..., 0] + hq[..., 1]
        return {"cwnd": s["cwnd"], "hq": jnp.where(ev.ack, jnp.maximum(s["hq"], code), s["hq"]).astype(FLOAT)}


def _tiny(kth):
    """Two flows of 3 packets enter hop 0 together at slot 0 and cross hops 0 and 1; RTT 50 slots; 60 slots.

    By hand: hop 0 gets 2 arrivals per slot for 3 slots and serves 1, so the six packets find 0, 1 | 1, 2 | 2, 3
    packets ahead; hop 1 gets one packet per slot and serves it at once (finds 0). The ACKs arrive at slots
    51..56, before any second-window packet is acknowledged.
    """
    return run_network(
        _Fixed(), {"w": 3.0}, routes=[(0, 1), (0, 1)], rtt=np.array([50, 50]),
        start=np.array([0, 0]), n_ports=2, kth=np.array(kth), buffer=16, rto=1000, seed=3, n_chunks=2, chunk=30,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("kth", "marks"), [([2, 99], 3), ([1, 99], 5), ([99, 1], 0), ([99, 0], 6), ([4, 99], 0)]
)
def test_per_hop_marking_hand_computed(kth, marks):
    rec = _tiny(kth)
    assert int(rec["marks"].sum()) == marks
    # first window delivered at hop 1 in slots 1..6 (chunk 0); each ACK (slots 51..56) frees one packet, sent and
    # delivered one slot later (slots 52..57, chunk 1): 3 + 3 per flow
    assert rec["delivered"].tolist() == [[3, 3], [3, 3]]
    assert rec["drops"][-1].sum() == 0


def test_hop_queue_signal_and_queue_trace():
    rec = _tiny([99, 99])
    # hop 0 holds 1, 2, 3 packets after the service of slots 0, 1, 2, then drains one per slot
    assert rec["q_mean"][0, 0] == pytest.approx((1 + 2 + 3 + 2 + 1) / 30)
    assert rec["q_mean"][0, 1] == 0.0  # hop 1 never queues


def test_hop_queues_reach_the_law():
    """The ACKs carry the queue each packet found at each hop: at slot 2 the two flows' packets found 2 and 3
    ahead at hop 0 (in the seeded order), none ever at hop 1 — so the flows' largest codes are 20 and 30."""
    rec = _tiny([99, 99])
    assert sorted(rec["aux_end"][-1].tolist()) == [20.0, 30.0]


@pytest.mark.parametrize("setting", [SETTINGS[0], SETTINGS[4]], ids=lambda s: s.name)
def test_crosscheck_parking_lot_within_tolerances(setting):
    """Packet vs the network model's mean-field fixed point within :data:`TOLERANCES`; the synchronized reading
    (what the symmetric fluid DDE settles near) is outside them."""
    c = compare_chain(setting)
    assert c.run_class == "stationary", c.run_class
    assert c.passed, c.errors
    assert abs(c.long_share - c.sync_long_share) / c.sync_long_share > TOLERANCES["long_share_rel"].rel


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_crosscheck_all_settings(setting):
    c = compare_chain(setting)
    assert c.run_class == "stationary" and c.passed, (c.run_class, c.errors)


def test_single_topology_is_the_unchanged_single_bottleneck(capsys):
    from dwtcp_fluid.cli import main
    from dwtcp_fluid.packet import build, run

    args = ["packet", "run", "--law", "dctcp", "--flows", "4", "--duration", "3ms", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--topology", "single"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert plain == single
    lib = run(build("dctcp", flows=4, duration="3ms"))
    assert lib["queue_mean"] == single["queue_mean"] and lib["drops"] == single["drops"]


def test_cli_parking_lot_json(capsys):
    from dwtcp_fluid.cli import main

    args = ["packet", "run", "--topology", "parking-lot:2", "--flows", "1", "--duration", "10ms", "--json"]
    assert main([*args, "--marking-threshold", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["topology"] == "parking-lot:2" and len(out["queue_mean"]) == 2 and len(out["group_share"]) == 3


@pytest.mark.parametrize(
    "extra", [["--topology", "ring:3"], ["--topology", "path:0"], ["--topology", "path:2", "--loss", "0.1"]]
)
def test_cli_topology_usage_errors(capsys, extra):
    from dwtcp_fluid.cli import main

    assert main(["packet", "run", "--duration", "1ms", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid" in err


def test_parse_topology():
    t = parse_topology("parking-lot:3")
    assert t.hops == 3 and t.routes == ((0, 1, 2), (0,), (1,), (2,))
    assert parse_topology("path:2").routes == ((0, 1),)
    assert parse_topology("leaf-spine:4x2").hops == 16
    for bad in ("leaf-spine:1x2", "leaf-spine:16x4", "ring:3"):
        with pytest.raises(ValueError, match="topology="):
            parse_topology(bad)


def test_drop_tail_per_hop_hand_computed():
    """Buffer 2 at each hop: the two flows' 6 packets of slots 0-2 find 0, 1 | 1, 2 | 1, 2 ahead at hop 0 (one
    served per slot), so the two that find 2 are dropped and 4 are delivered in the first window (slots 1..4)."""
    rec = run_network(
        _Fixed(), {"w": 3.0}, routes=[(0, 1), (0, 1)], rtt=np.array([50, 50]),
        start=np.array([0, 0]), n_ports=2, kth=np.array([99, 99]), buffer=2, rto=1000, seed=3, n_chunks=2, chunk=30,
    )  # fmt: skip
    assert int(rec["drops"][0].sum()) == 2
    assert int(rec["delivered"][0].sum()) == 4
    assert rec["q_mean"][0, 0] == pytest.approx(
        (1 + 1 + 1) / 30
    )  # one left after each of slots 0-2's service
