"""The fluid-model protocol: one definition of each model feeds SymPy, both DDE solvers, the analysis and the plots.

A model is a *switched delay system*

    x'(t) = F(x(t), x(t − τ_d), u(t)),        u(t) = 1{σ(x(t − τ_d)) > 0},

with a state vector ``x`` (names in :attr:`FluidModel.states`), a delayed copy ``xd`` of the state (equal to ``x``
when the model has no delay), a binary switching input ``u`` (the *delayed* sign of the switching function σ:
DCTCP's mark p(t − R*), DWTCP's "Scout late" d_s > d_t) and optional lower bounds on states (the physical queue
floor q ≥ 0, entered and left as a sliding mode by the solvers).

The right-hand side :meth:`FluidModel.rhs` is written once against an array namespace ``xp``: ``numpy``,
``jax.numpy`` or :data:`SYMPY_NS`. The symbolic Jacobian, its lambdified numeric form and the JAX right-hand
side all come from that one function, so an equation is typed exactly once.

What a model declares (the contract every caller relies on; :mod:`.registry` runs one test over all of it):

* required: ``name``, ``states``, ``param_names``, :meth:`~FluidModel.rhs`, :meth:`~FluidModel.surface`,
  :meth:`~FluidModel.delay`, :meth:`~FluidModel.numeric_params`;
* with defaults: ``state_units``, ``time_unit`` (``"s"``), :meth:`~FluidModel.state_delays` (one delayed copy of
  the state, read ``delay`` late), :meth:`~FluidModel.switch_delays` (one channel read ``delay`` late), :meth:`~FluidModel.floors` and :meth:`~FluidModel.ceilings` (no bounds),
  :meth:`~FluidModel.observables` (queue, window, α and utilization from the state names ``q``, the first state
  and ``alpha``), :meth:`~FluidModel.capacity` (the parameter ``C``), ``sample_domain`` (where the contract
  test draws states and parameters).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import sympy as sp

from ..params import Bound

__all__ = ["FluidModel", "SYMPY_NS", "ModelParamsError"]


def _sym_where(cond: Any, a: Any, b: Any) -> Any:
    return sp.Piecewise((a, cond), (b, True))


#: The SymPy "array namespace" a model's rhs is evaluated with to obtain symbolic expressions.
SYMPY_NS = types.SimpleNamespace(
    sqrt=sp.sqrt,
    log=sp.log,
    exp=sp.exp,
    maximum=sp.Max,
    minimum=sp.Min,
    where=_sym_where,
    abs=sp.Abs,
)


class ModelParamsError(ValueError):
    """A parameter mapping does not match a model's parameter names."""


