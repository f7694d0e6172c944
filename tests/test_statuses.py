"""Solver failures are statuses, never numbers (issue: reliability, items 5-7): a failed or chattering run prints no
observables, the JAX default step follows the model's time scale (not the requested span), an oscillation is
reported only above the fixed step's artefact tolerance, and the limit-cycle finder's failures are statuses."""

import json
import math

import numpy as np
import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.dde import solve
from dwtcp_fluid.dde.summary import queue_range_tolerance
from dwtcp_fluid.models.dwtcp import DwtcpFluid
from dwtcp_fluid.params import DwtcpParams, LinkParams
from dwtcp_fluid.results import Status

LINK = LinkParams(capacity="10Gbps", rtt="100us")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_undelayed_jax_step_follows_tau_not_the_span():
    """The undelayed model's default step is never coarser than τ/20, whatever the duration (it was span/20000:
    half an RTT at 1 s); short spans keep span/20000."""
    P = DwtcpParams(link=LINK, flows=10, beta=0.001, k=0)
    for span in (0.01, 0.1, 1.0, 3.0):
        sol = solve(DwtcpFluid(delay_rtts=0.0), P, [1.0, 0.0], (0.0, span), method="jax")
        # the step is rounded down to a whole number of steps per saved sample: within 1e-3
        assert sol.options["dt"] == pytest.approx(min(LINK.d / 20, span / 20_000), rel=1e-3), span
        assert sol.options["dt"] <= LINK.d / 20 * (1 + 1e-9)


@pytest.mark.parametrize("duration", ["100ms", "1s"])
def test_undelayed_run_converges_in_both_solvers(capsys, duration):
    """At the paper's K = 0 the reference solver (event-exact) says the undelayed paper model settles (amplitude 0); the JAX solver must
    say the same at every duration (before: an oscillation of amplitude 10.4 at 1 s)."""
    out = {}
    for solver in ("reference", "jax"):
        code, o, err = run(
            capsys,
            "dwtcp",
            "simulate",
            "--no-delay",
            "--target",
            "0",
            "--solver",
            solver,
            "--duration",
            duration,
            "--json",
        )
        assert code == 0, err
        out[solver] = json.loads(o)
        assert out[solver]["oscillating"] is False
    assert out["reference"]["amplitude"] < 1e-9
    # what JAX leaves is below the artefact tolerance of its step (range 2·amplitude vs the q threshold)
    tol = queue_range_tolerance(LINK.bdp, 10, 1 / 20, 1.0)
    assert 2 * out["jax"]["amplitude"] < tol


def test_chattering_reference_run_is_a_status_with_json(capsys):
    """paper-scout without delay at K = 0 chatters on q = 0: the reference solver stops with TOO_MANY_EVENTS; the CLI prints
    the status in JSON (no observables), exits 1 with one line, and never evaluates beyond where the run stopped."""
    code, out, err = run(
        capsys, "dwtcp", "simulate", "--variant", "paper-scout", "--no-delay", "--target", "0", "--json"
    )
    assert code == 1
    d = json.loads(out)
    assert d["status"] == "too_many_events" and d["message"]
    assert not {"queue_mean", "queue_min", "utilization", "amplitude", "scout_alpha_mean"} & set(d)
    assert 0 < d["stopped_at_s"] < d["duration_s"]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "too_many_events" in lines[0] and "Traceback" not in err


def test_non_finite_run_has_no_statistics():
    """A NON_FINITE JAX run (sqrt decrease, β = 1, a step of one RTT) gets NaN statistics, not 2.9e108 and
    utilization 1.0."""
    P = DwtcpParams(link=LINK, flows=10, beta=1.0, k=0)
    sol = solve(DwtcpFluid(variant="sqrt", delay_rtts=1.0), P, [1.0, 0.0], (0.0, 0.05), method="jax", dt=1e-4)
    assert Status(int(sol.status[0])) is Status.NON_FINITE
    s = sol.summary()
    assert s.status is Status.NON_FINITE and not s.status.ok
    for name in ("queue_mean", "queue_max", "utilization", "amplitude", "window_mean"):
        assert math.isnan(s[name]), name
    assert s["period_s"] is None
    assert s.to_dict()["queue_mean"] is None or math.isnan(s.to_dict()["queue_mean"])


