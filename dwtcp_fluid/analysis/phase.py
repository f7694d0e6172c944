"""Phase portraits of switched (delay) fluid models: compute here, draw with :meth:`PhasePortrait.plot`.

:func:`phase_portrait` works for any :class:`~dwtcp_fluid.models.base.FluidModel`: with two states it shows the
whole state plane, with more it shows a 2-D projection (the other states fixed at ``fixed`` for the vector field,
and optionally shown as the colour of the trajectories). Everything it draws comes from the model object:

* the vector field of each switching law u ∈ {0, 1}, masked to where that law applies without delay
  (σ(x) > 0 for u = 1), and to the states' floors;
* nullclines F_i(x; u) = 0 of each law inside its region (contour lines of the model's right-hand side);
* the switching surface σ(x) = 0 and the floors x_i = b;
* equilibria of each law (roots of F(x, x, u) consistent with the region), classified from the model's
  symbolic Jacobian (:meth:`~dwtcp_fluid.models.base.FluidModel.jacobian_fn`) by
  :func:`~dwtcp_fluid.analysis.linear.classify_2x2`;
* trajectories from several initial conditions computed by :func:`dwtcp_fluid.dde.solve` (a delayed model is
  started from a history function, by default the constant initial state for t ≤ 0);
* level sets of a first integral when one is given (e.g. the DWTCP decrease phase).

The vector field of a delayed model is drawn frozen (x(t − τ_d) = x): it is the field of each law, not the
delayed dynamics, and the axes say so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..dde import solve
from ..models.base import FluidModel
from .phase_layers import Equilibrium, dilate, find_equilibria, nullcline_lines, switch_input

__all__ = [
    "FieldRegion",
    "Nullcline",
    "Equilibrium",
    "Trajectory",
    "Levels",
    "PhasePortrait",
    "phase_portrait",
    "switch_input",
    "find_equilibria",
    "nullcline_lines",
]

#: Law names for u = 0 / u = 1, used in labels when the caller gives none.
DEFAULT_LAW_NAMES = ("u = 0", "u = 1")


@dataclass(frozen=True)
class FieldRegion:
    """The vector field of one law on the grid, masked (``mask`` True) where the law does not apply."""

    u: int
    name: str
    X: np.ndarray
    Y: np.ndarray
    U: np.ndarray
    V: np.ndarray
    mask: np.ndarray


@dataclass(frozen=True)
class Nullcline:
    """Polylines (each shape (k, 2), projection coordinates) on which F_state(x; u) = 0 inside the law's region."""

    state: str
    u: int
    lines: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Trajectory:
    """One solver trajectory: saved times ``t`` (model unit), states ``x`` (T, n), switching input ``u`` (T,)."""

    x0: np.ndarray
    t: np.ndarray
    x: np.ndarray
    u: np.ndarray
    status: int


@dataclass(frozen=True)
class Levels:
    """Level sets of a first integral H on the grid, masked to the region of law ``u`` where H is conserved."""

    H: np.ndarray
    values: np.ndarray
    u: int
    label: str


