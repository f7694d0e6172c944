"""JSON document of ``dctcp network-sweep`` (the summary of a hops × cross-load dataset).

As for ``sweep``, the network sweep's document summarizes a dataset, so :func:`network_sweep_report` takes one
(``dw.network_sweep_report(dw.run_network_sweep(grid, store))`` or the NetCDF read back) and the CLI keeps the
output lock, ``--resume`` and the progress bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._json import to_jsonable

__all__ = ["network_sweep_report"]


def network_sweep_report(
    sweep: Any, *, dataset: str | Path | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """``dctcp network-sweep --json``'s document: per (hops, cross-flow load) point of the parking lot, the long
    group's share of C in the fluid network model ([DCTCP-A] (5)-(8) per link) and in the packet chain, and
    their agreement class; counts per class.

    Parameters
    ----------
    sweep : xarray.Dataset
        :func:`dwtcp_fluid.run_network_sweep`'s dataset (also one read back from its NetCDF).
    dataset : str or Path, optional
        Where the NetCDF was written (recorded, not read).
    seconds : float, optional
        Wall-clock seconds of the run.

    Returns
    -------
    dict
        ``dataset``, ``points``, ``seconds``, ``agreement`` (points per class), ``fluid_long_share`` and
        ``packet_long_share`` (hops × load), their axes ``hops`` and ``cross_load``, and ``point_agreement`` (the
        class of each point, hops × load).
    """
    from ..crosscheck.network_sweep import AGREEMENT

    agree = sweep["agreement"].values
    return to_jsonable(
        {
            "dataset": None if dataset is None else str(dataset),
            "points": int(agree.size),
            "seconds": seconds,
            "agreement": {name: int((agree == i).sum()) for i, name in enumerate(AGREEMENT)},
            "fluid_long_share": sweep["fluid_long_share"].values,
            "packet_long_share": sweep["packet_long_share"].values,
            "hops": sweep["hops"].values,
            "cross_load": sweep["load"].values,
            "point_agreement": [[AGREEMENT[int(a)] for a in row] for row in agree],
        }
    )
