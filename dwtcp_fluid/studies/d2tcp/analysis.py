"""D2TCP's limit cycle as a function of the deadline imminence d, through the generic cycle and Floquet machinery.

For a fixed d the D2TCP fluid model (:class:`~dwtcp_fluid.models.D2tcpFluid`, [DCTCP-A] eqs. (5)-(8) with the
penalty α^d of [D2TCP] eq. (1)) is a relay system with delay like DCTCP's; :func:`~dwtcp_fluid.analysis.limit_cycle.limit_cycle` finds
its cycle by Newton on the return map and gives the Floquet multiplier ρ (spectral radius of the return map's
Jacobian, < 1: orbitally stable). The question of [D2TCP] §3.2.4: does a far-deadline flow's d < 1 (a gentler
cut) destabilize the cycle or enlarge the queue swing?
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...analysis.limit_cycle import find_limit_cycle, limit_cycle
from ...models import D2tcpFluid
from ...params import DctcpParams

__all__ = ["d2tcp_cycles"]


def d2tcp_cycles(params: DctcpParams, dimms: Sequence[float]) -> list[dict[str, Any]]:
    """The D2TCP limit cycle at each imminence d of ``dimms`` (all N flows with the same d).

    Parameters
    ----------
    params : DctcpParams
        The DCTCP setting (C, d, K, g, N).
    dimms : sequence of float
        Imminence values d, 0 < d ≤ 10.

    Each Newton solve starts from the DCTCP cycle of the normalized model ([DCTCP-A] (11)-(14)) at the same
    setting; the physical model runs without the queue floor, so a row is valid only with ``q_min`` > 0 (stated in
    ``above_floor``). Returns per d: ``dimm``, ``ok``, ``period_s``, ``q_min``, ``q_max``, ``amplitude``
    (q_max − q_min, packets), ``rho`` (Floquet multiplier), ``W_cross``/``alpha_cross`` (state at the downward
    crossing), ``above_floor``.
    """
    if not isinstance(params, DctcpParams):
        raise ValueError(f"params={params!r} is invalid: accepted a DctcpParams")
    for d in dimms:
        if not 0.0 < float(d) <= 10.0:
            raise ValueError(f"dimm={d!r} is out of range: accepted 0 < d ≤ 10 ([D2TCP] caps it to [0.5, 2])")
    ref = find_limit_cycle(params.wbar, params.g)
    y0 = ref.x_alpha[:2].copy() if hasattr(ref, "x_alpha") else None
    if y0 is None:
        raise ValueError(
            f"params has w̄ = {params.wbar:g} ≤ 2: DCTCP has a fixed point there, no cycle to follow"
        )
    out = []
    for d in dimms:
        c = limit_cycle(D2tcpFluid(queue_floor=False, imminence=float(d)), params, y0)
        out.append(
            {
                "dimm": float(d),
                "ok": bool(c.ok),
                "period_s": float(c.period),
                "q_min": float(c.q_min),
                "q_max": float(c.q_max),
                "amplitude": float(c.q_max - c.q_min),
                "rho": float(c.rho),
                "W_cross": float(c.x_alpha[0]),
                "alpha_cross": float(c.x_alpha[1]),
                "above_floor": bool(c.q_min > 0),
            }
        )
    return out
