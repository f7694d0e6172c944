"""Delay-aware linearization of the DWTCP decrease phase and its characteristic roots.

The delayed DWTCP model (``DwtcpFluid(delay_rtts=1)``, appendix A of [DWTCP] with the Scout
signal's one-RTT delay put back) is, on the decrease branch u = 1,

    w'(t) = F_w(w(t), q(t − τ_d)),        q'(t) = N·w(t)/τ − C,

so its linearization about a point (w₀, q₀) is the linear delay system x' = A0·x + A1·x(t − τ_d) with
A0 = ∂F/∂x and A1 = ∂F/∂x(t − τ_d), both taken from the model's one definition (SymPy, lambdified here).
At w₀ = BDP/N, q₀ = k̄ (paper variant, k = 0) the characteristic equation, in z = λτ, is

    z² + β(k̄/BDP)·z + β·e^{−z·τ_d/τ} = 0,

which reduces to the paper's (10) when τ_d = 0. Its roots are what :func:`dwtcp_delay_spectrum` computes.

What the linearization means here — and where it does not apply:

* (w₀, q₀) = (BDP/N, k̄) is **not an equilibrium** of the decrease branch: there w' = −β·w₀·(k̄ − k)/(τ(BDP + k))
  ≠ 0 for k̄ > k. The roots describe how *perturbations of a decrease arc* grow or decay while the system stays on
  that branch, with k̄ frozen at the operating value (the same "frozen" reading the paper applies to (8)), over a
  time short enough for the base motion to change little. They are local rates, not a stability proof.
* The full system is switched: u(t) = 1{q(t − τ_d) > k}. Linearization is valid only while no trajectory near the
  arc crosses the switching surface q = k (and while the queue floor q ≥ 0 is inactive); the relay itself is
  non-smooth, and whether the switched system converges or settles on a limit cycle is decided by the
  switching (cf. DCTCP's Theorem 1 and the delayed-fluid simulations of the sweep), not by these roots.
* What the roots *do* say that (8) cannot: with the delay, the restoring term β·w·q/(τ·BDP) acts on q(t − τ_d),
  and a delayed restoring force pumps energy into the oscillation. For small β the rightmost pair is
  z ≈ ±i√β + (β/2)(1 − k̄/BDP): the delayed decrease arc is locally *unstable* for k̄ ≲ BDP — a lower bound on
  k̄, where the paper's (14) gives an upper bound for spiralling.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import sympy as sp

from ...analysis.charroots import DEFAULT_M, char_roots, critical_parameter
from ...models.dwtcp import DwtcpFluid
from ...params import DwtcpParams

__all__ = ["dwtcp_linearization", "dwtcp_delay_spectrum"]


@functools.lru_cache(maxsize=8)
def _lambdified(variant: str):
    """(A0, A1) of the decrease branch as numpy functions of (x, x_d, params), from the model's SymPy rhs."""
    model = DwtcpFluid(variant=variant, delay_rtts=1.0)
    xs, ps = model.symbols()
    xds = model.delayed_symbols()
    A0 = model.jacobian(1, delayed=True)  # ∂F/∂x with x(t − τ_d) kept as separate symbols
    A1 = model.jacobian_delayed(1)
    args = list(xs) + list(xds) + [ps[k] for k in model.param_names]
    n = len(xs)
    f0 = [[sp.lambdify(args, A0[i, j], modules="numpy") for j in range(n)] for i in range(n)]
    f1 = [[sp.lambdify(args, A1[i, j], modules="numpy") for j in range(n)] for i in range(n)]
    return f0, f1, n


def _param_arrays(params: DwtcpParams | Mapping[str, Any], variant: str) -> dict[str, np.ndarray]:
    if isinstance(params, DwtcpParams):
        p = DwtcpFluid(variant=variant).numeric_params(params)
    else:
        p = dict(params)
        DwtcpFluid(variant=variant).check_params(p)
    return {k: np.asarray(v, dtype=float) for k, v in p.items()}


