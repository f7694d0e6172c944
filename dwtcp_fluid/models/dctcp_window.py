"""ACK-clocked ("window-based") DCTCP fluid models: the paper's source equations with the queue set by the windows.

The paper's queue [DCTCP-A] equation (7), dq/dt = N·W/R − C with R = d + q/C, can be rewritten
exactly as

    dq/dt = (N·W − C·d − q) / R(t),

a first-order lag, with time constant R(t) (about one RTT), of the queue toward N·W − C·d: the number of packets the
N windows hold beyond what the pipe (C·d) carries. An ACK-clocked sender keeps exactly W packets in flight, so while
the link is busy its queue *is* N·W − C·d, with no lag (a window increase releases a packet at once; a cut stops
sending until the queue has drained by the cut). Two models here:

* :class:`DctcpWindowFluid`: the ACK-clocked limit. State (W, α) in (packets, 1), time in seconds; W and α obey
  (5), (6) of 001 unchanged, and the queue is algebraic, q(t) = max(N·W(t) − C·d, 0), R(t) = d + q(t)/C,
  p(t) = 1{q(t) > K}, fed back after the fixed delay R* = d + K/C as in the paper.
* :class:`DctcpLagFluid`: the family between the two, dq/dt = (N·W − C·d − q)/(λ·R(t)). λ = 1 is exactly (7)
  (same trajectories as :class:`~.dctcp.DctcpFluid`); λ → 0 tends to :class:`DctcpWindowFluid` (the period's
  error is about λ·R* per cycle: 1 % at λ = 0.01). Small λ is stiff: use the reference solver, whose adaptive
  steps follow it; the JAX solver's fixed RK4 step (min(1, λ)·d/20) follows the lag down to the step budget.

Where the mark is generated does not matter for either model: the loop W → q → p → W has one total delay, R*, however
d is split between the forward and the return path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..formulas import dctcp_fixed_point_queue
from ..params import MODEL_BOUNDS, Bound, DctcpParams, check_range
from .base import FluidModel
from .dctcp import DctcpFluid, source_rates

__all__ = ["DctcpWindowFluid", "DctcpLagFluid", "window_queue", "window_fixed_point"]


def window_queue(W: Any, p: Mapping[str, Any], xp: Any = np) -> Any:
    """ACK-clocked queue q = max(N·W − C·d, 0) in packets (W in packets, C in packets/s, d in s)."""
    return xp.maximum(p["N"] * W - p["C"] * p["d"], 0 * W)


@dataclass(frozen=True)
class DctcpWindowFluid(FluidModel):
    """ACK-clocked DCTCP fluid model: [DCTCP-A] eqs. (5), (6) with q = max(N·W − C·d, 0).

    No queue state and no floor: the queue follows the windows instantly, and the switching surface is
    σ = N·W − C·d − K (q > K, eq. (8), since K ≥ 0).
    """

    param_bounds: ClassVar[Mapping[str, Bound] | None] = MODEL_BOUNDS

    name: ClassVar[str] = "dctcp-window"
    states: ClassVar[tuple[str, ...]] = ("W", "alpha")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "1")
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "K", "g", "N")
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        k: v for k, v in DctcpFluid.sample_domain.items() if k != "q"
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """dW/dt, dα/dt of [DCTCP-A] eqs. (5), (6) with R = d + max(N·W − C·d, 0)/C; u = p(t − R*)."""
        W, alpha = x
        R = p["d"] + window_queue(W, p, xp) / p["C"]
        return source_rates(W, alpha, R, u, p["g"])

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = N·W − C·d − K (packets): marking p = 1{q > K}, [DCTCP-A] eq. (8)."""
        return p["N"] * x[0] - p["C"] * p["d"] - p["K"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """R* = d + K/C (seconds), the paper's fixed feedback delay."""
        return p["d"] + p["K"] / p["C"]

    step_scale = DctcpFluid.step_scale

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """Floats for :meth:`rhs` (C in packets/s, d in s, K in packets)."""
        return DctcpFluid().numeric_params(params)

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """The queue is algebraic, q = max(N·W − C·d, 0); while N·W < C·d the pipe is not full and the link
        sends at N·W/d < C (utilization N·W/(C·d))."""
        W, alpha = x
        return {
            "queue": window_queue(W, p, xp),
            "window": W,
            "alpha": alpha,
            "utilization": xp.minimum(p["N"] * W / (p["C"] * p["d"]), 1.0),
        }


@dataclass(frozen=True)
class DctcpLagFluid(FluidModel):
    """DCTCP with the queue lagging N·W − C·d by λ·R: [DCTCP-A] eqs. (5), (6) and (7) rewritten.

    dq/dt = (N·W − C·d − q)/(λ·R(t)); λ = 1 is [DCTCP-A] eq. (7) exactly. Everything but the
    queue equation (marking surface, delay R*, queue floor, parameters) is :class:`~.dctcp.DctcpFluid`'s.

    Parameters
    ----------
    lag : float
        λ > 0, the queue's time constant in RTTs.
    queue_floor : bool
        Physical queue q ≥ 0, as in :class:`~.dctcp.DctcpFluid`.
    """

    param_bounds: ClassVar[Mapping[str, Bound] | None] = MODEL_BOUNDS

    lag: float = 1.0
    queue_floor: bool = True

    name: ClassVar[str] = "dctcp-lag"
    states: ClassVar[tuple[str, ...]] = DctcpFluid.states
    state_units: ClassVar[tuple[str, ...]] = DctcpFluid.state_units
    param_names: ClassVar[tuple[str, ...]] = DctcpFluid.param_names
    sample_domain: ClassVar[Mapping[str, tuple]] = DctcpFluid.sample_domain
    # everything but the queue equation is the paper model's
    surface = DctcpFluid.surface
    delay = DctcpFluid.delay
    floors = DctcpFluid.floors
    numeric_params = DctcpFluid.numeric_params

    def __post_init__(self) -> None:
        check_range("lag", self.lag, lo=0.0, lo_open=True, why="queue time constant in RTTs")

    def step_scale(self, p: Mapping[str, Any]) -> Any:
        """The base RTT d, or the queue's time constant λ·d when shorter (seconds)."""
        return min(1.0, self.lag) * p["d"]

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DCTCP-A] eqs. (5), (6) and (7), (7) as dq/dt = (N·W − C·d − q)/(λ·R); u = p(t − R*)."""
        W, alpha, q = x
        R = p["d"] + q / p["C"]
        dW, dalpha = source_rates(W, alpha, R, u, p["g"])
        dq = (p["N"] * W - p["C"] * p["d"] - q) / (self.lag * R)
        return (dW, dalpha, dq)


def window_fixed_point(params: DctcpParams) -> dict[str, Any]:
    """Rest point of :class:`DctcpWindowFluid` (packets, 1, packets), [DCTCP-A] eq. (15) analogue.

    With the mark held at p = 1, (5), (6) rest at W = 2, α = 1, hence q = 2N − C·d; this is self-consistent
    (q > K) exactly when w̄ = (C·d + K)/N < 2, the paper's condition. For w̄ ≥ 2 there is no rest point: the
    averaged (sliding) point on σ = 0 is W = w̄, q = K, α = sqrt(2/w̄) (p̄ = α from (6), 1 = W·α·p̄/2 from (5)),
    around which the delayed mark makes the trajectory oscillate. Returns W, alpha, q and ``kind``.
    """
    wbar = float(params.wbar)
    if wbar <= 2.0:
        q = dctcp_fixed_point_queue(params.flows, params.link.bdp)
        return {"W": 2.0, "alpha": 1.0, "q": q, "kind": "fixed point"}
    return {"W": wbar, "alpha": math.sqrt(2.0 / wbar), "q": float(params.K), "kind": "sliding average"}
