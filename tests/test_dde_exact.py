"""DDE solvers against exact solutions: y' = −y(t − 1) solved piecewise by SymPy, fitted convergence orders,
and the bad-input errors of both solvers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
import sympy as sp
from scipy.stats import linregress

from dwtcp_fluid.dde import Status, solve
from dwtcp_fluid.models import DctcpFluid
from dwtcp_fluid.models.base import FluidModel
from dwtcp_fluid.params import DCTCP_ANALYSIS


@dataclass(frozen=True)
class LinearDelay(FluidModel):
    """y' = −c·y(t − 1): a delayed problem with no switch (σ ≡ −1) and a piecewise-polynomial exact solution."""

    name: ClassVar[str] = "linear-delay"
    states: ClassVar[tuple[str, ...]] = ("y",)
    state_units: ClassVar[tuple[str, ...]] = ("1",)
    param_names: ClassVar[tuple[str, ...]] = ("c",)

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        return (-p["c"] * xd[0],)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        return 0 * x[0] - 1.0

    def delay(self, p: Mapping[str, Any]) -> Any:
        return 1.0

    def numeric_params(self, params: Any) -> dict[str, float]:
        return {"c": 1.0}


def exact_pieces(n_pieces: int) -> list[sp.Expr]:
    """Method of steps by hand in SymPy: y_k on [k−1, k], y_0 = 1 (the history)."""
    t, s = sp.symbols("t s")
    pieces = [sp.Integer(1)]
    for k in range(n_pieces):
        prev = pieces[-1]
        start = pieces[-1].subs(t, k) if k else sp.Integer(1)
        pieces.append(sp.expand(start - sp.integrate(prev.subs(t, s - 1), (s, k, t))))
    return pieces[1:]


def exact(tt: np.ndarray, n_pieces: int = 7) -> np.ndarray:
    t = sp.Symbol("t")
    fns = [sp.lambdify(t, e, "numpy") for e in exact_pieces(n_pieces)]
    k = np.clip(np.floor(tt).astype(int), 0, n_pieces - 1)
    return np.array([fns[kk](v) for kk, v in zip(k, tt, strict=True)], dtype=float)


def test_exact_pieces_are_the_known_series():
    # independent closed form: y(t) = Σ_{k ≤ ⌊t⌋+1} (−1)^k (t − k + 1)^k / k!
    tt = np.linspace(0, 5.5, 23)
    series = np.array(
        [sum((-1) ** k * (v - k + 1) ** k / math.factorial(k) for k in range(int(v) + 2)) for v in tt]
    )
    np.testing.assert_allclose(exact(tt), series, rtol=0, atol=1e-13)


@pytest.mark.parametrize("method", ["reference", "jax"])
def test_linear_delay_matches_exact_solution(method):
    sol = solve(LinearDelay(), {"c": 1.0}, [1.0], (0.0, 5.0), method=method, dt=1 / 40, save_every=1)
    tt = np.linspace(0, 5, 101)
    err = np.abs(sol(tt)[:, 0] - exact(tt)).max()
    assert sol.ok
    assert err < (1e-8 if method == "reference" else 1e-6), err


def test_jax_order_four_on_smooth_delay_problem():
    # up to t = 6 the pieces reach degree 6, so RK4 is not exact (on [0, 3] the cubic pieces would be)
    hs = np.array([1 / 5, 1 / 10, 1 / 20])
    errs = []
    for h in hs:
        sol = solve(LinearDelay(), {"c": 1.0}, [1.0], (0.0, 6.0), method="jax", dt=h, save_every=1)
        errs.append(np.abs(sol.x[0, :, 0] - exact(sol.t)).max())
    slope = linregress(np.log(hs), np.log(errs)).slope
    assert 3.6 < slope < 4.4, (slope, errs)


def test_jax_order_on_dctcp_with_switches():
    """Event location keeps the order of RK4 through the marking switches (≥ 2 demanded, ≈ 4 observed)."""
    model, P = DctcpFluid(), DCTCP_ANALYSIS.replace(flows=10)
    ref = solve(model, P, [1.0, 0.0, 0.0], (0.0, 0.02), rtol=1e-12, atol=1e-12)
    ks = np.array([10, 20, 40])
    errs = []
    for k in ks:
        sol = solve(
            model, P, [1.0, 0.0, 0.0], (0.0, 0.02), method="jax", dt=P.R_star / k, save_every=int(k // 10)
        )
        errs.append(np.abs(sol.x[0, :, 2] - ref(sol.t)[:, 2]).max())
    slope = linregress(np.log(1 / ks), np.log(errs)).slope
    assert 3.0 < slope < 4.6, (slope, errs)


# --- bad input -------------------------------------------------------------------------------------------------

P_OK = DCTCP_ANALYSIS


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"history": [1.0, 0.0]}, "history"),
        ({"history": [1.0, np.nan, 0.0]}, "history"),
        ({"history": lambda t: [1.0, 0.0]}, "history"),
        ({"t_span": (0.1, 0.0)}, "t_span"),
        ({"t_span": (0.0, np.inf)}, "t_span"),
        ({"method": "euler"}, "method"),
        ({"rtol": -1.0}, "rtol"),
        ({"method": "jax", "dt": 1.0}, "dt"),
        ({"method": "jax", "dt": -1e-6}, "dt"),
        ({"params": {"C": 1e5, "d": 1e-4, "K": 65.0, "g": np.nan, "N": 10.0}}, "g"),
        ({"params": {"C": 1e5, "d": 1e-4, "K": 65.0, "g": 0.1}}, "missing"),
        ({"params": {"C": 1e5, "d": -1e-3, "K": 65.0, "g": 0.1, "N": 10.0}}, r"\bd=-0.001"),
    ],
)
def test_bad_input_names_the_argument(kwargs, word):
    args = {"params": P_OK, "history": [1.0, 0.0, 0.0], "t_span": (0.0, 0.01)}
    opts = {k: v for k, v in kwargs.items() if k not in args}
    args.update({k: v for k, v in kwargs.items() if k in args})
    with pytest.raises(ValueError, match=word):
        solve(DctcpFluid(), args["params"], args["history"], args["t_span"], **opts)


def test_run_that_goes_non_finite_reports_element_time_and_state():
    """c = −1e6 grows like e^(11 t) and overflows; the JAX element fails with NON_FINITE, not an exception."""
    sol = solve(LinearDelay(), {"c": np.array([1.0, -1e6])}, [1.0], (0.0, 100.0), method="jax", dt=0.1)
    assert sol.status.tolist() == [Status.OK, Status.NON_FINITE]
    assert np.isfinite(sol.fail_t[1]) and 0 < sol.fail_t[1] < 100
    assert "element 1: NON_FINITE" in sol.describe()
