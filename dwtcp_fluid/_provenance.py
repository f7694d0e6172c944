"""The package version and the git revision of the checkout it runs from (for provenance attrs)."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

__all__ = ["__version__", "dependency_versions", "git_dirty", "git_revision", "provenance_attrs"]

#: The package version (pyproject.toml's); re-exported as ``dwtcp_fluid.__version__``.
__version__ = "0.2.0"


#: The dependencies whose versions can change a result (solvers, arrays, symbolic algebra, file formats).
DEPENDENCIES = ("numpy", "scipy", "sympy", "jax", "jaxlib", "xarray", "h5netcdf", "zarr", "matplotlib")


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
        return out.stdout
    except (OSError, subprocess.SubprocessError):
        return None


@functools.cache
def git_dirty() -> str:
    """ "true" when the package's checkout has uncommitted changes to tracked files, "false" when clean,
    "unknown" outside a git checkout (a result from a dirty tree is not reproducible from its revision alone)."""
    out = _git("status", "--porcelain", "--untracked-files=no", "--", ".")
    if out is None:
        return "unknown"
    return "true" if out.strip() else "false"


@functools.cache
def dependency_versions() -> str:
    """``"numpy 2.3.1; scipy 1.16.0; ..."``: the installed versions of :data:`DEPENDENCIES`."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for name in DEPENDENCIES:
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} absent")
    return "; ".join(parts)


def provenance_attrs() -> dict[str, str]:
    """The provenance every dataset carries: package version, git revision and dirty flag, dependency versions."""
    return {
        "package_version": __version__,
        "git_revision": git_revision(),
        "git_dirty": git_dirty(),
        "dependencies": dependency_versions(),
    }


@functools.cache
def git_revision() -> str:
    """``git rev-parse HEAD`` of the package's checkout, or "unknown" outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
