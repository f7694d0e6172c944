"""A packet run's summary in the package's result protocol (:mod:`dwtcp_fluid.results`).

:func:`~.summary.summarize` (and so :func:`~dwtcp_fluid.packet.run`, :func:`~dwtcp_fluid.packet.run_many`) returns a
:class:`PacketResult`: the summary dict every caller reads by key, which is also a :class:`~dwtcp_fluid.results.Result`
— ``status`` (one element: :attr:`~dwtcp_fluid.results.Status.OK`, or ``NON_FINITE`` when a float record is NaN or
infinite), ``messages``, ``summary()`` (a typed :class:`PacketSummary`), ``to_dataset()`` (the per-chunk records
over time, with units and provenance) and ``plot()`` (the queue over time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..results import Result, Status, Summary, new_axes

__all__ = ["PacketResult", "PacketSummary"]

#: Units of the per-chunk records in :meth:`PacketResult.to_dataset` (the others are counts per chunk).
_RECORD_UNITS = {"q_sum": "packet·slot", "q_end": "packets", "q_min": "packets", "q_max": "packets",
                 "cwnd_end": "packets", "cwnd_sum": "packet·slot"}  # fmt: skip


@dataclass(frozen=True)
class PacketSummary(Summary):
    """The headline numbers of a packet run (over the window after the warm-up; packets, seconds, fractions)."""

    law: str
    flows: int
    duration_s: float
    window_s: float
    queue_mean: float
    queue_min: float
    queue_max: float
    utilization: float
    jain_index: float | None
    drops: int
    timeouts: int
    window_mean: float
    conservation_error: float
    status: Status


class PacketResult(dict, Result):  # type: ignore[misc]
    """The summary of one packet run (a dict, see :func:`~.summary.summarize`), in the result protocol."""

    @property  # type: ignore[override]
    def status(self) -> np.ndarray:  # type: ignore[override]
        code = Status.OK if self.get("status", "ok") == "ok" else Status.NON_FINITE
        return np.array([int(code)], dtype=np.int32)

    @property  # type: ignore[override]
    def messages(self) -> list[str]:  # type: ignore[override]
        return [str(self.get("message", ""))]

    def summary(self) -> PacketSummary:
        return PacketSummary(
            law=str(self["law"]),
            flows=int(self["flows"]),
            duration_s=float(self["duration_s"]),
            window_s=float(self["window_s"]),
            queue_mean=float(self["queue_mean"]),
            queue_min=float(self["queue_min"]),
            queue_max=float(self["queue_max"]),
            utilization=float(self["utilization"]),
            jain_index=None if self["jain_index"] is None else float(self["jain_index"]),
            drops=int(self["drops"]),
            timeouts=int(self["timeouts"]),
            window_mean=float(self["window_mean"]),
            conservation_error=float(self["conservation_error"]),
            status=self.status_of(0),
        )

    def _time(self, n: int) -> np.ndarray:
        return (np.arange(n) + 1) * float(self["duration_s"]) / n

    def to_dataset(self) -> Any:
        """The per-chunk records (dimension ``chunk``, with ``time`` at each chunk's end; per-flow records also
        along ``flow``) and the scalar summary as attributes."""
        import xarray as xr

        from .._provenance import provenance_attrs

        rec = self.get("records") or {}
        n = len(np.asarray(rec["q_end"])) if "q_end" in rec else 0
        data = {}
        for k, v in rec.items():
            a = np.asarray(v)
            if a.ndim == 0 or a.shape[0] != n:
                continue
            dims = ("chunk",) if a.ndim == 1 else ("chunk", "flow") if a.ndim == 2 else None
            if dims is None:
                continue
            data[k] = (dims, a, {"units": _RECORD_UNITS.get(k, "1")})
        ds = xr.Dataset(data, coords={"time": ("chunk", self._time(n), {"units": "s"})})
        ds.attrs.update(provenance_attrs())
        for k, v in self.summary().to_dict().items():
            ds.attrs[k] = "" if v is None else v
        return ds

    def plot(self, ax: Any = None) -> Any:
        """The queue at each chunk's end over time (packets)."""
        ax = new_axes(ax)
        q = np.asarray(self["records"]["q_end"], float)
        ax.plot(self._time(q.size) * 1e3, q, lw=0.8)
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("queue (packets)")
        ax.set_title(f"{self['law']}, {self['flows']} flows: packet core")
        return ax
