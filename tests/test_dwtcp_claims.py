"""[DWTCP]'s body judged in the packet core (dwtcp_fluid/studies/dwtcp/claims_*.py, figure ``dwtcp_claims``):
open-loop senders and Scout probes, the slotted priority queue against its closed forms, the claims' verdicts."""

from __future__ import annotations

import numpy as np
import pytest

from dwtcp_fluid.packet.batch import choose_engine, stack
from dwtcp_fluid.packet.engine import spec_for
from dwtcp_fluid.packet.laws import get_law


def test_open_loop_refuses_an_unknown_arrival_process():
    with pytest.raises(ValueError, match=r"arrivals='bursty' is invalid: accepted one of cbr, poisson"):
        get_law("open-loop", arrivals="bursty")


def test_open_loop_senders_and_probes_run_on_the_native_loop():
    """The amplification runs (open-loop senders beside Scout-only probes) go to the native loop under ``auto``, and
    a mix the loop does not run (a window law's flows beside open-loop senders) is refused by name."""
    from dwtcp_fluid.studies.dwtcp.checks_scouts import amplification_run

    pr = amplification_run(0.5, duration=0.001)
    spec = spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))
    assert choose_engine(spec, "auto") == "native"
    mixed = spec_for(pr.cfg, (get_law("dctcp"), get_law("open-loop")), stack([pr.scenario]))
    with pytest.raises(ValueError, match=r"engine='native' does not run .*law 'dctcp\+open-loop'"):
        choose_engine(mixed, "native")


def test_amplification_band_is_the_closed_form():
    """(2 − ρ)/(1 − ρ) = 5, 15 ⇔ ρ = 3/4, 13/14; 1/(1 − ρ) = 5, 15 ⇔ ρ = 4/5, 14/15 (by hand)."""
    from dwtcp_fluid.studies.dwtcp.analysis_priority import amplification_band, wait_formulas

    b = amplification_band()
    assert b["slotted"] == pytest.approx((0.75, 13 / 14), rel=1e-12)
    assert b["cobham"] == pytest.approx((0.8, 14 / 15), rel=1e-12)
    # M/D/1 (Pollaczek-Khinchine) at ρ = 0.8: W = ρ/(2(1 − ρ)) = 2 slots; Scout ρ(2 − ρ)/(2(1 − ρ)²) = 12
    f = wait_formulas(0.8, 0.64)
    assert f["W_H"] == pytest.approx(2.0, rel=1e-12) and f["W_L"] == pytest.approx(12.0, rel=1e-12)


@pytest.mark.slow
def test_priority_switch_waits_match_the_slotted_theory():
    """Poisson open-loop data at ρ = 0.5, 0.8, 0.9 with a vanishing Scout load: the packet core's data and Scout
    waits within the study's tolerances of W_H, W_L (analysis_priority); the load within 1 % of the offered one;
    CBR senders deliver exactly their rate."""
    from dwtcp_fluid.studies.dwtcp.checks_scouts import TOLERANCES, amplification_table, theory_gaps

    rows = amplification_table((0.5, 0.8, 0.9), seeds=(0, 1), duration=1.0)
    for r in rows:
        assert r["load"] == pytest.approx(r["rho"], rel=0.01)
        assert all(ok for _, ok in theory_gaps(r).values()), (r, TOLERANCES.describe())
        assert r["scout_drop_fraction"] < 1e-3  # the Scout queue (23) almost never overflows
    cbr = amplification_table((0.6,), arrivals="cbr", duration=0.2)
    assert cbr[0]["load"] == pytest.approx(0.6, rel=2e-3)


@pytest.mark.slow
def test_every_dwtcp_claim_holds():
    from dwtcp_fluid.experiments import catalog
    from dwtcp_fluid.studies.dwtcp.figures_claims import build_dwtcp_claims

    fig = catalog.registry()["dwtcp_claims"]
    data = build_dwtcp_claims(False)
    res = [(c.text, *c.check(data)) for c in fig.claims]
    assert all(ok for _, ok, _ in res), [r for r in res if not r[1]]
    assert np.isfinite([r["ratio"] for r in data["amplification"]]).all()


def test_the_recorded_claims_are_the_figures_settings_and_all_hold():
    """docs/data/dwtcp-claims.json (the claims table's source) holds the figure's data at the settings
    figures_claims.SETTINGS states, with every claim of the registered figure and each one passing."""
    import json
    from pathlib import Path

    from dwtcp_fluid.experiments.figure import registered
    from dwtcp_fluid.studies.dwtcp.figures_claims import SETTINGS

    rec = json.loads((Path(__file__).parents[1] / "docs" / "data" / "dwtcp-claims.json").read_text("utf-8"))
    assert rec["data"]["settings"] == {k: list(v) if isinstance(v, tuple) else v for k, v in SETTINGS.items()}
    assert [c["text"] for c in rec["claims"]] == [c.text for c in registered()["dwtcp_claims"].claims]
    assert all(c["passed"] for c in rec["claims"])
