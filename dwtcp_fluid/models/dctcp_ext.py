"""DCTCP's fluid model (5)-(8) of [DCTCP-A] with one mechanism more, each a small derived model.

* :class:`D2tcpFluid`: the cut is p = α^d instead of α, [D2TCP] eqs. (1)-(2), d the deadline imminence (a
  parameter ``dimm``; d = 1 is DCTCP). The model holds d fixed, as for a flow whose T_c/D stays in one place.
  :class:`D2tcpWindowFluid` is the same cut in the ACK-clocked model (q = N·W − C·d), the one the packet core
  follows (``studies/d2tcp/checks.py``).
* :class:`DctcpLossFluid`: random loss with probability ``ploss`` per packet, folded in as a second multiplicative
  decrease: losses arrive at the rate ploss·W/R per flow and each halves the window (DCTCP reacts to a loss as
  Reno, Linux ``dctcp_react_to_loss``), so dW/dt gets −ploss·W²/(2R) ([DCTCP-WAN]'s 0.1 % loss). Honest while
  losses are rare against the once-per-window guard (ploss·W ≪ 1) and no loss ends in a timeout.
* :class:`DctcpDelackFluid`: delayed ACKs (one ACK per m packets) with DCTCP's two-state ECE receiver and byte
  counting, folded into the ACK-clocked model ([DCTCP-WAN]'s m = 2; ``proofs/dctcp_delack.md``): the increase
  stays 1/R (each ACK of m packets adds m/W), α keeps estimating the marked fraction (every ACK covers packets of
  one CE state), the receiver holds (m − 1)/2 packets per flow on average (q = N·(W − h) − C·d) and a CE change
  reaches the sender (m − 1) packet spacings later (R* + (m − 1)·N/C).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..params import DctcpParams
from .dctcp import DctcpFluid, source_rates
from .dctcp_window import DctcpWindowFluid, window_queue

__all__ = ["D2tcpFluid", "D2tcpWindowFluid", "DctcpLossFluid", "DctcpDelackFluid", "held_packets"]


@dataclass(frozen=True)
class D2tcpFluid(DctcpFluid):
    """D2TCP fluid model: [DCTCP-A] eqs. (5)-(8) with the penalty α^d of [D2TCP] eq. (1).

    Parameters
    ----------
    queue_floor : bool
        Physical queue q ≥ 0 (as :class:`~dwtcp_fluid.models.DctcpFluid`).
    imminence : float
        The d that :meth:`numeric_params` adds to a :class:`~dwtcp_fluid.params.DctcpParams` (a mapping gives
        ``dimm`` itself); [D2TCP] caps it to [0.5, 2].
    """

    imminence: float = 1.0

    name: ClassVar[str] = "d2tcp"
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "K", "g", "N", "dimm")
    sample_domain: ClassVar[Mapping[str, tuple]] = {**DctcpFluid.sample_domain, "dimm": ("lin", 0.5, 2.0)}
    nonnegative_states: ClassVar[frozenset[str]] = frozenset({"alpha"})

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """D2TCP fluid right-hand side, [DCTCP-A] eqs. (5)-(7) with p = α^d, [D2TCP] eq. (1).

        α^d is taken of max(α, 0): α ∈ [0, 1] is invariant, but a solver's rounding after a start from α = 0 can
        leave it a hair below 0, where a fractional power is NaN (the derivations declare α nonnegative, so the
        guard is α itself there)."""
        W, alpha, q = x
        R = p["d"] + q / p["C"]
        pen = xp.maximum(alpha, 0 * alpha) ** p["dimm"]
        dW, dalpha = source_rates(W, alpha, R, u, p["g"], penalty=pen)
        return (dW, dalpha, p["N"] * W / R - p["C"])

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """DCTCP's parameters and ``dimm`` = :attr:`imminence`."""
        return {**super().numeric_params(params), "dimm": float(self.imminence)}


@dataclass(frozen=True)
class D2tcpWindowFluid(DctcpWindowFluid):
    """ACK-clocked D2TCP fluid model: [DCTCP-A] eqs. (5), (6) with q = max(N·W − C·d, 0) and the penalty α^d of
    [D2TCP] eq. (1); d = 1 is :class:`~dwtcp_fluid.models.DctcpWindowFluid`.

    Parameters
    ----------
    imminence : float
        The d that :meth:`numeric_params` adds (``dimm``).
    """

    imminence: float = 1.0

    name: ClassVar[str] = "d2tcp-window"
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "K", "g", "N", "dimm")
    nonnegative_states: ClassVar[frozenset[str]] = frozenset({"alpha"})
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        **DctcpWindowFluid.sample_domain,
        "dimm": ("lin", 0.5, 2.0),
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DCTCP-A] eqs. (5), (6) with R = d + max(N·W − C·d, 0)/C and the cut α^d, [D2TCP] eq. (1)."""
        W, alpha = x
        R = p["d"] + window_queue(W, p, xp) / p["C"]
        # α ≥ 0 exactly, but the reference solver's event location can step a rounding error below 0 at the start
        # from α = 0, where α^d (d < 1) would be NaN
        return source_rates(W, alpha, R, u, p["g"], penalty=xp.maximum(alpha, 0 * alpha) ** p["dimm"])

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """DCTCP's parameters and ``dimm`` = :attr:`imminence`."""
        return {**super().numeric_params(params), "dimm": float(self.imminence)}


