"""HPCC and HPCC-PINT in the native loop against the JAX reference engine: every raw record array bit-identical.

The native loop's HPCC (:mod:`dwtcp_fluid.packet.native.int_law`) reads the same in-band telemetry as the reference
(the queue behind each departing packet, the port's transmitted-packet counter, the departure slot, echoed by its
ACK) and runs [HPCC] Alg. 1 in the reference's float32 operations. The cases cover every option (``update``
per-rtt and per-ack, ``control`` window and rate, ``telemetry`` previous and first), HPCC-PINT's hashed sampling
(p = 1/16) and quantization, several HPCC laws with their own parameters (a join at 0.1·B·T), T from the link and
from each flow's RTT (heterogeneous RTTs), HPCC beside Scout-only probes, and a run that starts 50 flows at line
rate into a small buffer: drops, retransmission timeouts, finished flows (the one case of the fast suite; the
others are slow). Each case asserts what it exercises, so that equality is not vacuous.
XLA's ``log`` and ``exp`` (PINT's quantization), transcribed in :mod:`dwtcp_fluid.packet.native.xla_math`, are
checked against ``jnp.log``/``jnp.exp`` on random inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_packet_native import _assert_identical, _both

from dwtcp_fluid.packet import build
from dwtcp_fluid.packet import engine as E
from dwtcp_fluid.packet.batch import choose_engine, run_prepared, stack
from dwtcp_fluid.packet.laws import get_law
from dwtcp_fluid.packet.laws.hpcc import Hpcc, HpccPint
from dwtcp_fluid.params import LinkParams

#: [HPCC]'s evaluation link: 100 Gbps, base RTT 20 µs (B·T = 167 packets); a buffer that never overflows.
_LINK = dict(
    link=LinkParams(capacity="100Gbps", rtt="20us"), buffer=4000, start_jitter=False, trace_points=40
)
_RTTS = ["20us", "12us", "30us", "20us", "8us", "25us"]

# (law, build kwargs, what the run must exercise)
CASES = {
    "hpcc-pint-finite-drops": (
        HpccPint(update="per-ack"),
        dict(
            _LINK,
            flows=50,
            duration="500us",
            buffer=300,
            rto="100us",
            sizes=[40] * 25 + [10**6] * 25,
            law_params={"pint_prob": 1 / 16},
            seed=4,
        ),  # fmt: skip
        ("int", "drops", "timeouts", "finished", "pint"),
    ),
}
SLOW_CASES = {
    "hpcc-n10": ("hpcc", dict(_LINK, flows=10, duration="600us", seed=1), ("int", "mult", "marks")),
    "hpcc-per-ack-first": (
        Hpcc(update="per-ack", telemetry="first"),
        dict(_LINK, flows=10, duration="2ms", seed=2),
        ("int", "mult"),
    ),
    "hpcc-rate": (Hpcc(control="rate"), dict(_LINK, flows=10, duration="2ms", seed=3), ("int",)),
    "hpcc-drops-timeouts": (
        "hpcc",
        dict(
            _LINK, flows=50, duration="2ms", buffer=300, rto="100us", sizes=[40] * 25 + [10**6] * 25, seed=4
        ),
        ("int", "drops", "timeouts", "finished"),
    ),
    "hpcc-rtts-own-T": (
        "hpcc",
        dict(
            _LINK, flows=6, duration="2ms", rtts=_RTTS, law_params={"t_base": 0.0, "max_stage": 0.0}, seed=5
        ),
        ("int", "mult"),
    ),
    "hpcc-pint-n10": ("hpcc-pint", dict(_LINK, flows=10, duration="3ms", seed=6), ("int", "pint")),
    "hpcc-pint-sampled-rate": (
        HpccPint(control="rate", telemetry="first"),
        dict(_LINK, flows=10, duration="3ms", law_params={"pint_prob": 1 / 16, "pint_seed": 7.0}, seed=7),
        ("int", "pint"),
    ),
    # HPCC flows beside Scout-only probes: Scout ACKs (no telemetry) share the ACK wheel with the data ACKs
    "hpcc-probes": (
        (Hpcc(), get_law("scout-probe")),
        dict(_LINK, flows=8, law_of_flow=[0] * 6 + [1] * 2, duration="1ms", seed=8),
        ("int", "mixed", "scouts"),
    ),
}


def _join(law: str, joiner: dict) -> tuple:
    """Two flows of two laws with the same options and their own parameters, the second joining at 50 µs."""
    link = LinkParams(capacity="100Gbps", rtt="10us")
    kw = dict(link=link, flows=2, duration="1ms", starts=[0.0, 50e-6], buffer=4000, start_jitter=False,
              law_params=[{}, joiner], law_of_flow=[0, 1], trace_points=40)  # fmt: skip
    return [law, law], kw, ("int", "mixed")


SLOW_CASES["hpcc-join-w0"] = _join("hpcc", {"w0": 0.1})
SLOW_CASES["hpcc-pint-join"] = _join("hpcc-pint", {"pint_prob": 1 / 16})


def _as_hpcc(law, kw: dict) -> np.ndarray:
    """The integrals of U of the same scenario under plain HPCC with ``law``'s options (native loop)."""
    law = HpccPint() if isinstance(law, str) else law
    r = build(Hpcc(update=law.update, control=law.control, telemetry=law.telemetry), **kw)
    spec = E.spec_for(r.cfg, r.engine_laws, stack([r.scenario]))
    return run_prepared(spec, [E.prepare(spec, r.scenario)], engine="native")[0]["alpha_sum"]


