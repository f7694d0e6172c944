"""``--signal`` on ``packet run`` for the hop laws ([PROXY] section 3.2): the flag reaches the law (the CLI's run
equals the library's with ``TimelyHops(signal=...)``, and the signals differ from each other), its help lists each
law's choices and default, bad values and non-hop laws exit 2 with one line. f itself is hand-checked on a 3-hop
vector in ``test_hop_signals.py`` and inside TIMELY in ``test_proxy_signals.py``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.packet.laws.dctcp_hops import DctcpHops
from dwtcp_fluid.packet.laws.timely_hops import TimelyHops
from dwtcp_fluid.packet.multihop_run import run_topology
from dwtcp_fluid.params import LinkParams

#: A tiny parking lot where the signals matter: 4 TIMELY flows per group at 20 µs build queues of 1-2 packets on
#: both hops within 10 ms, so SUM (both hops) and MAX (the larger) give the long flow different rates.
LOT = ["--topology", "parking-lot:2", "--flows", "4", "--rtt", "20us", "--duration", "10ms", "--json"]


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow  # 15-50 s of CPU: make test-all
def test_cli_signal_equals_the_api():
    """Each TIMELY signal from the command line gives the library's numbers for ``TimelyHops(signal=...)`` at the
    same settings (bit for bit: same law, same seed), the JSON echoes it, and SUM, MAX differ (the flag is read)."""
    import contextlib
    import io

    shares = {}
    for signal in ("sum", "max", "sum_squ"):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main(["packet", "run", "--law", "timely-hops", "--signal", signal, *LOT])
        assert code == 0
        d = json.loads(buf.getvalue())
        assert d["signal"] == d["inputs"]["signal"] == signal
        s = run_topology(
            "parking-lot:2", TimelyHops(signal=signal), link=LinkParams(rtt="20us"), flows=4, K=65.0,
            duration="10ms", seed=0, buffer=250,
        )  # fmt: skip
        np.testing.assert_array_equal(d["group_share"], s.group_share)
        np.testing.assert_array_equal(d["queue_mean"], s.queue_mean)
        shares[signal] = s.group_share
    assert abs(shares["sum"][0] - shares["max"][0]) > 0.2 * shares["sum"][0]


def test_signal_help_lists_each_law(capsys):
    code, out, _ = _cli(capsys, "packet", "run", "--help")
    text = " ".join(out.replace("│", " ").split())
    assert code == 0 and "[sum|max|sum_squ|ind]" in text
    assert "timely-hops: sum | max | sum_squ, default sum" in text
    assert "dctcp-hops: sum | max | sum_squ | ind, default ind" in text


@pytest.mark.parametrize(
    ("argv", "accepted"),
    [
        (["--law", "timely-hops", "--signal", "mean"], "sum | max | sum_squ (with --law timely-hops)"),
        (["--law", "timely-hops", "--signal", "ind"], "sum | max | sum_squ (with --law timely-hops)"),
        (["--law", "dctcp-hops", "--signal", "SUM"], "sum | max | sum_squ | ind (with --law dctcp-hops)"),
        (["--law", "dctcp", "--signal", "max"], "only with --law dctcp-hops | timely-hops"),
    ],
)
def test_bad_signal_exits_2_with_one_line(capsys, argv, accepted):
    code, _, err = _cli(capsys, "packet", "run", *argv, "--topology", "parking-lot:2", "--duration", "1ms")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "--signal" in lines[0] and accepted in lines[0], err
    assert repr(argv[-1]) in lines[0] or "with --law" in lines[0]


def test_law_rejects_a_bad_signal():
    with pytest.raises(ValueError, match="signal='ind' is invalid for law 'timely-hops'"):
        TimelyHops(signal="ind")
    with pytest.raises(ValueError, match="accepted one of sum, max, sum_squ, ind"):
        DctcpHops(signal="mean")
