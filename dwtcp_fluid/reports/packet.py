"""JSON document of ``packet run``: the packet core's summary next to the full inputs (``packet scenario``'s is in
:mod:`.packet_scenario`).

``packet run``'s law flags come from the law registry (each law's :class:`~dwtcp_fluid.packet.laws.base.LawOption`):
the library takes the law objects (their static options, e.g. DWTCP's ``ipg``) and the numeric options by the
flag's name in the flag's unit (``{"beta": 0.001, "t_low": 50.0}``), checks and converts them as the command does,
and echoes each option of the run's laws with its unit in the key (``t_low_us``, ``timely_delta_mbps``).

A run is planned (every input checked, the scenario built: :func:`plan_packet_run`) before it runs
(:meth:`PacketRunPlan.run`), so that a caller can estimate its cost or warn in between; :func:`packet_run_report`
does both. The single bottleneck's data (:class:`PacketRunData`) exports the per-chunk records as an xarray
Dataset with a time coordinate and units (:meth:`PacketRunData.to_dataset`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..params import BOUNDS, LinkParams
from ._json import to_jsonable

__all__ = [
    "NOISE_DISTS",
    "SINGLE_ONLY",
    "PacketRunData",
    "PacketRunPlan",
    "plan_packet_run",
    "packet_run_report",
    "run_packet_report",
    "rtt_laws",
    "check_rtt_noise",
    "chain_document",
    "law_options",
]

#: RTT measurement noise distributions of ``packet run`` and ``packet scenario`` ([PROXY]: uniform in [0, x]).
NOISE_DISTS = ("uniform", "gauss")

#: Single-bottleneck features the multi-port engine does not model, with their neutral values (seconds for times).
SINGLE_ONLY: dict[str, Any] = dict(mark_at="enqueue", jitter=0.0, loss=0.0, delack=1, rtt_noise=0.0)


def _check(name: str, value: Any, ok: bool, accepted: str) -> None:
    if not ok:
        raise ValueError(f"{name}={value!r} is invalid: accepted {accepted}")


class PacketRunData(NamedTuple):
    """A single-bottleneck run and its summary with the per-chunk ``records`` (what ``packet run --plot`` draws)."""

    run: Any
    summary: dict[str, Any]

    def to_dataset(self) -> Any:
        """The per-chunk records as an ``xarray.Dataset`` (time coordinate in s, units on every variable;
        :func:`~dwtcp_fluid.packet.dataset.to_dataset`)."""
        from ..packet.dataset import to_dataset

        return to_dataset(self.run, self.summary)


def _laws(law: Any) -> list[Any]:
    from ..packet.laws import get_law

    items = [law] if isinstance(law, str) or not isinstance(law, Sequence) else list(law)
    _check("law", law, bool(items), "at least one law")
    return [get_law(x) if isinstance(x, str) else x for x in items]


def _owners(dest: str) -> list[str]:
    from ..packet.laws import LAWS

    return [n for n, cls in LAWS.items() if any(o.dest == dest for o in cls.options)]


def law_options(
    laws: Sequence[Any], options: Mapping[str, float] | None, link: LinkParams
) -> tuple[list[dict[str, float]], dict[str, Any]]:
    """Each law's numeric parameters from ``options`` (by flag name, in the flag's unit; a law's default where
    absent), checked against its :class:`~dwtcp_fluid.packet.laws.base.LawOption` ranges, and the echo of every
    option of the run's laws (numeric: the value in the flag's unit; switches: the law object's field), keyed
    ``<name>_<unit>`` where the option has a unit."""
    options = dict(options or {})
    owned: dict[str, Any] = {}
    for lw in laws:
        for opt in type(lw).options:
            owned.setdefault(opt.dest, opt)
    for key, v in options.items():
        if key not in owned:
            owners = _owners(key)
            accepted = (
                f"only with law {' | '.join(owners)}"
                if owners
                else "an option of "
                + ", ".join(sorted({o for lw in laws for o in (x.dest for x in type(lw).options)}))
            )
            _check(key, v, False, accepted)
    params: list[dict[str, float]] = []
    for lw in laws:
        p: dict[str, float] = {}
        for opt in type(lw).options:
            if opt.option is not None:
                continue
            v = options.get(opt.dest, opt.default_for(link))
            from ..packet.laws.base import float32_ok

            _check(opt.dest, v, opt.bound.ok(v), f"{opt.bound.accepted(opt.dest)}: {opt.help}")
            if opt.below is not None:
                other = next(o for o in type(lw).options if o.flag == opt.below)
                w = options.get(other.dest, other.default)
                unit = f" {opt.unit}" if opt.unit else ""
                _check(opt.dest, v, v < w, f"{opt.dest} below {other.dest} = {w:g}{unit}")
            p[opt.param] = opt.convert(v, link) if opt.convert else float(v)
            _check(opt.dest, v, float32_ok(p[opt.param]), f"{opt.bound.accepted(opt.dest)}: {opt.help}")
        params.append(p)
    echo: dict[str, Any] = {}
    for dest, opt in owned.items():
        key = f"{dest}_{opt.unit}" if opt.unit else dest
        if opt.option is not None:  # a switch (bool) or a choice (its value) of the law object
            v = next(getattr(lw, opt.option) for lw in laws if opt in type(lw).options)
            echo[key] = v if opt.choices is not None else bool(v)
        else:
            echo[key] = options.get(dest, opt.default_for(link))
    return params, echo


def rtt_laws() -> list[str]:
    """Registered laws that read the RTT signal (the only ones RTT noise changes)."""
    from ..packet.laws import LAWS

    return [n for n, cls in LAWS.items() if "rtt" in cls.signals]


def check_rtt_noise(seconds: float, laws: Sequence[Any]) -> None:
    """Refuse RTT noise outside [0, 1] s, or above 0 when no law of the run reads the RTT (it would change
    nothing)."""
    _check("rtt_noise", seconds, 0.0 <= seconds <= 1.0, "a time between 0 and 1 s")
    if seconds > 0 and not any("rtt" in lw.signals for lw in laws):
        _check("rtt_noise", seconds, False, "only with a law that reads the RTT: " + " | ".join(rtt_laws()))


#: The inputs a single-bottleneck run's document echoes from the run itself (:func:`_run_echo`).
RUN_ECHO_KEYS = (
    "seed",
    "marking_threshold",
    "slot_s",
    "capacity_pps",
    "rtt_s",
    "rtt_noise_s",
    "rtt_noise_dist",
)


def _run_echo(pr: Any) -> dict[str, Any]:
    """What a built single-bottleneck run was given, from the run itself (shared by run and scenario)."""
    noise = float(pr.scenario.rtt_noise) * pr.slot
    return {
        "seed": int(pr.meta.get("seed", int(pr.scenario.seed))),
        "marking_threshold": float(pr.meta.get("K", float("nan"))),
        "slot_s": pr.slot,
        "capacity_pps": pr.link.C,
        "rtt_s": pr.link.d,
        "rtt_noise_s": noise,
        "rtt_noise_dist": ("uniform" if bool(pr.scenario.rtt_noise_uniform) else "gauss") if noise else None,
    }


def _summary_doc(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "records"}


@dataclass(frozen=True)
class PacketRunPlan:
    """A checked ``packet run``: the built single-bottleneck run (``packet_run``, a
    :class:`~dwtcp_fluid.packet.build.PacketRun`) or the multi-port run's arguments (``chain``), and the echo of the
    inputs the document carries. :meth:`run` runs it."""

    topology: str
    echo: dict[str, Any]
    link: LinkParams
    duration_s: float
    flows: int
    packet_run: Any = None
    chain: dict[str, Any] = field(default_factory=dict)
    engine: str = "auto"

    def run(self, progress: Any = None) -> tuple[dict[str, Any], Any]:
        """The document and the data: :class:`PacketRunData` on the single bottleneck, else the
        :class:`~dwtcp_fluid.packet.multihop_run.ChainSummary`; ``progress(done, total)`` follows a multi-port run
        chunk by chunk."""
        if self.topology == "single":
            from ..packet.scenarios import run as run_packet

            pr = self.packet_run
            summary = run_packet(pr, engine=self.engine)
            doc = {**_summary_doc(summary), **_run_echo(pr), **self.echo}
            return to_jsonable(doc), PacketRunData(pr, summary)
        from ..packet.multihop_run import run_topology

        s = run_topology(**self.chain, progress=progress)
        return to_jsonable({**chain_document(s), **self.echo}), s


def chain_document(s: Any) -> dict[str, Any]:
    """The summary of a multi-port run (:class:`~dwtcp_fluid.packet.multihop_run.ChainSummary`): per port the mean
    queue (packets) and utilization, per group the throughput share of the port rate, ports by name and routes."""
    from ..packet.topology import parse_topology

    topo = parse_topology(s.topology)
    out: dict[str, Any] = {
        "topology": s.topology,
        "law": s.law,
        "flows_per_group": list(s.flows_per_group),
        "queue_mean": s.queue_mean.tolist(),
        "utilization": s.utilization.tolist(),
        "group_share": s.group_share.tolist(),
        "cwnd_mean": s.cwnd_mean.tolist(),
        "marks": s.marks,
        "drops": s.drops,
        "slot_s": s.slot_s,
        "ports": [topo.port_name(h) for h in range(len(s.queue_mean))],
        "routes": [list(r) for r in s.routes],
    }
    for k in ("scouts_sent", "scouts_served", "scouts_dropped", "scouts_lost"):  # a Scout law's runs
        if k in s.records:
            out[k] = int(s.records[k].sum())
    if s.traffic is not None:
        out["flow_src_dst_spine"] = [
            [int(a), int(b), int(c)]
            for a, b, c in zip(s.traffic.src, s.traffic.dst, s.traffic.spine, strict=True)
        ]
        out["flow_share"] = s.throughput_share.tolist()
    return out


def plan_packet_run(
    law: Any = "dctcp",
    options: Mapping[str, float] | None = None,
    *,
    link: LinkParams | None = None,
    flows: int = 10,
    marking_threshold: float = 65.0,
    duration: float = 0.1,
    seed: int = 0,
    buffer: int = 250,
    mark_at: str = "enqueue",
    mark_cmp: str = "ge",
    jitter: float = 0.0,
    jitter_dist: str = "uniform",
    reorder: bool = False,
    loss: float = 0.0,
    delack: int = 1,
    delack_timeout: float = 1e-3,
    rtt_noise: float = 0.0,
    rtt_noise_dist: str = "uniform",
    topology: str = "single",
    traffic: str = "all-to-all",
    engine: str = "auto",
    rto_min: float = 1e-3,
    min_cwnd: float | None = None,
) -> PacketRunPlan:
    """Check ``packet run``'s inputs and build the run (cheap: nothing runs yet, so a caller can estimate the cost).

    Parameters
    ----------
    law : str, Law or sequence of them
        The law(s), by name or as objects with their static options; several laws split the flows evenly.
    options : mapping, optional
        Numeric law options by flag name in the flag's unit (``{"g": 1/16}``, ``{"t_low": 50.0}`` in µs); absent
        ones take the law's default. An option no law of the run owns is refused.
    link : LinkParams
        Capacity, base RTT and packet size (default 10 Gbps, 100 µs, 1500 B).
    flows : int
        Long-lived flows N (leaf-spine: per talking leaf pair, ≤ 64).
    marking_threshold : float
        ECN threshold K, packets.
    duration : float
        Simulated time, s (between 20 slots and 100 s, at least one base RTT).
    seed, buffer, mark_at, mark_cmp, jitter, jitter_dist, reorder, loss, delack, delack_timeout
        As :func:`~dwtcp_fluid.packet.build.build` (buffer in packets; jitter and timeout in s).
    rtt_noise, rtt_noise_dist
        Per-ACK RTT measurement noise (s) for laws that read the RTT; ``"uniform"`` (width) or ``"gauss"`` (sd).
    topology, traffic
        ``"single"``, ``"path:K"``, ``"parking-lot:K"`` or ``"leaf-spine:LxS"``; leaf-spine traffic
        ``"all-to-all"`` or ``"permutation"``. Multi-port runs take one law and none of :data:`SINGLE_ONLY`.
    rto_min : float
        Retransmission timeout of every sender, s (the packet core's RTO; Linux's rto_min).
    min_cwnd : float, optional
        The window floor after a decrease, packets, for every law of the run that keeps one (the laws' own
        default where None: 2 for DCTCP, Reno and CUBIC, 1 for DWTCP); refused when no law of the run has one.
    engine : {"auto", "jax", "native"}
        Which slot loop runs a single-bottleneck run (:func:`~dwtcp_fluid.packet.batch.choose_engine`): "auto"
        takes the native loop where it is proven bit-identical to the JAX reference, else JAX; results do not
        depend on it. Multi-port runs use the JAX engine ("native" is refused).
    """
    from ..packet.topology import check_law_on, parse_topology

    _check("engine", engine, engine in ("auto", "jax", "native"), "auto | jax | native")
    link = LinkParams() if link is None else link
    laws = _laws(law)
    _check("flows", flows, isinstance(flows, int) and 1 <= flows <= 10000, "an integer in [1, 10000]")
    _check("flows", flows, flows >= len(laws), f"at least one flow per law ({len(laws)})")
    K = marking_threshold
    _check("marking_threshold", K, math.isfinite(K) and K >= 0, "packets >= 0")
    _check("buffer", buffer, 1 <= buffer <= 10**6, "an integer in [1, 1000000]")
    _check("mark_at", mark_at, mark_at in ("enqueue", "dequeue"), "enqueue | dequeue")
    _check("mark_cmp", mark_cmp, mark_cmp in ("ge", "gt"), "ge | gt")
    _check("loss", loss, 0 <= loss < 1, "a probability in [0, 1)")
    _check("delack", delack, 1 <= delack <= 64, "an integer in [1, 64] (packets per ACK)")
    _check("jitter_dist", jitter_dist, jitter_dist in ("uniform", "exponential"), "uniform | exponential")
    _check("rtt_noise_dist", rtt_noise_dist, rtt_noise_dist in NOISE_DISTS, " | ".join(NOISE_DISTS))
    _check("duration", duration, 20.0 / link.C <= duration <= 100.0, "a time between 20 slots and 100 s")
    slots = f"at most 2^31 slots ({2**31 / link.C:.3g} s here)"  # the engine counts slots in int32
    _check("duration", duration, duration * link.C < 2**31 - 1, slots)
    # a run shorter than one RTT returns no ACK at all: nothing to report, refused rather than reported as zeros
    _check("duration", duration, link.d <= duration, f"at least one base RTT ({link.d:g} s)")
    params, echo = law_options(laws, options, link)
    BOUNDS["rto_min"].check("rto_min", rto_min)
    _check("rto_min", rto_min, rto_min * link.C >= 1.0, f"at least one slot ({1.0 / link.C:.3g} s)")
    if min_cwnd is not None:
        BOUNDS["min_cwnd"].check("min_cwnd", min_cwnd)
        floors = [_has_param(lw, "min_cwnd", link) for lw in laws]
        windowed = " | ".join(n for n in _window_laws(link))
        _check("min_cwnd", min_cwnd, any(floors), f"only with a law that keeps a window floor: {windowed}")
        for p, has in zip(params, floors, strict=True):
            if has:
                p["min_cwnd"] = float(min_cwnd)
        echo["min_cwnd_packets"] = float(min_cwnd)
    echo["rto_min_s"] = float(rto_min)
    check_rtt_noise(rtt_noise, laws)
    topo = parse_topology(topology)
    check_law_on(laws, topo, params[0] if len(laws) == 1 else None)
    common = {"flows": flows, "buffer": buffer, "mark_cmp": mark_cmp, "packet_size_bytes": link.L}
    base = dict(
        link=link,
        flows=flows,
        K=K,
        duration=duration,
        seed=seed,
        buffer=buffer,
        mark_cmp=mark_cmp,
        rto=rto_min,
    )
    impair = dict(mark_at=mark_at, jitter=jitter, loss=loss, delack=delack, rtt_noise=rtt_noise)
    if topo.kind == "single":
        _check("traffic", traffic, traffic == "all-to-all", "all-to-all (the only value off leaf-spine)")
        from ..packet.build import build

        pr = build(
            laws if len(laws) > 1 else laws[0],
            **base,
            **impair,
            law_params=params if len(params) > 1 else params[0],
            jitter_dist=jitter_dist,
            jitter_reorder=reorder,
            delack_timeout=delack_timeout,
            rtt_noise_dist=rtt_noise_dist,
        )
        echo = {
            **echo,
            **common,
            "topology": "single",
            "mark_at": mark_at,
            "jitter_s": jitter,
            "jitter_dist": jitter_dist,
            "reorder": reorder,
            "loss": loss,
            "delack": delack,
            "delack_timeout_s": delack_timeout,
            "rtt_noise_s": rtt_noise,  # as given (the run holds it in float32 slots)
        }
        return PacketRunPlan("single", echo, link, duration, flows, packet_run=pr, engine=engine)
    _check("traffic", traffic, traffic in ("all-to-all", "permutation"), "all-to-all | permutation")
    if topo.kind != "leaf-spine":
        _check("traffic", traffic, traffic == "all-to-all", "all-to-all (the only value off leaf-spine)")
    else:
        _check("flows", flows, 1 <= flows <= 64, "an integer in [1, 64] (flows per leaf pair)")
    _check("law", ",".join(lw.name for lw in laws), len(laws) == 1, "one law on a multi-hop topology")
    _check(
        "engine", engine, engine != "native", "auto | jax with a multi-hop topology (the JAX engine runs it)"
    )
    for key, neutral in SINGLE_ONLY.items():
        only = f"{neutral!r} (the only value with topology {topo.name})"
        _check(key, impair[key], impair[key] == neutral, only)
    chain = dict(topology=topo, law=laws[0], **base, law_params=params[0], traffic=traffic)
    echo = {
        **echo,
        **common,
        "seed": seed,
        "marking_threshold": K,
        "capacity_pps": link.C,
        "rtt_s": link.d,
        "duration_s": duration,
    }
    if topo.kind == "leaf-spine":
        echo["traffic"] = traffic
    return PacketRunPlan(topo.name, echo, link, duration, flows, chain=chain)


def _has_param(law: Any, name: str, link: LinkParams) -> bool:
    """Whether ``law`` has the numeric parameter ``name`` (in its defaults for a run on ``link``)."""
    from ..params import DctcpParams, DwtcpParams

    return name in law.default_params(dctcp=DctcpParams(link=link), dwtcp=DwtcpParams(link=link))


def _window_laws(link: LinkParams) -> list[str]:
    """The registered laws that keep a window floor ``min_cwnd``."""
    from ..packet.laws import LAWS

    return [n for n, cls in LAWS.items() if _has_param(cls(), "min_cwnd", link)]


def run_packet_report(
    law: Any = "dctcp", options: Mapping[str, float] | None = None, **settings: Any
) -> tuple[dict[str, Any], Any]:
    """:func:`packet_run_report` and its data (:class:`PacketRunData`, whose ``to_dataset()`` gives the records as
    an xarray Dataset; a ``ChainSummary`` on a multi-port topology).

    Parameters
    ----------
    law, options, **settings
        As :func:`plan_packet_run`.
    """
    return plan_packet_run(law, options, **settings).run()


def packet_run_report(
    law: Any = "dctcp", options: Mapping[str, float] | None = None, **settings: Any
) -> dict[str, Any]:
    """``packet run --json``'s document: N flows of one law (or several side by side) on a single bottleneck or a
    multi-port topology, summarised over the last half of the run, with the full inputs.

    Single bottleneck: the packet core's summary (:func:`~dwtcp_fluid.packet.summary.summarize`: queue in
    packets, utilization, fairness, windows, the laws' traced means, completion times), the link (``slot_s``,
    ``capacity_pps``, ``rtt_s``, ``packet_size_bytes``), the switch and impairments, and every option of the run's
    laws. Multi-port: per port and per group (:func:`chain_document`) and the same inputs.

    Parameters
    ----------
    law, options, **settings
        As :func:`plan_packet_run`.
    """
    return run_packet_report(law, options, **settings)[0]
