"""The result of :mod:`.charroots`: rightmost characteristic roots of a batch of delay systems."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..results import Result, Status, Summary, new_axes

__all__ = ["CharRoots", "CharRootsSummary"]


@dataclass(frozen=True)
class CharRootsSummary(Summary):
    """How many systems, how many with a converged rightmost root, how many unstable, the largest abscissa."""

    systems: int
    converged: int
    unstable: int
    abscissa_max: float


@dataclass(frozen=True)
class CharRoots(Result):
    """Rightmost characteristic roots of a batch of delay systems (:mod:`dwtcp_fluid.results` protocol: ``status``
    per system is OK when its rightmost root converged, NOT_CONVERGED otherwise).

    Attributes
    ----------
    roots : ndarray, complex, shape batch + (K,)
        Roots λ in 1/(time unit of τ), sorted by decreasing real part (ties: increasing imaginary part); NaN
        where fewer than K distinct converged roots were found.
    converged : ndarray, bool, shape batch + (K,)
        Newton converged (and the root is finite).
    residual : ndarray, shape batch + (K,)
        |det Δ(λ)|/(1 + ‖Δ‖)^n at the polished root (normalized units): a check of the polish.
    abscissa : ndarray, shape batch
        Spectral abscissa max Re λ over the converged roots (1/time unit of τ).
    M : int
        Discretisation used.
    """

    roots: np.ndarray
    converged: np.ndarray
    residual: np.ndarray
    abscissa: np.ndarray
    M: int

    @property
    def status(self) -> np.ndarray:  # type: ignore[override]
        ok = np.asarray(self.converged)[..., 0].ravel()
        return np.where(ok, int(Status.OK), int(Status.NOT_CONVERGED))

    @property
    def messages(self) -> list[str]:  # type: ignore[override]
        return [
            "" if s == Status.OK else "Newton did not converge on the rightmost root" for s in self.status
        ]

    def summary(self) -> CharRootsSummary:
        a = np.asarray(self.abscissa, dtype=float).ravel()
        return CharRootsSummary(
            systems=int(a.size),
            converged=int(np.sum(self.status == Status.OK)),
            unstable=int(np.sum(a > 0)),
            abscissa_max=float(np.nanmax(a)) if np.isfinite(a).any() else float("nan"),
        )

    def to_dataset(self) -> Any:
        """An ``xarray.Dataset`` over (system, root): real and imaginary parts, convergence, residual, abscissa."""
        import xarray as xr

        r = np.asarray(self.roots).reshape(-1, self.roots.shape[-1])
        data = {
            "real": (("system", "root"), r.real, {"units": "1/time unit of τ"}),
            "imag": (("system", "root"), r.imag, {"units": "rad/time unit of τ"}),
            "converged": (("system", "root"), np.asarray(self.converged).reshape(r.shape)),
            "residual": (("system", "root"), np.asarray(self.residual).reshape(r.shape)),
            "abscissa": (
                ("system",),
                np.asarray(self.abscissa, dtype=float).ravel(),
                {"units": "1/time unit of τ"},
            ),
            "status": (("system",), self.status.astype(np.int8)),
        }
        return xr.Dataset(data, attrs={"M": self.M, "method": "pseudospectral generator + Newton polish"})

    def plot(self, ax: Any = None) -> Any:
        """The converged roots in the complex plane, with the imaginary axis; returns the axes."""
        ax = new_axes(ax)
        r = np.asarray(self.roots)[np.asarray(self.converged)]
        ax.plot(r.real, r.imag, "x", ms=4)
        ax.axvline(0.0, color="0.5", lw=0.8)
        ax.set(
            xlabel="Re λ", ylabel="Im λ", title=f"{self.summary().converged} of {self.status.size} systems"
        )
        return ax
