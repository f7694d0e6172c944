"""JSON documents of ``dwtcp condition``, ``dwtcp eigen`` and ``dwtcp simulate``."""

from __future__ import annotations

import math
from typing import Any

from ...params import DwtcpParams
from ...reports._json import to_jsonable

__all__ = [
    "condition_report",
    "eigen_report",
    "dwtcp_model",
    "dwtcp_simulate_report",
    "run_dwtcp_simulate",
    "failed_run",
    "DWTCP_VARIANTS",
]

#: The ``--variant`` values of ``dwtcp simulate``: the fluid models (3)-(7) of [DWTCP], α fixed or a state.
DWTCP_VARIANTS = ("paper", "sqrt", "paper-scout", "sqrt-scout")


def condition_report(P: DwtcpParams) -> dict[str, Any]:
    """The condition k̄ < k̄* = 2·BDP/√β in numbers, [DWTCP] eq. (14): k̄* in packets, as a multiple of the BDP, as
    a queueing delay (s) and in bytes, the fair-share window and the guideline β."""
    return to_jsonable(
        {
            "beta": P.beta,
            "flows": P.flows,
            "capacity_pps": P.link.C,
            "rtt_s": P.tau,
            "bdp_packets": P.bdp,
            "window_fair_share": P.window_fair_share,
            "kbar_crit": P.kbar_crit,
            "kbar_crit_over_bdp": P.kbar_crit / P.bdp,
            "kbar_crit_delay_s": P.kbar_crit / P.link.C,
            "kbar_crit_bytes": P.kbar_crit * P.link.L,
            "beta_guideline": P.beta_guideline,
            "meaning": (
                "k̄ < k̄* makes the eigenvalues of the frozen decrease-phase Jacobian (8) complex (a spiral); "
                "they have negative real part for every k̄ > 0 (eq. (12)), so the condition separates spiral from "
                "node, not stable from unstable."
            ),
        }
    )


def eigen_report(
    P: DwtcpParams,
    *,
    phase: str = "decrease",
    kbar: float | None = None,
    window: float | None = None,
    variant: str = "paper",
) -> dict[str, Any]:
    """Jacobian, eigenvalues (``[real, imaginary]`` pairs in 1/s) and class of the DWTCP fluid model frozen at
    (w, q = k̄), [DWTCP] eqs. (8)-(16).

    Parameters
    ----------
    P : DwtcpParams
    phase : {"decrease", "increase"}
        Eq. (6) or eq. (7).
    kbar : float, optional
        Queue ahead of the Scout k̄ in packets (required in the decrease phase).
    window : float, optional
        Per-flow window w in packets (default BDP/N).
    variant : {"paper", "sqrt"}
        Eqs. (5)/(6) or eq. (3).
    """
    import numpy as np

    from ...analysis.linear import CLASSES, STABILITY, classify_2x2, stability_2x2
    from ...models.dwtcp import DwtcpFluid

    if phase not in ("decrease", "increase"):
        raise ValueError(f"phase={phase!r} is invalid: accepted decrease or increase")
    if variant not in ("paper", "sqrt"):
        raise ValueError(f"variant={variant!r} is invalid: accepted paper or sqrt")
    w = P.window_fair_share if window is None else window
    if not (math.isfinite(w) and w > 0):
        raise ValueError(f"window={window!r} is out of range: accepted a window in packets > 0")
    if phase == "decrease" and (kbar is None or not (math.isfinite(kbar) and kbar >= 0)):
        raise ValueError(f"kbar={kbar!r} is out of range: accepted a queue in packets >= 0 (decrease phase)")
    q = 0.0 if kbar is None else float(kbar)
    model = DwtcpFluid(variant=variant)
    J = model.jacobian_fn(1 if phase == "decrease" else 0)([w, q], model.numeric_params(P))
    ev = np.linalg.eigvals(J)
    ev = ev[np.argsort(ev.imag, kind="stable")]
    out: dict[str, Any] = {
        "phase": phase,
        "variant": variant,
        "window": w,
        "kbar": q,
        "jacobian": J.tolist(),
        "eigenvalues_format": "[real, imaginary] pairs in 1/s, sorted by imaginary part",
        "eigenvalues": [[float(e.real), float(e.imag)] for e in ev],
        "classification": CLASSES[int(classify_2x2(J))],
        "stability": STABILITY[int(stability_2x2(J))],
        "trace": float(np.trace(J)),
        "determinant": float(np.linalg.det(J)),
        "discriminant": float(np.trace(J) ** 2 - 4 * np.linalg.det(J)),
        "kbar_crit": P.kbar_crit,
    }
    if phase == "decrease":
        out["condition"] = bool(q < P.kbar_crit)
    else:
        out["note"] = (
            "J = [[0, 0], [N/τ, 0]] is nilpotent: both eigenvalues are 0 and w grows linearly; "
            "the paper's (15)/(16) write [[0, 0], [0, N/τ]] with eigenvalue N/τ."
        )
    return to_jsonable(out)


def dwtcp_model(variant: str, delay: bool) -> Any:
    """The DWTCP fluid model of ``variant`` (:data:`DWTCP_VARIANTS`), Scout feedback one RTT late or undelayed."""
    from ...models.dwtcp import DwtcpFluid

    if variant not in DWTCP_VARIANTS:
        raise ValueError(f"variant={variant!r} is invalid: accepted {' | '.join(DWTCP_VARIANTS)}")
    base = variant.split("-")[0]
    rtts = 1.0 if delay else 0.0
    if variant.endswith("-scout"):
        from ...models.dwtcp_scout import DwtcpScoutFluid

        return DwtcpScoutFluid(variant=base, delay_rtts=rtts)
    return DwtcpFluid(variant=base, delay_rtts=rtts)


