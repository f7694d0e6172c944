"""DWTCP fluid model of appendix A of [DWTCP], written once (see :mod:`.base`).

State (w, q): per-flow window w and bottleneck queue q, both in packets; time in seconds.

* Switching: the Scout is "late" when d_s > d_t, i.e. when the queue k̄ it waits behind exceeds the target k
  (eq. (4)): σ(x) = q − k, u(t) = 1{q(t − τ_d) > k}.
* Decrease (u = 1), variant ``"paper"``, eqs. (5)/(6):  w' = −(β·w/τ)·(k̄ − k)/(BDP + k);
  variant ``"sqrt"``, eq. (3):  w' = −w·sqrt(w)·β_w/τ · (k̄ − k)/(BDP + k̄)  with β_w in the packet convention.
  variant ``"ipg"`` (IPG law after Algorithm 1, simplified as (5)):  w' = −2β·(w/τ)·((k̄ − k)/(BDP + k))².
  k̄ is the queue the Scout saw: q(t − τ_d). The paper's analysis takes τ_d = 0 (k̄ = q).
* Increase (u = 0), eq. (7):  w' = (1 + α·S/L)/τ packets/s  ((L + α·S)/τ in bytes; the paper's fluid model has α = 1).
* Queue, eqs. (6)/(7):  q' = N·w/τ − C, with the physical floor q ≥ 0 unless ``queue_floor=False``.

``delay_rtts`` = 0 gives the paper's undelayed model; ``delay_rtts = 1`` puts back the one-RTT feedback delay of
the Scout signal (docs/equations.md, "Points the project must examine").
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import sympy as sp

from ..params import MODEL_BOUNDS, Bound, DwtcpParams
from .base import FluidModel

__all__ = [
    "DwtcpFluid",
    "DWTCP_PAPER",
    "jacobian_decrease",
    "char_poly_decrease",
    "eigenvalues_decrease",
    "eigenvalues_closed_form",
    "frozen_jacobian",
]


#: The decrease laws of :class:`DwtcpFluid`.
Variant = Literal["paper", "sqrt", "ipg"]


@dataclass(frozen=True)
class DwtcpFluid(FluidModel):
    """DWTCP fluid model, [DWTCP] eqs. (3)-(7).

    Parameters
    ----------
    variant : {"paper", "sqrt", "ipg"}
        ``"paper"``: the simplified decrease (5)/(6) (sqrt(w) dropped, d_s → d_t in the denominator);
        ``"sqrt"``: the original decrease (3);
        ``"ipg"``: the inter-packet-gap law stated after Algorithm 1, with the same simplification as (5) and the
        modelling assumption ipg_s/ipg_t = d_s/d_t (ipg_t = d_t / Scout window, and the Scout window spreads d_s
        the same way), under which all three IPG cases read w' = −2β·(w/τ)·((k̄ − k)/(BDP + k))².
    delay_rtts : float
        Feedback delay τ_d in units of τ (0: the paper's undelayed model; 1: the Scout's one-RTT delay).
    queue_floor : bool
        Hold q at 0 while N·w/τ < C (a physical queue). ``False`` lets q go negative, as an unconstrained ODE.
    """

    param_bounds: ClassVar[Mapping[str, Bound] | None] = MODEL_BOUNDS

    variant: Variant = "paper"
    delay_rtts: float = 0.0
    queue_floor: bool = True

    name: ClassVar[str] = "dwtcp"
    states: ClassVar[tuple[str, ...]] = ("w", "q")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "packets")
    param_names: ClassVar[tuple[str, ...]] = ("beta", "beta_w", "tau", "C", "N", "k", "s_over_l", "alpha")
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        "w": (0.1, 1e3),
        "q": ("lin", 0.0, 2e3),
        "beta": (1e-4, 1.0),
        "beta_w": (1e-4, 1.0),
        "tau": (1e-5, 1e-2),
        "C": (1e4, 1e7),
        "N": (1.0, 1e3),
        "k": ("lin", 0.0, 500.0),
        "s_over_l": (0.01, 0.1),
        "alpha": (1.0, 64.0),
    }

    def __post_init__(self) -> None:
        if self.variant not in ("paper", "sqrt", "ipg"):
            raise ValueError(f"variant={self.variant!r} is invalid: accepted 'paper', 'sqrt' or 'ipg'")
        if not (np.isfinite(self.delay_rtts) and self.delay_rtts >= 0):
            raise ValueError(
                f"delay_rtts={self.delay_rtts!r} is out of range: accepted finite delay_rtts >= 0"
            )

    def decrease_rate(self, w: Any, kbar: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """w' in the decrease phase: [DWTCP] eqs. (5)/(6) (``"paper"``, ``"ipg"``) or [DWTCP] eq. (3) (``"sqrt"``)."""
        bdp = p["tau"] * p["C"]
        if self.variant == "paper":
            return -(p["beta"] * w / p["tau"]) * (kbar - p["k"]) / (bdp + p["k"])
        if self.variant == "ipg":
            # IPG law (after Algorithm 1): with ipg_s/ipg_t = d_s/d_t the three cases coincide; simplified as (5).
            return -2 * (p["beta"] * w / p["tau"]) * ((kbar - p["k"]) / (bdp + p["k"])) ** 2
        return -w * xp.sqrt(w) * p["beta_w"] / p["tau"] * (kbar - p["k"]) / (bdp + kbar)

    def increase_rate(self, p: Mapping[str, Any]) -> Any:
        """w' in the increase phase, (L + α·S)/τ in packets/s, [DWTCP] eq. (7)."""
        return (1 + p["alpha"] * p["s_over_l"]) / p["tau"]

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """DWTCP fluid right-hand side, [DWTCP] eqs. (6)/(7) (k̄ = q(t − τ_d))."""
        w, q = x
        kbar = xd[1]
        # ``where`` (not u·a + (1 − u)·b) so that a non-finite unused branch cannot leak into the result.
        dw = xp.where(u > 0, self.decrease_rate(w, kbar, p, xp), self.increase_rate(p) + 0 * w)
        dq = p["N"] * w / p["tau"] - p["C"]
        return (dw, dq)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = q − k: d_s > d_t ⇔ k̄ > k, [DWTCP] eq. (4)."""
        return x[1] - p["k"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        return self.delay_rtts * p["tau"]

    def step_scale(self, p: Mapping[str, Any]) -> float | None:
        """τ without a feedback delay (the JAX default step τ/20, as with a one-RTT delay): every rate scales as
        1/τ, and the one-step overshoot of the switch at the queue floor q = k = 0 leaves an orbit whose size is
        proportional to the step (dde.summary.STEP_ARTEFACT_Q), so the step must follow τ, never the requested
        duration. With a delay, None: the delay (τ_d = delay_rtts·τ) sets it."""
        return float(p["tau"]) if self.delay_rtts == 0 else None

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {1: 0.0} if self.queue_floor else {}

    def numeric_params(self, params: DwtcpParams, *, alpha: float = 1.0) -> dict[str, float]:
        """Floats for :meth:`rhs` from a :class:`~dwtcp_fluid.params.DwtcpParams` (C in packets/s, τ in s).

        ``alpha`` is the Scout coefficient in the increase (L + α·S)/τ; the paper's fluid model (7) uses 1.
        """
        return {
            "beta": float(params.beta),
            "beta_w": float(params.beta_sqrt_packets),
            "tau": float(params.tau),
            "C": float(params.link.C),
            "N": float(params.flows),
            "k": float(params.k),
            "s_over_l": float(params.scout_ratio),
            "alpha": float(alpha),
        }


#: The paper's model: simplified decrease (6), increase (7), no feedback delay, physical queue.
DWTCP_PAPER = DwtcpFluid()


# --- frozen linearization of the decrease phase: eqs. (8)-(14) ------------------------------------------------


@functools.cache
def jacobian_decrease(variant: Variant = "paper") -> sp.Matrix:
    """Jacobian (8) of the decrease phase in (w, q), treating k̄ as the queue q, [DWTCP] eq. (8).

    Derived from :meth:`DwtcpFluid.rhs` with u = 1 and x(t − τ_d) = x. With k = 0 it reads
    [[−β·k̄/(τ·BDP), −β·w/(τ·BDP)], [N/τ, 0]].
    """
    return DwtcpFluid(variant=variant).jacobian(1)


@functools.cache
def char_poly_decrease(variant: Variant = "paper") -> sp.Expr:
    """Characteristic polynomial det(λI − J), [DWTCP] eq. (10), in the symbol ``lam``."""
    lam = sp.Symbol("lam")
    J = jacobian_decrease(variant)
    poly = sp.Poly(sp.cancel((lam * sp.eye(2) - J).det()), lam)
    return sum(sp.factor(c) * lam**i for (i,), c in poly.terms())


@functools.cache
def _eig_closed_form_fn(variant: Variant):
    xs, ps = DwtcpFluid(variant=variant).symbols()
    lam = sp.Symbol("lam")
    roots = sp.solve(char_poly_decrease(variant), lam)
    args = list(xs) + [ps[n] for n in DwtcpFluid.param_names]
    return [sp.lambdify(args, r, modules="numpy") for r in roots]


def _batched(params_map: Mapping[str, Any], w: Any, kbar: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
    x = [np.asarray(w, dtype=float), np.asarray(kbar, dtype=float)]
    pv = [np.asarray(params_map[n], dtype=float) for n in DwtcpFluid.param_names]
    return x, pv


def eigenvalues_closed_form(p: Mapping[str, Any], kbar: Any, w: Any) -> np.ndarray:
    """Roots (11) of (10) from SymPy's ``solve``, evaluated in complex arithmetic, [DWTCP] eq. (11).

    Returns an array of shape ``batch + (2,)``, sorted by imaginary part.
    """
    fns = _eig_closed_form_fn("paper")
    x, pv = _batched(p, w, kbar)
    vals = [np.asarray(f(*[v.astype(complex) for v in x + pv]), dtype=complex) for f in fns]
    out = np.stack(np.broadcast_arrays(*vals), axis=-1)
    return np.take_along_axis(out, np.argsort(out.imag, axis=-1), axis=-1)


def frozen_jacobian(p: Mapping[str, Any], kbar: Any, w: Any, variant: Variant = "paper") -> np.ndarray:
    """Numeric Jacobian (8) at (w, q = k̄), batched; shape ``batch + (2, 2)``. [DWTCP] eq. (8).

    ``p``: the model's parameter mapping; ``kbar`` (k̄) and ``w`` in packets, broadcast together; ``variant``
    as :class:`DwtcpFluid`.
    """
    fn = DwtcpFluid(variant=variant).jacobian_fn(1)
    return fn([w, kbar], p)


def eigenvalues_decrease(p: Mapping[str, Any], kbar: Any, w: Any, variant: Variant = "paper") -> np.ndarray:
    """Eigenvalues of the frozen Jacobian (8) by ``numpy.linalg.eigvals``, sorted by imaginary part, [DWTCP] eq. (8).

    ``p``, ``kbar``, ``w``, ``variant``: as :func:`frozen_jacobian`.
    """
    ev = np.linalg.eigvals(frozen_jacobian(p, kbar, w, variant))
    return np.take_along_axis(ev, np.argsort(ev.imag, axis=-1), axis=-1)