@dataclass
class PhasePortrait:
    """Everything a phase portrait shows, computed; :meth:`plot` draws it (see :mod:`.phase_draw`).

    Attributes
    ----------
    model : FluidModel
    params : dict
        Numeric parameters (model units).
    axes : (int, int)
        State indices on the horizontal and vertical axes.
    xlim, ylim : (float, float)
        Plotted box (state units): the requested box, widened to contain every trajectory unless the portrait
        was computed with ``fit=False``.
    fixed : ndarray, shape (n,)
        Values of every state used for the vector field, nullclines and surfaces; the two axis states vary.
    regions, nullclines, surfaces, floors, equilibria, trajectories, levels
        The computed layers (``surfaces``: polylines of σ = 0; ``floors``: ``(axis, value)`` with axis 0/1).
    color_by : int or None
        State index used as the colour of the trajectories (projections of larger models).
    projection : bool
        True when the picture is a 2-D projection (more than two states, or a delayed model).
    delayed : bool
        Whether the model has a positive feedback delay.
    law_names : (str, str)
        Names of the laws u = 0 and u = 1.
    title : str
    solution : DdeSolution or list of DdeSolution
        The solver output (JAX: one batch; reference: one solution per start).
    """

    model: FluidModel
    params: dict[str, float]
    axes: tuple[int, int]
    xlim: tuple[float, float]
    ylim: tuple[float, float]
    fixed: np.ndarray
    regions: list[FieldRegion] = field(default_factory=list)
    nullclines: list[Nullcline] = field(default_factory=list)
    surfaces: list[np.ndarray] = field(default_factory=list)
    floors: list[tuple[int, float]] = field(default_factory=list)
    equilibria: list[Equilibrium] = field(default_factory=list)
    trajectories: list[Trajectory] = field(default_factory=list)
    levels: Levels | None = None
    color_by: int | None = None
    projection: bool = False
    delayed: bool = False
    law_names: tuple[str, str] = DEFAULT_LAW_NAMES
    title: str = ""
    solution: Any = None

    @property
    def axis_names(self) -> tuple[str, str]:
        return self.model.states[self.axes[0]], self.model.states[self.axes[1]]

    def plot(self, ax: Any = None, **kwargs: Any) -> tuple[Any, Any, dict[str, list[Any]]]:
        """Draw the portrait; returns ``(figure, axes, artists)`` with artists grouped by layer.

        ``ax`` draws into existing axes; keyword options are those of :func:`.phase_draw.draw_portrait`.
        """
        from ..plots.phase_draw import draw_portrait

        return draw_portrait(self, ax=ax, **kwargs)


# --- computation ----------------------------------------------------------------------------------------------


def _full_states(fixed: np.ndarray, axes: tuple[int, int], X: np.ndarray, Y: np.ndarray) -> list[np.ndarray]:
    xs = [np.full_like(X, v, dtype=float) for v in fixed]
    xs[axes[0]], xs[axes[1]] = X, Y
    return xs


def _field(model: FluidModel, p: Mapping[str, float], xs: Sequence[np.ndarray], u: int) -> list[np.ndarray]:
    """F(x, x, u) with the delayed state frozen at x (the law's own field)."""
    out = model.rhs(xs, xs, u, p, np)
    return [np.broadcast_to(np.asarray(v, dtype=float), xs[0].shape) for v in out]


def _region_mask(model: FluidModel, p: Mapping[str, float], xs: Sequence[np.ndarray], u: int) -> np.ndarray:
    """True where law ``u`` does *not* apply (undelayed switch u = 1{σ(x) > 0}) or a floor is violated."""
    sig = np.asarray(model.surface(xs, p, np), dtype=float)
    outside = ~(sig > 0) if u == 1 else sig > 0
    for i, b in model.floors(p).items():
        outside = outside | (xs[i] < b)
    return np.broadcast_to(outside, xs[0].shape)


