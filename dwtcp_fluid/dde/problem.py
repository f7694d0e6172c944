"""What both DDE solvers need from a model, validated once: delays, switching channels, state bounds.

A model (:class:`dwtcp_fluid.models.base.FluidModel`) is the switched delay system

    x'(t) = F(x(t), x(t − τ_1), …, x(t − τ_k), u(t)),      u_j(t) = 1{σ(x(t − D_j)) > 0},   j = 1..m,

where the state delays ``τ_1..τ_k`` are ``model.state_delays(p)`` (``(model.delay(p),)``, one delayed copy,
unless the model declares several) and the switching delays ``D_j`` are ``model.switch_delays(p)`` (``(τ_d,)`` unless
the model declares one channel per flow group, as with heterogeneous RTTs). All channels read the same
surface σ, so one log of the crossings of σ = 0 determines every u_j: a crossing at t_c switches channel j at
t_c + D_j. A delay of 0 is an undelayed switch (the paper's DWTCP analysis). State bounds are sliding modes:
``model.floors(p)`` (x_i ≥ b) and ``model.ceilings(p)`` (x_i ≤ b).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..models.base import FluidModel

__all__ = ["Problem", "make_problem", "numeric_params", "uses_delayed_state"]


@dataclass(frozen=True)
class Problem:
    """A validated single-trajectory problem (floats only).

    Attributes
    ----------
    model : FluidModel
    p : dict
        Numeric parameters (model units).
    tau_d : float
        The largest state delay (model time unit); 0 when undelayed.
    state_delays : tuple of float
        Delays τ_1..τ_k of the delayed copies x(t − τ_j) F reads (``(tau_d,)`` for a one-delay model).
    switch_delays : tuple of float
        Delay D_j of each switching channel (model time unit).
    bounds : tuple of (int, float, int)
        ``(state index, bound, sign)``: sign +1 for a floor x_i ≥ b, −1 for a ceiling x_i ≤ b.
    uses_xd : bool
        Whether F reads x(t − τ_d) at all (decides whether steps must be shorter than τ_d).
    """

    model: FluidModel
    p: dict[str, float]
    tau_d: float
    switch_delays: tuple[float, ...]
    bounds: tuple[tuple[int, float, int], ...]
    uses_xd: bool
    state_delays: tuple[float, ...]

    @property
    def read_delays(self) -> tuple[float, ...]:
        """The delays of the copies F reads: ``state_delays`` when it reads any, else ()."""
        return self.state_delays if self.uses_xd else ()

    @property
    def n(self) -> int:
        return len(self.model.states)

    @property
    def max_delay(self) -> float:
        return max((self.tau_d if self.uses_xd else 0.0,) + self.switch_delays)

    @property
    def min_positive_delay(self) -> float:
        """The smallest positive delay that a fixed step must not exceed (inf when there is none)."""
        ds = [d for d in self.switch_delays + self.read_delays if d > 0]
        return min(ds) if ds else math.inf


@functools.lru_cache(maxsize=64)
def uses_delayed_state(model: FluidModel) -> bool:
    """True when the model's F depends on x(t − τ_d) for some value of the switch (checked symbolically)."""
    xd = {s for xs in model.delayed_symbol_sets() for s in xs}
    for u in (0, 1):
        F = model.sym_rhs(u, delayed=True)
        if any(s in xd for s in F.free_symbols):
            return True
    return False


def numeric_params(model: FluidModel, params: Any) -> dict[str, float]:
    """Parameters as ``{name: float}``: a parameter object goes through ``model.numeric_params``.

    Raises ``ValueError`` naming a missing, unknown, non-finite or out-of-range parameter (the ranges are the
    model's declaration, :meth:`~dwtcp_fluid.models.base.FluidModel.bounds`).
    """
    if not isinstance(params, Mapping):
        try:
            params = model.numeric_params(params)
        except (AttributeError, TypeError, KeyError):
            raise ValueError(
                f"params={params!r} is invalid: accepted a parameter object of {model.name} "
                f"(DctcpParams, DwtcpParams ...) or a mapping with keys {list(model.param_names)}"
            ) from None
    missing = [k for k in model.param_names if k not in params]
    if missing:
        raise ValueError(
            f"params={dict(params)!r} is invalid: missing {missing}; accepted keys {list(model.param_names)}"
        )
    unknown = [k for k in params if k not in model.param_names]
    if unknown:
        raise ValueError(
            f"params[{unknown[0]!r}] is not a parameter of {model.name}: accepted keys {list(model.param_names)}"
        )
    bounds = model.bounds()
    out: dict[str, float] = {}
    for k, v in params.items():
        try:
            fv = float(v)
        except (TypeError, ValueError):
            raise ValueError(f"params[{k!r}]={v!r} is invalid: accepted a finite number") from None
        if not math.isfinite(fv):
            raise ValueError(f"params[{k!r}]={v!r} is out of range: accepted a finite number")
        if k in bounds:
            bounds[k].check(k, fv)
        out[k] = fv
    return out


def _check_delay(name: str, value: Any) -> float:
    v = float(value)
    if not math.isfinite(v) or v < 0:
        raise ValueError(
            f"{name}={value!r} is out of range: accepted a finite delay >= 0 (0 means an undelayed switch)"
        )
    return v


def make_problem(model: FluidModel, params: Any) -> Problem:
    """Validate a model and its parameters into a :class:`Problem`."""
    if not isinstance(model, FluidModel):
        raise ValueError(f"model={model!r} is invalid: accepted a dwtcp_fluid.models FluidModel instance")
    p = numeric_params(model, params)
    taus = tuple(_check_delay("delay", d) for d in model.state_delays(p))
    if not taus:
        raise ValueError("state_delays=() is invalid: accepted at least one state delay")
    tau_d = max(taus)
    sdel = tuple(_check_delay("switch_delays", d) for d in model.switch_delays(p))
    if not sdel:
        raise ValueError("switch_delays=() is invalid: accepted at least one switching channel")
    bounds = [(int(i), float(b), 1) for i, b in model.floors(p).items()]
    bounds += [(int(i), float(b), -1) for i, b in model.ceilings(p).items()]
    uses_xd = uses_delayed_state(model)
    if uses_xd and len(taus) > 1 and min(taus) == 0.0:
        raise ValueError(f"state_delays={taus!r} is out of range: accepted delays > 0 when there are several")
    if uses_xd and tau_d == 0.0:
        uses_xd = False  # x(t − 0) is x(t): the model is an ODE in its delayed argument
    return Problem(model, p, tau_d, sdel, tuple(bounds), uses_xd, taus)
