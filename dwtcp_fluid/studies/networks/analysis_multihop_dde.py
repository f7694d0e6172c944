"""Long runs of the DCTCP network fluid model on a parking lot: the long flow's share, per-link queues, and
whether the hops stay synchronized.

The symmetric parking lot (equal links, equal cross groups) has an invariant subspace q_1 = … = q_k: started on
it, the fluid DDE stays on it exactly (every link computes the same numbers), its hops cross K together and a
long flow is marked exactly when a cross flow is (P = p). Whether that synchronized motion is what the model
does, or an artefact of the exactly symmetric start, is decided by starting a hair off it (``asymmetry``
packets on the first hop's queue): a transversally unstable subspace is left within a few cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...models.dctcp_network import DctcpNetwork, NetworkParams, parking_lot_routes
from ...params import check_range
from ...results import Status
from .analysis_multihop import parking_lot_fixed_point

__all__ = ["LotRun", "fluid_lot_run", "start_queues", "OSCILLATION_OVER_K", "START_ASYMMETRY"]

#: A link's queue whose standard deviation over the measured half exceeds this fraction of K is ``oscillating``
#: (the step-marking lot's limit cycle); below it on every link the run is ``steady``.
OSCILLATION_OVER_K = 0.01


@dataclass(frozen=True)
class LotRun:
    """The fluid parking lot over the second half of a run.

    ``long_share``/``cross_share``: one long flow's and one cross flow's (mean over the cross groups) rate over C;
    ``queue_mean``/``queue_std``/``utilization``: per link (packets, packets, 1); ``desync``: max over the half
    of max_l |q_l − q_1| (packets; 0 on the synchronized subspace); ``run_class``: ``steady``, ``oscillating``
    or ``failed`` (the solver's status is not OK; nothing else is then meaningful). ``hop_marked``: per link, the
    fraction of the half its queue is at or above K (the step marks every packet then, [DCTCP-A] eq. (6));
    ``long_marked``: the fraction at least one link marks, the long flow's mark fraction (independent hops would
    give 1 − Π(1 − hop_marked), in sync max(hop_marked)); ``closest_pair``: over pairs of links, the smallest
    max over the half of |q_l − q_m| (packets; 0: two links in lockstep; NaN for one link).
    """

    hops: int
    long_share: float
    cross_share: float
    queue_mean: np.ndarray
    queue_std: np.ndarray
    utilization: np.ndarray
    desync: float
    run_class: str
    status: Status
    hop_marked: np.ndarray | None = None
    long_marked: float = float("nan")
    closest_pair: float = float("nan")


#: Packets added to the first link's starting queue by default: enough to leave the synchronized subspace within
#: ~20 ms at k = 2 (10 Gbps, 100 µs, K = 65), the start of every desynchronized number in proofs/multihop.md.
START_ASYMMETRY = 1e-3


def start_queues(
    K: float, links: int, asymmetry: float = START_ASYMMETRY, *, every_hop: bool = False
) -> tuple[float, ...]:
    """Starting queues of a network run (packets): K at every link, ``asymmetry`` packets more at the first.

    0 is the exactly symmetric start: on a symmetric chain the synchronized subspace (equal hops) is invariant and
    the run never leaves it, whatever its stability (proofs/multihop.md). ``asymmetry`` at the first link alone
    leaves the other links of a symmetric chain equal, and exchanging them is still a symmetry: from 3 links on they
    stay in lockstep. ``every_hop`` gives link l (from 0) ``asymmetry``·(links − 1 − l)/(links − 1) packets more
    instead, a different amount at every link (the same start for 2 links).
    """
    asymmetry = check_range("asymmetry", asymmetry, lo=0.0, why="packets")
    if every_hop and links > 1:
        return tuple(K + asymmetry * (links - 1 - l) / (links - 1) for l in range(links))
    return (K + asymmetry,) + (K,) * (links - 1)


def fluid_lot_run(
    hops: int,
    *,
    flows: int = 1,
    cross_flows: int | None = None,
    K: float = 65.0,
    capacity: str = "10Gbps",
    rtt: str = "100us",
    rtt_long: str | None = None,
    group_delays: bool = True,
    duration: float = 0.1,
    asymmetry: float = START_ASYMMETRY,
    method: str = "reference",
    every_hop: bool = False,
) -> LotRun:
    """Run the step-marking :class:`~dwtcp_fluid.models.dctcp_network.DctcpNetwork` parking lot from its
    independent-marks fixed point and summarize the second half ([DCTCP-A] eqs. (5)-(8) per link).

    Parameters
    ----------
    hops : int
        Links k.
    flows : int
        Long flows (and flows of every cross group unless ``cross_flows``).
    cross_flows : int, optional
        Flows of every cross group.
    K : float
        Threshold of every link, packets.
    capacity, rtt : str
        Link rate, and base RTT of the cross groups (and of the long group unless ``rtt_long``).
    rtt_long : str, optional
        Base RTT of the long group.
    group_delays : bool
        Each group's marks τ_i late (τ_i = d_i + Σ K/C along its path); False: one common τ = R* of a 1-hop flow.
    duration : float
        Simulated seconds; the summary reads the second half.
    asymmetry : float
        Packets added to the first hop's starting queue (0: the exactly symmetric start, which stays on the
        synchronized subspace).
    method : {"reference", "jax"}
        DDE solver.
    every_hop : bool
        Spread ``asymmetry`` over every link, a different amount each (:func:`start_queues`); False: the first
        link only, where the other links of a chain of 3 or more stay in lockstep.
    """
    from ...dde import solve
    from ...dde.summary import time_mean

    check_range("hops", hops, lo=1, integer=True)
    duration = check_range("duration", duration, lo=0.0, lo_open=True, why="seconds")
    rtts = rtt if rtt_long is None else (rtt_long,) + (rtt,) * hops
    m = DctcpNetwork(parking_lot_routes(hops), group_delays=group_delays)
    n_cross = flows if cross_flows is None else cross_flows
    P = NetworkParams.parking_lot(hops, capacity=capacity, K=K, rtt=rtts, flows=(flows,) + (n_cross,) * hops)
    p = m.numeric_params(P)
    C = p["C_1"]
    fp = parking_lot_fixed_point(hops, C, K, p["d_2"], flows, n_cross, d_long=p["d_1"])
    hist = (
        (fp.W_long,)
        + (fp.W_cross,) * hops
        + (fp.P_long,)
        + (fp.p,) * hops
        + start_queues(K, hops, asymmetry, every_hop=every_hop)
    )
    sol = solve(m, P, hist, (0.0, duration), method=method)
    status = Status(int(sol.status[0]))
    ts = np.linspace(duration / 2, duration, 10001)
    obs = m.observables(tuple(sol(ts, 0).T), p, np)
    q = np.array([obs[f"queue_{l + 1}"] for l in range(hops)])
    qstd = q.std(axis=1)
    cls = (
        "failed"
        if status != Status.OK
        else ("oscillating" if qstd.max() > OSCILLATION_OVER_K * K else "steady")
    )
    return LotRun(
        hops=hops,
        long_share=time_mean(ts, obs["rate_1"]) / C,
        cross_share=float(np.mean([time_mean(ts, obs[f"rate_{i + 2}"]) for i in range(hops)])) / C,
        queue_mean=np.array([time_mean(ts, v) for v in q]),
        queue_std=qstd,
        utilization=np.array([time_mean(ts, obs[f"utilization_{l + 1}"]) for l in range(hops)]),
        desync=float(np.max(np.abs(q - q[0]))),
        run_class=cls,
        status=status,
        hop_marked=(q >= K).mean(axis=1),
        long_marked=float((q >= K).any(axis=0).mean()),
        closest_pair=min(
            (float(np.max(np.abs(q[a] - q[b]))) for a in range(hops) for b in range(a + 1, hops)),
            default=float("nan"),
        ),
    )
