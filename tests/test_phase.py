"""Phase portraits: classifier on known linear systems, nullclines on their equations, trajectories equal to the
solvers' output (and to closed forms), the DWTCP first integral, the delayed switching input, determinism, CLI."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
from scipy.linalg import expm

from dwtcp_fluid.analysis.phase import phase_portrait
from dwtcp_fluid.analysis.phase_layers import find_equilibria
from dwtcp_fluid.cli import main
from dwtcp_fluid.dde import solve
from dwtcp_fluid.models.base import FluidModel
from dwtcp_fluid.models.dctcp import DctcpNormalized
from dwtcp_fluid.models.dwtcp import DwtcpFluid
from dwtcp_fluid.studies.dwtcp.figures_phase import (
    DWTCP_FIG13_PARAMS,
    dwtcp_decrease_integral,
    dwtcp_portrait,
)


@dataclass(frozen=True)
class Linear2(FluidModel):
    """x' = A·x (both laws equal), σ = 1: a known linear system written as a fluid model."""

    name: ClassVar[str] = "linear2"
    states: ClassVar[tuple[str, ...]] = ("x", "y")
    state_units: ClassVar[tuple[str, ...]] = ("1", "1")
    param_names: ClassVar[tuple[str, ...]] = ("a", "b", "c", "d")

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        return (p["a"] * x[0] + p["b"] * x[1], p["c"] * x[0] + p["d"] * x[1])

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        return 1 + 0 * x[0]

    def delay(self, p: Mapping[str, Any]) -> Any:
        return 0.0

    def numeric_params(self, params: Any) -> dict[str, float]:
        return dict(params)


KNOWN = {
    "node": [[-1.0, 0.0], [0.0, -3.0]],
    "spiral": [[-0.2, -2.0], [2.0, -0.2]],
    "center": [[0.0, -1.5], [1.5, 0.0]],
    "saddle": [[1.0, 0.5], [0.0, -2.0]],
    "degenerate": [[-1.0, 1.0], [0.0, -1.0]],
}


def _p(A):
    return {"a": A[0][0], "b": A[0][1], "c": A[1][0], "d": A[1][1]}


@pytest.mark.parametrize("kind", sorted(KNOWN))
def test_classifier_on_known_linear_systems(kind):
    A = np.array(KNOWN[kind])
    seeds = np.array([[0.7, -0.4], [-1.0, 1.0], [2.0, 0.5]])
    eqs = find_equilibria(Linear2(), _p(A), seeds, laws=(1,))
    assert len(eqs) == 1
    e = eqs[0]
    assert np.allclose(e.x, 0.0, atol=1e-12)
    assert np.allclose(e.jacobian, A)  # from the model's symbolic Jacobian
    assert e.kind == kind
    assert np.allclose(np.sort_complex(e.eigenvalues), np.sort_complex(np.linalg.eigvals(A)))
    expected = {"node": "asymptotically stable", "spiral": "asymptotically stable", "center": "marginally stable",
                "saddle": "unstable", "degenerate": "asymptotically stable"}[kind]  # fmt: skip
    assert e.stability == expected


def test_linear_trajectories_match_closed_form_and_solver():
    A = np.array(KNOWN["spiral"])
    x0 = np.array([[1.0, 0.0], [0.0, -1.5]])
    pp = phase_portrait(
        Linear2(), _p(A), x0, (0.0, 3.0), xlim=(-2, 2), ylim=(-2, 2), grid=11, nullcline_grid=41
    )
    sol = solve(Linear2(), [_p(A)] * 2, x0, (0.0, 3.0), method="reference")
    for e, tr in enumerate(pp.trajectories):
        exact = np.stack([expm(A * t) @ x0[e] for t in tr.t[::200]])
        assert np.allclose(tr.x[::200], exact, atol=1e-8)
        assert np.array_equal(tr.x, sol(tr.t, e))
    # the nullclines of a linear field are the lines a·x + b·y = 0 and c·x + d·y = 0
    for nc in pp.nullclines:
        row = A[Linear2.states.index(nc.state)]
        for line in nc.lines:
            assert np.max(np.abs(line @ row)) < 1e-10


def test_jax_trajectories_equal_the_solver_output():
    pp = dwtcp_portrait(delay_rtts=1.0, duration=0.01, equilibria=False, grid=9)
    x0 = np.array([tr.x0 for tr in pp.trajectories])
    sol = solve(pp.model, [pp.params] * len(x0), x0, (0.0, 0.01), method="jax", crossing_buffer=512)
    for e, tr in enumerate(pp.trajectories):
        assert np.array_equal(tr.t, sol.t) and np.array_equal(tr.x, sol.x[e])


