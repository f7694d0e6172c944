"""Initial histories x(t) for t ≤ t0 and the crossing log of the switching surface.

A history is either a constant state (the usual "W = 1, α = 0, q = 0 before t = 0") or a callable φ(t) → state.
For the JAX solver a callable must be written with ``jax.numpy`` (it is traced); for the reference solver NumPy
is enough.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import brentq

__all__ = ["History", "as_history", "CrossingLog"]

#: Samples per unit of the history window used to find the sign changes of σ inside a callable history.
_HISTORY_SCAN = 512


@dataclass(frozen=True)
class History:
    """x(t) for t ≤ t0: ``value`` (a constant state) or ``fn`` (a callable of t)."""

    n: int
    value: np.ndarray | None = None
    fn: Callable[[float], Any] | None = None

    @property
    def is_constant(self) -> bool:
        return self.fn is None

    def __call__(self, t: float) -> np.ndarray:
        if self.fn is None:
            return np.array(self.value, dtype=float)
        return np.asarray(self.fn(t), dtype=float).reshape(self.n)

    def derivative(self, t: float, h: float = 1e-7) -> np.ndarray:
        """dφ/dt by a central difference (0 for a constant history); used for Hermite history reads."""
        if self.fn is None:
            return np.zeros(self.n)
        scale = max(abs(t), 1.0) * h
        return (self(t + scale) - self(t - scale)) / (2 * scale)


def as_history(history: Any, n: int, t0: float, span: float) -> History:
    """Validate a history argument for an n-state model.

    Raises ``ValueError`` naming ``history`` when it has the wrong length, is not finite, or (for a callable)
    returns such values on [t0 − span, t0].
    """
    if callable(history):
        probe = np.linspace(t0 - span, t0, 5) if span > 0 else np.array([t0])
        for t in probe:
            try:
                v = np.asarray(history(float(t)), dtype=float)
            except Exception as e:  # report which argument failed, not an opaque traceback from user code
                raise ValueError(
                    f"history={history!r} is invalid: calling it at t={t:g} raised {e!r}"
                ) from None
            if v.size != n or not np.all(np.isfinite(v)):
                raise ValueError(
                    f"history({t:g})={v.tolist()!r} is invalid: accepted a finite state of length {n}"
                )
        return History(n=n, fn=history)
    try:
        v = np.asarray(history, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(
            f"history={history!r} is invalid: accepted a state of length {n} or a callable"
        ) from None
    if v.size != n or not np.all(np.isfinite(v)):
        raise ValueError(
            f"history={history!r} is invalid: accepted a finite state of length {n} or a callable"
        )
    return History(n=n, value=v)


@dataclass
class CrossingLog:
    """Times at which σ(x(t)) changed sign, and the sign before the first one.

    ``sign_at(t)`` answers "was σ(x(t)) > 0?" for any past t, which is all a delayed switch needs:
    u_j(t) = sign_at(t − D_j).
    """

    initial_positive: bool
    times: list[float] = field(default_factory=list)

    def add(self, t: float) -> None:
        if self.times and t < self.times[-1]:
            raise RuntimeError(f"crossing at t={t!r} precedes the previous one at {self.times[-1]!r}")
        self.times.append(float(t))

    def sign_at(self, t: float) -> bool:
        k = bisect.bisect_right(self.times, t)
        return self.initial_positive ^ (k % 2 == 1)

    @property
    def positive_now(self) -> bool:
        return self.initial_positive ^ (len(self.times) % 2 == 1)

    def next_switch_after(self, t: float, delays: tuple[float, ...], eps: float) -> float:
        """The earliest t_c + D_j strictly after t (+eps); inf when none is pending."""
        best = math.inf
        for d in delays:
            k = bisect.bisect_right(self.times, t + eps - d)
            if k < len(self.times):
                best = min(best, self.times[k] + d)
        return best


def history_crossings(
    hist: History, surface: Callable[[np.ndarray], float], t0: float, span: float
) -> CrossingLog:
    """Crossing log of σ(φ(t)) on [t0 − span, t0]: sign changes on a fine grid, refined by Brent's method."""
    if hist.is_constant or span <= 0:
        return CrossingLog(initial_positive=bool(surface(hist(t0)) > 0))
    ts = np.linspace(t0 - span, t0, _HISTORY_SCAN + 1)
    s = np.array([surface(hist(float(t))) for t in ts])
    log = CrossingLog(initial_positive=bool(s[0] > 0))
    for a, b, sa, sb in zip(ts[:-1], ts[1:], s[:-1], s[1:], strict=True):
        if (sa > 0) != (sb > 0):
            if sa == 0.0:
                tc = a
            else:
                tc = brentq(lambda t: surface(hist(t)), a, b, xtol=1e-15 * max(1.0, abs(b)))
            log.add(tc)
    return log
