"""HPCC on chains: the packet core's routed ports with per-hop telemetry against the fixed point of [HPCC] Alg. 1's
max over hops, with stated tolerances.

Every port of a ``path:K`` or ``parking-lot:K`` chain runs at C with base RTT d (T = d); every flow runs [HPCC]
Alg. 1 on the telemetry of every hop of its route (:mod:`~dwtcp_fluid.packet.ports`) and reacts to the largest
u'_j. At a fixed point every flow is in the multiplicative branch with W = W_c, so W·(U − η) = W_AI·U: two flows
that read the same U hold the same window whatever their route. The closed form (:func:`chain_fixed_point`):

* the hop b that the most flows cross, N_b of them (the first on their route where hops carry the same flows),
  is the single bottleneck of ``proofs/hpcc.md`` with N = N_b:
  U_b = η + κ_b, κ_b = N_b·W_AI/(C·d); its queue q_b = N_b·W_AI − (1 − η)·C·T when η + κ_b > 1 (else 0) and every
  flow through it gets the same rate x = min(η + κ_b, 1)·C/N_b (their windows are equal and, with the queue on one
  hop, so are their RTTs up to a forwarding slot per hop);
* another hop j carries m_j of those flows at x and n_j flows of its own that read hop j only; with no queue there
  (u = utilization), their windows W_j = W_AI·U_j/(U_j − η) and U_j = m_j·x/C + n_j·W_j/(C·d) give
  (U_j − a)(U_j − η) = k·U_j, a = m_j·x/C, k = n_j·W_AI/(C·d): U_j is the root above η (U_j = a when n_j = 0:
  the hop carries the bottleneck's paced output, fully used on a path but without a queue), and each own flow gets
  (U_j − a)·C/n_j. The form holds for one most loaded hop, while U_j < 1 at a hop with flows of its own and
  U_j ≤ U_b (hop b stays every long flow's maximum); a setting outside it is refused.

So on a parking lot the long flows get the bottleneck's fair share 1/N_b, not less for crossing more hops: what the
max over hops gives and a sum of per-hop signals (or the ECN OR of :mod:`..networks.checks_multihop`) would not.

Stated tolerances (:data:`TOLERANCES`): every hop's mean queue within 0.02·C·d of the closed form, its utilization
within 0.01, every group's throughput share within 0.01 of the port rate; over the last half of a 200-RTT run with
every flow starting at line rate in the first RTT (lossless buffer). Measured (seed 0; 10 Gbps, 100 µs, B·T = 83.3
packets, W_AI = 1 packet; HPCC, HPCC-PINT with every packet carrying its value):

=====================  =========================  =====================  ==========================================
setting                queue per hop p / closed   utilization p / closed group shares p / closed
=====================  =========================  =====================  ==========================================
parking-lot:2 2/1/8    0.41, 6.40 / 0, 5.83       0.963, 1 / 0.965, 1    0.099, 0.765, 0.100 / 0.100, 0.765, 0.100
path:2 10              6.14, 0 / 5.83, 0          1, 1 / 1, 1            0.100 / 0.100
parking-lot:3 2/1/8/1  0.36, 6.29, 0.38 / 0,      0.964, 1, 0.964 /      0.098, 0.768, 0.100, 0.767 /
                       5.83, 0                    0.965, 1, 0.965        0.100, 0.765, 0.100, 0.765
=====================  =========================  =====================  ==========================================

(HPCC-PINT: the same to ±0.01 packet and ±0.001.) The bottleneck's queue stands 0.6 packet above the closed form,
as on the single bottleneck at the same κ (``n10-10g-100us-wai1`` of :mod:`.checks`: 6.52 against 5.83): paced
packets of ten flows still meet in the queue. The idle hops hold a few tenths of a packet for the same reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...judge import CrossCheck, Tolerance, Tolerances, register_check, run_check
from ...params import LinkParams

__all__ = ["ChainSetting", "TOLERANCES", "SETTINGS", "CHECK", "chain_fixed_point", "compare_hpcc_chains"]

#: The tolerances, as stated in the module docstring (packet against the closed-form fixed point).
TOLERANCES = Tolerances(
    Tolerance("queue", "C·d", abs=0.02, scale="bdp_d"),
    Tolerance("utilization", "1", abs=0.01),
    Tolerance("group_share", "1", abs=0.01),
)


@dataclass(frozen=True)
class ChainSetting:
    """One chain: the topology, flows per group (long group first), link, W_AI (packets), η, run length in base
    RTTs, the law (``hpcc`` or ``hpcc-pint``)."""

    topology: str
    flows: tuple[int, ...]
    capacity: str = "10Gbps"
    rtt: str = "100us"
    w_ai: float = 1.0
    eta: float = 0.95
    rtts: int = 200
    law: str = "hpcc"

    @property
    def name(self) -> str:
        return f"{self.law} {self.topology} {'/'.join(map(str, self.flows))} {self.capacity} {self.rtt}"

    @property
    def link(self) -> LinkParams:
        return LinkParams(capacity=self.capacity, rtt=self.rtt)


#: Two-hop parking lot with the second hop the most loaded, a two-hop path, and a three-hop parking lot with the
#: middle hop the most loaded; HPCC and HPCC-PINT.
SETTINGS: tuple[ChainSetting, ...] = tuple(
    ChainSetting(t, f, law=law)
    for law in ("hpcc", "hpcc-pint")
    for t, f in (("parking-lot:2", (2, 1, 8)), ("path:2", (10,)), ("parking-lot:3", (2, 1, 8, 1)))
)


def chain_fixed_point(
    routes: Sequence[Sequence[int]], counts: Sequence[int], hops: int, *, bdp: float, w_ai: float, eta: float
) -> dict[str, np.ndarray]:
    """The fixed point of the module docstring: per hop ``queue`` (packets) and ``utilization``; per group
    ``group_share`` (fraction of the port rate). ``routes`` per group (port ids), ``counts`` flows per group,
    ``bdp`` = C·d = C·T (packets). Every group that does not cross the bottleneck must cross one hop only.
    ValueError for a setting outside the closed form."""
    n_hop = np.zeros(hops, int)
    for r, n in zip(routes, counts, strict=True):
        for j in r:
            n_hop[j] += n
    tied = [j for j in range(hops) if n_hop[j] == n_hop.max()]
    crossing = {frozenset(g for g, r in enumerate(routes) if j in r) for j in tied}
    if len(crossing) > 1:
        raise ValueError(
            f"flows per hop {n_hop.tolist()} are outside the closed form: accepted one most loaded hop"
        )
    # hops that carry the same flows (a path): the first on their route queues, the next ones get its paced output
    r0 = routes[min(crossing.pop())]
    b = min(tied, key=r0.index)
    kappa = n_hop[b] * w_ai / bdp
    U_b = eta + kappa
    util_b = min(U_b, 1.0)
    x = util_b / n_hop[b]  # share of every flow through the bottleneck
    queue, util, share = np.zeros(hops), np.zeros(hops), np.zeros(len(routes))
    queue[b], util[b] = max(0.0, n_hop[b] * w_ai - (1.0 - eta) * bdp), util_b
    for j in range(hops):
        if j == b:
            continue
        m = sum(n for r, n in zip(routes, counts, strict=True) if b in r and j in r)
        own = [g for g, r in enumerate(routes) if j in r and b not in r]
        if any(len(routes[g]) != 1 for g in own):
            raise ValueError(f"routes={routes!r} are outside the closed form: accepted one-hop cross groups")
        n = sum(counts[g] for g in own)
        a, k = m * x, n * w_ai / bdp
        s = a + eta + k
        U = a if n == 0 else (s + math.sqrt(s * s - 4.0 * a * eta)) / 2.0
        if (n > 0 and U >= 1.0) or U > U_b:
            raise ValueError(
                f"hop {j} would read U={U:.3g}: outside the closed form (accepted U < 1 with flows of its own, "
                "and U ≤ U_b)"
            )
        util[j] = U
        for g in own:
            share[g] = (U - a) / n
    for g, r in enumerate(routes):
        if b in r:
            share[g] = x
    return {"queue": queue, "utilization": util, "group_share": share}


def _packet(s: ChainSetting, *, seed: int = 0, **_: Any) -> dict[str, Any]:
    """The chain on routed ports (:func:`~dwtcp_fluid.packet.multihop_run.run_topology`), last half."""
    from ...packet.multihop_run import run_topology

    link = s.link
    flows = s.flows[0] if len(s.flows) == 1 else s.flows
    run = run_topology(
        s.topology, s.law, link=link, flows=flows, duration=s.rtts * float(link.d), seed=seed,
        buffer=int(max(2000, (sum(s.flows) + 2) * link.C * link.d)), K=1e6,
        law_params={"w_ai": s.w_ai, "eta": s.eta}, warmup_fraction=0.5,
    )  # fmt: skip
    summary = {"queue": run.queue_mean, "utilization": run.utilization, "group_share": run.group_share}
    return {"summary": summary, "run": run, "drops": run.drops}


def _closed_form(settings: Sequence[ChainSetting], packets: Sequence[dict[str, Any]], **_: Any) -> list[dict]:
    out = []
    for s, pk in zip(settings, packets, strict=True):
        run = pk["run"]
        link = s.link
        bdp = float(link.C) * float(link.d)
        fp = chain_fixed_point(
            run.routes, run.flows_per_group, len(run.queue_mean), bdp=bdp, w_ai=s.w_ai, eta=s.eta
        )
        out.append({"closed form": fp})
    return out


def _context(s: ChainSetting, packet: Any, model: Any) -> dict[str, float]:
    return {"bdp_d": float(s.link.C) * float(s.link.d)}


CHECK: CrossCheck[ChainSetting] = register_check(
    CrossCheck(
        name="hpcc-chains",
        claim="on a chain, [HPCC] Alg. 1 on per-hop telemetry (max over hops) settles on the fixed point where the "
        "most loaded hop is the single bottleneck of proofs/hpcc.md and the other hops carry no queue",
        settings=SETTINGS,
        packet=_packet,
        fluid=_closed_form,
        tolerances=TOLERANCES,
        context=_context,
        columns=(
            ("mean q per hop (pkt)", "queue", 1.0),
            ("utilization per hop (%)", "utilization", 100.0),
            ("group share (%)", "group_share", 100.0),
        ),
    )
)


def compare_hpcc_chains(settings: Sequence[ChainSetting] = SETTINGS, *, seed: int = 0) -> Any:
    """Every setting through the packet core against the closed form (:func:`~dwtcp_fluid.judge.run_check`)."""
    return run_check(CHECK, tuple(settings), seed=seed)
