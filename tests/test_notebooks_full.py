"""Every notebook in notebooks/ runs top to bottom in full mode (as a user's Jupyter runs it, without
``DWTCP_FLUID_QUICK``) after the default sweep has written its result the way ``make sweep`` does
(``dwtcp-fluid sweep --beta 0.001``, packet pass included): no cell writes an error and every cell that draws shows a
figure. The notebooks and the sweep's result are laid out as in a clone (``notebooks/`` next to ``results/``) in a
temporary directory, so the test neither reads nor writes the checkout's ``results/``.

Minutes to tens of minutes of CPU (the sweep, the full-mode tuners and packet campaigns): ``make test-all`` only. The
quick-mode runs and their numeric checks are tests/test_notebooks.py's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.test_notebooks import INLINE, NOTEBOOKS, _missing_figures, _text

pytestmark = pytest.mark.slow

#: Notebooks that read the sweep's result (``../results/...``): only they wait for the sweep.
READS_RESULTS = re.compile(r"\.\./results/")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A directory holding ``notebooks/`` (copies of the checkout's) and ``results/`` (empty until the sweep runs)."""
    root = tmp_path_factory.mktemp("clone")
    shutil.copytree(NOTEBOOKS[0].parent, root / "notebooks")
    (root / "results").mkdir()
    return root


@pytest.fixture(scope="module")
def sweep_result(clone) -> Path:
    """The default sweep's result, made as the Makefile's ``sweep`` target makes it (same command, same exported
    environment), written into ``clone/results``."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "MPLBACKEND": "Agg"}
    env.pop("DWTCP_FLUID_QUICK", None)
    exe = Path(sys.executable).with_name("dwtcp-fluid")
    r = subprocess.run(
        [str(exe), "--quiet", "sweep", "--beta", "0.001", "--out", str(clone / "results")],
        capture_output=True,
        text=True,
        env=env,
        cwd=clone,
        timeout=3600,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    path = clone / "results" / "sweep-beta0.001.nc"
    assert path.exists(), sorted(p.name for p in (clone / "results").iterdir())
    return path


@pytest.mark.parametrize("name", [p.name for p in NOTEBOOKS], ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_full_mode(name, clone, request, monkeypatch):
    path = clone / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    sources = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    if READS_RESULTS.search(sources):
        request.getfixturevalue("sweep_result")
    monkeypatch.delenv("DWTCP_FLUID_QUICK", raising=False)
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("MPLBACKEND", INLINE)
    NotebookClient(
        nb,
        timeout=3600,
        kernel_name="python3",
        allow_errors=True,  # every failing cell is reported, not only the first
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    nbformat.write(nb, path)  # the executed copy stays in the temporary clone, for reading a failure
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [
        f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
        for i, c in enumerate(code)
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, errors
    assert not _missing_figures(code), f"{name}: cells draw but show no figure: {_missing_figures(code)}"
    text = "".join(_text(c) for c in code)
    assert "quick mode" not in text and "quick = True" not in text, f"{name} ran in quick mode"
    # a solver's describe() reports every failed element ("1 of 12 failed: ..."); a notebook must not go on to
    # print numbers from a failed run
    failed = re.findall(r"\d+ of \d+ failed:.*", text)
    assert not failed, f"{name}: {failed}"
    if name == "dwtcp_sweep.ipynb":
        # the notebook read make sweep's result (not its in-memory fallback), packet pass included
        m = re.search(r"packet pass: \{'points': (\d+)", text)
        assert m and int(m.group(1)) == 250, "the notebook did not summarize make sweep's packet pass"
