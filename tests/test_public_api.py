"""The flat public API: ``import dwtcp_fluid as dw`` gives everything a notebook needs, loads lazily, switches
nothing on, and every public function documents each of its parameters (the python-control habit)."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import dwtcp_fluid as dw

#: Public functions exempt from the documentation check (none: every public function documents its parameters).
PENDING_DOCS: set[str] = set()


@pytest.mark.parametrize("name", dw.__all__)
def test_every_public_name_resolves(name):
    assert getattr(dw, name) is not None


def test_import_is_light_and_switches_nothing_on():
    code = (
        "import sys, dwtcp_fluid as dw\n"
        "heavy = [m for m in ('jax', 'sympy', 'scipy', 'xarray', 'matplotlib') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "dw.solve\n"  # loads the solvers ...
        "import jax\n"
        "assert not jax.config.jax_enable_x64, 'importing the library must not switch on 64-bit JAX'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        dw.no_such_thing  # noqa: B018


FUNCTIONS = sorted(n for n in dw.__all__ if n not in PENDING_DOCS and inspect.isfunction(getattr(dw, n)))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_functions_document_every_parameter(name):
    obj = getattr(dw, name)
    doc = inspect.getdoc(obj) or ""
    missing = [p for p in inspect.signature(obj).parameters if p not in doc]
    assert not missing, f"dw.{name} does not document {missing}"


def test_solve_rejects_an_unknown_keyword():
    with pytest.raises(TypeError, match="bogus"):
        dw.solve(dw.DctcpFluid(), dw.DCTCP_ANALYSIS, [1.0, 0.0, 0.0], (0.0, 1e-3), bogus=1)


def test_no_flat_name_is_shadowed_by_a_subpackage():
    """Importing ``dwtcp_fluid.x`` sets the attribute ``x`` of the package: a verb named like a subpackage
    would turn into the module once anything imported it."""
    subpackages = {p.name for p in Path(dw.__file__).parent.iterdir() if (p / "__init__.py").exists()}
    clash = {n for n in dw.__all__ if n in subpackages} - {"plots", "experiments"}
    assert not clash


def test_help_lists_every_public_name():
    """``help(dw)`` is the map of the face: every name of ``__all__`` appears in the package docstring."""
    missing = [n for n in dw.__all__ if not n.startswith("__") and f"``{n}``" not in (dw.__doc__ or "")]
    assert not missing, f"dwtcp_fluid's docstring does not list {missing}"
