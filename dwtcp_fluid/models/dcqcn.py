"""DCQCN fluid model: [DCQCN] §4 (eqs. (5)-(9)), the model [ECN-OR-DELAY] §3 linearizes.

N identical flows of current rate R_C and target rate R_T (packets/s), the RP's α (1), and the bottleneck queue q
(packets). The CP marks with the RED-like probability p(q) ([DCQCN] eq. (5)): 0 up to K_min, P_max·(q − K_min)/
(K_max − K_min) up to K_max, 1 above (the jump at K_max is the model's switching surface). The feedback reaches the sender τ* later (the base RTT d here); with
p = p(q(t − τ*)) and R = R_C(t − τ*):

    dq/dt    = N·R_C − C                                                                   (q ≥ 0)   (D1)
    dα/dt    = g/τ'·((1 − (1 − p)^{τ'R}) − α)                                                       (D2)
    dR_T/dt  = −(R_T − R_C)/τ·(1 − (1 − p)^{τR})
               + R_AI·R·p·(1 − p)^{F·B}/((1 − p)^{−B} − 1)
               + R_AI·R·p·(1 − p)^{F·T·R}/((1 − p)^{−T·R} − 1)                                      (D3)
    dR_C/dt  = −R_C·α/(2τ)·(1 − (1 − p)^{τR})
               + (R_T − R_C)/2·R·p/((1 − p)^{−B} − 1)
               + (R_T − R_C)/2·R·p/((1 − p)^{−T·R} − 1)                                              (D4)

1 − (1 − p)^{τR} is the chance that a CNP interval τ holds a mark (CNPs per second: that over τ); R·p/((1 − p)^{−B}
− 1) is the rate of byte-counter expiries (B packets without a mark) and (1 − p)^{F·B} the share of them past the
F fast-recovery stages (additive increase); the timer T enters the same way with T·R packets per period. Hyper
increase is left out, as in [DCQCN] §4. The one clamp of :meth:`DcqcnFluid.rhs` (p kept in [p_lo, 1 − p_lo]) has the unclamped value as its first argument and every ``where`` its interior case
(K_min < q ≤ K_max) last, so :data:`INTERIOR_NS` evaluates the smooth equations the derivation linearizes
(``proofs/dcqcn.md``).
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import sympy as sp

from .. import units
from ..params import LinkParams, check_range
from .base import FluidModel

__all__ = ["DcqcnFluid", "DcqcnParams", "marking", "INTERIOR_NS", "P_LO"]

#: Smallest marking probability the numeric right-hand side uses (p/((1 − p)^{−B} − 1) is 0/0 at p = 0; at p_lo it
#: is 1/B to a relative 1e-6 for B below 10⁴ packets).
P_LO = 1e-10


def marking(q: Any, p: Mapping[str, Any], xp: Any, above: Any = None) -> Any:
    """[DCQCN] eq. (5): the CP's marking probability of a queue of q packets. ``above``: the queue is above K_max
    (the switch input u of :class:`DcqcnFluid`, so that the solvers place the jump to 1 exactly); None: q > K_max.
    The interior ramp is the last case of each ``where`` and the first argument of each clamp."""
    ramp = p["P_max"] * (q - p["K_min"]) / (p["K_max"] - p["K_min"])
    up = q > p["K_max"] if above is None else above > 0
    return xp.where(up, 1.0 + 0 * q, xp.maximum(ramp, 0 * q))


def _pow1m(pm: Any, n: Any, xp: Any) -> Any:
    """(1 − p)^n = exp(n·log(1 − p)) for n ≥ 0 (in (0, 1]: no overflow)."""
    return xp.exp(n * xp.log(1 - pm))


def _expiries(R: Any, pm: Any, n: Any, xp: Any) -> Any:
    """R·p/((1 − p)^{−n} − 1) = R·p·(1 − p)^n/(1 − (1 − p)^n): expiries per second of a counter of n packets
    without a mark ([DCQCN] §4), written with (1 − p)^n ≤ 1."""
    e = _pow1m(pm, n, xp)
    return R * pm * e / (1 - e)


#: The SymPy namespace of the interior regime: clamps return their first argument, ``where`` its last.
INTERIOR_NS = types.SimpleNamespace(
    exp=sp.exp,
    log=sp.log,
    sqrt=sp.sqrt,
    maximum=lambda a, b: a,
    minimum=lambda a, b: a,
    where=lambda c, a, b: b,
    abs=sp.Abs,
)


@dataclass(frozen=True)
class DcqcnParams:
    """A DCQCN setting; defaults are [DCQCN]'s (the packet law's, :func:`~dwtcp_fluid.packet.laws.dcqcn.dcqcn_params`).

    Parameters
    ----------
    link : LinkParams
        Capacity, base RTT d (the feedback delay τ*) and packet size; default 40 Gbps, 20 µs.
    flows : int
        N.
    g : float
        α gain.
    cnp_interval, alpha_timer, inc_timer : str or float
        τ (NP's CNP interval), τ' (α timer) and T (increase timer), times.
    byte_counter : float
        B, bytes.
    fast_recovery : int
        F.
    r_ai : str or float
        R_AI, a rate.
    k_min, k_max : float
        CP thresholds, bytes.
    p_max : float
        CP P_max.
    """

    link: LinkParams = field(default_factory=lambda: LinkParams(capacity="40Gbps", rtt="20us"))
    flows: int = 2
    g: float = 1.0 / 256.0
    cnp_interval: str | float = "50us"
    alpha_timer: str | float = "55us"
    inc_timer: str | float = "55us"
    byte_counter: float = 10e6
    fast_recovery: int = 5
    r_ai: str | float = "40Mbps"
    k_min: float = 5e3
    k_max: float = 200e3
    p_max: float = 0.01

    def __post_init__(self) -> None:
        check_range("flows", self.flows, lo=1, hi=100000, integer=True)
        check_range("g", self.g, lo=0.0, hi=1.0, lo_open=True)
        for k in ("cnp_interval", "alpha_timer", "inc_timer"):
            v = getattr(self, k)
            t = units.parse_time(v) if isinstance(v, str) else float(v)
            object.__setattr__(self, k, check_range(k, t, lo=0.0, lo_open=True, why="seconds"))
        check_range("byte_counter", self.byte_counter, lo=0.0, lo_open=True, why="bytes")
        check_range("fast_recovery", self.fast_recovery, lo=0, hi=1000, integer=True)
        v = self.r_ai
        bps = units.parse_rate(v).bps(self.link.L) if isinstance(v, str) else float(v)
        object.__setattr__(self, "r_ai", check_range("r_ai", bps, lo=0.0, lo_open=True, why="bits/s"))
        check_range("k_min", self.k_min, lo=0.0, why="bytes")
        check_range("k_max", self.k_max, lo=self.k_min, lo_open=True, why="bytes, above k_min")
        check_range("p_max", self.p_max, lo=0.0, hi=1.0, lo_open=True)

    def replace(self, **kw: Any) -> DcqcnParams:
        """A copy with fields replaced."""
        from dataclasses import replace

        return replace(self, **kw)


@dataclass(frozen=True)
class DcqcnFluid(FluidModel):
    """[DCQCN]'s fluid model, eqs. (D1)-(D4) of the module docstring. States: R_C, R_T (packets/s), α (1), q
    (packets)."""

    name: ClassVar[str] = "dcqcn"
    states: ClassVar[tuple[str, ...]] = ("R_C", "R_T", "alpha", "q")
    state_units: ClassVar[tuple[str, ...]] = ("packets/s", "packets/s", "1", "packets")
    param_names: ClassVar[tuple[str, ...]] = (
        "C", "d", "N", "g", "tau", "tau_a", "T", "B", "F", "R_AI", "K_min", "K_max", "P_max", "R_min",
    )  # fmt: skip
    nonnegative_states: ClassVar[frozenset[str]] = frozenset({"alpha", "q"})
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        "R_C": (1e5, 5e6),
        "R_T": (1e5, 5e6),
        "alpha": ("lin", 0.01, 1.0),
        "q": ("lin", 20.0, 100.0),
        "C": (1e6, 1e7),
        "d": (5e-6, 1e-4),
        "N": ("lin", 1.0, 64.0),
        "g": (1e-3, 0.1),
        "tau": (1e-5, 1e-4),
        "tau_a": (1e-5, 1e-4),
        "T": (1e-5, 1e-4),
        "B": (1e2, 1e4),
        "F": ("lin", 1.0, 5.0),
        "R_AI": (1e3, 1e4),
        "K_min": ("lin", 1.0, 4.0),
        "K_max": ("lin", 110.0, 150.0),
        "P_max": (1e-2, 0.1),
        "R_min": (1e2, 1e3),
    }

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """Eqs. (D1)-(D4) ([DCQCN] §4); above K_max (u = 1) their limit p → 1: a CNP every τ, no expiries."""
        rc, rt, alpha, q = x
        R = xd[0]
        ramp = p["P_max"] * (xd[3] - p["K_min"]) / (p["K_max"] - p["K_min"])
        pm = xp.minimum(xp.maximum(ramp, P_LO), 1 - P_LO)
        tau, tau_a, T, B, F = p["tau"], p["tau_a"], p["T"], p["B"], p["F"]
        cnp = 1 - _pow1m(pm, tau * R, xp)
        ev_b = _expiries(R, pm, B, xp)
        ev_t = _expiries(R, pm, T * R, xp)
        d_alpha = p["g"] / tau_a * ((1 - _pow1m(pm, tau_a * R, xp)) - alpha)
        ai = ev_b * _pow1m(pm, F * B, xp) + ev_t * _pow1m(pm, F * T * R, xp)
        d_rt = -(rt - rc) / tau * cnp + p["R_AI"] * ai
        d_rc = -rc * alpha / (2 * tau) * cnp + (rt - rc) / 2 * (ev_b + ev_t)
        up = u > 0
        d_alpha = xp.where(up, p["g"] / tau_a * (1 - alpha), d_alpha)
        d_rt = xp.where(up, -(rt - rc) / tau, d_rt)
        d_rc = xp.where(up, -rc * alpha / (2 * tau), d_rc)
        d_q = p["N"] * rc - p["C"] + 0 * q
        return (d_rc, d_rt, d_alpha, d_q)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q − K_max: above it the CP marks every packet (the jump of p(q) from P_max to 1, [DCQCN] eq. (5));
        the input u = 1{σ(x(t − τ*)) > 0} selects it in :meth:`rhs`."""
        return x[3] - p["K_max"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """Feedback delay τ* = d (s), the base RTT (queueing delay frozen out, as in [DCQCN] §4)."""
        return p["d"]

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {0: p["R_min"], 1: p["R_min"], 3: 0.0}

    def ceilings(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """Both rates at most the line rate C."""
        return {0: p["C"], 1: p["C"]}

    def step_scale(self, p: Mapping[str, Any]) -> float | None:
        """A quarter of the smallest of the delay, τ, τ' and T (s): a cut moves R_C by up to R_C·α/(2τ) per second,
        which a step of that size resolves."""
        return min(float(p["d"]), float(p["tau"]), float(p["tau_a"]), float(p["T"])) / 4

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """Queue (packets), per-flow current rate R_C as ``window`` (packets/s), α, utilization N·R_C/C (held at
        1 while the queue is above its floor)."""
        q = x[3]
        util = xp.where(q > 1e-9, 1.0 + 0 * q, xp.clip(p["N"] * x[0] / p["C"], 0.0, 1.0))
        return {"window": x[0], "alpha": x[2], "queue": q, "utilization": util}

    def numeric_params(self, params: DcqcnParams) -> dict[str, float]:
        """Floats from a :class:`DcqcnParams` (rates in packets/s, times in s, B, K_min, K_max in packets)."""
        if not isinstance(params, DcqcnParams):
            raise ValueError(f"params={params!r} is invalid: accepted a DcqcnParams")
        P = params
        L = float(P.link.L)
        return {
            "C": float(P.link.C),
            "d": float(P.link.d),
            "N": float(P.flows),
            "g": float(P.g),
            "tau": float(P.cnp_interval),
            "tau_a": float(P.alpha_timer),
            "T": float(P.inc_timer),
            "B": float(P.byte_counter) / L,
            "F": float(P.fast_recovery),
            "R_AI": float(P.r_ai) / (8.0 * L),
            "K_min": float(P.k_min) / L,
            "K_max": float(P.k_max) / L,
            "P_max": float(P.p_max),
            "R_min": 10e6 / (8.0 * L),
        }
