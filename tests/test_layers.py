"""The package's import structure: every import points down the layer order, and no files import each other in
a circle. Parses every ``import`` of ``dwtcp_fluid`` (including those inside functions and ``TYPE_CHECKING``
blocks); the package face (``dwtcp_fluid/__init__.py``, lazy re-exports) is the one file allowed to name
everything.

    layer 0  units, formulas, periods, results, _provenance, references, numtext, atomic, registry, interrupts  (leaves: no package
                                       import; atomic: the one way a file is written)
    layer 1  params
    layer 2  models, plots            (plots: drawing over data and result objects, nothing computed)
    layer 3  dde                      (the integration cores and both DDE solvers)
    layer 4  analysis, packet         (cycles, spectra, phase portraits; the packet core)
    layer 5  judge                    (the run classes, the one tolerance type and verdict, the CrossCheck and
                                       its registry: protocol-agnostic, it imports no study)
    layer 6  sweep                    (grids, per-point outcomes, the predictors of what DWTCP does)
    layer 7  symbolic, checks         (symbolic: derivations, whose proofs may state numbers analysis and the
                                       sweep compute; checks: each study's cross-checks, declared as instances of
                                       the judge's CrossCheck, and tuning; no package, studies only)
    layer 8  experiments              (figure recipes and the catalog: build, plot, claims)
    layer 9  reports                  (each command's JSON document as a library function)
    layer 10 cli
    layer 11 __main__ (`python -m dwtcp_fluid`)

A study (``studies/<study>/``, one folder per protocol or setting) is not a layer: each of its modules belongs to the
layer of its role, the file name up to the first underscore (``derive_busy.py`` is a ``derive`` module):

    analysis -> analysis   plots -> plots   derive -> symbolic   checks, tune -> checks
    figures -> experiments   report -> reports   cli -> cli

so a study's derivation imports what ``symbolic/`` may import, its plots compute nothing, and so on; the package
files ``studies/__init__.py`` and ``studies/<study>/__init__.py`` import nothing.

Where a file belongs (the rule of placement): a protocol's name appears in a module's file name only inside
``studies/`` (its fluid models in ``models/`` and its per-ACK laws in ``packet/laws/`` excepted); a module that
judges (crosscheck, checks, judge, verdict) lives in a study or in the judge package; ``packet/`` is the simulator
and imports nothing from the fluid side (``models``, ``dde``, ``analysis``). There is one judge: outside
``judge/`` no module defines a verdict function (``verdict``, ``*_verdict``, ``within_tolerance``, ``score``) or a
tolerance table as a literal (a ``*TOLERANCE*`` name bound to a dict): a study declares ``Tolerances`` and
``CrossCheck`` instances, and ``judge/`` imports no study.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "dwtcp_fluid"
LAYERS = (
    {
        "units",
        "formulas",
        "periods",
        "results",
        "_provenance",
        "references",
        "numtext",
        "atomic",
        "bounds",
        "registry",
        "interrupts",
    },
    {"params"},
    {"models", "plots"},
    {"dde"},
    {"analysis", "packet"},
    {"judge"},
    {"sweep"},
    {"symbolic", "checks"},
    {"experiments"},
    {"reports"},
    {"cli"},
    {"__main__"},
)
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}
#: The layer unit of each role of a study module (see ``dwtcp_fluid.studies``).
ROLES = {
    "analysis": "analysis",
    "plots": "plots",
    "derive": "symbolic",
    "checks": "checks",
    "tune": "checks",
    "figures": "experiments",
    "report": "reports",
    "cli": "cli",
}
#: Protocols whose names mark a file as a study's, beyond those with a law or a model file (found on disk).
PROTOCOLS = {"dctcp", "dwtcp", "timely", "d2tcp", "cubic", "reno", "swift", "hpcc", "bbr", "dcqcn", "vegas"}
#: Words in a file name that make it a judge: such a module lives in a study or in the judge package.
JUDGE_WORDS = ("crosscheck", "checks", "judge", "verdict")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _files() -> dict[str, Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(name: str, path: Path, modules: set[str]) -> set[str]:
    """The package modules ``path`` imports (a ``from x import y`` of a submodule y counts as x.y)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("dwtcp_fluid")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("dwtcp_fluid"):
                continue
            subs = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules}
            out |= subs if subs and len(subs) == len(node.names) else {target} | subs
    return {m for m in out if m in modules and m != name}


def _unit(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] == "studies":
        # a study module sits in the layer of its role; the studies' package files in layer 0 (they import nothing)
        return ROLES.get(parts[3].split("_")[0], f"studies:{parts[3]}") if len(parts) > 3 else "units"
    return parts[1] if len(parts) > 1 else "__init__"


def _graph() -> dict[str, set[str]]:
    files = _files()
    return {m: _imports(m, p, set(files)) for m, p in files.items()}


def test_every_unit_has_a_layer():
    units = {_unit(m) for m in _files()} - {"__init__"}
    assert units <= set(LAYER), f"add these to LAYERS: {sorted(units - set(LAYER))}"


