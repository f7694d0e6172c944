"""Swift fluid model, derived from the packet law :mod:`dwtcp_fluid.packet.laws.swift` ([Swift] Algorithm 1, §3.5).

Flow group i has N_i flows of window w_i (packets, fractional); q is the bottleneck queue (packets). A packet's RTT
is τ(q) = d + (q + 1)/C (d the base RTT, one packet's own transmission 1/C, the queue q/C); the delay a flow
measures now is the RTT of the packet it sent one base RTT ago, D(t) = τ(q(t − d)). The target is
T_i = T_0 + fs(w_i) with T_0 = base_target + hops·h and fs [Swift] §3.5's flow-count scaling
(:func:`~dwtcp_fluid.formulas.swift_flow_scaling`). Per unit time:

    dq/dt   = Σ_i N_i·w_i/τ(q) − C                                  (q ≥ 0: a sliding mode)          (S1)
    dw_i/dt = ai·min(w_i, 1)/τ(q)                                   D < T_i                           (S2)
            = −w_i·min(β·(D − T_i)/D, max_mdf)/D                    D ≥ T_i

(S2) is Algorithm 1 averaged over ACKs: an ACK arrives every τ/w_i; below the target each adds ai/w_i (w_i ≥ 1)
or ai (w_i < 1, a paced sender), i.e. ai·min(w_i, 1)/τ per unit time; at or above it the window falls by the
factor max(1 − β(D − T)/D, 1 − max_mdf) at most once per RTT, i.e. once every D. Below one packet the paced
sender's rate w_i/D equals the window sender's w_i/τ at a steady queue, so (S1) holds on both sides of w = 1.
The switch D ⋛ T_i is Swift's own per-ACK test, read from the delayed state (not a DCTCP-style marking input),
so :meth:`SwiftFluid.surface` only reports it. The target is computed from the window one base RTT late,
T_i = T_0 + fs(w_i(t − d)): with the current window the switch would also act on w_i itself with no delay, and
the model would slide along D = T(w_i) (a chattering solution); the window moves by at most ai per RTT, so the
lag changes T by fs′(w)·ai at most.

Fixed point (``proofs/swift.md``): every flow sees the same D, so the sliding mode D = T_i makes every window
equal, w* = C·T*/N (N = Σ N_i; T* = τ(q*)), and the queue sits at its target, q* = C·(T* − d) − 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import units
from ..formulas import swift_flow_scaling
from ..params import LinkParams, check_range
from .base import FluidModel

__all__ = [
    "SwiftFluid",
    "SwiftParams",
    "swift_window_rate",
    "swift_increase_rate",
    "swift_decrease_rate",
    "swift_target",
]

#: htsim's base target (s) from which its per-hop scale and flow-scaling range are derived (``sim/swift.cpp``).
HTSIM_BASE = 20e-6


def swift_target(w: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """T = T_0 + fs(w), [Swift] §3.5 (s)."""
    return p["T0"] + swift_flow_scaling(w, p["fs_range"], p["fs_min"], p["fs_max"], xp)


def swift_increase_rate(w: Any, tau: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """dw/dt below the target, eq. (S2): ai/w per ACK (ai per ACK below one packet), an ACK every τ/w."""
    return p["ai"] * xp.minimum(w, 1.0) / tau


def swift_decrease_rate(w: Any, w_seen: Any, D: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """dw/dt at or above the target T(w_seen), eq. (S2): the factor max(1 − β(D − T)/D, 1 − max_mdf) once per
    measured delay D."""
    T = swift_target(w_seen, p, xp)
    return -w * xp.minimum(p["beta"] * (D - T) / D, p["mdf"]) / D


def swift_window_rate(w: Any, w_seen: Any, tau: Any, D: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """dw/dt of one Swift flow, eq. (S2): the increase below its target T(w_seen), the decrease at or above it
    (``tau`` the RTT of the ACK clock, ``D`` the measured delay, both s; ``w_seen`` the window the target is
    computed from, one base RTT late)."""
    T = swift_target(w_seen, p, xp)
    return xp.where(D < T, swift_increase_rate(w, tau, p, xp), swift_decrease_rate(w, w_seen, D, p, xp))


@dataclass(frozen=True)
class SwiftParams:
    """A Swift setting (defaults: htsim's values, the packet law's; see :mod:`dwtcp_fluid.packet.laws.swift`).

    Parameters
    ----------
    link : LinkParams
        Capacity, base RTT d and packet size (default 10 Gbps, 20 µs).
    flows : tuple of int
        Flows per group N_i.
    ai, beta, max_mdf : float
        Additive increment (packets per RTT), decrease constant, largest decrease factor.
    base_target : str, float or None
        Base target delay ("25us" or s); None: the unloaded RTT d + 1/C (the packet law's default).
    h : str or float
        Per-hop target scaling (htsim: 20 µs/6.55); ``hops`` hops (1).
    fs_range : str or float
        Flow-scaling range (htsim: 100 µs); ``fs_min_cwnd``, ``fs_max_cwnd`` in packets (0.1, 100).
    min_cwnd : float or None
        Window floor (packets); None: 10 bytes (htsim).
    """

    link: LinkParams = field(default_factory=lambda: LinkParams(capacity="10Gbps", rtt="20us"))
    flows: tuple[int, ...] = (10,)
    ai: float = 1.0
    beta: float = 0.8
    max_mdf: float = 0.5
    base_target: str | float | None = None
    h: str | float = HTSIM_BASE / 6.55
    hops: float = 1.0
    fs_range: str | float = 5 * HTSIM_BASE
    fs_min_cwnd: float = 0.1
    fs_max_cwnd: float = 100.0
    min_cwnd: float | None = None

    def __post_init__(self) -> None:
        flows = tuple(int(check_range("flows", n, lo=1, integer=True)) for n in self.flows)
        if not flows:
            raise ValueError(f"flows={self.flows!r} is invalid: accepted a non-empty tuple of flow counts")
        object.__setattr__(self, "flows", flows)
        check_range("ai", self.ai, lo=0.0, lo_open=True)
        check_range("beta", self.beta, lo=0.0, lo_open=True)
        check_range("max_mdf", self.max_mdf, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        check_range("hops", self.hops, lo=0.0)
        check_range("fs_max_cwnd", self.fs_max_cwnd, lo=0.0, lo_open=True)
        check_range("fs_min_cwnd", self.fs_min_cwnd, lo=0.0, hi=self.fs_max_cwnd, lo_open=True, hi_open=True)
        if self.base_target is None:
            object.__setattr__(self, "base_target", self.link.d + 1.0 / self.link.C)
        if self.min_cwnd is None:
            object.__setattr__(self, "min_cwnd", 10.0 / self.link.L)
        check_range("min_cwnd", self.min_cwnd, lo=0.0, lo_open=True)
        for k in ("base_target", "h", "fs_range"):
            v = check_range(k, units.parse_time(getattr(self, k)), lo=0.0, why="seconds")
            object.__setattr__(self, k, v)

    def law_params(self) -> dict[str, float]:
        """The same setting as the packet law's parameters (slots, packets): what a cross-check passes to both."""
        slot = 1.0 / float(self.link.C)
        return {
            "ai": float(self.ai),
            "beta": float(self.beta),
            "max_mdf": float(self.max_mdf),
            "base_target": float(self.base_target) / slot,
            "h": float(self.h) / slot,
            "hops": float(self.hops),
            "fs_range": float(self.fs_range) / slot,
            "fs_min_cwnd": float(self.fs_min_cwnd),
            "fs_max_cwnd": float(self.fs_max_cwnd),
            "min_cwnd": float(self.min_cwnd),
        }


@dataclass(frozen=True)
class SwiftFluid(FluidModel):
    """Swift fluid model, eqs. (S1)-(S2) of the module docstring.

    Parameters
    ----------
    groups : int
        Flow groups m ≥ 1. States: w_1..w_m (packets), q (packets).
    """

    groups: int = 1

    name: ClassVar[str] = "swift"  # type: ignore[misc]
    time_unit: ClassVar[str] = "s"
    nonnegative_states: ClassVar[frozenset[str]] = frozenset({"q"})

    def __post_init__(self) -> None:
        if not (isinstance(self.groups, int) and self.groups >= 1):
            raise ValueError(f"groups={self.groups!r} is out of range: accepted an integer >= 1")

    @property
    def states(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(f"w_{i + 1}" for i in range(self.groups)) + ("q",)

    @property
    def state_units(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("packets",) * (self.groups + 1)

    @property
    def param_names(self) -> tuple[str, ...]:  # type: ignore[override]
        base = ("C", "d", "ai", "beta", "mdf", "T0", "fs_range", "fs_min", "fs_max", "w_min")
        return base + tuple(f"N_{i + 1}" for i in range(self.groups))

    @property
    def sample_domain(self) -> Mapping[str, tuple]:  # type: ignore[override]
        out: dict[str, tuple] = {
            "q": ("lin", 0.0, 200.0),
            "C": (1e5, 1e7),
            "d": (5e-6, 1e-4),
            "ai": (0.1, 5.0),
            "beta": ("lin", 0.1, 2.0),
            "mdf": ("lin", 0.1, 0.9),
            "T0": (1e-4, 3e-4),
            "fs_range": (1e-5, 2e-4),
            "fs_min": (0.01, 0.5),
            "fs_max": (20.0, 200.0),
            "w_min": (1e-3, 1e-2),
        }
        for i in range(self.groups):
            out.update({f"w_{i + 1}": (0.05, 200.0), f"N_{i + 1}": (1.0, 64.0)})
        return out

    def rtt(self, q: Any, p: Mapping[str, Any]) -> Any:
        """τ(q) = d + (q + 1)/C (s): base RTT, the packet's own transmission, the queue."""
        return p["d"] + (q + 1.0) / p["C"]

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """Eqs. (S1)-(S2) of the module docstring ([Swift] Algorithm 1 in fluid form)."""
        m = self.groups
        w, q, wd, qd = x[:m], x[m], xd[:m], xd[m]
        tau = self.rtt(q, p)
        D = self.rtt(qd, p)
        dw = tuple(swift_window_rate(w[i], wd[i], tau, D, p, xp) for i in range(m))
        dq = sum(p[f"N_{i + 1}"] * w[i] for i in range(m)) / tau - p["C"]
        return dw + (dq,)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = τ(q) − T_1: group 1's delay above its target, [Swift] Algorithm 1's decrease condition (reported,
        not a switching input: (S2) reads the delayed queue itself)."""
        return self.rtt(x[self.groups], p) - swift_target(x[0], p, xp)

    def delay(self, p: Mapping[str, Any]) -> Any:
        """Feedback delay d (s): the delay measured now is the RTT of a packet sent one base RTT ago."""
        return p["d"]

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        out: dict[int, Any] = {i: p["w_min"] for i in range(self.groups)}
        out[self.groups] = 0.0
        return out

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """Queue (packets), group 1's window (packets), utilization (the arrival rate over C at an empty queue)."""
        m = self.groups
        q = x[m]
        arrival = sum(p[f"N_{i + 1}"] * x[i] for i in range(m)) / self.rtt(q, p)
        util = xp.where(q > 1e-9, 1.0, xp.clip(arrival / p["C"], 0.0, 1.0))
        return {"window": x[0], "queue": q, "utilization": util}

    def numeric_params(self, params: SwiftParams) -> dict[str, float]:
        """Floats from a :class:`SwiftParams` (C in packets/s, times in s, windows in packets)."""
        if not isinstance(params, SwiftParams) or len(params.flows) != self.groups:
            raise ValueError(
                f"params={params!r} is invalid: accepted a SwiftParams with {self.groups} flow groups"
            )
        P = params
        out = {
            "C": float(P.link.C),
            "d": float(P.link.d),
            "ai": float(P.ai),
            "beta": float(P.beta),
            "mdf": float(P.max_mdf),
            "T0": float(P.base_target) + float(P.hops) * float(P.h),
            "fs_range": float(P.fs_range),
            "fs_min": float(P.fs_min_cwnd),
            "fs_max": float(P.fs_max_cwnd),
            "w_min": float(P.min_cwnd),
        }
        for i, n in enumerate(P.flows):
            out[f"N_{i + 1}"] = float(n)
        return out
