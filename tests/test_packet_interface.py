"""The law interface of the packet core: a law added as one definition (here, in this file) runs through the library
and the command line; rate-based senders; several laws in one scenario; signals."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
import pytest

from dwtcp_fluid.packet import build, register_law, run
from dwtcp_fluid.packet.laws import Events, Law, LawOption
from dwtcp_fluid.packet.laws.base import FLOAT

SLOT = 1500 * 8 / 10e9  # one slot at 10 Gbps, 1500-byte packets


@register_law
@dataclass(frozen=True)
class FixedWindow(Law):
    """A window that never changes: the minimal window law (closed form: queue = N·W − C·d)."""

    name: ClassVar[str] = "fixed-window-test"
    signals: ClassVar[frozenset[str]] = frozenset()
    options: ClassVar[tuple[LawOption, ...]] = (
        LawOption("--fixed-window", "fixed-window-test: the window, packets ≥ 1.", 20.0, param="w", lo=1.0),
    )

    def default_params(self, **context: Any) -> dict[str, float]:
        return {"w": 20.0}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {"cwnd": jnp.full(n, p["w"], FLOAT)}

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        return {"cwnd": s["cwnd"]}


@register_law
@dataclass(frozen=True)
class ConstantRate(Law):
    """Paces at a fixed fraction of the line rate and tracks the smoothed RTT of its samples (signal "rtt")."""

    name: ClassVar[str] = "constant-rate-test"
    signals: ClassVar[frozenset[str]] = frozenset({"rtt"})
    rate_based: ClassVar[bool] = True
    aux: ClassVar[str | None] = "srtt"

    def default_params(self, **context: Any) -> dict[str, float]:
        return {"r": 0.3}

    def init(self, p: Mapping[str, Any], n: int) -> dict[str, Any]:
        return {
            "cwnd": jnp.full(n, 1e6, FLOAT),
            "rate": jnp.full(n, p["r"], FLOAT),
            "srtt": jnp.zeros(n, FLOAT),
        }

    def step(self, s: dict[str, Any], ev: Events, p: Mapping[str, Any]) -> dict[str, Any]:
        first = s["srtt"] == 0.0
        srtt = jnp.where(first, ev.rtt_sample, 0.875 * s["srtt"] + 0.125 * ev.rtt_sample)
        return {
            "cwnd": s["cwnd"],
            "rate": s["rate"],
            "srtt": jnp.where(ev.ack, srtt, s["srtt"]).astype(FLOAT),
        }


def test_minimal_window_law_runs_through_the_cli(capsys):
    """Two flows with a fixed window of 60 over 100 µs (C·d = 83 slots): ACK-clocked, they keep 120 packets in
    flight, so the queue sits at 120 − 83 = 37 packets and the link is always busy."""
    from dwtcp_fluid.cli import main

    args = ["packet", "run", "--law", "fixed-window-test", "--fixed-window", "60", "--flows", "2"]
    assert main([*args, "--duration", "5ms", "--marking-threshold", "1000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["law"] == "fixed-window-test" and out["fixed_window"] == 60.0
    assert out["queue_mean"] == pytest.approx(2 * 60 - 83, abs=1.0)
    assert out["queue_min"] >= 36 and out["queue_max"] <= 38
    assert out["utilization"] == pytest.approx(1.0) and out["window_mean"] == pytest.approx(60.0)
    assert main(["packet", "run", "--help"]) == 0
    assert "--fixed-window" in capsys.readouterr().out
    # a law's flag with another law is a usage error
    assert main(["packet", "run", "--law", "dctcp", "--fixed-window", "3", "--json"]) == 2
    assert "--fixed-window" in capsys.readouterr().err


def test_rate_based_sender_paces_and_measures_rtt():
    """Two flows paced at 0.3 of the line rate share a link they cannot fill: each delivers exactly 0.3·C, the
    queue never holds more than the two flows' simultaneous arrivals, and every RTT sample is the base RTT."""
    pr = build("constant-rate-test", flows=2, duration="4ms", trace_points=40, debug=True)
    out = run(pr)
    C = pr.link.C
    assert out["conservation_error"] == 0.0
    np.testing.assert_allclose(out["throughput_pps"], 0.3 * C, rtol=0.01)
    assert out["utilization"] == pytest.approx(0.6, abs=0.01)
    assert out["queue_max"] <= 1
    rec = out["records"]
    rtt = int(pr.scenario.rtt[0])
    # srtt (the traced field) of each flow equals the base RTT + at most one slot of queueing
    assert np.all(np.abs(rec["alpha_end"][-1] - rtt) <= 1.0)
    _is_a_result(out)


