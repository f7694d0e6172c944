"""The native slot loop against the JAX reference engine: every raw record array bit-identical, and the dispatch.

The native loop (:mod:`dwtcp_fluid.packet.native`) is a second copy of the slot semantics, accepted only because
these tests prove it equal to the reference on its whole set: DCTCP and Reno (every option: the sender rules
``prr`` — Linux's CWR and Recovery with proportional rate reduction, the default —, ``immediate`` and ``hold``; Reno
without ECN, and with Recovery at the third duplicate ACK; DCTCP's increase counted against ⌊cwnd⌋), D2TCP with deadlines (its penalty α^d), DWTCP with its Scouts (every option; Scouts sent, served, dropped by the full Scout queue and lost;
parameters chosen so that the float32 multiply-adds whose contraction XLA decides are exercised; runs without a
Scout), TIMELY and Patched TIMELY (paced at their rate and at a slower access link; RTT samples without noise and
with uniform noise (Gaussian: ``test_packet_native_gauss.py``); [PROXY]'s incast of :mod:`dwtcp_fluid.packet.scenarios_incast`; gains under which the
multiply-adds of the gradient average and the decreases are inexact), Swift (both options, two groups from
different windows, the fabric window below one packet), open-loop senders (CBR, and Poisson with XLA's log1p in the
gaps) and Scout-only probes, alone and beside other laws, drops and retransmission timeouts (small buffers; timers in the overflow list, timeouts longer than the
timer wheel), finite flows with start and stop slots, marking at enqueue and dequeue, heterogeneous RTTs, several
seeds, flow counts and lengths, and points of the sweep's packet pass at its ring sizes. (The hand-computed
slot-by-slot tests of ``test_packet_switch.py`` also run through both engines.)
"""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet import build, run, run_many
from dwtcp_fluid.packet import engine as E
from dwtcp_fluid.packet.batch import choose_engine, run_prepared, stack
from dwtcp_fluid.packet.laws import get_law
from dwtcp_fluid.packet.laws.d2tcp import D2tcp
from dwtcp_fluid.packet.laws.dctcp import Dctcp
from dwtcp_fluid.packet.laws.dwtcp import Dwtcp
from dwtcp_fluid.packet.laws.recovery import PRR_RULES
from dwtcp_fluid.packet.laws.reno import Reno
from dwtcp_fluid.packet.laws.swift import Swift
from dwtcp_fluid.packet.scenarios_incast import INCAST_FLOWS, INCAST_LINK

_SCOUTS = ("scouts", "scout_drops", "scout_losses")
#: DWTCP parameters under which α·S/L is not exact in float32 (α = 7·2ᵏ, S/L = 3.3, α·S/L ≈ w): a fused and an
#: unfused w + α·S/L differ in about half the Scout ACKs, so the runs pin which of the two the reference computes.
_INEXACT = {"alpha0": 7.0, "alpha_min": 7.0, "alpha_max": 56.0, "s_over_l": 3.3}
_DEADLINES = dict(
    flows=8,
    duration="6ms",
    sizes=[300, 600, 1000, 2000, 400, 800, 1500, 250],
    deadlines=["1ms", "2ms", "3ms", "6ms", "800us", "1500us", "20ms", "500us"],
    seed=3,
    trace_points=30,
)
_RTTS = ["100us", "200us", "50us", "400us", "100us", "100us", "100us", "300us", "120us", "80us"]
#: [PROXY]'s incast (:func:`~dwtcp_fluid.packet.scenarios_incast.incast_run`: 40 flows, 10 Gbps, 20 µs, a
#: 2000-packet buffer, uniform RTT noise of 25 µs), shortened.
_INCAST = dict(
    link=INCAST_LINK,
    flows=INCAST_FLOWS,
    buffer=2000,
    rtt_noise=25e-6,
    rtt_noise_dist="uniform",
    duration="3ms",
)
#: TIMELY gains under which (1 − α)·rtt_diff is inexact (α = 0.875 makes it exact) and β·x rounds
_GAINS = {"alpha": 0.7, "beta": 0.55}


def _open_loop(arrivals: str, rate: float, senders: int = 20, probes: int = 2, **kw) -> tuple:
    """Open-loop senders (``arrivals``, ``rate`` packets per slot each) and Scout-only probes: the law pair and
    build keywords of :func:`~dwtcp_fluid.studies.dwtcp.checks_scouts.amplification_run`, shortened."""
    laws = (get_law("open-loop", arrivals=arrivals), get_law("scout-probe"))
    kw = {
        "flows": senders + probes,
        "law_of_flow": [0] * senders + [1] * probes,
        "duration": "3ms",
        "seed": 0,
        **kw,
    }
    return laws, dict(kw, law_params=[{"rate": rate}, {}], scout_buffer=kw.get("scout_buffer", 23))


