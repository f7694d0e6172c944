"""Traffic on a leaf-spine fabric: which leaf pairs talk, how many flows each, and the spine ECMP gives each flow.

Ports of ``leaf-spine:LxS`` (:mod:`.topology`): uplink leaf l → spine s is port ``l·S + s``; downlink spine s →
leaf l is port ``L·S + s·L + l``. Hosts hang off the leaves on access links at line rate (no queue: a sender puts
at most one packet per slot on the wire), so a flow from leaf a to leaf b crosses exactly two ports: the uplink
(a, s) and the downlink (s, b), with s its ECMP choice.

Traffic patterns (``traffic``), each with ``flows`` flows per talking ordered leaf pair:

* ``"all-to-all"``: every ordered pair of distinct leaves;
* ``"permutation"``: leaf i sends to leaf π(i), π a random derangement (no leaf sends to itself) drawn from a
  NumPy generator seeded by ``seed``;
* an L×L matrix of non-negative integers: flows from leaf i to leaf j (the diagonal must be 0); ``flows`` is
  then ignored.

ECMP: flow k of the pair (a, b) takes spine ``hash32(seed, a, b, k, 0xEC) mod S`` (:func:`~.switch.hash32`, the
packet core's one hash) — a per-flow hash as a switch hashes the 5-tuple, deterministic per seed. Two elephant
flows of one leaf hashed onto one uplink (an ECMP collision) share it while the other uplink may idle: the
effect a fluid model with even splitting would miss, and which this routing reproduces flow by flow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .switch import hash32
from .topology import Topology

__all__ = ["LeafSpineTraffic", "leaf_spine_traffic", "ecmp_spine", "uplink", "downlink", "fabric_routes"]

#: Accepted traffic pattern names.
PATTERNS = ("all-to-all", "permutation")


def uplink(topo: Topology, leaf: int, spine: int) -> int:
    """Port id of the uplink leaf → spine."""
    return leaf * topo.spines + spine


def downlink(topo: Topology, spine: int, leaf: int) -> int:
    """Port id of the downlink spine → leaf."""
    return topo.leaves * topo.spines + spine * topo.leaves + leaf


def fabric_routes(topo: Topology) -> list[tuple[int, int]]:
    """Every route of the fabric: (uplink, downlink) for each leaf pair and spine."""
    L, S = topo.leaves, topo.spines
    return [
        (uplink(topo, a, s), downlink(topo, s, b))
        for a in range(L)
        for b in range(L)
        if a != b
        for s in range(S)
    ]


def ecmp_spine(seed: int, src: Any, dst: Any, k: Any, spines: int) -> Any:
    """The spine ECMP gives flow ``k`` of the pair (src, dst): a seeded per-flow hash mod ``spines`` (an int; an
    int64 array where ``src``, ``dst`` or ``k`` are arrays)."""
    h = np.asarray(hash32(seed, src, dst, k, 0xEC)).astype(np.int64) % spines
    return int(h) if h.ndim == 0 else h


@dataclass(frozen=True)
class LeafSpineTraffic:
    """A traffic pattern routed on a fabric: the fabric with its groups (distinct routes) and, per flow (in group
    order), its source leaf, destination leaf, index within the pair and spine."""

    topology: Topology
    flows_per_group: tuple[int, ...]
    src: np.ndarray
    dst: np.ndarray
    index: np.ndarray
    spine: np.ndarray

    def port_flows(self) -> np.ndarray:
        """Flows crossing each port (``[ports]``)."""
        n = np.zeros(self.topology.hops, np.int64)
        for r, c in zip(self.topology.groups, self.flows_per_group, strict=True):
            n[list(r)] += c
        return n

    def queueable(self) -> np.ndarray:
        """Per port: can it hold a queue? Only if its flows enter it through ≥ 2 distinct links (another port, or
        each flow's own host access link at line rate); a port fed by one line-rate link never queues."""
        feeds: list[set] = [set() for _ in range(self.topology.hops)]
        f = 0
        for r, c in zip(self.topology.groups, self.flows_per_group, strict=True):
            for _ in range(c):
                feeds[r[0]].add(("host", f))
                f += 1
            for a, b in zip(r[:-1], r[1:], strict=True):
                feeds[b].add(("port", a))
        return np.array([len(x) >= 2 for x in feeds])


def _pair_matrix(L: int, traffic: Any, flows: int, seed: int) -> np.ndarray:
    if isinstance(traffic, str):
        if traffic == "all-to-all":
            return flows * (1 - np.eye(L, dtype=np.int64))
        if traffic == "permutation":
            rng = np.random.default_rng(seed)
            while True:  # rejection sampling of a derangement (≈ e tries)
                pi = rng.permutation(L)
                if np.all(pi != np.arange(L)):
                    break
            m = np.zeros((L, L), np.int64)
            m[np.arange(L), pi] = flows
            return m
        raise ValueError(f"traffic={traffic!r} is invalid: accepted {', '.join(PATTERNS)} or an LxL matrix")
    m = np.asarray(traffic)
    if m.shape != (L, L) or not np.issubdtype(m.dtype, np.integer) or m.min() < 0 or np.any(np.diag(m)):
        raise ValueError(
            f"traffic={traffic!r} is invalid: accepted an {L}x{L} matrix of integers >= 0 with a zero diagonal"
        )
    return m.astype(np.int64)


def leaf_spine_traffic(
    topo: Topology, traffic: Any = "all-to-all", flows: int = 1, seed: int = 0
) -> LeafSpineTraffic:
    """Route ``traffic`` (see the module docstring) on the fabric ``topo`` by ECMP; groups are the distinct routes
    (uplink, downlink) in order of first use, flows are listed group by group.

    Parameters
    ----------
    topo : Topology
        A ``leaf-spine:LxS`` fabric (:func:`~.topology.parse_topology`).
    traffic : str or array
        ``"all-to-all"``, ``"permutation"`` or an L×L flow-count matrix.
    flows : int
        Flows per talking leaf pair (1..64), for the named patterns.
    seed : int
        Seed of the permutation and of the ECMP hash.
    """
    from ..params import check_range

    if topo.kind != "leaf-spine":
        raise ValueError(f"topology={topo.name!r} is invalid here: accepted a leaf-spine:LxS fabric")
    check_range("flows", flows, lo=1, hi=64, integer=True)
    m = _pair_matrix(topo.leaves, traffic, int(flows), int(seed))
    if m.sum() == 0 or m.sum() > 256:
        raise ValueError(f"traffic={traffic!r} gives {int(m.sum())} flows: accepted 1..256")
    rows = []
    for a in range(topo.leaves):
        for b in range(topo.leaves):
            for k in range(int(m[a, b])):
                s = ecmp_spine(seed, a, b, k, topo.spines)
                rows.append((a, b, k, s, (uplink(topo, a, s), downlink(topo, s, b))))
    routes: list[tuple[int, ...]] = []
    for r in rows:
        if r[4] not in routes:
            routes.append(r[4])
    order = sorted(range(len(rows)), key=lambda i: routes.index(rows[i][4]))
    counts = tuple(sum(1 for r in rows if r[4] == rt) for rt in routes)
    col = lambda j: np.array([rows[i][j] for i in order], np.int32)  # noqa: E731
    fabric = Topology("leaf-spine", topo.hops, tuple(routes), topo.leaves, topo.spines)
    return LeafSpineTraffic(fabric, counts, col(0), col(1), col(2), col(3))
