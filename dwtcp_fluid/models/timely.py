"""TIMELY and Patched TIMELY fluid models: [TIMELY] Algorithm 1 and its patch in the fluid form of Zhu et al.
(the fluid analysis [PROXY] §2.2 relays as its reference [12]; [PROXY] prints the algorithm, not the equations).

Flow group i has N_i flows of rate R_i (packets/s) and normalized RTT gradient g_i (1); q is the bottleneck queue
(packets). A flow updates once per completion event, every τ_i = max(S/R_i, minRTT) seconds (S packets per
segment), and reacts to the RTT it measures, RTT(t) = d + q(t − d)/C (d: base RTT, also the feedback delay τ'):

    dq/dt   = Σ_i N_i·R_i − C                         (q ≥ 0: a sliding mode)                  (T1)
    dg_i/dt = α/τ_i · (τ_i·q̇(t − d)/(C·minRTT) − g_i)                                         (T2)
    dR_i/dt = δ/τ_i                                   RTT < T_low                                (T3)
            = −β/τ_i · (1 − T_high/RTT)·R_i            RTT > T_high
            = N_hai·δ/τ_i                              otherwise, g_i ≤ 0
            = −β·g_i/τ_i · R_i                         otherwise, g_i > 0
    Patched, otherwise: dR_i/dt = ((1 − w(g_i))·δ − w(g_i)·β·R_i·(RTT − RTT_ref)/RTT_ref)/τ_i   (T4)

(T2) is Algorithm 1's EWMA of new_rtt_diff = RTT change over one update interval, q(t − d) − q(t − d − τ_i)
divided by C and normalized by minRTT, with the difference replaced by τ_i·q̇(t − d) (q̇ = Σ N_j R_j − C above
the floor, its positive part at the floor): this keeps the factor τ_i = S/R_i of the gradient that makes a fast
flow see a smaller gradient per update — the mechanism behind TIMELY's continuum of rate splits
(``proofs/timely.md``). HAI (N = 5 after five non-positive gradients) is a counter, not a fluid quantity:
``N_hai`` (default 1) stands for the mean step. The feedback delay τ' = q/C + d of Zhu et al. is frozen at d.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import units
from ..params import LinkParams, check_range, patched_rtt_ref
from .base import FluidModel

__all__ = [
    "TimelyFluid",
    "TimelyParams",
    "band_rate",
    "gradient_rate",
    "gradient_weight",
    "rtt_gradient_rate",
    "seen_slope",
    "source_rates",
    "timely_rate",
    "update_interval",
]


def gradient_weight(g: Any, xp: Any) -> Any:
    """Patched TIMELY's weight w(g) = clip(2g + 1/2, 0, 1) (Zhu et al., relayed in [PROXY] §2.2)."""
    return xp.minimum(xp.maximum(2 * g + 0.5, 0.0), 1.0)


def band_rate(R: Any, g: Any, rtt: Any, tau: Any, p: Mapping[str, Any], patched: bool, xp: Any) -> Any:
    """dR/dt between T_low and T_high: TIMELY's gradient law (T3) or Patched TIMELY's (T4) ([PROXY] §2.2).

    R in packets/s, g normalized gradient, rtt and tau (update interval) in seconds.
    """
    delta, beta = p["delta"], p["beta"]
    if patched:
        w = gradient_weight(g, xp)
        return ((1 - w) * delta - w * beta * R * (rtt - p["rtt_ref"]) / p["rtt_ref"]) / tau
    return xp.where(g > 0, -beta * g * R / tau, p["N_hai"] * delta / tau)


def timely_rate(R: Any, g: Any, rtt: Any, tau: Any, p: Mapping[str, Any], patched: bool, xp: Any) -> Any:
    """dR/dt of one TIMELY source, eqs. (T3)/(T4) with Algorithm 1's threshold branches ([TIMELY] Algorithm 1)."""
    high = -p["beta"] * (1 - p["T_high"] / rtt) * R / tau
    band = band_rate(R, g, rtt, tau, p, patched, xp)
    return xp.where(rtt < p["T_low"], p["delta"] / tau, xp.where(rtt > p["T_high"], high, band))


def rtt_gradient_rate(g: Any, tau: Any, rtt_dot: Any, p: Mapping[str, Any]) -> Any:
    """dg/dt, eq. (T2) for any RTT signal: Algorithm 1's EWMA (weight α per update of length τ) of the RTT change
    over one update, τ·dRTT/dt, normalized by minRTT ([PROXY] §2.2). ``rtt_dot`` in s/s (1), τ in s."""
    return p["alpha"] / tau * (tau * rtt_dot / p["minRTT"] - g)


def gradient_rate(g: Any, tau: Any, qdot: Any, p: Mapping[str, Any]) -> Any:
    """dg/dt, eq. (T2): Algorithm 1's EWMA of τ·q̇/(C·minRTT), the one-link RTT d + q/C ([PROXY] §2.2)."""
    return rtt_gradient_rate(g, tau, qdot / p["C"], p)


