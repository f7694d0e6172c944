"""JSON documents of ``dctcp simulate``, ``dctcp limit-cycle``, ``dctcp guide`` and ``dctcp hybrid``."""

from __future__ import annotations

import math
from typing import Any

from ...params import DctcpParams, LinkParams
from ...reports._json import to_jsonable
from ..dwtcp.report import failed_run

__all__ = [
    "dctcp_simulate_report",
    "run_dctcp_simulate",
    "limit_cycle_report",
    "guide_report",
    "hybrid_report",
]


def run_dctcp_simulate(
    P: DctcpParams, *, duration: float, solver: str = "reference", progress: Any = None
) -> tuple[dict[str, Any], Any]:
    """:func:`dctcp_simulate_report` and the solution it summarises (for a plot); ``progress(done, total)`` is
    passed to :func:`~dwtcp_fluid.dde.solve` (the CLI's bar; quiet without it)."""
    from ...dde import solve
    from ...models.dctcp import DctcpFluid

    if solver not in ("reference", "jax"):
        raise ValueError(f"solver={solver!r} is invalid: accepted reference or jax")
    sol = solve(DctcpFluid(), P, [1.0, 0.0, 0.0], (0.0, duration), method=solver, progress=progress)
    s = sol.summary()
    out = {
        "period_s": s["period_s"],
        "queue_min": s["queue_min"],
        "queue_max": s["queue_max"],
        "queue_mean": s["queue_mean"],
        "window_mean": s["window_mean"],
        "alpha_mean": s["alpha_mean"],
        "utilization": s["utilization"],
        "amplitude": s["amplitude"],
        "wbar": P.wbar,
        "fixed_point_queue": P.fixed_point_queue,
        "duration_s": duration,
        "solver": sol.method,
        "status": s.to_dict()["status"],
    }
    out = failed_run(out, sol, s, ("wbar", "duration_s", "solver")) or out
    return to_jsonable(out), sol


def dctcp_simulate_report(P: DctcpParams, *, duration: float, solver: str = "reference") -> dict[str, Any]:
    """The DCTCP fluid model (5)-(8) of [DCTCP-A] with the physical queue floor, summarised over the last half.

    History before t = 0: W = 1, α = 0, q = 0. The period is the mean spacing of the upward crossings of q = K (None
    when the queue stops crossing K).

    Parameters
    ----------
    P : DctcpParams
    duration : float
        Simulated time, s.
    solver : {"reference", "jax"}
        SciPy event-exact or fixed-step RK4.
    """
    return run_dctcp_simulate(P, duration=duration, solver=solver)[0]


def limit_cycle_report(
    wbar: float | None = None,
    g: float = 1.0 / 16.0,
    *,
    psi: float | None = None,
    physical: DctcpParams | None = None,
) -> dict[str, Any]:
    """Limit cycle of the normalized DCTCP model (11)-(14) of [DCTCP-A] and Theorem 1's ρ.

    Normalized units: q̃ in C·R*, period in R*, throughput as a fraction of C (with the queue floor of section
    3.3.2 when ψ is known). Give ``wbar`` (and optionally ``psi``), or ``physical`` (w̄ and ψ from it, and the cycle
    in physical units). A finder that gives no result is a document with ``status`` and ``message``, no numbers.
    """
    from ...analysis.floquet import theorem1
    from ...analysis.limit_cycle import FixedPoint, find_limit_cycle

    if physical is not None:
        wbar, psi, g = physical.wbar, physical.psi, physical.g
    if wbar is None or not (math.isfinite(wbar) and wbar > 0):
        raise ValueError(f"wbar={wbar!r} is out of range: accepted packets > 0")
    if not (math.isfinite(g) and 0 < g <= 1):
        raise ValueError(f"g={g!r} is out of range: accepted 0 < g <= 1")
    if psi is not None and not (math.isfinite(psi) and psi > 0):
        raise ValueError(f"psi={psi!r} is out of range: accepted psi > 0")
    free = find_limit_cycle(wbar, g)
    if not free.ok:
        # a status, never numbers: the finder did not reach the fixed point or could not follow the cycle
        return to_jsonable(
            {
                "regime": free.regime if isinstance(free, FixedPoint) else "limit_cycle",
                "status": free.status_of(0).name.lower(),
                "message": free.message if isinstance(free, FixedPoint) else free.message_of(0),
                "wbar": wbar,
                "g": g,
            }
        )
    if isinstance(free, FixedPoint):
        out: dict[str, Any] = {
            "regime": "fixed_point",
            "status": "ok",
            "q_min": float(free.state[2]),
            "q_max": float(free.state[2]),
            "period_rtt": None,
            "throughput": 1.0,
            "rho_paper": None,
            "rho_monodromy": None,
            "message": free.message,
            "wbar": wbar,
            "g": g,
        }
        if physical is not None:
            out["fixed_point_queue_packets"] = physical.fixed_point_queue
        return to_jsonable(out)
    t1 = theorem1(free)
    throughput = 1.0
    floored = None
    if psi is not None and free.q_min < -psi / (1.0 + psi):
        floored = find_limit_cycle(wbar, g, psi=psi, y0=free.x_alpha[:2])
        throughput = floored.throughput
    out = {
        "regime": "limit_cycle",
        "status": "ok",
        "q_min": free.q_min,
        "q_max": free.q_max,
        "period_rtt": free.period,  # normalized time: one unit is R* = d + K/C
        "throughput": throughput,
        "rho_paper": t1.rho_paper,
        "rho_monodromy": t1.rho_monodromy,
        "rho_return_map": t1.rho_return_map,
        "h_alpha_rtt": free.h_alpha,
        "h_beta_rtt": free.h_beta,
        "x_alpha": free.x_alpha.tolist(),
        "x_beta": free.x_beta.tolist(),
        "wbar": wbar,
        "g": g,
        "psi": psi,
        "queue_floor_reached": floored is not None,
    }
    if physical is not None:
        out["physical"] = (floored or free).physical(physical)
    return to_jsonable(out)


