"""Atomic dataset writing and provenance attributes."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import xarray as xr

from .._provenance import provenance_attrs
from ..atomic import write_bytes

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
    """Write ``ds`` to NetCDF (h5netcdf) at ``path`` through :func:`~dwtcp_fluid.atomic.write_bytes` (temporary
    name, fsync, rename).

    The file is encoded in memory first and written by Python: HDF5 never writes to the disk itself, so a disk that
    fills raises one :class:`~dwtcp_fluid.atomic.WriteError` (HDF5 failing inside its own writes printed a trace
    per open object and could crash the process). Nothing is left at ``path`` or under a temporary name on failure.
    """
    data = ds.to_netcdf(engine="h5netcdf")
    return write_bytes(path, bytes(data) if data is not None else b"")
