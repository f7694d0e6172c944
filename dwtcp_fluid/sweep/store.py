"""Atomic dataset writing and provenance attributes."""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import xarray as xr

from .._provenance import provenance_attrs

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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        ds.to_netcdf(tmp, engine="h5netcdf")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    """The process umask (mkstemp creates files 0600; published files get the usual permissions)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
