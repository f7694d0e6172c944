"""DCTCP over a network of links: a routing matrix, one queue and one marking threshold per link.

[DCTCP-A] eqs. (5)-(8) model one switch; the paper names general networks with several bottlenecks as the open
question of its analysis. This model writes them over a routing matrix A (A_li = 1 when flow group i crosses
link l), with m flow groups of N_i flows and L links of capacity C_l and threshold K_l:

    R_i(t)    = d_i + Σ_l A_li q_l(t)/C_l                                  RTT along the path, cf. (5)
    P_i(t)    = 1 − Π_l (1 − A_li·p_l(t − τ))                              a packet is marked at some hop
    dW_i/dt   = 1/R_i − W_i·α_i/(2R_i)·P_i(t)                              (5) with P_i for p(t − R*)
    dα_i/dt   = g/R_i·(P_i(t) − α_i)                                        (6)
    dq_l/dt   = Σ_i A_li N_i W_i/R_i − C_l        (q_l ≥ 0: a sliding mode) (7) per link
    p_l(t)    = 1{q_l(t) > K_l}                                             (8) per link

What is new against (5)-(8): the queue of each link sees only the flows routed through it; a flow's mark is the
OR of the marks of its hops (an ECN-CE bit set anywhere on the path stays set), so a flow crossing more marking
hops is marked more often; a flow's RTT adds the queueing delay of every hop.

Delays kept and dropped (the choice [DCTCP-A] makes for one link, carried over):

* kept: the whole feedback loop delay τ on every hop's mark — a mark set at hop l reaches the sender one
  round trip after the sender's rate that caused it left, whichever hop set it, so in the sender's frame the
  loop delay through every hop is its RTT. τ is fixed (the paper's R* = d + K/C, frozen like R*), common to all
  flows, so that the model is one delay system x' = F(x(t), x(t − τ)) — the form both solvers and the
  pseudospectral root finder take.
* per flow group (``group_delays=True``): group i's marks arrive with its own loop delay τ_i, frozen at the
  fixed point like R*: τ_i = d_i + Σ_l A_li K_l/C_l (its base RTT plus a queue of K_l at every hop it
  crosses), so P_i(t) = 1 − Π_l (1 − A_li·p_l(t − τ_i)). The model is then x' = F(x(t), x(t − τ_1), …,
  x(t − τ_m)), several discrete delays, which both solvers and the root finder take
  (:meth:`~dwtcp_fluid.models.base.FluidModel.state_delays`). With all τ_i equal it is the common-delay model.
* dropped: the forward propagation offset between hops (a source's rate reaches every hop at once, as (7) lets
  N·W/R reach the one queue at once), and the variation of the feedback delay with the queues (as (5) freezes R*).

Switching: each link's mark is read from the delayed state, p_l(t − τ) = 1{q_l(t − τ) > K_l}, so the right-hand
side is discontinuous in x(t − τ) and the switch input u is not read. A scalar switching function cannot log
every link's crossings (two links of a symmetric parking lot cross K together, and a product Π(q_l − K_l) then
keeps its sign), so σ = q_1 − K_1 logs the first hop's crossings only (its period, the contract's event check);
the other links' switches are resolved by the reference solver's step-size control (rtol 1e-10) and by the JAX
solver to its fixed step, which is why the two agree to ~1e-3 here rather than the 2e-5 of the one-link models.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import units
from ..params import check_range
from .base import FluidModel
from .dctcp import DctcpFluid, source_rates

__all__ = [
    "DctcpNetwork",
    "NetworkParams",
    "link_arrivals",
    "link_observables",
    "link_queue_rates",
    "parking_lot_routes",
]


def link_arrivals(routes: Sequence[Sequence[int]], rates: Sequence[Any]) -> tuple:
    """Arrival rate at each link, Σ_i A_li·rates_i (packets/s; ``rates`` of each group, N_i flows together)."""
    links = 1 + max(v for r in routes for v in r)
    return tuple(sum(rates[i] for i, r in enumerate(routes) if l in r) for l in range(links))


def link_queue_rates(
    routes: Sequence[Sequence[int]], rates: Sequence[Any], q: Sequence[Any], p: Mapping[str, Any]
) -> tuple:
    """dq_l/dt = Σ_i A_li·rates_i − C_l per link (``rates_i``: group i's N_i flows together, packets/s), [DCTCP-A]
    eq. (7) over a routing matrix.

    The one definition of a network's queues (:class:`DctcpNetwork`, :class:`~.timely_network.TimelyNetwork`);
    the floor q_l ≥ 0 is a sliding mode the solvers hold (the models' ``floors``).
    """
    return tuple(a - p[f"C_{l + 1}"] + 0 * q[l] for l, a in enumerate(link_arrivals(routes, rates)))


def link_observables(
    q: Sequence[Any], arrivals: Sequence[Any], p: Mapping[str, Any], xp: Any
) -> dict[str, Any]:
    """Per link ``queue_<l>`` (packets) and ``utilization_<l>`` (1: the output rate over C_l, the arrival rate
    while the queue is held at its floor), and ``queue``/``utilization`` of the most loaded link (largest queue)."""
    out: dict[str, Any] = {}
    for l, a in enumerate(arrivals):
        out[f"queue_{l + 1}"] = q[l]
        out[f"utilization_{l + 1}"] = xp.where(q[l] > 1e-9, 1.0, xp.clip(a / p[f"C_{l + 1}"], 0.0, 1.0))
    top, util = q[0], out["utilization_1"]
    for l in range(1, len(arrivals)):
        bigger = q[l] > top
        top = xp.where(bigger, q[l], top)
        util = xp.where(bigger, out[f"utilization_{l + 1}"], util)
    out["queue"], out["utilization"] = top, util
    return out


def parking_lot_routes(hops: int) -> tuple[tuple[int, ...], ...]:
    """Routes of the parking lot: group 0 (the long flow) crosses links 0..k−1, group j crosses link j−1 only.

    Parameters
    ----------
    hops : int
        Number of links k ≥ 1.
    """
    if not (isinstance(hops, int) and hops >= 1):
        raise ValueError(f"hops={hops!r} is out of range: accepted an integer >= 1")
    return (tuple(range(hops)),) + tuple((j,) for j in range(hops))


def _check_routes(routes: Any, links: int) -> tuple[tuple[int, ...], ...]:
    try:
        rs = tuple(tuple(int(v) for v in r) for r in routes)
    except (TypeError, ValueError):
        raise ValueError(
            f"routes={routes!r} is invalid: accepted a sequence of link-index sequences"
        ) from None
    if not rs or any(not r for r in rs):
        raise ValueError(f"routes={routes!r} is invalid: accepted at least one route, each of >= 1 link")
    for r in rs:
        if len(set(r)) != len(r) or any(not 0 <= v < links for v in r):
            raise ValueError(
                f"routes={routes!r} is invalid: link indices must be distinct and in [0, {links})"
            )
    used = {v for r in rs for v in r}
    if used != set(range(links)):
        raise ValueError(f"routes={routes!r} is invalid: every link 0..{links - 1} must carry a route")
    return rs


class RoutedModel:
    """The routing of a model over a routing matrix (one definition for every such model): the dataclass field
    ``routes`` (each flow group's link indices), checked and normalized by :meth:`_init_routes`; m groups, L links,
    and the state names (per-group states, then the L queues)."""

    def _init_routes(self) -> None:
        routes = self.routes  # type: ignore[attr-defined]
        flat = [v for r in routes for v in r] if isinstance(routes, tuple) else []
        object.__setattr__(self, "routes", _check_routes(routes, max(flat) + 1 if flat else 0))

    @property
    def groups(self) -> int:
        return len(self.routes)  # type: ignore[attr-defined]

    @property
    def links(self) -> int:
        return 1 + max(v for r in self.routes for v in r)  # type: ignore[attr-defined]

    def routed_states(self, *per_group: str) -> tuple[str, ...]:
        """``<name>_1..<name>_m`` for each per-group state name, then ``q_1..q_L``."""
        names = tuple(f"{n}_{i + 1}" for n in per_group for i in range(self.groups))
        return names + tuple(f"q_{l + 1}" for l in range(self.links))


@dataclass(frozen=True)
class NetworkParams:
    """A network of DCTCP flows: links (capacity, threshold), routes (flow groups), base RTTs, g.

    Parameters
    ----------
    routes : sequence of sequences of int
        Route of each flow group: the links it crosses.
    capacity : str or float, or a sequence of them
        Link capacity (rate string or bits/s), one for all links or one per link.
    K : float or sequence of float
        Marking threshold in packets, one for all links or one per link.
    rtt : str or float, or a sequence of them
        Base RTT d_i of each group ("100us" or seconds), one for all or one per group.
    flows : int or sequence of int
        Flows N_i in each group.
    g : float
        EWMA gain, 0 < g ≤ 1.
    packet_size : float
        Bytes per packet (converts capacities to packets/s).
    feedback_delay : str or float or None
        The loop delay τ; None: R* = d + K/C of a one-hop flow, with the smallest d_i, K_l/C_l of link 0.
    """

    routes: Any
    capacity: Any = "10Gbps"
    K: Any = 65.0
    rtt: Any = "100us"
    flows: Any = 1
    g: float = 1.0 / 16.0
    packet_size: float = 1500.0
    feedback_delay: Any = None
    links: int = field(init=False)

    def __post_init__(self) -> None:
        try:
            flat = [v for r in self.routes for v in r]
        except TypeError:
            raise ValueError(f"routes={self.routes!r} is invalid: accepted a sequence of sequences") from None
        n_links = max(int(v) for v in flat) + 1 if flat else 0
        routes = _check_routes(self.routes, n_links)
        m = len(routes)
        object.__setattr__(self, "routes", routes)
        object.__setattr__(self, "links", n_links)

        def per(name: str, v: Any, n: int) -> tuple:
            vals = tuple(v) if isinstance(v, list | tuple) else (v,) * n
            if len(vals) != n:
                raise ValueError(f"{name}={v!r} is invalid: accepted one value or {n} values")
            return vals

        C = tuple(
            check_range("capacity", units.parse_rate(c).bps(self.packet_size), lo=0.0, lo_open=True)
            / (8.0 * self.packet_size)
            for c in per("capacity", self.capacity, n_links)
        )
        K = tuple(check_range("K", k, lo=0.0, why="packets") for k in per("K", self.K, n_links))
        d = tuple(
            check_range("rtt", units.parse_time(r), lo=0.0, lo_open=True, why="seconds")
            for r in per("rtt", self.rtt, m)
        )
        N = tuple(check_range("flows", n, lo=1, integer=True) for n in per("flows", self.flows, m))
        check_range("g", self.g, lo=0.0, hi=1.0, lo_open=True, why="EWMA gain, [DCTCP-A] eq. (6)")
        object.__setattr__(self, "capacity", C)
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "rtt", d)
        object.__setattr__(self, "flows", N)
        tau = min(d) + K[0] / C[0] if self.feedback_delay is None else units.parse_time(self.feedback_delay)
        object.__setattr__(
            self, "feedback_delay", check_range("feedback_delay", tau, lo=0.0, lo_open=True, why="seconds")
        )

    @property
    def path_delays(self) -> tuple[float, ...]:
        """Per-group loop delays τ_i = d_i + Σ_{l ∈ route i} K_l/C_l (s): the base RTT plus a queue of K_l at every
        hop, frozen at the fixed point like [DCTCP-A]'s R* (read by ``DctcpNetwork(group_delays=True)``)."""
        C, K = self.capacity, self.K
        return tuple(d + sum(K[l] / C[l] for l in r) for d, r in zip(self.rtt, self.routes, strict=True))

    @classmethod
    def parking_lot(cls, hops: int, **kw: Any) -> NetworkParams:
        """The parking lot of ``hops`` links: one long group over all, one cross group per link."""
        return cls(parking_lot_routes(hops), **kw)


@dataclass(frozen=True)
class DctcpNetwork(RoutedModel, FluidModel):
    """DCTCP over a routing matrix, [DCTCP-A] eqs. (5)-(8) per link and per flow group (see the module doc).

    Parameters
    ----------
    routes : tuple of tuples of int
        Links crossed by each flow group (defines m groups and L = max index + 1 links).
    queue_floor : bool
        Physical queues q_l ≥ 0.
    group_delays : bool
        False (default): one loop delay τ for every group's marks (parameter ``tau``). True: group i's marks
        arrive τ_i late (parameters ``tau_1..tau_m``, :attr:`NetworkParams.path_delays`), see the module doc.
    ramp : float
        0 (default): DCTCP's step marking (8). A width w > 0 (packets) replaces it by the ramp
        p_l = min(max(1/2 + (q_l − K_l)/w, 0), 1) through (K_l, 1/2), which tends to the step as w → 0: a smooth
        marking whose linearization at the fixed point exists (:func:`~dwtcp_fluid.studies.networks.analysis_multihop.
        parking_lot_spectrum`); it is not DCTCP's switch, and no packet switch here marks that way.

    States: W_1..W_m (packets), alpha_1..alpha_m, q_1..q_L (packets). Parameters: C_l (packets/s), K_l
    (packets), N_i, d_i (s), g, tau (s) (or tau_1..tau_m with ``group_delays``).
    """

    routes: tuple[tuple[int, ...], ...] = ((0, 1), (0,), (1,))
    queue_floor: bool = True
    ramp: float = 0.0
    group_delays: bool = False

    name: ClassVar[str] = "dctcp-network"

    def __post_init__(self) -> None:
        self._init_routes()
        if not (isinstance(self.ramp, int | float) and math.isfinite(self.ramp) and self.ramp >= 0):
            raise ValueError(
                f"ramp={self.ramp!r} is out of range: accepted a width >= 0 packets (0: the step)"
            )

    @property
    def states(self) -> tuple[str, ...]:  # type: ignore[override]
        return self.routed_states("W", "alpha")

    @property
    def state_units(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("packets",) * self.groups + ("1",) * self.groups + ("packets",) * self.links

    @property
    def param_names(self) -> tuple[str, ...]:  # type: ignore[override]
        m, L = self.groups, self.links
        return (
            tuple(f"C_{l + 1}" for l in range(L))
            + tuple(f"K_{l + 1}" for l in range(L))
            + tuple(f"N_{i + 1}" for i in range(m))
            + tuple(f"d_{i + 1}" for i in range(m))
            + ("g",)
            + (tuple(f"tau_{i + 1}" for i in range(m)) if self.group_delays else ("tau",))
        )

    @property
    def sample_domain(self) -> Mapping[str, tuple]:  # type: ignore[override]
        d = DctcpFluid.sample_domain
        out: dict[str, tuple] = {"g": d["g"], "tau": d["d"]}
        for i in range(self.groups):
            out.update({f"W_{i + 1}": d["W"], f"alpha_{i + 1}": d["alpha"], f"N_{i + 1}": (1.0, 50.0)})
            out[f"d_{i + 1}"] = d["d"]
            out[f"tau_{i + 1}"] = d["d"]
        for l in range(self.links):
            out.update({f"q_{l + 1}": d["q"], f"C_{l + 1}": d["C"], f"K_{l + 1}": d["K"]})
        return out

    # --- the definition ------------------------------------------------------------------------------------
    def path_rates(
        self,
        x: Sequence[Any],
        marks: Sequence[Any],
        p: Mapping[str, Any],
        group_marks: Sequence[Sequence[Any]] | None = None,
    ) -> tuple:
        """Right-hand side with the links' delayed marks ``marks`` = (p_1(t − τ), …, p_L(t − τ)) given,
        [DCTCP-A] eqs. (5)-(7) per group and per link.

        ``marks`` may be 0/1 values or symbols (the Filippov marking fractions of the fixed-point derivation in
        :mod:`dwtcp_fluid.studies.networks.derive_multihop`); this is the one place the equations are written.
        ``group_marks[i]``, when given, are the marks group i sees (p_l(t − τ_i), per-group delays) instead.
        """
        m, L = self.groups, self.links
        W, al, q = x[:m], x[m : 2 * m], x[2 * m : 2 * m + L]
        dW, da, rate = [], [], []
        for i, route in enumerate(self.routes):
            R = p[f"d_{i + 1}"] + sum(q[l] / p[f"C_{l + 1}"] for l in route)
            seen = marks if group_marks is None else group_marks[i]
            unmarked = 1
            for l in route:
                unmarked = unmarked * (1 - seen[l])
            w_dot, a_dot = source_rates(W[i], al[i], R, 1 - unmarked, p["g"])
            dW.append(w_dot)
            da.append(a_dot)
            rate.append(p[f"N_{i + 1}"] * W[i] / R)
        return tuple(dW) + tuple(da) + link_queue_rates(self.routes, rate, q, p)

    def rhs(self, x: Sequence[Any], xd: Any, u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DCTCP-A] eqs. (5)-(8) over the routing matrix; marks p_l(t − τ) = 1{q_l(t − τ) > K_l} from ``xd``
        (with ``group_delays``, ``xd[i]`` = x(t − τ_i) gives group i's marks)."""
        m = self.groups

        def link_marks(xs: Sequence[Any]) -> list:
            if self.ramp > 0:
                w = self.ramp
                return [
                    xp.minimum(xp.maximum(0.5 + (xs[2 * m + l] - p[f"K_{l + 1}"]) / w, 0.0), 1.0)
                    for l in range(self.links)
                ]
            return [xp.where(xs[2 * m + l] > p[f"K_{l + 1}"], 1.0, 0.0) for l in range(self.links)]

        if self.group_delays and m > 1:
            return self.path_rates(x, (), p, group_marks=[link_marks(xd[i]) for i in range(m)])
        return self.path_rates(x, link_marks(xd), p)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q_1 − K_1, the first hop's marking switch, [DCTCP-A] eq. (8) (the other links: module doc)."""
        return x[2 * self.groups] - p["K_1"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """The loop delay τ of every hop's mark (fixed, like [DCTCP-A]'s R*); with ``group_delays``, group 1's
        τ_1 (the delay of the switch channel that logs σ's crossings)."""
        return p["tau_1"] if self.group_delays else p["tau"]

    def state_delays(self, p: Mapping[str, Any]) -> tuple[Any, ...]:
        """(τ,) or, with ``group_delays``, (τ_1, …, τ_m): group i reads x(t − τ_i)."""
        if self.group_delays and self.groups > 1:
            return tuple(p[f"tau_{i + 1}"] for i in range(self.groups))
        return (self.delay(p),)

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        m = self.groups
        return {2 * m + l: 0.0 for l in range(self.links)} if self.queue_floor else {}

    def capacity(self, p: Mapping[str, Any]) -> Any:
        """Capacity of link 1 (the first hop; per-link values are in the observables)."""
        return p["C_1"]

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """``queue``/``utilization`` of the most loaded link (the largest queue), ``window`` of group 1, and
        per link ``queue_<l>``, ``utilization_<l>``, per group ``window_<i>``, ``rate_<i>`` (packets/s per flow).
        """
        m, L = self.groups, self.links
        W, q = x[:m], x[2 * m : 2 * m + L]
        out: dict[str, Any] = {"window": W[0], "alpha": x[m]}
        rates = []
        for i, route in enumerate(self.routes):
            R = p[f"d_{i + 1}"] + sum(q[l] / p[f"C_{l + 1}"] for l in route)
            rates.append(W[i] / R)
            out[f"window_{i + 1}"] = W[i]
            out[f"rate_{i + 1}"] = W[i] / R
        group = [p[f"N_{i + 1}"] * r for i, r in enumerate(rates)]
        out.update(link_observables(q, link_arrivals(self.routes, group), p, xp))
        return out

    def numeric_params(self, params: NetworkParams) -> dict[str, float]:
        """Floats from a :class:`NetworkParams` with the same routes (C in packets/s, d and τ in s)."""
        if not isinstance(params, NetworkParams) or params.routes != self.routes:
            raise ValueError(
                f"params={params!r} is invalid: accepted a NetworkParams with routes {self.routes}"
            )
        out = {"g": float(params.g)}
        if self.group_delays:
            out.update({f"tau_{i + 1}": float(t) for i, t in enumerate(params.path_delays)})
        else:
            out["tau"] = float(params.feedback_delay)
        for l in range(self.links):
            out[f"C_{l + 1}"] = float(params.capacity[l])
            out[f"K_{l + 1}"] = float(params.K[l])
        for i in range(self.groups):
            out[f"N_{i + 1}"] = float(params.flows[i])
            out[f"d_{i + 1}"] = float(params.rtt[i])
        if not all(math.isfinite(v) for v in out.values()):
            raise ValueError(f"params={params!r} is invalid: non-finite values")
        return out
