"""Running scenarios (one, or many batched by compiled shape) and the registered scenarios.

:func:`run` and :func:`run_many` take :class:`~.build.PacketRun` objects from :func:`~.build.build`;
:func:`run_many` groups runs by the static shape they compile to (:class:`~.state.EngineSpec`: padded flow
count, ring sizes, laws, features) and runs each group as one batch. :data:`SCENARIOS` holds named scenarios
(builders taking ``quick``) for the figures, the command line and the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..params import DCTCP_ANALYSIS, DWTCP_EVALUATION, LinkParams
from .batch import run_prepared, stack
from .build import PacketRun, build
from .engine import prepare, spec_for
from .impair import FIG16_SCHEDULE
from .records import finish_records
from .scenarios_incast import TIMELY_SCENARIOS
from .state import INFINITE_SIZE
from .summary import summarize
from .workloads import incast, poisson_flows

__all__ = ["PacketRun", "build", "run", "run_many", "summarize", "SCENARIOS", "scenario", "with_seed"]


def _spec(pr: PacketRun, min_shape: Mapping[str, int] | None = None) -> Any:
    spec = spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))
    if min_shape:
        raised: dict[str, Any] = {k: max(int(getattr(spec, k)), int(v)) for k, v in min_shape.items()}
        spec = replace(spec, **raised)
    return spec


def run(pr: PacketRun, engine: str = "auto") -> dict[str, Any]:
    """Run one scenario and return its summary (:func:`~.summary.summarize`) with the per-chunk records.

    Parameters
    ----------
    pr : PacketRun
        The scenario (:func:`~.build.build`, :func:`scenario`).
    engine : {"auto", "jax", "native"}
        "auto" (default: the native loop where it is bit-identical to the JAX reference, else JAX), "jax" or
        "native" (:func:`~.batch.choose_engine`).
    """
    return run_many([pr], engine=engine)[0]


def run_many(
    runs: Sequence[PacketRun], *, min_shape: Mapping[str, int] | None = None, engine: str = "auto"
) -> list[dict[str, Any]]:
    """Run scenarios, batching those that compile to the same shape; summaries in the order of ``runs``.

    ``engine``: "auto" (default: the native loop where it is bit-identical to the JAX reference, else JAX),
    "jax" or "native" (:func:`~.batch.choose_engine`).

    ``min_shape`` raises sizes of the :class:`~.state.EngineSpec` (``ack_rows``, ``timer_rows``, ...; powers of
    two) to at least the given values, so that runs of different RTTs share one compiled program; results do not
    depend on it (larger rings are never wrapped around).
    """
    groups: dict[Any, list[int]] = {}
    for i, pr in enumerate(runs):
        groups.setdefault(_spec(pr, min_shape), []).append(i)
    out: list[dict[str, Any] | None] = [None] * len(runs)
    for spec, idx in groups.items():
        raw = run_prepared(spec, [prepare(spec, runs[i].scenario) for i in idx], engine=engine)
        for i, r in zip(idx, raw, strict=True):
            pr = runs[i]
            one = {k: np.asarray(v)[None] for k, v in r.items()}
            rec = finish_records(one, pr.cfg.n_chunks, pr.cfg.n_flows)
            out[i] = summarize(pr, {k: v[0] for k, v in rec.items()})
    return out  # type: ignore[return-value]


# --- registered scenarios ------------------------------------------------------------------------------------


def _dctcp_analysis(n: int) -> Callable[[bool], list[PacketRun]]:
    def make(quick: bool) -> list[PacketRun]:
        d = DCTCP_ANALYSIS.replace(flows=n)
        return [build("dctcp", dctcp=d, flows=n, duration="30ms" if quick else "200ms")]

    return make


#: Spacing of the joins and leaves in the quick (CI) version of the DWTCP join/leave scenario, seconds.
JOIN_LEAVE_STEP_QUICK = 0.02


def _join_leave(quick: bool) -> list[PacketRun]:
    """DWTCP's five long flows joining 1 s apart and leaving 1 s apart (quick: 20 ms apart, for CI)."""
    step = JOIN_LEAVE_STEP_QUICK if quick else 1.0
    n = 5
    return [
        build(
            "dwtcp",
            dwtcp=DWTCP_EVALUATION,
            flows=n,
            starts=[i * step for i in range(n)],
            stops=[(n + i) * step for i in range(n)],
            duration=2 * n * step,
            start_jitter=False,
        )
    ]