def _is_a_result(out: dict) -> None:
    """run() returns the summary dict, which is also a Result: status, typed summary, dataset of the records, plot."""
    from dwtcp_fluid.packet import PacketResult
    from dwtcp_fluid.results import Result, Status

    assert isinstance(out, PacketResult) and isinstance(out, Result) and out.ok and out["status"] == "ok"
    s = out.summary()
    # two flows paced at 0.3 of the line rate: 0.6 of the slots busy
    assert s.utilization == pytest.approx(0.6, abs=0.01) and s.flows == 2 and s.status == Status.OK
    ds = out.to_dataset()
    assert ds.sizes["chunk"] == len(out["records"]["q_end"]) and ds.sizes["flow"] == 2
    assert (
        float(ds["time"][-1]) == pytest.approx(out["duration_s"]) and ds["q_end"].attrs["units"] == "packets"
    )
    assert ds.attrs["utilization"] == s.utilization and "package_version" in ds.attrs
    assert out.plot().get_ylabel() == "queue (packets)"
    bad = PacketResult(out | {"status": "non_finite", "message": "records cwnd_end"})
    assert not bad.ok and bad.status_of(0) == Status.NON_FINITE and "cwnd_end" in bad.describe()


def test_rtt_noise_is_seeded_and_centred():
    kw = dict(flows=1, duration="4ms", trace_points=40, rtt_noise="2us")
    a, b = run(build("constant-rate-test", **kw)), run(build("constant-rate-test", **kw))
    np.testing.assert_array_equal(a["records"]["alpha_end"], b["records"]["alpha_end"])
    rtt = 83
    srtt = a["records"]["alpha_end"][5:, 0]
    assert np.std(srtt) > 0.1 and abs(np.mean(srtt) - rtt) < 2.0


@pytest.mark.parametrize("which", [0, 1])
def test_a_law_per_flow_dispatches_exactly(which):
    """With two laws in the run but every flow on one of them, the run is bit-identical to that law alone."""
    kw = dict(flows=4, duration="3ms", trace_points=30, seed=3)
    mixed = run(build(["dctcp", "reno"], law_of_flow=[which] * 4, **kw))
    alone = run(build(["dctcp", "reno"][which], **kw))
    for k in ("delivered", "q_sum", "cwnd_end", "drops", "marks"):
        np.testing.assert_array_equal(mixed["records"][k], alone["records"][k], err_msg=k)


def test_dctcp_and_reno_share_a_bottleneck():
    """Two DCTCP and two ECN-Reno flows, K = 65: Reno halves its window on a mark, DCTCP cuts by α/2, so the DCTCP
    flows take most of the link ([DCTCP] section 4); each flow's state follows its own law (α only on DCTCP)."""
    out = run(build(["dctcp", "reno"], flows=4, duration="40ms", trace_points=40, debug=True))
    assert out["conservation_error"] == 0.0 and out["utilization"] > 0.99
    by = out["throughput_by_law_pps"]
    assert by["dctcp"] > 2 * by["reno"] > 0
    rec = out["records"]
    assert np.all(rec["alpha_end"][-1, 2:] == 0.0) and np.all(rec["alpha_end"][-1, :2] > 0.0)
    assert out["law"] == "dctcp+reno" and out["alpha_mean"] is not None
