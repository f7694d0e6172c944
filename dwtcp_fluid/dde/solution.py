"""One result type for both DDE solvers, with a per-element status instead of exceptions (:mod:`dwtcp_fluid.results`)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._provenance import provenance_attrs
from ..references import references_attr
from ..results import Result, Status, new_axes
from .summary import RunSummary, run_summary

__all__ = ["Status", "DdeSolution"]  # Status: re-exported from dwtcp_fluid.results


@dataclass
class DdeSolution(Result):
    """Trajectories of a fluid model.

    Attributes
    ----------
    model : FluidModel
    params : list of dict
        Numeric parameters of each batch element.
    t : ndarray, shape (T,)
        Output times (model time unit, seconds for the physical models).
    x : ndarray, shape (B, T, n)
        States at ``t`` (model units, e.g. packets).
    status : ndarray of int, shape (B,)
        :class:`Status` per element.
    fail_t, fail_x : ndarray, shapes (B,) and (B, n)
        Time and state at which a failed element stopped (NaN for elements that are ok).
    crossings : list of ndarray
        Times at which σ crossed 0, per element (complete for the reference solver; the JAX solver returns the
        last ``crossing_buffer`` ones). Crossings of the initial history (t < t0) are included.
    crossing_up : list of ndarray of bool
        Whether each crossing went upward (σ > 0 after it).
    method : str
        ``"reference"`` or ``"jax"``.
    options : dict
        Solver options (tolerances or step), kept as provenance.
    batched : bool
        Whether the caller passed a batch (``False``: ``x`` still has a leading axis of length 1).
    """

    model: Any
    params: list[dict[str, float]]
    t: np.ndarray
    x: np.ndarray
    status: np.ndarray
    fail_t: np.ndarray
    fail_x: np.ndarray
    crossings: list[np.ndarray]
    crossing_up: list[np.ndarray]
    method: str
    options: dict[str, Any]
    batched: bool = False
    messages: list[str] = field(default_factory=list)
    #: JAX solver with its check (:class:`~.solvers.JaxRK4`): per element and state, the error estimate over the
    #: saved points (NaN without the check, inf when a check run failed where the run did not)
    error_estimate: np.ndarray | None = None
    _dense: list[Callable[[np.ndarray], np.ndarray]] | None = None
    _fx: np.ndarray | None = None

    # --- the result protocol ------------------------------------------------------------------------------
    def _describe_element(self, i: int) -> str:
        st = dict(zip(self.model.states, np.round(self.fail_x[i], 9).tolist(), strict=True))
        msg = self.messages[i] if i < len(self.messages) and self.messages[i] else ""
        return f"{Status(int(self.status[i])).name} at t={self.fail_t[i]:.9g}, state {st} {msg}".rstrip()

    def summary(self, element: int = 0, *, last_fraction: float = 0.5) -> RunSummary:
        """Queue, window, α, utilization and period of one element over the last ``last_fraction`` of the run
        (:class:`~.summary.RunSummary`)."""
        return run_summary(self, element, last_fraction=last_fraction)

    def plot(self, ax: Any = None, *, state: str | None = None, element: int | None = None) -> Any:
        """One state (default: the queue observable) against time, every element (or one); returns the axes."""
        ax = new_axes(ax)
        elements = range(self.x.shape[0]) if element is None else [element]
        for e in elements:
            if state is None:
                y = self.model.observables(tuple(self.x[e].T), self.params[e], np)["queue"]
            else:
                y = self.x[e, :, self.model.state_index(state)]
            ax.plot(self.t, np.broadcast_to(y, self.t.shape), lw=1.0)
        ax.set(xlabel=f"time ({self.model.time_unit})", ylabel=state or "queue")
        return ax

    # --- evaluation ---------------------------------------------------------------------------------------
    def __call__(self, t: Any, element: int = 0) -> np.ndarray:
        """State at time(s) ``t`` for one element, shape ``t.shape + (n,)``.

        Reference solver: the stitched dense output (its own interpolant, error ≈ rtol). JAX solver: linear
        interpolation between saved points (exact at the saved points).
        """
        tt = np.asarray(t, dtype=float)
        if self._dense is not None:
            return self._dense[element](tt)
        return _hermite_eval(self.t, self.x[element], None if self._fx is None else self._fx[element], tt)

    def state(self, name: str, element: int | None = None) -> np.ndarray:
        """One state's saved values, shape (B, T) (or (T,) for one element)."""
        i = self.model.state_index(name)
        return self.x[..., i] if element is None else self.x[element, :, i]

    # --- export -------------------------------------------------------------------------------------------
    def to_dataset(self):
        """An ``xarray.Dataset`` with dims (element, time), one variable per state, units and provenance attrs."""
        import xarray as xr

        data_vars = {}
        units = self.model.state_units or ("",) * len(self.model.states)
        for i, (name, unit) in enumerate(zip(self.model.states, units, strict=True)):
            data_vars[name] = (("element", "time"), self.x[:, :, i], {"units": unit})
        data_vars["status"] = (
            ("element",),
            self.status.astype(np.int8),
            {"meaning": str({s.name: int(s) for s in Status})},
        )
        coords = {
            "time": (
                "time",
                self.t,
                {"units": self.model.time_unit},
            )
        }
        coords["element"] = ("element", np.arange(self.x.shape[0]))
        for k in self.params[0]:
            coords[k] = ("element", np.array([p[k] for p in self.params], dtype=float))
        attrs = {
            **provenance_attrs(),
            "model": repr(self.model),
            "references": references_attr(type(self.model).__doc__),
            "solver": self.method,
            "solver_options": repr(self.options),
            "parameters": repr(self.params if self.batched else self.params[0]),
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        }
        return xr.Dataset(data_vars, coords=coords, attrs=attrs)


def _hermite_eval(ts: np.ndarray, xs: np.ndarray, fs: np.ndarray | None, t: np.ndarray) -> np.ndarray:
    """Piecewise cubic Hermite (with derivatives ``fs``) or linear (without) interpolation of saved points."""
    if np.any((t < ts[0] - 1e-12 * max(1.0, abs(ts[0]))) | (t > ts[-1] + 1e-12 * max(1.0, abs(ts[-1])))):
        raise ValueError(f"t is out of range: accepted {ts[0]!r} <= t <= {ts[-1]!r}")
    flat = t.reshape(-1)
    k = np.clip(np.searchsorted(ts, flat, side="right") - 1, 0, len(ts) - 2)
    h = ts[k + 1] - ts[k]
    th = ((flat - ts[k]) / h)[:, None]
    x0, x1 = xs[k], xs[k + 1]
    if fs is None:
        out = x0 + th * (x1 - x0)
    else:
        f0, f1 = fs[k] * h[:, None], fs[k + 1] * h[:, None]
        h00 = (1 + 2 * th) * (1 - th) ** 2
        h10 = th * (1 - th) ** 2
        h01 = th**2 * (3 - 2 * th)
        h11 = th**2 * (th - 1)
        out = h00 * x0 + h10 * f0 + h01 * x1 + h11 * f1
    return out.reshape(t.shape + (xs.shape[-1],))
