"""[PROXY]'s TIMELY scenarios on one bottleneck: the incast of 10 clients × 4 connections, random flow draws, and
RTT measurement noise; and the summaries they are read with.

Setting ([PROXY] §2.4): 40 long-lived flows into one 10 Gbps server link, base RTT 20 µs (the paper's RTTs are
"on the order of 30 µs" with queueing), a 2000-packet buffer (deep enough that TIMELY's T_high = 500 µs, about 420
packets of queue, is reachable without loss). The clients' 20 Gbps uplinks are faster than the bottleneck, so they
are not modelled (single bottleneck only). Measurement noise is uniform in [0, x] µs on every RTT sample, as the
TIMELY evaluation adds it ([PROXY] §2.4: x = 25 µs for the main experiments).

The RTT distribution is the one a packet sees: base RTT + queue/C at each trace chunk (a time-weighted sample of
the queueing delay, noise excluded — the noise is the *measurement* error, not the delay).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..params import DCTCP_ANALYSIS, LinkParams
from .build import PacketRun, build

__all__ = [
    "INCAST_LINK",
    "INCAST_FLOWS",
    "NOISE_US",
    "incast_run",
    "flow_rates",
    "rtt_samples_us",
    "TIMELY_SCENARIOS",
]

#: [PROXY] §2.4's incast: 10 Gbps server link, 20 µs base RTT; 10 clients × 4 connections.
INCAST_LINK = LinkParams(capacity="10Gbps", rtt="20us")
INCAST_FLOWS = 40
#: Noise widths x (µs) of the noise sweep ([PROXY]: degrades from 50 µs; the TIMELY evaluation uses 0-200).
NOISE_US = (0.0, 25.0, 50.0, 75.0, 100.0)
#: Seeds of the random-flow-draw scenario ([PROXY] §2.4 repeats the draw of four random flows).
DRAW_SEEDS = (0, 1, 2, 3, 4)


def incast_run(
    law: str, *, noise_us: float = 25.0, seed: int = 0, duration: float = 0.1, trace_points: int = 500
) -> PacketRun:
    """One run of [PROXY]'s incast: 40 long flows into one 10 Gbps link, base RTT 20 µs.

    Parameters
    ----------
    law : str
        ``"timely"``, ``"timely-patched"`` or any registered law (``"dctcp"``: K = 65).
    noise_us : float
        Width x of the uniform RTT measurement noise in [0, x] µs.
    seed : int
        Seed of the start jitter (within one RTT) and of the noise.
    duration : float
        Simulated time, seconds.
    trace_points : int
        Trace chunks of the run.
    """
    dctcp = DCTCP_ANALYSIS.replace(link=INCAST_LINK, flows=INCAST_FLOWS)
    return build(
        law,
        link=INCAST_LINK,
        dctcp=dctcp,
        flows=INCAST_FLOWS,
        duration=duration,
        seed=seed,
        buffer=2000,
        trace_points=trace_points,
        rtt_noise=noise_us * 1e-6,
        rtt_noise_dist="uniform",
    )


def _window(res: dict[str, Any]) -> slice:
    """The chunks the run's summary covers (after its warm-up)."""
    n = len(res["records"]["q_end"])
    return slice(n - int(round(res["window_s"] / res["duration_s"] * n)), None)


def flow_rates(res: dict[str, Any]) -> np.ndarray:
    """Per-flow throughput over the summary window of the run summary ``res``, as a fraction of the link rate
    (fair share 1/N)."""
    return np.asarray(res["throughput_pps"]) / INCAST_LINK.C


def rtt_samples_us(res: dict[str, Any]) -> np.ndarray:
    """RTT a packet sees (µs) at each chunk of the summary window of the run summary ``res``: base RTT +
    queue/C."""
    q = res["records"]["q_end"][_window(res)]
    return (INCAST_LINK.d + q / INCAST_LINK.C) * 1e6


def _incast(quick: bool) -> list[PacketRun]:
    """TIMELY, Patched TIMELY and DCTCP in the incast at 25 µs of noise (the RTT CDF of [PROXY] Fig. 1)."""
    d = 0.03 if quick else 0.1
    return [incast_run(law, duration=d) for law in ("timely", "timely-patched", "dctcp")]


def _draws(quick: bool) -> list[PacketRun]:
    """TIMELY and Patched TIMELY over random draws (seeds) of the start jitter ([PROXY] Figs. 3, 4)."""
    d = 0.03 if quick else 0.1
    return [incast_run(law, seed=s, duration=d) for law in ("timely", "timely-patched") for s in DRAW_SEEDS]


def _noise(quick: bool) -> list[PacketRun]:
    """TIMELY and Patched TIMELY with noise x ∈ NOISE_US µs ([PROXY] §2.4)."""
    d = 0.03 if quick else 0.1
    return [incast_run(law, noise_us=x, duration=d) for law in ("timely", "timely-patched") for x in NOISE_US]


#: Registered by :mod:`.scenarios` under these names.
TIMELY_SCENARIOS: dict[str, Callable[[bool], list[PacketRun]]] = {
    "timely-incast": _incast,
    "timely-random-flows": _draws,
    "timely-noise": _noise,
}
