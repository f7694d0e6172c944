"""The package's import structure: every import points down the layer order, and no files import each other in
a circle. Parses every ``import`` of ``dwtcp_fluid`` (including those inside functions and ``TYPE_CHECKING``
blocks); the package face (``dwtcp_fluid/__init__.py``, lazy re-exports) is the one file allowed to name
everything.

    layer 0  units, formulas, periods, results, _provenance, references, numtext, atomic  (leaves: no package
                                       import; atomic: the one way a file is written)
    layer 1  params
    layer 2  models, plots            (plots: drawing over data and result objects, nothing computed)
    layer 3  dde                      (the integration cores and both DDE solvers)
    layer 4  analysis, packet         (cycles, spectra, phase portraits; the packet core)
    layer 5  sweep                    (grids, per-point outcomes, the predictors of what DWTCP does)
    layer 6  symbolic, crosscheck     (symbolic: derivations, whose proofs may state numbers analysis and the
                                       sweep compute; crosscheck: the packet core judged against the fluid models)
    layer 7  experiments              (figure recipes and the catalog: build, plot, claims)
    layer 8  reports                  (each command's JSON document as a library function)
    layer 9  cli
    layer 10 __main__ (`python -m dwtcp_fluid`)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "dwtcp_fluid"
LAYERS = (
    {"units", "formulas", "periods", "results", "_provenance", "references", "numtext", "atomic"},
    {"params"},
    {"models", "plots"},
    {"dde"},
    {"analysis", "packet"},
    {"sweep"},
    {"symbolic", "crosscheck"},
    {"experiments"},
    {"reports"},
    {"cli"},
    {"__main__"},
)
LAYER = {unit: i for i, units in enumerate(LAYERS) for unit in units}


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
