"""How the package is housed, in numbers: run ``python tools/house_counts.py [REPO] [--json]``.

For the repository at REPO (default: this one) it counts, over the ``.py`` files of ``dwtcp_fluid/``:

- per study, the files whose path names it (``dctcp``, ``dwtcp``, ``timely``, ``d2tcp``, ``cubic``; ``networks``:
  ``network``, ``multihop``, ``leafspine``), the folders they sit in, and those outside its model files, its law
  files and its study folder;
- the module file names used more than once (``__init__.py`` aside) and how often;
- the top-level definitions of the judge's vocabulary: ``compare_*`` functions, verdict functions (``verdict``,
  ``score``, ``classify_*``, ``within_tolerance``, ``tolerance_verdict``), ``*TOLERANCE*`` tables and ``*Setting``
  classes;
- the import arrows between package modules, between layers' units, and from ``packet/`` to the fluid side
  (``models``, ``dde``, ``analysis``), with the import graph of REPO's own ``tests/test_layers.py``.

To compare two commits: ``git archive C | tar -x -C /tmp/at_C`` and run this file on both trees.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

STUDIES = {
    "dctcp": ("dctcp",),
    "dwtcp": ("dwtcp",),
    "timely": ("timely",),
    "d2tcp": ("d2tcp",),
    "cubic": ("cubic",),
    "networks": ("network", "multihop", "leafspine"),
}
VERDICTS = {"verdict", "score", "within_tolerance", "tolerance_verdict"}
FLUID = {"models", "dde", "analysis"}


def _layers(repo: Path):
    spec = importlib.util.spec_from_file_location("_house_layers", repo / "tests" / "test_layers.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    mod.PKG = repo / "dwtcp_fluid"
    return mod


def counts(repo: Path) -> dict:
    pkg = repo / "dwtcp_fluid"
    files = sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*.py"))
    study = {}
    for name, keys in STUDIES.items():
        mine = [f for f in files if any(k in f for k in keys)]
        home = ("models/", "packet/laws/", f"studies/{name}/")
        study[name] = {
            "files": len(mine),
            "folders": len({f.rsplit("/", 1)[0] if "/" in f else "." for f in mine}),
            "outside_model_law_study": sorted(f for f in mine if not f.startswith(home)),
        }
    names = Counter(f.rsplit("/", 1)[-1] for f in files if not f.endswith("__init__.py"))
    reused = {n: c for n, c in names.items() if c > 1}
    outside = Counter(
        f.rsplit("/", 1)[-1] for f in files if not f.endswith("__init__.py") and not f.startswith("studies/")
    )
    reused_outside = {n: c for n, c in outside.items() if c > 1}
    judge = defaultdict(int)
    for f in files:
        for node in ast.parse((pkg / f).read_text()).body:
            if isinstance(node, ast.FunctionDef):
                if node.name.startswith("compare_"):
                    judge["compare_*"] += 1
                elif node.name in VERDICTS or node.name.startswith("classify_"):
                    judge["verdict functions"] += 1
            elif isinstance(node, ast.ClassDef) and node.name.endswith("Setting"):
                judge["Setting classes"] += 1
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and "TOLERANCE" in t.id for t in targets):
                    judge["*TOLERANCE* tables"] += 1
    layers = _layers(repo)
    graph = layers._graph()
    arrows = sum(len(d) for d in graph.values())
    units = {(layers._unit(m), layers._unit(d)) for m, ds in graph.items() for d in ds}
    packet_fluid = sorted(
        f"{m} -> {d}"
        for m, ds in graph.items()
        if m.split(".")[1:2] == ["packet"]
        for d in ds
        if d.split(".")[1:2] and d.split(".")[1] in FLUID
    )
    return {
        "files": len(files),
        "lines": sum(len((pkg / f).read_text().splitlines()) for f in files),
        "studies": study,
        "reused_names": {
            "names": len(reused),
            "uses": sum(reused.values()),
            "top": dict(names.most_common(8)),
        },
        "reused_names_outside_studies": {"names": len(reused_outside), "uses": sum(reused_outside.values())},
        "judge_definitions": dict(judge),
        "import_arrows": {"modules": arrows, "unit_pairs": len({u for u in units if u[0] != u[1]})},
        "packet_to_fluid": packet_fluid,
    }


def main(argv: list[str]) -> int:
    repo = Path(next((a for a in argv if not a.startswith("--")), ".")).resolve()
    out = counts(repo)
    if "--json" in argv:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{repo}: {out['files']} files, {out['lines']} lines")
    for name, s in out["studies"].items():
        elsewhere = s["outside_model_law_study"]
        print(
            f"  study {name:9s} {s['files']:3d} files in {s['folders']:2d} folders;"
            f" {len(elsewhere):2d} outside models/, packet/laws/, studies/{name}/"
        )
    r = out["reused_names"]
    print(f"  module names used more than once: {r['names']} names, {r['uses']} files")
    r = out["reused_names_outside_studies"]
    print(
        f"  ... outside studies/ (where a reused name is a clash, not a role): {r['names']} names, {r['uses']} files"
    )
    print(
        "  judge definitions: " + ", ".join(f"{k} {v}" for k, v in sorted(out["judge_definitions"].items()))
    )
    a = out["import_arrows"]
    print(f"  import arrows: {a['modules']} between modules, {a['unit_pairs']} between units")
    print(f"  packet/ -> fluid side: {len(out['packet_to_fluid'])} arrows")
    for line in out["packet_to_fluid"]:
        print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