# (law, build kwargs, what the run must exercise so that equality is not vacuous)
CASES = {
    "dctcp-n10": ("dctcp", dict(flows=10, duration="6ms", seed=3, trace_points=30), ("marks", "cwr", "prr")),
    "reno-drops-timeouts": (
        "reno",
        dict(flows=30, duration="6ms", buffer=20, K=10, seed=7, rto="200us", trace_points=10),
        ("drops", "timeouts", "recovery", "prr"),
    ),
    "dctcp-finite-dequeue": (
        "dctcp",
        dict(
            flows=5,
            duration="6ms",
            sizes=[50, 200, 1000, 30, 5000],
            starts=["0us", "100us", "1ms", "2ms", "3ms"],
            stops=["6ms", "5ms", "6ms", "4ms", "6ms"],
            K=20,
            mark_at="dequeue",
            mark_cmp="gt",
            seed=9,
            trace_points=30,
        ),
        ("finished", "marks"),
    ),
    # 200 flows time out together: full timer-wheel rows, timers kept in the overflow list
    "dctcp-timer-overflow": (
        "dctcp",
        dict(flows=200, duration="10ms", buffer=50, K=10, rto="300us", seed=5, trace_points=10),
        ("timeouts", "overflow"),
    ),
    # the Scout queue (10 Scouts) overflows at the start, idle slots serve Scouts, late Scouts are lost
    "dwtcp-n10": ("dwtcp", dict(flows=10, duration="3ms", seed=3), _SCOUTS + ("marks",)),
    # TIMELY in the incast: the queue overflows the 2000-packet buffer (every sample above T_high)
    "timely-incast": ("timely", dict(_INCAST, seed=1), ("rate", "drops")),
    # Swift: 30 flows in a 20-packet buffer (drops, timeouts; the fabric window below one packet is paced)
    "swift-drops-timeouts": (
        "swift",
        dict(flows=30, duration="3ms", buffer=20, rto="200us", seed=7, trace_points=10),
        ("rate", "drops", "timeouts", "below_one"),
    ),
    # open-loop Poisson senders overload the link (geometric gaps); the probes' Scouts are dropped and lost
    "open-loop-poisson-probes": (
        *_open_loop("poisson", 0.06, buffer=30),
        ("drops", "scouts", "scout_drops", "scout_losses"),
    ),
}
SLOW_CASES = {
    "dctcp-drops-timeouts": (
        "dctcp",
        dict(flows=30, duration="8ms", buffer=20, K=10, rto="200us", trace_points=40, seed=2),
        ("drops", "timeouts"),
    ),
    "reno-small-buffer": ("reno", dict(flows=8, duration="8ms", buffer=12, K=6, seed=5), ("drops",)),
    "reno-no-ecn": (Reno(ecn=False), dict(flows=6, duration="10ms", buffer=30, seed=12), ("drops",)),
    "dctcp-hold-rtts": (
        Dctcp(reduction="hold"),
        dict(flows=10, duration="10ms", rtts=_RTTS, seed=14),
        ("marks",),
    ),
    "dctcp-n64": ("dctcp", dict(flows=64, duration="5ms", K=30, buffer=100, seed=11), ("marks",)),
    "dctcp-immediate-drops": (
        Dctcp(reduction="immediate"),
        dict(flows=30, duration="8ms", buffer=20, K=10, rto="200us", seed=6),
        ("marks", "drops", "timeouts"),
    ),
    "reno-immediate-rtts": (
        Reno(reduction="immediate"),
        dict(flows=10, duration="10ms", rtts=_RTTS, buffer=40, K=15, seed=8),
        ("marks", "drops"),
    ),
    "reno-hold": (Reno(reduction="hold"), dict(flows=8, duration="8ms", buffer=12, K=6, seed=5), ("drops",)),
    "dctcp-prr-recovery-rtts": (
        "dctcp",
        dict(flows=20, duration="10ms", rtts=_RTTS * 2, buffer=30, K=10, seed=15),
        ("marks", "drops", "cwr", "recovery", "prr"),
    ),
    "dctcp-ns3-prr": (
        Dctcp(reduction="ns3-prr"),
        dict(flows=10, duration="6ms", seed=3, trace_points=30),
        ("marks", "cwr", "prr"),
    ),
    "reno-ns3-prr-drops": (
        Reno(reduction="ns3-prr"),
        dict(flows=30, duration="6ms", buffer=20, K=10, seed=7, rto="200us", trace_points=10),
        ("marks", "drops", "cwr", "recovery", "prr"),
    ),
    "reno-ns3-prr-dupack3": (
        Reno(reduction="ns3-prr", loss_entry="dupack3"),
        dict(flows=30, duration="6ms", buffer=20, K=10, seed=7, rto="200us", trace_points=10),
        ("marks", "drops", "cwr", "recovery", "prr", "dupack3"),
    ),
    # a lost retransmission recovered by the timer only: dropped stand-ins, their timeouts, ghost ACKs
    "reno-ns3-prr-dupack3-rto": (
        Reno(ecn=False, reduction="ns3-prr", loss_entry="dupack3", lost_retransmit="rto"),
        dict(flows=20, duration="6ms", buffer=30, K=31, seed=7, rto="300us", trace_points=10),
        ("drops", "timeouts", "recovery", "prr", "dupack3", "rtx"),
    ),
    "dctcp-ns3-prr-ai-floor": (
        Dctcp(reduction="ns3-prr", ai_count="floor"),
        dict(flows=20, duration="6ms", K=20, seed=5, trace_points=30),
        ("marks", "cwr", "prr", "ai_floor"),
    ),
    "dctcp-n3-long": ("dctcp", dict(flows=3, duration="60ms", K=20, seed=4, trace_points=25), ("marks",)),
    "reno-n100-long": ("reno", dict(flows=100, duration="40ms", seed=21, rto="500us"), ("drops", "timeouts")),
    # a timeout longer than the timer wheel: re-armed at the wheel's last row until due
    "reno-rto-beyond-wheel": (
        "reno",
        dict(flows=30, duration="120ms", buffer=20, K=10, rto="50ms", seed=3, trace_points=12),
        ("timeouts",),
    ),
}
SLOW_CASES.update(
    {
        "dwtcp-drops-timeouts": (
            "dwtcp",
            dict(flows=30, duration="6ms", buffer=20, K=10, rto="200us", seed=7, trace_points=10),
            ("scout_drops", "scout_losses", "marks", "drops", "timeouts"),
        ),
        # D2TCP with deadlines from 0.5 to 20 ms: penalties α^d with d ≠ 1 (checked against DCTCP's records)
        "d2tcp-deadlines": ("d2tcp", _DEADLINES, ("marks", "finished", "cwr", "prr", "deadlines")),
        "d2tcp-immediate-drops": (
            D2tcp(reduction="immediate"),
            {**_DEADLINES, "buffer": 30, "K": 10},
            ("marks", "drops", "finished", "deadlines"),
        ),
        "dwtcp-n2-served": ("dwtcp", dict(flows=2, duration="10ms", seed=1), _SCOUTS + ("marks",)),
        "dwtcp-inexact-rtts": (
            "dwtcp",
            dict(flows=4, duration="20ms", rtts=_RTTS[:4], seed=2, law_params={**_INEXACT, "k": 0.0}),
            ("scouts", "scout_losses"),
        ),
        "dwtcp-inexact": ("dwtcp", dict(flows=2, duration="20ms", seed=1, law_params=_INEXACT), _SCOUTS),
        # the IPG decrease: both cases of a late Scout (scout_window 1) and the gap-only case (scout_window 3)
        "dwtcp-ipg": (Dwtcp(ipg=True), dict(flows=4, duration="10ms", seed=2), _SCOUTS + ("marks",)),
        "dwtcp-ipg-gap": (
            Dwtcp(ipg=True),
            dict(flows=2, duration="20ms", seed=1, law_params={**_INEXACT, "scout_window": 3.0}),
            _SCOUTS,
        ),
        "dwtcp-literal": (
            Dwtcp(data_increase="literal", slow_start="literal", ssthresh_on_decrease="literal"),
            dict(flows=4, duration="20ms", seed=1, law_params={**_INEXACT, "init_cwnd": 1.0}),
            _SCOUTS + ("marks", "drops"),
        ),
        "dwtcp-finite-dequeue": (
            "dwtcp",
            dict(
                flows=5,
                duration="6ms",
                sizes=[50, 200, 1000, 30, 5000],
                starts=["0us", "100us", "1ms", "2ms", "3ms"],
                stops=["6ms", "5ms", "6ms", "4ms", "6ms"],
                K=20,
                mark_at="dequeue",
                mark_cmp="gt",
                seed=9,
            ),
            ("finished", "scouts", "scout_losses"),
        ),
        "dwtcp-timer-overflow": (
            "dwtcp",
            dict(flows=200, duration="10ms", buffer=50, K=10, rto="300us", seed=5, trace_points=10),
            ("timeouts", "overflow", "scout_drops", "scout_losses"),
        ),
        # flows no larger than the initial window send no Scouts: the run has no Scout queue at all
        "dwtcp-no-scouts": ("dwtcp", dict(flows=3, duration="3ms", sizes=[5, 8, 9], seed=4), ("finished",)),
    }
)
SLOW_CASES.update(
    {
        "timely-patched-noise": (
            "timely-patched",
            dict(flows=8, duration="5ms", rtt_noise="10us", rtt_noise_dist="uniform", seed=5),
            ("rate",),
        ),
        "timely-incast-noise100": (
            "timely",
            dict(_INCAST, duration="20ms", rtt_noise=1e-4),
            ("rate", "drops"),
        ),
        "timely-patched-incast-30ms": ("timely-patched", dict(_INCAST, duration="30ms"), ("rate",)),
        "timely-patched-incast-no-noise": (
            "timely-patched",
            dict(_INCAST, duration="30ms", rtt_noise=0.0),
            ("rate",),
        ),
        # RTT samples without noise (Gaussian of width 0), heterogeneous RTTs
        "timely-rtts": ("timely", dict(flows=10, duration="10ms", rtts=_RTTS, seed=14), ("rate",)),
        "timely-patched-rtts-noise": (
            "timely-patched",
            dict(flows=10, duration="10ms", rtts=_RTTS, rtt_noise="30us", rtt_noise_dist="uniform", seed=4),
            ("rate",),
        ),
        # paced at an access link slower than the bottleneck, and at the rate
        "timely-access": ("timely", dict(flows=3, duration="10ms", access=0.12, seed=2), ("rate", "access")),
        "timely-patched-access": (
            "timely-patched",
            dict(flows=3, duration="10ms", access=0.2, seed=2),
            ("rate", "access"),
        ),
        "timely-finite-timeouts": (
            "timely",
            dict(
                flows=30,
                duration="8ms",
                buffer=20,
                rto="200us",
                sizes=[300, 2000, 50, 10**5] * 7 + [500, 700],
                starts=["0us", "100us", "1ms"] * 10,
                seed=7,
                trace_points=10,
            ),
            ("rate", "drops", "timeouts", "finished"),
        ),
        "timely-gains": ("timely", dict(_INCAST, duration="10ms", law_params=_GAINS), ("rate", "drops")),
        "timely-patched-gains": (
            "timely-patched",
            dict(
                flows=8,
                duration="10ms",
                rtt_noise="10us",
                rtt_noise_dist="uniform",
                law_params=_GAINS,
                seed=5,
            ),
            ("rate",),
        ),
    }
)
SLOW_CASES.update(
    {
        # [DWTCP] §2.1's amplification runs (CBR and Poisson below the link rate: Scouts served in idle slots)
        "open-loop-cbr-probes": (*_open_loop("cbr", 0.045, duration="20ms"), ("scouts",)),
        "open-loop-poisson-probes-long": (*_open_loop("poisson", 0.046, duration="20ms"), ("scouts",)),
        "open-loop-cbr-overload": (*_open_loop("cbr", 0.07, buffer=25), ("drops", "scout_drops")),
        "open-loop-alone": (
            get_law("open-loop", arrivals="poisson"),
            dict(flows=10, law_params={"rate": 0.11}, duration="3ms", buffer=20, access=0.5, seed=2),
            ("drops",),
        ),
        "scout-probe-alone": ("scout-probe", dict(flows=4, duration="3ms", seed=2), ("scouts",)),
        # Swift: two groups from different windows (the Swift study's runs), both options with RTT noise, many
        # flows, finite flows
        "swift-two-groups": (
            ["swift", "swift"],
            dict(
                flows=6,
                law_of_flow=[0] * 3 + [1] * 3,
                law_params=[{"init_cwnd": 4.0}, {"init_cwnd": 40.0}],
                duration="10ms",
                seed=1,
            ),
            ("rate",),
        ),
        "swift-total-srtt-noise": (
            Swift(split="total", md_rtt="srtt"),
            dict(flows=8, duration="10ms", rtt_noise="10us", rtt_noise_dist="uniform", seed=5),
            ("rate",),
        ),
        "swift-n64": ("swift", dict(flows=64, duration="8ms", seed=3), ("rate", "drops", "timeouts")),
        "swift-finite-access": (
            "swift",
            dict(
                flows=6,
                duration="8ms",
                sizes=[50, 200, 1000, 30, 5000, 10**5],
                starts=["0us", "100us", "1ms", "2ms", "3ms", "0us"],
                access=0.3,
                seed=9,
            ),
            ("rate", "finished"),
        ),
        # DWTCP flows and Scout-only probes (the Scout overhead check's mix)
        "dwtcp-probes": (
            (get_law("dwtcp"), get_law("scout-probe")),
            dict(flows=7, law_of_flow=[0] * 5 + [1] * 2, duration="5ms", seed=1),
            _SCOUTS + ("marks",),
        ),
    }
)
for _s in range(3):
    SLOW_CASES[f"dctcp-seed{_s}"] = (
        "dctcp",
        dict(flows=16, duration="20ms", K=30, seed=100 + _s),
        ("marks",),
    )


