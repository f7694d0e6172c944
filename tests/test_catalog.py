"""Figure registry: deterministic builds, claims asserted, committed images compared."""

from matplotlib.figure import Figure as MplFigure

from dwtcp_fluid.experiments import catalog, figure


def _plot(data):
    fig = MplFigure(figsize=(3, 2))
    ax = fig.subplots()
    ax.plot(data["x"], data["y"])
    return fig


def _fig(name, claim_ok=True, scale=1.0):
    return catalog.Figure(
        name=name,
        title="test",
        build=lambda quick: {"x": [0, 1, 2], "y": [0, scale, 0]},
        plot=_plot,
        claims=[
            catalog.Claim(
                "peak is 1", lambda d: (max(d["y"]) == 1.0 if claim_ok else False, str(max(d["y"])))
            )
        ],
    )


def test_build_is_deterministic_and_check_compares(tmp_path, monkeypatch):
    monkeypatch.setattr(figure.FIGURES, "_entries", {})
    catalog.register(_fig("t1"))
    a = catalog.build_all(tmp_path / "a")
    b = catalog.build_all(tmp_path / "b")
    assert a[0].path.read_bytes() == b[0].path.read_bytes()
    assert all(r.ok for r in catalog.check_all(tmp_path / "a"))
    # A different picture under the same name fails the image comparison.
    catalog.register(_fig("t1", scale=3.0))
    res = catalog.check_all(tmp_path / "a")
    assert res[0].image_ok is False and not res[0].ok
    # A missing committed image fails too.
    assert catalog.check_all(tmp_path / "empty")[0].image_ok is False


def test_failing_claim_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(figure.FIGURES, "_entries", {})
    catalog.register(_fig("t2", claim_ok=False))
    r = catalog.build_all(tmp_path)[0]
    assert not r.ok and r.claims[0].passed is False


def test_registered_figures_have_claims():
    reg = catalog.registry()
    assert "dwtcp_condition_map" in reg
    for fig in reg.values():
        assert fig.claims, f"{fig.name} has no claims"