def test_imports_point_down():
    up = []
    for m, deps in _graph().items():
        if _unit(m) == "__init__":
            continue  # the package face re-exports, lazily, from every layer
        for d in deps:
            a, b = _unit(m), _unit(d)
            if b == "__init__":
                up.append(f"{m} -> {d} (the package face)")
            elif a != b and LAYER[b] >= LAYER[a]:
                up.append(f"{m} (layer {LAYER[a]}) -> {d} (layer {LAYER[b]})")
    assert not up, "imports that do not point down:\n" + "\n".join(sorted(up))


def test_no_circles():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not circles, f"files that import each other in a circle: {circles}"


@pytest.mark.parametrize("pkg", ["plots"])
def test_plots_compute_nothing(pkg):
    """plots/ draws: it imports no solver, model, analysis, sweep or packet code (atomic: how a figure is saved)."""
    for m, deps in _graph().items():
        if _unit(m) == pkg:
            assert {_unit(d) for d in deps} <= {pkg, "formulas", "results", "atomic"}, (m, deps)


def test_study_modules_have_a_role():
    """Every module of a study is named for one of the roles, and the studies' package files import nothing."""
    graph = _graph()
    bad = [m for m in graph if _unit(m).startswith("studies:")]
    assert not bad, f"name these for a role ({', '.join(ROLES)}): {sorted(bad)}"
    for m, deps in graph.items():
        parts = m.split(".")
        if parts[1:2] == ["studies"] and len(parts) <= 3:
            assert not deps, (m, deps)
    assert not (PKG / "studies" / "__init__.py").exists() or all(
        (d / "__init__.py").exists()
        for d in (PKG / "studies").iterdir()
        if d.is_dir() and d.name != "__pycache__"
    )


def _protocols() -> set[str]:
    stems = [p.stem for p in (PKG / "packet" / "laws").glob("*.py")] + [
        p.stem for p in (PKG / "models").glob("*.py")
    ]
    return (PROTOCOLS | {s.split("_")[0] for s in stems}) - {"", "base", "registry", "recovery"}


def test_protocol_names_only_in_studies():
    """A file named for a protocol is a study's: only models/ and packet/laws/ keep protocol names outside studies/."""
    protocols = _protocols()
    misplaced = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "studies" or rel.parts[:1] == ("models",) or rel.parts[:2] == ("packet", "laws"):
            continue
        if any(p in rel.stem.split("_") or rel.stem.startswith(p) for p in protocols):
            misplaced.append(rel.as_posix())
    assert not misplaced, "move these into their study (dwtcp_fluid/studies/<study>/):\n" + "\n".join(
        sorted(misplaced)
    )


def test_judges_only_in_studies():
    """No cross-check, judge or verdict module outside a study and the judge package."""
    misplaced = [
        path.relative_to(PKG).as_posix()
        for path in PKG.rglob("*.py")
        if path.relative_to(PKG).parts[0] not in ("studies", "judge")
        and any(w in part for part in path.relative_to(PKG).with_suffix("").parts for w in JUDGE_WORDS)
    ]
    assert not misplaced, "move these into their study or the judge package:\n" + "\n".join(sorted(misplaced))


def test_packet_imports_no_fluid_side():
    """packet/ is the simulator: it imports no fluid model, no DDE solver and no analysis."""
    wrong = sorted(
        f"{m} -> {d}"
        for m, deps in _graph().items()
        if _unit(m) == "packet"
        for d in deps
        if _unit(d) in ("models", "dde", "analysis")
    )
    assert not wrong, "packet/ imports the fluid side:\n" + "\n".join(wrong)


#: Names of public functions that decide agreement: only the judge package defines them (a study applies the
#: judge's verdict and formats it under a name of its own).
VERDICT_NAMES = ("verdict", "score", "tolerance_verdict")


def test_one_judge():
    """No verdict function and no literal tolerance table (a dict of numbers) outside judge/, and judge/ imports no
    study."""
    found = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "judge":
            continue
        for node in ast.parse(path.read_text()).body:
            if (
                isinstance(node, ast.FunctionDef)
                and not node.name.startswith("_")
                and (node.name in VERDICT_NAMES or node.name.endswith("_verdict"))
            ):
                found.append(f"{rel.as_posix()}: def {node.name}")
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                numbers = isinstance(node.value, ast.Dict) and any(
                    isinstance(v, ast.Constant) and isinstance(v.value, int | float)
                    for v in node.value.values
                )
                if numbers and any(isinstance(t, ast.Name) and "TOLERANCE" in t.id for t in targets):
                    found.append(f"{rel.as_posix()}: {targets[0].id} = {{...}}")
    assert not found, "a second judge (declare Tolerances / CrossCheck instances instead):\n" + "\n".join(
        found
    )
    up = sorted(f"{m} -> {d}" for m, deps in _graph().items() if _unit(m) == "judge" for d in deps
                if d.split(".")[1] == "studies")  # fmt: skip
    assert not up, "judge/ imports a study:\n" + "\n".join(up)
