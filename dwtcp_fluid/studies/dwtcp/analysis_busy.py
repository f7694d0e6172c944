"""The Scout-faithful DWTCP model (:class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid`): its two regimes, the
standing-queue rest point, runs at physical parameters and the stability of its cycle.

Regimes ([DWTCP] Algorithm 1 read with the Scout served only in idle time; proofs/dwtcp_busy.md). With x = BDP/N
(packets per flow), c = ``ripple`` and s = ``saw`` of the model:

* **standing queue** when Φ(x) = β_w·(x + c + s·x/(x + c))^{3/2}·(x + c)/x < 1: the fullest decrease, taken at the
  top of the data-ACK sawtooth ŵ = w + s·x/w, is smaller than the +1 packet per RTT of the data ACKs at the window
  w = x + c whose fluid queue N·w − BDP = c·N is as deep as the queue's ripple. Then the windows settle at the
  root w* of x/w = β_w·(w + s·x/w)^{3/2} with a queue q* = N·w* − BDP ≥ c·N that the ripple never empties. No
  Scout is ever served there (the link never idles), α sits at its floor and the decrease runs every τ with
  (d_s − d_t)/d_s → 1 (line 18's pending term grows without bound). The rest point is a stable node: ∂w'/∂w < 0.
  For c = s = 0 this is the criterion β_w·x^{3/2} < 1 of the model without ripple and sawtooth.
* **cycle** otherwise: no rest point the ripple leaves alone, and the solution cycles: idle gaps (or the ripple's
  trough) → Scouts answered → α·S increase → saturation → Scouts stuck → decrease from the pending term → idle
  gaps. :func:`cycle_multiplier` measures the contraction of its return map.

All quantities in packets, seconds, packets/s; β_w is β in the packet convention (``DwtcpParams.beta_sqrt_packets``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ...dde import solve
from ...dde.solve import STEPS_PER_DELAY
from ...models.dwtcp_busy import DwtcpBusyFluid, busy_queue, busy_utilization
from ...params import DwtcpParams, check_range
from ...periods import autocorr_period

__all__ = [
    "INIT_CWND",
    "busy_history",
    "jax_step",
    "regime",
    "busy_phi",
    "criterion",
    "boundary_flows",
    "standing_queue_point",
    "run_busy_model",
    "busy_summary",
    "cycle_multiplier",
]

#: Initial window of the packet law (packets): the model starts where the packet core's senders start.
INIT_CWND = 10.0


def busy_history(P: DwtcpParams, model: DwtcpBusyFluid | None = None) -> list[float]:
    """State before t = 0: w = INIT_CWND, α = α₀ (within the model's bounds), b = 0 (the link idle)."""
    m = model or DwtcpBusyFluid()
    a0 = min(max(float(P.alpha0), m.alpha_min), m.alpha_max)
    return [INIT_CWND, math.log2(a0), 0.0]


def busy_phi(x: Any, beta_w: Any, c: float, s: float) -> Any:
    """Φ(x) = β_w·(x + c + s·x/(x + c))^{3/2}·(x + c)/x at fair shares x (packets; arrays broadcast)."""
    x = np.asarray(x, dtype=float)
    return beta_w * (x + c + s * x / (x + c)) ** 1.5 * (x + c) / x


def criterion(P: DwtcpParams, model: DwtcpBusyFluid | None = None) -> float:
    """Φ(BDP/N) of the module docstring: the standing queue exists exactly when it is below 1 (no unit)."""
    m = model or DwtcpBusyFluid()
    return float(busy_phi(P.bdp / P.flows, P.beta_sqrt_packets, m.ripple, m.saw))


def regime(P: DwtcpParams, model: DwtcpBusyFluid | None = None) -> str:
    """``"standing queue"`` when Φ(BDP/N) < 1 (:func:`criterion`), else ``"cycle"``."""
    return "standing queue" if criterion(P, model) < 1.0 else "cycle"


def boundary_flows(P: DwtcpParams, model: DwtcpBusyFluid | None = None) -> float:
    """N* (real): the number of flows at which Φ(BDP/N) = 1; N > N* is the standing-queue regime.

    Searched for x = BDP/N between one packet per flow (below it the windows are not whole packets and the model
    says nothing) and BDP; raises ValueError when Φ does not cross 1 there.
    """
    m = model or DwtcpBusyFluid()
    c, s = m.ripple, m.saw

    def g(x: float) -> float:
        return P.beta_sqrt_packets * (x + c + s * x / (x + c)) ** 1.5 * (x + c) / x - 1.0

    lo, hi = 1.0, P.bdp
    if hi <= lo or g(lo) >= 0 or g(hi) <= 0:
        raise ValueError(
            f"boundary_flows: Φ does not cross 1 between N = 1 and N = {P.bdp:.4g} (x = 1 packet)"
        )
    return P.bdp / brentq(g, lo, hi, xtol=1e-12)


def standing_queue_point(P: DwtcpParams, model: DwtcpBusyFluid | None = None) -> dict[str, Any]:
    """The standing-queue rest point of :class:`DwtcpBusyFluid` (None entries in the cycle regime).

    Returns ``w`` (packets, the root of x/w = β_w·(w + s·x/w)^{3/2}), ``q`` (packets), ``R`` (s), ``eigenvalue``
    (1/s, ∂w'/∂w at the point, the only non-zero eigenvalue of the linearization: α is held at its floor, the
    busy age is far from any reset and its delayed weight (τ + k/C)/(τ + b)² vanishes as b grows), ``cut``
    (β_w·sqrt(ŵ*), the decrease per τ, must stay below the 1/2 floor of line 22), ``criterion`` (Φ) and
    ``regime``.
    """
    m = model or DwtcpBusyFluid()
    bw, bdp, N, tau, C, s = P.beta_sqrt_packets, P.bdp, P.flows, P.tau, P.link.C, m.saw
    phi = criterion(P, m)
    if phi >= 1.0:
        return {"regime": "cycle", "w": None, "q": None, "R": None, "eigenvalue": None, "cut": None,
                "criterion": phi}  # fmt: skip
    x = bdp / N
    # x/w − β_w·(w + s·x/w)^{3/2} falls from > 0 at w = x + c (Φ < 1) to < 0 where β_w·w^{5/2} > x
    w = brentq(lambda v: x / v - bw * (v + s * x / v) ** 1.5, x + m.ripple, max(2 * x, (x / bw) ** 0.4 + 1.0),
               xtol=1e-13 * x)  # fmt: skip
    wh = w + s * x / w
    R = N * w / C
    lam = -C / (N * w**2) - 1.5 * bw * math.sqrt(wh) * (1 - s * x / w**2) / tau
    return {
        "regime": "standing queue",
        "w": w,
        "q": N * w - bdp,
        "R": R,
        "eigenvalue": lam,
        "cut": bw * math.sqrt(wh),
        "criterion": phi,
    }


def _default_times(P: DwtcpParams, warmup: float | None, window: float | None) -> tuple[float, float]:
    tau = P.tau
    warm = 100 * tau if warmup is None else check_range("warmup", warmup, lo=0.0, why="seconds")
    win = (
        300 * tau if window is None else check_range("window", window, lo=50 * tau, why="seconds, >= 50 RTTs")
    )
    return warm, win


def jax_step(P: DwtcpParams, model: DwtcpBusyFluid | None = None) -> float:
    """Fixed step (s) of the JAX solver: the smaller of τ/80 and k/(40·C)·20/gap_cap.

    The busy age's fastest reset rate, gap_cap·C/k, times the step stays far below RK4's stability limit, and
    the step resolves the gap count's rise G = N·exp(−(N − 1)/D) as the link leaves saturation: at a quarter of
    τ/20 the JAX solution is within 0.1 % (window) and 0.01 (log2 α) of the reference at 100 µs, N = 2.
    """
    m = model or DwtcpBusyFluid()
    return m.step_scale(m.numeric_params(P)) / STEPS_PER_DELAY


def run_busy_model(
    P: DwtcpParams,
    *,
    warmup: float | None = None,
    window: float | None = None,
    method: str = "reference",
    model: DwtcpBusyFluid | None = None,
    samples: int = 20_001,
    traces: bool = False,
) -> dict[str, Any]:
    """Run the Scout-faithful model at physical parameters; summary over the measurement window.

    Parameters
    ----------
    P : DwtcpParams
        Link (C, τ, L), N, β (with its unit convention), target k > 0, S, α₀.
    warmup, window : float, optional
        Seconds excluded at the start (default 100 RTTs) and measured after it (default 300 RTTs, at least 50).
    method : {"reference", "jax"}
        DDE solver; the JAX step is :func:`jax_step`.
    model : DwtcpBusyFluid, optional
        A variant (lag, α bounds); default ``DwtcpBusyFluid()``.
    traces : bool
        Also return ``traces``: the window's ``t`` (s), ``q``, ``w`` (packets) and ``alpha``.

    Returns
    -------
    dict
        The packet core's summary keys: ``queue_mean``, ``queue_min``, ``queue_max``, ``amplitude`` ((max − min)/2),
        ``period_s`` (the packet core's estimator: lag of the first autocorrelation peak of the queue, when the
        queue crosses its mean upward at least three times in the window; else None), ``utilization``,
        ``window_mean`` (per flow), ``alpha_mean`` and ``scout_alpha_mean`` (the Scout α, time mean), plus
        ``onset_period_s`` (mean spacing of the Scout-late onsets, upward crossings of b = k/C; None without two:
        the ripple's partial resets can end a decrease without taking b below k/C), ``regime``, ``window_s``,
        ``duration_s`` and ``status`` ("ok" or the solver's message).
    """
    m = model or DwtcpBusyFluid()
    warm, win = _default_times(P, warmup, window)
    T = warm + win
    opts: dict[str, Any] = {"dt": jax_step(P, m)} if method == "jax" else {}
    sol = solve(m, P, busy_history(P, m), (0.0, T), method=method, **opts)
    p = sol.params[0]
    if sol.method == "reference":
        ts = np.linspace(warm, T, samples)
        xs = np.asarray(sol(ts, 0))
    else:
        sel = sol.t >= warm - 1e-12 * T
        ts, xs = sol.t[sel], sol.x[0, sel]
    cr, up = sol.crossings[0], sol.crossing_up[0]
    status = "ok" if sol.status[0] == 0 else sol.messages[0]
    out = busy_summary(P, m, p, ts, xs, np.unique(cr[up & (cr >= warm)]), status, window_s=win, duration_s=T)
    if traces:
        out["traces"] = {"t": ts, "q": busy_queue(xs[:, 0], p), "w": xs[:, 0], "alpha": 2.0 ** xs[:, 1]}
    return out


def busy_summary(
    P: DwtcpParams,
    model: DwtcpBusyFluid,
    p: dict[str, float],
    ts: np.ndarray,
    xs: np.ndarray,
    onsets: np.ndarray,
    status: str,
    *,
    window_s: float,
    duration_s: float,
    unit_s: float = 1.0,
) -> dict[str, Any]:
    """The summary of :func:`run_busy_model` from a uniformly sampled window of one solution.

    ``ts`` (model time unit, ``unit_s`` seconds each: 1 for physical runs, τ for runs rescaled to τ = 1),
    ``xs`` (samples × states), ``p`` (the model's numeric parameters in that unit), ``onsets`` (Scout-late
    onsets inside the window).
    """
    q = busy_queue(xs[:, 0], p)

    def mean(y: np.ndarray) -> float:
        return float(np.trapezoid(y, ts) / (ts[-1] - ts[0]))

    alpha = mean(2.0 ** xs[:, 1])
    dev = q - np.mean(q)
    swings = int(np.count_nonzero((dev[:-1] < 0) & (dev[1:] >= 0)))
    period = autocorr_period(q, float(ts[1] - ts[0]), peak="first") if swings >= 3 else None
    return {
        "queue_mean": mean(q),
        "queue_min": float(q.min()),
        "queue_max": float(q.max()),
        "amplitude": 0.5 * float(q.max() - q.min()),
        "period_s": None if period is None else period * unit_s,
        "onset_period_s": float(np.mean(np.diff(onsets))) * unit_s if onsets.size >= 2 else None,
        "utilization": mean(busy_utilization(xs[:, 0], p)),
        "window_mean": mean(xs[:, 0]),
        "alpha_mean": alpha,
        "scout_alpha_mean": alpha,
        "regime": regime(P, model),
        "window_s": window_s,
        "duration_s": duration_s,
        "status": status,
    }


def cycle_multiplier(
    P: DwtcpParams, *, rtts: int = 300, model: DwtcpBusyFluid | None = None
) -> dict[str, Any]:
    """Stability of the cycle: the return map to the section {b = k/C, upward} (the Scout-late onsets), seen in w.

    The reference solver runs ``rtts`` RTTs from :func:`busy_history`; w at the successive onsets converges
    geometrically to the cycle's value and the ratio of successive deviations is the return map's dominant
    multiplier μ (|μ| < 1: the cycle attracts). Deviations below 1e-7·w (solver noise, tolerances 1e-10) are not
    used (nor any after the first). Returns ``multiplier`` (median ratio; 0.0 when the cycle is reached exactly in one or two crossings,
    e.g. with α held at a bound; None without enough crossings), ``period_s``, ``w_section`` (packets),
    ``onsets`` (count) and ``ratios``.
    """
    m = model or DwtcpBusyFluid()
    sol = solve(m, P, busy_history(P, m), (0.0, rtts * P.tau))
    if sol.status[0] != 0:
        raise RuntimeError(f"cycle_multiplier: solver failed: {sol.messages[0]}")
    cr = sol.crossings[0][sol.crossing_up[0]]
    cr = np.unique(cr[cr > 0])
    if cr.size < 6:
        return {"multiplier": None, "period_s": None, "w_section": None, "onsets": int(cr.size), "ratios": []}
    w = np.asarray(sol(cr, 0))[:, 0]
    d = np.abs(w - w[-1])
    floor = 1e-7 * max(1.0, abs(float(w[-1])))
    ratios = []
    for i in range(1, cr.size - 2):  # from the second onset until the deviation reaches the noise floor
        if d[i] <= floor or d[i + 1] <= floor:
            break
        ratios.append(float(d[i + 1] / d[i]))
    mu = float(np.median(ratios)) if ratios else 0.0
    return {
        "multiplier": mu,
        "period_s": float(np.mean(np.diff(cr[-5:]))),
        "w_section": float(w[-1]),
        "onsets": int(cr.size),
        "ratios": ratios,
    }
