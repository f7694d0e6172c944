"""notebooks/dwtcp_findings.ipynb runs top to bottom and reaches the findings table."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NB = Path(__file__).resolve().parents[1] / "notebooks" / "dwtcp_findings.ipynb"


def test_findings_notebook_runs(monkeypatch):
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NB, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "outputs must be stripped"
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NB.parent)}}
    ).execute()
    last = nb.cells[-1].outputs
    text = "".join(o.get("text", "") for o in last if o.get("output_type") == "stream")
    assert "findings" in text
