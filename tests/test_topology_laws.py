"""A law whose signal the topology does not provide is refused up front, naming both (never run without it).

The expectations are written out by hand from what each engine carries (the single-bottleneck event engine: ECN,
RTT samples, Scouts, in-band telemetry, a switch table, RED; on chains and fabrics the multi-port slot engine
(ECN, RTT samples, the per-hop queues, step marking only) and, for Scout laws and in-band telemetry laws, the
event engine's routed ports, every port writing its own telemetry), not derived from the code's own table.
"""

from __future__ import annotations

import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.packet.laws import LAWS as _REGISTRY

#: The package's laws (other test modules register laws of their own)
LAWS = {n: c for n, c in _REGISTRY.items() if c.__module__.startswith("dwtcp_fluid.")}

MULTI = ("path:2", "parking-lot:2", "leaf-spine:2x1")
#: Laws that read what only the single bottleneck provides (a switch table, a RED congestion point).
SINGLE_ONLY = {"d3", "dcqcn"}
#: Laws that read the per-hop queues, which only a multi-port topology provides.
HOPS_ONLY = {"dctcp-hops", "timely-hops", "timely-patched-hops"}


def _plan(law: str, topology: str):
    from dwtcp_fluid.reports.packet import plan_packet_run

    return plan_packet_run(law, flows=2, duration=1e-3, topology=topology)


def test_the_hand_table_covers_every_registered_law():
    # a new law must be placed here by hand (what it reads decides where it runs)
    known = SINGLE_ONLY | HOPS_ONLY | {
        "dwtcp", "scout-probe", "hpcc", "hpcc-pint", "reno", "dctcp", "dctcp-per-ack", "cubic", "d2tcp", "timely", "open-loop", "swift", "timely-patched",
    }  # fmt: skip
    assert set(LAWS) <= known, sorted(set(LAWS) - known)


@pytest.mark.parametrize("topology", ("single", *MULTI))
@pytest.mark.parametrize("law", sorted(LAWS))
def test_every_law_topology_pair_is_run_or_refused_naming_both(law, topology):
    refused = law in HOPS_ONLY if topology == "single" else law in SINGLE_ONLY
    if not refused:
        assert _plan(law, topology).topology == topology
        return
    with pytest.raises(ValueError) as e:
        _plan(law, topology)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"law={law!r} is invalid on topology {topology}"), msg


def test_the_api_entry_points_refuse_too():
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet.multihop_run import run_topology

    with pytest.raises(
        ValueError, match=r"law='d3' is invalid on topology path:3: it keeps state at the switch"
    ):
        run_topology("path:3", "d3", duration="1ms")
    with pytest.raises(
        ValueError, match=r"law='timely-hops' is invalid on topology single: it reads the per-hop"
    ):
        build(["dctcp", "timely-hops"], flows=2, duration="1ms")
    # DCQCN runs on a chain with step marking only when its own RED congestion point is switched off
    with pytest.raises(ValueError, match=r"law='dcqcn' is invalid on topology path:2: .*RED"):
        run_topology("path:2", "dcqcn", duration="1ms", law_params={"cp_pmax": 0.01})


def test_dcqcn_without_its_red_point_is_accepted_on_a_chain():
    from dwtcp_fluid.reports.packet import plan_packet_run

    plan = plan_packet_run("dcqcn", {"cp_pmax": 0.0}, flows=2, duration=1e-3, topology="parking-lot:2")
    assert plan.topology == "parking-lot:2"


@pytest.mark.parametrize(
    ("law", "topology", "words"),
    [
        ("d3", "leaf-spine:2x1", "state at the switch"),
        ("d3", "path:2", "state at the switch"),
        ("dctcp-hops", "single", "per-hop queues"),
    ],
)
def test_cli_exits_2_with_one_line_naming_law_and_topology(capsys, law, topology, words):
    rc = main(["packet", "run", "--law", law, "--topology", topology, "--duration", "1ms", "--flows", "2"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1, err
    assert f"--law {law!r} is invalid on topology {topology}" in err and words in err, err
