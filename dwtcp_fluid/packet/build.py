"""Building scenarios from the project's parameter objects: :func:`build` → :class:`PacketRun`.

A :class:`PacketRun` is a fully specified scenario: the law(s), the :class:`~.state.PacketConfig`, the
per-scenario :class:`~.state.Scenario` arrays, and the slot length. :func:`build` converts seconds, rates and bytes
once (through :class:`~dwtcp_fluid.params.LinkParams`): one slot = L/C seconds at the link's capacity.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..params import DCTCP_ANALYSIS, DWTCP_EVALUATION, DctcpParams, DwtcpParams, LinkParams, check_range
from ..units import parse_time
from .impair import capacity_schedule as _capacity_schedule
from .impair import jitter_table
from .laws import Law, get_law
from .laws.base import check_law_params
from .scouts import scout_period
from .state import INFINITE_SIZE, PacketConfig, Scenario
from .switch import mark_threshold
from .topology import SINGLE, check_law_on

__all__ = ["PacketRun", "build", "check_rtt", "MIN_RTT_SLOTS"]


@dataclass(frozen=True)
class PacketRun:
    """A packet-level scenario ready to run. ``slot`` is the slot length L/C in seconds; ``laws`` the laws of a
    run with several (a flow's law is ``laws[scenario.law_idx[f]]``), else ``(law,)``."""

    law: Law
    cfg: PacketConfig
    scenario: Scenario
    slot: float
    link: LinkParams
    warmup_chunks: int
    meta: dict[str, Any] = field(default_factory=dict)
    laws: tuple[Law, ...] = ()

    @property
    def duration(self) -> float:
        """Simulated time in seconds."""
        return self.cfg.n_slots * self.slot

    @property
    def engine_laws(self) -> tuple[Law, ...]:
        """The laws the engine runs (``laws`` or ``(law,)``)."""
        return self.laws or (self.law,)


def _per_flow(name: str, value: Any, n: int, default: Any) -> np.ndarray:
    if value is None:
        value = default
    arr = np.asarray([parse_time(v) if isinstance(v, str) else float(v) for v in np.ravel([value])], float)
    if arr.size == 1:
        arr = np.full(n, arr[0])
    if arr.size != n:
        raise ValueError(f"{name} has {arr.size} values: accepted 1 or flows={n} values")
    return arr


def scout_leads(scouts: np.ndarray, idx: np.ndarray, laws: Sequence[Law], params: Sequence[Mapping]) -> Any:
    """Per-datapath Scouts ([DWTCP] §3.3): each flow's stream leader, or None when every law sends per-flow
    Scouts. A flow of a law with ``scout_per="datapath"`` that sends Scouts is on host pair ``f mod D`` (D the
    law's ``scout_paths``); the pair's first such flow sends the pair's Scouts and the others read them. Every
    other flow leads itself."""
    if not any(getattr(lw, "scout_per", "flow") == "datapath" for lw in laws):
        return None
    lead = np.arange(len(idx))
    first: dict[tuple[int, int], int] = {}
    for f, i in enumerate(idx):
        if scouts[f] > 0 and getattr(laws[i], "scout_per", "flow") == "datapath":
            lead[f] = first.setdefault((int(i), f % int(params[i]["scout_paths"])), f)
    return lead


def _time(name: str, v: Any) -> float:
    t = parse_time(v) if isinstance(v, str) else float(v)
    check_range(name, t, lo=0.0, why="seconds")
    return t


#: The shortest base RTT the core represents, in slots: an RTT is a whole number of slots, at least one each way.
MIN_RTT_SLOTS = 2


def check_rtt(rtt: float, link: LinkParams) -> float:
    """``rtt`` (s), or ValueError naming it below :data:`MIN_RTT_SLOTS` slots of ``link`` (L/C each): the core
    refuses what it cannot represent instead of running another RTT than the one reported."""
    slot = 1.0 / link.C
    return check_range(
        "rtt", rtt, lo=MIN_RTT_SLOTS * slot, why=f"seconds: at least 2 slots of L/C = {slot:.3g} s"
    )


def build(
    law: str | Law | Sequence[str | Law] = "dctcp",
    *,
    link: LinkParams | None = None,
    flows: int = 10,
    K: float | None = None,
    duration: str | float = "100ms",
    seed: int = 0,
    rtts: Sequence[float | str] | None = None,
    starts: Sequence[float | str] | None = None,
    stops: Sequence[float | str] | None = None,
    sizes: Sequence[float] | None = None,
    deadlines: Sequence[float | str] | None = None,
    buffer: int = 250,
    scout_buffer: int = 10,
    mark_at: str = "enqueue",
    mark_cmp: str = "ge",
    rto: str | float = "1ms",
    access: float = 1.0,
    start_jitter: bool = True,
    trace_points: int = 1000,
    warmup_fraction: float = 0.5,
    dctcp: DctcpParams | None = None,
    dwtcp: DwtcpParams | None = None,
    law_params: Mapping[str, float] | Sequence[Mapping[str, float]] | None = None,
    law_of_flow: Sequence[int] | None = None,
    ring_len: int | None = None,
    jitter: str | float | None = None,
    jitter_dist: str | Sequence[Any] = "uniform",
    jitter_reorder: bool = False,
    loss: float = 0.0,
    delack: int = 1,
    delack_timeout: str | float = "1ms",
    rtt_noise: str | float = 0.0,
    rtt_noise_dist: str = "gauss",
    capacity_schedule: Sequence[tuple[Any, Any]] | None = None,
    debug: bool = False,
) -> PacketRun:
    """Build one scenario.

    Parameters
    ----------
    law : str, Law or sequence of them
        A registered law name (``"reno"``, ``"dctcp"``, ``"dctcp-per-ack"``, ``"dwtcp"``, ...) or a law object
        (with its static options); a sequence runs several laws side by side (see ``law_of_flow``).
    link : LinkParams
        Bottleneck capacity (the highest rate: it defines the slot), base RTT (for flows without ``rtts``) and
        packet size; default 10 Gbps, 100 µs.
    flows : int
        Number of senders N.
    K : float
        ECN marking threshold in packets (default: ``dctcp.K``, 65 in the DCTCP analysis setting). A law with a
        congestion point of its own (parameters ``cp_kmin``, ``cp_kmax``, ``cp_pmax`` > 0: DCQCN) sets RED-like
        marking from K = ``cp_kmin`` to ``cp_kmax`` instead (:func:`~.switch.red_probability`).
    duration : str or float
        Simulated time ("100ms" or seconds).
    rtts, starts, stops : sequences of times, optional
        Per-flow base RTT (default the link's), start and stop times (default 0 and never).
    sizes : sequence of float, optional
        Flow sizes in packets (default long-lived); a finished flow's completion time is recorded. Flows not
        larger than the initial window send no Scouts.
    deadlines : sequence of times, optional
        Per-flow deadline after the flow's start (inf: none; default none): laws read it as ``ev.deadline``
        ([D2TCP]) and the summary counts the deadlines met.
    buffer, scout_buffer : int
        Data buffer (packets) and Scout buffer (Scouts).
    mark_at, mark_cmp : str
        ECN marking semantics (see :class:`~.state.PacketConfig`).
    rto : str or float
        Minimum retransmission timeout (default 1 ms, a datacenter setting; Linux uses 200 ms).
    access : float
        Access-link rate as a fraction of the bottleneck rate, 0 < access ≤ 1.
    start_jitter : bool
        Add a random offset in [0, RTT) to each start time (drawn from ``seed``), so flows are not in lockstep.
    trace_points : int
        About this many chunks; statistics are recorded per chunk.
    warmup_fraction : float
        Summaries use the chunks after this fraction of the run (default 0.5: the last half).
    dctcp, dwtcp : parameter objects
        Source of g (DCTCP) and β, K_target, α₀, S (DWTCP, default the DWTCP_EVALUATION preset).
    law_params : dict or sequence of dicts
        Overrides of the law's numeric parameters (one dict per law with several laws, or one for all).
    law_of_flow : sequence of int, optional
        With several laws: the law index of each flow (default: the flows split into contiguous equal groups).
    ring_len : int, optional
        Minimum slots of ACK look-ahead (kept for compatibility; the engine sizes its rings itself).
    jitter, jitter_dist, jitter_reorder
        ACK-path jitter (see :mod:`.impair`): largest delay (uniform) or mean (exponential), or samples.
    loss : float
        Probability of losing a data packet after the bottleneck.
    delack, delack_timeout
        Delayed ACKs: one ACK per ``delack`` packets or ``delack_timeout`` after the first held packet.
    rtt_noise : time
        Standard deviation of the seeded noise on per-ACK RTT samples (laws with the ``"rtt"`` signal), or with
        ``rtt_noise_dist="uniform"`` the width x of noise uniform in [0, x].
    rtt_noise_dist : {"gauss", "uniform"}
        Distribution of the RTT noise.
    capacity_schedule : sequence of (time, rate)
        Time-varying bottleneck rate (see :mod:`.impair`); rates ≤ the link's capacity.
    debug : bool
        Check per-flow packet conservation at every chunk end (records ``residual``).
    """
    names: list[str | Law] = list(law) if isinstance(law, list | tuple) else [law]  # type: ignore[list-item]
    laws = tuple(get_law(x) if isinstance(x, str) else x for x in names)
    if not laws:
        raise ValueError("law=[] is invalid: accepted a law name, a Law, or a non-empty sequence of them")
    check_law_on(laws, SINGLE)
    link = link or (dctcp.link if dctcp else (dwtcp.link if dwtcp else LinkParams()))
    flows = int(check_range("flows", flows, lo=1, hi=100000, integer=True))
    dctcp = dctcp or DctcpParams(link=link, flows=flows, K=DCTCP_ANALYSIS.K, g=DCTCP_ANALYSIS.g)
    dwtcp = dwtcp or DWTCP_EVALUATION.replace(link=link, flows=flows)
    K = dctcp.K if K is None else check_range("K", K, lo=0.0, why="marking threshold, packets")
    check_range("access", access, lo=0.0, hi=1.0, lo_open=True, why="fraction of the bottleneck rate")
    check_range("warmup_fraction", warmup_fraction, lo=0.0, hi=1.0, hi_open=True)
    check_range("loss", loss, lo=0.0, hi=1.0, hi_open=True, why="probability")
    check_range("delack", delack, lo=1, hi=1000, integer=True, why="packets per ACK")
    if rtt_noise_dist not in ("gauss", "uniform"):
        raise ValueError(f"rtt_noise_dist={rtt_noise_dist!r} is invalid: accepted 'gauss' or 'uniform'")
    if mark_cmp not in ("ge", "gt"):
        raise ValueError(f"mark_cmp={mark_cmp!r} is invalid: accepted 'ge' or 'gt'")
    slot = 1.0 / link.C  # C is in packets/s: one slot is one packet's transmission time L/C
    dur = parse_time(duration) if isinstance(duration, str) else float(duration)
    check_range("duration", dur, lo=slot * 10, why="seconds, at least 10 slots")
    n_slots = int(math.ceil(dur / slot))
    chunk = max(1, int(math.ceil(n_slots / max(1, trace_points))))
    n_chunks = int(math.ceil(n_slots / chunk))
    rtt_s = _per_flow("rtts", rtts, flows, link.rtt)
    for v in np.unique(rtt_s):
        check_rtt(float(v), link)
    rtt = np.rint(rtt_s / slot).astype(np.int64)
    start = np.rint(_per_flow("starts", starts, flows, 0.0) / slot).astype(np.int64)
    rng = np.random.default_rng(seed)
    if start_jitter:
        start = start + rng.integers(0, rtt)
    stop_s = _per_flow("stops", stops, flows, np.inf)
    stop = np.where(np.isfinite(stop_s), np.rint(np.where(np.isfinite(stop_s), stop_s, 0) / slot), 2**31 - 1)
    size = np.minimum(_per_flow("sizes", sizes, flows, float(INFINITE_SIZE)), INFINITE_SIZE).astype(np.int32)
    dl_s = _per_flow("deadlines", deadlines, flows, np.inf)
    if np.any(dl_s <= 0):
        raise ValueError(f"deadlines={deadlines!r} is out of range: accepted times > 0 (inf: none)")
    fin_dl = np.isfinite(dl_s)
    deadline = np.where(fin_dl, start + np.rint(np.where(fin_dl, dl_s, 0) / slot), 2**31 - 1)
    if np.any(size < 1):
        raise ValueError(f"sizes={sizes!r} is out of range: accepted packets ≥ 1")
    if law_of_flow is None:
        idx = (np.arange(flows) * len(laws)) // flows
    else:
        idx = np.asarray(law_of_flow, int)
        if idx.shape != (flows,) or np.any((idx < 0) | (idx >= len(laws))):
            raise ValueError(
                f"law_of_flow={law_of_flow!r} is invalid: accepted {flows} indices in [0, {len(laws)})"
            )
    if isinstance(law_params, Mapping) or law_params is None:
        overrides = [dict(law_params or {})] * len(laws)
    else:
        overrides = [dict(p) for p in law_params]
        if len(overrides) != len(laws):
            raise ValueError(f"law_params has {len(overrides)} dicts: accepted one per law ({len(laws)})")
    params = []
    for lw, over in zip(laws, overrides, strict=True):
        p = lw.default_params(dctcp=dctcp, dwtcp=dwtcp)
        check_law_params(lw, p, over)
        p.update(over)
        params.append({k: np.float32(v) for k, v in p.items()})
    # a law that carries its switch's marking ([DCQCN]'s CP: cp_kmin, cp_kmax, cp_pmax) sets RED marking
    red_kmax, red_pmax = 0.0, 0.0
    cps = [p for p in params if float(p.get("cp_pmax", 0.0)) > 0]
    if cps:
        cp = {k: float(cps[0][k]) for k in ("cp_kmin", "cp_kmax", "cp_pmax")}
        if any({k: float(p[k]) for k in cp} != cp for p in cps):
            raise ValueError(
                f"law_params cp_kmin/cp_kmax/cp_pmax differ between laws: accepted one CP ({cp})"
            )
        if not cp["cp_kmax"] > cp["cp_kmin"]:
            raise ValueError(
                f"law_params['cp_kmax']={cp['cp_kmax']:g} is out of range: accepted above cp_kmin={cp['cp_kmin']:g}"
            )
        K, red_kmax, red_pmax = cp["cp_kmin"], cp["cp_kmax"], cp["cp_pmax"]
    init_cwnd = np.asarray([params[i].get("init_cwnd", 10.0) for i in idx])
    scouts = np.asarray([laws[i].uses_scouts for i in idx]) & (size > init_cwnd)
    rate = np.asarray([params[i].get("scout_rate", 1.0) for i in idx], np.float64)
    scouts = np.where(scouts, scout_period(rtt, rate), 0)
    lead = scout_leads(scouts, idx, laws, params)
    if lead is not None:
        scouts = np.where(lead == np.arange(flows), scouts, 0)  # a pair's other flows send no Scouts
    k_target = np.asarray([params[i].get("k", dwtcp.k) for i in idx], float)
    cap = _capacity_schedule(capacity_schedule, link.C, link.L, n_slots)
    rto_s = _time("rto", rto)
    scen = Scenario(
        rtt=rtt.astype(np.int32),
        start=start.astype(np.int32),
        stop=stop.astype(np.int32),
        size=size,
        scouts=scouts.astype(np.int32),
        scout_dt=(rtt + k_target).astype(np.float32),
        law_idx=idx.astype(np.int32),
        K=np.float32(K),
        kth=np.int32(mark_threshold(K, mark_cmp)),
        mark_dequeue=np.bool_(mark_at == "dequeue"),
        buffer=np.int32(buffer),
        scout_buffer=np.int32(scout_buffer),
        rto=np.int32(max(1, round(rto_s / slot))),
        access=np.float32(access),
        seed=np.int32(seed),
        n_slots=np.int32(n_chunks * chunk),
        chunk=np.int32(chunk),
        jitter_table=jitter_table(jitter, jitter_dist, slot),
        jitter_reorder=np.bool_(jitter_reorder),
        loss_p=np.float32(loss),
        delack_m=np.int32(delack),
        delack_timeout=np.int32(max(1, round(_time("delack_timeout", delack_timeout) / slot))),
        rtt_noise=np.float32(_time("rtt_noise", rtt_noise) / slot),
        rtt_noise_uniform=np.bool_(rtt_noise_dist == "uniform"),
        cap_start=cap[0],
        cap_rate=cap[1],
        cap_opp=cap[2],
        law=tuple(params),
        deadline=deadline.clip(0, 2**31 - 1).astype(np.int32),
        red_kmax=np.float32(red_kmax),
        red_pmax=np.float32(red_pmax),
        scout_lead=None if lead is None else lead.astype(np.int32),
    )
    cfg = PacketConfig(
        n_flows=flows,
        n_chunks=n_chunks,
        chunk=chunk,
        ring_len=max(int(ring_len or 0), int(rtt.max()) + buffer + 3),
        buffer=buffer,
        scout_buffer=scout_buffer,
        scouts_per_slot=max(1, int(link.L // dwtcp.scout_size)),
        mark_at=mark_at,  # type: ignore[arg-type]
        mark_cmp=mark_cmp,  # type: ignore[arg-type]
        debug=debug,
    )
    name = "+".join(lw.name for lw in laws)
    meta = {"law": name, "flows": flows, "K": float(K), "seed": seed, "duration_s": n_slots * slot}
    if red_pmax > 0:
        meta["marking"] = {"kind": "red", "kmin": float(K), "kmax": red_kmax, "pmax": red_pmax}
    # a law reference (an RTT threshold, a target) that makes the run meaningless at this RTT: one line each
    warns = [m for lw, p in zip(laws, params, strict=True) for m in lw.reference_warnings(
        {k: float(v) for k, v in p.items()}, rtt=float(rtt.min()), buffer=float(buffer), slot_s=slot)]  # fmt: skip
    if warns:
        meta["warnings"] = list(dict.fromkeys(warns))
    return PacketRun(
        laws[0], cfg, scen, slot, link, int(n_chunks * warmup_fraction), meta, laws if len(laws) > 1 else ()
    )
