"""HPCC fluid model, derived from [HPCC] Algorithm 1 (the packet law :mod:`dwtcp_fluid.packet.laws.hpcc`).

N flows share one bottleneck of capacity C (packets/s) with base RTT d (s); each runs Alg. 1 with the known base
RTT T (s; the law's T, equal to d unless stated). States: the reference window W_c (packets, per flow), the
sender's filtered utilization U (1) and the queue q (packets). The window in force follows every ACK,

    W = W_c·η/U + W_AI                                        (Alg. 1 line 13, the multiplicative branch)  (H0)

and the reference takes that value once per round trip (lines 14-15, 22-24: at the first ACK of a packet sent
after the last update, one RTT d + q/C later), so over one update W_c moves by W − W_c:

    dW_c/dt = (W − W_c)/(d + q/C) = (W_c·(η/U − 1) + W_AI)/(d + q/C)                                      (H1)

Each flow keeps W in flight over the RTT d + q/C (at most line rate), so the queue obeys

    dq/dt   = N·min(W/(d + q/C), C) − C                       (q ≥ 0: a sliding mode)                      (H2)

and the telemetry a sender reads left the bottleneck one base RTT d earlier (INT is stamped at dequeue and rides
the ACK back). Alg. 1 lines 2-9 filter the per-hop utilization u = q/(B·T) + txRate/B with weight τ/T per ACK, τ
the time between two ACKs' telemetry: over an interval dt the weights add to dt/T, so

    dU/dt   = (u(t − d) − U)/T,   u = q/(C·T) + y/C,   y = C if q > 0 else min(arrival, C)                 (H3)

Reading: the multiplicative branch (H0) holds wherever U ≥ η, which includes every fixed point (U* > η below);
maxStage's additive stages act only while U < η, a transient this model leaves out (it is the public code's
``MI_THRESH 0``). min(qlen, L.qlen) of line 5 is q for a continuous queue. The fixed point, its linearization and
the stability region are derived in ``proofs/hpcc.md`` (:mod:`dwtcp_fluid.studies.hpcc.derive`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import units
from ..params import LinkParams, check_range
from .base import FluidModel

__all__ = ["HpccFluid", "HpccParams", "hpcc_window", "seen_utilization", "fixed_point"]


def hpcc_window(Wc: Any, U: Any, p: Mapping[str, Any]) -> Any:
    """W = W_c·η/U + W_AI, eq. (H0) ([HPCC] Alg. 1 line 13)."""
    return Wc * p["eta"] / U + p["W_AI"]


def flow_rate(W: Any, q: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """One flow's sending rate min(W/(d + q/C), C) (packets/s): W in flight over the RTT, at most line rate."""
    return xp.minimum(W / (p["d"] + q / p["C"]), p["C"])


def seen_utilization(q: Any, arrival: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """u = q/(C·T) + y/C with y the link's output rate (C while q > 0), eq. (H3) ([HPCC] Alg. 1 line 5)."""
    y = xp.where(q > 0, p["C"], xp.minimum(arrival, p["C"]))
    return q / (p["C"] * p["T"]) + y / p["C"]


def fixed_point(p: Mapping[str, float]) -> dict[str, float]:
    """The fixed point of (H0)-(H3) (``proofs/hpcc.md``). With κ = N·W_AI/(C·d):

    η + κ ≤ 1: q* = 0, utilization U* = η + κ (for any T);
    η + κ > 1 and T = d: U* = η + κ, q* = N·W_AI − (1 − η)·C·d, utilization 1; for T ≠ d, r = d/T, U* is the root
    above 1 of U² + (r − 1 − η − κ·r)·U − η·(r − 1) = 0 (N·W = C·d + q, W·(U − η) = W_AI·U, U = 1 + q/(C·T)) and
    q* = C·T·(U* − 1);
    W* = W_c* = (C·d + q*)/N (q* > 0) or U*·C·d/N (q* = 0).
    """
    C, d, T, N = float(p["C"]), float(p["d"]), float(p["T"]), float(p["N"])
    eta = float(p["eta"])
    kappa = N * float(p["W_AI"]) / (C * d)
    if eta + kappa <= 1.0:
        U = eta + kappa
        return {"Wc": U * C * d / N, "U": U, "q": 0.0, "utilization": U, "kappa": kappa}
    r = d / T
    b = r - 1.0 - eta - kappa * r
    U = (-b + math.sqrt(b * b + 4.0 * eta * (r - 1.0))) / 2.0
    q = C * T * (U - 1.0)
    return {"Wc": (C * d + q) / N, "U": U, "q": q, "utilization": 1.0, "kappa": kappa}


@dataclass(frozen=True)
class HpccParams:
    """An HPCC setting.

    Parameters
    ----------
    link : LinkParams
        Capacity C, base RTT d and packet size; default 25 Gbps, 20 µs.
    flows : int
        N.
    eta : float
        Target utilization η, 0 < η ≤ 1 ([HPCC]: 0.95).
    w_ai : float or None
        W_AI in packets; None: the sizing rule N_exp·W_AI = (1 − η)·C·T with ``n_exp`` (the packet law's default).
    n_exp : float
        Expected flow count of the sizing rule (10).
    t_base : str, float or None
        The law's T ("20us" or s); None: the base RTT d.
    """

    link: LinkParams = field(default_factory=lambda: LinkParams(capacity="25Gbps", rtt="20us"))
    flows: int = 4
    eta: float = 0.95
    w_ai: float | None = None
    n_exp: float = 10.0
    t_base: str | float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "flows", int(check_range("flows", self.flows, lo=1, integer=True)))
        check_range("eta", self.eta, lo=0.0, hi=1.0, lo_open=True)
        check_range("n_exp", self.n_exp, lo=1.0)
        T = self.link.d if self.t_base is None else units.parse_time(self.t_base)
        object.__setattr__(self, "t_base", check_range("t_base", T, lo=0.0, lo_open=True, why="seconds"))
        if self.w_ai is not None:
            check_range("w_ai", self.w_ai, lo=0.0, lo_open=True, why="packets")

    @property
    def W_AI(self) -> float:
        """W_AI in packets (the sizing rule when ``w_ai`` is None)."""
        if self.w_ai is not None:
            return float(self.w_ai)
        return (1.0 - self.eta) * float(self.link.C) * float(self.t_base) / self.n_exp


