"""DWTCP fluid model with the Scout coefficient α as a state (section 3 of [DWTCP]).

Not the Scout-faithful model: here the Scout still reads the queue delay k̄ = q of (3)-(7), one feedback delay
late. The Scout-faithful model, in which the Scout is served only in idle time and measures the link's busy period
as the packet core shows, is :class:`~.dwtcp_busy.DwtcpBusyFluid` (``scout-faithful`` in the comparisons).

The sender doubles α on every Scout ACK and halves it on every Scout loss, a Scout later than d_t counting as
lost; one Scout is sent per RTT. The fluid approximation chosen here:

    d(log2 α)/dt = +1/τ   while Scouts return within d_t  (u = 0: one doubling per RTT)
    d(log2 α)/dt = −1/τ   while they are late             (u = 1: one halving per RTT)

with the same delayed switch u as the window (the Scout reports the queue one feedback delay late), and the
increase (7) using the current α: w' = (1 + α·S/L)/τ. Why the logarithm: doubling and halving are multiplicative
per-RTT events, so log2 α changes by ±1 per RTT and its fluid limit is the piecewise-constant rate above; it also
keeps α > 0 without a guard. α is bounded, because the paper's doubling is unbounded (docs/equations.md, DWTCP note 2):

* ``alpha_min`` = 1 (default): Algorithm 1 starts at α = 1; below one Scout size per Scout ACK the increase
  would fall under the plain additive increase of the window law's +S term, which the paper never describes.
* ``alpha_max`` = 64 (default): the evaluation starts at α₀ = 20 ("1 MTU" of Scout credit, 20·64 B ≈ 1280 B);
  64 allows about 2.7 MTU per Scout ACK, i.e. a bit more than one further doubling. It is a parameter, and the
  caps are sliding-mode bounds of the solvers (floor and ceiling of the state ``log2_alpha``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..params import DwtcpParams, check_range
from .dwtcp import DwtcpFluid

__all__ = ["DwtcpScoutFluid"]


@dataclass(frozen=True)
class DwtcpScoutFluid(DwtcpFluid):
    """DWTCP fluid model (3)-(7) of [DWTCP] plus a log2 α state for the dynamic Scout coefficient (the queue-delay
    reading of the Scout; the Scout-faithful model is :class:`~.dwtcp_busy.DwtcpBusyFluid`).

    Parameters are those of :class:`DwtcpFluid`; ``alpha_min`` and ``alpha_max`` bound α (see module docstring).
    """

    alpha_min: float = 1.0
    alpha_max: float = 64.0

    name: ClassVar[str] = "dwtcp-scout"
    states: ClassVar[tuple[str, ...]] = ("w", "q", "log2_alpha")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "packets", "log2(1)")
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        **DwtcpFluid.sample_domain,
        "log2_alpha": ("lin", 0.0, 6.0),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        check_range("alpha_min", self.alpha_min, lo=0.0, lo_open=True)
        check_range("alpha_max", self.alpha_max, lo=self.alpha_min, why="alpha_max >= alpha_min")

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """[DWTCP] eqs. (6)/(7) with α = 2^log2_alpha, and d(log2 α)/dt = (1 − 2u)/τ."""
        a = x[2]
        p_alpha = dict(p)
        p_alpha["alpha"] = xp.exp(a * math.log(2.0))
        dw, dq = super().rhs(x[:2], xd[:2], u, p_alpha, xp)
        da = (1 - 2 * u) / p["tau"] + 0 * a
        return (dw, dq, da)

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        out = dict(super().floors(p))
        out[2] = math.log2(self.alpha_min)
        return out

    def ceilings(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """Upper bound log2 α ≤ log2(alpha_max), held as a sliding mode by the solvers."""
        return {2: math.log2(self.alpha_max)}

    def numeric_params(self, params: DwtcpParams, *, alpha: float = 1.0) -> dict[str, float]:
        """As :meth:`DwtcpFluid.numeric_params`; ``alpha`` is unused here (α is the state)."""
        return super().numeric_params(params, alpha=alpha)
