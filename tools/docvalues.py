"""Numbers in the README, the documentation pages and notebook prose, generated from recorded data and checked.

A number that prose quotes from a computation is written between two markers::

    <!-- value sweep.packet.class_counts.steady ; d ; ±3 -->160<!-- /value -->

The opening marker holds three fields separated by ``;`` (not ``|``, which splits a Markdown table cell):

1. an expression over the recorded data files: ``sweep`` (``docs/data/sweep-beta0.001.json``, the document
   ``dwtcp-fluid sweep --beta 0.001 --json`` prints), ``bench`` (``docs/data/packet-benchmark.json``, written
   by ``benchmarks/packet.py --record``), ``gpu`` (``docs/data/gpu-benchmark.json``, collected from
   ``benchmarks/gpu.py --record`` runs on a GPU machine), ``ns3`` (``docs/data/ns3-fidelity.json``, written by
   ``benchmarks/ns3_fidelity.py --record``), ``multihop`` (``docs/data/multihop.json``, written by
   ``tools/record_proof_data.py``) and ``regime`` (``docs/data/regime-slices.json``, the packet pass and the
   predictors' agreement per (β, K, B) slice, written by ``dwtcp_fluid/sweep/regime_slices.py``) and ``claims``
   (``docs/data/dwtcp-claims.json``, the data and verdicts of the figure ``dwtcp_claims``, written by
   ``python -m dwtcp_fluid.studies.dwtcp.figures_claims``) and ``hpcc_htsim`` (``docs/data/htsim-hpcc.json``, HPCC in
   htsim and in the packet core, written by ``benchmarks/htsim_hpcc.py --json``) and ``sweep_dctcp``
   (``docs/data/sweep-dctcp.json``, the document ``dwtcp-fluid sweep --law dctcp --marking-threshold 10:100:10log
   --g 0.01,0.0625,0.2 --json`` prints). Keys are read
   with dots or, where a key is not a name, with brackets (``sweep.packet.agreement["scout-faithful"].agreement``,
   ``regime.slices[4].agreement.regime.agreement``); ``+ - * /``, numbers, ``min``, ``max``, ``round``
   and ``abs`` are allowed, nothing else;
2. a Python format specification for the rendered text (``d``, ``.1f``, ``,.0f``, ``.2e``);
3. the tolerance of the check: ``±X`` (in the quantity's unit) or ``X%`` (relative); a number shown with fewer
   digits than the tolerance resolves passes within half a unit of its last digit (its rounding).

``check`` fails when a shown number differs from its expression's value by more than its tolerance (or a marker
cannot be read); ``write`` renders every marked number from the data. Markdown and HTML comments do not show in
GitHub, MkDocs or Jupyter, so the reader sees only the number.

    .venv/bin/python tools/docvalues.py            # check (exit 1 and one line per disagreement)
    .venv/bin/python tools/docvalues.py --write    # rewrite the marked numbers from docs/data/
"""

from __future__ import annotations

import argparse
import ast
import json
import operator
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: The recorded data a marked number may read, by the name its expressions use.
SOURCES = {
    "sweep": ROOT / "docs" / "data" / "sweep-beta0.001.json",
    "bench": ROOT / "docs" / "data" / "packet-benchmark.json",
    "multihop": ROOT / "docs" / "data" / "multihop.json",
    "gpu": ROOT / "docs" / "data" / "gpu-benchmark.json",
    "ns3": ROOT / "docs" / "data" / "ns3-fidelity.json",
    "regime": ROOT / "docs" / "data" / "regime-slices.json",
    "claims": ROOT / "docs" / "data" / "dwtcp-claims.json",
    "hpcc_htsim": ROOT / "docs" / "data" / "htsim-hpcc.json",
    "sweep_dctcp": ROOT / "docs" / "data" / "sweep-dctcp.json",
}


