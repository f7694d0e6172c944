"""Every notebook in notebooks/ runs top to bottom in quick mode (DWTCP_FLUID_QUICK=1), and what it prints and
draws is checked: no cell writes an error, most cells show something, and the numbers a notebook reports agree with
an independent source that the notebook itself computes (a long simulation against the cycle finder, the classes
of the frozen Jacobian against the closed-form threshold (14), the sweep's agreement rate).

The notebooks use only the public API (``import dwtcp_fluid as dw`` or ``from dwtcp_fluid import ...``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def _text(cell: dict) -> str:
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append(o.get("text", ""))
        elif "data" in o and "text/plain" in o["data"]:
            out.append(o["data"]["text/plain"])
    return "".join(out)


#: A code cell draws when it calls a plotting function or method; such a cell must show a PNG.
DRAWS = re.compile(r"\.plot\(|\bplot_\w+\(|plt\.(?:subplots|figure|plot)\(|\.plot\.\w+\(|\.plot\(\)")
#: The backend Jupyter uses: the test runs the kernel with it, not with a headless Agg that shows nothing.
INLINE = "module://matplotlib_inline.backend_inline"


def _missing_figures(code: list) -> list[str]:
    """Cells that draw (or print a bare ``<Figure size ...>``) but produced no ``image/png`` output."""
    bad = []
    for i, c in enumerate(code):
        outs = c.get("outputs", [])
        has_png = any("image/png" in o.get("data", {}) for o in outs)
        bare = any(str(o.get("data", {}).get("text/plain", "")).startswith("<Figure size") for o in outs)
        if (DRAWS.search(c.source) or bare) and not has_png:
            bad.append(f"code cell {i}: {c.source.splitlines()[0][:60]!r}")
    return bad


def _check_limit_cycles(text: str) -> None:
    m = re.search(r"direct-simulation period: ([\d.e+-]+)\s+finder: ([\d.e+-]+)", text)
    assert m, "the notebook no longer prints the two periods"
    direct, finder = float(m.group(1)), float(m.group(2))
    assert abs(direct - finder) <= 1e-6 * finder, (direct, finder)


def _check_condition(text: str) -> None:
    rows = re.findall(r"kbar/kbar\* = +([\d.]+): eigenvalues .* -> (\w+), ([\w ]+)", text)
    assert len(rows) == 7, rows
    for ratio, cls, stab in rows:
        r = float(ratio)
        expected = "spiral" if r < 1 else ("node" if r > 1 else "degenerate")
        assert cls == expected, (ratio, cls)  # (14): complex eigenvalues exactly below k̄*
        assert stab == "asymptotically stable", (ratio, stab)  # and stable on both sides


def _check_sweep(text: str) -> None:
    m = re.search(r"'agreement_rate': ([\d.]+)", text)
    assert m and float(m.group(1)) == 1.0, "condition ⇔ spiral must hold at every scored point"
    # the quick mode runs a packet pass (the summary of a dataset with one failed before: SweepSummary had no
    # field for it), at the 2 sampled points, each in one packet class
    m = re.search(r"packet pass: \{'points': (\d+), 'scored': (\d+), 'class_counts': (\{[^}]*\})", text)
    assert m, "the notebook no longer summarizes its packet pass"
    counts = ast.literal_eval(m.group(3))
    assert int(m.group(1)) == 2 and sum(counts.values()) == 2 and int(m.group(2)) <= 2, m.group(0)


def _check_findings(text: str) -> None:
    assert "findings" in text, "the findings notebook no longer reaches its findings table"


def _check_timely(text: str) -> None:
    rows = dict(re.findall(r"(timely(?:-patched)?) +fast/slow group: packet ([\d.]+), fluid [\d.]+", text))
    fluid = dict(re.findall(r"(timely(?:-patched)?) +fast/slow group: packet [\d.]+, fluid ([\d.]+)", text))
    assert set(rows) == {"timely", "timely-patched"}, rows
    # TIMELY keeps the start split in both cores; the patch closes most of it (proofs/timely.md)
    assert float(rows["timely"]) >= 2.0 and float(fluid["timely"]) >= 2.0, (rows, fluid)
    assert float(rows["timely-patched"]) < 0.5 * float(rows["timely"]), rows
    assert float(fluid["timely-patched"]) < 0.5 * float(fluid["timely"]), fluid


def _check_tuning(text: str) -> None:
    rows = re.findall(r"d(\w+)/dg +implicit +([-\d.e+]+) +central difference +([-\d.e+]+)", text)
    assert len(rows) == 4, rows
    for name, imp, fd in rows:  # implicit differentiation against the notebook's own central difference
        assert abs(float(imp) - float(fd)) <= 1e-5 * abs(float(imp)) + 1e-12, (name, imp, fd)


def _check_cubic(text: str) -> None:
    m = re.search(r"cubic period: hybrid ([\d.]+) s, closed form K ([\d.]+) s", text)
    assert m and abs(float(m.group(1)) / float(m.group(2)) - 1) <= 0.01, (
        "the hybrid cycle must be K (proofs/cubic.md)"
    )
    assert "star-2 agree: True" in text, "packet core and hybrid model must agree at the star"


def _check_dcqcn(text: str) -> None:
    m = re.search(r"fixed point: q\* = ([\d.]+) packets", text)
    assert m, "the notebook no longer prints the fixed point"
    q_star = float(m.group(1))
    assert "sign changes of (D3)'s residual over the ramp: 1" in text
    assert re.search(r"tau\* =  50us: rightmost root -[\d.]+ .* -> stable", text), "50 µs must be stable"
    assert re.search(r"tau\* = 100us: rightmost root \+[\d.]+ .* -> unstable", text), (
        "100 µs must be unstable"
    )
    # the stable fluid run settles at the fixed point the root finder gives (an independent method)
    m = re.search(r"tau\* =  50us: fluid queue mean ([\d.]+), amplitude ([\d.]+)", text)
    assert m and abs(float(m.group(1)) - q_star) <= 0.05 * q_star and float(m.group(2)) <= 0.1 * q_star, m
    m = re.search(r"packet queue mean ([\d.]+) packets", text)
    assert m and abs(float(m.group(1)) - q_star) <= 0.5 * q_star, m


def _check_hpcc(text: str) -> None:
    rows = re.findall(
        r"(N=\d+), W_AI=1: kappa = ([\d.]+), closed form q\* = ([\d.]+) packets, utilization ([\d.]+)", text
    )
    assert len(rows) == 2, rows
    for name, _kappa, q_star, util_star in rows:
        q_star = float(q_star)
        m = re.search(name + r", W_AI=1: fluid queue mean ([\d.]+) packets, utilization ([\d.]+)", text)
        p = re.search(
            name + r", W_AI=1: packet queue mean ([\d.]+) packets, utilization ([\d.]+) \(C\*d = ([\d.]+)",
            text,
        )
        assert m and p, name
        cd = float(p.group(3))
        # the fluid run settles on the closed form of proofs/hpcc.md (the cross-check's 0.01·C·d), the packet core
        # within the cross-check's 0.07·C·d of it and its utilization within 0.03
        assert abs(float(m.group(1)) - q_star) <= 0.01 * cd, (name, m.group(0), q_star)
        assert abs(float(m.group(2)) - float(util_star)) <= 0.01, (name, m.group(0), util_star)
        assert abs(float(p.group(1)) - q_star) <= 0.07 * cd, (name, p.group(0), q_star)
        assert abs(float(p.group(2)) - float(util_star)) <= 0.03, (name, p.group(0), util_star)
    assert float(rows[0][2]) == 0.0 and float(rows[1][2]) > 0.0, "the settings straddle kappa = 1 - eta"


def _check_swift(text: str) -> None:
    m = re.search(r"fixed point: w\* = ([\d.]+) packets per flow, q\* = ([\d.]+) packets", text)
    assert m, "the notebook no longer prints the fixed point"
    w_star = float(m.group(1))
    row = r"beta = {}: fluid window mean ([\d.]+), queue mean ([\d.]+), min ([\d.]+), max [\d.]+ packets, utilization ([\d.]+)"
    stable, cycle = re.search(row.format("0.8"), text), re.search(row.format("3.0"), text)
    assert stable and cycle
    # the fluid window settles around the closed-form fair share w* (the root of N·w = C·(T_0 + fs(w)),
    # proofs/swift.md; within 10 %); at beta = 0.8 the queue never empties and the link stays full,
    # beyond the critical beta of proofs/swift.md (beta = 3) the cycle empties the queue and the link loses at least
    # 1 % (the cross-check's oscillating class)
    assert abs(float(stable.group(1)) - w_star) <= 0.1 * w_star, stable.group(0)
    assert float(stable.group(3)) > 0.0 and float(stable.group(4)) >= 0.999, stable.group(0)
    assert float(cycle.group(3)) <= 0.01 and float(cycle.group(4)) <= 0.99, cycle.group(0)
    # the packet core's queue agrees with the fluid run's (the cross-check's queue tolerance: 15 % or 3 packets)
    p = re.search(r"packet queue mean ([\d.]+) packets, fluid ([\d.]+)", text)
    assert p and abs(float(p.group(1)) - float(p.group(2))) <= max(0.15 * float(p.group(2)), 3.0), p


def _check_multihop(text: str) -> None:
    pk = re.search(
        r"packet chain: long flow marked ([\d.]+), independent hops ([\d.]+), long share ([\d.]+)", text
    )
    row = r"fluid, {} displaced: long flow marked ([\d.]+), independent hops ([\d.]+), long share ([\d.]+), closest two hops apart by ([\d.]+) packets"
    first, every = re.search(row.format("first hop"), text), re.search(row.format("every hop"), text)
    assert pk and first and every, "the notebook no longer prints the marked fractions at k = 3"
    # what the prose says: the packet chain's long flow is marked about as often as independent hops would mark it
    # (within 25 %, a short quick-mode run included), the fluid DDE's far less often (below 80 %) from either start;
    # the default start leaves two hops in lockstep, every hop displaced none; the fluid share is the higher
    assert abs(float(pk.group(1)) / float(pk.group(2)) - 1) <= 0.25, pk.group(0)
    for m in (first, every):
        assert float(m.group(1)) < 0.8 * float(m.group(2)) and float(m.group(3)) > float(pk.group(3)), (
            m.group(0)
        )
    assert float(first.group(4)) == 0.0 and float(every.group(4)) > 0.0, (first.group(0), every.group(0))


CHECKS = {
    "multihop": _check_multihop,
    "dcqcn": _check_dcqcn,
    "hpcc": _check_hpcc,
    "swift": _check_swift,
    "d2tcp_cubic_wan": _check_cubic,
    "dwtcp_findings": _check_findings,
    "timely": _check_timely,
    "dctcp_limit_cycles": _check_limit_cycles,
    "dwtcp_condition": _check_condition,
    "dwtcp_sweep": _check_sweep,
    "tuning": _check_tuning,
}


#: Notebooks whose quick run takes seconds: executed by ``make test``. The others run tuners, packet campaigns and
#: figure recipes (half a minute to two minutes each in quick mode) and are executed by ``make test-all``; their
#: prose numbers are checked on every run by tests/test_documents.py, their sources by the test below.
FAST = {"dwtcp_condition", "packet_vs_fluid"}
RUNS = [pytest.param(p, id=p.stem, marks=() if p.stem in FAST else pytest.mark.slow) for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stripped_and_uses_the_public_api(path):
    nb = nbformat.read(path, as_version=4)
    sources = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: outputs must be stripped in git"
    deep = re.findall(r"^\s*(?:from|import) dwtcp_fluid\.\S+", sources, re.M)
    assert not deep, f"{path.name} imports below the public API: {deep}"
    compile(sources.replace("%matplotlib inline", ""), path.name, "exec")  # every code cell parses


def test_the_fast_notebooks_exist():
    assert FAST <= {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("path", RUNS)
def test_notebook_runs_and_its_outputs_hold(path, monkeypatch):
    monkeypatch.setenv("DWTCP_FLUID_QUICK", "1")
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("MPLBACKEND", INLINE)  # what a user's Jupyter uses; a library must not override it
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    assert sum(bool(c.get("outputs")) for c in code) >= len(code) // 2, "most cells should show something"
    assert not _missing_figures(code), f"{path.name}: cells draw but show no figure: {_missing_figures(code)}"
    if path.stem in CHECKS:
        CHECKS[path.stem]("".join(_text(c) for c in code))
