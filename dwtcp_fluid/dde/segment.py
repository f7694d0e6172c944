"""The integration core of the SciPy backend: one piece of a switched trajectory with the input held.

Both the reference DDE solver (:mod:`.scipy_steps`) and the return maps of the cycle analysis
(:mod:`dwtcp_fluid.analysis.return_map`) are loops over :meth:`SegmentCore.piece`. A piece integrates

    x' = F(t, x, u)    with u held fixed, states on a held bound frozen (a sliding mode),

by ``solve_ivp`` with dense output from t0 until t1 or the first event:

* a crossing of the switching surface σ(x) = 0 away from the side the trajectory is on;
* a free state reaching its bound while moving towards it (it is then held), or a held state whose unheld
  derivative turns away from the bound (it is released).

Extra components may ride along (:attr:`SegmentCore.aug`): quadratures, the variational equation Φ' = J Φ; they
are integrated with the state but never bounded. Every edge case lives here once: the start of a piece that sits
on the wrong side of σ after a root find, a bound lying on the switching surface, a state that reaches its bound
at the instant of a switch, non-finite states, polishing the state at a terminal event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.integrate import solve_ivp

from ..results import Status
from .solvers import Reference

__all__ = ["Bound", "Piece", "SegmentCore"]

#: Offset of the bound events (far below any state or derivative the models produce): ``solve_ivp`` reports an
#: event whose function is 0 at both ends of a step, so a state resting on its bound with a derivative of exactly 0
#: (the Scout's α while a Scout is neither answered nor late, DWTCP busy-period model) would fire at every piece start.
_TINY = 1e-300


def _event(fn: Callable[..., float], terminal: bool, direction: float) -> Any:
    """A ``solve_ivp`` event: the function with the attributes SciPy reads."""
    ev: Any = fn
    ev.terminal, ev.direction = terminal, direction
    return ev


#: ``(state index, bound value, sign)``: sign +1 for a floor x_i ≥ b, −1 for a ceiling x_i ≤ b.
Bound = tuple[int, float, int]


#: The right-hand-side evaluations one piece (at most one delay long) may take: a piece of a sane problem takes
#: hundreds to thousands; a time scale 10³⁰⁰ below the span (w̄ = 1e-320) would step forever.
MAX_PIECE_EVALS = 50_000


class _BudgetSpent(Exception):
    """Raised inside ``solve_ivp`` when a piece exceeds :data:`MAX_PIECE_EVALS`."""


@dataclass
class Piece:
    """One piece: ``solve_ivp``'s output from ``t0`` to ``t_end`` and what ended it.

    ``y`` holds the full vector (state and riders) at the step times ``t`` (shape (len(t), N)); ``y_end`` is the
    state after the events at ``t_end`` were applied (a state entering its bound is set onto it); ``held`` the
    bound modes after them. ``crossed`` is True when σ changed sides at ``t_end``. ``extra_t``/``extra_y`` are the
    times and states of the non-terminal extra events.
    """

    t0: float
    t: np.ndarray
    y: np.ndarray
    sol: Any
    t_end: float
    y_end: np.ndarray
    held: list[bool]
    fired: list[tuple[str, int]] = field(default_factory=list)
    crossed: bool = False
    extra_t: list[np.ndarray] = field(default_factory=list)
    extra_y: list[np.ndarray] = field(default_factory=list)
    status: Status = Status.OK
    message: str = ""

    @property
    def event(self) -> bool:
        """Whether an event (crossing or bound change) ended the piece."""
        return bool(self.fired) or self.crossed


class SegmentCore:
    """Integrates pieces of one switched system (state of length ``n``, optional riders).

    Parameters
    ----------
    f : callable
        ``f(t, x, u) -> ndarray (n,)``, the unheld right-hand side of the state.
    surface : callable
        ``surface(x) -> float``, the switching function σ.
    bounds : sequence of Bound
    n : int
        Length of the state (the riders follow it in the integrated vector).
    solver : Reference
        Method and tolerances of ``solve_ivp``.
    aug : callable, optional
        ``aug(t, y, u, F) -> ndarray``: derivatives of the riders ``y[n:]`` given the full vector and the held
        right-hand side F of the state.
    extra_events : sequence of callable, optional
        Non-terminal events ``e(t, y, u) -> float`` whose zeros are reported (e.g. extrema of a state).
    polish : bool
        Recompute the state at a terminal event by one controlled step from the last accepted step instead of
        reading the dense interpolant (whose error is well above ``rtol``, too much for finite differences of a
        return map).
    """

    def __init__(
        self,
        f: Callable[[float, np.ndarray, Any], np.ndarray],
        surface: Callable[[np.ndarray], float],
        bounds: Sequence[Bound],
        n: int,
        solver: Reference,
        *,
        aug: Callable[[float, np.ndarray, Any, np.ndarray], np.ndarray] | None = None,
        extra_events: Sequence[Callable[[float, np.ndarray, Any], float]] = (),
        polish: bool = False,
    ) -> None:
        self.f, self.surface, self.bounds, self.n = f, surface, tuple(bounds), n
        self.solver, self.aug, self.extra_events, self.polish = solver, aug, tuple(extra_events), polish

    # --- bound modes -------------------------------------------------------------------------------------
    def update_modes(self, t: float, y: np.ndarray, u: Any, held: list[bool]) -> list[bool]:
        """Bound modes at the start of a piece (a switch, the start, or an event that ``solve_ivp`` dropped
        because it tied with another terminal one may put a state onto, or off, its bound).

        Entering needs a clearly negative derivative, so that a state which has just left its bound (derivative
        ≈ 0) is not caught again. A state entering is set onto its bound in ``y`` (in place).
        """
        if not self.bounds:
            return held
        F = self.f(t, y[: self.n], u)
        ftol = 1e-9 * (1.0 + float(np.max(np.abs(F))))
        held = list(held)
        for k, (i, b, s) in enumerate(self.bounds):
            if not held[k] and s * (y[i] - b) <= 0 and s * F[i] < -ftol:
                held[k], y[i] = True, b
            elif held[k] and s * F[i] > 0:
                held[k] = False
        return held

    def held_rhs(self, u: Any, held: Sequence[bool]) -> Callable[[float, np.ndarray], np.ndarray]:
        """The right-hand side of the integrated vector with ``u`` and the bound modes fixed."""
        hold_idx = [self.bounds[k][0] for k in range(len(self.bounds)) if held[k]]
        n, f, aug = self.n, self.f, self.aug

        def fun(tt: float, y: np.ndarray) -> np.ndarray:
            F = f(tt, y[:n], u)
            if hold_idx:
                F[hold_idx] = 0.0
            if aug is None:
                return F
            return np.concatenate([F, aug(tt, y, u, F)])

        return fun

    # --- one piece ---------------------------------------------------------------------------------------
    def piece(
        self,
        t0: float,
        t1: float,
        y0: np.ndarray,
        u: Any,
        held: Sequence[bool],
        positive_now: bool,
        *,
        dense: bool = True,
        eps: float | None = None,
    ) -> Piece:
        """Integrate from ``t0`` towards ``t1`` with ``u`` and the bound modes ``held`` fixed; stop at the first
        event. ``positive_now``: whether the trajectory is on the positive side of σ (the side its last crossing
        left it on), which fixes the direction of the crossing searched for. Events within ``eps`` of the first
        one fire together (default: 1e-13 of the larger of 1 and |t|)."""
        n, sig = self.n, self.surface
        fun = self.held_rhs(u, held)
        events: list[Any] = []
        kinds: list[tuple[str, int]] = []
        # Upward: σ must exceed a tiny δ > 0, so that σ ≡ 0 on a held bound (DWTCP with k = 0: q held at 0 = k)
        # is not an endless string of crossings. δ is kept far below rounding: a queue leaving its floor grows
        # quadratically, and δ = 1e-12 delayed the crossing by sqrt(2δ/q'') ≈ 5e-11 s, which the delayed loop
        # amplified to 1e-4 packets.
        delta = 0.0 if positive_now else 1e-300
        # The root finder leaves the state of a logged crossing within its tolerance of σ = 0, possibly on the
        # side it has just left (DWTCP, k = 0: q = 1e-24 after a downward crossing). The next search would then
        # start past its own threshold and never see a sign change (the queue grew to 10⁶ packets in the wrong
        # mode). Search instead for σ moving beyond that start value.
        s0 = sig(y0[:n])
        if positive_now and s0 < 0.0:
            delta = s0 * (1.0 + 1e-9)
        elif not positive_now and s0 > 0.0:
            delta = s0 * (1.0 + 1e-9) + 1e-300
        events.append(
            _event(lambda tt, y, delta=delta: sig(y[:n]) - delta, True, -1.0 if positive_now else 1.0)
        )
        kinds.append(("cross", -1))
        f = self.f
        for k, (i, b, s) in enumerate(self.bounds):
            if held[k]:
                events.append(_event(lambda tt, y, i=i, s=s: s * f(tt, y[:n], u)[i] - _TINY, True, 1.0))
                kinds.append(("leave", k))
            else:
                events.append(_event(lambda tt, y, i=i, b=b, s=s: s * (y[i] - b) + _TINY, True, -1.0))
                kinds.append(("enter", k))
        for xe in self.extra_events:
            events.append(_event(lambda tt, y, xe=xe: xe(tt, y, u), False, 0.0))
        sv = self.solver
        evals = [0]

        def counted(tt: float, y: np.ndarray) -> np.ndarray:
            evals[0] += 1
            if evals[0] > MAX_PIECE_EVALS:
                raise _BudgetSpent
            return fun(tt, y)

        try:
            sol = solve_ivp(
                counted, (t0, t1), y0, method=sv.method, rtol=sv.rtol, atol=sv.atol, dense_output=dense,
                events=events,
            )  # fmt: skip
        except _BudgetSpent:
            out = Piece(
                t0, np.array([t0]), np.asarray(y0)[None, :], None, t0, np.asarray(y0).copy(), list(held)
            )
            out.status = Status.BUDGET
            out.message = (
                f"one piece took more than {MAX_PIECE_EVALS:,} right-hand-side evaluations at t={t0:.9g} "
                "(a time scale far below the span: check the parameters' magnitudes)"
            )
            return out
        n_term = len(kinds)
        extra_t = [np.asarray(sol.t_events[j]) for j in range(n_term, len(events))]
        extra_y = [np.asarray(sol.y_events[j]) for j in range(n_term, len(events))]
        out = Piece(t0, sol.t, sol.y.T, sol.sol, float(sol.t[-1]), sol.y[:, -1].copy(), list(held))
        out.extra_t, out.extra_y = extra_t, extra_y
        if sol.status == -1:
            out.status, out.message = Status.INTEGRATOR_FAILED, sol.message
            out.t_end, out.y_end = t0, np.array(y0, dtype=float)
            return out
        if not np.all(np.isfinite(sol.y)):
            bad = int(np.argmax(~np.all(np.isfinite(sol.y), axis=0)))
            out.status, out.message = Status.NON_FINITE, "the state became non-finite"
            out.t_end, out.y_end = float(sol.t[bad]), sol.y[:, bad].copy()
            return out
        if sol.status != 1:
            return out
        if self.polish and len(sol.t) >= 2 and sol.t[-1] > sol.t[-2]:
            # the state at a terminal event comes from the dense interpolant (error well above rtol, which would
            # dominate finite differences of a return map): redo the last step as one controlled step
            again = solve_ivp(
                fun, (float(sol.t[-2]), out.t_end), sol.y[:, -2], method=sv.method, rtol=sv.rtol, atol=sv.atol
            )
            if again.status == 0:
                out.y_end = again.y[:, -1].copy()
                out.y[-1] = out.y_end
        eps = 1e-13 * max(1.0, abs(t0), abs(t1)) if eps is None else eps
        first = min(te[0] for te in sol.t_events[:n_term] if len(te))
        out.fired = [
            kinds[j] for j, te in enumerate(sol.t_events[:n_term]) if len(te) and te[0] <= first + eps
        ]
        for kind, k in out.fired:
            if kind == "cross":
                out.crossed = True
            elif kind == "enter":
                out.held[k] = True
                out.y_end[self.bounds[k][0]] = self.bounds[k][1]
            else:
                out.held[k] = False
        if not out.crossed and (sig(out.y_end[:n]) > 0) != positive_now:
            # a bound that lies on the switching surface (DWTCP with k = 0: q held at 0 = k) ends the positive
            # side exactly, without a strict sign change the root finder could see
            out.crossed = True
        return out

    def resting_input(self, t: float, y: np.ndarray, m: int) -> tuple[float, ...] | None:
        """A switch value u (all ``m`` channels equal) under which ``y`` is stationary with the bounds held;
        None when there is none (used to end chattering of an undelayed switch at such a point)."""

        def F(v: float) -> np.ndarray:
            return self.f(t, y[: self.n], v if m == 1 else (v,) * m)

        scale = 1.0 + max(float(np.max(np.abs(F(v)))) for v in (0.0, 1.0))
        for v in (1.0, 0.0):
            Fv = F(v)
            for i, b, sgn in self.bounds:
                if sgn * (y[i] - b) <= 0 and sgn * Fv[i] <= 0:
                    Fv[i] = 0.0
            if np.all(np.abs(Fv) <= 1e-9 * scale):
                return (v,) * m
        return None
