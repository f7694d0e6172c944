"""tools/attack_counts.py judges a case run as a process of the CLI as tests/test_attack.py judges it run in this
process: clean for a refusal naming the flag, not clean for a run that is accepted, absent for a flag the CLI lacks."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests import test_attack

ROOT = Path(__file__).resolve().parents[1]
CLI = shutil.which("dwtcp-fluid", path=str(Path(sys.executable).parent))


def _tool():
    spec = importlib.util.spec_from_file_location("attack_counts", ROOT / "tools" / "attack_counts.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow  # a process of the CLI each: seconds
@pytest.mark.skipif(CLI is None, reason="the dwtcp-fluid script is not installed next to this interpreter")
@pytest.mark.parametrize(
    ("argv", "flag", "expected"),
    [
        ("dwtcp condition --beta -0", "--beta", "clean"),
        ("dwtcp condition --beta 0.5", "--beta", "not clean"),
        ("dwtcp condition --no-such-flag 1", "--no-such-flag", "absent"),
    ],
)
def test_the_tool_judges_as_the_attack(tmp_path, capsys, monkeypatch, argv, flag, expected):
    monkeypatch.chdir(tmp_path)
    in_process = test_attack.run_in_process(tmp_path, capsys, argv.split(), flag)
    outcome, problem = _tool().run_case(CLI, argv.split(), flag, timeout=test_attack.REFUSAL_SECONDS)
    assert outcome == expected, problem
    assert (in_process is None) == (outcome == "clean"), (in_process, problem)
    assert os.listdir(tmp_path) == []


def test_the_sample_is_seeded_and_keeps_every_named_case():
    tool = _tool()
    cases = test_attack.CASES + test_attack.NAMED_CASES
    a, b = tool.sample(cases, 3, 7), tool.sample(cases, 3, 7)
    assert a == b
    classes = {c[0] for c in cases}
    assert {c[0] for c in a} == classes
    assert all(sum(c[0] == k for c in a) <= 3 for k in classes - {"named"})
    assert [c for c in a if c[0] == "named"] == test_attack.NAMED_CASES


def test_compare_counts_fixed_already_and_absent(tmp_path, capsys):
    def write(name, outcomes):
        rows = [
            {"class": "nan", "argv": ["x", str(i)], "flag": "--x", "outcome": o}
            for i, o in enumerate(outcomes)
        ]
        (tmp_path / name).write_text(json.dumps({"cases": rows}))

    write("before.json", ["clean", "not clean", "absent", "not clean"])
    write("after.json", ["clean", "clean", "clean", "not clean"])
    _tool().compare(tmp_path / "before.json", tmp_path / "after.json")
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("nan "))
    # run, clean, fixed, already, absent then, other then, not in before
    assert [int(v) for v in row.split()[1:]] == [4, 3, 1, 1, 1, 0, 0]
