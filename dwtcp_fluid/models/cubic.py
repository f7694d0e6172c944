"""CUBIC fluid model: N CUBIC flows over a drop-tail bottleneck, a hybrid system, [CUBIC] eqs. (1), (2), (4) (RFC 8312).

Flow group i has N_i identical flows. Between losses each flow's window follows the cubic curve of its epoch, with
the TCP-friendly window as a lower bound, and the queue integrates the excess of the sending rate over capacity:

    W_i(t)   = max(W_max,i + c·s_i(t)³, W_est,i(t))        s_i = t − t_epoch,i − K_i        (C1)  RFC 8312 (1), (4)
    s_i'     = 1,    W_max,i' = 0,    W_est,i' = α/R(t)     α = 3(1 − β)/(1 + β)           (C2)
    q'       = Σ_i N_i·W_i/R(t) − C,    R(t) = d + q/C,    0 ≤ q ≤ B (sliding modes)        (C3)

States per group: ``s`` (seconds from the plateau of the cubic curve: s = −K at the epoch start, so no cube root
is taken between losses), ``wmax`` (packets), ``west`` (packets); then ``q`` (packets). c is CUBIC's constant
(packets/s³), β its decrease factor. The window is the cubic curve at the epoch time itself: the packet law moves
cwnd toward W_cubic(t + RTT) by (target − cwnd)/cwnd per ACK, a first-order lag of one RTT behind a target one RTT
ahead, which tracks W_cubic(t) to first order.

The loss is a *jump*, so the model is a hybrid system: the continuous part above is a :class:`FluidModel` that
both DDE solvers integrate; the loss event is the solvers' switching surface σ = q − (B − δ) (δ =
:data:`LOSS_MARGIN` packets; the queue then sits on its ceiling B and drops the excess), located exactly by the
reference solver as a crossing, and read one feedback delay τ = d + B/C late (switching channel delay: the lost
packet would have waited B/C and then crossed the round trip d). At the cut (:func:`cubic_cut`, RFC 8312 §4.5-4.6)
each flow that sees the loss sets W_max ← W (or W·(1 + β)/2 with fast convergence when W < the previous W_max),
W ← β·W, a new epoch: s ← −K, K = ∛((W_max − β·W)/c) (RFC 9438 eq. (2)), W_est ← β·W.
:mod:`dwtcp_fluid.studies.cubic.analysis` runs the hybrid map (continuous flow, located event, jump) and the
periodic cycle's closed form.

*Synchronization.* Which flows see a loss follows from the fluid the full queue drops: during the feedback delay the
queue stays at B and the excess arrival Σ N_i·W_i/R − C is dropped, D packets in all. :func:`loss_hits` cuts the
groups with the largest windows until they hold the expected number of distinct flows that D drops hit (at least
one): every flow when D ≫ N (synchronized), only the largest when the overshoot is a packet or two. The packet core shows both: at
[DCTCP-WAN]'s 20 ms path with c = 400 an episode drops tens of packets and 9.8 of 10 flows lose one; on its 1 ms
star CUBIC is in its TCP-friendly region, grows by α ≈ 0.53 packets per RTT, drops one or two packets per episode
and 1.3 of 2 flows see them (``studies/cubic/checks.py``). ``sync="all"`` forces the synchronized cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..params import LinkParams, check_range
from .base import FluidModel

__all__ = [
    "CubicFluid",
    "CubicParams",
    "LOSS_MARGIN",
    "cubic_cut",
    "friendly_alpha",
    "group_windows",
    "loss_hits",
]

#: δ (packets): the loss surface sits this far below the buffer B, so that the solver locates a crossing of a
#: smooth function (the queue then rests on its ceiling B, where σ = δ > 0 until the cut drains it).
LOSS_MARGIN = 1e-3


def friendly_alpha(beta: Any) -> Any:
    """α = 3(1 − β)/(1 + β) packets per RTT: the TCP-friendly window's growth, [CUBIC] eq. (4) (RFC 8312)."""
    return 3 * (1 - beta) / (1 + beta)  # integers: exact in SymPy


