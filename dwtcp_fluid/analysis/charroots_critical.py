"""Where the spectral abscissa of :mod:`.charroots` changes sign along a parameter, and the scalar closed form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["critical_parameter", "scalar_critical_delay"]


def spectral_abscissa(*args: Any, **kw: Any) -> np.ndarray:
    from .charroots import spectral_abscissa as sa

    return sa(*args, **kw)


def critical_parameter(
    system: Callable[[np.ndarray], tuple[Any, Any, Any]],
    lo: Any,
    hi: Any,
    *,
    n_scan: int = 24,
    log: bool = True,
    rtol: float = 1e-10,
    **kw: Any,
) -> np.ndarray:
    """First parameter value in [lo, hi] where the spectral abscissa changes sign, for each batch element.

    ``lo`` and ``hi`` have shape (B,), one interval per batch element. ``system(p)`` maps a parameter array
    of shape (B, S) (row b: values for batch element b) to ``(A0, A1, tau)`` with batch shape (B, S). The
    interval is
    scanned at ``n_scan`` points (log-spaced if ``log``) and the first sign change is refined by bisection to
    ``rtol`` relative width. Returns NaN where the abscissa keeps one sign on the whole scan.

    The abscissa of a retarded delay system is continuous in its coefficients and its delay, so a sign change
    brackets a crossing; a scan can miss a pair of crossings closer than its spacing.
    """
    lo = np.atleast_1d(np.asarray(lo, dtype=float))
    hi = np.atleast_1d(np.asarray(hi, dtype=float))
    lo, hi = np.broadcast_arrays(lo, hi)
    if np.any(~(hi > lo)) or (log and np.any(lo <= 0)):
        raise ValueError(
            f"lo={lo!r}, hi={hi!r} are invalid: accepted 0 < lo < hi (or lo < hi with log=False)"
        )
    B = lo.size
    t = np.linspace(0.0, 1.0, n_scan)
    grid = (
        np.exp(np.log(lo)[:, None] + (np.log(hi) - np.log(lo))[:, None] * t[None])
        if log
        else lo[:, None] + (hi - lo)[:, None] * t[None]
    )
    vals = spectral_abscissa(*system(grid), **kw)
    if vals.shape != grid.shape:
        raise ValueError(
            f"system returned batch shape {vals.shape}: accepted {grid.shape} (lo/hi have shape (B,))"
        )
    sgn = np.sign(vals)
    change = sgn[:, 1:] * sgn[:, :-1] < 0
    has = change.any(axis=-1)
    j = np.argmax(change, axis=-1)
    a = grid[np.arange(B), j]
    b = grid[np.arange(B), j + 1]
    sa = sgn[np.arange(B), j]
    for _ in range(80):
        if np.all(np.abs(b - a) <= rtol * np.abs(b)):
            break
        m = np.sqrt(a * b) if log else 0.5 * (a + b)
        sm = np.sign(spectral_abscissa(*system(m[:, None]), **kw)[:, 0])
        same = sm == sa
        a = np.where(same, m, a)
        b = np.where(same, b, m)
    return np.where(has, 0.5 * (a + b), np.nan)


def scalar_critical_delay(a: Any, b: Any) -> np.ndarray:
    """Closed-form critical delay of x' = a x + b x(t − τ): τ_c = arccos(−a/b)/sqrt(b² − a²) when b < −|a|.

    For b < −|a| the system is stable for τ < τ_c and unstable beyond; NaN otherwise (stable for every τ
    when |b| ≤ −a, i.e. a < 0 and |b| ≤ |a|; unstable for every τ when a + b > 0).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ok = b < -np.abs(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        tc = np.arccos(-a / b) / np.sqrt(b**2 - a**2)
    return np.where(ok, tc, np.nan)