def rtt_fairness(law: str, ratios: Sequence[float] = (1, 2, 4, 10), quick: bool = False) -> list[PacketRun]:
    """Two groups of two flows, base RTTs 100 µs and ratio × 100 µs, K = 35, g = 1/16 (section 5.1 of
    [DCTCP-A]); one batch (the ring is sized for the largest ratio)."""
    link = DCTCP_ANALYSIS.link
    dctcp = DCTCP_ANALYSIS.replace(flows=4, K=35.0)
    slot = 1.0 / link.C
    ring = int(round(max(ratios) * link.d / slot)) + 250 + 3  # largest RTT + the default buffer + 3
    return [
        build(
            law,
            link=link,
            flows=4,
            rtts=[link.d, link.d, r * link.d, r * link.d],
            dctcp=dctcp,
            duration="60ms" if quick else "500ms",
            ring_len=ring,
            seed=i,
        )
        for i, r in enumerate(ratios)
    ]


def _mixed(quick: bool) -> list[PacketRun]:
    """Two DCTCP and two ECN-Reno flows share the DCTCP analysis bottleneck (10 Gbps, 100 µs, K = 65)."""
    return [build(["dctcp", "reno"], flows=4, duration="40ms" if quick else "200ms")]


def _wan_dc(impairment: str) -> Callable[[bool], list[PacketRun]]:
    """[DCTCP-WAN]'s data-center experiment: one long DCTCP flow and three mice (100-packet flows every 5 ms)
    with 200 µs of ACK-path jitter, delayed ACKs (2 packets or 500 µs) or 0.1 % random loss."""
    kw = {
        "jitter": {"jitter": "200us"},
        "delack": {"delack": 2, "delack_timeout": "500us"},
        "loss": {"loss": 0.001},
    }[impairment]

    def make(quick: bool) -> list[PacketRun]:
        dur = 0.03 if quick else 0.3
        mice = [0.005 * (i + 1) for i in range(int(dur / 0.005) - 1)]
        n = 1 + len(mice)
        return [
            build(
                "dctcp",
                flows=n,
                starts=[0.0, *mice],
                sizes=[float(INFINITE_SIZE)] + [100.0] * len(mice),
                duration=dur,
                **kw,  # type: ignore[arg-type]
            )
        ]

    return make


def _wan_20ms(quick: bool) -> list[PacketRun]:
    """[DCTCP-WAN]'s WAN path: one DCTCP flow, 1 Gbps, RTT 20 ms, 2 ms of jitter, delayed ACKs, 0.1 % loss."""
    link = LinkParams(capacity="1Gbps", rtt="20ms")
    return [
        build(
            "dctcp",
            link=link,
            flows=1,
            buffer=1000,
            rto="200ms",
            duration="0.4s" if quick else "4s",
            jitter="2ms",
            delack=2,
            delack_timeout="40ms",
            loss=0.001,
        )
    ]


def _varying_capacity(quick: bool) -> list[PacketRun]:
    """[DWTCP] Fig. 16: five DWTCP flows while the bottleneck's rate changes every 0.1 s as 0.4, 0.7, 1, 10,
    0.8 Gbps (quick: every 10 ms, time-scaled)."""
    step = 0.01 if quick else 0.1
    sched = [(i * step, r) for i, (_, r) in enumerate(FIG16_SCHEDULE)]
    return [
        build(
            "dwtcp",
            dwtcp=DWTCP_EVALUATION,
            flows=5,
            duration=5 * step,
            capacity_schedule=sched,
            trace_points=500,
        )
    ]