def _both(law, kw: dict, seeds: tuple[int, ...] = ()) -> tuple[list[dict], list[dict], object]:
    kw.setdefault("trace_points", 20)
    runs = [build(law, **kw)] + [build(law, **{**kw, "seed": s}) for s in seeds]
    spec = E.spec_for(runs[0].cfg, runs[0].engine_laws, stack([runs[0].scenario]))
    scens = [E.prepare(spec, r.scenario) for r in runs]
    ref = run_prepared(spec, scens, workers=1, engine="jax")
    nat = run_prepared(spec, scens, engine="native")
    return ref, nat, spec


def _assert_identical(ref: list[dict], nat: list[dict]) -> None:
    for a, b in zip(ref, nat, strict=True):
        assert sorted(a) == sorted(b)
        for k in a:
            x, y = np.asarray(a[k]), np.asarray(b[k])
            assert x.dtype == y.dtype and x.shape == y.shape, k
            assert np.array_equal(x, y), f"{k}: first difference at {np.argwhere(x != y)[:1].tolist()}"


def _reduction(law) -> str | None:
    return getattr(get_law(law) if isinstance(law, str) else law, "reduction", None)


def _assert_exercised(raw: dict, what: tuple[str, ...], law=None, kw=None) -> None:
    """What the run must contain. ``cwr``/``recovery``: under the ``prr`` rule every echo (drop) reported in the
    Open state enters CWR (Recovery), so marks (drops) in a ``prr`` run are reductions by PRR; ``prr``: the same
    scenario under the ``immediate`` rule gives other records (the PRR code ran and changed the windows)."""
    prr = law is not None and _reduction(law) in PRR_RULES
    checks = {
        "marks": lambda: raw["marks_cum"][-1] > 0,
        "drops": lambda: raw["drops_cum"][-1].sum() > 0,
        "timeouts": lambda: raw["timeouts_cum"][-1].sum() > 0,
        "finished": lambda: np.any(raw["finish"] != 2**31 - 1),
        "overflow": lambda: raw["tw_over"] > 0,
        "scouts": lambda: raw["scouts_sent_cum"][-1] > 0 and raw["scouts_served_cum"][-1] > 0,
        "scout_drops": lambda: raw["scouts_dropped_cum"][-1] > 0,
        "scout_losses": lambda: raw["scouts_lost_cum"][-1] > 0,
        "cwr": lambda: prr and raw["marks_cum"][-1] > 0,
        "recovery": lambda: prr and raw["drops_cum"][-1].sum() > 0,
        "prr": lambda: prr and not np.array_equal(raw["cwnd_sum"], _immediate_cwnd(law, kw)),
        "deadlines": lambda: not np.array_equal(raw["cwnd_sum"], _cwnd_as(law, kw, "dctcp")),
        # the increase counted against ⌊cwnd⌋ gives other windows than against cwnd
        "ai_floor": lambda: not np.array_equal(raw["cwnd_sum"], _cwnd_as(law, kw, law.name, ai_count="cwnd")),
        # Recovery at the third duplicate ACK gives other windows than at the first
        "dupack3": lambda: (
            not np.array_equal(raw["cwnd_sum"], _cwnd_as(law, kw, law.name, loss_entry="first"))
        ),
        # a lost retransmission recovered by the timer gives other windows than one reported with the next packet
        "rtx": lambda: (
            not np.array_equal(
                raw["cwnd_sum"],
                _cwnd_as(law, kw, law.name, loss_entry=law.loss_entry, lost_retransmit="report"),
            )
        ),
        # a rate law's rate (the traced field; it starts at 0.1 of line rate, paced) moved
        "rate": lambda: len(np.unique(raw["alpha_end"])) > 3,
        # some flow's rate rose above its access link's: the access link paced it
        "access": lambda: np.any(raw["alpha_end"][:, : kw["flows"]] > kw["access"]),
        # Swift's fabric window (the traced field) fell below one packet: the flow was paced at fcwnd/rtt
        "below_one": lambda: np.any(raw["alpha_end"][:, : kw["flows"]] < 1.0),
    }
    for w in what:
        assert checks[w](), f"the run has no {w}: the equality would be vacuous"


