"""The sweep grid: β × BDP × N × k̄/k̄*, as xarray coordinates with units."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..params import LinkParams

__all__ = ["SweepGrid", "DEFAULT_FLOWS"]

DEFAULT_FLOWS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


#: Representable ranges of the axes (stated, checked before any work): outside them the model's rates overflow or
#: underflow (a BDP of 1e-300 packets, k̄ = 1e308·k̄*) and NumPy would only warn and return inf/NaN.
BDP_RANGE = (0.1, 1e8)  # packets
KBAR_RATIO_RANGE = (1e-6, 1e6)
FLOWS_MAX = 1e6
BETA_MIN = 1e-12


def _axis(
    name: str,
    values: Any,
    *,
    lo_open: float | None = 0.0,
    hi: float | None = None,
    integer: bool = False,
    lo: float | None = None,
):
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name}={values!r} is invalid: accepted a non-empty list of numbers")
    bad = ~np.isfinite(arr)
    if lo_open is not None:
        bad |= arr <= lo_open
    if hi is not None:
        bad |= arr > hi
    if lo is not None:
        bad |= arr < lo
    if integer:
        bad |= arr != np.round(arr)
    if bad.any():
        rng = (
            f"{lo:g} <= {name}"
            if lo is not None
            else f"{lo_open:g} < {name}"
            if lo_open is not None
            else name
        )
        rng += f" <= {hi:g}" if hi is not None else ""
        kind = "integers, " if integer else ""
        raise ValueError(f"{name}={arr[bad][0]:g} is out of range: accepted {kind}{rng}")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"{name}={values!r} is invalid: values must be distinct")
    return np.sort(arr)


@dataclass(frozen=True)
class SweepGrid:
    """Grid of the DWTCP condition sweep.

    Parameters
    ----------
    beta : sequence of float
        Decrease gains β (0 < β ≤ 1).
    bdp : sequence of float
        Bandwidth-delay products C·τ in packets (> 0). The link capacity is fixed (``capacity``); the base RTT is
        τ = BDP/C.
    flows : sequence of int
        Numbers of flows N ≥ 1.
    kbar_ratio : sequence of float
        k̄/k̄* with k̄* = 2·BDP/√β (> 0).
    capacity, packet_size
        The link: capacity as a rate string or bits/s, packet size in bytes.
    """

    beta: Any = (0.001,)
    bdp: Any = field(default_factory=lambda: np.geomspace(10.0, 10_000.0, 25))
    flows: Any = DEFAULT_FLOWS
    kbar_ratio: Any = field(default_factory=lambda: np.geomspace(0.01, 10.0, 25))
    capacity: Any = "10Gbps"
    packet_size: Any = 1500.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "beta", _axis("beta", self.beta, hi=1.0, lo=BETA_MIN))
        object.__setattr__(self, "bdp", _axis("bdp", self.bdp, lo=BDP_RANGE[0], hi=BDP_RANGE[1]))
        object.__setattr__(self, "flows", _axis("flows", self.flows, lo=1.0, hi=FLOWS_MAX, integer=True))
        lo, hi = KBAR_RATIO_RANGE
        object.__setattr__(self, "kbar_ratio", _axis("kbar_ratio", self.kbar_ratio, lo=lo, hi=hi))
        link = LinkParams(capacity=self.capacity, packet_size=self.packet_size)
        object.__setattr__(self, "capacity", link.capacity)
        object.__setattr__(self, "packet_size", link.packet_size)

    @classmethod
    def from_mapping(cls, axes: dict[str, Any]) -> SweepGrid:
        """A grid from ``{"beta": ..., "bdp": ..., ...}``; an unknown variable name is an error."""
        known = ("beta", "bdp", "flows", "kbar_ratio", "capacity", "packet_size")
        unknown = sorted(set(axes) - set(known))
        if unknown:
            raise ValueError(f"variable={unknown[0]!r} is not a sweep variable: accepted {list(known)}")
        return cls(**axes)

    @property
    def link(self) -> LinkParams:
        """The link at RTT 1 s (only C and L are fixed; τ = BDP/C varies along the grid)."""
        return LinkParams(capacity=self.capacity, rtt=1.0, packet_size=self.packet_size)

    @property
    def C(self) -> float:
        """Capacity in packets/s."""
        return self.link.C

    #: How a resume report names the leading axes.
    labels = {"beta": "β", "bdp": "BDP"}

    def dims(self) -> dict[str, int]:
        """The engine's grid protocol (:class:`~.engine.Grid`): every axis and its size, in dataset order."""
        return {"beta": self.beta.size, "bdp": self.bdp.size, "flows": self.flows.size,
                "kbar_ratio": self.kbar_ratio.size}  # fmt: skip

    def lead(self) -> tuple[tuple[str, np.ndarray], tuple[str, np.ndarray]]:
        """The two leading axes (the chunks' axes) as ``(name, values)``: β and BDP."""
        return ("beta", self.beta), ("bdp", self.bdp)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.beta.size, self.bdp.size, self.flows.size, self.kbar_ratio.size)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def coords(self) -> dict[str, tuple]:
        """xarray coordinates with units."""
        return {
            "beta": ("beta", self.beta, {"long_name": "DWTCP decrease gain β", "units": "1"}),
            "bdp": ("bdp", self.bdp, {"long_name": "bandwidth-delay product C·τ", "units": "packets"}),
            "flows": ("flows", self.flows.astype(np.int64), {"long_name": "number of flows N", "units": "1"}),
            "kbar_ratio": ("kbar_ratio", self.kbar_ratio, {"long_name": "k̄/k̄*, k̄* = 2·BDP/√β", "units": "1"}),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "beta": self.beta.tolist(),
            "bdp": self.bdp.tolist(),
            "flows": self.flows.astype(int).tolist(),
            "kbar_ratio": self.kbar_ratio.tolist(),
            "capacity_bps": float(self.capacity),
            "packet_size_bytes": float(self.packet_size),
        }
