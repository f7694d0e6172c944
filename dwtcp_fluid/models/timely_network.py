"""The TIMELY family over a routing matrix: each flow group's rate driven by the signal of its path.

[PROXY] §3.2 feeds TIMELY's gradient algorithm ([TIMELY] Algorithm 1, and Patched TIMELY) with a function f of the
hop-by-hop queues on a flow's path. This model writes that over a routing matrix A (A_li = 1 when group i crosses
link l), m flow groups of N_i flows of rate R_i (packets/s), L links of capacity C_l (packets/s):

    r_l(t)     = q_l(t)/C_l                                   each hop's queueing delay (s)
    RTT_i(t)   = d_i + f({r_l(t − τ) : A_li = 1})             the signal group i measures, τ late
    dq_l/dt    = Σ_i A_li N_i R_i − C_l        (q_l ≥ 0: a sliding mode)                       (T1) per link
    dg_i/dt, dR_i/dt: eqs. (T2)-(T4) of :mod:`.timely` with RTT_i and dRTT_i/dt for the one queue's d + q/C

with f ∈ SUM (Σ r_l: what an RTT measures, TIMELY itself), MAX (max_l r_l, the bottleneck only) and SUM_SQU
(√Σ r_l², long queues weigh more), [PROXY] §3.2. These are the packet law ``timely-hops``' signals exactly: it feeds
TIMELY base RTT + f(hop queues in packets) in slots of the common port rate, i.e. f(q)/C = f(q/C) with one C; here
each hop's queue is turned into its own delay first. IND (1{∃l: q_l ≥ K}) is a one-bit mark, not a delay: a
TIMELY-style law cannot measure it (``timely-hops`` refuses it too); DCTCP over a network
(:class:`~.dctcp_network.DctcpNetwork`) is IND's model.

The rate law is :func:`~.timely.source_rates` (TimelyFluid's, one definition); the queues are
:func:`~.dctcp_network.link_queue_rates` (DctcpNetwork's). The gradient (T2) reads dRTT_i/dt of the delayed
signal: for SUM Σ ṙ_l, for MAX the slope of the largest hop, for SUM_SQU Σ r_l ṙ_l/√Σ r_l² (√Σ ṙ_l² when every hop
is empty); ṙ_l = q̇_l/C_l with each hop's slope seen at its floor as its positive part (:func:`~.timely.seen_slope`).

Delays: as TimelyFluid freezes its feedback delay at d, one loop delay τ (the common base RTT) reads every group's
signal (``group_delays=False``, parameter ``tau``); with ``group_delays=True`` group i reads x(t − d_i), its own
base RTT. The forward offset between hops is dropped, as in DctcpNetwork. Bounds: R_min ≤ R_i ≤ C of the first
hop (the packet laws' clip to [rate_min, line rate]) and q_l ≥ 0, sliding modes the solvers hold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import units
from ..params import LinkParams, check_range
from .base import FluidModel
from .dctcp_network import NetworkParams, RoutedModel, link_arrivals, link_observables, link_queue_rates
from .timely import TimelyFluid, TimelyParams, seen_slope, source_rates

__all__ = ["RATE_SIGNALS", "TimelyNetwork", "TimelyNetworkParams", "path_signal"]

#: The hop signals a TIMELY-style law measures, [PROXY] §3.2 (IND, a one-bit mark, is DCTCP's).
RATE_SIGNALS = ("sum", "max", "sum_squ")

#: Below this SUM_SQU signal (s) every hop counts as empty for its slope (0.01 packet at 10 Gbps).
_EMPTY = 1e-12

#: The gains TimelyNetwork takes from TimelyFluid's parameters (C, d and N_i are per link and per group here).
_GAINS = ("alpha", "beta", "delta", "T_low", "T_high", "minRTT", "S", "N_hai", "R_min", "rtt_ref")


def _check_signal(signal: Any) -> str:
    if signal not in RATE_SIGNALS:
        why = " (IND is a one-bit mark: DctcpNetwork's signal)" if signal == "ind" else ""
        raise ValueError(f"signal={signal!r} is invalid: accepted one of {', '.join(RATE_SIGNALS)}{why}")
    return signal


def path_signal(r: Sequence[Any], r_dot: Sequence[Any], signal: str, xp: Any) -> tuple[Any, Any]:
    """f over a path's hop delays ``r`` (s) and its rate of change (given the hops' ``r_dot``, 1), [PROXY] §3.2.

    ``signal``: ``"sum"``, ``"max"`` or ``"sum_squ"``. A one-hop path's signal is its hop for every f.
    """
    _check_signal(signal)
    if len(r) == 1:
        return r[0], r_dot[0]
    if signal == "sum":
        return sum(r), sum(r_dot)
    if signal == "max":
        top, top_dot = r[0], r_dot[0]
        for v, v_dot in zip(r[1:], r_dot[1:], strict=True):
            bigger = v > top
            top, top_dot = xp.where(bigger, v, top), xp.where(bigger, v_dot, top_dot)
        return top, top_dot
    s = xp.sqrt(sum(v * v for v in r))
    inner = sum(v * v_dot for v, v_dot in zip(r, r_dot, strict=True)) / xp.maximum(s, _EMPTY)
    return s, xp.where(s > _EMPTY, inner, xp.sqrt(sum(v * v for v in r_dot)))


@dataclass(frozen=True)
class TimelyNetworkParams:
    """A network of TIMELY flows: the routing, links and groups of a :class:`NetworkParams` (its K and g unused)
    and the gains of a :class:`TimelyParams` (its ``link`` gives only the packet size; its ``flows`` unused).

    Parameters
    ----------
    network : NetworkParams
        Routes, capacities, base RTTs d_i and flows N_i.
    gains : TimelyParams
        α, β, δ, T_low, T_high, minRTT, RTT_ref, segment, HAI, rate floor ([TIMELY]'s values by default).
    feedback_delay : str or float or None
        The common loop delay τ (s); None: the smallest base RTT.
    """

    network: NetworkParams
    gains: TimelyParams = field(default_factory=TimelyParams)
    feedback_delay: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.network, NetworkParams):
            raise ValueError(f"network={self.network!r} is invalid: accepted a NetworkParams")
        if not isinstance(self.gains, TimelyParams) or self.gains.link.L != self.network.packet_size:
            raise ValueError(
                f"gains={self.gains!r} is invalid: accepted a TimelyParams with packet size "
                f"{self.network.packet_size:g} B (the network's)"
            )
        tau = min(self.network.rtt) if self.feedback_delay is None else units.parse_time(self.feedback_delay)
        object.__setattr__(
            self, "feedback_delay", check_range("feedback_delay", tau, lo=0.0, lo_open=True, why="seconds")
        )

    @classmethod
    def parking_lot(
        cls,
        hops: int,
        *,
        flows: Any = 1,
        capacity: Any = "10Gbps",
        rtt: Any = "20us",
        packet_size: float = 1500.0,
        feedback_delay: Any = None,
        **gains: Any,
    ) -> TimelyNetworkParams:
        """The parking lot of ``hops`` links (group 0 over all, group j over link j − 1) with [TIMELY]'s gains
        unless ``gains`` (:class:`TimelyParams` fields) say otherwise; 20 µs base RTT like ``TimelyParams``."""
        net = NetworkParams.parking_lot(
            hops, capacity=capacity, rtt=rtt, flows=flows, packet_size=packet_size
        )
        link = LinkParams(
            capacity=net.capacity[0] * 8.0 * packet_size, rtt=min(net.rtt), packet_size=packet_size
        )
        return cls(net, TimelyParams(link=link, flows=(1,), **gains), feedback_delay)


@dataclass(frozen=True)
class TimelyNetwork(RoutedModel, FluidModel):
    """TIMELY (``patched=False``) or Patched TIMELY over a routing matrix on a path signal (see the module doc).

    Parameters
    ----------
    routes : tuple of tuples of int
        Links crossed by each flow group (m groups, L = max index + 1 links).
    patched : bool
        Patched TIMELY's band law (T4) instead of TIMELY's (T3).
    signal : {"sum", "max", "sum_squ"}
        The path signal f of [PROXY] §3.2.
    group_delays : bool
        False: one loop delay ``tau`` for every group; True: group i reads its signal d_i late.

    States: R_1..R_m (packets/s), g_1..g_m (1), q_1..q_L (packets). Parameters: C_l (packets/s), N_i, d_i (s),
    [TIMELY]'s gains as in :class:`~.timely.TimelyFluid`, and ``tau`` (s) unless ``group_delays``.
    """

    routes: tuple[tuple[int, ...], ...] = ((0, 1), (0,), (1,))
    patched: bool = False
    signal: str = "sum"
    group_delays: bool = False

    time_unit: ClassVar[str] = "s"

    def __post_init__(self) -> None:
        self._init_routes()
        _check_signal(self.signal)

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"timely{'-patched' if self.patched else ''}-network"

    @property
    def states(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.routed_states("R", "g")

    @property
    def state_units(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("packets/s",) * self.groups + ("1",) * self.groups + ("packets",) * self.links

    @property
    def gain_names(self) -> tuple[str, ...]:
        return _GAINS if self.patched else _GAINS[:-1]

    @property
    def param_names(self) -> tuple[str, ...]:  # type: ignore[override]
        m = self.groups
        return (
            tuple(f"C_{l + 1}" for l in range(self.links))
            + tuple(f"N_{i + 1}" for i in range(m))
            + tuple(f"d_{i + 1}" for i in range(m))
            + self.gain_names
            + (() if self.group_delays else ("tau",))
        )

    @property
    def sample_domain(self) -> Mapping[str, tuple]:  # type: ignore[override]
        d = TimelyFluid(groups=1, patched=True).sample_domain
        out = {k: d[k] for k in _GAINS}
        out["tau"] = d["d"]
        for i in range(self.groups):
            out.update({f"R_{i + 1}": d["R_1"], f"g_{i + 1}": d["g_1"], f"N_{i + 1}": d["N_1"]})
            out[f"d_{i + 1}"] = d["d"]
        for l in range(self.links):
            out.update({f"q_{l + 1}": d["q"], f"C_{l + 1}": d["C"]})
        return out

    # --- the definition ------------------------------------------------------------------------------------
    def signals(self, xd: Sequence[Any], p: Mapping[str, Any], xp: Any) -> list[tuple[Any, Any]]:
        """(RTT_i, dRTT_i/dt) per group from the delayed state(s) ``xd`` (one copy, or one per group with
        ``group_delays``): d_i + f over the path's hop delays, [PROXY] §3.2."""
        m, L = self.groups, self.links
        copies = list(xd) if self.group_delays and m > 1 else [xd] * m
        out, cache = [], {}
        for i, route in enumerate(self.routes):
            y = copies[i]
            if id(y) not in cache:  # one copy for every group: the hops' delays and slopes computed once
                Rd, qd = y[:m], y[2 * m : 2 * m + L]
                arr = link_arrivals(self.routes, [p[f"N_{j + 1}"] * Rd[j] for j in range(m)])
                cache[id(y)] = [
                    (
                        qd[l] / p[f"C_{l + 1}"],
                        seen_slope(qd[l], arr[l] - p[f"C_{l + 1}"], xp) / p[f"C_{l + 1}"],
                    )
                    for l in range(L)
                ]
            hops = cache[id(y)]
            s, s_dot = path_signal([hops[l][0] for l in route], [hops[l][1] for l in route], self.signal, xp)
            out.append((p[f"d_{i + 1}"] + s, s_dot))
        return out

    def rhs(self, x: Sequence[Any], xd: Any, u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[TIMELY] Algorithm 1 in fluid form, eqs. (T1)-(T4), over the routing matrix with each group's path signal
        (module doc; [PROXY] §3.2)."""
        m, L = self.groups, self.links
        R, g, q = x[:m], x[m : 2 * m], x[2 * m : 2 * m + L]
        dR, dg = [], []
        for i, (rtt, rtt_dot) in enumerate(self.signals(xd, p, xp)):
            r_dot, g_dot = source_rates(R[i], g[i], rtt, rtt_dot, p, self.patched, xp)
            dR.append(r_dot)
            dg.append(g_dot)
        dq = link_queue_rates(self.routes, [p[f"N_{i + 1}"] * R[i] for i in range(m)], q, p)
        return tuple(dR) + tuple(dg) + dq

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q_1 − C_1·(T_low − d_1): the first hop's queue at which a one-hop group's RTT reaches T_low
        ([TIMELY] Algorithm 1's first test; no input is switched by it)."""
        return x[2 * self.groups] - p["C_1"] * (p["T_low"] - p["d_1"])

    def delay(self, p: Mapping[str, Any]) -> Any:
        """The loop delay τ (s); with ``group_delays``, group 1's d_1."""
        return p["d_1"] if self.group_delays else p["tau"]

    def state_delays(self, p: Mapping[str, Any]) -> tuple[Any, ...]:
        """(τ,) or, with ``group_delays``, (d_1, …, d_m): group i reads x(t − d_i)."""
        if self.group_delays and self.groups > 1:
            return tuple(p[f"d_{i + 1}"] for i in range(self.groups))
        return (self.delay(p),)

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        m = self.groups
        out: dict[int, Any] = {i: p["R_min"] for i in range(m)}
        out.update({2 * m + l: 0.0 for l in range(self.links)})
        return out

    def ceilings(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """R_i ≤ C of group i's first hop: a sender's rate is capped at its line rate (the packet laws clip the
        rate to 1 packet per slot), which a cross flow that has its link to itself reaches."""
        return {i: p[f"C_{r[0] + 1}"] for i, r in enumerate(self.routes)}

    def capacity(self, p: Mapping[str, Any]) -> Any:
        """Capacity of link 1 (per-link values are in the observables)."""
        return p["C_1"]

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """``window`` = R_1 (packets/s, as TimelyFluid), per group ``rate_<i>`` (packets/s per flow) and
        ``rtt_<i>`` (s: d_i + Σ q_l/C_l on the path, what an RTT measures, whatever the signal), per link
        ``queue_<l>``/``utilization_<l>``, and ``queue``/``utilization`` of the most loaded link."""
        m, L = self.groups, self.links
        R, q = x[:m], x[2 * m : 2 * m + L]
        out: dict[str, Any] = {"window": R[0]}
        for i, route in enumerate(self.routes):
            out[f"rate_{i + 1}"] = R[i]
            out[f"rtt_{i + 1}"] = p[f"d_{i + 1}"] + sum(q[l] / p[f"C_{l + 1}"] for l in route)
        arr = link_arrivals(self.routes, [p[f"N_{i + 1}"] * R[i] for i in range(m)])
        out.update(link_observables(q, arr, p, xp))
        return out

    def numeric_params(self, params: TimelyNetworkParams) -> dict[str, float]:
        """Floats from a :class:`TimelyNetworkParams` with the same routes (C, δ, R_min in packets/s; times in s;
        S in packets); the gains are converted by :meth:`TimelyFluid.numeric_params` (one conversion)."""
        if not isinstance(params, TimelyNetworkParams) or params.network.routes != self.routes:
            raise ValueError(
                f"params={params!r} is invalid: accepted a TimelyNetworkParams with routes {self.routes}"
            )
        net = params.network
        g = TimelyFluid(groups=len(params.gains.flows), patched=self.patched).numeric_params(params.gains)
        out = {k: float(g[k]) for k in self.gain_names}
        if not self.group_delays:
            out["tau"] = float(params.feedback_delay)
        for l in range(self.links):
            out[f"C_{l + 1}"] = float(net.capacity[l])
        for i in range(self.groups):
            out[f"N_{i + 1}"] = float(net.flows[i])
            out[f"d_{i + 1}"] = float(net.rtt[i])
        if not all(math.isfinite(v) for v in out.values()):
            raise ValueError(f"params={params!r} is invalid: non-finite values")
        return out