def _immediate_cwnd(law, kw: dict) -> np.ndarray:
    """The window integrals of the same scenario under ``reduction="immediate"`` (native loop)."""
    return _cwnd_as(law, kw, law if isinstance(law, str) else law.name, reduction="immediate")


def _cwnd_as(law, kw: dict, name: str, **options) -> np.ndarray:
    """The window integrals of the same scenario under law ``name`` with ``law``'s options and ``options``
    (native loop)."""
    opts = {} if isinstance(law, str) else {f: getattr(law, f) for f in ("reduction",) if hasattr(law, f)}
    r = build(get_law(name, **{**opts, **options}), **kw)
    spec = E.spec_for(r.cfg, r.engine_laws, stack([r.scenario]))
    return run_prepared(spec, [E.prepare(spec, r.scenario)], engine="native")[0]["cwnd_sum"]


def _case(law, kw, what, seeds=()):
    ref, nat, spec = _both(law, dict(kw), seeds)
    assert choose_engine(spec) == "native"
    _assert_exercised(ref[0], what, law, dict(kw, trace_points=kw.get("trace_points", 20)))
    _assert_identical(ref, nat)


@pytest.mark.parametrize("name", list(CASES))
def test_native_records_equal_the_reference(name):
    _case(*CASES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_CASES))
