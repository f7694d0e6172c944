"""Summaries of a simulated run over its last part: queue and window statistics, utilization, period.

Every quantity is one of the model's :meth:`~dwtcp_fluid.models.base.FluidModel.observables`, so one summary
serves every model; :meth:`DdeSolution.summary <dwtcp_fluid.dde.solution.DdeSolution.summary>` returns it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..results import Status, Summary

__all__ = [
    "RunSummary",
    "run_summary",
    "period_from_crossings",
    "time_mean",
    "queue_range_tolerance",
    "CONVERGED_RTOL",
    "STEP_ARTEFACT_Q",
    "STEP_ARTEFACT_W",
]

#: A run has converged when, over the second half, max − min of q is below max(CONVERGED_RTOL·BDP,
#: STEP_ARTEFACT_Q·N·h·(1 + α·S/L)) and max − min of w below max(CONVERGED_RTOL·BDP/N, STEP_ARTEFACT_W·h)
#: (h the fixed step in RTTs; 0 for the reference solver); otherwise it oscillates. The step terms: the undelayed
#: DWTCP decrease (6) conserves H = βq²/(2τ·BDP) + N·w/τ − C·ln w, so (BDP/N, 0) is a center and only the queue
#: floor stops the motion exactly; a fixed step overshoots the switch at q = 0 by one step of the increase and
#: leaves a neutral orbit of range ≈ 4·N·h·(1 + S/L) in q and ≈ 0.26·h in w (measured at h = 1/20 and 1/40 RTT,
#: N = 5–20; it halves with h). The thresholds are twice (q) and four times (w) that; a delayed cycle's q range
#: (≈ 66·N at β = 0.001) is ~150 times the q threshold.
CONVERGED_RTOL = 1e-3
STEP_ARTEFACT_Q = 8.0
STEP_ARTEFACT_W = 1.0


def queue_range_tolerance(bdp: Any, flows: Any, h_rtts: Any, increase_slope: Any = 1.0) -> Any:
    """The q range (max − min, packets) below which a run counts as converged: what a fixed step of ``h_rtts``
    RTTs can leave behind as an artefact, or CONVERGED_RTOL·BDP (``increase_slope`` = 1 + α·S/L)."""
    return np.maximum(CONVERGED_RTOL * np.asarray(bdp), STEP_ARTEFACT_Q * flows * h_rtts * increase_slope)


#: Samples of the reference solution's dense output over the summary window.
_SAMPLES = 20_001


@dataclass(frozen=True)
class RunSummary(Summary):
    """Statistics of one trajectory over the last part of its run.

    ``queue_*`` and ``amplitude`` ((max − min)/2) in the queue's unit (packets for the physical models),
    ``window_mean`` per flow (packets), ``alpha_mean`` (None when the model has no α), ``utilization`` (time
    average of the link's output over its capacity), ``period_s`` (mean spacing of the upward crossings of the
    switching surface in the model's time unit, seconds for the physical models; None without two of them).
    """

    queue_min: float
    queue_max: float
    queue_mean: float
    window_mean: float
    alpha_mean: float | None
    utilization: float
    amplitude: float
    period_s: float | None
    status: Status
    message: str


def period_from_crossings(crossings: np.ndarray, upward: np.ndarray, t_from: float) -> float | None:
    """Mean spacing of the upward crossings of σ = 0 after ``t_from`` (None with fewer than two)."""
    up = np.unique(crossings[upward & (crossings >= t_from)])  # repeated times: chattering, not a period
    return float(np.mean(np.diff(up))) if up.size >= 2 else None


def run_summary(sol: Any, element: int = 0, *, last_fraction: float = 0.5) -> RunSummary:
    """Statistics over the last ``last_fraction`` of the run of one element of a ``DdeSolution``, which ends at
    ``sol.t[-1]`` (where the run stopped). An element whose status is not ok gets NaN statistics and its status."""
    if not 0 < last_fraction <= 1:
        raise ValueError(f"last_fraction={last_fraction!r} is out of range: accepted 0 < last_fraction <= 1")
    model, p = sol.model, sol.params[element]
    st = Status(int(sol.status[element]))
    message = sol.messages[element] if element < len(sol.messages) else ""
    if (
        not st.ok
    ):  # a failed or chattering run has no statistics: NaN (null in JSON), never a plausible number
        nan = float("nan")
        return RunSummary(
            queue_min=nan, queue_max=nan, queue_mean=nan, window_mean=nan, alpha_mean=None,
            utilization=nan, amplitude=nan, period_s=None, status=st, message=message,
        )  # fmt: skip
    t0, t1 = float(sol.t[0]), float(sol.t[-1])
    t_from = t1 - last_fraction * (t1 - t0)
    if sol.method == "reference":
        ts = np.linspace(t_from, t1, _SAMPLES)
        xs = sol(ts, element)
    else:
        sel = sol.t >= t_from - 1e-12 * max(1.0, abs(t1))
        ts, xs = sol.t[sel], sol.x[element, sel]
    obs = model.observables(tuple(xs.T), p, np)
    if "queue" not in obs:
        raise ValueError(f"model={model.name!r} is invalid here: its observables have no 'queue'")
    q = np.broadcast_to(obs["queue"], ts.shape)
    qmin, qmax = float(q.min()), float(q.max())
    return RunSummary(
        queue_min=qmin,
        queue_max=qmax,
        queue_mean=time_mean(ts, q),
        window_mean=time_mean(ts, obs["window"]),
        alpha_mean=time_mean(ts, obs["alpha"]) if "alpha" in obs else None,
        utilization=time_mean(ts, np.broadcast_to(obs["utilization"], ts.shape)),
        amplitude=0.5 * (qmax - qmin),
        period_s=period_from_crossings(sol.crossings[element], sol.crossing_up[element], t_from),
        status=st,
        message=message,
    )


def time_mean(t: np.ndarray, y: np.ndarray) -> float:
    """Time average of samples ``y`` at times ``t`` (trapezoid rule; the plain mean over a zero span)."""
    span = t[-1] - t[0]
    if span <= 0 or not math.isfinite(span):
        return float(np.mean(y))
    return float(np.trapezoid(y, t) / span)
