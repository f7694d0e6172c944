"""Atomic dataset writing and provenance attributes."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import xarray as xr

from .._provenance import provenance_attrs
from ..atomic import atomic_path

__all__ = ["write_netcdf_atomic", "provenance"]


def provenance(parameters: dict[str, Any], solver: str, tolerance: str = "") -> dict[str, str]:
    """Provenance attrs every dataset carries (product.md, "Data contract")."""
    return {
        "package": "dwtcp_fluid",
        **provenance_attrs(),
        "parameters": json.dumps(parameters, sort_keys=True),
        "solver": solver,
        "tolerance": tolerance,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }


def write_netcdf_atomic(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` to NetCDF (h5netcdf) under a temporary name in the same directory, then rename.

    Nothing is left at ``path`` (or under the temporary name) if writing fails.
    """
    path = Path(path)
    with atomic_path(path) as tmp:
        ds.to_netcdf(tmp, engine="h5netcdf")
    return path
