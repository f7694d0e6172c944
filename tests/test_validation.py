"""One validation layer from Python: the declared ranges (:class:`dwtcp_fluid.params.Bound`) refuse degenerate and
out-of-range values before any work, in the parameter objects, the fluid models' parameter mappings
(``dw.solve``), the packet laws' ``law_params`` and the closed forms; every message names the parameter, the value
and the accepted range."""

from __future__ import annotations

import math

import pytest

import dwtcp_fluid as dw
from dwtcp_fluid.params import BOUNDS, MODEL_BOUNDS, Bound

DEGENERATE = [math.nan, math.inf, -math.inf, 1e-320, -1e-320, 1e308, -1e308]


@pytest.mark.parametrize("value", DEGENERATE)
@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_every_declared_bound_refuses_degenerate_values(name, value):
    """NaN, ±inf and subnormal numbers are refused whatever the declared range; so is 1e308 (no declared range
    reaches it)."""
    with pytest.raises(ValueError, match=rf"^{name}=.* is out of range: accepted "):
        BOUNDS[name].check(name, value)


def test_bound_text_and_edges():
    b = Bound(0.0, 1.0, lo_open=True, why="a gain")
    assert b.accepted("g") == "0 < g <= 1 (a gain)"
    assert b.ok(1.0) and not b.ok(0.0) and b.ok(1e-300) and not b.ok(1e-320)
    assert not b.ok(True) and not b.ok("x") and not b.ok(None) and not b.ok(2**1100)
    n = Bound(1, 10, integer=True)
    assert n.check("n", 3.0) == 3 and isinstance(n.check("n", 3.0), int)
    assert not n.ok(2.5) and n.accepted("n") == "an integer, 1 <= n <= 10"


MAPPING = {"C": 833333.0, "d": 1e-4, "K": 65.0, "g": 1.0 / 16.0, "N": 10.0}


@pytest.mark.parametrize(
    "key, value",
    [
        ("g", -1.0),
        ("g", 5.0),
        ("N", -1.0),
        ("N", 0.0),
        ("K", -1.0),
        ("g", 1e-320),
        ("C", 1e308),
        ("d", -1e-3),
    ],
)
def test_solve_refuses_out_of_range_model_parameters(key, value):
    """``dw.solve`` refuses before integrating (g = −1 used to run and report α = −0.51 with status ok)."""
    p = {**MAPPING, key: value}
    with pytest.raises(ValueError, match=rf"^{key}=.* is out of range: accepted .*{key}"):
        dw.solve(dw.DctcpFluid(), p, [1.0, 0.0, 0.0], (0.0, 1e-3))


def test_solve_refuses_unknown_keys_and_no_parameters():
    with pytest.raises(ValueError, match=r"params\['gg'\] is not a parameter of dctcp: accepted keys"):
        dw.solve(dw.DctcpFluid(), {**MAPPING, "gg": 1.0}, [1.0, 0.0, 0.0], (0.0, 1e-3))
    with pytest.raises(ValueError, match=r"^params=None is invalid: accepted a parameter object"):
        dw.solve(dw.DctcpFluid(), None, [1.0, 0.0, 0.0], (0.0, 1e-3))


def test_model_bounds_hold_the_contract_sample_domains():
    """The declared ranges contain every model's contract sample domain (the ranges refuse no tested setting)."""
    from dwtcp_fluid.models.registry import MODELS

    checked = 0
    for case in MODELS.values():
        model = case.model
        for name, bound in model.bounds().items():
            spec = model.sample_domain[name]
            lo, hi = (spec[1], spec[2]) if spec[0] == "lin" else spec
            assert bound.ok(lo) and bound.ok(hi), (model.name, name, spec, bound)
            checked += 1
    assert checked >= 10
    assert set(MODEL_BOUNDS) >= {"C", "d", "K", "g", "N", "beta", "k"}


@pytest.mark.parametrize("bdp, beta", [(math.nan, 1e-3), (100.0, math.nan), (-1.0, 1e-3), (100.0, 0.0)])
def test_kbar_star_refuses(bdp, beta):
    with pytest.raises(ValueError, match="is out of range"):
        dw.kbar_star(bdp, beta)
    assert dw.kbar_star(100.0, 0.01) == pytest.approx(2000.0, rel=1e-12)  # 2·BDP/√β, [DWTCP] eq. (14)


@pytest.mark.parametrize(
    "law_params, match",
    [
        ({"g": math.nan}, r"law_params\['g'\]=nan is out of range: accepted 1e-06 <= g <= 1"),
        ({"g": 5.0}, r"law_params\['g'\]=5.0 is out of range"),
        ({"gg": 0.1}, r"law_params\['gg'\] is not a parameter of law 'dctcp': accepted keys \['alpha0', 'g'"),
        ({"init_cwnd": 1e-40}, r"law_params\['init_cwnd'\]=1e-40 is out of range: accepted 0 or a magnitude"),
    ],
)
def test_packet_law_params_refused_before_work(law_params, match):
    with pytest.raises(ValueError, match=match):
        dw.packet_build("dctcp", law_params=law_params)