def _exercised(raw: dict, spec, what: tuple[str, ...], law, kw: dict) -> None:
    checks = {
        "int": lambda: "int" in spec.features and len(np.unique(raw["alpha_end"])) > 5,  # U moved
        # the window fell (a multiplicative decrease) and rose again
        "mult": lambda: (
            np.any(np.diff(raw["cwnd_end"], axis=0) < 0) and np.any(np.diff(raw["cwnd_end"], axis=0) > 0)
        ),
        "marks": lambda: raw["marks_cum"][-1] > 0,
        "drops": lambda: raw["drops_cum"][-1].sum() > 0,
        "timeouts": lambda: raw["timeouts_cum"][-1].sum() > 0,
        "finished": lambda: np.any(raw["finish"] != 2**31 - 1),
        "mixed": lambda: "mixed" in spec.features,
        "scouts": lambda: raw["scouts_sent_cum"][-1] > 0 and raw["scouts_served_cum"][-1] > 0,
        # PINT's sampling and quantization changed the run: plain HPCC with the same options differs
        "pint": lambda: not np.array_equal(raw["alpha_sum"], _as_hpcc(law, kw)),
    }
    for w in what:
        assert checks[w](), f"the run has no {w}: the equality would be vacuous"


def _case(law, kw, what) -> None:
    ref, nat, spec = _both(law, dict(kw))
    assert choose_engine(spec) == "native"
    _exercised(ref[0], spec, what, law, dict(kw))
    _assert_identical(ref, nat)


@pytest.mark.parametrize("name", list(CASES))
def test_native_hpcc_records_equal_the_reference(name):
    _case(*CASES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_CASES))
def test_native_hpcc_records_equal_the_reference_slow(name):
    _case(*SLOW_CASES[name])


def test_xla_log_and_exp_are_xlas():
    """The transcribed log and exp return XLA's float32 results bit for bit on random inputs (positive normals
    over 30 octaves for log; [−80, 80] for exp): XLA's as it compiles for a CPU with FMA; the transcription's FMAs
    are explicit, so its results are the same on every CPU."""
    import jax
    import jax.numpy as jnp
    from numba import njit

    from dwtcp_fluid.packet.native.xla_math import exp32, log32

    @njit
    def both(x):
        a, b = np.empty_like(x), np.empty_like(x)
        for i in range(x.size):
            a[i] = log32(abs(x[i]) + np.float32(1e-30))
            b[i] = exp32(x[i])
        return a, b

    rng = np.random.default_rng(0)
    x = np.concatenate([np.exp(rng.uniform(-14, 6, 100_000)), rng.uniform(-80, 80, 100_000)]).astype(
        np.float32
    )
    a, b = both(x)
    ja = np.asarray(jax.jit(lambda v: jnp.log(jnp.abs(v) + np.float32(1e-30)))(x))
    jb = np.asarray(jax.jit(jnp.exp)(x))
    assert np.array_equal(a.view(np.int32), ja.view(np.int32))
    assert np.array_equal(b.view(np.int32), jb.view(np.int32))