@dataclass(frozen=True)
class CubicParams:
    """CUBIC flows over one drop-tail bottleneck.

    Parameters
    ----------
    link : LinkParams
        Bottleneck capacity (packets/s via ``link.C``), base RTT d (s) and packet size.
    flows : tuple of int
        Flows per group N_i (one set of states per group).
    buffer : float
        Drop-tail buffer B, packets (> 0).
    c : float
        CUBIC constant, packets/s³ (RFC 8312: 0.4).
    beta : float
        Multiplicative decrease factor, 0 < β < 1 (RFC 8312: 0.7).
    fast_convergence : bool
        RFC 8312 §4.6 (the packet law's default, as Linux).
    """

    link: LinkParams = field(default_factory=lambda: LinkParams(capacity="950Mbps", rtt="20ms"))
    flows: tuple[int, ...] = (1,)
    buffer: float = 200.0
    c: float = 0.4
    beta: float = 0.7
    fast_convergence: bool = True

    def __post_init__(self) -> None:
        flows = tuple(int(check_range("flows", n, lo=1, integer=True)) for n in self.flows)
        if not flows:
            raise ValueError(f"flows={self.flows!r} is invalid: accepted a non-empty tuple of flow counts")
        object.__setattr__(self, "flows", flows)
        object.__setattr__(
            self, "buffer", check_range("buffer", self.buffer, lo=0.0, lo_open=True, why="packets")
        )
        object.__setattr__(self, "c", check_range("c", self.c, lo=0.0, lo_open=True, why="packets/s^3"))
        object.__setattr__(
            self, "beta", check_range("beta", self.beta, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        )

    @property
    def bdp(self) -> float:
        """C·d, packets."""
        return self.link.bdp

    @property
    def tau(self) -> float:
        """Loss feedback delay d + B/C, seconds."""
        return self.link.d + self.buffer / self.link.C


def group_windows(x: Any, m: int, c: Any, xp: Any) -> list[Any]:
    """W_i = max(W_max,i + c·s_i³, W_est,i) per group (packets), (C1): [CUBIC] eqs. (1) and (4) (RFC 8312)."""
    s, wmax, west = x[:m], x[m : 2 * m], x[2 * m : 3 * m]
    return [xp.maximum(wmax[i] + c * s[i] * s[i] * s[i], west[i]) for i in range(m)]


@dataclass(frozen=True)
class CubicFluid(FluidModel):
    """CUBIC fluid model between losses, (C1)-(C3) of the module docstring: [CUBIC] eqs. (1), (4) (RFC 8312).

    Parameters
    ----------
    groups : int
        Flow groups m ≥ 1. States: s_1..s_m (s), wmax_1..wmax_m, west_1..west_m (packets), q (packets).
    """

    groups: int = 1

    name: ClassVar[str] = "cubic"
    time_unit: ClassVar[str] = "s"

    def __post_init__(self) -> None:
        if not (isinstance(self.groups, int) and self.groups >= 1):
            raise ValueError(f"groups={self.groups!r} is out of range: accepted an integer >= 1")

    @property
    def states(self) -> tuple[str, ...]:  # type: ignore[override]
        r = range(1, self.groups + 1)
        return (*(f"s_{i}" for i in r), *(f"wmax_{i}" for i in r), *(f"west_{i}" for i in r), "q")

    @property
    def state_units(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("s",) * self.groups + ("packets",) * (2 * self.groups + 1)

    @property
    def param_names(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("C", "d", "B", "c", "beta", *(f"N_{i}" for i in range(1, self.groups + 1)))

    @property
    def sample_domain(self) -> Mapping[str, tuple]:  # type: ignore[override]
        out: dict[str, tuple] = {
            "q": ("lin", 0.0, 200.0),
            "C": (1e4, 1e6),
            "d": (1e-4, 5e-2),
            "B": (50.0, 2000.0),
            "c": (0.1, 500.0),
            "beta": ("lin", 0.5, 0.9),
        }
        for i in range(1, self.groups + 1):
            out.update(
                {f"s_{i}": ("lin", -3.0, 3.0), f"wmax_{i}": (10.0, 2000.0), f"west_{i}": (5.0, 2000.0)}
            )
            out[f"N_{i}"] = (1.0, 20.0)
        return out

    def windows(self, x: Any, p: Mapping[str, Any], xp: Any) -> list[Any]:
        """Per-group window W_i, eq. (C1), packets."""
        return group_windows(x, self.groups, p["c"], xp)

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """(C1)-(C3): the epoch clock of [CUBIC] eq. (1), W_est growth α/R of [CUBIC] eq. (4), and the queue."""
        m = self.groups
        q = x[3 * m]
        R = p["d"] + q / p["C"]
        W = self.windows(x, p, xp)
        one = 1 + 0 * q
        dwest = friendly_alpha(p["beta"]) / R
        dq = sum(p[f"N_{i + 1}"] * W[i] for i in range(m)) / R - p["C"]
        return (*(one,) * m, *(0 * q,) * m, *(dwest,) * m, dq)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q − (B − δ): the buffer is full, a drop-tail loss that ends the epoch and sets K by [CUBIC] eq. (2);
        read one feedback delay late."""
        return x[3 * self.groups] - (p["B"] - LOSS_MARGIN)

    def delay(self, p: Mapping[str, Any]) -> Any:
        """Loss feedback delay τ = d + B/C (s): the lost packet's queueing delay plus the round trip."""
        return p["d"] + p["B"] / p["C"]

    def step_scale(self, p: Mapping[str, Any]) -> Any:
        """The base RTT d (s): R = d + q/C reaches it when the queue empties, however long the loss delay is."""
        return p["d"]

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {3 * self.groups: 0.0}

    def ceilings(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {3 * self.groups: p["B"]}

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """Queue (packets), group 1's window (packets), utilization (output rate over C)."""
        m = self.groups
        q = x[3 * m]
        W = self.windows(x, p, xp)
        arrival = sum(p[f"N_{i + 1}"] * W[i] for i in range(m)) / (p["d"] + q / p["C"])
        util = xp.where(q > 1e-9, 1.0, xp.clip(arrival / p["C"], 0.0, 1.0))
        return {"window": W[0], "queue": q, "utilization": util}

    def numeric_params(self, params: CubicParams) -> dict[str, float]:
        """Floats from a :class:`CubicParams` (C in packets/s, d in s, B in packets)."""
        if not isinstance(params, CubicParams) or len(params.flows) != self.groups:
            raise ValueError(
                f"params={params!r} is invalid: accepted a CubicParams with {self.groups} flow groups"
            )
        out = {
            "C": float(params.link.C),
            "d": float(params.link.d),
            "B": float(params.buffer),
            "c": float(params.c),
            "beta": float(params.beta),
        }
        out.update({f"N_{i + 1}": float(n) for i, n in enumerate(params.flows)})
        return out


def cubic_cut(
    x: Any,
    p: Mapping[str, float],
    groups: int,
    hit: Sequence[bool],
    *,
    fast_convergence: bool = True,
) -> np.ndarray:
    """The loss jump of the groups in ``hit``, [CUBIC] eq. (2) (RFC 8312 §4.5-4.6; RFC 9438 eq. (2)).

    W_max ← W (W·(1 + β)/2 with fast convergence when W < the previous W_max), W ← β·W, W_est ← β·W,
    s ← −∛((W_max − β·W)/c). Returns the new state (the queue is unchanged: it drains continuously).
    """
    m = groups
    y = np.array(x, dtype=float)
    W = group_windows(y, m, p["c"], np)
    beta, c = p["beta"], p["c"]
    for i in range(m):
        if not hit[i]:
            continue
        w, prev = float(W[i]), y[m + i]
        wmax = w * (1.0 + beta) / 2.0 if (fast_convergence and w < prev) else w
        cw = beta * w
        y[i] = -np.cbrt(max(wmax - cw, 0.0) / c)
        y[m + i] = wmax
        y[2 * m + i] = cw
    return y


def loss_hits(
    windows: Sequence[float], flows: Sequence[float], dropped: float, carry: float = 0.0
) -> tuple[list[bool], float]:
    """Which groups see a loss episode that dropped ``dropped`` packets (module docstring, *Synchronization*).

    Each dropped packet belongs to a flow with the probability of that flow's share of the sending rate, W_i/Σ N_j·W_j
    (one RTT for all), so the expected number of distinct flows that lose a packet is
    E = Σ_i N_i·(1 − (1 − W_i/Σ N_j·W_j)^D). The groups with the largest windows (ties: lower index first), the
    likeliest to lose, are cut until they hold k = round(E + carry) flows (at least one group); the remainder
    ``carry`` + E − k is returned and passed to the next episode (error diffusion), so that over many episodes the
    mean number of flows cut is E: the expectation made deterministic.

    Returns
    -------
    hit : list of bool
        Per group.
    carry : float
        The remainder for the next episode.
    """
    w = np.asarray(windows, dtype=float)
    n = np.asarray(flows, dtype=float)
    share = w / float((n * w).sum())
    expected = float((n * (1.0 - (1.0 - share) ** max(float(dropped), 0.0))).sum())
    want = np.floor(expected + carry + 0.5)
    order = sorted(range(len(w)), key=lambda i: (-float(w[i]), i))
    hit = [False] * len(w)
    total = 0.0
    for i in order:
        hit[i] = True
        total += float(n[i])
        if total >= want:
            break
    return hit, carry + expected - total