def test_limit_cycle_fixed_point_not_reached_is_a_status(capsys):
    code, out, err = run(capsys, "dctcp", "limit-cycle", "--wbar", "1e-6", "--json")
    assert code == 1
    d = json.loads(out)
    assert d["status"] == "not_converged" and "q_min" not in d and "did NOT converge" in d["message"]
    assert len(err.strip().splitlines()) == 1


def test_limit_cycle_without_crossing_is_a_status_not_a_usage_error(capsys):
    code, out, err = run(capsys, "dctcp", "limit-cycle", "--wbar", "1e7", "--json")
    assert code == 1  # the finder's failure, not the user's mistake (was exit 2)
    assert json.loads(out)["status"] == "no_crossing" and "period_rtt" not in json.loads(out)


def test_limit_cycle_just_above_two(capsys):
    """w̄ = 2.0001 (was a CycleStructureError traceback): a cycle with status ok, q̃ within [−ε, 0.31]."""
    code, out, _ = run(capsys, "dctcp", "limit-cycle", "--wbar", "2.0001", "--json")
    d = json.loads(out)
    assert code == 0 and d["status"] == "ok" and d["regime"] == "limit_cycle"
    assert d["q_max"] < 0.31 and d["period_rtt"] > 0


def test_dctcp_tiny_rtt_jax_refuses_what_it_cannot_resolve(capsys):
    """--rtt 1ns (queueing delay dominates; was α 0.312 vs the reference's 0.212 at a step of R*/20): the JAX
    step follows d (50 ps), so 20 ms is refused before any work, naming --duration; the reference runs it."""
    code, _, err = run(capsys, "dctcp", "simulate", "--rtt", "1ns", "--duration", "20ms", "--solver", "jax")
    assert code == 2 and "--duration" in err.strip().splitlines()[-1], err


def test_packet_core_refuses_an_rtt_it_cannot_represent():
    from dwtcp_fluid.packet.build import build
    from dwtcp_fluid.packet.laws import LAWS

    law = LAWS["dctcp"]()
    with pytest.raises(ValueError, match=r"rtt=1e-09 is out of range"):
        build(law, link=LinkParams(capacity="10Gbps", rtt="1ns"), flows=2, K=20, duration=0.01)
    pr = build(law, link=LINK, flows=2, K=20, duration=0.01)
    # what runs is what is reported: 100 µs is 83.33 slots of 1.2 µs, rounded to 83
    assert int(np.asarray(pr.scenario.rtt)[0]) == round(LINK.d * LINK.C)


def test_one_point_sweep_draws_its_figure(capsys, tmp_path):
    code, out, err = run(
        capsys, "sweep", "--bdp", "100", "--flows", "10", "--kbar-ratio", "0.5", "--frozen-only",
        "--out", str(tmp_path), "--json",
    )  # fmt: skip
    assert code == 0, err
    d = json.loads(out)
    assert d["points"] == 1 and (tmp_path / d["figure"]).exists()
    assert "Warning" not in err and "Traceback" not in err


def test_packet_summary_of_a_nan_state_is_a_status():
    """A NaN in any float32 record of a packet run (a sender's window, α) makes the summary's status non_finite with
    the records named; a clean run says ok."""
    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet import run as run_packet
    from dwtcp_fluid.packet.summary import summarize

    pr = build("dctcp", flows=2, duration="2ms", seed=1)
    s = run_packet(pr)
    assert s["status"] == "ok" and s["message"] == ""
    rec = {k: np.array(v, copy=True) for k, v in s["records"].items()}
    rec["cwnd_sum"] = rec["cwnd_sum"].astype(np.float32)
    rec["cwnd_sum"][-1, 0] = np.nan
    bad = summarize(pr, rec)
    assert bad["status"] == "non_finite" and "cwnd_sum" in bad["message"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "flags",
    [["--law", "cubic", "--cubic-c", "1e-40"], ["--law", "timely", "--min-rtt", "1e-50"],
     ["--law", "timely-patched", "--rtt-ref", "1e39"]],
)  # fmt: skip
def test_packet_run_never_exits_0_with_nan(capsys, flags):
    """float32 underflow or overflow in a law: refused up front (exit 2) or the status non_finite (exit 1), one
    line, never a summary of NaN windows with exit 0."""
    code, out, err = run(capsys, "packet", "run", *flags, "--duration", "2ms", "--flows", "2")
    assert code in (1, 2), (code, out)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    if code == 1:
        assert "non_finite" in err