def seen_slope(q_d: Any, excess_d: Any, xp: Any) -> Any:
    """The queue's slope seen one delay late (packets/s): the inflow excess Σ rates − C above the floor, its
    positive part at it (q ≥ 0 is a sliding mode), eq. (T1) read at t − d."""
    return xp.where(q_d > 0, excess_d, xp.maximum(excess_d, 0.0))


def update_interval(R: Any, p: Mapping[str, Any], xp: Any) -> Any:
    """τ = max(S/R, minRTT): one completion event per segment, at most one per minRTT (s)."""
    return xp.maximum(p["S"] / R, p["minRTT"])


def source_rates(
    R: Any, g: Any, rtt: Any, rtt_dot: Any, p: Mapping[str, Any], patched: bool, xp: Any
) -> tuple[Any, Any]:
    """(dR/dt, dg/dt) of one TIMELY source that measures ``rtt`` (s) changing at ``rtt_dot`` (1), eqs. (T2)-(T4).

    The one place a TIMELY source's law is written: :class:`TimelyFluid` (one queue) and
    :class:`~.timely_network.TimelyNetwork` (a path signal) both call it.
    """
    tau = update_interval(R, p, xp)
    return timely_rate(R, g, rtt, tau, p, patched, xp), rtt_gradient_rate(g, tau, rtt_dot, p)


@dataclass(frozen=True)
class TimelyParams:
    """A TIMELY setting. The gains' defaults are [TIMELY]'s published values, which no seed states ([PROXY]
    prints Algorithm 1 with symbols only); ``tests/test_timely_gains.py`` moves δ, β, T_low, T_high by ±50 %.

    Parameters
    ----------
    link : LinkParams
        Capacity, base RTT d (s) and packet size; default 10 Gbps, 20 µs.
    flows : tuple of int
        Flows per group N_i (one group per rate state).
    alpha, beta : float
        EWMA weight of the new RTT difference and decrease factor (1).
    delta : str or float
        Additive step δ ("10Mbps" or bits/s).
    t_low, t_high, min_rtt, rtt_ref : str or float
        T_low, T_high, minRTT and Patched TIMELY's RTT_ref ("50us" or seconds; RTT_ref None: max(50 µs, d + 20 µs),
        :func:`~dwtcp_fluid.params.patched_rtt_ref`).
    segment : float
        Bytes per completion event S (16 KB).
    hai : float
        Mean HAI multiplier N of the non-positive-gradient increase (1).
    rate_min : str or float
        Lowest rate (bits/s), the packet law's floor.
    """

    link: LinkParams = field(default_factory=lambda: LinkParams(capacity="10Gbps", rtt="20us"))
    flows: tuple[int, ...] = (2, 2)
    alpha: float = 0.875
    beta: float = 0.8
    delta: str | float = "10Mbps"
    t_low: str | float = "50us"
    t_high: str | float = "500us"
    min_rtt: str | float = "20us"
    rtt_ref: str | float | None = None
    segment: float = 16384.0
    hai: float = 1.0
    rate_min: str | float = "10Mbps"

    def __post_init__(self) -> None:
        flows = tuple(int(check_range("flows", n, lo=1, integer=True)) for n in self.flows)
        if not flows:
            raise ValueError(f"flows={self.flows!r} is invalid: accepted a non-empty tuple of flow counts")
        object.__setattr__(self, "flows", flows)
        check_range("alpha", self.alpha, lo=0.0, hi=1.0, lo_open=True)
        check_range("beta", self.beta, lo=0.0, hi=1.0, lo_open=True)
        check_range("segment", self.segment, lo=1.0, why="bytes")
        check_range("hai", self.hai, lo=1.0)
        if self.rtt_ref is None:
            object.__setattr__(self, "rtt_ref", patched_rtt_ref(self.link.d))
        for k in ("t_low", "t_high", "min_rtt", "rtt_ref"):
            v = check_range(k, units.parse_time(getattr(self, k)), lo=0.0, why="seconds")
            object.__setattr__(self, k, v)
        for k in ("delta", "rate_min"):
            v = getattr(self, k)
            bps = units.parse_rate(v).bps(self.link.L) if isinstance(v, str) else float(v)
            object.__setattr__(self, k, check_range(k, bps, lo=0.0, lo_open=True, why="bits/s"))

    def pps(self, bps: float) -> float:
        """Bits/s → packets/s of this link's packet size."""
        return float(bps) / (8.0 * self.link.L)


