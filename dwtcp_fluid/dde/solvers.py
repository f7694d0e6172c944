"""Solver objects: the options of each backend, validated once, passed as ``solve(..., solver=...)``.

Like diffrax's ``solver=`` argument and SciPy's ``METHODS`` table, a solver is a small frozen object that names
the backend and carries its options; invalid options fail when the object is built, with a one-line
``ValueError`` naming the option.

* :class:`Reference`: SciPy method of steps with exact events (:mod:`.scipy_steps` on :mod:`.segment`).
* :class:`JaxRK4`: batched, event-aware fixed-step RK4 in JAX (:mod:`.jax_rk` on :mod:`.segment_jax`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Reference", "JaxRK4", "METHODS", "SOLVERS", "make_solver"]

#: ``solve_ivp`` methods the reference solver accepts (explicit and implicit Runge-Kutta, BDF, LSODA).
METHODS = ("DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA")


def _positive(name: str, v: Any) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={v!r} is invalid: accepted a finite {name} > 0") from None
    if not (math.isfinite(f) and f > 0):
        raise ValueError(f"{name}={v!r} is out of range: accepted a finite {name} > 0")
    return f


def _int_at_least(name: str, v: Any, lo: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ValueError(f"{name}={v!r} is out of range: accepted an integer >= {lo}")
    return v


@dataclass(frozen=True)
class Reference:
    """The event-exact SciPy reference: ``solve_ivp`` between events, dense output stitched.

    Parameters
    ----------
    rtol, atol : float
        Tolerances of ``solve_ivp`` (``atol`` in state units, e.g. packets).
    method : str
        One of :data:`METHODS`.
    """

    rtol: float = 1e-10
    atol: float = 1e-10
    method: str = "DOP853"

    name = "reference"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rtol", _positive("rtol", self.rtol))
        object.__setattr__(self, "atol", _positive("atol", self.atol))
        if self.method not in METHODS:
            raise ValueError(f"integrator={self.method!r} is invalid: accepted one of {', '.join(METHODS)}")

    def options(self) -> dict[str, Any]:
        return {"rtol": self.rtol, "atol": self.atol, "integrator": self.method}


@dataclass(frozen=True)
class JaxRK4:
    """The batched JAX solver: fixed-step RK4 with events located on the step's Hermite interpolant.

    Parameters
    ----------
    dt : float, optional
        Fixed step (model time unit); default 1/20 of the fastest time scale of the batch (:func:`~.solve.default_step`:
        the smallest delay and each model's :meth:`~dwtcp_fluid.models.base.FluidModel.step_scale`, e.g. the base
        RTT d of DCTCP when K/C ≫ d). It must not exceed the smallest positive delay and is shrunk slightly so that whole steps cover the time span.
    save_every : int, optional
        Save the state every this many steps (default: about 2000 saved intervals).
    max_substeps : int
        Events allowed inside one step before the element fails with ``TOO_MANY_EVENTS``.
    crossing_buffer : int
        Pending crossings of σ = 0 it can hold (``BUFFER_OVERFLOW`` beyond).
    exact_exits : bool
        Locate the moment a held state leaves its bound by Newton on the interpolant instead of linearly (about
        a third more time; needed for full order when the switching surface coincides with a bound).
    check : bool
        Step-doubling error check (default on). The batch runs a second time at twice the step in the same
        compiled call: |x_h − x_2h| bounds the run's error for any convergence order ≥ 1. Where that exceeds
        ``atol + rtol·max_t |x_i|`` in a state x_i at a saved point (or twice the step is not allowed: above the
        smallest delay), the element runs again at half the step, and 2·|x_h − x_{h/2}| (the run's error within
        a factor 2 for any order ≥ 1) decides: above the tolerance, the element's status is ``INACCURATE``
        instead of a result. The estimate is ``DdeSolution.error_estimate``. Costs about twice the run's steps
        (four times, and a second compilation, where the half step is needed).
    atol, rtol : float
        The check's tolerance: 1e-3 state units (packets for the queue, the accuracy the JAX solver is
        documented to reach against the reference, tests/test_dde_agreement.py) plus 1e-6 of the state's largest magnitude.
    """

    dt: float | None = None
    save_every: int | None = None
    max_substeps: int = 8
    crossing_buffer: int = 64
    exact_exits: bool = False
    check: bool = True
    atol: float = 1e-3
    rtol: float = 1e-6

    name = "jax"

    def __post_init__(self) -> None:
        if self.dt is not None:
            object.__setattr__(self, "dt", _positive("dt", self.dt))
        if self.save_every is not None:
            _int_at_least("save_every", self.save_every, 1)
        _int_at_least("max_substeps", self.max_substeps, 2)
        _int_at_least("crossing_buffer", self.crossing_buffer, 2)
        object.__setattr__(self, "exact_exits", bool(self.exact_exits))
        object.__setattr__(self, "check", bool(self.check))
        object.__setattr__(self, "atol", _positive("atol", self.atol))
        object.__setattr__(self, "rtol", _positive("rtol", self.rtol))


#: name → solver class (``solve(..., method=name)`` builds one from keyword options).
SOLVERS: dict[str, type] = {"reference": Reference, "jax": JaxRK4}


def make_solver(method: str, **options: Any) -> Reference | JaxRK4:
    """A solver object from a method name and its options (``None`` options take the defaults)."""
    if method not in SOLVERS:
        raise ValueError(f"method={method!r} is invalid: accepted 'reference' or 'jax'")
    if method == "reference":
        kw = {"rtol": options.get("rtol"), "atol": options.get("atol"), "method": options.get("integrator")}
    else:
        kw = {
            k: options.get(k)
            for k in (
                "dt",
                "save_every",
                "max_substeps",
                "crossing_buffer",
                "exact_exits",
                "check",
                "atol",
                "rtol",
            )
        }
    return SOLVERS[method](**{k: v for k, v in kw.items() if v is not None})
