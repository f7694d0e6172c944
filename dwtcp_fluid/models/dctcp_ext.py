"""DCTCP's fluid model (5)-(8) of [DCTCP-A] with one mechanism more, each a small derived model.

* :class:`D2tcpFluid`: the cut is p = α^d instead of α, [D2TCP] eqs. (1)-(2), d the deadline imminence (a
  parameter ``dimm``; d = 1 is DCTCP). The model holds d fixed, as for a flow whose T_c/D stays in one place.
  :class:`D2tcpWindowFluid` is the same cut in the ACK-clocked model (q = N·W − C·d), the one the packet core
  follows (``packet/crosscheck_d2tcp.py``).
* :class:`DctcpLossFluid`: random loss with probability ``ploss`` per packet, folded in as a second multiplicative
  decrease: losses arrive at the rate ploss·W/R per flow and each halves the window (DCTCP reacts to a loss as
  Reno, Linux ``dctcp_react_to_loss``), so dW/dt gets −ploss·W²/(2R) ([DCTCP-WAN]'s 0.1 % loss). Honest while
  losses are rare against the once-per-window guard (ploss·W ≪ 1) and no loss ends in a timeout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..params import DctcpParams
from .dctcp import DctcpFluid, source_rates
from .dctcp_window import DctcpWindowFluid, window_queue

__all__ = ["D2tcpFluid", "D2tcpWindowFluid", "DctcpLossFluid"]


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

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """D2TCP fluid right-hand side, [DCTCP-A] eqs. (5)-(7) with p = α^d, [D2TCP] eq. (1)."""
        W, alpha, q = x
        R = p["d"] + q / p["C"]
        dW, dalpha = source_rates(W, alpha, R, u, p["g"], penalty=xp.maximum(alpha, 0 * alpha) ** p["dimm"])
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
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        **DctcpWindowFluid.sample_domain,
        "dimm": ("lin", 0.5, 2.0),
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DCTCP-A] eqs. (5), (6) with R = d + max(N·W − C·d, 0)/C and the cut α^d, [D2TCP] eq. (1)."""
        W, alpha = x
        R = p["d"] + window_queue(W, p, xp) / p["C"]
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
