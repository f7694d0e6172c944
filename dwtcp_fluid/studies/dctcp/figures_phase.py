"""DCTCP Fig. 4 of [DCTCP-A] as a registered phase portrait (w̄ = 10, g = 1/16): trajectories
from inside and outside the limit cycle, the cycle of :func:`dwtcp_fluid.analysis.limit_cycle.find_limit_cycle`,
and a long reference run's last period.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...analysis.phase import PhasePortrait, phase_portrait
from ...experiments.figure import Claim, Figure, register
from ...models.dctcp import DctcpNormalized
from ...plots.phase import plot_fig4

__all__ = ["DCTCP_STARTS", "dctcp_portrait", "orbit_distance", "build_fig4", "plot_fig4", "FIG4"]

#: DCTCP Fig. 4 (w̄ = 10, g = 1/16): starts (W̃, α̃, q̃), two inside the cycle and three outside.
DCTCP_STARTS = ((10.0, 0.45, 0.0), (9.5, 0.45, -0.05), (6.0, 0.2, -0.3), (14.0, 0.6, 0.3), (13.0, 0.3, -0.2))


def dctcp_portrait(
    wbar: float = 10.0,
    g: float = 1.0 / 16.0,
    *,
    starts: Sequence[tuple[float, float, float]] = DCTCP_STARTS,
    duration: float = 300.0,
    psi: float | None = None,
    **kw: Any,
) -> PhasePortrait:
    """DCTCP normalized model (11)-(14) of [DCTCP-A], W̃–q̃ projection with α̃ as colour.

    ``wbar`` (w̄, packets) and ``g`` select the model; ``starts`` are (W̃, α̃, q̃) initial states; ``duration`` in
    units of R*; ``psi`` applies the queue floor of section 3.3.2; ``kw`` go to
    :func:`~dwtcp_fluid.analysis.phase.phase_portrait`.
    """
    model = DctcpNormalized(underflow=psi is not None)
    p = {"wbar": float(wbar), "g": float(g), "psi": float(psi) if psi is not None else 0.0}
    x0 = np.asarray(starts, dtype=float)
    w_lo, w_hi = float(x0[:, 0].min()), float(x0[:, 0].max())
    q_lo, q_hi = float(x0[:, 2].min()), float(x0[:, 2].max())
    return phase_portrait(
        model,
        p,
        x0,
        (0.0, duration),
        axes=("W", "q"),
        method="reference",
        xlim=(min(w_lo, 0.7 * wbar) - 1.0, max(w_hi, 1.3 * wbar) + 1.0),
        ylim=(min(q_lo, -0.2) - 0.05, max(q_hi, 0.2) + 0.05),
        color_by="alpha",
        law_names=("unmarked (u = 0)", "marked (u = 1)"),
        title=f"DCTCP (11)-(14), w̄ = {wbar:.4g}, g = {g:.4g}",
        **kw,
    )


def orbit_distance(points: np.ndarray, orbit: np.ndarray) -> np.ndarray:
    """Euclidean distance of each point (k, n) to the closed polyline ``orbit`` (m, n) (state units)."""
    a = orbit
    b = np.roll(orbit, -1, axis=0)
    ab = b - a
    den = np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-300)
    out = np.empty(len(points))
    for i, pt in enumerate(points):
        s = np.clip(np.einsum("ij,ij->i", pt - a, ab) / den, 0.0, 1.0)
        out[i] = np.sqrt(np.min(np.sum((a + s[:, None] * ab - pt) ** 2, axis=1)))
    return out


def build_fig4(quick: bool = False) -> dict[str, Any]:
    """DCTCP Fig. 4 (w̄ = 10, g = 1/16) of [DCTCP-A]: trajectories, the limit-cycle finder's orbit
    and a long reference run's last period."""
    from ...analysis.limit_cycle import find_limit_cycle
    from ...dde import solve

    pp = dctcp_portrait()
    lc = find_limit_cycle(10.0, 1.0 / 16.0)
    ref = solve(pp.model, pp.params, np.asarray(DCTCP_STARTS[2]), (0.0, 500.0), method="reference")
    up = ref.crossings[0][ref.crossing_up[0]]
    # vertices at the crossings and at the delayed switches (crossing + 1 R*), where the orbit has corners
    kinks = np.concatenate([ref.crossings[0], ref.crossings[0] + 1.0])
    kinks = kinks[(kinks > up[-2]) & (kinks < up[-1])]
    t_orbit = np.unique(np.concatenate([np.linspace(up[-2], up[-1], 4001), kinks]))
    orbit = ref(t_orbit)
    last = []
    for tr in pp.trajectories:
        T = lc.period
        sel = tr.t >= tr.t[-1] - T
        last.append(float(orbit_distance(tr.x[sel][::8], orbit).max()))
    return {
        "pp": pp,
        "lc": lc,
        "orbit": orbit,
        "ref_period": float(up[-1] - up[-2]),
        "lc_to_ref": float(orbit_distance(lc.x, orbit).max()),
        "last_period_dist": last,
        "end_dist": [float(orbit_distance(tr.x[-1:], orbit)[0]) for tr in pp.trajectories],
    }


def _claim_fig4(d: dict[str, Any]) -> tuple[bool, str]:
    last = max(d["last_period_dist"])
    return bool(last < 1e-4), (
        f"max distance over each trajectory's last period: {last:.1e} (end states: {max(d['end_dist']):.1e})"
    )


def _claim_inside_outside(d: dict[str, Any]) -> tuple[bool, str]:
    from matplotlib.path import Path

    o = d["orbit"]
    path = Path(np.c_[o[:, 0], o[:, 2]])
    starts = np.array([tr.x0[[0, 2]] for tr in d["pp"].trajectories])
    inside = path.contains_points(starts)
    return bool(
        inside.any() and (~inside).any()
    ), f"{int(inside.sum())} starts inside, {int((~inside).sum())} outside"


def _claim_finder(d: dict[str, Any]) -> tuple[bool, str]:
    lc, o = d["lc"], d["orbit"]
    dq = max(abs(o[:, 2].min() - lc.q_min), abs(o[:, 2].max() - lc.q_max))
    dT = abs(d["ref_period"] - lc.period)
    ok = bool(d["lc_to_ref"] < 1e-5 and dq < 1e-5 and dT < 1e-5)
    return ok, (
        f"finder: q̃ ∈ [{lc.q_min:.5f}, {lc.q_max:.5f}], T = {lc.period:.5f} R*, ρ = {lc.rho:.3f}; "
        f"vs reference run: Δq̃ {dq:.1e}, ΔT {dT:.1e}, orbit distance {d['lc_to_ref']:.1e}"
    )


FIG4 = register(
    Figure(
        name="dctcp_fig4_phase",
        title="DCTCP Fig. 4: w̄ = 10, g = 1/16, trajectories converge to the limit cycle",
        build=build_fig4,
        plot=plot_fig4,
        claims=[
            Claim("Starts inside and outside the cycle (W̃–q̃ projection)", _claim_inside_outside),
            Claim("All trajectories end within 1e-4 of the limit-cycle orbit", _claim_fig4),
            Claim("The limit-cycle finder's orbit equals a long reference run's last period", _claim_finder),
        ],
    )
)