def test_native_records_equal_the_reference_sweep(name):
    _case(*SLOW_CASES[name], seeds=(1, 2))


def test_threaded_batch_equals_one_by_one():
    """A batch on two threads gives each scenario the records it gets alone (and the reference's)."""
    runs = [build("dctcp", flows=10, duration="3ms", seed=s, trace_points=30) for s in range(4)]
    spec = E.spec_for(runs[0].cfg, runs[0].engine_laws, stack([runs[0].scenario]))
    scens = [E.prepare(spec, r.scenario) for r in runs]
    two = run_prepared(spec, scens, workers=2, engine="native")
    one = [run_prepared(spec, [s], workers=1, engine="native")[0] for s in scens]
    _assert_identical(one, two)
    _assert_identical(run_prepared(spec, scens[:2], workers=1, engine="jax"), two[:2])


@pytest.mark.slow
def test_log1p_is_xla_s_on_every_uniform_draw():
    """The geometric gaps' ln(1 − u) (:func:`~dwtcp_fluid.packet.native.pacing.log1p_neg`): within 2 ulp of the
    float64 ln(1 − u), and equal to XLA's ``log1p(-u)`` on every 24-bit uniform draw u = k/2²⁴ and on 10⁶ random
    float32 in [10⁻⁶, 1) (the success probabilities: the engine floors the rate at 10⁻⁶)."""
    import jax
    import jax.numpy as jnp
    from numba import njit

    from dwtcp_fluid.packet.native.pacing import log1p_neg

    @njit
    def every(u, out):
        for i in range(u.shape[0]):
            out[i] = log1p_neg(u[i])

    grid = np.arange(1 << 24, dtype=np.float32) * np.float32(2.0**-24)
    lo = int(np.float32(1e-6).view(np.int32))
    rnd = np.random.default_rng(0).integers(lo, 0x3F800000, 10**6, dtype=np.int64).astype(np.int32)
    for u in (grid, rnd.view(np.float32)):
        got = np.empty_like(u)
        every(u, got)
        exact = np.log1p(-u.astype(np.float64))
        assert np.all(np.abs(got - exact) <= 2 * np.spacing(np.abs(exact).astype(np.float32)))
        xla = np.asarray(jax.jit(lambda u: jnp.log1p(-u))(u))
        assert np.array_equal(got.view(np.int32), xla.view(np.int32))