@dataclass(frozen=True)
class FluidModel:
    """Base class of every fluid model. Subclasses are frozen dataclasses whose fields select variants.

    Subclasses define the class attributes ``name``, ``states`` and ``param_names`` and the methods
    :meth:`rhs`, :meth:`surface`, :meth:`delay` and :meth:`numeric_params`; they may override :meth:`floors`.
    """

    name: ClassVar[str] = "model"
    states: ClassVar[tuple[str, ...]] = ()
    param_names: ClassVar[tuple[str, ...]] = ()
    #: Human-readable units of each state, for datasets and axis labels.
    state_units: ClassVar[tuple[str, ...]] = ()
    #: Unit of time, of the delays and of every rate: ``"s"`` for the physical models, ``"R*"`` for a model
    #: normalized by its feedback delay.
    time_unit: ClassVar[str] = "s"
    #: States the model keeps nonnegative (an invariant of the true dynamics, e.g. DCTCP's α ∈ [0, 1]); their
    #: SymPy symbols are declared nonnegative, so a guard ``maximum(x, 0)`` that only absorbs rounding errors of a
    #: numerical solver is ``x`` itself in the derivations.
    nonnegative_states: ClassVar[frozenset[str]] = frozenset()
    #: Where the contract tests draw states and parameters: name → ``(lo, hi)`` (log-uniform, lo > 0) or
    #: ``("lin", lo, hi)`` (uniform). Every state and parameter name must have an entry.
    sample_domain: ClassVar[Mapping[str, tuple]] = {}
    #: Accepted range of each parameter (name → :class:`~dwtcp_fluid.params.Bound`), checked by both solvers before
    #: any work; a parameter without an entry need only be finite. The package's DCTCP and DWTCP models declare the
    #: shared :data:`~dwtcp_fluid.params.MODEL_BOUNDS`; None (default): no ranges (a user's model whose ``d`` is
    #: not a delay keeps its meaning).
    param_bounds: ClassVar[Mapping[str, Bound] | None] = None

    # --- the definition ------------------------------------------------------------------------------------
    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """Right-hand side F(x, x(t − τ_d), u) as a tuple, one entry per state."""
        raise NotImplementedError

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """Switching function σ(x); the input is u(t) = 1{σ(x(t − τ_d)) > 0}."""
        raise NotImplementedError

    def delay(self, p: Mapping[str, Any]) -> Any:
        """Feedback delay τ_d in the model's time unit (0 for an undelayed model)."""
        raise NotImplementedError

    def numeric_params(self, params: Any) -> dict[str, float]:
        """Map a parameter object (:mod:`dwtcp_fluid.params`) to the float mapping ``rhs`` reads."""
        raise NotImplementedError

    # --- declarations with defaults ------------------------------------------------------------------------
    def state_delays(self, p: Mapping[str, Any]) -> tuple[Any, ...]:
        """Delays τ_1..τ_k of the delayed copies of the state the right-hand side reads (model time unit).

        One copy read :meth:`delay` late by default, passed to :meth:`rhs` as ``xd`` (a state). A model with
        several discrete delays (flow groups with their own loop delays) returns one per copy, and its
        :meth:`rhs` then receives ``xd`` as a tuple of k delayed states, ``xd[j]`` = x(t − τ_j): the system
        x' = F(x(t), x(t − τ_1), …, x(t − τ_k), u) that both solvers and the root finder take.
        """
        return (self.delay(p),)

    def delay_count(self) -> int:
        """Number k of delayed copies of the state (the length of :meth:`state_delays`)."""
        if type(self).state_delays is FluidModel.state_delays:
            return 1  # the default: one copy (without calling ``delay``, which may need numbers)
        return len(self.state_delays(self.symbols()[1]))

    def switch_delays(self, p: Mapping[str, Any]) -> tuple[Any, ...]:
        """Delay D_j of each switching channel u_j(t) = 1{σ(x(t − D_j)) > 0} (model time unit).

        One channel read :meth:`delay` late by default; a model with several (flow groups with their own RTTs)
        returns one delay per channel, and its :meth:`rhs` then receives ``u`` as a tuple.
        """
        return (self.delay(p),)

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """Lower bounds on states, ``{state index: bound}``; the solvers hold the state at the bound while
        its derivative would push it below (a sliding mode). Empty when the model has none."""
        return {}

    def ceilings(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """Upper bounds on states, ``{state index: bound}``, held as sliding modes like :meth:`floors`."""
        return {}

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """What summaries, comparisons and plots read from a state, by name (arrays broadcast like ``x``).

        ``queue`` (the bottleneck queue, the unit of state ``q``), ``window`` (per-flow window, packets),
        ``alpha`` (DCTCP's marking estimate, when the model has it) and ``utilization`` (link output rate over
        capacity, 1). The default reads the states ``q``, the first state and ``alpha``; the output rate is the
        capacity while the queue is above its floor and the arrival rate (q' + C, unheld) while it is held there.
        A model whose queue is not the state ``q`` overrides this.
        """
        out: dict[str, Any] = {"window": x[0]}
        if "alpha" in self.states:
            out["alpha"] = x[self.states.index("alpha")]
        if "q" in self.states:
            qi = self.states.index("q")
            q = x[qi]
            out["queue"] = q
            floor, cap = self.floors(p).get(qi), self.capacity(p)
            if floor is None or cap is None:
                out["utilization"] = 1.0 + 0 * q
            else:
                arrival = self.rhs(x, self.pack_delayed([x] * self.delay_count()), 0.0, p, xp)[qi] + cap
                out["utilization"] = xp.where(q > floor + 1e-9, 1.0, xp.clip(arrival / cap, 0.0, 1.0))
        return out

    def step_scale(self, p: Mapping[str, Any]) -> float | None:
        """The fastest time scale a fixed-step solver must resolve (model time unit); the JAX solver's default
        step is 1/20 of it. None (default): the smallest positive delay of the model."""
        return None

    def capacity(self, p: Mapping[str, Any]) -> Any:
        """Bottleneck capacity in packets per time unit (the parameter ``C``); None when the model has none."""
        return p["C"] if "C" in p else None

    def sample(self, n: int, seed: int = 0) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
        """``n`` states and parameter sets drawn from :attr:`sample_domain` (deterministic in ``seed``)."""
        if not (isinstance(n, int) and n >= 1):
            raise ValueError(f"n={n!r} is out of range: accepted an integer n >= 1")
        missing = [k for k in (*self.states, *self.param_names) if k not in self.sample_domain]
        if missing:
            raise ValueError(f"{self.name}: sample_domain has no range for {missing}")
        rng = np.random.default_rng(seed)

        def draw(spec: tuple) -> np.ndarray:
            if spec[0] == "lin":
                return rng.uniform(spec[1], spec[2], n)
            return np.exp(rng.uniform(np.log(spec[0]), np.log(spec[1]), n))

        x = [draw(self.sample_domain[s]) for s in self.states]
        p = {k: draw(self.sample_domain[k]) for k in self.param_names}
        return x, p

    # --- derived machinery ---------------------------------------------------------------------------------
    def bounds(self) -> dict[str, Bound]:
        """The declared range of each parameter that has one (:attr:`param_bounds`)."""
        table = self.param_bounds or {}
        return {n: table[n] for n in self.param_names if n in table}

    def check_params(self, p: Mapping[str, Any]) -> None:
        missing = [n for n in self.param_names if n not in p]
        if missing:
            raise ModelParamsError(
                f"{self.name}: parameters {missing} are missing; expected {list(self.param_names)}"
            )

    def state_index(self, name: str) -> int:
        try:
            return self.states.index(name)
        except ValueError:
            raise ValueError(
                f"state={name!r} is not a state of {self.name}: accepted {list(self.states)}"
            ) from None

    def symbols(self) -> tuple[tuple[sp.Symbol, ...], dict[str, sp.Symbol]]:
        """Positive SymPy symbols for the states and the parameters (named as in the papers)."""
        xs = tuple(self._state_symbol(n, n) for n in self.states)
        ps = {n: sp.Symbol(n, positive=True) for n in self.param_names}
        return xs, ps

    def _state_symbol(self, state: str, name: str) -> sp.Symbol:
        """A state's symbol: real, and nonnegative when the state is in :attr:`nonnegative_states`."""
        if state in self.nonnegative_states:
            return sp.Symbol(name, nonnegative=True)
        return sp.Symbol(name, real=True)

    def delayed_symbols(self) -> tuple[sp.Symbol, ...]:
        """Symbols for x(t − τ_d), named ``<state>_d`` (a one-delay model; see :meth:`delayed_symbol_sets`)."""
        return tuple(self._state_symbol(n, f"{n}_d") for n in self.states)

    def delayed_symbol_sets(self) -> tuple[tuple[sp.Symbol, ...], ...]:
        """One tuple of symbols per delayed copy x(t − τ_j): ``<state>_d`` for one delay, ``<state>_d<j>``
        (j = 1..k) for several."""
        k = self.delay_count()
        if k == 1:
            return (self.delayed_symbols(),)
        return tuple(tuple(self._state_symbol(n, f"{n}_d{j + 1}") for n in self.states) for j in range(k))

    def sym_rhs(self, u: Any = 1, *, delayed: bool = False) -> sp.Matrix:
        """F as a SymPy column; with ``delayed=False`` every delayed state is identified with the state.

        ``u`` may be 0, 1 or a SymPy symbol.
        """
        xs, ps = self.symbols()
        sets = self.delayed_symbol_sets() if delayed else (xs,) * self.delay_count()
        return sp.Matrix(self.rhs(xs, self.pack_delayed(sets), u, ps, SYMPY_NS))

    def pack_delayed(self, copies: Sequence[Any]) -> Any:
        """The ``xd`` argument of :meth:`rhs` from the k delayed copies x(t − τ_j): the one copy itself when
        k = 1, else the tuple of them."""
        return copies[0] if len(copies) == 1 else tuple(copies)

    def jacobian(self, u: Any = 1, *, delayed: bool = False) -> sp.Matrix:
        """Symbolic Jacobian ∂F/∂x. With ``delayed=False``, x(t − τ_d) is set to x before differentiating
        (the frozen, undelayed linearization the papers use)."""
        return _jacobian_cached(self, _exact_u(u), delayed)

    def jacobian_delayed(self, u: Any = 1) -> sp.Matrix:
        """Symbolic ∂F/∂x(t − τ_d) (the A1 of x' = A0 x + A1 x(t − τ_d)) of a one-delay model."""
        Js = self.jacobians_delayed(u)
        if len(Js) != 1:
            raise ValueError(
                f"{self.name} has {len(Js)} delays: accepted a one-delay model (use jacobians_delayed)"
            )
        return Js[0]

    def jacobians_delayed(self, u: Any = 1) -> tuple[sp.Matrix, ...]:
        """Symbolic ∂F/∂x(t − τ_j), j = 1..k: the A_j of x' = A0 x + Σ_j A_j x(t − τ_j)."""
        F = self.sym_rhs(u, delayed=True)
        return tuple(F.jacobian(sp.Matrix(xd)) for xd in self.delayed_symbol_sets())

    def jacobian_fn(self, u: Any = 1) -> Callable[..., np.ndarray]:
        """Numeric Jacobian J(x; p) lambdified once (cached), broadcasting over arrays.

        Call as ``fn(x, p)`` with ``x`` a sequence of state arrays and ``p`` a parameter mapping; returns an
        array of shape ``batch + (n, n)``.
        """
        return _jacobian_fn_cached(self, _exact_u(u))

    def rhs_fn(self, xp: Any = np) -> Callable[..., tuple]:
        """The right-hand side bound to a namespace: ``f(x, xd, u, p)``."""
        return functools.partial(_bound_rhs, self, xp)


def _exact_u(u: Any) -> Any:
    """A switch value as SymPy should see it: 1.0 → 1 (and per channel), so that a float never enters the
    symbolic Jacobian, and the caches below (1 and 1.0 are the same key) never hand out a Float-laden one."""
    if isinstance(u, tuple | list):
        return tuple(_exact_u(v) for v in u)
    if isinstance(u, float | np.floating) and float(u).is_integer():
        return int(u)
    return u


def _bound_rhs(model: FluidModel, xp: Any, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any]):
    return model.rhs(x, xd, u, p, xp)


