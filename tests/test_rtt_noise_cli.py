"""``--rtt-noise`` / ``--rtt-noise-dist`` on ``packet run`` and ``packet scenario``: the flag reaches the engine
(the CLI's run equals the library's with the same noise, and differs from the noiseless one), bad input exits 2."""

from __future__ import annotations

import json

import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.packet import build, run

RUN = ["packet", "run", "--law", "timely", "--flows", "2", "--duration", "4ms", "--json"]


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["packet", "run", "--law", "timely", "--rtt-noise", "-5us"], "--rtt-noise"),
        (["packet", "run", "--law", "timely", "--rtt-noise", "25"], "--rtt-noise"),  # no unit
        (["packet", "run", "--law", "timely", "--rtt-noise", "2s"], "--rtt-noise"),  # > 1 s
        (["packet", "run", "--law", "timely", "--rtt-noise-dist", "normal"], "--rtt-noise-dist"),
        (["packet", "run", "--law", "dctcp", "--rtt-noise", "25us"], "--rtt-noise"),  # DCTCP reads no RTT
        (["packet", "run", "--law", "timely", "--topology", "path:2", "--rtt-noise", "5us"], "--rtt-noise"),
        (["packet", "scenario", "dctcp-analysis-n2", "--rtt-noise", "25us"], "--rtt-noise"),
        (["packet", "scenario", "timely-noise", "--rtt-noise", "25us"], "--rtt-noise"),  # sets its own
    ],
)
def test_bad_noise_exits_2_with_one_line(capsys, argv, flag):
    code, out, err = _cli(capsys, *argv, "--duration", "2ms") if argv[1] == "run" else _cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and flag in lines[0] and "Traceback" not in err, err


def test_noise_reaches_the_engine(capsys):
    """[PROXY]'s noise, uniform in [0, 100 µs]: the CLI run is the library run with that noise, not the noiseless
    one, and the JSON says what was applied."""
    code, out, _ = _cli(capsys, *RUN, "--rtt-noise", "100us")
    noisy = json.loads(out)
    assert (
        code in (0, None)
        and noisy["rtt_noise_s"] == pytest.approx(1e-4)
        and noisy["rtt_noise_dist"] == "uniform"
    )
    lib = run(build("timely", flows=2, duration="4ms", rtt_noise=1e-4, rtt_noise_dist="uniform"))
    quiet = run(build("timely", flows=2, duration="4ms"))
    for k in ("queue_mean", "utilization", "throughput_pps"):
        assert noisy[k] == pytest.approx(lib[k], rel=1e-6)
    assert noisy["utilization"] != pytest.approx(quiet["utilization"], rel=1e-3)