def documents(root: Path = ROOT) -> list[Path]:
    """The README, the Markdown pages under ``docs/`` and the notebooks (markdown cells)."""
    docs = [root / "README.md"]
    docs += sorted(p for p in (root / "docs").rglob("*.md") if "notebooks" not in p.parts)
    docs += sorted((root / "notebooks").glob("*.ipynb"))
    return docs


MARK = re.compile(r"<!-- value (?P<spec>[^>]*?) -->(?P<text>.*?)<!-- /value -->", re.S)
_NUMBER = re.compile(r"^[+\-−]?\d[\d,  ]*(?:\.\d+)?(?:e[+\-]?\d+)?$", re.I)

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_FUNCS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "round": round, "abs": abs}


class MarkerError(Exception):
    """A marker that cannot be read or evaluated (named with its file and line)."""


def evaluate(expr: str, data: Mapping[str, Any]) -> float:
    """The value of a marker's expression over ``data`` (the sources by name); a small, closed grammar."""

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in data:
                raise MarkerError(f"unknown source {node.id!r} (known: {', '.join(sorted(data))})")
            return data[node.id]
        if isinstance(node, ast.Attribute):
            return _key(ev(node.value), node.attr)
        if isinstance(node, ast.Subscript):
            return _key(ev(node.value), ev(node.slice))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            return _FUNCS[node.func.id](*(ev(a) for a in node.args))
        raise MarkerError(f"not allowed in a value expression: {ast.unparse(node)!r}")

    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise MarkerError(f"cannot parse {expr.strip()!r}: {e.msg}") from None
    out = ev(tree)
    if isinstance(out, bool) or not isinstance(out, (int, float)):
        raise MarkerError(f"{expr.strip()!r} is {out!r}, not a number")
    return float(out)


def _key(obj: Any, key: Any) -> Any:
    if isinstance(obj, Mapping) and key in obj:
        return obj[key]
    if isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
        return obj[key]
    raise MarkerError(
        f"no key {key!r} (has: {', '.join(map(str, obj)) if isinstance(obj, Mapping) else obj!r})"
    )


@dataclass(frozen=True)
class Tolerance:
    """``±X`` in the quantity's unit or ``X%`` relative."""

    value: float
    relative: bool

    @classmethod
    def parse(cls, text: str) -> Tolerance:
        t = text.strip()
        try:
            if t.endswith("%"):
                return cls(float(t[:-1]) / 100, True)
            if t.startswith(("±", "+-")):
                return cls(float(t.lstrip("±+-")), False)
        except ValueError:
            pass
        raise MarkerError(f"tolerance {t!r}: give ±X (absolute) or X% (relative)")

    def holds(self, shown: float, true: float, resolution: float = 0.0) -> bool:
        """|shown − true| within the tolerance, or within the half unit of the last digit shown (``resolution``)."""
        bound = max(self.value * abs(true) if self.relative else self.value, resolution)
        return abs(shown - true) <= bound * (1 + 1e-12) + 1e-12

    def __str__(self) -> str:
        return f"{self.value * 100:g}%" if self.relative else f"±{self.value:g}"


@dataclass(frozen=True)
class Marker:
    expr: str
    fmt: str
    tol: Tolerance
    text: str
    line: int

    def render(self, data: Mapping[str, Any]) -> str:
        v = evaluate(self.expr, data)
        spec = self.fmt.strip()
        if spec.endswith("d"):
            return format(round(v), spec)
        return format(v, spec)


def parse_number(text: str) -> float:
    """The number a marker shows: thousands separators (``,``, thin or plain spaces) and ``−`` allowed."""
    t = text.strip()
    if not _NUMBER.match(t):
        raise MarkerError(f"{text!r} is not a number")
    return float(t.replace(",", "").replace(" ", "").replace(" ", "").replace("−", "-"))


def resolution(text: str) -> float:
    """Half a unit of the last digit a shown number has (``93.0``: 0.05, ``6,000``: 0.5, ``1.26e+07``: 5e4)."""
    t = text.strip().lower()
    mant, _, exp = t.partition("e")
    decimals = len(mant.split(".", 1)[1]) if "." in mant else 0
    return 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))


