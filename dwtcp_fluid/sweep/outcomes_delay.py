"""Delay-aware linear stability per sweep point, and the agreement of the condition with what DWTCP does.

:func:`delay_outcomes` evaluates the delayed linearization of the DWTCP decrease branch (paper variant, one-RTT
Scout delay; :func:`~dwtcp_fluid.studies.dwtcp.analysis_charroots.dwtcp_delay_spectrum`, which says what that
linearization of a switched system means and where it does not apply) at the frozen points (w = BDP/N, q = k̄).

:func:`fluid_agreement` and :func:`delay_agreement` compare the paper's condition k̄ < k̄* = 2·BDP/√β ([DWTCP] eq. (14)), the frozen class of (8) and the delay-aware roots with the delayed fluid runs of
:func:`~dwtcp_fluid.sweep.outcomes_fluid.fluid_outcomes`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..analysis.linear import CLASSES, classify_2x2
from ..formulas import kbar_star
from ..models.dwtcp import frozen_jacobian
from ..studies.dwtcp.analysis_charroots import dwtcp_delay_spectrum

__all__ = [
    "DELAY_VARIABLES",
    "AGREEMENT_VARIABLES",
    "delay_outcomes",
    "verdicts_at_kbar",
    "fluid_agreement",
    "delay_agreement",
]

DELAY_VARIABLES: dict[str, tuple[str, str]] = {
    "delay_abscissa": (
        "spectral abscissa of the delayed decrease linearization at (BDP/N, k̄), one-RTT delay",
        "1/s",
    ),
    "delay_abscissa_per_rtt": ("delayed spectral abscissa times τ", "1/RTT"),
    "frozen_abscissa": ("largest real part of the undelayed frozen Jacobian (8) at (BDP/N, k̄)", "1/s"),
    "kbar_critical_delay": (
        "k̄ where the delayed abscissa crosses 0 (locally stable above; NaN: none)",
        "packets",
    ),
    "delay_stable": ("delayed abscissa < 0 at (BDP/N, k̄)", "1"),
    "delay_roots_converged": ("Newton polishing of the rightmost root converged", "1"),
}

AGREEMENT_VARIABLES: dict[str, tuple[str, str]] = {
    "kbar_star": ("k̄* = 2·BDP/√β, eq. (14)", "packets"),
    "condition_obs": ("k̄ < k̄* at the observed k̄ of the delayed fluid run", "1"),
    "frozen_spiral_obs": (
        "the frozen Jacobian (8) at (BDP/N, observed k̄) is a spiral (the paper's 'stable')",
        "1",
    ),
    "delay_stable_obs": (
        "delayed linearization stable at the observed k̄ (False where k̄ = 0: no decrease arc)",
        "1",
    ),
    "fluid_converged": ("the delayed fluid run converged", "1"),
    "condition_agrees": ("condition at observed k̄ ⇔ delayed fluid run converged", "1"),
    "frozen_agrees": ("frozen spiral at observed k̄ ⇔ delayed fluid run converged", "1"),
    "delay_agrees": ("delay-aware stability at observed k̄ > 0 ⇔ delayed fluid run converged", "1"),
    "missed_by_condition": ("condition holds but the delayed linearization is unstable", "1"),
}


def _bcast(beta: Any, bdp: Any, flows: Any, kbar: Any) -> list[np.ndarray]:
    arrs = [np.asarray(a, dtype=float) for a in (beta, bdp, flows, kbar)]
    try:
        arrs = list(np.broadcast_arrays(*arrs))
    except ValueError:
        raise ValueError(
            f"beta, bdp, flows, kbar have shapes {[a.shape for a in arrs]}: accepted broadcastable arrays"
        ) from None
    for name, a, lo in zip(("beta", "bdp", "flows"), arrs[:3], (0.0, 0.0, 0.0), strict=True):
        if np.any(~np.isfinite(a) | (a <= lo)):
            raise ValueError(
                f"{name}={a[~np.isfinite(a) | (a <= lo)].flat[0]!r} is out of range: accepted {name} > 0"
            )
    if np.any(arrs[0] > 1):
        raise ValueError(f"beta={arrs[0].max()!r} is out of range: accepted 0 < beta <= 1")
    if np.any(arrs[3] < 0):
        raise ValueError(f"kbar={arrs[3].min()!r} is out of range: accepted kbar >= 0 packets (NaN: missing)")
    return arrs


def _pmap(beta: np.ndarray, bdp: np.ndarray, flows: np.ndarray, capacity_pps: float) -> dict[str, np.ndarray]:
    # the paper variant reads beta only; k = 0 (d_t = τ) and s_over_l do not enter the decrease branch
    z = np.zeros_like(beta)
    return {
        "beta": beta,
        "beta_w": beta,
        "tau": bdp / capacity_pps,
        "C": np.full_like(beta, capacity_pps),
        "N": flows,
        "k": z,
        "s_over_l": z,
        "alpha": z + 1.0,
    }


def delay_outcomes(
    beta: Any, bdp: Any, flows: Any, kbar: Any, *, capacity_pps: float
) -> dict[str, np.ndarray]:
    """Delay-aware roots at the frozen points (w = BDP/N, q = k̄); delayed form of [DWTCP] eqs. (8)-(14) (paper variant (5)/(6), k = 0, one-RTT Scout delay).

    Parameters
    ----------
    beta, bdp, flows, kbar : array_like
        Broadcastable: β, BDP (packets), N, and the operating queue k̄ (packets). k̄ = 0 or NaN (no decrease
        branch) gives NaN roots and ``delay_stable`` False.
    capacity_pps : float
        C in packets/s (τ = BDP/C).

    Returns
    -------
    dict of ndarray with the broadcast shape; names and units in :data:`DELAY_VARIABLES`. The critical k̄ is
    computed once per distinct (β, BDP, N) (it does not depend on k̄); the abscissa is NaN where no root's
    Newton polishing converged.
    """
    if not (np.isfinite(capacity_pps) and capacity_pps > 0):
        raise ValueError(f"capacity_pps={capacity_pps!r} is out of range: accepted capacity_pps > 0")
    beta, bdp, flows, kbar = _bcast(beta, bdp, flows, kbar)
    shape = beta.shape
    b, d, n, k = (a.ravel() for a in (beta, bdp, flows, kbar))
    ok = np.isfinite(k) & (k > 0)
    out = {
        name: np.full(b.size, np.nan)
        for name in ("delay_abscissa", "delay_abscissa_per_rtt", "frozen_abscissa")
    }
    conv = np.zeros(b.size, dtype=bool)
    if ok.any():
        p = _pmap(b[ok], d[ok], n[ok], capacity_pps)
        spec = dwtcp_delay_spectrum(p, k[ok], variant="paper", delay_rtts=1.0, critical=False)
        # the abscissa is taken over converged roots only (NaN when none); flag the rightmost one's convergence
        conv[ok] = np.asarray(spec["converged"])[..., 0]
        out["delay_abscissa"][ok] = spec["abscissa"]
        out["delay_abscissa_per_rtt"][ok] = spec["abscissa_per_rtt"]
        out["frozen_abscissa"][ok] = spec["frozen_abscissa"]
    # critical k̄ per distinct (β, BDP, N): it is a property of the point, not of k̄
    keys = np.stack([b, d, n], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    pu = _pmap(uniq[:, 0], uniq[:, 1], uniq[:, 2], capacity_pps)
    kref = uniq[:, 1]  # any k̄ > 0 will do for the critical search; BDP sits near the crossing
    crit = dwtcp_delay_spectrum(pu, kref, variant="paper", delay_rtts=1.0, critical="kbar")["kbar_critical"]
    out["kbar_critical_delay"] = np.asarray(crit)[np.ravel(inv)]
    out["delay_stable"] = np.nan_to_num(out["delay_abscissa"], nan=np.inf) < 0
    out["delay_roots_converged"] = conv
    return {name: v.reshape(shape) for name, v in out.items()}


def verdicts_at_kbar(
    beta: Any, bdp: Any, flows: Any, kbar: Any, *, capacity_pps: float
) -> dict[str, np.ndarray]:
    """What the paper's analysis predicts at an observed k̄: True means "converges / stays steady".

    * ``condition``: k̄ < k̄* = 2·BDP/√β, [DWTCP] eq. (14);
    * ``frozen_spiral``: the frozen Jacobian (8) at (BDP/N, k̄) is a spiral (the paper's "spiral stable"; from the
      model's Jacobian, not from the closed form (13));
    * ``delay_stable``: the delayed linearization at (BDP/N, k̄) has a negative spectral abscissa;
      ``delay_defined`` is where it exists (k̄ > 0: with no decrease arc there is nothing to linearize).

    NaN entries of ``kbar`` (no observation) give False everywhere.
    """
    beta, bdp, flows, kbar = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (beta, bdp, flows, kbar))
    )
    known = np.isfinite(kbar)
    cond = (kbar < 2.0 * bdp / np.sqrt(beta)) & known
    p = _pmap(beta, bdp, flows, capacity_pps)
    J = frozen_jacobian(p, np.nan_to_num(kbar), bdp / flows)
    spiral = (classify_2x2(J) == CLASSES.index("spiral")) & known
    defined = known & (kbar > 0)
    dl = delay_outcomes(beta, bdp, flows, np.where(defined, kbar, np.nan), capacity_pps=capacity_pps)
    return {
        "condition": cond,
        "frozen_spiral": spiral,
        "delay_stable": np.asarray(dl["delay_stable"], dtype=bool) & defined,
        "delay_defined": defined,
    }


def fluid_agreement(
    beta: Any,
    bdp: Any,
    flows: Any,
    fluid: dict[str, np.ndarray],
    *,
    capacity_pps: float,
    variant: str = "delayed",
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Does the condition (14), the frozen class of (8), or the delay-aware roots predict the delayed fluid run?

    Each predictor is evaluated at the run's *observed* k̄ (``<variant>_kbar_obs``) and predicts "converged":
    the condition by k̄ < k̄*, the frozen class by "spiral" (the paper's "spiral stable"), the delay-aware roots
    by a negative abscissa of the delayed linearization. The predictors are the paper's (paper variant (8), (14))
    whatever ``variant`` is compared. Points whose run failed (status ≠ 0) or did not settle are excluded from the
    scores (flags False there); the delay-aware predictor is scored only where k̄ > 0 (with no decrease arc its
    linearization does not exist).

    Returns
    -------
    (arrays, summary)
        ``arrays``: :data:`AGREEMENT_VARIABLES`, shape (B,). ``summary``: counts and fractions over the scored
        points (plain Python numbers).
    """
    beta, bdp, flows = (np.asarray(a, dtype=float) for a in (beta, bdp, flows))
    kobs = np.asarray(fluid[f"{variant}_kbar_obs"], dtype=float)
    ok = (np.asarray(fluid[f"{variant}_status"]) == 0) & np.asarray(fluid[f"{variant}_settled"], dtype=bool)
    conv = np.asarray(fluid[f"{variant}_converged"], dtype=bool)
    kstar = kbar_star(bdp, beta)
    k_eval = np.where(ok, kobs, np.nan)
    v = verdicts_at_kbar(beta, bdp, flows, k_eval, capacity_pps=capacity_pps)
    cond, spiral, dstable = v["condition"], v["frozen_spiral"], v["delay_stable"]
    arrays = {
        "kbar_star": kstar,
        "condition_obs": cond & ok,
        "frozen_spiral_obs": spiral & ok,
        "delay_stable_obs": dstable & ok,
        "fluid_converged": conv & ok,
        "condition_agrees": (cond == conv) & ok,
        "frozen_agrees": (spiral == conv) & ok,
        "delay_agrees": (dstable == conv) & ok & (k_eval > 0),
        "missed_by_condition": cond & ~dstable & ok & (k_eval > 0),
    }
    n = int(ok.sum())
    n_delay = int((ok & (k_eval > 0)).sum())

    def frac(m: np.ndarray, d: int = n) -> float:
        return float(m.sum() / d) if d else float("nan")

    summary = {
        "variant": variant,
        "points": int(ok.size),
        "scored": n,
        "excluded_failed_or_unsettled": int(ok.size - n),
        "converged": int(arrays["fluid_converged"].sum()),
        "oscillating": int((~conv & ok).sum()),
        "condition_holds_at_observed_kbar": int(arrays["condition_obs"].sum()),
        "condition_agrees": frac(arrays["condition_agrees"]),
        "frozen_agrees": frac(arrays["frozen_agrees"]),
        "delay_scored": n_delay,
        "delay_agrees": frac(arrays["delay_agrees"], n_delay),
        "condition_holds_but_oscillates": int((cond & ~conv & ok).sum()),
        "missed_by_condition": int(arrays["missed_by_condition"].sum()),
    }
    return arrays, summary


def delay_agreement(
    beta: Any, bdp: Any, flows: Any, kbar: Any, delay: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """At the frozen grid points: where does the delay-aware analysis contradict the condition k̄ < k̄* (14)?

    ``delay`` is the output of :func:`delay_outcomes` for the same (broadcast) points. Returns ``condition``,
    ``missed_by_condition`` (condition holds, delayed linearization unstable) and ``condition_too_strict``
    (condition fails, delayed linearization stable), plus a summary of counts.
    """
    beta, bdp, flows, kbar = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (beta, bdp, flows, kbar))
    )
    cond = kbar < kbar_star(bdp, beta)
    st = np.asarray(delay["delay_stable"], dtype=bool)
    known = np.isfinite(np.asarray(delay["delay_abscissa"], dtype=float))
    arrays = {
        "condition": cond,
        "missed_by_condition": cond & ~st & known,
        "condition_too_strict": ~cond & st & known,
    }
    summary = {
        "points": int(cond.size),
        "with_roots": int(known.sum()),
        "condition_holds": int(cond.sum()),
        "delay_stable": int((st & known).sum()),
        "missed_by_condition": int(arrays["missed_by_condition"].sum()),
        "condition_too_strict": int(arrays["condition_too_strict"].sum()),
    }
    return arrays, summary