def test_fma32_rounds_once():
    """The fused multiply-add the loop uses where XLA:CPU contracts: a·b + c rounded once. With a = b = 1 + 2⁻¹²
    and c = −(1 + 2⁻¹¹), a·b = 1 + 2⁻¹¹ + 2⁻²⁴ exactly: fused gives 2⁻²⁴, rounding the product first gives 0."""
    from numba import njit

    from dwtcp_fluid.packet.native.core import fma32

    f = njit(lambda a, b, c: fma32(a, b, c))
    a, c = np.float32(1 + 2**-12), np.float32(-(1 + 2**-11))
    assert f(a, a, c) == np.float32(2**-24)
    assert np.float32(a * a) + c == 0.0


def test_dispatch_picks_native_only_on_its_set(monkeypatch):
    def spec(law, **kw):
        pr = build(law, flows=4, duration="1ms", trace_points=2, **kw)
        return E.spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))

    assert (
        choose_engine(spec("dctcp"))
        == choose_engine(spec("reno"))
        == choose_engine(spec("dwtcp"))
        == choose_engine(spec("timely", rtt_noise="5us", rtt_noise_dist="uniform"))
        == choose_engine(spec("timely", rtt_noise="5us"))
        == choose_engine(spec("timely-patched", access=0.5))
        == choose_engine(
            spec([get_law("open-loop", arrivals="poisson"), get_law("scout-probe")], law_of_flow=[0, 0, 0, 1])
        )
        == choose_engine(spec([get_law("dwtcp"), get_law("scout-probe")], law_of_flow=[0, 0, 0, 1]))
        == choose_engine(spec(["swift", "swift"], law_of_flow=[0, 0, 1, 1]))
        == "native"
    )
    assert choose_engine(spec("dctcp"), "jax") == "jax"
    for law, kw, name in (
        ("dwtcp", {"jitter": "5us"}, "jitter"),
        ("dwtcp", {"loss": 0.01}, "loss"),
        ("dctcp", {"jitter": "5us"}, "jitter"),
        ("dctcp", {"delack": 2}, "delack"),
        ("dctcp", {"loss": 0.01}, "loss"),
        ("dctcp", {"access": 0.5}, "pacing"),
        ("timely-patched", {"delack": 2}, "delack"),
        ("reno", {"debug": True}, "debug"),
        (["dctcp", "reno"], {}, "dctcp\\+reno"),
        (["dctcp", "open-loop"], {}, "dctcp\\+open-loop"),
        ([Swift(), Swift(split="total")], {}, "swift\\+swift"),
        ("cubic", {}, "cubic"),
    ):
        s = spec(law, **kw)
        assert choose_engine(s) == "jax"
        with pytest.raises(ValueError, match=name):
            choose_engine(s, "native")
    with pytest.raises(ValueError, match="engine='gpu' is invalid"):
        choose_engine(spec("dctcp"), "gpu")
    monkeypatch.setenv("DWTCP_FLUID_PACKET_ENGINE", "jax")
    assert choose_engine(spec("dctcp")) == "jax" and choose_engine(spec("dctcp"), "native") == "native"