def phase_portrait(
    model: FluidModel,
    params: Any,
    initial_conditions: Any,
    t_span: tuple[float, float],
    *,
    axes: tuple[str, str] | None = None,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    fixed: Mapping[str, float] | None = None,
    history: Any = None,
    method: str = "reference",
    solver_options: Mapping[str, Any] | None = None,
    grid: int = 41,
    nullcline_grid: int = 201,
    first_integral: Callable[[Sequence[np.ndarray], Mapping[str, float]], np.ndarray] | None = None,
    integral_law: int = 1,
    integral_label: str = "H",
    levels: Sequence[float] | None = None,
    equilibria: bool | np.ndarray = True,
    color_by: str | None = None,
    law_names: tuple[str, str] = DEFAULT_LAW_NAMES,
    title: str = "",
    fit: bool = True,
) -> PhasePortrait:
    """Compute a phase portrait of ``model``.

    Parameters
    ----------
    model : FluidModel
    params : parameter object or mapping
        As for :func:`dwtcp_fluid.dde.solve` (one element).
    initial_conditions : array-like, shape (k, n)
        Full initial states (model units), one trajectory each.
    t_span : (t0, t1)
        Integration interval (model time unit: seconds for physical models).
    axes : (str, str), optional
        State names on the axes (default: the first two states).
    xlim, ylim : (float, float)
        The box shown (state units); with ``fit`` it is widened where a trajectory leaves it.
    fit : bool
        Widen the box to contain every computed trajectory (3 % margin beyond a side it passes), so the picture
        never cuts one at the frame; False keeps the box as given.
    fixed : mapping, optional
        Values of the states not on the axes for the field, nullclines and surfaces (default: their mean over
        the computed trajectories).
    history : optional
        Passed to the solver instead of the constant histories φ(t) = x0 (t ≤ t0).
    method : {"reference", "jax"}
        DDE solver; ``solver_options`` are passed through.
    grid, nullcline_grid : int
        Points per axis of the vector-field grid and of the grid the nullclines are contoured on.
    first_integral : callable, optional
        H(x, p) for a list of state arrays; its level sets are drawn in the region of ``integral_law``.
    levels : sequence of float, optional
        Levels of H (default: H at the initial conditions).
    equilibria : bool or array (k, n)
        Search for equilibria (True, from grid seeds), skip (False), or use these candidate seeds.
    integral_law : int
        The law (0 or 1) on whose region H is conserved and drawn.
    integral_label : str
        Name of H in the legend.
    color_by : str, optional
        A state shown as the colour of the trajectories (projections).
    law_names : (str, str)
        Labels of the laws u = 0 and u = 1.
    title : str
        Axes title.

    Returns
    -------
    PhasePortrait
    """
    n = len(model.states)
    ax_names = axes or model.states[:2]
    ia, ib = (model.state_index(a) for a in ax_names)
    if ia == ib:
        raise ValueError(
            f"axes={ax_names!r} is invalid: accepted two different states of {list(model.states)}"
        )
    for nm, lim in (("xlim", xlim), ("ylim", ylim)):
        if not (len(lim) == 2 and np.all(np.isfinite(lim)) and lim[1] > lim[0]):
            raise ValueError(f"{nm}={lim!r} is invalid: accepted (lo, hi) with finite lo < hi")
    for nm, v, lo in (("grid", grid, 5), ("nullcline_grid", nullcline_grid, 5)):
        if not (isinstance(v, int) and v >= lo):
            raise ValueError(f"{nm}={v!r} is out of range: accepted an integer >= {lo}")
    x0s = np.atleast_2d(np.asarray(initial_conditions, dtype=float))
    if x0s.ndim != 2 or x0s.shape[1] != n or not np.all(np.isfinite(x0s)):
        raise ValueError(
            f"initial_conditions has shape {x0s.shape}: accepted finite states of shape (k, {n})"
        )
    opts = dict(solver_options or {})
    if isinstance(params, Mapping):
        p = {k: float(v) for k, v in params.items()}
    else:
        p = model.numeric_params(params)
    model.check_params(p)
    k = x0s.shape[0]
    hist = x0s if history is None else history
    if method == "reference":
        # one solve per start: a batch would be cut at the earliest element's stop (e.g. a chattering check)
        per = [
            hist[e] if isinstance(hist, np.ndarray | list | tuple) and len(hist) == k else hist
            for e in range(k)
        ]
        runs = [(solve(model, p, h, t_span, method=method, **opts), 0) for h in per]
        sol: Any = [r for r, _ in runs]
    else:
        sol = solve(model, [p] * k, hist, t_span, method=method, **opts)
        runs = [(sol, e) for e in range(k)]
    delay = float(model.delay(p))
    trajs = []
    for e, (s, j) in enumerate(runs):
        if s.method == "reference":
            # resample the dense output evenly, so arrows and colours are spaced in time
            t = np.linspace(s.t[0], s.t[-1], 4001)
            x = s(t, j)
        else:
            t, x = s.t, s.x[j]
        if delay > 0:
            u = switch_input(s, j, t, delay)
        else:  # undelayed: u = 1{σ(x(t)) > 0} by definition (exact even when the crossing log is truncated)
            u = (np.asarray(model.surface(list(x.T), p, np), dtype=float) > 0).astype(np.int8)
        trajs.append(Trajectory(x0s[e], t, x, u, int(s.status[j])))
    if fit and trajs:
        xlim = _fit_box(xlim, np.concatenate([tr.x[:, ia] for tr in trajs]))
        ylim = _fit_box(ylim, np.concatenate([tr.x[:, ib] for tr in trajs]))
    fx = np.array(x0s.mean(axis=0) if not trajs else np.concatenate([tr.x for tr in trajs]).mean(axis=0))
    for nm, v in (fixed or {}).items():
        fx[model.state_index(nm)] = float(v)
    pp = PhasePortrait(
        model=model,
        params=p,
        axes=(ia, ib),
        xlim=(float(xlim[0]), float(xlim[1])),
        ylim=(float(ylim[0]), float(ylim[1])),
        fixed=fx,
        trajectories=trajs,
        color_by=None if color_by is None else model.state_index(color_by),
        projection=n > 2 or delay > 0,
        delayed=delay > 0,
        law_names=law_names,
        title=title,
        solution=sol,
    )
    _layers(pp, grid, nullcline_grid)
    if first_integral is not None:
        X, Y = np.meshgrid(np.linspace(*pp.xlim, nullcline_grid), np.linspace(*pp.ylim, nullcline_grid))
        xs = _full_states(fx, (ia, ib), X, Y)
        H = np.asarray(first_integral(xs, p), dtype=float)
        H = np.ma.masked_array(H, _region_mask(model, p, xs, integral_law) | ~np.isfinite(H))
        lv = levels
        if lv is None:
            lv = [float(first_integral(list(x0), p)) for x0 in x0s]
        pp.levels = Levels(
            H=H, values=np.unique(np.asarray(lv, dtype=float)), u=integral_law, label=integral_label
        )
    if equilibria is not False and equilibria is not None:
        if equilibria is True:
            if n != 2:
                seeds = np.concatenate([tr.x[-1:] for tr in trajs])
            else:
                gx, gy = np.meshgrid(np.linspace(*pp.xlim, 7), np.linspace(*pp.ylim, 7))
                seeds = np.stack([gx.ravel(), gy.ravel()], axis=1)
        else:
            seeds = np.atleast_2d(np.asarray(equilibria, dtype=float))
        pp.equilibria = find_equilibria(model, p, seeds)
    return pp


