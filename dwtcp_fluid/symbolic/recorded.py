"""Recorded data a derivation states: the JSON documents under ``docs/data/`` of the source checkout.

A number that takes minutes to compute (a sweep's packet pass, a 0.2 s reference-solver run) is not recomputed by
``dwtcp-fluid proofs --check``: a command records it once with its settings (``dwtcp-fluid sweep --json``,
``tools/record_proof_data.py``), the derivation reads it from here and renders it with its tolerance, and a slow
test re-runs the computation and compares it with the file.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

__all__ = ["recorded", "recorded_path", "checkout_root"]


def checkout_root() -> Path:
    """The source checkout when the package runs from one (editable install), else the working directory."""
    here = Path(__file__).resolve().parents[2]
    if (here / "proofs").is_dir() and (here / "pyproject.toml").is_file():
        return here
    return Path.cwd()


def recorded_path(name: str) -> Path:
    """``docs/data/<name>.json`` of :func:`checkout_root`."""
    return checkout_root() / "docs" / "data" / f"{name}.json"


@functools.cache
def recorded(name: str) -> dict[str, Any]:
    """The recorded document ``docs/data/<name>.json`` (``sweep-beta0.001``, ``multihop``)."""
    path = recorded_path(name)
    if not path.is_file():
        raise FileNotFoundError(f"recorded data {path} is missing: run the command its README entry names")
    return json.loads(path.read_text(encoding="utf-8"))
