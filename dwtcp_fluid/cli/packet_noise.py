"""``--rtt-noise`` and ``--rtt-noise-dist`` of ``packet run`` and ``packet scenario``: the engine's seeded per-ACK RTT
measurement noise (:func:`dwtcp_fluid.packet.build`'s ``rtt_noise``), which only laws with the ``rtt`` signal read."""

from __future__ import annotations

from typing import Any

import typer

from .common import UsageError

__all__ = [
    "NOISE_DISTS",
    "rtt_noise_option",
    "rtt_noise_dist_option",
    "rtt_laws",
    "check_noise_dist",
    "check_noise_laws",
    "with_noise",
]

#: ``--rtt-noise`` / ``--rtt-noise-dist``: the engine's seeded per-ACK RTT measurement noise ([PROXY]: uniform in
#: [0, x] µs), read only by laws with the ``rtt`` signal; shared by ``packet run`` and ``packet scenario``.
NOISE_DISTS = ("uniform", "gauss")


def rtt_noise_option() -> Any:
    """The ``--rtt-noise`` option."""
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


def rtt_laws() -> list[str]:
    """Registered laws that read the RTT signal (the only ones RTT noise changes)."""
    from ..packet.laws import LAWS

    return [n for n, cls in LAWS.items() if "rtt" in cls.signals]


def check_noise_dist(dist: str) -> None:
    """Refuse an unknown ``--rtt-noise-dist``."""
    if dist not in NOISE_DISTS:
        raise UsageError("--rtt-noise-dist", dist, " | ".join(NOISE_DISTS))


def check_noise_laws(given: str, seconds: float, laws: list) -> None:
    """Refuse noise > 0 (≤ 1 s) when no law of the run reads the RTT: it would change nothing."""
    if not 0.0 <= seconds <= 1.0:
        raise UsageError("--rtt-noise", given, "a time between 0 and 1 s")
    if seconds > 0 and not any("rtt" in law.signals for law in laws):
        raise UsageError(
            "--rtt-noise", given, "only with a law that reads the RTT: " + " | ".join(rtt_laws())
        )


def with_noise(runs: list, given: str, seconds: float, dist: str) -> list:
    """The scenario's runs with the RTT noise set on those whose laws read the RTT (the others unchanged)."""
    import dataclasses

    import numpy as np

    check_noise_laws(given, seconds, [law for pr in runs for law in pr.engine_laws])
    out = []
    for pr in runs:
        if not any("rtt" in law.signals for law in pr.engine_laws):
            out.append(pr)
            continue
        if float(pr.scenario.rtt_noise) != 0.0:
            raise UsageError("--rtt-noise", given, "0 with a scenario that sets its own RTT noise")
        sc = pr.scenario._replace(
            rtt_noise=np.float32(seconds / pr.slot), rtt_noise_uniform=np.bool_(dist == "uniform")
        )
        out.append(dataclasses.replace(pr, scenario=sc))
    return out
