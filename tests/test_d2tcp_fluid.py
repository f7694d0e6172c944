"""D2TCP fluid model and its limit cycle against d: DCTCP at d = 1, long simulations with both DDE solvers."""

import numpy as np
import pytest

from dwtcp_fluid.analysis.limit_cycle import find_limit_cycle
from dwtcp_fluid.dde import solve
from dwtcp_fluid.models import D2tcpFluid, DctcpFluid, DctcpLossFluid
from dwtcp_fluid.params import DCTCP_ANALYSIS
from dwtcp_fluid.studies.d2tcp.analysis import d2tcp_cycles

P10 = DCTCP_ANALYSIS.replace(flows=10)


@pytest.fixture(scope="module")
def rows():
    return d2tcp_cycles(P10, (0.5, 1.0, 2.0))


def test_rhs_is_dctcp_at_d_one_and_penalty_alpha_power_d():
    x, p = (20.0, 0.3, 70.0), DctcpFluid().numeric_params(P10)
    a = DctcpFluid().rhs(x, x, 1.0, p, np)
    b = D2tcpFluid().rhs(x, x, 1.0, {**p, "dimm": 1.0}, np)
    assert a == b
    R = P10.link.d + 70.0 / P10.link.C
    c = D2tcpFluid().rhs(x, x, 1.0, {**p, "dimm": 2.0}, np)
    assert c[0] == pytest.approx(1 / R - 20.0 * 0.09 / (2 * R))  # α² = 0.09


def test_d_one_cycle_is_the_dctcp_cycle(rows):
    ref = find_limit_cycle(P10.wbar, P10.g)  # normalized model (11)-(14), rescaled
    one = rows[1]
    assert one["ok"] and one["period_s"] == pytest.approx(ref.period * P10.R_star, rel=1e-8)
    assert one["rho"] == pytest.approx(ref.rho, abs=1e-7)


def test_far_deadline_enlarges_the_swing_but_stays_stable(rows):
    """[D2TCP] §3.2.4 asks whether d < 1 destabilizes: the cycle stays orbitally stable (ρ < 1) at d = 0.5 but its
    multiplier and its queue swing grow; d = 2 shrinks both."""
    half, one, two = rows
    assert all(r["ok"] and r["above_floor"] and r["rho"] < 1 for r in rows)
    assert half["amplitude"] > 1.2 * one["amplitude"] > 1.2 * two["amplitude"]
    assert half["rho"] > one["rho"] > two["rho"]
    assert half["q_min"] < one["q_min"]  # the queue dips deeper, toward underflow


@pytest.mark.parametrize("method", ["reference", "jax"])
def test_d_half_cycle_matches_a_long_simulation(rows, method):
    half = rows[0]
    m = D2tcpFluid(queue_floor=False, imminence=0.5)
    sol = solve(m, P10, (1.0, 0.3, 0.0), (0.0, 0.03), method=method)
    t = np.linspace(0.02, 0.03, 20001)
    q = sol(t)[:, 2]
    tol = (
        1e-3 if method == "reference" else 0.05
    )  # packets: RK4 at its default step vs the event-exact solver
    assert q.max() == pytest.approx(half["q_max"], abs=tol)
    assert q.min() == pytest.approx(half["q_min"], abs=tol)


def test_loss_term_is_an_extra_multiplicative_decrease():
    x, p = (20.0, 0.3, 70.0), DctcpFluid().numeric_params(P10)
    a = DctcpFluid().rhs(x, x, 0.0, p, np)
    b = DctcpLossFluid().rhs(x, x, 0.0, {**p, "ploss": 0.001}, np)
    R = P10.link.d + 70.0 / P10.link.C
    assert b[0] == pytest.approx(a[0] - 0.001 * 400.0 / (2 * R))
    assert b[1:] == a[1:]


def test_bad_imminence_is_refused():
    with pytest.raises(ValueError, match="dimm"):
        d2tcp_cycles(P10, (0.0,))
