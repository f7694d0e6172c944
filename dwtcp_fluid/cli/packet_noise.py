"""``--rtt-noise`` and ``--rtt-noise-dist`` of ``packet run`` and ``packet scenario``: the engine's seeded per-ACK RTT
measurement noise (:func:`dwtcp_fluid.packet.build`'s ``rtt_noise``), which only laws with the ``rtt`` signal read.
The checks and the scenario's noisy runs are the library's (:mod:`dwtcp_fluid.reports.packet`)."""

from __future__ import annotations

from typing import Any

import typer

from .common import UsageError

__all__ = ["rtt_noise_option", "rtt_noise_dist_option", "check_noise_dist"]


def rtt_noise_option() -> Any:
    """The ``--rtt-noise`` option."""
    from ..reports.packet import rtt_laws

    return typer.Option(
        "0s",
        "--rtt-noise",
        help="Per-ACK RTT measurement noise (laws that read the RTT: "
        + ", ".join(rtt_laws())
        + '): the width x of uniform noise in [0, x], or the standard deviation of Gaussian noise ("25us").',
    )


def rtt_noise_dist_option() -> Any:
    """The ``--rtt-noise-dist`` option."""
    return typer.Option("uniform", "--rtt-noise-dist", help="RTT noise distribution: uniform | gauss.")


def check_noise_dist(dist: str) -> None:
    """Refuse an unknown ``--rtt-noise-dist``."""
    from ..reports.packet import NOISE_DISTS

    if dist not in NOISE_DISTS:
        raise UsageError("--rtt-noise-dist", dist, " | ".join(NOISE_DISTS))
