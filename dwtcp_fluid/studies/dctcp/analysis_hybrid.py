"""DCTCP hybrid model of section 4 of [DCTCP-A]: convergence of N synchronized flows.

Time is measured in RTTs. N flows share a bottleneck with ``W_max = C·d + K`` packets in flight at the marking
point; ``W* = W_max/N`` is the fair share. Between congestion events every window grows by one packet per RTT;
at a congestion event T_k (Σ W_i = W_max) each flow cuts W_i by the factor (1 − α_i/2) and its α_i follows
dα/dt = g(p − α) with p = 1 for one RTT (the feedback delay) and 0 afterwards. This gives the maps (19)–(21).

Contents: the batched map and its simulation from arbitrary windows and α; the fixed point α* of (23); the
convergence rates (25) (DCTCP) and (26) (TCP); Theorem 2's bound (24) with T_P2 of (27); Theorem 3's bounds on
α*; the Fig. 12 convergence experiment (2 flows, W_max ≈ 200); the exact rate ratio β_TCP/β_DCTCP against the
paper's asymptotic 2·ln 2 (docs/equations.md: the paper's "1.4" uses γ ≈ 1/W*, which drops the "1 +" terms).

Everything is vectorized in NumPy over leading batch dimensions; flows are the last axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "HybridTrajectory",
    "hybrid_step",
    "simulate_hybrid",
    "alpha_star",
    "alpha_star_small_g",
    "gamma_rate",
    "rate_dctcp",
    "rate_tcp",
    "rate_ratio",
    "theorem3_bounds",
    "t_p2",
    "theorem2_bound",
    "fitted_rate",
    "convergence_times",
    "fig12_experiment",
    "hybrid_summary",
    "LN2X2",
]

#: The paper's asymptotic bound on β_TCP/β_DCTCP, 2·ln 2 ≈ 1.386 (section 4.2, printed as "≈ 1.4").
LN2X2 = 2.0 * np.log(2.0)


def _check_positive(name: str, value: Any, *, lo: float = 0.0, allow_equal: bool = False) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    bad = ~np.isfinite(arr) | ((arr < lo) if allow_equal else (arr <= lo))
    if np.any(bad):
        op = ">=" if allow_equal else ">"
        raise ValueError(
            f"{name}={np.asarray(value)[bad].ravel()[0]!r} is out of range: accepted finite {name} {op} {lo}"
        )
    return arr


def _check_g(g: Any, *, allow_zero: bool = False) -> np.ndarray:
    arr = np.asarray(g, dtype=float)
    bad = ~np.isfinite(arr) | (arr > 1.0) | ((arr < 0.0) if allow_zero else (arr <= 0.0))
    if np.any(bad):
        lo = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(
            f"g={np.asarray(g)[bad].ravel()[0]!r} is out of range: accepted g in {lo} (EWMA gain)"
        )
    return arr


# --- the map (19)-(21) ----------------------------------------------------------------------------------------


def hybrid_step(W: Any, alpha: Any, g: Any, W_max: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One congestion epoch of the hybrid model, [DCTCP-A] eqs. (19)-(21).

    Parameters
    ----------
    W : array_like, shape (..., N)
        Windows W_i(T_k) at the congestion event, packets.
    alpha : array_like, shape (..., N)
        α_i(T_k), dimensionless in [0, 1].
    g : array_like, broadcastable to (...)
        EWMA gain per RTT; g = 0 freezes α (with α = 1 this is TCP's halving).
    W_max : array_like, broadcastable to (...)
        C·d + K, packets.

    Returns
    -------
    W_next, alpha_next : ndarray, shape (..., N)
        W_i(T_{k+1}) and α_i(T_{k+1}).
    dT : ndarray, shape (...)
        Epoch length ΔT_k in RTTs.

    Notes
    -----
    (19) assumes Σ W_i(T_k) = W_max, which (20) then preserves. To start from arbitrary windows the epoch is
    written as ΔT_k = 1 + max(0, W_max − Σ_i (1 − α_i/2) W_i)/N: the time after the marked RTT that the N
    windows, growing by 1 packet/RTT each, need to refill the pipe. It equals (19) exactly when
    Σ W_i(T_k) = W_max, and when Σ W_i > W_max after the cut it gives ΔT_k = 1 (a further cut one RTT later).
    """
    W = np.asarray(W, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    g = np.asarray(g, dtype=float)[..., None]
    W_max = np.asarray(W_max, dtype=float)
    N = W.shape[-1]
    cut = (1.0 - alpha / 2.0) * W
    dT = 1.0 + np.maximum(W_max - cut.sum(axis=-1), 0.0) / N
    W_next = cut + (dT - 1.0)[..., None]
    # (21) written as e^{-gΔT}(e^g − 1 + α): the solution at ΔT of dα/dt = g(p − α), p = 1 on [0, 1).
    alpha_next = np.exp(-g * dT[..., None]) * (np.expm1(g) + alpha)
    return W_next, alpha_next, dT


@dataclass(frozen=True)
class HybridTrajectory:
    """Hybrid-model trajectory sampled at the congestion events.

    Attributes
    ----------
    T : ndarray, shape (..., n + 1)
        Event times T_k in RTTs (T_0 = time of the first congestion event).
    W, alpha : ndarray, shape (..., n + 1, N)
        W_i(T_k) (packets) and α_i(T_k).
    g, W_max : ndarray
        The parameters, broadcast to the batch shape.
    """

    T: np.ndarray
    W: np.ndarray
    alpha: np.ndarray
    g: np.ndarray
    W_max: np.ndarray

    @property
    def n_flows(self) -> int:
        return int(self.W.shape[-1])

    @property
    def W_star(self) -> np.ndarray:
        """Fair share W* = W_max/N, packets."""
        return self.W_max / self.n_flows


def simulate_hybrid(W0: Any, alpha0: Any, g: Any, W_max: Any, n_epochs: int) -> HybridTrajectory:
    """Iterate the hybrid model (19)-(21) of [DCTCP-A] from arbitrary windows and α.

    Parameters
    ----------
    W0 : array_like, shape (..., N)
        Initial windows in packets (≥ 0). If Σ W0 < W_max the windows first grow linearly (1 packet/RTT each)
        until the first congestion event, which defines T_0; the windows stored at k = 0 are those at T_0.
    alpha0 : array_like, shape (..., N)
        Initial α_i in [0, 1]; α is held during the pre-event growth (no marks arrive before T_0).
    g : array_like
        EWMA gain per RTT in [0, 1] (0: frozen α).
    W_max : array_like
        C·d + K in packets (> 0).
    n_epochs : int
        Number of congestion epochs to iterate (≥ 1).

    Returns
    -------
    HybridTrajectory
    """
    if not (isinstance(n_epochs, int | np.integer) and n_epochs >= 1):
        raise ValueError(f"n_epochs={n_epochs!r} is out of range: accepted an integer >= 1")
    W = _check_positive("W0", W0, allow_equal=True)
    alpha = np.asarray(alpha0, dtype=float)
    if np.any(~np.isfinite(alpha) | (alpha < 0) | (alpha > 1)):
        raise ValueError(f"alpha0={alpha0!r} is out of range: accepted alpha0 in [0, 1]")
    g = _check_g(g, allow_zero=True)
    W_max = _check_positive("W_max", W_max)
    W, alpha = np.broadcast_arrays(W, alpha)
    if W.ndim == 0:
        raise ValueError("W0 is a scalar: accepted an array whose last axis indexes the N flows")
    batch = np.broadcast_shapes(W.shape[:-1], g.shape, W_max.shape)
    W = np.broadcast_to(W, batch + W.shape[-1:]).astype(float)
    alpha = np.broadcast_to(alpha, batch + W.shape[-1:]).astype(float)
    g = np.broadcast_to(g, batch).astype(float)
    W_max = np.broadcast_to(W_max, batch).astype(float)
    N = W.shape[-1]
    t0 = np.maximum(W_max - W.sum(axis=-1), 0.0) / N
    W = W + t0[..., None]
    Ws = np.empty(batch + (n_epochs + 1, N))
    As = np.empty_like(Ws)
    Ts = np.empty(batch + (n_epochs + 1,))
    Ws[..., 0, :], As[..., 0, :], Ts[..., 0] = W, alpha, t0
    for k in range(n_epochs):
        W, alpha, dT = hybrid_step(W, alpha, g, W_max)
        Ws[..., k + 1, :], As[..., k + 1, :] = W, alpha
        Ts[..., k + 1] = Ts[..., k] + dT
    return HybridTrajectory(T=Ts, W=Ws, alpha=As, g=g, W_max=W_max)


# --- fixed point and rates (23)-(27) --------------------------------------------------------------------------


def alpha_star(wstar: Any, g: Any, *, tol: float = 1e-15) -> np.ndarray:
    """α*, the unique root in (0, 1] of (23) α = e^{−g(1+W*α/2)}(e^g − 1 + α), [DCTCP-A] eq. (23).

    Multiplying (23) by e^{g(1+W*α/2)} gives the equivalent φ(α) = α·(e^{g(1+W*α/2)} − 1) − (e^g − 1) = 0,
    evaluated with ``expm1`` so that small g loses no digits; φ is strictly increasing in α > 0 with
    φ(0) < 0 < φ(1), so a vectorized bisection followed by Newton steps finds the root for every batch element.

    Parameters
    ----------
    wstar : array_like
        Fair-share window W* = (C·d + K)/N in packets (> 0).
    g : array_like
        EWMA gain in (0, 1].

    Returns
    -------
    ndarray
        α*, broadcast shape of ``wstar`` and ``g``.
    """
    wstar = _check_positive("wstar", wstar)
    g = _check_g(g)
    wstar, g = np.broadcast_arrays(wstar, g)
    em1g = np.expm1(g)

    def phi(a: np.ndarray) -> np.ndarray:
        # The clip only guards the bisection's first midpoints against overflow; φ > 0 there anyway.
        return a * np.expm1(np.minimum(g * (1.0 + wstar * a / 2.0), 700.0)) - em1g

    lo = np.zeros_like(wstar)
    hi = np.ones_like(wstar)
    for _ in range(40):  # 2^-40 ≈ 1e-12, then Newton converges quadratically from there
        mid = 0.5 * (lo + hi)
        pos = phi(mid) > 0
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
    a = 0.5 * (lo + hi)
    for _ in range(6):
        e = np.exp(g * (1.0 + wstar * a / 2.0))
        dphi = (e - 1.0) + a * e * g * wstar / 2.0
        step = phi(a) / dphi
        a = np.clip(a - step, lo, hi)
        if np.all(np.abs(step) <= tol * np.maximum(a, 1e-300)):
            break
    return a


def alpha_star_small_g(wstar: Any) -> np.ndarray:
    """Limit g → 0 of α* from (23): α0 = (sqrt(1 + 2W*) − 1)/W*, the root of W*α²/2 + α − 1 = 0.

    First order in g of (23), [DCTCP-A] eq. (23): α(1 + W*α/2)·g = g + O(g²).
    """
    wstar = _check_positive("wstar", wstar)
    return 2.0 / (1.0 + np.sqrt(1.0 + 2.0 * wstar))  # = (sqrt(1+2W*) − 1)/W*, without cancellation


def gamma_rate(wstar: Any, astar: Any) -> np.ndarray:
    """γ = −log(1 − α*/2)/(1 + W*α*/2), the window rate per RTT, [DCTCP-A] eq. (25)."""
    wstar = np.asarray(wstar, dtype=float)
    astar = np.asarray(astar, dtype=float)
    return -np.log1p(-astar / 2.0) / (1.0 + wstar * astar / 2.0)


def rate_dctcp(wstar: Any, g: Any) -> np.ndarray:
    """β_DCTCP = min(g, γ) per RTT, [DCTCP-A] eq. (25)."""
    g = _check_g(g)
    return np.minimum(g, gamma_rate(wstar, alpha_star(wstar, g)))


def rate_tcp(wstar: Any) -> np.ndarray:
    """β_TCP = log 2/(1 + W*/2) per RTT, [DCTCP-A] eq. (26)."""
    wstar = _check_positive("wstar", wstar)
    return np.log(2.0) / (1.0 + wstar / 2.0)


def rate_ratio(wstar: Any, g: Any | None = None) -> dict[str, np.ndarray]:
    """Exact β_TCP/γ and β_TCP/min(g, γ) against the paper's asymptotic 2·ln 2, [DCTCP-A] eqs. (25), (26).

    ``g=None`` uses the g → 0 limit of α* (:func:`alpha_star_small_g`) for γ (the ratio then has no β_DCTCP =
    g branch). Returns a dict of arrays: ``alpha_star``, ``gamma``, ``rate_tcp``, ``ratio_gamma`` (β_TCP/γ) and,
    when g is given, ``rate_dctcp`` and ``ratio`` (β_TCP/β_DCTCP); ``asymptotic`` = 2 ln 2.
    """
    wstar = _check_positive("wstar", wstar)
    a = alpha_star_small_g(wstar) if g is None else alpha_star(wstar, g)
    gam = gamma_rate(wstar, a)
    btcp = rate_tcp(wstar)
    out = {"alpha_star": a, "gamma": gam, "rate_tcp": btcp, "ratio_gamma": btcp / gam, "asymptotic": LN2X2}
    if g is not None:
        bd = np.minimum(np.asarray(g, dtype=float), gam)
        out["rate_dctcp"] = bd
        out["ratio"] = btcp / bd
    return out


def theorem3_bounds(wstar: Any, g: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bounds sqrt(1/(2W*)) − g < α* < sqrt(2/W*) + g for W* ≥ 2, Theorem 3 (appendix C) of [DCTCP-A]."""
    wstar = _check_positive("wstar", wstar)
    g = _check_g(g)
    return np.sqrt(1.0 / (2.0 * wstar)) - g, np.sqrt(2.0 / wstar) + g


def t_p2(wstar: Any, g: Any) -> np.ndarray:
    """End of phase 2, T_P2 = log(2W*/g⁶)/g + 2(1 + W*/2) RTTs, [DCTCP-A] eq. (27)."""
    wstar = _check_positive("wstar", wstar)
    g = _check_g(g)
    return (np.log(2.0 * wstar) - 6.0 * np.log(g)) / g + 2.0 * (1.0 + wstar / 2.0)


def theorem2_bound(n: Any, T_n: Any, wstar: Any, W_max: Any, g: Any) -> np.ndarray:
    """Theorem 2's bound |W_i(T_n) − W*| < 2W_max(1 + g⁶n²)e^{−β(T_n − T_P2)}, [DCTCP-A] eq. (24).

    β = min(g, γ) from (25), T_P2 from (27); n is the epoch index and T_n its time in RTTs. The text of (24) is
    garbled in the extraction; this reading is the one the proof in section 4.4 establishes
    (|W_i − W_j| ≤ W_max(e^{β(T_r−T_P2)} + 2g⁶n²)e^{−β(T_n−T_P2)} with e^{β(T_r−T_P2)} ≤ 2).
    """
    n = np.asarray(n, dtype=float)
    T_n = np.asarray(T_n, dtype=float)
    beta = rate_dctcp(wstar, g)
    g = np.asarray(g, dtype=float)
    return 2.0 * np.asarray(W_max, dtype=float) * (1.0 + g**6 * n**2) * np.exp(-beta * (T_n - t_p2(wstar, g)))


# --- measurements on trajectories -----------------------------------------------------------------------------


def fitted_rate(traj: HybridTrajectory, *, start_frac: float = 0.5, floor: float = 1e-9) -> np.ndarray:
    """Exponential decay rate (per RTT) of max_i |W_i(T_k) − W*|, by least squares on its logarithm.

    Uses only points where the deviation is above ``floor``·W* (below it round-off dominates) and, of those,
    the last ``1 − start_frac`` fraction (the asymptotic regime). Returns NaN where fewer than 3 points remain.
    """
    dev = np.max(np.abs(traj.W - traj.W_star[..., None, None]), axis=-1)
    T = traj.T
    flat_dev = dev.reshape(-1, dev.shape[-1])
    flat_T = T.reshape(-1, T.shape[-1])
    flat_ws = np.broadcast_to(traj.W_star, dev.shape[:-1]).reshape(-1)
    out = np.full(flat_dev.shape[0], np.nan)
    for b in range(flat_dev.shape[0]):
        idx = np.flatnonzero(flat_dev[b] > floor * flat_ws[b])
        idx = idx[int(start_frac * idx.size) :]
        if idx.size >= 3:
            out[b] = -np.polyfit(flat_T[b, idx], np.log(flat_dev[b, idx]), 1)[0]
    return out.reshape(dev.shape[:-1])


def convergence_times(
    traj: HybridTrajectory, *, tol: float = 0.1, astar: Any | None = None
) -> dict[str, np.ndarray]:
    """First event time (RTTs) at which every window is within ``tol``·W* of W* (and, if ``astar`` is given,
    every α_i within ``tol``·α* of α*). Measured at the congestion events T_k; NaN if never reached.
    """
    ws = traj.W_star[..., None, None]
    ok_w = np.all(np.abs(traj.W - ws) <= tol * ws, axis=-1)
    out = {"t_window": _first_time(ok_w, traj.T)}
    if astar is not None:
        a = np.asarray(astar, dtype=float)[..., None, None]
        ok_a = np.all(np.abs(traj.alpha - a) <= tol * a, axis=-1)
        out["t_alpha"] = _first_time(ok_a, traj.T)
    return out


def _first_time(ok: np.ndarray, T: np.ndarray) -> np.ndarray:
    idx = np.argmax(ok, axis=-1)
    t = np.take_along_axis(T, idx[..., None], axis=-1)[..., 0]
    return np.where(np.any(ok, axis=-1), t, np.nan)


def fig12_experiment(
    W_max: float = 201.7, *, rtt: float | None = None, n_epochs: int = 400
) -> dict[str, Any]:
    """The convergence experiment of Fig. 12 of [DCTCP-A], run in the hybrid model (19)-(21).

    Two flows; flow 1 holds the whole pipe (W_1 = W_max − 1, α_1 = 0), flow 2 starts with W_2 = 1 and α_2 = 1
    (the paper's worst case). DCTCP with g ∈ {1/sqrt(W_max), 5/W_max, 1/W_max} and TCP (α ≡ 1, g = 0).

    Parameters
    ----------
    W_max : float
        C·d + K in packets. The default is the paper's setting: 10 Gbps, d = 200 µs, K = 35 → 166.7 + 35.
    rtt : float, optional
        Seconds per RTT for the ``*_ms`` outputs; default R* = d + K/C = 242 µs of the paper's setting.
    n_epochs : int
        Congestion epochs simulated.

    Returns
    -------
    dict
        ``labels``, ``g``, ``T`` (RTTs, shape (4, n+1)), ``W`` (4, n+1, 2), ``alpha``, ``alpha_star``,
        ``t_window``/``t_alpha`` (RTTs to get within 10 % of W*/α*), their ``_ms`` versions, ``rate_predicted``
        (min(g, γ), or (26) for TCP) and ``rate_fitted``; ``paper_ms``: the ns2 times reported in section 4.3.
    """
    W_max = float(_check_positive("W_max", W_max))
    if rtt is None:
        rtt = 200e-6 + 35.0 / (10e9 / (1500 * 8))
    wstar = W_max / 2.0
    gs = np.array([1.0 / np.sqrt(W_max), 5.0 / W_max, 1.0 / W_max, 0.0])
    labels = ["DCTCP g=1/sqrt(Wmax)", "DCTCP g=5/Wmax", "DCTCP g=1/Wmax", "TCP"]
    W0 = np.array([W_max - 1.0, 1.0])
    A0 = np.array([[0.0, 1.0]] * 3 + [[1.0, 1.0]])
    traj = simulate_hybrid(np.broadcast_to(W0, (4, 2)), A0, gs, W_max, n_epochs)
    astar = np.concatenate([alpha_star(wstar, gs[:3]), [1.0]])
    ct = convergence_times(traj, astar=astar)
    t_alpha = ct["t_alpha"].copy()
    t_alpha[3] = 0.0  # TCP's α is 1 throughout
    pred = np.concatenate([rate_dctcp(wstar, gs[:3]), [rate_tcp(wstar)]])
    return {
        "labels": labels,
        "g": gs,
        "W_max": W_max,
        "W_star": wstar,
        "rtt_s": float(rtt),
        "T": traj.T,
        "W": traj.W,
        "alpha": traj.alpha,
        "alpha_star": astar,
        "t_window": ct["t_window"],
        "t_alpha": t_alpha,
        "t_window_ms": ct["t_window"] * rtt * 1e3,
        "t_alpha_ms": t_alpha * rtt * 1e3,
        "rate_predicted": pred,
        "rate_fitted": fitted_rate(traj),
        "paper_ms": {"DCTCP g=1/sqrt(Wmax)": 55.0, "DCTCP g=5/Wmax": 67.0, "DCTCP g=1/Wmax": 185.0},
    }


def hybrid_summary(wstar: float, g: float) -> dict[str, Any]:
    """Scalar summary for the CLI: α*, (25), (26), their ratio, Theorem 3's bounds and whether they hold.

    Rates are per RTT. Eqs. (23)-(27) and Theorem 3 of [DCTCP-A]. ``wstar``: W* = (C·d + K)/N in packets;
    ``g``: the EWMA gain.
    """
    wstar = float(_check_positive("wstar", wstar))
    g = float(_check_g(g))
    a = float(alpha_star(wstar, g))
    gam = float(gamma_rate(wstar, a))
    bd = min(g, gam)
    bt = float(rate_tcp(wstar))
    lo, hi = (float(v) for v in theorem3_bounds(wstar, g))
    return {
        "wstar": wstar,
        "g": g,
        "alpha_star": a,
        "alpha_star_small_g": float(alpha_star_small_g(wstar)),
        "gamma": gam,
        "rate_dctcp": bd,
        "rate_limited_by": "g" if g < gam else "gamma",
        "rate_tcp": bt,
        "rate_ratio": bt / bd,
        "rate_ratio_asymptotic": LN2X2,
        "alpha_bounds": [lo, hi],
        "alpha_bounds_hold": bool(lo < a < hi),
        "theorem3_applies": wstar >= 2.0,
        "t_p2": float(t_p2(wstar, g)),
        "units": {"rates": "per RTT", "t_p2": "RTTs", "wstar": "packets"},
    }
