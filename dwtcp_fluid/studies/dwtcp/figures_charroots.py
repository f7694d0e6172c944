"""Registered figure: characteristic roots of the delayed DWTCP decrease branch against the frozen Jacobian (8).

Delay-aware linearization (:mod:`dwtcp_fluid.studies.dwtcp.analysis_charroots`) of the DWTCP fluid model of appendix A of
[DWTCP] with the Scout signal's one-RTT delay. Left: spectral abscissa (per RTT) against
k̄/BDP for several β, delayed (pseudospectral + Newton) and frozen/undelayed (eq. (8), whose real part (12) is
always negative). Right: the k̄ at which the delayed abscissa crosses zero, against β, next to the paper's
k̄* = 2·BDP/√β of (14), for both decrease laws (simplified (5) and sqrt(w) form (3)).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from ...formulas import kbar_star
from ...models.dwtcp import DwtcpFluid
from ...params import DwtcpParams, LinkParams
from .analysis_charroots import dwtcp_delay_spectrum
from .plots_charroots import BETAS_CURVES, plot_delay_spectrum

__all__ = ["build_delay_spectrum", "plot_delay_spectrum", "DELAY_SPECTRUM_FIGURE"]


def build_delay_spectrum(quick: bool = False) -> dict[str, Any]:
    """Abscissa over k̄/BDP for three β and the critical k̄ over β (10 Gbps, 100 µs, N = 10, k = 0)."""
    P = DwtcpParams(link=LinkParams("10Gbps", "100us"), flows=10, beta=1e-3)
    base = DwtcpFluid().numeric_params(P)
    ratio = np.geomspace(0.05, 100.0, 60 if quick else 120)
    curves = {}
    for beta in BETAS_CURVES:
        p = dict(base, beta=beta)
        out = dwtcp_delay_spectrum(p, ratio * P.bdp, n_roots=2, critical=False)
        curves[beta] = {
            "delayed": out["abscissa_per_rtt"],
            "frozen": out["frozen_abscissa"] * P.tau,
        }
    betas = np.geomspace(1e-4, 1.0, 12 if quick else 20)
    crit = {}
    for variant in ("paper", "sqrt"):
        p = {k: np.full(betas.shape, v) for k, v in base.items()}
        p["beta"] = betas
        p["beta_w"] = betas * np.sqrt(P.link.L)  # the byte convention of β for the sqrt(w) law (note 3)
        out = dwtcp_delay_spectrum(
            p, np.full(betas.shape, 2.0 * P.bdp), variant=variant, n_roots=2, critical="kbar"
        )
        crit[variant] = {"kbar_critical": out["kbar_critical"] / P.bdp}
    # small-β prediction of the crossing for the paper law: ω² = β cos ω, k̄_c/BDP = sin ω/ω ≈ 1 − β/6
    omega = np.sqrt(betas)
    for _ in range(50):
        omega = np.sqrt(betas * np.cos(omega))
    return {
        "ratio": ratio,
        "curves": curves,
        "betas": betas,
        "crit": crit,
        "crit_exact_paper": np.sin(omega) / omega,
        "kbar_star_ratio": kbar_star(1.0, betas),
        "bdp": P.bdp,
    }


def _claim_frozen(d: dict[str, Any]) -> tuple[bool, str]:
    worst = max(float(np.max(cv["frozen"])) for cv in d["curves"].values())
    return worst < 0, f"max frozen abscissa × τ = {worst:.3g}"


def _claim_sign(d: dict[str, Any]) -> tuple[bool, str]:
    ok = True
    for cv in d["curves"].values():
        below, above = d["ratio"] < 0.85, d["ratio"] > 1.15
        ok &= bool(np.all(cv["delayed"][below] > 0) and np.all(cv["delayed"][above] < 0))
    kc = d["crit"]["paper"]["kbar_critical"]
    return ok, f"k̄_c/BDP from {kc.min():.3f} to {kc.max():.5f} over β ∈ [1e-4, 1]"


def _claim_exact(d: dict[str, Any]) -> tuple[bool, str]:
    err = np.max(np.abs(d["crit"]["paper"]["kbar_critical"] / d["crit_exact_paper"] - 1.0))
    return bool(err < 1e-7), f"max relative difference {err:.1e}"


def _claim_window(d: dict[str, Any]) -> tuple[bool, str]:
    kc = np.fmax(d["crit"]["paper"]["kbar_critical"], d["crit"]["sqrt"]["kbar_critical"])
    gap = d["kbar_star_ratio"] / kc
    return bool(np.all(gap > 1)), f"k̄*/k̄_c from {gap.min():.2f} (β = 1) to {gap.max():.0f} (β = 1e-4)"


DELAY_SPECTRUM_FIGURE = register(
    Figure(
        name="dwtcp_delay_spectrum",
        title="DWTCP decrease branch with the one-RTT Scout delay: characteristic roots vs the frozen Jacobian",
        build=build_delay_spectrum,
        plot=plot_delay_spectrum,
        claims=[
            Claim(
                "Without delay the frozen Jacobian (8) has a negative abscissa for every k̄ > 0 (eq. (12))",
                _claim_frozen,
            ),
            Claim(
                "With the one-RTT delay the decrease arc is locally unstable for k̄ < 0.85·BDP and stable for "
                "k̄ > 1.15·BDP (simplified law, β = 1e-3, 1e-2, 0.1)",
                _claim_sign,
            ),
            Claim(
                "The crossing k̄_c matches the exact condition ω² = β·cos ω, k̄_c/BDP = sin ω/ω within 1e-7",
                _claim_exact,
            ),
            Claim("k̄_c < k̄* = 2·BDP/√β for every β in [1e-4, 1] and both decrease laws", _claim_window),
        ],
    )
)
