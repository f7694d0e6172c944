"""Checked derivations: the mechanism, every registered derivation, and proofs/ up to date."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import sympy as sp

from dwtcp_fluid.numtext import marked_numbers, plain
from dwtcp_fluid.studies.dwtcp.derive_linear import dwtcp_jacobian
from dwtcp_fluid.symbolic.derivation import (
    Derivation,
    Finding,
    Step,
    StepCheckError,
    differs,
    dsolve_equals,
    holds,
    identity,
    positive,
    solutions,
)
from dwtcp_fluid.symbolic.registry import (
    COVERAGE,
    DERIVATIONS,
    check_all,
    checked,
    default_proofs_dir,
    render_all,
)

REPO = Path(__file__).resolve().parents[1]
x = sp.Symbol("x", positive=True)


@pytest.fixture(scope="session")
def rendered() -> dict[str, str]:
    """Every derivation run once (all checks) and rendered; shared by the tests below."""
    return render_all()


def _one_step(check) -> Derivation:
    return Derivation(
        "toy", "toy", "nothing", [], [Step("the wrong step", "eq. (0)", "because.", [x], check)]
    )


@pytest.mark.parametrize(
    "check",
    [
        identity(x + 1, x),
        holds(x < 0),
        positive(-x),
        solutions(lambda: sp.solve(x**2 - 4, x), [3]),
        differs(x * (x + 1), x**2 + x),
        dsolve_equals(
            sp.Eq(sp.Function("f")(x).diff(x), sp.Function("f")(x)),
            sp.Function("f")(x),
            {sp.Function("f")(0): 1},
            2 * sp.exp(x),
        ),
    ],
    ids=["identity", "holds", "positive", "solutions", "differs", "dsolve"],
)
def test_wrong_step_fails_with_its_name(check):
    with pytest.raises(StepCheckError, match=r"toy\.md step 1 \('the wrong step'\)"):
        _one_step(check).run()


def test_right_steps_pass():
    d = Derivation(
        "toy",
        "toy",
        "nothing",
        [Finding("f", "p", "w", "confirmed", "a")],
        [
            Step("a", "", "", [x], identity((x + 1) ** 2, x**2 + 2 * x + 1)),
            Step("b", "", "", [x], solutions(lambda: sp.solve(x**2 - 4, x), [2])),
        ],
    )
    md = d.render()
    assert "### Step 2. b" in md and "*confirmed* (step 1)" in md


def test_wrong_step_in_a_real_derivation_is_named():
    """Swap the paper's increase-phase matrix (15) into the decrease Jacobian step: the check must name it."""
    d = dwtcp_jacobian()
    J = d.steps[0].show[0]
    bad = sp.Matrix([[0, 0], [0, sp.Symbol("N", positive=True) / sp.Symbol("tau", positive=True)]])
    d.steps[0] = dataclasses.replace(d.steps[0], check=identity(sp.Matrix([[1, 0], [0, 1]]), bad))
    assert J  # the statement is unchanged; only the check is wrong
    with pytest.raises(
        StepCheckError, match=r"dwtcp_jacobian\.md step 1 \('Jacobian of the decrease phase'\)"
    ):
        d.run()


def test_finding_citing_unknown_step_is_an_error():
    d = Derivation("toy", "t", "c", [Finding("f", "p", "w", "s", "nope")], [])
    with pytest.raises(StepCheckError, match="unknown step"):
        d.run()


@pytest.mark.slow  # renders every derivation (make test runs `proofs --check` once)
def test_every_derivation_renders(rendered):
    assert len(rendered) == len(DERIVATIONS) + 2  # and README.md, INDEX.md
    for name, text in rendered.items():
        assert text.endswith("\n") and "do not edit by hand" in text, name


@pytest.mark.slow  # renders every derivation (make test runs `proofs --check` once)
def test_findings_open_each_file(rendered):
    for f in DERIVATIONS:
        slug = f.__name__
        text = rendered[f"{slug}.md"]
        assert text.index("## Findings") < text.index("## Derivation"), slug


@pytest.mark.slow  # renders every derivation (make test runs `proofs --check` once)
def test_readme_covers_every_note_and_point(rendered):
    readme = rendered["README.md"]
    # The equation notes live in the repository (docs/equations.md), so this runs on every clone.
    spec = (REPO / "docs" / "equations.md").read_text(encoding="utf-8")
    n_notes = sum(1 for line in spec.splitlines() if line.strip().startswith("**Note"))
    points = spec.split("Points the project must examine")[1].split("---")[0]
    n_points = sum(1 for line in points.splitlines() if line.startswith("- "))
    covered = [c for c in COVERAGE if c.spec_item.startswith(("DCTCP Note", "DWTCP Note"))]
    assert len(covered) == n_notes  # every Note of docs/equations.md has a row
    assert sum(c.spec_item.startswith("Point") for c in COVERAGE) == n_points
    for c in COVERAGE:
        assert c.spec_item.replace("|", "\\|") in readme


@pytest.mark.slow  # renders every derivation (make test runs `proofs --check` once)
def test_committed_proofs_are_up_to_date(rendered):
    assert check_all(default_proofs_dir(), files=rendered) == []


@pytest.mark.slow  # renders every derivation (make test runs `proofs --check` once)
def test_check_fails_after_a_proof_file_is_edited(rendered, tmp_path):
    for name, text in rendered.items():
        (tmp_path / name).write_text(plain(text), encoding="utf-8")
    assert check_all(tmp_path, files=rendered) == []
    p = tmp_path / "dwtcp_jacobian.md"
    p.write_text(p.read_text(encoding="utf-8").replace("spiral", "spirals"), encoding="utf-8")
    (tmp_path / "dctcp_hybrid.md").unlink()
    (tmp_path / "stale.md").write_text("x", encoding="utf-8")
    problems = check_all(tmp_path, files=rendered)
    assert any("dwtcp_jacobian.md: differs" in s for s in problems)
    assert any("dctcp_hybrid.md: missing" in s for s in problems)
    assert any("stale.md: not produced" in s for s in problems)


def test_a_proof_number_changed_within_its_tolerance_passes_and_beyond_fails(tmp_path):
    """proofs/dwtcp_equilibrium.md's critical k̄_c/BDP at the guideline β, a number from a root find shown to four
    decimals: a change of one unit in its last digit (its tolerance) passes the check, a change of five fails."""
    name = "dwtcp_equilibrium"
    text = checked([name])[1][f"{name}.md"]
    start = text.index("BDP for β = 0.001 and \ue000") + len("BDP for β = 0.001 and ")
    end = text.index("\ue002", start) + 1
    (value,) = marked_numbers(text[start:end])
    decimals = len(value.text.split(".")[1])
    unit = 10.0**-decimals
    assert value.tol == pytest.approx(unit)
    for delta, ok in ((unit, True), (-unit, True), (5 * unit, False), (-5 * unit, False)):
        edited = f"{float(value.text) + delta:.{decimals}f}"
        committed = plain(text[:start]) + edited + plain(text[end:])
        (tmp_path / f"{name}.md").write_text(committed, encoding="utf-8")
        problems = check_all(tmp_path, files={f"{name}.md": text}, names=[name])
        assert (problems == []) is ok, (value.text, edited, problems)
        if not ok:
            assert f"{edited} differs from the regenerated" in problems[0]


@pytest.mark.slow  # renders every derivation (make test runs `proofs --check` once)
def test_rendering_is_deterministic(rendered):
    again = {f"{f.__name__}.md": f().render() for f in DERIVATIONS[:3]}
    for name, text in again.items():
        assert text == rendered[name]