def test_summaries_are_the_same_on_both_engines():
    """Summaries and records through run_many, with rings raised by ``min_shape`` (as the sweeps do)."""
    runs = [build("dctcp", flows=4, duration="3ms", trace_points=30, seed=s) for s in (0, 1)]
    big = {"ack_rows": 1024, "ack_lanes": 4, "timer_rows": 2048}
    for a, b in zip(run_many(runs, min_shape=big, engine="jax"), run_many(runs, min_shape=big), strict=True):
        ra, rb = a.pop("records"), b.pop("records")
        assert a == b
        for k in ra:
            np.testing.assert_array_equal(ra[k], rb[k], err_msg=k)
    assert run(runs[0], engine="native")["queue_mean"] == run(runs[0], engine="jax")["queue_mean"]


def test_cli_engine_flag(capsys):
    from dwtcp_fluid.cli import main

    assert main(["packet", "run", "--duration", "1ms", "--engine", "gpu", "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--engine" in err and "auto | jax | native" in err
    assert (
        main(["packet", "run", "--law", "dwtcp", "--duration", "1ms", "--loss", "0.01", "--engine", "native"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "loss" in err and "Traceback" not in err


def test_subnormal_alpha_is_flushed_to_zero_in_both_engines():
    """g = 0.999999: without marks α shrinks by 1 − g = 1e-6 per window, from a normal float32 (≥ 2⁻¹²⁶) to
    1e-43 and below, subnormal unless flushed. XLA:CPU flushes subnormals to zero and the native loop does the
    same (its docstring): the records are bit-identical, and α reaches exactly 0, which from a normal α in one
    window only a flush gives (α·1e-6 ≥ 1.2e-44 is a nonzero subnormal without it)."""
    ref, nat, spec = _both(
        "dctcp", dict(flows=2, duration="20ms", seed=1, trace_points=400, law_params={"g": 0.999999})
    )
    assert choose_engine(spec) == "native"
    a = np.asarray(ref[0]["alpha_end"], dtype=np.float32)
    tiny = np.finfo(np.float32).tiny
    assert np.any(a == 0) and np.any((a > 0) & (a < 1e-30)), (
        "the run never drove α towards the subnormal range"
    )
    assert not np.any((a != 0) & (np.abs(a) < tiny)), "a subnormal α in the reference's records"
    _assert_identical(ref, nat)


@pytest.mark.slow
def test_sweep_points_are_the_same_on_both_engines():
    """Points of the sweep's packet pass (its DWTCP runs at its ring sizes, :data:`MIN_SHAPE`) through
    :func:`~dwtcp_fluid.sweep.packet_batch.simulate`'s call: native by default, bit-identical to the reference."""
    from dwtcp_fluid.sweep.packet_batch import MIN_SHAPE, PacketPassOptions, build_point

    opts = PacketPassOptions()
    runs = [
        build_point(b, bdp, n, 20.0, capacity_pps=833_333.0, packet_size=1500.0, opts=opts)
        for b, bdp, n in ((1e-3, 100.0, 10), (1e-2, 30.0, 2))
    ]
    for pr in runs:
        assert choose_engine(E.spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))) == "native"
    ref = run_many(runs, min_shape=MIN_SHAPE, engine="jax")
    nat = run_many(runs, min_shape=MIN_SHAPE)
    assert sum(int(r["records"]["scouts_served"].sum()) for r in ref) > 0
    _assert_identical([r["records"] for r in ref], [r["records"] for r in nat])


def test_compiled_loop_is_keyed_by_every_source_of_the_package():
    """The loop's entry point inlines code of every module of the native package: its on-disk cache entry is
    stamped with the hash of all of them (:mod:`dwtcp_fluid.packet.native.cache`), not of its own file only."""
    from dwtcp_fluid.packet.native import cache, loop

    assert cache.INSTALLED
    stamp = loop.run_scenario._cache._impl.locator.get_source_stamp()
    assert stamp[1] == cache.source_digest()
    assert {p.name for p in cache._DIR.glob("*.py")} >= {"loop.py", "scout_law.py", "scouts.py", "window.py"}


def _scouts_expected(run, rate: float) -> int:
    """Scouts the long-lived flows of ``run`` send at ``rate`` Scouts per base RTT: flow f sends at
    start_f + s·P_f while start_f + s·P_f < n_slots, P_f = rtt_f/rate rounded to a slot ([DWTCP] §3.3's x)."""
    sc = run.scenario
    total = 0
    for rtt, start in zip(np.asarray(sc.rtt).tolist(), np.asarray(sc.start).tolist(), strict=True):
        period = max(1, round(rtt / rate))
        total += max(0, -(-(int(sc.n_slots) - start) // period))
    return total


@pytest.mark.parametrize("rate", [4.0, pytest.param(0.25, marks=pytest.mark.slow)])
def test_native_scout_rate_equals_the_reference(rate):
    """``--scout-rate`` x: both engines send x Scouts per base RTT per flow (the count from the flows' start slots
    and RTTs) and give bit-identical records."""
    kw = dict(flows=10, duration="3ms", seed=3, law_params={"scout_rate": rate})
    ref, nat, _ = _both("dwtcp", dict(kw))
    _assert_identical(ref, nat)
    run = build("dwtcp", **kw)
    assert int(ref[0]["scouts_sent_cum"][-1]) == _scouts_expected(run, rate)
    assert np.unique(np.asarray(run.scenario.scouts)).tolist() == [
        max(1, round(int(run.scenario.rtt[0]) / rate))
    ]
    _assert_exercised(ref[0], _SCOUTS)


def test_per_datapath_scouts_have_one_stream_per_host_pair():
    """``--scout-per datapath`` with D = 2 host pairs and 6 flows: flow f is on pair f mod 2, flows 0 and 1 send
    the pairs' Scouts, the other four read them (no Scouts of their own)."""
    run = build(Dwtcp(scout_per="datapath"), flows=6, duration="1ms", law_params={"scout_paths": 2.0})
    assert np.asarray(run.scenario.scout_lead).tolist() == [0, 1, 0, 1, 0, 1]
    assert (np.asarray(run.scenario.scouts) > 0).tolist() == [True, True, False, False, False, False]
    assert build(Dwtcp(), flows=6, duration="1ms").scenario.scout_lead is None
    with pytest.raises(ValueError, match=r"scout_per='host' is invalid: accepted 'flow' or 'datapath'"):
        Dwtcp(scout_per="host")


@pytest.mark.slow
def test_native_per_datapath_scouts_equal_the_reference():
    """Per-datapath Scouts (2 host pairs, 6 flows): bit-identical records in both engines; only the two pairs'
    streams send Scouts (one per base RTT each, counted from the leaders' start slots), and the other flows'
    α moves (they take the leader's Scout ACKs and losses)."""
    law = Dwtcp(scout_per="datapath")
    kw = dict(flows=6, duration="5ms", seed=3, law_params={"scout_paths": 2.0})
    ref, nat, _ = _both(law, dict(kw))
    _assert_identical(ref, nat)
    run = build(law, **kw)
    sc = run.scenario
    expect = sum(-(-(int(sc.n_slots) - int(sc.start[f])) // int(sc.rtt[f])) for f in (0, 1))
    assert int(ref[0]["scouts_sent_cum"][-1]) == expect
    alpha = np.asarray(ref[0]["alpha_end"])[:, 2:6]
    assert np.all(np.any(alpha != np.float32(run.scenario.law[0]["alpha0"]), axis=0))
    _assert_exercised(ref[0], _SCOUTS)
