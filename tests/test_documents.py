"""The documents tell the truth about the data: every number the README, the documentation pages and notebook prose
quote from a computation is marked and agrees with the recorded data within its stated tolerance
(``tools/docvalues.py``); the version is one; every notebook is listed.

The recorded data are what the code printed: ``docs/data/sweep-beta0.001.json`` is ``dwtcp-fluid sweep --beta 0.001
--json`` (``make docs-data`` re-records it and the benchmark), so these tests tie prose to data, not data to code.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _docvalues():
    spec = importlib.util.spec_from_file_location("docvalues", ROOT / "tools" / "docvalues.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docvalues", mod)
    spec.loader.exec_module(mod)
    return mod


dv = _docvalues()


def test_every_marked_number_agrees_with_the_recorded_data():
    problems = dv.check()
    assert not problems, "\n".join(problems)


def test_the_readme_and_the_pages_quote_the_recorded_sweep_and_benchmark():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = dv.markers(readme)
    used = {m.expr.split(".")[0].split("[")[0].lstrip("0123456789*(") for m in found}
    assert len(found) >= 15 and {"sweep", "bench"} <= used, (len(found), used)
    for page in ("sweep.md", "packet.md"):
        assert len(dv.markers((ROOT / "docs" / page).read_text(encoding="utf-8"))) >= 10, page
    findings = dv.check_file(ROOT / "notebooks" / "dwtcp_findings.ipynb", dv.load())
    assert not findings
    assert dv.markers(dv._all_text(ROOT / "notebooks" / "dwtcp_findings.ipynb")), (
        "findings notebook: no marked number"
    )


DATA = {"sweep": {"packet": {"class_counts": {"steady": 160}}, "agreement_rate": 0.93}}


@pytest.mark.parametrize(
    ("shown", "ok"),
    [("160", True), ("162", True), ("163", True), ("164", False), ("150", False), ("16o", False)],
)
def test_an_absolute_tolerance_admits_a_change_within_it_and_fails_beyond(shown, ok):
    text = f"steady at <!-- value sweep.packet.class_counts.steady ; d ; ±3 -->{shown}<!-- /value --> points"
    assert (dv.check_text(text, DATA) == []) is ok


@pytest.mark.parametrize(("shown", "ok"), [("93.0", True), ("97.6", True), ("97.8", False), ("88.1", False)])
def test_a_relative_tolerance_admits_a_change_within_it_and_fails_beyond(shown, ok):
    text = f"<!-- value 100*sweep.agreement_rate ; .1f ; 5% -->{shown}<!-- /value --> %"
    assert (dv.check_text(text, DATA) == []) is ok


def test_a_one_digit_change_in_the_readme_within_its_tolerance_passes_and_beyond_fails():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    data = dv.load()
    m = next(m for m in dv.MARK.finditer(readme) if "class_counts.steady" in m.group("spec"))
    (mk,) = dv.markers(m.group(0))
    true = dv.evaluate(mk.expr, data)
    assert mk.tol.relative is False and mk.tol.value >= 1

    def shown_as(n: int) -> str:
        return readme[: m.start("text")] + str(n) + readme[m.end("text") :]

    within = round(true) + int(mk.tol.value)
    assert dv.check_text(shown_as(within), data) == []
    (problem,) = dv.check_text(shown_as(within + 1), data)
    assert "class_counts.steady" in problem and f"shows {within + 1} " in problem


def test_write_renders_every_marked_number_from_the_data():
    text = (
        "<!-- value sweep.packet.class_counts.steady ; d ; ±3 -->999<!-- /value --> and "
        "<!-- value 100*sweep.agreement_rate ; .1f ; ±0.1 -->1<!-- /value -->"
    )
    out = dv.write_text(text, DATA)
    assert out == (
        "<!-- value sweep.packet.class_counts.steady ; d ; ±3 -->160<!-- /value --> and "
        "<!-- value 100*sweep.agreement_rate ; .1f ; ±0.1 -->93.0<!-- /value -->"
    )
    assert dv.check_text(out, DATA) == []


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("sweep.packet.class_counts.sleepy ; d ; ±3", "no key 'sleepy'"),
        ("__import__('os') ; d ; ±3", "not allowed"),
        ("sweep.packet ; d ; ±3", "not a number"),
        ("sweep.agreement_rate ; .1f", "EXPRESSION ; FORMAT ; TOLERANCE"),
        ("sweep.agreement_rate ; .1f ; 3", "tolerance '3'"),
        ("sweeps.agreement_rate ; .1f ; ±1", "unknown source 'sweeps'"),
    ],
)
def test_an_unreadable_marker_is_named(spec, message):
    (problem,) = dv.check_text(f"x <!-- value {spec} -->1<!-- /value -->", DATA, "README.md: ")
    assert problem.startswith("README.md: ") and message in problem, problem


def test_the_recorded_sweep_is_the_default_sweep_with_its_packet_pass():
    rec = json.loads(dv.SOURCES["sweep"].read_text(encoding="utf-8"))
    assert rec["command"] == "sweep" and rec["beta"] == [0.001]
    assert (
        rec["packet"]["points"] == 250 and rec["points"] == 25 * 10 * 25
    )  # BDP × N × k̄/k̄* of the default grid


def test_the_recorded_sweep_split_by_verdict_adds_up():
    """Each predictor's scored points split by its verdict partition the scored points, and the agreements are the
    steady runs where it predicts steady plus the others where it does not (scored runs are steady or oscillating)."""
    rec = json.loads(dv.SOURCES["sweep"].read_text(encoding="utf-8"))
    for name, a in rec["packet"]["agreement"].items():
        if a.get("classes"):
            continue  # a class predictor: test_the_recorded_class_predictor_split_by_class_adds_up
        st, ns = a["by_verdict"]["steady"], a["by_verdict"]["not_steady"]
        assert st["scored"] + ns["scored"] == a["scored"], name
        agrees = st["packet_steady"] + ns["scored"] - ns["packet_steady"]
        assert agrees == pytest.approx(a["agreement"] * a["scored"], abs=1e-9), name


def test_the_recorded_class_predictor_split_by_class_adds_up():
    """A class predictor (the regime model) is scored at every classified run: its table, packet class by predicted
    class, has one row per scored class whose sum is the sweep's count of that class, its diagonal over the scored
    runs is its agreement, and its state accuracy is over the steady runs."""
    rec = json.loads(dv.SOURCES["sweep"].read_text(encoding="utf-8"))
    counts = rec["packet"]["class_counts"]
    class_predictors = {n: a for n, a in rec["packet"]["agreement"].items() if a.get("classes")}
    assert "regime" in class_predictors, sorted(rec["packet"]["agreement"])
    for name, a in class_predictors.items():
        table = a["by_class"]
        assert set(table) == {"steady", "oscillating", "collapse"}, name
        for cls, row in table.items():
            assert sum(row.values()) == counts[cls], (name, cls)
        assert sum(sum(r.values()) for r in table.values()) == a["scored"], name
        hits = sum(table[c].get(c, 0) for c in table)
        assert hits == pytest.approx(a["agreement"] * a["scored"], abs=1e-9), name
        assert a["state"]["steady_points"] == counts["steady"], name
        assert 0.0 <= a["state"]["queue_within"] <= 1.0 and 0.0 <= a["state"]["utilization_within"] <= 1.0, (
            name
        )


def test_the_recorded_multihop_runs_are_the_recorders():
    """docs/data/multihop.json holds the runs at the settings tools/record_proof_data.py states, one value each."""
    spec = importlib.util.spec_from_file_location(
        "record_proof_data", ROOT / "tools" / "record_proof_data.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rec = json.loads(dv.SOURCES["multihop"].read_text(encoding="utf-8"))
    assert rec["command"] == "tools/record_proof_data.py"
    assert {k: v for k, v in rec["settings"].items() if k != "start_asymmetry"} == mod.SETTINGS
    hops = mod.SETTINGS["fluid_ratio"]["hops"]
    assert sorted(rec["fluid_ratio"]["value"]) == sorted(str(h) for h in hops)
    d = rec["desync_share"]
    assert (
        set(d["fluid"])
        == set(d["packet"])
        == set(d["desync"])
        == set(d["fluid common delay"])
        == {str(h) for h in mod.SETTINGS["desync_share"]["hops"]}
    )
    assert set(rec["unequal_rtt"]["value"]) == {
        "per-group",
        "common",
        "packet",
        "desync per-group",
        "desync common",
    }


def test_the_recorded_benchmark_ran_htsim_and_both_engines():
    rec = json.loads(dv.SOURCES["bench"].read_text(encoding="utf-8"))
    assert rec["htsim"] is not None, "the speed figures compare with htsim: record a run where htsim built"
    assert set(rec["engines"]) == {"jax", "native"}


def test_one_version_everywhere():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    from dwtcp_fluid import __version__

    cff = re.search(r"^version: (\S+)$", (ROOT / "CITATION.cff").read_text(), re.M)
    assert __version__ == version and cff and cff.group(1) == version
    assert re.search(
        rf"^## \[{re.escape(version)}\] — \d{{4}}-\d\d-\d\d$", (ROOT / "CHANGELOG.md").read_text(), re.M
    )


NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_notebook_is_listed_in_the_readme_and_on_the_site(name):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| `notebooks/{re.escape(name)}` \| (.+) \|$", readme, re.M)
    assert row and len(row.group(1)) > 20, f"README: no row with a purpose for notebooks/{name}"
    assert f"notebooks/{name}" in (ROOT / "mkdocs.yml").read_text(), f"mkdocs.yml nav lacks notebooks/{name}"


def test_no_internal_tracker_numbers_or_version_labels_in_what_users_read():
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    texts |= {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}
    texts |= {str(p.relative_to(ROOT)): dv._all_text(p) for p in (ROOT / "notebooks").glob("*.ipynb")}
    bad = {
        k: m.group(0)
        for k, t in texts.items()
        if (m := re.search(r"\bissue \d+|\bcore v\d\b|\(v\d\)|\bthe \d× target", t, re.I))
    }
    assert not bad, bad


@pytest.mark.slow
def test_the_recorded_sweep_is_what_the_sweep_prints_today(tmp_path):
    """Re-run ``make sweep``'s command and compare every number the documents quote from the record, within the
    tolerance each marker states (timings excepted): a change of the code that moves a quoted number beyond its
    tolerance fails here until ``make docs-data`` re-records the sweep."""
    import subprocess

    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "dwtcp_fluid",
            "--quiet",
            "sweep",
            "--beta",
            "0.001",
            "--out",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    fresh = {"sweep": json.loads(r.stdout)}
    recorded = {"sweep": json.loads(dv.SOURCES["sweep"].read_text(encoding="utf-8"))}
    quoted = {
        (m.expr, str(m.tol))
        for path in dv.documents()
        for m in dv.markers(dv._all_text(path))
        if "sweep." in m.expr and "seconds" not in m.expr
    }
    assert len(quoted) >= 15
    moved = []
    for expr, tol in sorted(quoted):
        was, now = dv.evaluate(expr, recorded), dv.evaluate(expr, fresh)
        if not dv.Tolerance.parse(tol).holds(now, was):
            moved.append(f"{expr}: recorded {was:.6g}, now {now:.6g} (tolerance {tol})")
    assert not moved, "\n".join(moved)
