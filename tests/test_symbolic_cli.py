"""``dwtcp-fluid proofs [--check]`` and ``dwtcp-fluid dwtcp eigen --phase increase``."""

from __future__ import annotations

import json

import pytest

from dwtcp_fluid.cli import main
from dwtcp_fluid.symbolic.registry import DERIVATIONS, default_proofs_dir


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as e:  # main() exits when run as a script, returns the code otherwise
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_proofs_check_fails_on_an_edited_file_and_regenerates(capsys, tmp_path):
    name = "dctcp_fixed_points"
    edited = tmp_path / f"{name}.md"
    edited.write_bytes((default_proofs_dir() / f"{name}.md").read_bytes())
    edited.write_text(edited.read_text(encoding="utf-8").replace("2/w̄ − 1", "w̄2 − 1"), encoding="utf-8")
    code, _, err = run(capsys, "proofs", "--check", "--name", name, "--out", str(tmp_path))
    assert code == 1
    assert f"{name}.md: differs" in err and "Traceback" not in err
    code, out, _ = run(capsys, "proofs", "--name", name, "--out", str(tmp_path))
    assert code == 0 and "wrote 1 files" in out
    code, _, err = run(capsys, "proofs", "--check", "--name", name, "--out", str(tmp_path))
    assert code == 0, err


@pytest.mark.slow  # every derivation (make test runs `proofs --check` itself)
def test_proofs_check_writes_every_file(capsys, tmp_path):
    code, out, _ = run(capsys, "proofs", "--out", str(tmp_path))
    n_files = len(DERIVATIONS) + 2  # one file per derivation, the findings index and the equation index
    assert code == 0 and f"wrote {n_files} files" in out


def test_eigen_increase_phase_is_nilpotent(capsys):
    code, out, _ = run(capsys, "dwtcp", "eigen", "--phase", "increase", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["eigenvalues"] == [[0.0, 0.0], [0.0, 0.0]]
    assert d["classification"] == "nilpotent"
    J = d["jacobian"]
    assert J[0] == [0.0, 0.0] and J[1][1] == 0.0 and J[1][0] > 0  # [[0, 0], [N/τ, 0]]


@pytest.mark.slow  # every derivation (make test runs `proofs --check` itself)
def test_proofs_check_json(capsys):
    code, out, _ = run(capsys, "proofs", "--check", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["ok"] is True and d["problems"] == [] and d["steps"] > 100 and "README.md" in d["files"]
