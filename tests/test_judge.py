"""The judge package: one Tolerance type, one verdict, the CrossCheck and its registry, on hand-made sides whose
answers are worked out by hand here (no simulator)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dwtcp_fluid.judge import (
    CheckResult,
    CrossCheck,
    Tolerance,
    Tolerances,
    check_for_law,
    get_check,
    register_check,
    run_check,
    verdict,
)
from dwtcp_fluid.judge import check as registry
from dwtcp_fluid.results import Result, Status


def _m(t: Tolerance, packet: dict, fluid: dict, context: dict | None = None):
    return t.measure({"packet": packet, "fluid": fluid, "context": context or {}})


def test_difference_bounds_absolute_relative_and_either():
    t = Tolerance("q", "packets", abs=10.0)
    assert _m(t, {"q": 50.0}, {"q": 60.0}) == (10.0, True)
    assert _m(t, {"q": 50.0}, {"q": 60.5}) == (10.5, False)
    # relative to the fluid side (default) or to the packet side
    r = Tolerance("p", rel=0.15)
    assert _m(r, {"p": 1.15}, {"p": 1.0})[1] and not _m(r, {"p": 1.16}, {"p": 1.0})[1]
    assert _m(r, {"p": 1.0}, {"p": 1.16})[0] == pytest.approx(0.16 / 1.16)
    rp = Tolerance("p", rel=0.15, relative_to="of")
    assert _m(rp, {"p": 1.0}, {"p": 1.16})[0] == pytest.approx(0.16)
    # max(10 packets, 20 % of the packet queue): 30 off at a queue of 200 is within (20 % = 40), at 40 not
    both = Tolerance("q", abs=10.0, rel=0.2, relative_to="of")
    assert _m(both, {"q": 200.0}, {"q": 230.0}) == (30.0, True)
    assert _m(both, {"q": 40.0}, {"q": 70.0}) == (30.0, False)


def test_vectors_scales_ratios_and_one_sided_bounds():
    # a vector: the worst element decides, and is what is measured
    v = Tolerance("share", quantity=("a", "b"), abs=0.05)
    assert _m(v, {"a": 0.2, "b": 0.3}, {"a": 0.22, "b": 0.36}) == (pytest.approx(0.06), False)
    # divided by a context scale (K = 65): |60 − 65|/65
    k = Tolerance("queue_over_K", "K", quantity="q", abs=0.2, scale="K")
    assert _m(k, {"q": [60.0, 0.0]}, {"q": [65.0, 0.0]}, {"K": 65.0})[0] == pytest.approx(5 / 65)
    # a ratio band
    band = Tolerance("period", quantity="p", ratio=(1.15, 1.40))
    assert _m(band, {"p": 1.26}, {"p": 1.0}) == (pytest.approx(1.26), True)
    assert not _m(band, {"p": 1.1}, {"p": 1.0})[1]
    # one side's value, and a strict bound
    low = Tolerance("u", quantity="u", against=None, at_least=0.98)
    assert _m(low, {"u": [0.99, 0.985]}, {}) == (0.985, True)
    strict = Tolerance("qmin", against=None, at_least=0.0, strict=True)
    assert not _m(strict, {"qmin": 0.0}, {})[1] and _m(strict, {"qmin": 1.0}, {})[1]
    # a difference of two sides against a bound: swing − threshold ≤ 0
    d = Tolerance(
        "steady", of="context", quantity="swing", against="context", against_quantity="thr", at_most=0.0
    )
    assert _m(d, {}, {}, {"swing": 4.0, "thr": 5.0}) == (-1.0, True)


def test_a_missing_value_is_outside_tolerance():
    t = Tolerance("period", quantity="period_s", rel=0.15)
    assert _m(t, {"period_s": None}, {"period_s": 1e-3}) == (None, False)
    assert _m(t, {"period_s": 1e-3}, {"period_s": math.nan}) == (None, False)


def test_a_tolerance_states_one_kind_of_bound():
    with pytest.raises(ValueError, match="exactly one"):
        Tolerance("x", abs=1.0, ratio=(0.9, 1.1))
    with pytest.raises(ValueError, match="exactly one"):
        Tolerance("x")
    with pytest.raises(ValueError, match="distinct"):
        Tolerances(Tolerance("x", abs=1.0), Tolerance("x", rel=0.1))


TOL = Tolerances(Tolerance("q", "packets", abs=10.0), Tolerance("u", abs=0.02, scored=False))


def test_verdict_agree_disagree_and_own_class():
    ok = verdict(TOL, {"q": 50.0, "u": 1.0}, {"q": 55.0, "u": 0.9})
    # the unscored tolerance is measured and reported, it does not decide
    assert ok.outcome == "agree" and ok.agree and ok.passed and ok.checks == {"q": True, "u": False}
    bad = verdict(TOL, {"q": 50.0, "u": 1.0}, {"q": 75.0, "u": 1.0})
    assert bad.outcome == "disagree" and bad.passed is False and bad.failed == ["q"]
    # a run that says nothing: its own class, never agreement, whatever the numbers
    own = verdict(TOL, {"q": 50.0, "u": 1.0}, {"q": 50.0, "u": 1.0}, run_class="not stationary",
                  scored_classes=("stationary",))  # fmt: skip
    assert own.outcome == "not stationary" and not own.agree and own.passed is None and own.checks["q"]
    # a model whose solver failed is a miss
    assert verdict(TOL, {"q": 50.0}, {"q": 50.0, "status": "max steps"}).outcome == "disagree"


def _toy(name: str = "toy-check", laws: tuple[str, ...] = ()) -> CrossCheck:
    """Packet side q = 2·s, fluid side q = 2·s + s/10: within 10 packets for s ≤ 100; s < 0 is 'collapse'."""
    return CrossCheck(
        name=name,
        claim="a closed form against itself, shifted",
        settings=(10.0, 200.0, -5.0),
        packet=lambda s, seed=0, **_: {"q": 2 * s, "u": 1.0},
        fluid=lambda settings, packets, **_: [{"fluid": {"q": 2 * s + s / 10, "u": 1.0}} for s in settings],
        tolerances=TOL,
        classify=lambda s, packet, fluid: "collapse" if s < 0 else "stationary",
        scored_classes=("stationary",),
        laws=laws,
        label=lambda s: f"s = {s:g}",
    )


def test_run_check_returns_a_result():
    res = run_check(_toy())
    assert isinstance(res, CheckResult) and isinstance(res, Result) and res.ok
    assert [r.outcome for r in res.rows] == ["agree", "disagree", "collapse"]
    assert not res.agree and res.status_of(2) == Status.OK and res.messages[2] == "collapse"
    s = res.summary()
    assert (s.settings, s.scored, s.agree, s.disagree, s.own_classes) == (3, 2, 1, 1, {"collapse": 1})
    assert s.failed["s = 200"] == ["q"] and s.to_dict()["own_classes"] == {"collapse": 1}
    ds = res.to_dataset()
    assert list(ds["outcome"].values) == ["agree", "disagree", "collapse"]
    np.testing.assert_allclose(ds["measured_q"].values, [1.0, 20.0, 0.5])
    assert ds.attrs["check"] == "toy-check" and "package_version" in ds.attrs
    ax = res.plot()
    assert ax.get_title().startswith("toy-check")


def test_registry_finds_a_check_by_name_and_law(monkeypatch):
    monkeypatch.setattr(registry.CHECKS, "_entries", dict(registry.CHECKS._entries))
    register_check(_toy(laws=("toy-law",)))

    @register_check
    def another() -> CrossCheck:
        return _toy("toy-2")

    assert get_check("toy-2").name == "toy-2" and check_for_law("toy-law").name == "toy-check"
    with pytest.raises(ValueError, match="law='nope' is invalid"):
        check_for_law("nope")
    with pytest.raises(TypeError):
        register_check(lambda: 3)


def test_tolerances_by_run_class():
    by_class = {
        "cycle": Tolerances(Tolerance("q", abs=10.0)),
        "fixed point": Tolerances(Tolerance("q", abs=3.0)),
    }
    check = _toy().replace(tolerances=by_class, classify=lambda s, p, f: "cycle" if s < 100 else "fixed point",
                           scored_classes=None)  # fmt: skip
    # s = 10: 1 packet off, within both; s = 200: 20 off, outside the fixed point's 3
    res = run_check(check, (10.0, 200.0))
    assert [r.outcome for r in res.rows] == ["agree", "disagree"]
    # a scored class without a stated set is an error, not an empty set that always agrees
    with pytest.raises(KeyError, match="no tolerances"):
        run_check(check.replace(classify=lambda s, p, f: "unknown"), (10.0,))