def failed_run(out: dict[str, Any], sol: Any, s: Any, keep: tuple[str, ...]) -> dict[str, Any] | None:
    """When the run did not end well (a status other than ok): the inputs, the status, its message and where the
    run stopped, and no observables — a failed or chattering run's numbers are not results."""
    if s.status.ok:
        return None
    t_end = float(sol.fail_t[0]) if math.isfinite(float(sol.fail_t[0])) else float(sol.t[-1])
    return {k: out[k] for k in keep if k in out} | {
        "status": s.to_dict()["status"],
        "message": s.message,
        "stopped_at_s": t_end,
    }


def run_dwtcp_simulate(
    P: DwtcpParams,
    *,
    duration: float,
    variant: str = "paper",
    delay: bool = True,
    solver: str = "reference",
    progress: Any = None,
) -> tuple[dict[str, Any], Any]:
    """:func:`dwtcp_simulate_report` and the solution it summarises (for a plot); ``progress(done, total)`` is
    passed to :func:`~dwtcp_fluid.dde.solve` (the CLI's bar; quiet without it)."""
    import numpy as np

    from ...dde import solve
    from ...dde.summary import queue_range_tolerance

    if solver not in ("reference", "jax"):
        raise ValueError(f"solver={solver!r} is invalid: accepted reference or jax")
    model = dwtcp_model(variant, delay)
    hist = [1.0, 0.0] + ([0.0] if len(model.states) == 3 else [])
    # with k = 0 the switching surface is the queue floor: its exit must be located exactly (jax_rk docstring)
    opts: dict[str, Any] = {"exact_exits": True} if solver == "jax" else {}
    if solver == "jax" and P.k == 0 and model.delay_rtts == 0:
        # the undelayed decrease is a center stopped only by the floor, where a fixed step leaves an orbit of
        # the size dde.summary.queue_range_tolerance documents: the step-doubling check accepts up to that
        from ...dde.problem import make_problem
        from ...dde.solve import default_step

        h = default_step([make_problem(model, P)], duration)
        opts["atol"] = max(
            1e-3, float(queue_range_tolerance(P.bdp, P.flows, h / P.link.d, 1.0 + P.scout_ratio))
        )
    sol = solve(model, P, hist, (0.0, duration), method=solver, progress=progress, **opts)
    s = sol.summary()
    # oscillating only above what the solver itself can leave behind: the fixed step's orbit at the queue floor
    # (dde.summary.queue_range_tolerance; h = 0 for the event-exact reference solver)
    h_rtts = sol.options.get("dt", 0.0) / P.link.d if sol.method == "jax" else 0.0
    q_tol = queue_range_tolerance(P.bdp, P.flows, h_rtts, 1.0 + P.scout_ratio)  # α ≤ 1: the steepest increase
    out = {
        "queue_min": s["queue_min"],
        "queue_max": s["queue_max"],
        "queue_mean": s["queue_mean"],
        "window_mean": s["window_mean"],
        "utilization": s["utilization"],
        "amplitude": s["amplitude"],
        "period_s": s["period_s"],
        "oscillating": s["period_s"] is not None and 2.0 * s["amplitude"] > float(q_tol),
        "bdp_packets": P.bdp,
        "window_fair_share": P.window_fair_share,
        "kbar_crit": P.kbar_crit,
        "variant": variant,
        "delay_rtts": model.delay_rtts,
        "duration_s": duration,
        "solver": sol.method,
        "status": s.to_dict()["status"],
    }
    keep = ("bdp_packets", "window_fair_share", "kbar_crit", "variant", "delay_rtts", "duration_s", "solver")
    out = failed_run(out, sol, s, keep) or out
    if "log2_alpha" in model.states and out["status"] == "ok":
        t_end = float(sol.t[-1])  # the summary's window: where the run ended, not the requested span
        ts = np.linspace(t_end / 2, t_end, 5001) if sol.method == "reference" else sol.t[sol.t >= t_end / 2]
        out["scout_alpha_mean"] = float(np.mean(2.0 ** sol(ts)[:, model.state_index("log2_alpha")]))
    return to_jsonable(out), sol


def dwtcp_simulate_report(
    P: DwtcpParams, *, duration: float, variant: str = "paper", delay: bool = True, solver: str = "reference"
) -> dict[str, Any]:
    """The DWTCP fluid model (3)-(7) of [DWTCP] with the physical queue floor, summarised over the last half.

    History before t = 0: w = 1 packet, q = 0 (and α = 1 for the -scout variants). The period is the mean spacing of
    the upward crossings of q = k (None without two).

    Parameters
    ----------
    P : DwtcpParams
    duration : float
        Simulated time, s.
    variant : str
        One of :data:`DWTCP_VARIANTS`.
    delay : bool
        Scout feedback one RTT late (True) or the paper's undelayed model.
    solver : {"reference", "jax"}
        SciPy event-exact or fixed-step RK4.
    """
    return run_dwtcp_simulate(P, duration=duration, variant=variant, delay=delay, solver=solver)[0]