@functools.lru_cache(maxsize=64)
def _jacobian_cached(model: FluidModel, u: Any, delayed: bool) -> sp.Matrix:
    xs, _ = model.symbols()
    F = model.sym_rhs(u, delayed=delayed)
    return sp.simplify(F.jacobian(sp.Matrix(xs)))


def _heaviside(x: Any, h0: Any = 0.5) -> Any:
    return np.heaviside(x, h0)


@functools.lru_cache(maxsize=64)
def _jacobian_fn_cached(model: FluidModel, u: Any) -> Callable[..., np.ndarray]:
    xs, ps = model.symbols()
    # The derivative as differentiated, not simplified: ``simplify`` turns max/min into nested Piecewise that
    # NumPy's printer renders as ``select`` trees it cannot evaluate (and takes minutes on a model with several
    # clipped terms); Heaviside (the derivative of max/min) becomes ``numpy.heaviside``.
    J = model.sym_rhs(u).jacobian(sp.Matrix(xs))
    n = len(xs)
    pnames = list(model.param_names)
    args = list(xs) + [ps[k] for k in pnames]
    modules = [{"Heaviside": _heaviside}, "numpy"]
    entries = [[sp.lambdify(args, J[i, j], modules=modules) for j in range(n)] for i in range(n)]

    def fn(x: Sequence[Any], p: Mapping[str, Any]) -> np.ndarray:
        model.check_params(p)
        vals = [np.asarray(v, dtype=float) for v in x] + [np.asarray(p[k], dtype=float) for k in pnames]
        out = [[np.asarray(entries[i][j](*vals), dtype=float) for j in range(n)] for i in range(n)]
        flat = np.broadcast_arrays(*[e for row in out for e in row])
        return np.stack(flat, axis=-1).reshape(flat[0].shape + (n, n))

    return fn