@dataclass(frozen=True)
class TimelyFluid(FluidModel):
    """TIMELY (``patched=False``) or Patched TIMELY fluid model, eqs. (T1)-(T4) of the module docstring.

    Parameters
    ----------
    groups : int
        Flow groups m ≥ 1. States: R_1..R_m (packets/s), g_1..g_m (1), q (packets).
    patched : bool
        Patched TIMELY's band law (T4) instead of TIMELY's gradient law (T3).
    """

    groups: int = 2
    patched: bool = False

    time_unit: ClassVar[str] = "s"

    def __post_init__(self) -> None:
        if not (isinstance(self.groups, int) and self.groups >= 1):
            raise ValueError(f"groups={self.groups!r} is out of range: accepted an integer >= 1")

    @property
    def name(self) -> str:  # type: ignore[override]
        return "timely-patched" if self.patched else "timely"

    @property
    def states(self) -> tuple[str, ...]:  # type: ignore[override]
        m = self.groups
        return tuple(f"R_{i + 1}" for i in range(m)) + tuple(f"g_{i + 1}" for i in range(m)) + ("q",)

    @property
    def state_units(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("packets/s",) * self.groups + ("1",) * self.groups + ("packets",)

    @property
    def param_names(self) -> tuple[str, ...]:  # type: ignore[override]
        base = ("C", "d", "alpha", "beta", "delta", "T_low", "T_high", "minRTT", "S", "N_hai", "R_min")
        extra = ("rtt_ref",) if self.patched else ()
        return base + extra + tuple(f"N_{i + 1}" for i in range(self.groups))

    @property
    def sample_domain(self) -> Mapping[str, tuple]:  # type: ignore[override]
        out: dict[str, tuple] = {
            "q": ("lin", 0.0, 500.0),
            "C": (1e5, 1e7),
            "d": (5e-6, 1e-4),
            "alpha": ("lin", 0.1, 1.0),
            "beta": ("lin", 0.1, 1.0),
            "delta": (1e2, 1e4),
            "T_low": (1e-5, 1e-4),
            "T_high": (2e-4, 1e-3),
            "minRTT": (5e-6, 5e-5),
            "S": (1.0, 50.0),
            "N_hai": ("lin", 1.0, 5.0),
            "R_min": (1.0, 1e2),
            "rtt_ref": (2e-5, 1e-4),
        }
        for i in range(self.groups):
            out.update(
                {f"R_{i + 1}": (1e3, 1e6), f"g_{i + 1}": ("lin", -1.0, 1.0), f"N_{i + 1}": (1.0, 50.0)}
            )
        return out

    def update_interval(self, R: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """τ_i = max(S/R_i, minRTT) (s), :func:`update_interval`."""
        return update_interval(R, p, xp)

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """Eqs. (T1)-(T4) of the module docstring ([TIMELY] Algorithm 1 / Patched TIMELY in fluid form)."""
        m = self.groups
        R, g, q = x[:m], x[m : 2 * m], x[2 * m]
        Rd, qd = xd[:m], xd[2 * m]
        C = p["C"]
        inflow_d = sum(p[f"N_{i + 1}"] * Rd[i] for i in range(m)) - C
        qdot_d = seen_slope(qd, inflow_d, xp)
        rtt = p["d"] + qd / C
        dR, dg = [], []
        for i in range(m):
            r_dot, g_dot = source_rates(R[i], g[i], rtt, qdot_d / C, p, self.patched, xp)
            dR.append(r_dot)
            dg.append(g_dot)
        dq = sum(p[f"N_{i + 1}"] * R[i] for i in range(m)) - C + 0 * q
        return tuple(dR) + tuple(dg) + (dq,)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q − C·(T_low − d): the queue at which the measured RTT reaches T_low, [TIMELY] Algorithm 1's first
        test (no input is switched by it)."""
        return x[2 * self.groups] - p["C"] * (p["T_low"] - p["d"])

    def delay(self, p: Mapping[str, Any]) -> Any:
        """Feedback delay τ' = d (s)."""
        return p["d"]

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        out: dict[int, Any] = {i: p["R_min"] for i in range(self.groups)}
        out[2 * self.groups] = 0.0
        return out

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """Queue (packets), per-group rate R_1 as ``window`` (packets/s), aggregate utilization."""
        m = self.groups
        q = x[2 * m]
        arrival = sum(p[f"N_{i + 1}"] * x[i] for i in range(m))
        util = xp.where(q > 1e-9, 1.0, xp.clip(arrival / p["C"], 0.0, 1.0))
        return {"window": x[0], "queue": q, "utilization": util}

    def numeric_params(self, params: TimelyParams) -> dict[str, float]:
        """Floats from a :class:`TimelyParams` (C, δ, R_min in packets/s; times in s; S in packets)."""
        if not isinstance(params, TimelyParams) or len(params.flows) != self.groups:
            raise ValueError(
                f"params={params!r} is invalid: accepted a TimelyParams with {self.groups} flow groups"
            )
        P = params
        out = {
            "C": float(P.link.C),
            "d": float(P.link.d),
            "alpha": float(P.alpha),
            "beta": float(P.beta),
            "delta": P.pps(float(P.delta)),
            "T_low": float(P.t_low),
            "T_high": float(P.t_high),
            "minRTT": float(P.min_rtt),
            "S": max(1.0, round(float(P.segment) / P.link.L)),
            "N_hai": float(P.hai),
            "R_min": P.pps(float(P.rate_min)),
        }
        if self.patched:
            out["rtt_ref"] = float(P.rtt_ref)
        for i, n in enumerate(P.flows):
            out[f"N_{i + 1}"] = float(n)
        return out