@dataclass(frozen=True)
class DctcpLossFluid(DctcpFluid):
    """DCTCP fluid model with random loss as a second multiplicative decrease, [DCTCP-A] eq. (5) plus
    −ploss·W²/(2R) (losses at the rate ploss·W/R, each halving W).

    Parameters
    ----------
    queue_floor : bool
        Physical queue q ≥ 0 (as :class:`~dwtcp_fluid.models.DctcpFluid`).
    loss : float
        The ``ploss`` :meth:`numeric_params` adds to a :class:`~dwtcp_fluid.params.DctcpParams`.
    """

    loss: float = 0.0

    name: ClassVar[str] = "dctcp-loss"
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "K", "g", "N", "ploss")
    sample_domain: ClassVar[Mapping[str, tuple]] = {**DctcpFluid.sample_domain, "ploss": ("lin", 0.0, 0.01)}

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DCTCP-A] eqs. (5)-(7) with the loss term −ploss·W²/(2R) in (5)."""
        W, alpha, q = x
        R = p["d"] + q / p["C"]
        dW, dalpha = source_rates(W, alpha, R, u, p["g"])
        return (dW - p["ploss"] * W * W / (2 * R), dalpha, p["N"] * W / R - p["C"])

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """DCTCP's parameters and ``ploss`` = :attr:`loss`."""
        return {**super().numeric_params(params), "ploss": float(self.loss)}


def held_packets(m: Any) -> Any:
    """h = (m − 1)/2: packets a delayed-ACK receiver holds per flow on average (its count of unacknowledged packets
    runs 0, 1, …, m − 1 evenly when packets arrive evenly spaced)."""
    return (m - 1) / 2


@dataclass(frozen=True)
class DctcpDelackFluid(DctcpWindowFluid):
    """ACK-clocked DCTCP with delayed ACKs (one per m packets, DCTCP's two-state ECE receiver, byte counting):
    [DCTCP-A] eqs. (5), (6) unchanged, q = max(N·(W − h) − C·d, 0) with h = (m − 1)/2, and the mark fed back
    after R* + (m − 1)·N/C ([DCTCP-WAN]'s m = 2; derivation in ``proofs/dctcp_delack.md``).

    Honest while packets of a flow arrive evenly (h is then the time-average held count), W ≫ m (at W ≲ m the
    receiver waits for its timeout and the ACK clock stalls), and (m − 1)·N/C is well below the delayed-ACK timeout.
    Neither a receiver without the two-state machine (α then estimates the fraction of ACKs with a mark, not of
    packets) nor a sender without byte counting (increase 1/(m·R)) is modelled: the packet core has neither.

    Parameters
    ----------
    acks : int
        m ≥ 1, packets per ACK (1: no delayed ACKs, exactly :class:`~dwtcp_fluid.models.DctcpWindowFluid`).
    """

    acks: int = 2

    name: ClassVar[str] = "dctcp-delack"
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "K", "g", "N", "m")
    sample_domain: ClassVar[Mapping[str, tuple]] = {**DctcpWindowFluid.sample_domain, "m": ("lin", 1.0, 4.0)}

    def _queue(self, W: Any, p: Mapping[str, Any], xp: Any) -> Any:
        return xp.maximum(p["N"] * (W - held_packets(p["m"])) - p["C"] * p["d"], 0 * W)

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DCTCP-A] eqs. (5), (6) (byte counting keeps the increase 1/R) with R = d + q/C, q = N·(W − h) − C·d."""
        W, alpha = x
        return source_rates(W, alpha, p["d"] + self._queue(W, p, xp) / p["C"], u, p["g"])

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = N·(W − h) − C·d − K (packets): the queue above K, [DCTCP-A] eq. (8)."""
        return p["N"] * (x[0] - held_packets(p["m"])) - p["C"] * p["d"] - p["K"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """R* + (m − 1)·N/C (s): a CE change waits for m − 1 more packets of the flow, each R*/w̄ = N/C apart."""
        return p["d"] + p["K"] / p["C"] + (p["m"] - 1) * p["N"] / p["C"]

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """DCTCP's parameters and ``m`` = :attr:`acks`."""
        return {**super().numeric_params(params), "m": float(self.acks)}

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """Queue N·(W − h) − C·d; the link is busy while N·(W − h) ≥ C·d."""
        W, alpha = x
        busy = p["N"] * (W - held_packets(p["m"])) / (p["C"] * p["d"])
        return {
            "queue": self._queue(W, p, xp),
            "window": W,
            "alpha": alpha,
            "utilization": xp.minimum(busy, 1.0),
        }