def guide_report(link: LinkParams, flows: int | None = None, *, progress: Any = None) -> dict[str, Any]:
    """K and the g range from our limit cycles and the hybrid model next to [DCTCP-A]'s (17), (18), (27)
    (:func:`~dwtcp_fluid.studies.dctcp.analysis_guidelines.guide`), with ``g_range`` = [g_min, g_max].

    Parameters
    ----------
    link : LinkParams
        Capacity, base RTT, packet size (C·d of at least 2 packets).
    flows : int, optional
        N long-lived flows (None: the worst case over N).
    progress : callable, optional
        ``progress(done, total)`` over the guideline's fixed-point iterations (quiet without it).
    """
    from .analysis_guidelines import guide

    out = guide(link, flows, progress=progress)
    out["g_range"] = [out["g_min"], out["g_max"]]
    return to_jsonable(out)


def _worst_case_convergence(wstar: float, g: float, flows: int) -> dict[str, float | None]:
    """Fig. 12-style start (one flow holds the pipe with α = 0, the others start at W = 1, α = 1)."""
    import numpy as np

    from . import analysis_hybrid as hy

    W_max = wstar * flows
    W0 = np.ones(flows)
    W0[0] = max(W_max - (flows - 1), 1.0)
    A0 = np.ones(flows)
    A0[0] = 0.0
    rate = float(hy.rate_dctcp(wstar, g))
    # enough epochs to decay by e^-12 at the predicted rate; each epoch lasts about 1 + W*α*/2 RTTs
    astar = float(hy.alpha_star(wstar, g))
    n = int(min(200_000, max(200, 12.0 / rate / (1.0 + wstar * astar / 2.0))))
    traj = hy.simulate_hybrid(W0[None, :], A0[None, :], g, W_max, n)
    ct = hy.convergence_times(traj, astar=astar)
    return {
        "flows": flows,
        "t_window_rtt": float(ct["t_window"][0]),
        "t_alpha_rtt": float(ct["t_alpha"][0]),
        "rate_fitted": float(hy.fitted_rate(traj)[0]),
        "epochs": n,
    }


def hybrid_report(wstar: float, g: float = 1.0 / 16.0, flows: int = 2) -> dict[str, Any]:
    """Hybrid model of section 4 of [DCTCP-A]: α* (23), rates (25)/(26), Theorem 3's bounds, assumptions (22) and a
    worst-case convergence run. Rates per RTT, times in RTTs.

    Parameters
    ----------
    wstar : float
        Fair-share window W* = (C·d + K)/N, packets.
    g : float
        EWMA gain, 0 < g ≤ 1.
    flows : int
        N of the convergence run (one flow starts with the whole window, the others at W = 1).
    """
    from . import analysis_hybrid as hy

    if not (math.isfinite(wstar) and wstar > 0):
        raise ValueError(f"wstar={wstar!r} is out of range: accepted a window in packets > 0")
    if not (isinstance(flows, int) and flows >= 1):
        raise ValueError(f"flows={flows!r} is out of range: accepted an integer >= 1")
    out = hy.hybrid_summary(wstar, g)
    W_max = wstar * flows
    out["assumptions_22"] = {
        "N>=2": flows >= 2,
        "W_max>=2N": W_max >= 2 * flows,
        "g<=1/sqrt(W_max)": g <= 1.0 / math.sqrt(W_max),
    }
    out["convergence"] = _worst_case_convergence(wstar, g, flows)
    return to_jsonable(out)
