"""No hang: every iterative method has a budget derived from its inputs and reports Status.BUDGET when it runs out;
a run whose size alone is beyond reach is refused before any work."""

from __future__ import annotations

import numpy as np
import pytest

import dwtcp_fluid as dw
from dwtcp_fluid.models import DctcpFluid
from dwtcp_fluid.results import Status

P = dw.DCTCP_ANALYSIS
SPAN = (0.0, 5 * P.link.rtt)


def test_a_piece_past_its_evaluation_budget_stops_with_a_status(monkeypatch):
    """A piece that needs more right-hand-side evaluations than its budget (w̄ = 1e-320 stepped forever) stops
    with BUDGET and a message, at once; with the budget restored the same run is fine."""
    from dwtcp_fluid.dde import segment

    monkeypatch.setattr(segment, "MAX_PIECE_EVALS", 20)
    sol = dw.solve(DctcpFluid(), P, [1.0, 0.0, 0.0], SPAN)
    assert sol.status[0] == Status.BUDGET and "right-hand-side evaluations" in sol.messages[0]
    assert sol.t[-1] < SPAN[1]
    monkeypatch.undo()
    assert dw.solve(DctcpFluid(), P, [1.0, 0.0, 0.0], SPAN).status[0] == Status.OK


def test_a_span_of_too_many_pieces_stops_with_a_status():
    """Pieces span at most one delay: 5 delays cannot fit in 2 pieces, and the message says how many are needed."""
    from dwtcp_fluid.dde.history import as_history
    from dwtcp_fluid.dde.problem import make_problem
    from dwtcp_fluid.dde.scipy_steps import solve_reference
    from dwtcp_fluid.models import DwtcpFluid

    Q = dw.DWTCP_EVALUATION
    pr = make_problem(DwtcpFluid(delay_rtts=1.0), Q)
    hist = as_history(np.array([1.0, 0.0]), 2, 0.0, pr.max_delay)
    run = solve_reference(pr, hist, 0.0, 5 * Q.link.rtt, max_pieces=2)
    assert run["status"] == Status.BUDGET and "max_pieces=2" in run["message"]
    assert "needs at least 5" in run["message"]


def test_the_jax_solver_refuses_a_span_far_below_the_delay():
    """phase dwtcp --duration 0.000001us filled a 1e8-slot delay history in a Python loop; now refused at once."""
    from dwtcp_fluid.models import DwtcpFluid

    with pytest.raises(ValueError, match="t_span=.*delay history"):
        dw.solve(DwtcpFluid(delay_rtts=1.0), dw.DWTCP_EVALUATION, [1.0, 0.0], (0.0, 1e-12), method="jax")


def test_simulate_refuses_a_span_of_more_than_a_million_delays(capsys):
    from dwtcp_fluid.cli import main

    args = ["dctcp", "simulate", "--rtt", "1ns", "--marking-threshold", "0", "--duration", "10ms"]
    assert main(args) == 2  # 10⁷ RTTs of 1 ns: no queue at the operating point to lengthen them
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--duration" in err and "RTTs" in err, err


@pytest.mark.slow
def test_tune_dctcp_stops_at_its_time_budget():
    from dwtcp_fluid.studies.dctcp.tune import TuneRange, tune_dctcp

    calls: list[tuple[int, int]] = []
    rng = TuneRange(capacity="10Gbps", rtt=("100us", "200us"), flows=(2, 10), points=2)
    r = tune_dctcp(rng, rho_max=0.5, max_seconds=0.0, progress=lambda d, t: calls.append((d, t)))
    assert r.status[0] == Status.BUDGET and "time budget" in r.messages[0]
    assert calls and calls[0] == (0, 40) and calls[-1][0] == calls[-1][1]
