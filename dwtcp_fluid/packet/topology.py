"""Topologies of the packet core: the single bottleneck, a path of k switches, the parking lot, a leaf-spine fabric.

A topology is a set of ``hops`` equal-rate switch ports (output queues) and a route per flow group: the list of
port ids it crosses in order (traffic enters at the first and leaves after the last). One route representation
for every topology; the multi-port slot engine is :mod:`.multihop`.

* ``single`` is today's one bottleneck, run by the single-bottleneck engine unchanged;
* ``path:K`` sends every flow over all K ports of a chain (no cross traffic: every hop but the first carries the
  same packets, already paced by the first);
* ``parking-lot:K`` adds cross traffic entering and leaving at each hop: group 0 (the long flows) crosses all K
  hops, group j (j = 1..K) crosses hop j − 1 only;
* ``leaf-spine:LxS``: L leaves, S spines, one port each way on every leaf–spine link (uplink leaf→spine,
  downlink spine→leaf); a flow between two leaves crosses the uplink to the spine its ECMP hash picks and that
  spine's downlink to the destination leaf. Its groups (one per distinct route) come from a traffic pattern,
  :func:`~.leafspine.leaf_spine_traffic`; :func:`parse_topology` returns the bare fabric (no groups yet).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Topology", "parse_topology", "TOPOLOGY_FORMS", "PROVIDES", "SINGLE", "check_law_on"]

#: What ``--topology`` accepts, for help texts and errors.
TOPOLOGY_FORMS = "single, path:K or parking-lot:K (K = 1..16 hops), leaf-spine:LxS (L = 2..16 leaves, S = 1..4 spines, 2·L·S ≤ 64)"
MAX_HOPS = 16
MAX_LEAVES = 16
MAX_SPINES = 4

#: The law signals (:data:`~.laws.base.SIGNALS`) each kind of topology provides: the single bottleneck runs on the
#: event engine (:mod:`.engine`: ECN, RTT samples, Scouts in a strict-priority queue, the port's in-band
#: telemetry); the chains and the fabric run a Scout law and a telemetry law on the event engine's routed ports
#: (:mod:`.ports`: a Scout queue at every port, every port's in-band telemetry per hop) and the other laws on the
#: multi-port slot engine (:mod:`.multihop`: ECN, RTT samples, the queue found at every hop).
PROVIDES: dict[str, frozenset[str]] = {
    "single": frozenset({"ecn", "rtt", "scout", "int"}),
    "path": frozenset({"ecn", "rtt", "hops", "scout", "int"}),
    "parking-lot": frozenset({"ecn", "rtt", "hops", "scout", "int"}),
    "leaf-spine": frozenset({"ecn", "rtt", "hops", "scout", "int"}),
}
#: Kinds whose port keeps a law's per-flow switch table (:attr:`~.laws.base.Law.switch_width`) and a law's own
#: RED congestion point (``cp_pmax`` > 0).
SWITCH_STATE = frozenset({"single"})
_SIGNAL_WORDS = {
    "ecn": "ECN marks",
    "rtt": "RTT samples",
    "scout": "Scouts",
    "int": "in-band telemetry",
    "hops": "the per-hop queues",
}


@dataclass(frozen=True)
class Topology:
    """Switch ports and the route (port ids, in order) of each flow group.

    Attributes
    ----------
    kind : str
        ``"single"``, ``"path"``, ``"parking-lot"`` or ``"leaf-spine"``.
    hops : int
        Number of switch ports (1 for ``single``; 2·L·S for ``leaf-spine:LxS``).
    groups : tuple of tuple of int
        Port ids of each group's route, in order.
    leaves, spines : int
        The fabric's shape (``leaf-spine`` only; 0 otherwise).
    """

    kind: str
    hops: int
    groups: tuple[tuple[int, ...], ...]
    leaves: int = 0
    spines: int = 0

    @property
    def routes(self) -> tuple[tuple[int, ...], ...]:
        """Links of each group, as :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork` takes them."""
        return self.groups

    def flow_routes(self, flows_per_group: tuple[int, ...]) -> tuple[list[tuple[int, ...]], np.ndarray]:
        """Per-flow routes (port lists) and group index for ``flows_per_group[i]`` flows in group i."""
        if len(flows_per_group) != len(self.groups):
            raise ValueError(
                f"flows={flows_per_group!r} is invalid: accepted {len(self.groups)} group sizes for {self.name}"
            )
        grp = np.repeat(np.arange(len(self.groups)), flows_per_group).astype(np.int32)
        return [self.groups[g] for g in grp], grp

    @property
    def name(self) -> str:
        if self.kind == "single":
            return "single"
        if self.kind == "leaf-spine":
            return f"leaf-spine:{self.leaves}x{self.spines}"
        return f"{self.kind}:{self.hops}"

    def port_name(self, h: int) -> str:
        """A readable name of port ``h`` (``hop 2``; ``L0→S1`` uplink, ``S1→L3`` downlink)."""
        if self.kind != "leaf-spine":
            return f"hop {h}"
        L, S = self.leaves, self.spines
        if h < L * S:
            return f"L{h // S}→S{h % S}"
        s, leaf = divmod(h - L * S, L)
        return f"S{s}→L{leaf}"


#: The single bottleneck: one port, one group.
SINGLE = Topology("single", 1, ((0,),))


def check_law_on(law: Any, topo: Topology, params: Mapping[str, float] | None = None) -> None:
    """``ValueError`` naming the law and the topology unless ``topo`` provides every signal ``law`` reads
    (:data:`PROVIDES`) and, for a law that keeps state at the switch or brings its own RED congestion point
    (``params["cp_pmax"]`` > 0), a port that keeps it (:data:`SWITCH_STATE`): a run that would silently lack
    them is refused, never run.

    Parameters
    ----------
    law : Law or sequence of Law
        The law(s) of the run.
    topo : Topology
        Where they would run.
    params : mapping, optional
        The law's numeric parameters (its congestion point is read from them).
    """
    from .laws import LAWS  # here: the laws package imports modules that import this one

    laws = tuple(law) if isinstance(law, list | tuple) else (law,)
    has = PROVIDES[topo.kind]
    where = f"topology {topo.name}"
    ok = [
        n
        for n, cls in LAWS.items()
        if cls.signals <= has and (topo.kind in SWITCH_STATE or not cls.switch_width)
    ]
    for lw in laws:
        missing = sorted(set(lw.signals) - has)
        if missing:
            what = ", ".join(f"{_SIGNAL_WORDS[m]} (signal {m!r})" for m in missing)
            raise ValueError(
                f"law={lw.name!r} is invalid on {where}: it reads {what}, which {topo.name} does not provide; "
                f"accepted on {topo.name}: {' | '.join(ok)}"
            )
        if topo.kind not in SWITCH_STATE and lw.switch_width:
            raise ValueError(
                f"law={lw.name!r} is invalid on {where}: it keeps state at the switch, which {topo.name} "
                f"does not carry; accepted on {topo.name}: {' | '.join(ok)}"
            )
    if topo.kind not in SWITCH_STATE and params is not None and float(params.get("cp_pmax", 0.0)) > 0:
        raise ValueError(
            f"law={laws[0].name!r} is invalid on {where}: its congestion point marks by RED "
            f"(cp_pmax={float(params['cp_pmax']):g}), which the ports of {topo.name} do not provide (step marking "
            "at K only); accepted cp_pmax=0 there"
        )


def parse_topology(text: str) -> Topology:
    """``single``, ``path:K``, ``parking-lot:K`` or ``leaf-spine:LxS`` as a :class:`Topology`; ValueError naming
    the value otherwise. A leaf-spine fabric comes without groups (they follow from the traffic pattern).

    Parameters
    ----------
    text : str
        The topology, e.g. ``"parking-lot:3"`` or ``"leaf-spine:4x2"``.
    """
    s = str(text).strip().lower()
    if s == "single":
        return SINGLE
    m = re.fullmatch(r"leaf-spine:(\d+)x(\d+)", s, re.ASCII)
    if m:
        L, S = int(m.group(1)), int(m.group(2))
        if not (2 <= L <= MAX_LEAVES and 1 <= S <= MAX_SPINES and 2 * L * S <= 64):
            raise ValueError(f"topology={text!r} is invalid: accepted {TOPOLOGY_FORMS}")
        return Topology("leaf-spine", 2 * L * S, (), L, S)
    m = re.fullmatch(r"(path|parking-lot):(\d+)", s, re.ASCII)
    if not m or not 1 <= int(m.group(2)) <= MAX_HOPS:
        raise ValueError(f"topology={text!r} is invalid: accepted {TOPOLOGY_FORMS}")
    k = int(m.group(2))
    if m.group(1) == "path":
        return Topology("path", k, (tuple(range(k)),))
    return Topology("parking-lot", k, (tuple(range(k)),) + tuple((j,) for j in range(k)))