def test_delayed_switch_input_reads_the_queue_one_rtt_back():
    pp = dwtcp_portrait(delay_rtts=1.0, duration=0.03, equilibria=False, grid=9)
    tau = pp.params["tau"]
    for tr in pp.trajectories:
        late = tr.t >= tr.t[0] + tau
        q_back = np.interp(tr.t[late] - tau, tr.t, tr.x[:, 1])
        clear = np.abs(q_back) > 1.0  # away from the switch, where linear interpolation decides the sign
        assert np.array_equal(tr.u[late][clear], (q_back[clear] > 0).astype(np.int8))
    # the delayed overshoot passes the requested box (q ≤ 800): the frame holds it (``phase dwtcp``'s default)
    q_max = max(float(tr.x[:, 1].max()) for tr in pp.trajectories)
    assert q_max > 800.0 and pp.ylim[1] > q_max


def test_dwtcp_layers_and_first_integral():
    P = DWTCP_FIG13_PARAMS
    pp = dwtcp_portrait(starts=[(1.2, 0.0)], duration=0.002)
    p = pp.params
    ws = P.bdp / P.flows
    # equilibrium (BDP/N, 0) of the decrease law, a center (eq. (8) at q = 0 has zero trace)
    (e,) = pp.equilibria
    assert e.u == 1 and e.kind == "center" and np.allclose(e.x, [ws, 0.0])
    assert np.isclose(abs(e.eigenvalues[0].imag), np.sqrt(P.beta * ws * P.flows / (P.tau**2 * P.bdp)))
    # q' = 0 nullcline is w = BDP/N (eq. (6)/(7): q' = N·w/τ − C); the surface is q = k = 0
    qn = [ln for nc in pp.nullclines if nc.state == "q" for ln in nc.lines]
    assert qn and all(np.allclose(ln[:, 0], ws, rtol=1e-9) for ln in qn)
    for nc in pp.nullclines:
        i = DwtcpFluid.states.index(nc.state)
        for ln in nc.lines:
            F = DwtcpFluid().rhs([ln[:, 0], ln[:, 1]], [ln[:, 0], ln[:, 1]], nc.u, p, np)[i]
            scale = p["C"] if nc.state == "q" else p["beta"] * ws * 800 / (p["tau"] * P.bdp)
            assert np.max(np.abs(F)) < 1e-6 * scale
    assert all(np.allclose(s[:, 1], 0.0, atol=1e-9) for s in pp.surfaces)
    # H from the SymPy derivation equals the closed form of docs/equations.md (k = 0)
    rng = np.random.default_rng(1)
    w, q = rng.uniform(5, 30, 20), rng.uniform(0, 500, 20)
    H = P.beta * q**2 / (2 * P.tau * P.bdp) + P.flows * w / P.tau - P.link.C * np.log(w)
    assert np.allclose(dwtcp_decrease_integral([w, q], p), H, rtol=1e-12)


def test_dctcp_projection_nullclines_and_colour():
    p = {"wbar": 10.0, "g": 1 / 16, "psi": 0.0}
    x0 = [[10.0, 0.45, 0.0], [6.0, 0.2, -0.3]]
    pp = phase_portrait(DctcpNormalized(), p, x0, (0.0, 20.0), axes=("W", "q"), xlim=(4, 16), ylim=(-0.4, 0.4),
                        color_by="alpha", fixed={"alpha": 0.4}, grid=11)  # fmt: skip
    assert pp.projection and pp.color_by == 1 and pp.equilibria == []  # w̄ > 2: no fixed point
    by = {(nc.state, nc.u): nc.lines for nc in pp.nullclines}
    for u in (0, 1):  # q̃' = 0 ⇔ W̃ = w̄(1 + q̃), eq. (13)
        pts = np.concatenate(by[("q", u)])
        # contour points are linear interpolants of a field that is curved in q̃ (1/(1+q̃)): O(h²) off the line
        assert np.allclose(pts[:, 0], 10.0 * (1 + pts[:, 1]), atol=2e-4)
        assert np.all(pts[:, 1] >= -0.03) if u else np.all(pts[:, 1] <= 0.03)  # inside the law's region
    pts = np.concatenate(by[("W", 1)])  # W̃' = 0 under marking ⇔ W̃ = 2/α̃, eq. (11)
    assert np.allclose(pts[:, 0], 2 / 0.4, atol=1e-9)
    assert ("W", 0) not in by  # 1/(1+q̃) never vanishes
    fig, ax, art = pp.plot()
    assert art["trajectories"] and art["equilibria"] == [] and "2-D projection" in ax.get_xlabel()


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="initial_conditions"):
        phase_portrait(Linear2(), _p(KNOWN["node"]), [[1.0, 2.0, 3.0]], (0, 1), xlim=(-1, 1), ylim=(-1, 1))
    with pytest.raises(ValueError, match="xlim"):
        phase_portrait(Linear2(), _p(KNOWN["node"]), [[1.0, 2.0]], (0, 1), xlim=(1, -1), ylim=(-1, 1))
    with pytest.raises(ValueError, match="axes"):
        phase_portrait(Linear2(), _p(KNOWN["node"]), [[1.0, 2.0]], (0, 1), axes=("x", "x"), xlim=(-1, 1),
                       ylim=(-1, 1))  # fmt: skip


