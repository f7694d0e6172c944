"""Registered phase-portrait figures: DWTCP Fig. 13 (undelayed), DWTCP with the feedback delay, DCTCP Fig. 4
(the last in :mod:`.phase_figures_dctcp`, registered by importing this module).

Every number a claim states is measured from the figure's data (trajectories of :func:`dwtcp_fluid.dde.solve`,
the model's symbolic Jacobian, the first integral derived in :mod:`dwtcp_fluid.studies.dwtcp.derive_orbits`, and the
DCTCP limit-cycle finder :func:`dwtcp_fluid.analysis.limit_cycle.find_limit_cycle`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ...analysis.phase import PhasePortrait, phase_portrait
from ...dde import Status
from ...experiments.figure import Claim, Figure, register
from ...models.dwtcp import DwtcpFluid
from ...params import DWTCP_EVALUATION, DwtcpParams
from ...plots.phase import plot_delay, plot_fig13

__all__ = [
    "DWTCP_FIG13_PARAMS",
    "dwtcp_decrease_integral",
    "dwtcp_portrait",
    "decrease_arcs",
    "build_fig13",
    "build_delay",
]

#: Fig. 13 setting: the evaluation link (10 Gbps, 100 µs, N = 5, β = 0.001) with k = 0, i.e. d_t = τ as in (6).
DWTCP_FIG13_PARAMS = DWTCP_EVALUATION.replace(k=0.0)
#: Initial (w/w*, q) of the DWTCP portraits, w* = BDP/N (packets).
DWTCP_STARTS = ((1.3, 0.0), (0.6, 0.0), (1.0, 300.0), (0.8, 500.0))
DWTCP_LAWS = ("increase (7)", "decrease (6)")


@functools.cache
def _integral_fn(variant: str):
    from .derive_orbits import first_integral

    m = DwtcpFluid(variant=variant)
    xs, ps = m.symbols()
    H = first_integral(variant, "decrease")
    return sp.lambdify(list(xs) + [ps[k] for k in m.param_names], H, modules="numpy")


def dwtcp_decrease_integral(x: Sequence[Any], p: Mapping[str, float], variant: str = "paper") -> np.ndarray:
    """First integral of the undelayed decrease phase, H = β(q − k)²/(2τ(BDP + k)) + N·w/τ − C·ln w (packets/s).

    [DWTCP] eq. (6); the expression is the SymPy one of
    :func:`dwtcp_fluid.studies.dwtcp.derive_orbits.first_integral`, lambdified (not retyped).
    """
    fn = _integral_fn(variant)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(fn(*x, *(p[k] for k in DwtcpFluid.param_names)), dtype=float)


def dwtcp_portrait(
    params: DwtcpParams = DWTCP_FIG13_PARAMS,
    *,
    delay_rtts: float = 0.0,
    starts: Sequence[tuple[float, float]] = DWTCP_STARTS,
    duration: float = 0.05,
    variant: str = "paper",
    queue_floor: bool = True,
    ylim: tuple[float, float] | None = None,
    title: str | None = None,
    method: str = "jax",
    **kw: Any,
) -> PhasePortrait:
    """DWTCP (w, q) portrait of [DWTCP] eqs. (6)/(7), optionally with the feedback delay.

    ``params`` (a DwtcpParams) sets the link, N and β; ``delay_rtts``, ``variant`` and ``queue_floor`` select the
    :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid`; ``starts`` are (w/w*, q) pairs, w* = BDP/N; ``duration`` in
    seconds; ``ylim`` and ``title`` frame the picture. ``method``: the JAX solver is the default (batched; it
    handles the tie of the floor q = 0 with the switching surface q = k = 0). ``kw`` go to
    :func:`~dwtcp_fluid.analysis.phase.phase_portrait`.
    """
    model = DwtcpFluid(variant=variant, delay_rtts=delay_rtts, queue_floor=queue_floor)
    ws = params.window_fair_share
    x0 = np.array([[a * ws, q] for a, q in starts], dtype=float)
    qtop = max(800.0, 1.1 * float(np.max(x0[:, 1])))
    if title is None:
        title = "DWTCP (6)/(7), " + (
            "no feedback delay" if delay_rtts == 0 else f"feedback delay {delay_rtts:g} RTT"
        )
    return phase_portrait(
        model,
        params,
        x0,
        (0.0, duration),
        method=method,
        # the floor's step artefact at k = 0 is measured against a run at half the step below (not the 1e-3 check)
        solver_options={"crossing_buffer": 512, "check": False} if method == "jax" else None,
        xlim=(0.35 * ws, 1.45 * ws),
        ylim=ylim or (0.0, qtop),
        first_integral=lambda x, p: dwtcp_decrease_integral(x, p, variant),
        integral_label="H (decrease, no delay)",
        law_names=DWTCP_LAWS,
        title=title,
        **kw,
    )


# --- measurements ---------------------------------------------------------------------------------------------


def decrease_arcs(tr: Any, min_len: int = 8, q_floor: float = 1e-6) -> list[slice]:
    """Maximal runs of saved samples with u = 1 and q > ``q_floor`` (packets), without their first and last
    sample (which may straddle a switch inside a solver step)."""
    on = (tr.u == 1) & (tr.x[:, 1] > q_floor)
    edges = np.flatnonzero(np.diff(np.r_[0, on.astype(np.int8), 0]))
    return [slice(a + 1, b - 1) for a, b in zip(edges[::2], edges[1::2], strict=True) if b - a - 2 >= min_len]


def _dwtcp_measure(pp: PhasePortrait, tail: float) -> dict[str, Any]:
    """Per trajectory: H drift on decrease arcs, decrease-arc count, end state, and the cycle over the tail."""
    p = pp.params
    ws = p["tau"] * p["C"] / p["N"]
    H_eq = float(dwtcp_decrease_integral([np.array(ws), np.array(0.0)], p))
    rows = []
    for tr in pp.trajectories:
        arcs = [a for a in decrease_arcs(tr) if tr.x[a, 1].max() > 1e-6]
        drift = 0.0
        for a in arcs:
            H = dwtcp_decrease_integral([tr.x[a, 0], tr.x[a, 1]], p)
            drift = max(drift, float((H.max() - H.min()) / (H[0] - H_eq)))
        late = tr.t >= tr.t[-1] - tail
        rows.append(
            {
                "arcs": len(arcs),
                "big_arcs": sum(1 for a in arcs if tr.x[a, 1].max() > 0.05 * p["tau"] * p["C"]),
                "H_drift": drift,
                "end": tr.x[-1].copy(),
                "end_dist": float(np.hypot((tr.x[-1, 0] - ws) / ws, tr.x[-1, 1] / (p["tau"] * p["C"]))),
                "tail_q": (float(tr.x[late, 1].min()), float(tr.x[late, 1].max())),
                "tail_w": (float(tr.x[late, 0].min()), float(tr.x[late, 0].max())),
                "status": tr.status,
            }
        )
    return {"w_star": ws, "H_eq": H_eq, "rows": rows}


def _cycle_estimate(p: Mapping[str, float]) -> float:
    """Queue peak of the delayed cycle predicted from the one-RTT overshoot, packets.

    With the delay, the increase (7) runs one τ past w* before the decrease starts: w₁ ≈ w*(1 + x), x = a·τ/w*,
    a the increase rate. The decrease orbit through (w₁, 0) then peaks where H of (6) [DWTCP]
    gives β·q²/(2τ·BDP) = C·(x − ln(1 + x)), i.e. q̂ = BDP·sqrt(2(x − ln(1 + x))/β).
    """
    bdp = p["tau"] * p["C"]
    ws = bdp / p["N"]
    a = float(DwtcpFluid().increase_rate(p))
    x = a * p["tau"] / ws
    return bdp * math.sqrt(2.0 * (x - math.log1p(x)) / p["beta"])


def _arrival(sol: Any, p: Mapping[str, float], rtol: float = 1e-9) -> tuple[float, np.ndarray]:
    """First time a reference trajectory is at (BDP/N, 0) within ``rtol`` (NaN if never), and its last state."""
    ws = p["tau"] * p["C"] / p["N"]
    t, x = sol.t, sol.x[0]
    if sol.status[0] != Status.OK:  # stopped on its chattering check: the stop is the arrival
        keep = t < sol.fail_t[0]
        t, x = np.r_[t[keep], sol.fail_t[0]], np.vstack([x[keep], sol.fail_x[0]])
    at = (np.abs(x[:, 0] / ws - 1) < rtol) & (np.abs(x[:, 1]) < rtol * ws)
    return (float(t[np.argmax(at)]) if at.any() else math.nan), x[-1].copy()


def build_fig13(quick: bool = False) -> dict[str, Any]:
    """DWTCP Fig. 13 recomputed from (6)/(7) of [DWTCP], plus one run without the queue floor."""
    from ...dde import solve

    pp = dwtcp_portrait(duration=0.05)
    # the same starts with half the JAX step: what is left near (BDP/N, 0) must shrink with the step if it is
    # the one-step overshoot of the switch (the exact undelayed solution stops at the equilibrium)
    dt = pp.solution.options["dt"]
    x0 = np.array([tr.x0 for tr in pp.trajectories])
    fine = solve(pp.model, [pp.params] * len(x0), x0, (0.0, 0.05), method="jax", dt=dt / 2, check=False)
    tail = fine.t >= fine.t[-1] - 0.02
    # the event-exact reference solver: it arrives at (BDP/N, 0) in finite time (and either holds it as a
    # sliding mode or stops there on its chattering check)
    ref = [solve(pp.model, pp.params, x, (0.0, 0.05), method="reference") for x in x0]
    nf = dwtcp_portrait(starts=DWTCP_STARTS[:1], duration=0.2, queue_floor=False, equilibria=False, grid=9)
    tr = nf.trajectories[0]
    peaks = [float(tr.x[a, 1].max()) for a in decrease_arcs(tr)]
    return {
        "pp": pp,
        "m": _dwtcp_measure(pp, 0.02),
        "dt": dt,
        "residual_fine": float(fine.x[:, tail, 1].max()),
        "ref_arrival": [_arrival(r, pp.params) for r in ref],
        "no_floor": tr,
        "no_floor_peaks": peaks,
    }


def build_delay(quick: bool = False) -> dict[str, Any]:
    """The Fig. 13 starts without and with the one-RTT Scout feedback delay (``DwtcpFluid(delay_rtts=1)``)."""
    # the box reaches above the delayed run's first overshoot (≈ 885 packets from 1.3·w*)
    pps = [dwtcp_portrait(delay_rtts=d, duration=0.1, ylim=(0.0, 950.0)) for d in (0.0, 1.0)]
    meas = [_dwtcp_measure(pp, 0.03) for pp in pps]
    sol = pps[1].solution
    periods = []
    for e in range(len(pps[1].trajectories)):
        c = sol.crossings[e][sol.crossing_up[e]]
        c = c[c >= sol.t[-1] - 0.03]
        periods.append(float(np.mean(np.diff(c))) if c.size >= 2 else math.nan)
    # second solver: the event-exact SciPy reference on one start (the JAX cycle must not be a step artefact)
    from ...dde import solve

    e = 2
    ref = solve(pps[1].model, pps[1].params, pps[1].trajectories[e].x0, (0.0, 0.1), method="reference")
    t = np.linspace(0.07, 0.1, 6001)
    q_ref = ref(t)[:, 1]
    return {
        "pps": pps,
        "m": meas,
        "periods": periods,
        "q_hat": _cycle_estimate(pps[1].params),
        "ref_tail_q": (float(q_ref.min()), float(q_ref.max()), int(ref.status[0])),
        "ref_element": e,
    }


# --- plots ----------------------------------------------------------------------------------------------------


# --- claims ---------------------------------------------------------------------------------------------------

_H_TOL = 1e-6  # relative drift of H on a decrease arc (RK4, step 2.5 µs)
_END_TOL = 1e-6  # relative distance to (BDP/N, 0)


def _claim_h(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["m"]["rows"]
    worst = max(r["H_drift"] for r in rows)
    n = sum(r["arcs"] for r in rows)
    return bool(n > 0 and worst < _H_TOL), f"max |ΔH|/(H − H(w*,0)) = {worst:.1e} over {n} decrease arcs"


def _claim_center(d: dict[str, Any]) -> tuple[bool, str]:
    eqs = d["pp"].equilibria
    ws = d["m"]["w_star"]
    hit = [e for e in eqs if abs(e.x[0] - ws) < 1e-6 * ws and abs(e.x[1]) < 1e-9]
    if not hit:
        return False, f"equilibria found: {[(e.x.tolist(), e.kind) for e in eqs]}"
    e = hit[0]
    return bool(e.kind == "center"), (
        f"(w, q) = ({e.x[0]:.4f}, {e.x[1]:g}): {e.kind}, eigenvalues ±{abs(e.eigenvalues[0].imag):.1f}i rad/s, "
        f"tr J = {np.trace(e.jacobian):g}"
    )


def _claim_floor(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["m"]["rows"]
    big = [r["big_arcs"] for r in rows]
    r1, r2 = max(r["tail_q"][1] for r in rows), d["residual_fine"]
    ok = all(b <= 1 and r["status"] == 0 for b, r in zip(big, rows, strict=True))
    # what is left near (BDP/N, 0) is the solver's one-step overshoot: below a packet and halving with the step
    ok = ok and r1 < 1.0 and r2 <= 0.6 * r1 + 1e-9
    pk = d["no_floor_peaks"]
    ok = ok and len(pk) >= 4 and pk[-1] > 0.1 * pk[0]
    # the reference solver arrives at (BDP/N, 0) exactly and stops on its chattering check there
    ws = d["m"]["w_star"]
    arr = d["ref_arrival"]
    ok = ok and all(np.isfinite(t) and abs(x[0] / ws - 1) < 1e-9 and abs(x[1]) < 1e-9 * ws for t, x in arr)
    return bool(ok), (
        "reference solver arrives at (BDP/N, 0) at t = "
        + ", ".join(f"{t * 1e3:.2f}" for t, _ in arr)
        + " ms; "
        f"JAX: large decrease arcs per start {big}, residual q near (BDP/N, 0): {r1:.3f} packets at dt = "
        f"{d['dt'] * 1e6:.2f} µs, {r2:.3f} at dt/2; no floor: q peaks {pk[0]:.0f} → {pk[-1]:.0f} after {len(pk)} arcs"
    )


def _claim_undelayed(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["m"][0]["rows"]
    worst = max(r["end_dist"] for r in rows)
    return bool(worst < _END_TOL), f"max relative distance of the end states to (BDP/N, 0): {worst:.1e}"


def _claim_cycle(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["m"][1]["rows"]
    qmax = np.array([r["tail_q"][1] for r in rows])
    qmin = np.array([r["tail_q"][0] for r in rows])
    wlo = min(r["tail_w"][0] for r in rows)
    whi = max(r["tail_w"][1] for r in rows)
    spread = float(np.ptp(qmax) / qmax.mean())
    per = np.array(d["periods"])
    ok = bool(spread < 0.01 and np.all(qmin < 1e-6) and np.all(np.isfinite(per)) and qmax.min() > 50.0)
    return ok, (
        f"all {len(rows)} starts end on one cycle: q ∈ [0, {qmax.mean():.1f}] packets (spread {spread:.1e}), "
        f"w ∈ [{wlo:.2f}, {whi:.2f}], period {per.mean() * 1e3:.2f} ms"
    )


def _claim_reference(d: dict[str, Any]) -> tuple[bool, str]:
    lo, hi, st = d["ref_tail_q"]
    jax_hi = d["m"][1]["rows"][d["ref_element"]]["tail_q"][1]
    rel = hi / jax_hi - 1.0
    return bool(st == 0 and abs(rel) < 2e-3 and lo < 1e-6), (
        f"reference q ∈ [{lo:.2g}, {hi:.2f}] vs JAX peak {jax_hi:.2f} ({rel:+.1e})"
    )


def _claim_estimate(d: dict[str, Any]) -> tuple[bool, str]:
    qmax = np.mean([r["tail_q"][1] for r in d["m"][1]["rows"]])
    rel = qmax / d["q_hat"] - 1.0
    return bool(abs(rel) < 0.05), f"measured {qmax:.1f}, estimate {d['q_hat']:.1f} packets ({rel:+.1%})"


FIG13 = register(
    Figure(
        name="dwtcp_fig13_phase",
        title="DWTCP Fig. 13 recomputed from (6)/(7): closed level sets of H and the queue floor",
        build=build_fig13,
        plot=plot_fig13,
        claims=[
            Claim("H = βq²/(2τ·BDP) + N·w/τ − C·ln w is conserved along every decrease arc (6)", _claim_h),
            Claim(
                "(BDP/N, 0) is a center of the Jacobian of (6), not a stable spiral (tr J = 0 at q = 0)",
                _claim_center,
            ),
            Claim(
                "What brings a trajectory to (BDP/N, 0) is the queue floor: at most one decrease arc, then a "
                "slide along q = 0 under (7) that stops at w = BDP/N; without the floor the start keeps cycling",
                _claim_floor,
            ),
        ],
    )
)

DELAY = register(
    Figure(
        name="dwtcp_phase_delay",
        title="DWTCP without and with the one-RTT Scout feedback delay, same starts",
        build=build_delay,
        plot=plot_delay,
        claims=[
            Claim("Without delay every start ends at (BDP/N, 0)", _claim_undelayed),
            Claim(
                "With the one-RTT delay every start settles on one limit cycle (no convergence)", _claim_cycle
            ),
            Claim(
                "The event-exact SciPy reference solver gives the same cycle (peak within 0.2 %)",
                _claim_reference,
            ),
            Claim(
                "The cycle's queue peak matches the one-RTT-overshoot estimate BDP·sqrt(2(x − ln(1+x))/β), "
                "x = a·τ·N/BDP, within 5 %",
                _claim_estimate,
            ),
        ],
    )
)

# DCTCP Fig. 4 lives in its own module; importing it here registers it with the two DWTCP figures.
from ..dctcp import figures_phase as phase_dctcp  # noqa: E402, F401
