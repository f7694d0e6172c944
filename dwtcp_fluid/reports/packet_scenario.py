"""JSON document of ``packet scenario NAME``: each run of a registered scenario summarised as ``packet run``
summarises one (:mod:`.packet`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._json import to_jsonable
from .packet import NOISE_DISTS, PacketRunData, _check, _run_echo, _summary_doc, check_rtt_noise

__all__ = ["scenario_with_noise", "run_packet_scenario", "packet_scenario_report"]


def scenario_with_noise(runs: Sequence[Any], seconds: float, dist: str = "uniform") -> list[Any]:
    """The scenario's runs with RTT noise set on those whose laws read the RTT (the others unchanged); refused
    for a scenario that sets its own noise."""
    import dataclasses

    import numpy as np

    _check("rtt_noise_dist", dist, dist in NOISE_DISTS, " | ".join(NOISE_DISTS))
    check_rtt_noise(seconds, [lw for pr in runs for lw in pr.engine_laws])
    if seconds == 0.0:
        return list(runs)
    out = []
    for pr in runs:
        if not any("rtt" in lw.signals for lw in pr.engine_laws):
            out.append(pr)
            continue
        _check(
            "rtt_noise", seconds, float(pr.scenario.rtt_noise) == 0.0, "0 with a scenario that sets its own"
        )
        sc = pr.scenario._replace(
            rtt_noise=np.float32(seconds / pr.slot), rtt_noise_uniform=np.bool_(dist == "uniform")
        )
        out.append(dataclasses.replace(pr, scenario=sc))
    return out


def run_packet_scenario(
    name: str, *, quick: bool = False, rtt_noise: float = 0.0, rtt_noise_dist: str = "uniform"
) -> tuple[dict[str, Any], list[PacketRunData]]:
    """:func:`packet_scenario_report` and each run's data (:class:`PacketRunData`)."""
    from ..packet.scenarios import run_many, scenario

    runs = scenario_with_noise(scenario(name, quick), rtt_noise, rtt_noise_dist)
    outs = run_many(runs)
    doc = {
        "scenario": name,
        "quick": quick,
        "rtt_noise_s": rtt_noise,
        "rtt_noise_dist": rtt_noise_dist,
        "runs": [{**_summary_doc(o), **_run_echo(pr)} for pr, o in zip(runs, outs, strict=True)],
    }
    return to_jsonable(doc), [PacketRunData(pr, o) for pr, o in zip(runs, outs, strict=True)]


def packet_scenario_report(
    name: str, *, quick: bool = False, rtt_noise: float = 0.0, rtt_noise_dist: str = "uniform"
) -> dict[str, Any]:
    """``packet scenario NAME --json``'s document: each run of a registered scenario
    (:data:`~dwtcp_fluid.packet.scenarios.SCENARIOS`) summarised as ``packet run`` summarises one, with its link,
    threshold, seed and RTT noise.

    Parameters
    ----------
    name : str
        A registered scenario.
    quick : bool
        The short version (as CI runs it).
    rtt_noise, rtt_noise_dist
        Per-ACK RTT noise (s) set on every run whose laws read the RTT (refused when none does, and for a scenario
        that sets its own).
    """
    return run_packet_scenario(name, quick=quick, rtt_noise=rtt_noise, rtt_noise_dist=rtt_noise_dist)[0]