def test_fig4_is_deterministic(tmp_path):
    from dwtcp_fluid.plots.style import save_figure, style
    from dwtcp_fluid.studies.dctcp.figures_phase import FIG4

    paths = []
    for k in range(2):
        with style():
            d = FIG4.build(True)
            paths.append(tmp_path / f"f{k}.png")
            save_figure(FIG4.plot(d), paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert all(c.check(d)[0] for c in FIG4.claims)


def test_cli(tmp_path, capsys):
    out = tmp_path / "d.svg"
    assert main(["phase", "dwtcp", "--no-delay", "--duration", "5ms", "--plot", str(out)]) == 0
    assert out.read_text().startswith("<?xml")
    assert (
        main(["phase", "dctcp", "--wbar", "8", "--duration-rstar", "20", "--plot", str(tmp_path / "c.png")])
        == 0
    )
    assert main(["phase", "dctcp", "--plot", str(tmp_path / "c.txt")]) == 2
    assert main(["phase", "dctcp", "--g", "0", "--plot", str(tmp_path / "c.png")]) == 2
    assert main(["phase", "dwtcp", "--flows", "0", "--plot", str(tmp_path / "c.png")]) == 2
    assert main(["phase", "dwtcp", "--duration", "soon", "--plot", str(tmp_path / "c.png")]) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and "--g" in err and "--flows" in err and "--duration" in err


@pytest.mark.slow
def test_registered_phase_figures_pass_check():
    from pathlib import Path

    from dwtcp_fluid.experiments import catalog

    names = ["dwtcp_fig13_phase", "dwtcp_phase_delay", "dctcp_fig4_phase"]
    res = catalog.check_all(Path(__file__).resolve().parents[1] / "figures", names)
    for r in res:
        assert r.ok, (r.name, r.image_message, [(c.text, c.measured) for c in r.claims if not c.passed])


def test_dctcp_fixed_point_found_and_classified_for_small_wbar():
    # w̄ ≤ 2: unique fixed point (W̃, α̃, q̃) = (2, 1, 2/w̄ − 1), section 3.1 of [DCTCP-A]
    wbar = 1.5
    p = {"wbar": wbar, "g": 1 / 16, "psi": 0.0}
    pp = phase_portrait(DctcpNormalized(), p, [[1.0, 0.5, 0.1], [3.0, 0.9, 0.6]], (0.0, 200.0), axes=("W", "q"),
                        xlim=(0.5, 4), ylim=(-0.2, 1.0), grid=9, nullcline_grid=41)  # fmt: skip
    (e,) = pp.equilibria
    assert e.u == 1 and np.allclose(e.x, [2.0, 1.0, 2 / wbar - 1], atol=1e-9)
    assert e.stability == "asymptotically stable" and np.all(e.eigenvalues.real < 0)
    # α̃ relaxes at rate ≈ g/(1 + q̃) ≈ 0.047 per R*: within 1e-3 after 200 R*
    assert all(np.allclose(tr.x[-1], e.x, atol=1e-3) for tr in pp.trajectories)


def test_the_frame_holds_every_trajectory():
    # an unstable spiral from (1, 0) leaves the box (-1.2, 1.2)²: its radius grows as e^{0.2 t} (closed form)
    A = np.array([[0.2, -2.0], [2.0, 0.2]])
    x0 = np.array([[1.0, 0.0]])
    box = (-1.2, 1.2)
    pp = phase_portrait(Linear2(), _p(A), x0, (0.0, 3.0), xlim=box, ylim=box, grid=7, nullcline_grid=11,
                        equilibria=False)  # fmt: skip
    r_max = np.exp(0.2 * 3.0)  # the largest |x| and |y| the spiral reaches is below its radius e^{0.6}
    xy = pp.trajectories[0].x
    assert np.abs(xy).max() > 1.5 and np.abs(xy).max() <= r_max * (1 + 1e-6)
    (x_lo, x_hi), (y_lo, y_hi) = pp.xlim, pp.ylim
    assert x_lo < xy[:, 0].min() and x_hi > xy[:, 0].max() and y_lo < xy[:, 1].min() and y_hi > xy[:, 1].max()
    fig, ax, _ = pp.plot()
    assert ax.get_xlim() == pytest.approx(pp.xlim) and ax.get_ylim() == pytest.approx(pp.ylim)
    # a trajectory inside the box keeps it; fit=False keeps the box as given
    inside = phase_portrait(Linear2(), _p(KNOWN["node"]), [[0.5, 0.5]], (0.0, 2.0), xlim=box, ylim=box, grid=7,
                            nullcline_grid=11, equilibria=False)  # fmt: skip
    assert inside.xlim == box and inside.ylim == box
    cut = phase_portrait(Linear2(), _p(A), x0, (0.0, 3.0), xlim=box, ylim=box, grid=7, nullcline_grid=11,
                         equilibria=False, fit=False)  # fmt: skip
    assert cut.xlim == box and cut.ylim == box
