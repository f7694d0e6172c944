"""The law interface shared by every law module (adding a law = adding one file in this package).

A law is a frozen, hashable dataclass. Its fields are *static* options (interpretations of an ambiguous line of a
paper, compiled into the kernel); numeric gains live in a ``params`` mapping of scalars that may differ per
scenario. The engine calls :meth:`Law.step` once per *event* of one flow — a data ACK, a Scout ACK, a timer
(retransmission timeout, Scout timeout, the law's own wake-up) — with that flow's state as scalars. Every field of
the state returned by :meth:`Law.init` is carried per flow with its dtype (``FLOAT`` or ``INT``); the law reads and
returns them by name. Laws are elementwise: the same code runs on ``[N]`` vectors (tests, :meth:`Law.init`) and on
scalars (the engine).

**Signals.** A law declares what it consumes in :attr:`Law.signals`; the engine computes only those:

* ``"ecn"``: the ECN echo of each data ACK (``ev.mark``; with delayed ACKs, DCTCP's two-state receiver);
* ``"rtt"``: a per-ACK RTT sample, send slot to ACK slot (``ev.rtt_sample``, slots, with optional seeded
  measurement noise);
* ``"scout"``: DWTCP's Scouts (``ev.scout_ok``, ``ev.scout_lost``, ``ev.d_s``, ``ev.ipg_s`` and the Scout
  bookkeeping a law needs to schedule its own wake-ups);
* ``"hops"``: reserved for the per-path vector of hop queues of the multi-hop core (``ev.hop_queues``); a new
  signal is a new :class:`Events` field with a default, so existing laws do not change;
* ``"int"``: in-band network telemetry of the bottleneck port, stamped on each data packet as it leaves
  (``ev.int_qlen``: packets queued behind it; ``ev.int_tx``: packets the port has sent, cumulative;
  ``ev.int_ts``: the departure slot; the port's rate is one packet per slot), echoed by its ACK (HPCC's INT);
  on routed ports every port of the route writes its own record (per-hop vectors, with ``ev.int_rate``).

Every data ACK carries ``ev.ack``, ``ev.n_acked`` (packets it acknowledges, 1 without delayed ACKs), ``ev.nloss``
(losses it reports) and the sequence state ``snd_nxt``/``snd_una``.

**Outputs.** Every law keeps ``cwnd`` (packets): the sender keeps at most ``floor(cwnd)`` packets in flight. A
*rate-based* law (:attr:`Law.rate_based`) also keeps ``rate`` (packets per slot, ≤ 1 = line rate): the sender paces
at that rate, and ``cwnd`` is only a cap. A law that needs to act between its events (DWTCP's decrease fires as
soon as a Scout is late) returns the next slot it must be called at from :meth:`Law.next_wake`.

**At the switch.** A law whose :attr:`Law.switch_width` is k > 0 keeps k numbers per flow at the bottleneck switch
(a table ``[flows, k]``, zero at the start): each packet of the flow that the switch accepts calls
:meth:`Law.at_switch` with the flow's law state and the table, which may update both (a router's rate allocation:
the grant is stored in the sender's state and the law applies it when the packet's ACK arrives, one RTT later).
A flow's row is cleared when it finishes (its FIN releases what it held). Single-bottleneck runs of one law.

Units: windows in packets, time in slots (one slot = one data packet's transmission time L/C at the bottleneck).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import jax.numpy as jnp

from ...params import Bound

__all__ = [
    "Events",
    "Law",
    "LawOption",
    "FLOAT",
    "INT",
    "NEVER",
    "SIGNALS",
    "window_closed",
    "reno_increase",
    "window_init",
    "float32_ok",
    "check_law_params",
]

#: Floating dtype of law state. float32 halves memory traffic; per-ACK increments (≥ 1/W_max ≈ 1e-3) stay far
#: above float32 resolution for windows below ~10⁴ packets.
FLOAT = jnp.float32
INT = jnp.int32
#: The magnitudes a law parameter may take in ``FLOAT`` arithmetic: far enough inside float32's normal range
#: (1.2e-38 to 3.4e38) that products and quotients of two parameters neither underflow nor overflow.
FLOAT_RANGE = (1e-18, 1e18)


def float32_ok(value: Any) -> bool:
    """Whether a law parameter is 0 or a finite number inside :data:`FLOAT_RANGE` in magnitude."""
    try:
        v = abs(float(value))
    except (TypeError, ValueError, OverflowError):
        return False
    return v == 0.0 or FLOAT_RANGE[0] <= v <= FLOAT_RANGE[1]


#: "Never" as a slot (largest int32).
NEVER = 2**31 - 1
#: Signals a law may declare (see the module docstring).
SIGNALS = frozenset({"ecn", "rtt", "scout", "hops", "int"})


class Events(NamedTuple):
    """What one event brings to one flow's sender (scalars in the engine; ``[N]`` arrays in tests).

    Attributes
    ----------
    t : int
        The slot index (slots since the start of the run).
    ack : bool
        A data ACK arrived.
    mark : bool
        That ACK echoes an ECN mark (ECE).
    nloss : int
        Data losses reported with this ACK (detected at the first later delivery of the flow, SACK-like).
    timeout : bool
        The retransmission timer fired (every outstanding packet of the flow was lost).
    snd_nxt : int
        Packets sent so far (cumulative, before this event's sends).
    snd_una : int
        Packets acknowledged or known lost so far (cumulative, including this event).
    scout_ok : int
        Scout ACKs received within the target delay d_t with this event.
    scout_lost : int
        Scouts declared lost with this event (dropped, or older than d_t without an ACK).
    d_s : float
        Scout delay d_s in slots, Algorithm 1 line 18 with the sign fixed (docs/equations.md DWTCP note).
    ipg_s : float
        Scout inter-arrival gap in slots (for DWTCP's inter-packet-gap variant).
    rtt : float
        Base RTT of the flow in slots (Algorithm 1's T, "physical hardware RTT").
    active : bool
        The flow is between its start and stop slot and has data left.
    n_acked : int
        Packets this data ACK acknowledges (1 without delayed ACKs).
    rtt_sample : float
        RTT sample of this ACK in slots (signal ``"rtt"``; 0 otherwise).
    scout_wait_from : int
        Send slot of the oldest Scout not yet acknowledged (:data:`NEVER` if none): d_s grows from it.
    scout_last_delay, scout_last_gap : float
        Delay of the last Scout ACK and gap between the last two (slots).
    scout_last_rcv : int
        Slot of the last Scout ACK.
    scout_share : float
        The flow's share of a Scout ACK's bandwidth signal: 1, or 1/(flows of its host pair between their start
        and stop slots) with per-datapath Scouts ([DWTCP] §3.3).
    hop_queues : Any
        Reserved (signal ``"hops"``, multi-hop core).
    size : int
        The flow's size in packets (``INFINITE_SIZE`` of :mod:`..state`: long-lived); remaining = size − snd_una.
    deadline : int
        Slot by which the flow should finish (:data:`NEVER`: no deadline; [D2TCP]).
    int_qlen, int_tx, int_ts : int
        In-band telemetry echoed by this ACK (signal ``"int"``; 0 on a timer event; None where the engine has
        none): queue behind the packet at its departure (packets), the port's cumulative transmitted packets, the
        departure slot. On routed ports, vectors with one entry per hop of the route.
    int_rate : int
        Routed ports only (None on the single bottleneck, whose port serves one packet per slot): each hop's port
        rate in per mille of the highest rate (0: past the end of the flow's route).
    """

    t: Any
    ack: Any = False
    mark: Any = False
    nloss: Any = 0
    timeout: Any = False
    snd_nxt: Any = 0
    snd_una: Any = 0
    scout_ok: Any = 0
    scout_lost: Any = 0
    d_s: Any = 0.0
    ipg_s: Any = 0.0
    rtt: Any = 1.0
    active: Any = True
    n_acked: Any = 1
    rtt_sample: Any = 0.0
    scout_wait_from: Any = NEVER
    scout_last_delay: Any = 0.0
    scout_last_gap: Any = 0.0
    scout_last_rcv: Any = 0
    scout_share: Any = 1.0
    hop_queues: Any = None
    size: Any = 2**30
    deadline: Any = NEVER
    int_qlen: Any = None
    int_tx: Any = None
    int_ts: Any = None
    int_rate: Any = None


#: Units of a law option that make it a quantity (a time or a rate): unit → (kind, the unit in seconds or bit/s).
QUANTITY_UNITS: dict[str, tuple[str, float]] = {
    "us": ("time", 1e-6),
    "ms": ("time", 1e-3),
    "s": ("time", 1.0),
    "mbps": ("rate", 1e6),
    "gbps": ("rate", 1e9),
}


@dataclass(frozen=True)
class LawOption:
    """A command-line flag a law owns (``packet run`` builds its flags and help from the registry).

    Parameters
    ----------
    flag : str
        The flag, e.g. ``"--g"``.
    help : str
        Help text.
    default : float, bool or str
        Default value (a bool flag is a switch; a str is one of ``choices``).
    param : str, optional
        The numeric law parameter the flag sets (after ``convert``).
    option : str, optional
        The static option (dataclass field of the law) a bool flag or a choice flag sets.
    lo, hi, lo_open, hi_open : range of accepted values (numeric flags), in the flag's unit; or
    bound : Bound, optional
        The range as a shared declaration (e.g. ``BOUNDS["g"]`` of :mod:`dwtcp_fluid.params`); built from ``lo``,
        ``hi``, ``lo_open``, ``hi_open`` when not given. Every check of the option's value reads ``bound``.
    below : str, optional
        The flag of another option of the same law whose value this one must stay below (``--t-low`` below
        ``--t-high``).
    convert : callable, optional
        ``convert(value, link) -> float``: the parameter from the flag's value and the link (e.g. β in the
        paper's byte convention to β for windows in packets).
    unit : str
        The unit of the flag's value as a key suffix (``"us"``, ``"mbps"``, ``"packets"``; "" when the name says it
        or the value has none): documents echo the option as ``<dest>_<unit>`` (``t_low_us``).
    choices : tuple of str, optional
        A choice flag: the accepted values of the static option ``option`` (e.g. a hop signal), ``default``
        among them. The law's own check of the field should test membership in this tuple (one definition).
    default_from_link : callable, optional
        ``default_from_link(link) -> value``: a default that follows the link (e.g. Patched TIMELY's RTT_ref
        above the base RTT); ``default`` is then its value at the paper's setting and ``default_note`` says the
        rule in the help.
    default_note : str
        The rule of ``default_from_link``, for the help.
    """

    flag: str
    help: str
    default: float | bool | str
    param: str | None = None
    option: str | None = None
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    convert: Callable[[float, Any], float] | None = None
    unit: str = ""
    choices: tuple[str, ...] | None = None
    bound: Bound | None = None
    below: str | None = None
    default_from_link: Callable[[Any], float] | None = None
    default_note: str = ""

    def default_for(self, link: Any) -> float | bool | str:
        """The default on ``link``: ``default_from_link(link)`` where the default follows the link."""
        return self.default_from_link(link) if self.default_from_link is not None else self.default

    def __post_init__(self) -> None:
        if self.bound is None:
            object.__setattr__(self, "bound", Bound(self.lo, self.hi, self.lo_open, self.hi_open))
        else:
            b = self.bound
            for k in ("lo", "hi", "lo_open", "hi_open"):
                object.__setattr__(self, k, getattr(b, k))
        if self.choices is not None and (self.option is None or self.default not in self.choices):
            raise ValueError(
                f"LawOption {self.flag}: choices={self.choices!r} with option={self.option!r}, "
                f"default={self.default!r} is invalid: accepted a static option and a default among the choices"
            )

    @property
    def quantity(self) -> tuple[str, float] | None:
        """``("time", seconds per unit)`` or ``("rate", bit/s per unit)`` for an option whose value is a time or a
        rate (its ``unit`` is one of :data:`QUANTITY_UNITS`): typed with its unit on the command line ("50us",
        "10Mbps") like every other time and rate; None for a plain number."""
        return QUANTITY_UNITS.get(self.unit)

    @property
    def is_switch(self) -> bool:
        """A bool flag setting a static option (given = on)."""
        return self.option is not None and self.choices is None

    @property
    def dest(self) -> str:
        """The flag's name as a Python identifier (``--mark-cmp`` → ``mark_cmp``)."""
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Law:
    """Base class of laws. Subclasses set ``name`` and implement :meth:`default_params`, :meth:`init` and
    :meth:`step` (and :meth:`next_wake` when they act between events)."""

    name: ClassVar[str] = "law"
    #: Signals the law consumes (subset of :data:`SIGNALS`).
    signals: ClassVar[frozenset[str]] = frozenset({"ecn"})
    #: Derived from ``signals``: the engine sends and serves Scouts for this law (DWTCP).
    uses_scouts: ClassVar[bool] = False
    #: State field traced besides ``cwnd`` (time average and end value per chunk, records ``alpha_*``).
    aux: ClassVar[str | None] = None
    #: Summary key of the time average of ``aux`` (e.g. ``"alpha_mean"``).
    aux_summary: ClassVar[str | None] = None
    #: Kept for the summaries: the law carries a DCTCP-style estimate ``alpha`` in [0, 1].
    has_alpha: ClassVar[bool] = False
    #: The law paces at ``rate`` (packets per slot) instead of sending whenever the window allows.
    rate_based: ClassVar[bool] = False
    #: Command-line flags of the law.
    options: ClassVar[tuple[LawOption, ...]] = ()
    #: Numbers per flow the law keeps at the bottleneck switch (0: none; see the module docstring).
    switch_width: ClassVar[int] = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        unknown = set(cls.signals) - SIGNALS
        if unknown:
            raise ValueError(
                f"law {cls.name!r} declares signals={sorted(unknown)}: accepted {sorted(SIGNALS)}"
            )
        cls.uses_scouts = "scout" in cls.signals

    @property
    def poisson_pacing(self) -> bool:
        """A rate-based law whose sends form a Bernoulli process at its rate (geometric gaps between sends, drawn
        from the run's seed: the slotted Poisson process) instead of a fixed schedule (default False)."""
        return False

    def default_params(self, **context: Any) -> dict[str, float]:
        """Numeric parameters (floats) for one scenario; ``context`` may hold ``dctcp``/``dwtcp`` parameter
        objects and ``init_cwnd``."""
        raise NotImplementedError

    def with_int_hops(self, hops: int) -> Law:
        """This law reading ``hops`` hops of in-band telemetry per ACK (signal ``"int"`` on routed ports: per-hop
        vectors, :class:`Events`); a law that keeps per-hop state returns a copy sized for them. A law that reads
        one hop only is refused (``ValueError``)."""
        if "int" in self.signals:
            raise ValueError(
                f"law={self.name!r} is invalid on routed ports: it reads the in-band telemetry of one hop only "
                "(accepted a law that reads per-hop telemetry, e.g. hpcc)"
            )
        return self

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        """Initial per-flow state, a dict of ``[n]`` arrays that contains at least ``"cwnd"`` (packets), and
        ``"rate"`` (packets per slot) for a rate-based law."""
        raise NotImplementedError

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        """One event of the law for one flow (or elementwise for many): returns the new state."""
        raise NotImplementedError

    def reference_warnings(
        self, p: Mapping[str, Any], *, rtt: float, buffer: float, slot_s: float
    ) -> tuple[str, ...]:
        """One line for each reference of the law (a target delay, an RTT threshold) that makes a run meaningless
        at base RTT ``rtt`` (slots) with a ``buffer``-packet queue (``p``: the law's parameters in the engine's
        units; ``slot_s``: the slot in seconds, for the message). Empty: nothing to say."""
        return ()

    def at_switch(
        self, s: dict[str, Any], table: Any, f: Any, pkt: Mapping[str, Any], p: Mapping[str, Any]
    ) -> tuple[dict[str, Any], Any]:
        """A packet of flow ``f`` is accepted at the switch: the new law state and switch table ``[flows,
        switch_width]`` (float32). ``pkt`` holds ``t`` (slot), ``seq`` (the packet's number, 0-based), ``una``
        (packets acknowledged or lost), ``size`` (packets), ``deadline`` (slot, :data:`NEVER`: none), ``rtt``
        (the flow's base RTT, slots) and ``capacity`` (packets per slot). Called only when
        :attr:`switch_width` > 0."""
        return s, table

    def next_wake(self, s: Mapping[str, Any], ev: Events, p: Mapping[str, Any]) -> Any:
        """The next slot after ``ev.t`` at which the law must be called without an ACK (:data:`NEVER`: none)."""
        return jnp.full(jnp.shape(ev.t), NEVER, INT)


def window_init(p: Mapping[str, Any], n: int, ssthresh_inf: float) -> dict[str, Any]:
    """The state every window law starts from: ``init_cwnd`` packets, no ssthresh yet, no window to recover."""
    return {
        "cwnd": jnp.full(n, p["init_cwnd"], FLOAT),
        "ssthresh": jnp.full(n, ssthresh_inf, FLOAT),
        "recover": jnp.zeros(n, INT),
    }


def window_closed(snd_una: Any, recover: Any, above: bool = False) -> Any:
    """True once every packet sent before the last reaction has been acknowledged (one reaction per window);
    ``above``: once something above it is (snd_una > recover: Linux's and ns-3's CWR exit, "CWR is to be held
    something *above* high_seq is ACKed", ns-3 ``ackNumber > m_recover``; the ``"hold"`` rule)."""
    return snd_una > recover if above else snd_una >= recover


def reno_increase(cwnd: Any, ssthresh: Any, ack: Any, n_acked: Any = 1, floor: bool = False) -> Any:
    """Reno/NewReno increase on one data ACK of ``n_acked`` packets: +n in slow start (cwnd < ssthresh), +n/cwnd
    otherwise (RFC 5681 with appropriate byte counting, RFC 3465); ``floor``: +n/max(⌊cwnd⌋, 1) in congestion
    avoidance (a law's ``ai_count="floor"``).

    This is the standard per-ACK form of "+1 packet per RTT" and the default reading of DWTCP's data ACK increase
    (docs/equations.md, DWTCP note 1).
    """
    k = jnp.asarray(n_acked).astype(FLOAT)
    inc = jnp.where(cwnd < ssthresh, k, k / (jnp.maximum(jnp.floor(cwnd), FLOAT(1.0)) if floor else cwnd))
    return jnp.where(ack, cwnd + inc, cwnd)


def check_law_params(law: Law, defaults: Mapping[str, float], overrides: Mapping[str, Any]) -> None:
    """Refuse ``law_params`` overrides of a law before any work: a key the law has no parameter of, a value that is
    not a finite number inside :data:`FLOAT_RANGE`, or one outside the range its :class:`LawOption` declares (for
    an option whose value is the parameter itself, without ``convert``)."""
    for key, v in overrides.items():
        if key not in defaults:
            raise ValueError(
                f"law_params[{key!r}] is not a parameter of law {law.name!r}: accepted keys {sorted(defaults)}"
            )
        opt = next((o for o in law.options if o.param == key and o.convert is None), None)
        if opt is not None and not opt.bound.ok(v):
            raise ValueError(f"law_params[{key!r}]={v!r} is out of range: accepted {opt.bound.accepted(key)}")
        if isinstance(v, bool) or not float32_ok(v):
            raise ValueError(
                f"law_params[{key!r}]={v!r} is out of range: accepted 0 or a magnitude in "
                f"[{FLOAT_RANGE[0]:g}, {FLOAT_RANGE[1]:g}] (float32 law arithmetic)"
            )
