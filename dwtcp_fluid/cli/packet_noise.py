"""``--rtt-noise`` and ``--rtt-noise-dist`` of ``packet run`` and ``packet scenario``: the engine's seeded per-ACK RTT
measurement noise (:func:`dwtcp_fluid.packet.build`'s ``rtt_noise``), which only laws with the ``rtt`` signal read.
The checks and the scenario's noisy runs are the library's (:mod:`dwtcp_fluid.reports.packet`)."""

from __future__ import annotations

from .common import UsageError
from .flags import Use

__all__ = ["rtt_noise_use", "check_noise_dist"]


def rtt_noise_use() -> Use:
    """How ``packet run`` and ``packet scenario`` read ``--rtt-noise``: the laws that read the RTT, named."""
    from ..reports.packet import rtt_laws

    return Use(note="Read by: " + ", ".join(rtt_laws()) + ".")


def check_noise_dist(dist: str) -> None:
    """Refuse an unknown ``--rtt-noise-dist``."""
    from ..reports.packet import NOISE_DISTS

    if dist not in NOISE_DISTS:
        raise UsageError("--rtt-noise-dist", dist, " | ".join(NOISE_DISTS))