@dataclass(frozen=True)
class HpccFluid(FluidModel):
    """HPCC fluid model, eqs. (H0)-(H3) of the module docstring. States: W_c (packets), U (1), q (packets)."""

    name: ClassVar[str] = "hpcc"
    states: ClassVar[tuple[str, ...]] = ("Wc", "U", "q")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "1", "packets")
    param_names: ClassVar[tuple[str, ...]] = ("C", "d", "T", "N", "eta", "W_AI")
    nonnegative_states: ClassVar[frozenset[str]] = frozenset({"q"})
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        "Wc": (1.0, 500.0),
        "U": ("lin", 0.3, 2.0),
        "q": ("lin", 0.0, 200.0),
        "C": (1e5, 1e7),
        "d": (5e-6, 1e-4),
        "T": (5e-6, 1e-4),
        "N": (1.0, 64.0),
        "eta": ("lin", 0.5, 1.0),
        "W_AI": (0.01, 5.0),
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """Eqs. (H1)-(H3) ([HPCC] Alg. 1 in fluid form)."""
        Wc, U, q = x[0], x[1], x[2]
        Wcd, Ud, qd = xd[0], xd[1], xd[2]
        W = hpcc_window(Wc, U, p)
        dWc = (W - Wc) / (p["d"] + q / p["C"])
        dq = p["N"] * flow_rate(W, q, p, xp) - p["C"]
        arrival_d = p["N"] * flow_rate(hpcc_window(Wcd, Ud, p), qd, p, xp)
        dU = (seen_utilization(qd, arrival_d, p, xp) - U) / p["T"]
        return (dWc, dU, dq)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = U − η: the multiplicative branch of [HPCC] Alg. 1 line 12 holds where σ ≥ 0 (no input is switched by it)."""
        return x[1] - p["eta"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """Telemetry delay: the base RTT d (s)."""
        return p["d"]

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {2: 0.0}

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """Queue (packets), the window in force W (packets, per flow), U, and the link utilization."""
        Wc, U, q = x[0], x[1], x[2]
        W = hpcc_window(Wc, U, p)
        arrival = p["N"] * flow_rate(W, q, p, xp)
        util = xp.where(q > 1e-9, 1.0, xp.clip(arrival / p["C"], 0.0, 1.0))
        return {"window": W, "queue": q, "utilization": util, "U": U}

    def numeric_params(self, params: HpccParams) -> dict[str, float]:
        """Floats from an :class:`HpccParams` (C in packets/s, times in s, W_AI in packets)."""
        if not isinstance(params, HpccParams):
            raise ValueError(f"params={params!r} is invalid: accepted an HpccParams")
        return {
            "C": float(params.link.C),
            "d": float(params.link.d),
            "T": float(params.t_base),
            "N": float(params.flows),
            "eta": float(params.eta),
            "W_AI": params.W_AI,
        }
