"""Frozen, validated parameter objects for the link, DCTCP and DWTCP, with the papers' derived quantities.

All windows and queues are in packets of ``packet_size`` bytes, capacities in packets/s, times in seconds
(docs/equations.md, "Units"). Strings such as ``"10Gbps"`` and ``"100us"`` are accepted wherever a
capacity or a time is expected and are converted once, here, by :mod:`dwtcp_fluid.units`.

Every invalid value raises ``ValueError`` naming the parameter, the value and the accepted range.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from . import units
from .bounds import Bound, check_range
from .formulas import dctcp_fixed_point_queue, kbar_star

__all__ = [
    "DEFAULT_BETA",
    "DEFAULT_CAPACITY",
    "DEFAULT_FLOWS",
    "DEFAULT_G",
    "DEFAULT_RTT",
    "DWTCP_TARGET",
    "TARGET_HELP",
    "G_HELP",
    "BETA_HELP",
    "LinkParams",
    "DctcpParams",
    "DwtcpParams",
    "check_range",
    "Bound",
    "BOUNDS",
    "MODEL_BOUNDS",
    "PRESETS",
    "DCTCP_ANALYSIS",
    "DWTCP_EVALUATION",
]


#: Command-line defaults, one per parameter: every command's flag reads its default (and its help text) from here,
#: and tests/test_cli_defaults.py fails when two commands default the same flag differently.
#: Link of every single-bottleneck command: 10 Gbps, base RTT 100 µs ([DCTCP-A] section 5, [DWTCP] section 5.1).
DEFAULT_CAPACITY = "10Gbps"
DEFAULT_RTT = "100us"
#: Number of long-lived flows N.
DEFAULT_FLOWS = 10
#: DWTCP decrease gain β (byte convention), [DWTCP] section 5.1.
DEFAULT_BETA = 0.001
#: DCTCP EWMA gain g, [DCTCP-A] section 5 (1/16).
DEFAULT_G = 1.0 / 16.0
#: DWTCP target queue K of d_t = τ + K·L/C, packets, for the commands that run the protocol (``dwtcp simulate``,
#: ``phase dwtcp``, ``packet run --law dwtcp``, ``packet compare-fluid --law dwtcp``): K = 100, [DWTCP]'s evaluation
#: setting (section 5.1). The paper's analysis (eq. (6), condition (14)) takes K = 0 (d_t = τ), but with K = 0 the
#: packet law keeps no standing queue to aim at: a Scout is late as soon as it waits at all, so the law reads any
#: queue as congestion. The library's :class:`DwtcpParams` keeps ``k = 0`` for the analysis of appendix A.
DWTCP_TARGET = 100.0
#: Help text of every ``--target`` flag.
#: [PROXY] §2.4's Patched TIMELY RTT_ref (s), chosen "since RTTs are on the order of 30 µs ... to achieve positive
#: queues": 20 µs above the base RTT.
PATCHED_RTT_REF = 50e-6
PATCHED_RTT_REF_MARGIN = 20e-6


def patched_rtt_ref(d: float) -> float:
    """Patched TIMELY's default RTT_ref (s) at base RTT ``d`` (s): [PROXY] §2.4's 50 µs, or the base RTT + 20 µs
    where that is higher ([PROXY] chose 50 µs for RTTs of about 30 µs so that the queue is positive; an RTT_ref at or
    below the base RTT has its fixed point below an empty queue, and the patch decreases the rate forever)."""
    return max(PATCHED_RTT_REF, float(d) + PATCHED_RTT_REF_MARGIN)


TARGET_HELP = (
    f"Target queue K of d_t = τ + K·L/C, packets ≥ 0 ({DWTCP_TARGET:g}: [DWTCP]'s evaluation; "
    "0: d_t = τ, the analysis of eq. (6))."
)
#: Help text of every ``--g`` flag (the command-line vocabulary's and the DCTCP laws' option).
G_HELP = "DCTCP EWMA gain g, 1e-6 ≤ g ≤ 1."
#: Help text of every ``--beta`` flag (the command-line vocabulary's and the DWTCP law's option).
BETA_HELP = "DWTCP decrease gain β, 0 < β ≤ 1 (the paper's byte convention)."


#: The declared range of every shared parameter, by its library name (:class:`LinkParams`, :class:`DctcpParams`,
#: :class:`DwtcpParams`, the fluid models' parameter mappings, the command-line flags that set them). The bounds are
#: the physically meaningful ones: a value outside is not a setting any datacenter or WAN path has, and the
#: numerics are not claimed there.
BOUNDS: dict[str, Bound] = {
    "capacity": Bound(1e3, 1e15, why="bits/s: 1 kbit/s to 1 Pbit/s"),
    "rtt": Bound(1e-9, 100.0, why="seconds: 1 ns to 100 s"),
    "packet_size": Bound(64.0, 65536.0, why="bytes: the smallest Ethernet frame to the largest IP packet"),
    "flows": Bound(1, 10**6, integer=True, why="long-lived flows"),
    "K": Bound(0.0, 1e8, why="marking threshold in packets"),
    "g": Bound(1e-6, 1.0, why="EWMA gain, [DCTCP-A] eq. (3)"),
    "beta": Bound(1e-9, 1.0, why="decrease gain; the decrease factor must stay a fraction"),
    "k": Bound(0.0, 1e8, why="target queue in packets, [DWTCP] eq. (2)"),
    "eta": Bound(1e-3, 1.0, why="[HPCC] target utilization η"),
    "swift_beta": Bound(0.0, 1e3, lo_open=True, why="[Swift] multiplicative decrease constant β"),
    "scout_size": Bound(1.0, 65536.0, why="bytes"),
    "alpha0": Bound(0.0, 1e6, lo_open=True, why="initial Scout coefficient"),
    "wbar": Bound(1e-6, 1e8, why="w̄ = (C·d + K)/N in packets"),
    "psi": Bound(0.0, 1e8, lo_open=True, why="ψ = K/(C·d)"),
    "window": Bound(1e-6, 1e9, why="window in packets"),
    "kbar": Bound(0.0, 1e12, why="queue ahead of the Scout in packets"),
    "w_star": Bound(1e-6, 1e9, why="fair-share window in packets"),
    "duration": Bound(1e-9, 1e5, why="seconds"),
    "seed": Bound(0, 2**32 - 1, integer=True, why="a 32-bit seed"),
    "buffer": Bound(1, 10**7, integer=True, why="packets"),
    "bdp": Bound(1e-6, 1e12, why="packets"),
    "rto_min": Bound(1e-6, 10.0, why="seconds: the retransmission timer of the packet core"),
    "min_cwnd": Bound(1.0, 1e4, why="packets: the window floor after a decrease"),
    # ρ = sqrt|det J| for a complex pair of the 2×2 return-map Jacobian J: J's float64 roundoff over a period's
    # RK4 steps is ~1e-13 absolute, so det J is known to ~1e-13 and ρ only to ~sqrt(1e-13) ≈ 3e-7; a bound below
    # that cannot be told apart from 0 and the tuner would spend its whole budget chasing it
    "rho_max": Bound(
        1e-6, 1.0, hi_open=True, why="largest return-map (Floquet) multiplier; ρ is resolved to ~3e-7"
    ),
}

#: Declared ranges of the fluid models' parameter mappings, by parameter name (``dw.solve(model, {...}, ...)``):
#: the shared bounds above plus the models' own names. A model whose parameter of the same name means something
#: else declares its own ``FluidModel.param_bounds``.
MODEL_BOUNDS: dict[str, Bound] = {
    "C": Bound(1e-6, 1e13, why="capacity in packets per time unit"),
    "d": Bound(0.0, 100.0, why="base RTT in seconds"),
    "tau": Bound(0.0, 100.0, why="base RTT in seconds"),
    "N": Bound(1.0, 1e6, why="number of flows"),
    "K": BOUNDS["K"],
    "g": BOUNDS["g"],
    "beta": BOUNDS["beta"],
    "beta_w": Bound(1e-9, 1e3, why="decrease gain for windows in packets"),
    "k": BOUNDS["k"],
    "wbar": BOUNDS["wbar"],
    "psi": Bound(0.0, 1e8, why="ψ = K/(C·d)"),
    "s_over_l": Bound(0.0, 1.0, why="Scout size over packet size"),
    "alpha": Bound(0.0, 1e6, lo_open=True, why="Scout coefficient"),
}


def _set(obj: Any, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True)
class LinkParams:
    """A single bottleneck link.

    Parameters
    ----------
    capacity : str or float
        Bottleneck capacity: a rate string ("10Gbps", "833333pps") or a number in bits/s. Stored in bits/s.
    rtt : str or float
        Base round-trip (propagation) delay d, which the DWTCP paper calls τ: "100us" or seconds.
    packet_size : str or float
        Packet (MSS) size L in bytes, default 1500.
    """

    capacity: float | str = "10Gbps"
    rtt: float | str = "100us"
    packet_size: float | str = 1500.0

    def __post_init__(self) -> None:
        try:
            size = units.parse_size(self.packet_size)
        except ValueError as e:
            raise ValueError(f"packet_size: {e}") from None
        size = BOUNDS["packet_size"].check("packet_size", size)
        _set(self, "packet_size", size)
        try:
            rate = units.parse_rate(self.capacity)
        except ValueError as e:
            raise ValueError(f"capacity: {e}") from None
        bps = rate.bps(size)
        _set(self, "capacity", BOUNDS["capacity"].check("capacity", bps))
        try:
            rtt = units.parse_time(self.rtt)
        except ValueError as e:
            raise ValueError(f"rtt: {e}") from None
        _set(self, "rtt", BOUNDS["rtt"].check("rtt", rtt))

    @property
    def C(self) -> float:
        """Capacity in packets/s."""
        return units.rate_to_pps(self.capacity, float(self.packet_size))  # floats after __post_init__

    @property
    def d(self) -> float:
        """Base RTT d in seconds (the DCTCP paper's name)."""
        return float(self.rtt)

    @property
    def tau(self) -> float:
        """Base RTT τ in seconds (the DWTCP paper's name)."""
        return float(self.rtt)

    @property
    def L(self) -> float:
        """Packet size in bytes."""
        return float(self.packet_size)

    @property
    def bdp(self) -> float:
        """Bandwidth-delay product C·d in packets (DWTCP: BDP = τ·C/L, [DWTCP] eq. (5))."""
        return self.C * self.d

    def replace(self, **changes: Any) -> LinkParams:
        return replace(self, **changes)


@dataclass(frozen=True)
class DctcpParams:
    """DCTCP on one bottleneck, the setting of [DCTCP-A].

    Parameters
    ----------
    link : LinkParams
    flows : int
        Number of long-lived flows N ≥ 1.
    K : float
        ECN marking threshold in packets (mark when the queue is above K), K ≥ 0.
    g : float
        EWMA gain of the α estimator, 0 < g ≤ 1 (eq. (3)).
    """

    link: LinkParams = field(default_factory=LinkParams)
    flows: int = 10
    K: float = 65.0
    g: float = 1.0 / 16.0

    def __post_init__(self) -> None:
        if not isinstance(self.link, LinkParams):
            raise ValueError(f"link={self.link!r} is invalid: accepted a LinkParams")
        _set(self, "flows", BOUNDS["flows"].check("flows", self.flows))
        _set(self, "K", BOUNDS["K"].check("K", self.K))
        _set(self, "g", BOUNDS["g"].check("g", self.g))

    N = property(lambda self: self.flows, doc="Number of flows N.")

    @property
    def R_star(self) -> float:
        """Fixed feedback delay R* = d + K/C in seconds ([DCTCP-A] eq. (5)-(8))."""
        return self.link.d + self.K / self.link.C

    @property
    def wbar(self) -> float:
        """w̄ = (C·d + K)/N, the per-flow window at the marking threshold, [DCTCP-A] eq. (14)."""
        return (self.link.bdp + self.K) / self.flows

    @property
    def psi(self) -> float:
        """ψ = K/(C·d), section 3.3.2 of [DCTCP-A]."""
        return self.K / self.link.bdp

    @property
    def W_max(self) -> float:
        """W_max = C·d + K in packets (section 4 of [DCTCP-A])."""
        return self.link.bdp + self.K

    @property
    def W_star(self) -> float:
        """W* = W_max/N, the fair-share window in packets (section 4 of [DCTCP-A])."""
        return self.W_max / self.flows

    @property
    def fixed_point_queue(self) -> float | None:
        """Queue 2N − C·d of the w̄ ≤ 2 fixed point ([DCTCP-A] eq. (15)), None when w̄ > 2."""
        return dctcp_fixed_point_queue(self.flows, self.link.bdp) if self.wbar <= 2.0 else None

    @property
    def K_guideline(self) -> float:
        """Marking threshold K ≈ 0.17·C·d for full throughput, [DCTCP-A] eq. (17)."""
        return 0.17 * self.link.bdp

    @property
    def g_range(self) -> tuple[float, float]:
        """Gain range 5/(C·d+K) ≲ g ≲ 1/sqrt(C·d+K), [DCTCP-A] eqs. (18), (27)."""
        return 5.0 / self.W_max, 1.0 / math.sqrt(self.W_max)

    def replace(self, **changes: Any) -> DctcpParams:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DwtcpParams:
    """DWTCP on one bottleneck, the setting of [DWTCP].

    Parameters
    ----------
    link : LinkParams
    flows : int
        Number of long-lived flows N ≥ 1.
    beta : float
        Decrease gain β, 0 < β ≤ 1. Its unit convention is ``beta_unit`` (docs/equations.md, DWTCP note 3).
    k : float
        Target queue in packets, d_t = τ + k·L/C (eq. (2), (4)). 0 for the fluid analysis of appendix A;
        the evaluation (section 5.1) uses K = 100 for the packet-level law.
    scout_size : float
        Scout packet size S in bytes (64 B in the evaluation).
    alpha0 : float
        Initial Scout coefficient α (20 in the evaluation, 1 in Algorithm 1).
    beta_unit : {"bytes", "packets"}
        Unit of w inside β·sqrt(w). ``"bytes"`` (default) is the paper's convention, in which β = 0.001 gives
        β·sqrt(w) ≈ 0.17 at w = 20 packets; the models use :attr:`beta_sqrt_packets`.
    """

    link: LinkParams = field(default_factory=LinkParams)
    flows: int = 10
    beta: float = 0.001
    k: float = 0.0
    scout_size: float = 64.0
    alpha0: float = 20.0
    beta_unit: Literal["bytes", "packets"] = "bytes"

    def __post_init__(self) -> None:
        if not isinstance(self.link, LinkParams):
            raise ValueError(f"link={self.link!r} is invalid: accepted a LinkParams")
        _set(self, "flows", BOUNDS["flows"].check("flows", self.flows))
        _set(self, "beta", BOUNDS["beta"].check("beta", self.beta))
        _set(self, "k", BOUNDS["k"].check("k", self.k))
        _set(self, "scout_size", BOUNDS["scout_size"].check("scout_size", units.parse_size(self.scout_size)))
        _set(self, "alpha0", BOUNDS["alpha0"].check("alpha0", self.alpha0))
        if self.beta_unit not in ("bytes", "packets"):
            raise ValueError(f"beta_unit={self.beta_unit!r} is invalid: accepted 'bytes' or 'packets'")

    N = property(lambda self: self.flows, doc="Number of flows N.")

    @property
    def tau(self) -> float:
        """Base RTT τ in seconds."""
        return self.link.tau

    @property
    def bdp(self) -> float:
        """BDP = τ·C/L in packets, [DWTCP] eq. (5)."""
        return self.link.bdp

    @property
    def d_t(self) -> float:
        """Target Scout delay d_t = τ + k·L/C in seconds, [DWTCP] eqs. (2), (4)."""
        return self.link.tau + self.k / self.link.C

    def d_s(self, kbar: float) -> float:
        """Scout delay d_s = τ + k̄·L/C in seconds for k̄ packets ahead of the Scout, [DWTCP] eq. (4)."""
        return self.link.tau + kbar / self.link.C

    @property
    def kbar_crit(self) -> float:
        """k̄* = 2·BDP/sqrt(β) in packets, [DWTCP] eq. (14)."""
        return float(kbar_star(self.link.bdp, self.beta))

    @property
    def window_fair_share(self) -> float:
        """Fair-share window BDP/N in packets (the claimed equilibrium of appendix A)."""
        return self.link.bdp / self.flows

    @property
    def beta_guideline(self) -> float:
        """The paper's guideline β ≈ 1/(2·sqrt(BDP/N)) (section 5.1 of [DWTCP])."""
        return 1.0 / (2.0 * math.sqrt(self.window_fair_share))

    @property
    def beta_sqrt_packets(self) -> float:
        """β for β·sqrt(w) with w in packets: β·sqrt(L) under the byte convention (docs/equations.md, note 3)."""
        return self.beta * math.sqrt(self.link.L) if self.beta_unit == "bytes" else self.beta

    @property
    def scout_ratio(self) -> float:
        """S/L: the Scout's share of the per-RTT increase (L + S)/τ in packets, eq. (7)."""
        return self.scout_size / self.link.L

    def replace(self, **changes: Any) -> DwtcpParams:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: DCTCP analysis setting [DCTCP-A]: 10 Gbps, 100 µs, K = 65, g = 1/16.
DCTCP_ANALYSIS = DctcpParams(link=LinkParams("10Gbps", "100us"), flows=10, K=65.0, g=1.0 / 16.0)

#: DWTCP evaluation setting ([DWTCP], sections 5.1 and 6.2): 10 Gbps, 100 µs, β = 0.001,
#: K = 100, α₀ = 20, 64 B Scouts. The 10-Scout low-priority buffer and 250-packet switch buffer belong to the
#: packet-level scenario, not to the fluid parameters.
DWTCP_EVALUATION = DwtcpParams(
    link=LinkParams("10Gbps", "100us"), flows=5, beta=0.001, k=100.0, scout_size=64.0, alpha0=20.0
)

PRESETS: dict[str, DctcpParams | DwtcpParams] = {
    "dctcp-analysis": DCTCP_ANALYSIS,
    "dwtcp-evaluation": DWTCP_EVALUATION,
}
