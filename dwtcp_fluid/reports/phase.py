"""JSON documents of ``phase dwtcp`` and ``phase dctcp``: a portrait's equilibria and trajectories' ends."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..params import DwtcpParams
from ._json import to_jsonable

__all__ = [
    "portrait_report",
    "run_phase_dwtcp",
    "phase_dwtcp_report",
    "run_phase_dctcp",
    "phase_dctcp_report",
]


def portrait_report(pp: Any, out: str | Path | None = None) -> dict[str, Any]:
    """A phase portrait's document: the file it was written to (``out``), model, parameters, axes, projection,
    equilibria (state, law, class, stability) and each trajectory's start, end and status."""
    return to_jsonable(
        {
            "out": None if out is None else str(out),
            "model": repr(pp.model),
            "parameters": pp.params,
            "axes": list(pp.axis_names),
            "projection": pp.projection,
            "equilibria": [
                {"state": e.x, "law": pp.law_names[e.u], "class": e.kind, "stability": e.stability}
                for e in pp.equilibria
            ],
            "trajectories": [
                {"start": tr.x0, "end": tr.x[-1], "status": tr.status} for tr in pp.trajectories
            ],
        }
    )


def run_phase_dwtcp(
    P: DwtcpParams,
    *,
    duration: float = 0.1,
    delay: bool = True,
    variant: str = "paper",
    out: str | Path | None = None,
) -> tuple[dict[str, Any], Any]:
    """:func:`phase_dwtcp_report` and the portrait (for the figure)."""
    from ..studies.dwtcp.figures_phase import dwtcp_portrait

    if variant not in ("paper", "sqrt"):
        raise ValueError(f"variant={variant!r} is invalid: accepted paper or sqrt")
    if not (math.isfinite(duration) and 0 < duration <= 10.0):
        raise ValueError(f"duration={duration!r} is out of range: accepted 0 < duration <= 10 (seconds)")
    pp = dwtcp_portrait(P, delay_rtts=1.0 if delay else 0.0, duration=duration, variant=variant)
    return portrait_report(pp, out), pp


def phase_dwtcp_report(
    P: DwtcpParams,
    *,
    duration: float = 0.1,
    delay: bool = True,
    variant: str = "paper",
    out: str | Path | None = None,
) -> dict[str, Any]:
    """DWTCP (w, q) portrait of [DWTCP] eqs. (6)/(7).

    Parameters
    ----------
    P : DwtcpParams
    duration : float
        Simulated time per trajectory, s (at most 10).
    delay : bool
        Scout feedback one RTT late (True) or the paper's undelayed model.
    variant : {"paper", "sqrt"}
        Eq. (6) or eq. (3).
    out : str or Path, optional
        Only recorded in the document (the CLI writes the figure there).
    """
    return run_phase_dwtcp(P, duration=duration, delay=delay, variant=variant, out=out)[0]


def run_phase_dctcp(
    wbar: float = 10.0,
    g: float = 1.0 / 16.0,
    *,
    psi: float | None = None,
    duration: float = 300.0,
    out: str | Path | None = None,
) -> tuple[dict[str, Any], Any]:
    """:func:`phase_dctcp_report` and the portrait (for the figure)."""
    from ..studies.dctcp.figures_phase import DCTCP_STARTS, dctcp_portrait

    if not (math.isfinite(wbar) and 0 < wbar <= 1e4):
        raise ValueError(f"wbar={wbar!r} is out of range: accepted packets in (0, 10000]")
    if not (math.isfinite(g) and 0 < g <= 1):
        raise ValueError(f"g={g!r} is out of range: accepted 0 < g <= 1")
    if not (math.isfinite(duration) and 0 < duration <= 1e5):
        raise ValueError(f"duration={duration!r} is out of range: accepted units of R* in (0, 100000]")
    # Fig. 4's starts, with the window scaled to w̄ (the cycle's W̃ scales with w̄)
    starts = [(w * wbar / 10.0, a, q) for w, a, q in DCTCP_STARTS]
    if psi is not None:
        floor = -psi / (1 + psi)
        starts = [(w, a, max(q, floor)) for w, a, q in starts]
    pp = dctcp_portrait(wbar, g, starts=starts, duration=duration, psi=psi)
    return portrait_report(pp, out), pp


def phase_dctcp_report(
    wbar: float = 10.0,
    g: float = 1.0 / 16.0,
    *,
    psi: float | None = None,
    duration: float = 300.0,
    out: str | Path | None = None,
) -> dict[str, Any]:
    """DCTCP normalized model (11)-(14) of [DCTCP-A]: W̃–q̃ portrait from Fig. 4's starts (window scaled to w̄).

    Parameters
    ----------
    wbar : float
        w̄ = (C·d + K)/N, packets.
    g : float
        EWMA gain, 0 < g ≤ 1.
    psi : float, optional
        ψ = K/(C·d): the queue floor q ≥ 0 of section 3.3.2 (None: no floor).
    duration : float
        Simulated time in units of R*.
    out : str or Path, optional
        Only recorded in the document (the CLI writes the figure there).
    """
    return run_phase_dctcp(wbar, g, psi=psi, duration=duration, out=out)[0]
