"""The package version and the git revision of the checkout it runs from (for provenance attrs)."""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

__all__ = [
    "__version__",
    "code_label",
    "dependency_versions",
    "git_dirty",
    "git_revision",
    "provenance_attrs",
    "source_digest",
    "tree_digest",
]

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


def tree_digest(root: Path, suffixes: tuple[str, ...] = (".py",)) -> str:
    """SHA-256 (16 hex digits) of the files under ``root`` whose names end in ``suffixes``: their paths relative to
    ``root`` and their bytes, in sorted order."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.suffix in suffixes and p.is_file() and "__pycache__" not in p.parts:
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


@functools.cache
def source_digest() -> str:
    """:func:`tree_digest` of the package's sources and data files: which code computed a result, whether or not it
    runs from a git checkout and whether or not its changes are committed."""
    return tree_digest(Path(__file__).resolve().parent, (".py", ".csv"))


def code_label(attrs: dict) -> str:
    """The code a dataset's provenance ``attrs`` name, in words: ``git revision 0123456789ab (uncommitted changes),
    package 0.2.0, sources 1c3bb2a42db29282``; what an attribute does not record is left out."""
    parts = []
    rev = str(attrs.get("git_revision", "unknown"))
    if rev != "unknown":
        parts.append(
            f"git revision {rev[:12]}"
            + (" (uncommitted changes)" if attrs.get("git_dirty") == "true" else "")
        )
    if "package_version" in attrs:
        parts.append(f"package {attrs['package_version']}")
    parts.append(f"sources {attrs['source_digest']}" if "source_digest" in attrs else "sources not recorded")
    return ", ".join(parts)


def provenance_attrs() -> dict[str, str]:
    """The provenance every dataset carries: package version, git revision and dirty flag, the digest of the
    package's sources (:func:`source_digest`), dependency versions."""
    return {
        "package_version": __version__,
        "git_revision": git_revision(),
        "git_dirty": git_dirty(),
        "source_digest": source_digest(),
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
