"""The sweep's progress moves within a chunk (one step per evaluator), so the bar and its ETA are never stuck at 0."""

from __future__ import annotations

import dwtcp_fluid as dw
from dwtcp_fluid.sweep.run import make_plan


def test_progress_moves_within_chunks(tmp_path):
    from dwtcp_fluid.sweep.evaluators import DELAY
    from dwtcp_fluid.sweep.run import FROZEN

    grid = dw.SweepGrid(beta=(0.001,), bdp=(10.0, 100.0), flows=(1,), kbar_ratio=(0.5, 2.0))
    plan = make_plan(grid, (FROZEN, DELAY))  # the cheap evaluators: the frozen Jacobian and the delay roots
    calls: list[tuple[float, int]] = []
    dw.run_sweep(grid, plan=plan, store=tmp_path / "s.zarr", progress=lambda d, t: calls.append((d, t)))
    done = [d for d, _ in calls]
    total = calls[-1][1]
    assert done[-1] == total and all(b >= a for a, b in zip(done, done[1:], strict=False))
    n_ev = len(plan.evaluators)
    assert n_ev > 1 and any(0 < d < 1 for d in done), done  # a fraction of the first chunk is reported
