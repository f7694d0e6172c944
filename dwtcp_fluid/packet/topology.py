"""Topologies of the packet core: the single bottleneck, a path of k switches, the parking lot.

A topology is a chain of ``hops`` equal-rate switch ports and a route per flow: the contiguous range of hops
``[first, last]`` it crosses (traffic enters at ``first`` and leaves after ``last``). ``single`` is today's one
bottleneck, run by the single-bottleneck engine unchanged; ``path:K`` sends every flow over all K hops (a
chain with no cross traffic: every hop but the first carries the same packets, already paced by the first);
``parking-lot:K`` adds cross traffic entering and leaving at each hop: group 0 (the long flows) crosses all K hops,
group j (j = 1..K) crosses hop j − 1 only. The multi-hop slot engine is :mod:`.multihop`.

A leaf-spine fabric (several paths sharing ports, ECMP by flow hash) needs a port graph rather than a chain
and is not implemented: the parser names the accepted forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Topology", "parse_topology", "TOPOLOGY_FORMS"]

#: What ``--topology`` accepts, for help texts and errors.
TOPOLOGY_FORMS = "single, path:K or parking-lot:K (K = 1..16 hops)"
MAX_HOPS = 16


@dataclass(frozen=True)
class Topology:
    """A chain of ``hops`` switch ports and the route of each flow group.

    Attributes
    ----------
    kind : str
        ``"single"``, ``"path"`` or ``"parking-lot"``.
    hops : int
        Number of switch ports in the chain (1 for ``single``).
    groups : tuple of (first, last)
        Hop range of each flow group (inclusive).
    """

    kind: str
    hops: int
    groups: tuple[tuple[int, int], ...]

    @property
    def routes(self) -> tuple[tuple[int, ...], ...]:
        """Links of each group, as :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork` takes them."""
        return tuple(tuple(range(a, b + 1)) for a, b in self.groups)

    def flow_routes(self, flows_per_group: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-flow ``first``, ``last`` hop and group index for ``flows_per_group[i]`` flows in group i."""
        if len(flows_per_group) != len(self.groups):
            raise ValueError(
                f"flows={flows_per_group!r} is invalid: accepted {len(self.groups)} group sizes for {self.name}"
            )
        grp = np.repeat(np.arange(len(self.groups)), flows_per_group).astype(np.int32)
        first = np.array([self.groups[g][0] for g in grp], np.int32)
        last = np.array([self.groups[g][1] for g in grp], np.int32)
        return first, last, grp

    @property
    def name(self) -> str:
        return "single" if self.kind == "single" else f"{self.kind}:{self.hops}"


def parse_topology(text: str) -> Topology:
    """``single``, ``path:K`` or ``parking-lot:K`` as a :class:`Topology`; ValueError naming the value otherwise."""
    s = str(text).strip().lower()
    if s == "single":
        return Topology("single", 1, ((0, 0),))
    m = re.fullmatch(r"(path|parking-lot):(\d+)", s)
    if not m or not 1 <= int(m.group(2)) <= MAX_HOPS:
        raise ValueError(f"topology={text!r} is invalid: accepted {TOPOLOGY_FORMS}")
    k = int(m.group(2))
    if m.group(1) == "path":
        return Topology("path", k, ((0, k - 1),))
    return Topology("parking-lot", k, ((0, k - 1),) + tuple((j, j) for j in range(k)))
