"""One progress convention: the library's ``progress(done, total)`` hooks (tested as the sweep's is, in
test_sweep_progress.py) and the CLI's bar over them, with whole counts and an ETA."""

from __future__ import annotations

import io
import math

import pytest

import dwtcp_fluid as dw


@pytest.mark.parametrize("method", ["reference", pytest.param("jax", marks=pytest.mark.slow)])
def test_solve_reports_the_time_covered(method):
    """dw.solve(progress=...): starts at 0, never goes back, ends at batch × span for a run that reached t1."""
    from dwtcp_fluid.models import DctcpFluid

    calls: list[tuple[float, float]] = []
    P = dw.DCTCP_ANALYSIS
    span = (0.0, 40 * P.link.rtt)
    sol = dw.solve(DctcpFluid(), [P, P.replace(flows=5)], [1.0, 0.0, 0.0], span, method=method,
                   progress=lambda d, t: calls.append((d, t)))  # fmt: skip
    assert all(sol.status == 0)
    total = 2 * span[1]
    assert calls[0] == (0.0, total) and {t for _, t in calls} == {total}
    done = [d for d, _ in calls]
    assert all(b >= a for a, b in zip(done, done[1:], strict=False)), done
    assert math.isclose(done[-1], total, rel_tol=1e-12), (done[-1], total)


def test_the_cli_bar_shows_whole_counts_and_an_eta(monkeypatch):
    """progress.progress_bar: "3/12 runs" (no fractions such as the sweep's former "0.3333/1 chunks") and ETA."""
    from rich.console import Console

    from dwtcp_fluid.cli import progress

    buf = io.StringIO()
    monkeypatch.setattr(
        "rich.console.Console", lambda **kw: Console(file=buf, width=120, force_terminal=False)
    )
    with progress.progress_bar("compare-fluid", "runs") as update:
        update(0.0, 12)
        update(3.4, 12)
    text = buf.getvalue()
    assert "compare-fluid" in text and "3/12" in text and "runs" in text and "ETA" in text, text
    assert "3.4" not in text


@pytest.mark.slow
def test_a_leaf_spine_packet_run_reports_its_chunks_and_the_cli_shows_them(monkeypatch):
    """run_topology(progress=...): (1, n), (2, n), ... (n, n) chunk by chunk, and the same records as a run without
    the hook (the callback has no outputs); ``packet run --topology leaf-spine`` draws the bar "n/n chunks"."""
    import numpy as np
    from rich.console import Console

    from dwtcp_fluid.cli import main
    from dwtcp_fluid.packet.multihop_run import run_topology

    calls: list[tuple[int, int]] = []
    a = run_topology(
        "leaf-spine:2x2", "dctcp", flows=2, duration="5ms", progress=lambda d, t: calls.append((d, t))
    )
    b = run_topology("leaf-spine:2x2", "dctcp", flows=2, duration="5ms")
    n = calls[-1][1]
    assert n >= 2 and calls == [(k, n) for k in range(1, n + 1)], calls
    for field in ("queue_mean", "utilization", "group_share", "cwnd_mean"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    buf = io.StringIO()
    monkeypatch.setattr(
        "rich.console.Console", lambda **kw: Console(file=buf, width=120, force_terminal=False)
    )
    assert main(["packet", "run", "--topology", "leaf-spine:2x2", "--flows", "2", "--duration", "2ms"]) == 0
    assert f"{n}/{n}" in buf.getvalue() and "chunks" in buf.getvalue(), buf.getvalue()[-500:]


def test_simulate_shows_the_simulated_time_covered(monkeypatch, capsys):
    """``dctcp simulate`` (a fluid run that can take minutes) draws the bar over the simulated time, µs of µs."""
    from rich.console import Console

    from dwtcp_fluid.cli import main

    buf = io.StringIO()
    monkeypatch.setattr(
        "rich.console.Console", lambda **kw: Console(file=buf, width=120, force_terminal=False)
    )
    assert main(["dctcp", "simulate", "--duration", "2ms"]) == 0
    assert "2000/2000 simulated µs" in buf.getvalue(), buf.getvalue()[-500:]


@pytest.mark.slow
def test_guide_reports_its_iterations():
    """dw.guide(progress=...): (0, 3) first, then one call per fixed-point iteration, ending at (n, n)."""
    calls: list[tuple[int, int]] = []
    out = dw.guide(dw.LinkParams(capacity="10Gbps", rtt="100us"), progress=lambda d, t: calls.append((d, t)))
    assert out["K_packets"] > 0
    assert calls[0] == (0, 3) and calls[-1][0] == calls[-1][1] and 1 <= calls[-1][1] <= 3, calls
    assert [d for d, _ in calls] == list(range(len(calls))), calls


def test_the_quickstart_plugs_a_bar_into_the_one_hook():
    """docs/quickstart.md says why ``progress=`` is the library's one progress hook (nothing drawn unasked) and
    shows a bar plugged into it; that example runs and its bar ends full (covered time = the span)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "quickstart.md").read_text()
    assert "never on its own" in text and "progress(done, total)" in text
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "progress=" in b]
    assert len(blocks) == 1, "the quickstart no longer shows a bar plugged into progress="
    ns: dict = {}
    exec(compile(blocks[0], "quickstart.md", "exec"), ns)
    task = ns["bar"].tasks[0]
    assert all(ns["sol"].status == 0)
    assert task.total is not None and math.isclose(task.completed, task.total, rel_tol=1e-12), task
    assert math.isclose(task.total, 0.02, rel_tol=1e-12), task.total
