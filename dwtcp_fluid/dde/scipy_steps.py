"""Reference solver: method of steps on the SciPy integration core (:mod:`.segment`) with exact switching.

Between events the system is an ODE with a fixed switching input u and fixed bound modes, integrated by an
embedded Runge-Kutta method (DOP853 by default) with dense output, one :meth:`~.segment.SegmentCore.piece` at a
time. The loop stops a piece at

* a crossing of σ = 0 (root-found by ``solve_ivp`` on its dense output): logged; it switches channel j at
  t_c + D_j (immediately when D_j = 0);
* a scheduled switch time t_c + D_j: a new segment starts with the new u, so no step straddles a switch;
* a state reaching its bound while moving towards it (the state is then held: a sliding mode), or the unheld
  derivative of a held state turning away from the bound (the state leaves it);
* t + min_j τ_j when F reads x(t − τ_j) (method of steps: every delayed state always comes from already
  computed, stitched dense output), and at event times + τ_j for each delay, where x(t − τ_j) has a kink.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from ..results import Status
from .history import CrossingLog, History, history_crossings
from .problem import Problem
from .segment import SegmentCore
from .solvers import Reference

__all__ = ["solve_reference", "StitchedDense"]


class StitchedDense:
    """Dense output stitched from per-segment ``OdeSolution`` objects, with the history before t0."""

    def __init__(self, hist: History, t0: float) -> None:
        self.hist, self.t0 = hist, t0
        self.starts: list[float] = []
        self.ends: list[float] = []
        self.sols: list[Any] = []

    def append(self, ta: float, tb: float, sol: Any) -> None:
        if tb > ta:
            self.starts.append(ta)
            self.ends.append(tb)
            self.sols.append(sol)

    def at(self, t: float) -> np.ndarray:
        """State at one time t (history for t ≤ t0)."""
        if t <= self.t0 or not self.sols:
            return self.hist(min(t, self.t0)) if t <= self.t0 else self.hist(self.t0)
        k = max(bisect.bisect_right(self.starts, t) - 1, 0)
        return self.sols[k](min(t, self.ends[k]))

    def __call__(self, t: np.ndarray) -> np.ndarray:
        tt = np.asarray(t, dtype=float)
        flat = tt.reshape(-1)
        if flat.size and (flat.max() > self.ends[-1] * (1 + 1e-12) + 1e-300 if self.ends else False):
            raise ValueError(f"t={flat.max()!r} is out of range: accepted t <= {self.ends[-1]!r}")
        out = np.empty((flat.size, self.hist.n))
        before = flat <= self.t0
        for i in np.flatnonzero(before):
            out[i] = self.hist(flat[i])
        idx = np.flatnonzero(~before)
        if idx.size:
            k = np.clip(
                np.searchsorted(np.asarray(self.starts), flat[idx], side="right") - 1, 0, len(self.sols) - 1
            )
            for seg in np.unique(k):
                sel = idx[k == seg]
                out[sel] = np.asarray(self.sols[seg](np.minimum(flat[sel], self.ends[seg]))).T.reshape(
                    sel.size, -1
                )
        return out.reshape(tt.shape + (self.hist.n,))


class _Constant:
    """Dense output of a state at rest."""

    def __init__(self, y: np.ndarray) -> None:
        self.y = np.array(y, dtype=float)

    def __call__(self, t: Any) -> np.ndarray:
        tt = np.asarray(t, dtype=float)
        return self.y.copy() if tt.ndim == 0 else np.repeat(self.y[:, None], tt.size, axis=1)


def _u_arg(u: tuple[float, ...]) -> Any:
    return u[0] if len(u) == 1 else u


def solve_reference(
    prob: Problem,
    hist: History,
    t0: float,
    t1: float,
    *,
    solver: Reference | None = None,
    max_events: int = 1_000_000,
    max_pieces: int = 2_000_000,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Integrate one trajectory from t0 to t1; see the module docstring for the event logic.

    Every piece spans at most the shortest delay, so a span of many delays (a delay of 1e-320 s, say) would need
    more pieces than any run can take: past ``max_pieces`` pieces the run stops with :attr:`Status.BUDGET` (the
    pieces the span needs at least, (t1 − t0)/τ_min, are named in the message).

    ``progress(t)`` is called with the time reached, at most every 0.2 s of wall time and once at the end.

    Returns a dict with ``t`` (solver step times), ``x`` (states there, shape (T, n)), ``dense``
    (:class:`StitchedDense`), ``crossings``, ``status``, ``fail_t``, ``fail_x``, ``message``.
    """
    model, p = prob.model, prob.p
    solver = Reference() if solver is None else solver
    sdel = prob.switch_delays
    tau_d = prob.tau_d if prob.uses_xd else 0.0
    # the delays of the copies F reads; x(t − τ_j) has a kink τ_j after every event, so each one cuts pieces
    taus = tuple(d for d in prob.read_delays if d > 0)
    tau_min = min(taus) if taus else 0.0
    distinct = sorted(set(taus))  # equal delays (flow groups with one RTT) are read and cut once
    which = [distinct.index(d) for d in taus]
    sig = lambda y: float(model.surface(y, p, np))  # noqa: E731
    log: CrossingLog = history_crossings(hist, sig, t0, max(sdel))
    dense = StitchedDense(hist, t0)

    def raw_rhs(tt: float, y: np.ndarray, u: Any) -> np.ndarray:
        if len(taus) > 1:
            reads = [dense.at(tt - d) for d in distinct]
            xd: Any = tuple(reads[j] for j in which)
        else:
            xd = dense.at(tt - tau_d) if tau_d > 0 else y
        return np.array(model.rhs(cast(Sequence[Any], y), cast(Sequence[Any], xd), u, p, np), dtype=float)

    def add_breaks(te: float) -> None:
        for d in distinct:
            bisect.insort(xd_breaks, te + d)

    core = SegmentCore(raw_rhs, sig, prob.bounds, prob.n, solver)
    held = [False] * len(prob.bounds)
    xd_breaks: list[float] = []  # times where some x(t − τ_j) has a kink (event + τ_j)
    eps = 1e-13 * max(1.0, abs(t0), abs(t1))
    x = hist(t0).astype(float)
    t = float(t0)
    ts: list[np.ndarray] = [np.array([t])]
    xs: list[np.ndarray] = [x[None, :]]
    status, message, fail_t, fail_x = Status.OK, "", math.nan, np.full(prob.n, math.nan)
    n_events = 0
    stalled = 0
    n_pieces = 0
    shown = time.monotonic()
    while t < t1 - eps:
        n_pieces += 1
        if progress is not None and time.monotonic() - shown > 0.2:
            progress(t)
            shown = time.monotonic()
        if n_pieces > max_pieces:
            status, fail_t, fail_x = Status.BUDGET, t, x
            need = f"; the span needs at least {(t1 - t0) / tau_min:.3g}" if tau_min > 0 else ""
            message = f"more than max_pieces={max_pieces} pieces at t={t:.9g}{need}"
            break
        t_next = min(t1, log.next_switch_after(t, sdel, eps))
        if tau_d > 0:
            t_next = min(t_next, t + tau_min)
            k = bisect.bisect_right(xd_breaks, t + eps)
            if k < len(xd_breaks):
                t_next = min(t_next, xd_breaks[k])
        tm = 0.5 * (t + t_next)
        u = _u_arg(tuple(1.0 if log.sign_at(tm - d) else 0.0 for d in sdel))
        held = core.update_modes(t, x, u, held)
        pc = core.piece(t, t_next, x, u, held, log.positive_now, eps=eps)
        if pc.status != Status.OK:
            status, message, fail_t, fail_x = pc.status, pc.message, pc.t_end, pc.y_end
            break
        t_end, y_end, held = pc.t_end, pc.y_end, pc.held
        dense.append(t, t_end, pc.sol)
        ts.append(pc.t[1:])
        xs.append(pc.y[1:])
        if pc.event:
            n_events += 1
            if pc.crossed:
                log.add(t_end)
            add_breaks(t_end)
            if n_events > max_events:
                status, fail_t, fail_x = Status.TOO_MANY_EVENTS, t_end, y_end
                message = f"more than max_events={max_events} events"
                break
        elif tau_d > 0 and log.next_switch_after(t, sdel, eps) <= t_end + eps:
            add_breaks(t_end)
        # an event at the very start of a piece makes no progress; many in a row would be a Zeno sliding mode
        stalled = stalled + 1 if t_end <= t else 0
        if stalled > 20:
            rest = core.resting_input(t_end, y_end, len(sdel)) if max(sdel) == 0.0 else None
            if rest is not None:
                # Chattering of an undelayed switch at a point that one value of u leaves at rest (DWTCP with
                # k = 0 at (w, q) = (BDP/N, 0): q' = 0 on both sides and w' = 0 when u = 1): the limit of the
                # ever smaller excursions is to stay there, so the solution rests until t1.
                dense.append(t_end, t1, _Constant(y_end))
                ts.append(np.array([t1]))
                xs.append(y_end[None, :])
                message = f"rests on the switching surface from t={t_end:.9g} (u={rest})"
                t, x = t1, y_end
                break
        if stalled > 100:
            status, fail_t, fail_x = Status.TOO_MANY_EVENTS, t_end, y_end
            message = "100 events without progress in time (chattering on the switching surface)"
            break
        t, x = t_end, y_end
    if progress is not None:
        progress(t)
    return {
        "t": np.concatenate(ts),
        "x": np.concatenate(xs, axis=0),
        "dense": dense,
        "crossings": np.array(log.times, dtype=float),
        "crossing_up": np.array(
            [log.initial_positive ^ (i % 2 == 0) for i in range(len(log.times))], dtype=bool
        ),
        "status": status,
        "fail_t": fail_t,
        "fail_x": fail_x,
        "message": message,
    }