def _poisson(cdf: str) -> Callable[[bool], list[PacketRun]]:
    """DCTCP flows arriving as a Poisson process at 50 % load, sizes from the ``cdf`` workload."""

    def make(quick: bool) -> list[PacketRun]:
        dur = 0.02 if quick else 0.2
        w = poisson_flows(0.5, cdf, duration=dur, seed=1)
        return [
            build(
                "dctcp",
                flows=len(w["starts"]),
                starts=w["starts"],
                sizes=w["sizes"],
                duration=dur,
                start_jitter=False,
            )
        ]

    return make


def _incast(quick: bool) -> list[PacketRun]:
    """Incast: 32 DCTCP senders each answer with 64 kB (44 packets) at once, every 2 ms."""
    bursts = 3 if quick else 20
    w = incast(32, 44, every="2ms", bursts=bursts)
    return [
        build(
            "dctcp",
            flows=len(w["starts"]),
            starts=w["starts"],
            sizes=w["sizes"],
            duration=0.002 * bursts,
            start_jitter=False,
        )
    ]


def _d2tcp_micro(quick: bool) -> list[PacketRun]:
    """[D2TCP] §4.1.2 scaled to 10 Gbps (four deadline flows), DCTCP then D2TCP."""
    from .deadlines import microbenchmark

    return [microbenchmark("dctcp"), microbenchmark("d2tcp")]


def _wan_claims(setting: str) -> Callable[[bool], list[PacketRun]]:
    """[DCTCP-WAN]'s star or WAN dumbbell: DCTCP, CUBIC and DCTCP with every impairment (one elephant, 3 mice)."""

    def make(quick: bool) -> list[PacketRun]:
        from .scenarios_wan import wan_run

        dur = (0.2 if quick else 1.0) * (1.0 if setting == "star" else 4.0)
        noise = {"jitter": "200us" if setting == "star" else "2ms", "delack": 2, "loss": 0.001}
        return [
            wan_run(setting, "dctcp", duration=dur),
            wan_run(setting, "cubic", duration=dur),
            wan_run(setting, "dctcp", duration=dur, **noise),  # type: ignore[arg-type]
        ]

    return make


#: Registered scenarios: name → builder(quick) returning runs (batched when they compile to one shape).
SCENARIOS: dict[str, Callable[[bool], list[PacketRun]]] = {
    "dctcp-analysis-n2": _dctcp_analysis(2),
    "dctcp-analysis-n10": _dctcp_analysis(10),
    "dctcp-analysis-n100": _dctcp_analysis(100),
    "dwtcp-join-leave": _join_leave,
    "rtt-fairness-dctcp": lambda quick: rtt_fairness("dctcp", quick=quick),
    "rtt-fairness-dctcp-per-ack": lambda quick: rtt_fairness("dctcp-per-ack", quick=quick),
    "dctcp-reno-mixed": _mixed,
    "dctcp-wan-dc-jitter": _wan_dc("jitter"),
    "dctcp-wan-dc-delack": _wan_dc("delack"),
    "dctcp-wan-dc-loss": _wan_dc("loss"),
    "dctcp-wan-20ms": _wan_20ms,
    "dwtcp-varying-capacity": _varying_capacity,
    "websearch-poisson": _poisson("websearch"),
    "datamining-poisson": _poisson("datamining"),
    "incast": _incast,
    **TIMELY_SCENARIOS,
    "d2tcp-microbenchmark": _d2tcp_micro,
    "dctcp-wan-star": _wan_claims("star"),
    "dctcp-wan-dumbbell": _wan_claims("wan"),
}


def scenario(name: str, quick: bool = False) -> list[PacketRun]:
    """The runs of the registered scenario ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`SCENARIOS` (``dwtcp-fluid packet scenario --list``).
    quick : bool
        Shorter runs (the test suite's setting); the same scenario otherwise.
    """
    if name not in SCENARIOS:
        raise ValueError(f"scenario={name!r} is invalid: accepted one of {', '.join(SCENARIOS)}")
    return SCENARIOS[name](quick)


def with_seed(pr: PacketRun, seed: int) -> PacketRun:
    """The same scenario with another seed (order of simultaneous senders and impairments; the start jitter is
    drawn at build)."""
    return replace(pr, scenario=pr.scenario._replace(seed=np.int32(seed)))
