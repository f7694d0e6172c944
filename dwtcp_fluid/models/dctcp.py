"""DCTCP fluid models of [DCTCP-A], written once (see :mod:`.base`).

* :class:`DctcpFluid`: the physical model (5)-(8): state (W, α, q) in (packets, 1, packets), time in seconds,
  R(t) = d + q/C, marking p(t) = 1{q(t) > K} fed back after the fixed delay R* = d + K/C.
* :class:`DctcpNormalized`: the normalized model (11)-(14): time in units of R*, q̃ = (q − K)/(C·R*); only
  w̄ = (C·d + K)/N and g matter. With ``underflow=True`` the queue cannot go below its physical floor,
  q̃ ≥ −ψ/(1+ψ), ψ = K/(C·d) (section 3.3.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..params import MODEL_BOUNDS, Bound, DctcpParams
from .base import FluidModel

__all__ = ["DctcpFluid", "DctcpNormalized", "source_rates"]


def source_rates(W: Any, alpha: Any, R: Any, u: Any, g: Any, penalty: Any = None) -> tuple[Any, Any]:
    """dW/dt and dα/dt of a DCTCP source with round-trip time R and delayed mark u, [DCTCP-A] eqs. (5), (6).

    W in packets, R in seconds (or the caller's time unit), g the EWMA gain; every DCTCP model calls this.
    ``penalty`` is the fraction p of the cut W(1 − p/2) per marked window: α for DCTCP (default), α^d for
    [D2TCP] eq. (1).
    """
    dW = 1 / R - W * (alpha if penalty is None else penalty) / (2 * R) * u
    dalpha = g / R * (u - alpha)
    return dW, dalpha


@dataclass(frozen=True)
class DctcpFluid(FluidModel):
    """DCTCP fluid model, [DCTCP-A] eqs. (5)-(8).

    Parameters
    ----------
    queue_floor : bool
        Physical queue q ≥ 0 (a sliding mode while N·W/R < C). The paper's equations omit it.
    """

    param_bounds: ClassVar[Mapping[str, Bound] | None] = MODEL_BOUNDS

    queue_floor: bool = True

    name: ClassVar[str] = "dctcp"
    states: ClassVar[tuple[str, ...]] = ("W", "alpha", "q")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "1", "packets")
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "K", "g", "N")
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        "W": (1.0, 1e3),
        "alpha": ("lin", 0.0, 1.0),
        "q": ("lin", 0.0, 1e3),
        "C": (1e4, 1e7),
        "d": (1e-5, 1e-2),
        "K": (1.0, 500.0),
        "g": (1e-3, 1.0),
        "N": (1.0, 1e3),
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """DCTCP fluid right-hand side, [DCTCP-A] eqs. (5)-(7); u = p(t − R*)."""
        W, alpha, q = x
        R = p["d"] + q / p["C"]
        dW, dalpha = source_rates(W, alpha, R, u, p["g"])
        dq = p["N"] * W / R - p["C"]
        return (dW, dalpha, dq)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q − K: marking p = 1{q > K}, [DCTCP-A] eq. (8)."""
        return x[2] - p["K"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """R* = d + K/C (seconds)."""
        return p["d"] + p["K"] / p["C"]

    def step_scale(self, p: Mapping[str, Any]) -> Any:
        """The base RTT d (seconds): with the queue near its floor R = d + q/C ≈ d sets the rates 1/R of (5), (6),
        however long the feedback delay R* = d + K/C is (K/C ≫ d). Even when that lasts only the first RTTs: at
        d = 1 ns, K = 65, steps of 61 and 122 ns agree with each other to 1e-5 packets yet are 53 packets off the
        reference there (no step-doubling check sees an error when no step resolves the time scale), so a tiny
        d gives a tiny step, and a long span is refused before any work (the JAX solver's step budget)."""
        return p["d"]

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {2: 0.0} if self.queue_floor else {}

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """Floats for :meth:`rhs` (C in packets/s, d in s, K in packets)."""
        return {
            "C": float(params.link.C),
            "d": float(params.link.d),
            "K": float(params.K),
            "g": float(params.g),
            "N": float(params.flows),
        }


@dataclass(frozen=True)
class DctcpNormalized(FluidModel):
    """Normalized DCTCP model, [DCTCP-A] eqs. (11)-(14) (time in units of R*).

    Parameters
    ----------
    underflow : bool
        Apply the queue floor q̃ ≥ −ψ/(1+ψ) of section 3.3.2 (needs the parameter ``psi``). The paper's limit-cycle
        analysis (sections 3.2-3.3.1) runs without it.
    """

    param_bounds: ClassVar[Mapping[str, Bound] | None] = MODEL_BOUNDS

    underflow: bool = False

    name: ClassVar[str] = "dctcp-normalized"
    states: ClassVar[tuple[str, ...]] = ("W", "alpha", "q")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "1", "C·R*")
    param_names: ClassVar[tuple[str, ...]] = ("wbar", "g", "psi")
    time_unit: ClassVar[str] = "R*"
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        "W": (0.1, 1e2),
        "alpha": ("lin", 0.0, 1.0),
        "q": ("lin", -0.9, 5.0),
        "wbar": (0.5, 1e3),
        "g": (1e-3, 1.0),
        "psi": (1e-3, 1.0),
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """Normalized right-hand side, [DCTCP-A] eqs. (11)-(13); u = p̃(t − 1)."""
        W, alpha, q = x
        dW = 1 / (1 + q) * (1 - W * alpha / 2 * u)
        dalpha = p["g"] / (1 + q) * (u - alpha)
        dq = W / (p["wbar"] * (1 + q)) - 1
        return (dW, dalpha, dq)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q̃: p̃ = 1{q̃ > 0}, [DCTCP-A] eq. (14)."""
        return x[2]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """The feedback delay is 1 (one R*) in normalized time."""
        return 1.0

    def step_scale(self, p: Mapping[str, Any]) -> Any:
        """The base RTT d/R* = 1/(1 + ψ) in normalized time: the RTT 1 + q̃ reaches it at the physical floor."""
        return 1.0 / (1.0 + p["psi"])

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """q̃ ≥ −ψ/(1+ψ) (q ≥ 0) when ``underflow`` is set, section 3.3.2 of [DCTCP-A]."""
        return {2: -p["psi"] / (1 + p["psi"])} if self.underflow else {}

    def capacity(self, p: Mapping[str, Any]) -> Any:
        """The link carries 1 (C·R* packets per R*) in normalized units: (13) is q̃' = arrivals − 1."""
        return 1.0

    def numeric_params(self, params: DctcpParams) -> dict[str, float]:
        """w̄, g and ψ from a :class:`~dwtcp_fluid.params.DctcpParams`."""
        return {"wbar": float(params.wbar), "g": float(params.g), "psi": float(params.psi)}
