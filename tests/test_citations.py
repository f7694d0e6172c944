"""Citations are tags from REFERENCES.md, never source-file names, and every file the project cites is in it."""

from __future__ import annotations

import re
from pathlib import Path

from dwtcp_fluid.references import REFERENCES, references_attr, tags_in

REPO = Path(__file__).resolve().parents[1]

#: What users read: the package, notebooks, README, proofs, docs, figure sources (SVG text) and the bibliography.
USER_FACING = [
    "dwtcp_fluid",
    "notebooks",
    "proofs",
    "docs",
    "figures",
    "README.md",
    "REFERENCES.md",
    "CHANGELOG.md",
]
SUFFIXES = {".py", ".ipynb", ".md", ".svg", ".json", ".txt", ".cff", ".toml", ".yml"}
#: A seed file name (``000_eb5ec3ba60d5c338.txt``) or its hash.
SEED_NAME = re.compile(r"\b00[0-9]_[0-9a-f]{16}\b|\b[0-9a-f]{16}\.txt\b")


def _files() -> list[Path]:
    out = []
    for name in USER_FACING:
        p = REPO / name
        out += [p] if p.is_file() else [f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file()]
    return out


def test_no_seed_file_names_in_user_facing_text():
    hits = [
        f"{f.relative_to(REPO)}: {m.group(0)}"
        for f in _files()
        for m in SEED_NAME.finditer(f.read_text("utf-8", "replace"))
    ]
    assert not hits, hits[:10]


def test_equation_notes_are_in_the_repository():
    """Every mention of the equation notes points at docs/equations.md, which exists; nothing cites ../shared."""
    assert (REPO / "docs" / "equations.md").is_file()
    bad = []
    for f in _files():
        text = f.read_text("utf-8", "replace")
        bad += [f"{f.relative_to(REPO)}: ../shared" for _ in re.finditer(r"\.\./shared/", text)]
        bad += [
            f"{f.relative_to(REPO)}: {m.group(0)}" for m in re.finditer(r"(?<![\w/(])equations\.md", text)
        ]
    assert not bad, bad[:10]


def test_every_bracketed_tag_is_a_known_reference():
    """``[XYZ]`` in docstrings and docs is one of REFERENCES (typos such as [DCTCPA] fail)."""
    known_non_refs = {"N", "K", "T", "W", "L", "C", "P", "Q", "R", "X", "Y"}  # indexing like x[N] in code
    tag = re.compile(r"\[((?:DCTCP|DWTCP|D2TCP|TIMELY|PROXY|CUBIC)[A-Z0-9-]*)\]")
    unknown = set()
    for f in _files():
        unknown |= {t for t in tag.findall(f.read_text("utf-8", "replace")) if t not in REFERENCES}
    assert not (unknown - known_non_refs), sorted(unknown)


def test_references_attr_expands_tags():
    assert tags_in("[DCTCP-A] eqs. (5)-(8); see [DWTCP] and [DCTCP-A] again") == ["DCTCP-A", "DWTCP"]
    attr = references_attr("[DWTCP] eq. (3)")
    assert attr.startswith("[DWTCP] Scout service")
    assert references_attr("no citation") == ""


def test_simulation_dataset_cites_its_model():
    """The NetCDF attributes of a simulation name the paper of its model by tag and full reference."""
    import dwtcp_fluid as dw

    sol = dw.solve(dw.DctcpFluid(), dw.DCTCP_ANALYSIS, [1.0, 0.0, 0.0], (0.0, 1e-3))
    refs = sol.to_dataset().attrs["references"]
    assert refs.startswith("[DCTCP-A] M. Alizadeh") and "SIGMETRICS 2011" in refs


def test_provenance_has_dirty_flag_and_dependency_versions():
    import numpy as np
    import scipy

    import dwtcp_fluid as dw
    from dwtcp_fluid._provenance import git_dirty

    sol = dw.solve(dw.DctcpFluid(), dw.DCTCP_ANALYSIS, [1.0, 0.0, 0.0], (0.0, 1e-3))
    attrs = sol.to_dataset().attrs
    assert attrs["git_dirty"] == git_dirty() and attrs["git_dirty"] in ("true", "false", "unknown")
    deps = dict(p.split(" ", 1) for p in attrs["dependencies"].split("; "))
    assert deps["numpy"] == np.__version__ and deps["scipy"] == scipy.__version__
