"""A user's law, model, check and figure register without editing the package: a distribution declaring an entry
point in ``dwtcp_fluid.plugins`` (dwtcp_fluid.registry) is imported before any registry is first read, the command
line lists its law, and a plugin that fails to import is a warning naming it, never a crash."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = textwrap.dedent(
    """
    from dataclasses import dataclass
    from typing import ClassVar

    from dwtcp_fluid.experiments.figure import Figure, register
    from dwtcp_fluid.packet.laws import register_law
    from dwtcp_fluid.packet.laws.reno import Reno


    @register_law
    @dataclass(frozen=True)
    class MyReno(Reno):
        name: ClassVar[str] = "my-reno"


    register(Figure(name="my_figure", title="mine", build=lambda quick: {}, plot=lambda data: None))
    """
)


def _dist(root: Path, module: str, source: str) -> None:
    (root / f"{module}.py").write_text(source)
    info = root / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[dwtcp_fluid.plugins]\n{module} = {module}\n")


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root), "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=120)


def test_a_plugin_registers_a_law_and_a_figure(tmp_path):
    _dist(tmp_path, "my_cc_plugin", PLUGIN)
    code = (
        "import sys\n"
        "from dwtcp_fluid.packet.laws import law_names, get_law\n"
        "from dwtcp_fluid.experiments.figure import registered\n"
        "from dwtcp_fluid.registry import loaded_plugins\n"
        "print(law_names()[-1], type(get_law('my-reno')).__name__, 'my_figure' in registered(), loaded_plugins())\n"
        "from dwtcp_fluid.cli import main\n"  # the command line's law choices come from the same registry
        "print('exit', main(['packet', 'run', '--law', 'nonesuch']))\n"
    )
    r = _run(tmp_path, "-c", code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:3] == ["my-reno", "MyReno", "True"]
    assert "'my_cc_plugin': 'ok'" in r.stdout
    assert "exit 2" in r.stdout and "my-reno" in r.stderr


def test_a_broken_plugin_is_a_warning_naming_it(tmp_path):
    _dist(tmp_path, "broken_cc_plugin", "raise RuntimeError('no such thing')\n")
    r = _run(tmp_path, "-c", "from dwtcp_fluid.packet.laws import law_names; print(len(law_names()) > 5)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
    assert "broken_cc_plugin" in r.stderr and "no such thing" in r.stderr


def test_a_model_key_registers_once():
    import pytest

    from dwtcp_fluid.models.registry import MODELS, register_model

    case = next(iter(MODELS.values()))
    with pytest.raises(ValueError, match="already registered"):
        register_model(case)