def markers(text: str) -> list[Marker]:
    """Every marked number of a text, with its line (1-based)."""
    out = []
    for m in MARK.finditer(text):
        parts = m.group("spec").split(";")
        line = text.count("\n", 0, m.start()) + 1
        if len(parts) != 3:
            raise MarkerError(
                f"line {line}: a marker needs 'EXPRESSION ; FORMAT ; TOLERANCE', got {m.group(0)!r}"
            )
        out.append(
            Marker(parts[0].strip(), parts[1].strip(), Tolerance.parse(parts[2]), m.group("text"), line)
        )
    return out


def check_text(text: str, data: Mapping[str, Any], where: str = "") -> list[str]:
    """One line per marked number that disagrees with its data beyond its tolerance, or cannot be read."""
    problems = []
    try:
        found = markers(text)
    except MarkerError as e:
        return [f"{where}{e}"]
    for mk in found:
        try:
            true = evaluate(mk.expr, data)
            shown = parse_number(mk.text)
        except MarkerError as e:
            problems.append(f"{where}line {mk.line}: {e}")
            continue
        if not mk.tol.holds(shown, true, resolution(mk.text)):
            problems.append(
                f"{where}line {mk.line}: shows {mk.text.strip()} where {mk.expr} = {true:.6g}"
                f" (tolerance {mk.tol}; `make doc-values` rewrites it)"
            )
    return problems


def write_text(text: str, data: Mapping[str, Any]) -> str:
    """``text`` with every marked number rendered from ``data``."""

    def sub(m: re.Match) -> str:
        (mk,) = markers(m.group(0))
        return m.group(0).replace(f"-->{m.group('text')}<!--", f"-->{mk.render(data)}<!--", 1)

    return MARK.sub(sub, text)


def _notebook_cells(path: Path) -> tuple[dict, list[tuple[int, str]]]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [(i, "".join(c["source"])) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]
    return nb, cells


def check_file(path: Path, data: Mapping[str, Any], root: Path = ROOT) -> list[str]:
    rel = path.relative_to(root) if path.is_relative_to(root) else path
    if path.suffix == ".ipynb":
        _, cells = _notebook_cells(path)
        return [p for i, src in cells for p in check_text(src, data, f"{rel} markdown cell {i}: ")]
    return check_text(path.read_text(encoding="utf-8"), data, f"{rel}: ")


def write_file(path: Path, data: Mapping[str, Any]) -> bool:
    """Render ``path``'s marked numbers; True when the file changed."""
    if path.suffix == ".ipynb":
        nb, cells = _notebook_cells(path)
        changed = False
        for i, src in cells:
            new = write_text(src, data)
            if new != src:
                nb["cells"][i]["source"] = new.splitlines(keepends=True)
                changed = True
        if changed:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return changed
    old = path.read_text(encoding="utf-8")
    new = write_text(old, data)
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old


def load(sources: Mapping[str, Path] = SOURCES) -> dict[str, Any]:
    """The recorded data by source name."""
    return {name: json.loads(p.read_text(encoding="utf-8")) for name, p in sources.items()}


def check(paths: Iterable[Path] | None = None, data: Mapping[str, Any] | None = None) -> list[str]:
    data = load() if data is None else data
    return [p for path in (documents() if paths is None else paths) for p in check_file(path, data)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite every marked number from docs/data/")
    a = ap.parse_args(argv)
    data = load()
    if a.write:
        for path in documents():
            if write_file(path, data):
                print(f"wrote {path.relative_to(ROOT)}")
    problems = check(data=data)
    for p in problems:
        print(p, file=sys.stderr)
    n = sum(len(markers(_all_text(p))) for p in documents())
    if not problems:
        print(f"{n} marked numbers agree with docs/data/")
    return 1 if problems else 0


def _all_text(path: Path) -> str:
    if path.suffix == ".ipynb":
        return "\n".join(src for _, src in _notebook_cells(path)[1])
    return path.read_text(encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