def _fit_box(lim: tuple[float, float], values: np.ndarray, margin: float = 0.03) -> tuple[float, float]:
    """``lim`` widened to contain the finite ``values`` with a ``margin`` (share of the span) beyond each side they
    pass; a side is kept when they stay inside it or pass it by at most 0.5 % of the span (a solver's overshoot of a
    floor)."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return lim
    lo, hi = float(lim[0]), float(lim[1])
    vlo, vhi = float(v.min()), float(v.max())
    slack = 0.005 * (hi - lo)
    span = max(hi, vhi) - min(lo, vlo)
    if vlo < lo - slack:
        lo = vlo - margin * span
    if vhi > hi + slack:
        hi = vhi + margin * span
    return lo, hi


def _layers(pp: PhasePortrait, grid: int, ngrid: int) -> None:
    """Vector field per law, nullclines, the switching surface and the floors, in the plotted box."""
    model, p, (ia, ib) = pp.model, pp.params, pp.axes
    for size, fine in ((grid, False), (ngrid, True)):
        X, Y = np.meshgrid(np.linspace(*pp.xlim, size), np.linspace(*pp.ylim, size))
        xs = _full_states(pp.fixed, (ia, ib), X, Y)
        for u in (0, 1):
            with np.errstate(all="ignore"):
                F = _field(model, p, xs, u)
            mask = _region_mask(model, p, xs, u)
            if not fine:
                pp.regions.append(FieldRegion(u, pp.law_names[u], X, Y, F[ia], F[ib], mask))
                continue
            # a law's nullcline is kept inside its region and on its boundary (one grid cell of slack)
            for i, name in enumerate(model.states):
                lines = nullcline_lines(X, Y, F[i], ~dilate(mask))
                if lines:
                    pp.nullclines.append(Nullcline(name, u, lines))
        if fine:
            sig = np.asarray(model.surface(xs, p, np), dtype=float) * np.ones_like(X)
            pp.surfaces = list(nullcline_lines(X, Y, sig, np.ones_like(X, dtype=bool)))
    for i, b in model.floors(p).items():
        if i in (ia, ib):
            pp.floors.append((0 if i == ia else 1, float(b)))