def dwtcp_linearization(
    params: DwtcpParams | Mapping[str, Any],
    kbar: Any,
    *,
    w: Any | None = None,
    variant: Literal["paper", "sqrt"] = "paper",
    delay_rtts: Any = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A0, A1 (1/s) and τ_d (s) of the delayed DWTCP decrease branch at (w, q = k̄), batched.

    Linearization of [DWTCP] eqs. (3)/(5)-(7) with the feedback delay τ_d = delay_rtts·τ.

    Parameters
    ----------
    params : DwtcpParams or mapping
        A parameter object, or the float/array mapping of :meth:`DwtcpFluid.numeric_params` (arrays broadcast).
    kbar : array_like
        Queue k̄ at the operating point, packets (> k for the decrease branch).
    w : array_like, optional
        Window at the operating point, packets; default BDP/N (= τ·C/N, where q' = 0).
    delay_rtts : array_like
        τ_d/τ (> 0).
    """
    p = _param_arrays(params, variant)
    kbar = np.asarray(kbar, dtype=float)
    d = np.asarray(delay_rtts, dtype=float)
    if np.any(~np.isfinite(d) | (d <= 0)):
        raise ValueError(f"delay_rtts={delay_rtts!r} is out of range: accepted delay_rtts > 0")
    if np.any(~np.isfinite(kbar) | (kbar <= p["k"])):
        raise ValueError(f"kbar={kbar!r} is out of range: accepted kbar > k (the decrease branch, d_s > d_t)")
    if w is None:
        w = p["tau"] * p["C"] / p["N"]
    w = np.asarray(w, dtype=float)
    f0, f1, n = _lambdified(variant)
    names = DwtcpFluid.param_names
    vals = np.broadcast_arrays(w, kbar, w, kbar, d, *[p[k] for k in names])
    batch = vals[0].shape
    args, d = vals[:4] + vals[5:], vals[4]
    A0 = np.empty(batch + (n, n))
    A1 = np.empty(batch + (n, n))
    for i in range(n):
        for j in range(n):
            A0[..., i, j] = f0[i][j](*args)
            A1[..., i, j] = f1[i][j](*args)
    return A0, A1, d * args[4 + names.index("tau")]


def dwtcp_delay_spectrum(
    params: DwtcpParams | Mapping[str, Any],
    kbar: Any,
    *,
    variant: Literal["paper", "sqrt"] = "paper",
    delay_rtts: Any = 1.0,
    n_roots: int = 4,
    M: int = DEFAULT_M,
    critical: bool | str = True,
) -> dict[str, Any]:
    """Rightmost characteristic roots of the delayed DWTCP decrease branch at (w = BDP/N, q = k̄), batched.

    Delay-aware version of [DWTCP] eqs. (8)-(14) (see the module docstring for what the
    linearization of this switched system means and where it does not apply).

    Parameters
    ----------
    params : DwtcpParams or mapping of arrays
        Model parameters; arrays in the mapping broadcast against ``kbar`` and ``delay_rtts``.
    kbar : array_like
        Operating queue k̄ in packets (> k).
    variant : {"paper", "sqrt"}
        Decrease law (5) or (3).
    delay_rtts : array_like
        Feedback delay in RTTs (the Scout signal: 1).
    n_roots : int
        Rightmost roots returned.
    M : int
        Chebyshev intervals of the discretised generator.
    critical : bool or {"kbar", "delay"}
        Also locate, per element, the k̄ and the delay at which the spectral abscissa crosses zero (``True``:
        both; a string: only that one).

    Returns
    -------
    dict of ndarray
        ``abscissa`` (1/s), ``abscissa_per_rtt`` (abscissa·τ), ``roots`` (1/s, batch + (n_roots,)),
        ``converged``, ``frozen_abscissa`` (1/s, the undelayed Jacobian (8) at the same point, for contrast),
        ``stable`` (abscissa < 0), ``A0``, ``A1``, ``tau_d`` (s), ``w`` and ``kbar`` (packets) and, with
        ``critical``: ``kbar_critical`` (packets; the delayed arc is locally stable above it; NaN if no crossing
        in [k + 1e-3·(BDP + k), 1e4·(BDP + k)]) and ``delay_critical_rtts`` (τ_d/τ where the abscissa crosses
        zero at this k̄, NaN if none in [1e-3, 100]).
    """
    if critical not in (True, False, "kbar", "delay"):
        raise ValueError(f"critical={critical!r} is invalid: accepted True, False, 'kbar' or 'delay'")
    p = _param_arrays(params, variant)
    A0, A1, tau_d = dwtcp_linearization(p, kbar, variant=variant, delay_rtts=delay_rtts)
    batch = tau_d.shape
    res = char_roots(A0, A1, tau_d, n_roots=n_roots, M=M)
    tau = np.broadcast_to(p["tau"], batch)
    frozen = np.linalg.eigvals(A0 + A1).real.max(axis=-1)
    kb = np.broadcast_to(np.asarray(kbar, dtype=float), batch)
    out: dict[str, Any] = {
        "abscissa": res.abscissa,
        "abscissa_per_rtt": res.abscissa * tau,
        "roots": res.roots,
        "converged": res.converged,
        "stable": res.abscissa < 0,
        "frozen_abscissa": frozen,
        "A0": A0,
        "A1": A1,
        "tau_d": tau_d,
        "w": np.broadcast_to(p["tau"] * p["C"] / p["N"], batch),
        "kbar": kb,
        "variant": variant,
        "units": {"abscissa": "1/s", "roots": "1/s", "kbar": "packets", "tau_d": "s"},
    }
    if critical:
        flat = {k: np.broadcast_to(v, batch).reshape(-1, 1) for k, v in p.items()}
        dr = np.broadcast_to(np.asarray(delay_rtts, dtype=float), batch).reshape(-1, 1)
        kflat = kb.reshape(-1, 1)
        scale = flat["tau"][:, 0] * flat["C"][:, 0] + flat["k"][:, 0]

        def by_kbar(kv: np.ndarray):
            return dwtcp_linearization(flat, kv, variant=variant, delay_rtts=dr)

        def by_delay(dv: np.ndarray):
            return dwtcp_linearization(flat, kflat, variant=variant, delay_rtts=dv)

        if critical in (True, "kbar"):
            lo = flat["k"][:, 0] + 1e-3 * scale
            out["kbar_critical"] = critical_parameter(by_kbar, lo, 1e4 * scale, M=M).reshape(batch)
        if critical in (True, "delay"):
            out["delay_critical_rtts"] = critical_parameter(
                by_delay, np.full(scale.shape, 1e-3), np.full(scale.shape, 100.0), M=M
            ).reshape(batch)
    return out
