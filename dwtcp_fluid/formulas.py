"""Closed-form results of the papers that several modules use, each written once (plain floats or arrays).

The fluid models (:mod:`dwtcp_fluid.models`) own the equations themselves; what is here are the few results of
those equations that callers need as numbers — a threshold, a fixed point — so that no one types them again.
Each is derived and checked symbolically in :mod:`dwtcp_fluid.symbolic` (see ``proofs/INDEX.md``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["kbar_star", "dctcp_fixed_point_normalized", "dctcp_fixed_point_queue", "swift_flow_scaling"]


def kbar_star(bdp: Any, beta: Any) -> Any:
    """The DWTCP stability threshold k̄* = 2·BDP/√β (packets), [DWTCP] eq. (14).

    ``bdp`` in packets, ``beta`` the decrease gain; broadcasts over arrays. The paper's condition is k̄ < k̄*.
    Raises ``ValueError`` unless every BDP is finite and > 0 and every β in (0, 1].
    """
    b, bt = np.asarray(bdp, dtype=float), np.asarray(beta, dtype=float)
    if not np.all(np.isfinite(b) & (b > 0)):
        raise ValueError(f"bdp={bdp!r} is out of range: accepted a finite BDP > 0 (packets)")
    if not np.all(np.isfinite(bt) & (bt > 0) & (bt <= 1)):
        raise ValueError(f"beta={beta!r} is out of range: accepted 0 < beta <= 1")
    return 2.0 * bdp / np.sqrt(beta)


def dctcp_fixed_point_normalized(wbar: float) -> np.ndarray:
    """The rest point (W̃, α̃, q̃) = (2, 1, 2/w̄ − 1) of the normalized DCTCP model for w̄ ≤ 2, [DCTCP-A] eq. (15)."""
    return np.array([2.0, 1.0, 2.0 / wbar - 1.0])


def dctcp_fixed_point_queue(flows: Any, bdp: Any) -> Any:
    """The queue 2N − C·d (packets) of DCTCP's w̄ ≤ 2 rest point, [DCTCP-A] eq. (15) in physical units.

    ``flows``: N; ``bdp``: C·d in packets.
    """
    return 2.0 * flows - bdp


def swift_flow_scaling(w: Any, fs_range: Any, fs_min_cwnd: Any, fs_max_cwnd: Any, xp: Any = np) -> Any:
    """Swift's flow-count scaling of the target delay, [Swift] §3.5: fs(w) = clip(α/√w + β, 0, fs_range) with
    α = fs_range/(1/√fs_min_cwnd − 1/√fs_max_cwnd) and β = −α/√fs_max_cwnd, so fs = fs_range at w = fs_min_cwnd
    and 0 at w = fs_max_cwnd (``w`` and the bounds in packets; the result in the unit of ``fs_range``). Written
    against the array namespace ``xp`` (NumPy, ``jax.numpy``, the models' SymPy namespace): the packet law
    and the fluid model both call it.
    """
    a = fs_range / (1.0 / xp.sqrt(fs_min_cwnd) - 1.0 / xp.sqrt(fs_max_cwnd))
    return xp.minimum(xp.maximum(a / xp.sqrt(w) - a / xp.sqrt(fs_max_cwnd), 0.0), fs_range)
