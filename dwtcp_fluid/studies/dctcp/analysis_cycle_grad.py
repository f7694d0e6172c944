"""Parameter gradients of DCTCP limit-cycle observables by implicit differentiation of the return map.

The cycle of the normalized model (11)-(14) of [DCTCP-A] with the physical queue floor q̃ ≥ −ψ/(1+ψ) (section
3.3.2) is the fixed point y* = P(y*, θ) of the return map P of :mod:`~dwtcp_fluid.analysis.return_map_jax` (the same traced half
orbits as :mod:`~dwtcp_fluid.analysis.limit_cycle_batch`; coordinates y = (W̃, α̃) on S: q̃ = 0 downward). θ is physical:
(K, g, N, C, d) with w̄ = (C·d + K)/N and ψ = K/(C·d). By the implicit function theorem

    dy*/dθ = (I − ∂P/∂y)⁻¹ ∂P/∂θ,

and every observable o(y, θ) of one period (queue extremes and mean, period, throughput) has
do/dθ = ∂o/∂y·dy*/dθ + ∂o/∂θ. The partials come from forward-mode JAX (``jax.jacfwd``, which passes through
``lax.while_loop``) over one period only; nothing is unrolled over a transient. The return map's multiplier
ρ = max |eig ∂P/∂y| (the cycle's nontrivial Floquet multipliers; with the floor the sliding segment is in the map)
is differentiated the same way, one forward-mode level deeper.

Observables are physical: queue in packets (q = K + q̃·(C·d + K)), period in seconds (T̃·R*, R* = d + K/C),
throughput as a fraction of C. Where w̄ ≤ 2 there is no cycle ([DCTCP-A] section 3.2): every window sits at 2
packets with α = 1, so the queue is the fixed point q = 2N − C·d packets (≥ K), throughput 1, ρ = 0 (no cycle to
lose stability), all exact and differentiable.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ...analysis.limit_cycle_batch import STEPS_PER_UNIT, cycles_batch
from ...analysis.return_map_jax import Cfg, map_batch
from ...dde.problem import make_problem
from ...models.dctcp import DctcpNormalized
from ...results import Status

__all__ = [
    "PARAMS", "OBSERVABLES", "CycleGrad", "cycle_observables", "cycle_gradients", "fixed_point_sensitivity",
    "total_derivative",
]  # fmt: skip

#: Physical parameters, in the order of the gradient's last axis (K, N in packets / flows, C packets/s, d s).
PARAMS = ("K", "g", "N", "C", "d")
#: Observables and their units.
OBSERVABLES = {
    "q_min": "packets",
    "q_max": "packets",
    "q_mean": "packets",
    "period": "s",
    "throughput": "1",
    "rho": "1",
}
_MODEL = DctcpNormalized(underflow=True)
#: Elements per compiled call of the period map and its partials.
CHUNK = 8


@functools.lru_cache(maxsize=4)
def _cfg(steps_per_unit: int, max_time: float) -> Cfg:
    prob = make_problem(_MODEL, {"wbar": 10.0, "g": 0.1, "psi": 0.2})
    return Cfg(
        _MODEL, steps_per_unit, int(math.ceil(max_time * steps_per_unit)), False,
        tuple(i for i, _, _ in prob.bounds), tuple(s for _, _, s in prob.bounds),
    )  # fmt: skip


def _normalized(theta: Any) -> dict[str, Any]:
    K, g, N, C, d = (theta[i] for i in range(5))
    return {"wbar": (C * d + K) / N, "g": g, "psi": K / (C * d)}


def _period_map(cfg: Cfg, y: Any, theta: Any) -> tuple[Any, Any, Any]:
    """One period from y on S: (P(y) − y, physical observables without ρ, status) for one element."""
    p = _normalized(theta)
    x0 = jnp.concatenate([y, jnp.zeros(1, dtype=y.dtype)])
    o = map_batch(x0[None], {k: jnp.reshape(v, (1,)) for k, v in p.items()}, cfg=cfg)
    aug, t = o["aug"][0], o["t"][0]
    K, C, d = theta[0], theta[3], theta[4]
    bdp_k = C * d + K  # C·R*, packets
    T = t[0] + t[1]
    obs = jnp.stack([
        K + o["q_min"][0] * bdp_k,
        K + o["q_max"][0] * bdp_k,
        K + (aug[0, -1] + aug[1, -1]) / T * bdp_k,
        T * (d + K / C),
        (aug[0, 3] + aug[1, 3]) / T,
    ])  # fmt: skip
    return aug[1, :2] - y, obs, o["status"][0]


def _rho(cfg: Cfg, y: Any, theta: Any) -> Any:
    """max |eig ∂P/∂y| of the 2×2 return-map Jacobian (closed-form eigenvalues, differentiable)."""
    return _spectral_radius(jax.jacfwd(lambda yy: _period_map(cfg, yy, theta)[0])(y) + jnp.eye(2))


def _spectral_radius(A: Any) -> Any:
    tr, det = A[0, 0] + A[1, 1], A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    disc = tr * tr / 4 - det
    # real pair: |tr/2| + sqrt(disc); complex pair: |λ| = sqrt(det)
    real = jnp.abs(tr) / 2 + jnp.sqrt(jnp.where(disc > 0, disc, 1.0))
    return jnp.where(disc > 0, real, jnp.sqrt(jnp.abs(det)))


def _partials(y: Any, theta: Any, *, cfg: Cfg, full: bool = True) -> dict[str, Any]:
    """:func:`_partials_jit` in chunks of :data:`CHUNK` elements (the last padded): one compiled shape for every
    batch size, so the tuner, the grid search and the tests share one compilation."""
    b = y.shape[0]
    parts = []
    for i in range(0, b, CHUNK):
        yy, tt = y[i : i + CHUNK], theta[i : i + CHUNK]
        pad = CHUNK - yy.shape[0]
        if pad:
            yy = jnp.concatenate([yy, jnp.repeat(yy[-1:], pad, axis=0)])
            tt = jnp.concatenate([tt, jnp.repeat(tt[-1:], pad, axis=0)])
        parts.append(_partials_jit(yy, tt, cfg=cfg, full=full))
    return {k: jnp.concatenate([pt[k] for pt in parts])[:b] for k in parts[0]}


@functools.partial(jax.jit, static_argnames=("cfg", "full"))
def _partials_jit(y: Any, theta: Any, *, cfg: Cfg, full: bool) -> dict[str, Any]:
    """Residual, observables, ρ and their partials in (y, θ) for a batch (forward mode over one period).

    ``full``: partials in (y, θ) and ρ's (Newton and the derivatives share this compilation); otherwise in y
    only (values: Newton's Jacobian and ρ, about a fifth of the tangents)."""

    def one(yy: Any, th: Any) -> dict[str, Any]:
        z = jnp.concatenate([yy, th]) if full else yy

        def fz(zz: Any) -> tuple[Any, Any]:
            r, obs, _ = _period_map(cfg, zz[:2], zz[2:] if full else th)
            return jnp.concatenate([r, obs]), None

        J, _ = jax.jacfwd(fz, has_aux=True)(z)
        r, obs, st = _period_map(cfg, yy, th)
        if not full:
            return {"r": r, "obs": obs, "status": st, "J": J, "rho": _spectral_radius(J[:2, :2] + jnp.eye(2))}
        rho_z = lambda zz: _rho(cfg, zz[:2], zz[2:])  # noqa: E731
        return {"r": r, "obs": obs, "status": st, "J": J, "rho": rho_z(z), "drho": jax.jacfwd(rho_z)(z)}

    return jax.vmap(one)(y, theta)


class CycleGrad(dict):
    """Observables (name → (B,)) and their total derivatives (``"d" + name`` → (B, 5) over :data:`PARAMS`);
    ``status`` (B,) of :class:`~dwtcp_fluid.results.Status`, ``y`` the fixed points (B, 2), ``cycle`` (B,) bool
    (False: w̄ ≤ 2, the fixed-point regime), ``q_standing`` (B,) max(0, 2N − C·d) packets: the queue N windows
    at the model's floor of 2 packets hold at any K and g."""


def fixed_point_sensitivity(dres_dy: np.ndarray, dres_dtheta: np.ndarray) -> np.ndarray:
    """dy*/dθ of a fixed point y* = P(y*, θ) from the partials of the residual r = P(y, θ) − y.

    dy*/dθ = (I − ∂P/∂y)⁻¹ ∂P/∂θ = −(∂r/∂y)⁻¹ ∂r/∂θ (implicit function theorem); batched over leading axes,
    ``dres_dy`` (..., k, k), ``dres_dtheta`` (..., k, p). NaN where ∂r/∂y is singular (a multiplier at 1).
    """
    with np.errstate(all="ignore"):
        return np.linalg.solve(-np.asarray(dres_dy), np.asarray(dres_dtheta))


def total_derivative(do_dy: np.ndarray, do_dtheta: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """do/dθ = ∂o/∂y·dy*/dθ + ∂o/∂θ for an observable o(y, θ) of the orbit through y* (batched (..., k))."""
    return np.einsum("...j,...jp->...p", do_dy, dy) + do_dtheta


def _theta(K: Any, g: Any, N: Any, C: Any, d: Any) -> np.ndarray:
    arrs = np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in (K, g, N, C, d)])
    th = np.stack([a.ravel() for a in arrs], axis=1)
    for j, name in enumerate(PARAMS):
        col = th[:, j]
        bad = ~np.isfinite(col) | (col <= 0) | ((col > 1) if name == "g" else False)
        if np.any(bad):
            acc = "0 < g <= 1" if name == "g" else f"finite {name} > 0"
            raise ValueError(f"{name}={col[bad][0]!r} is out of range: accepted {acc}")
    return th


def _fixed_regime(th: np.ndarray) -> dict[str, np.ndarray]:
    """w̄ ≤ 2: every window 2 packets, α = 1, queue 2N − C·d ([DCTCP-A] (11)-(13) at rest with p̃ = 1)."""
    B = th.shape[0]
    N, C, d = th[:, 2], th[:, 3], th[:, 4]
    q = 2 * N - C * d
    dq = np.stack([np.zeros(B), np.zeros(B), np.full(B, 2.0), -d, -C], axis=1)
    out = {k: q.copy() for k in ("q_min", "q_max", "q_mean")}
    out.update({"d" + k: dq.copy() for k in ("q_min", "q_max", "q_mean")})
    out["period"], out["dperiod"] = np.full(B, np.nan), np.full((B, 5), np.nan)
    out["throughput"], out["dthroughput"] = np.ones(B), np.zeros((B, 5))
    out["rho"], out["drho"] = np.zeros(B), np.zeros((B, 5))
    # the standing queue N windows of 2 packets hold whatever K and g: the fixed point's where it exists
    out["q_standing"] = np.maximum(q, 0.0)
    return out


def _converged(r: np.ndarray, y: np.ndarray, tol: float) -> np.ndarray:
    return np.max(np.abs(r), axis=1) < tol * np.maximum(1, np.abs(y).max(axis=1))


def _newton(
    y: np.ndarray, tc: np.ndarray, wbar: np.ndarray, cfg: Cfg, iters: int, tol: float, full: bool,
    ok: np.ndarray | None = None, last: dict[str, np.ndarray] | None = None,
) -> tuple[np.ndarray, int, np.ndarray, dict[str, np.ndarray] | None]:  # fmt: skip
    """Damped Newton on P(y) = y with the forward-mode Jacobian.

    Each iteration evaluates only the elements not yet converged (a converged element does not move, so its
    partials are those of its last evaluation); :func:`_partials` pads to one compiled chunk size, so the shrinking
    batch compiles nothing new. ``ok`` and ``last`` continue an earlier call (elements already converged and their
    partials). Returns (y, period maps evaluated, converged, the partials: at y where converged, at the last
    evaluated point elsewhere)."""
    y = y.copy()
    n_eval = 0
    ok = np.zeros(y.shape[0], dtype=bool) if ok is None else ok.copy()
    for _ in range(iters):
        act = np.flatnonzero(~ok)
        if act.size == 0:
            break
        p = _partials(jnp.asarray(y[act]), jnp.asarray(tc[act]), cfg=cfg, full=full)
        p = {k: np.array(v) for k, v in p.items()}  # writable copies: ``last`` is updated in place
        n_eval += act.size
        if last is None:
            last = p
        else:
            for k, v in p.items():
                last[k][act] = v
        r, A = p["r"], p["J"][:, :2, :2]
        done = _converged(r, y[act], tol) & (p["status"] == int(Status.OK))
        ok[act] = done
        if ok.all():
            break
        with np.errstate(all="ignore"):
            step = np.linalg.solve(A, -r[..., None])[..., 0]
        # damped: a full Newton step from a poor guess can leave the downward-crossing region
        step = np.where(np.isfinite(step) & ~done[:, None], step, 0.0)
        ya = y[act]
        lim = 0.25 * np.maximum(np.abs(ya), 0.05)
        ya = ya + np.clip(step, -lim, lim)
        ya[:, 0] = np.clip(ya[:, 0], 1e-6, wbar[act] * (1 - 1e-9))
        ya[:, 1] = np.clip(ya[:, 1], 1e-9, 1.0)
        y[act] = ya
    return y, n_eval, ok, last


def cycle_observables(
    K: Any, g: Any, N: Any, C: Any, d: Any, *, y0: np.ndarray | None = None, gradients: bool = True, steps_per_unit: int = STEPS_PER_UNIT, newton: int = 30, tol: float = 1e-10,
    max_time: float = 400.0,
) -> CycleGrad:  # fmt: skip
    """Limit-cycle observables of DCTCP with the queue floor, and their gradients by implicit differentiation.

    Parameters
    ----------
    K, g, N, C, d : array_like, broadcast together
        Marking threshold (packets), EWMA gain (0 < g ≤ 1), flows, capacity (packets/s), base RTT (s).
    y0 : array (B, 2), optional
        Warm start (W̃, α̃) at the downward crossing (e.g. the previous call's ``y``); without it Newton starts
        from the sawtooth guess of :func:`~dwtcp_fluid.analysis.limit_cycle_batch.cycles_batch`, which re-solves what Newton misses.
    gradients : bool
        Compute the derivatives ``d…``; without them only ∂P/∂y is carried (Newton and ρ), ~5× cheaper.
    steps_per_unit, newton, tol, max_time
        RK4 steps per R*, Newton iterations on P(y) = y with the forward-mode Jacobian, tolerance, step budget
        per half orbit in R*.

    Returns
    -------
    CycleGrad
        ``q_min``, ``q_max``, ``q_mean`` (packets), ``period`` (s), ``throughput`` (1), ``rho`` (1) with their
        derivatives ``dq_min`` … (B, 5) with respect to :data:`PARAMS`; ``status`` per element.
    """
    th = _theta(K, g, N, C, d)
    B = th.shape[0]
    wbar = (th[:, 3] * th[:, 4] + th[:, 0]) / th[:, 2]
    cyc = wbar > 2.0 * (1 + 1e-9)
    out = CycleGrad(_fixed_regime(th))
    out["status"] = np.full(B, int(Status.OK))
    out["cycle"] = cyc
    out["y"] = np.stack([np.full(B, 2.0), np.ones(B)], axis=1)
    out["evaluations"] = 0  # period maps evaluated (each with its forward-mode partials), all elements
    if not cyc.any():
        return out
    tc = th[cyc]
    if y0 is None or not np.all(np.isfinite(np.asarray(y0)[cyc])):
        # the sawtooth guess of :func:`~dwtcp_fluid.analysis.limit_cycle_batch.cycles_batch`; Newton below starts from it
        a = np.minimum(1.0, np.sqrt(2.0 / wbar[cyc]))
        y = np.stack([wbar[cyc] * (1.0 - 0.25 * a), a], axis=1)
    else:
        y = np.asarray(y0, dtype=float)[cyc].copy()
    cfg = _cfg(steps_per_unit, max_time)
    with jax.enable_x64(True):
        y, n_eval, ok, p = _newton(y, tc, wbar[cyc], cfg, newton, tol, gradients)
        out["evaluations"] += n_eval
        if not ok.all():
            # the robust batched finder (SciPy fallback included) for what Newton from the guess could not reach
            bc = cycles_batch(
                wbar[cyc][~ok], tc[~ok, 1], psi=tc[~ok, 0] / (tc[~ok, 3] * tc[~ok, 4]),
                steps_per_unit=steps_per_unit, max_time=max_time,
            )  # fmt: skip
            y[~ok] = np.where(np.isfinite(bc.x_alpha[:, :2]), bc.x_alpha[:, :2], y[~ok])
            out["evaluations"] += 13 * 3 * int((~ok).sum())
            y, n_eval, ok, p = _newton(y, tc, wbar[cyc], cfg, 4, tol, gradients, ok=ok, last=p)
            out["evaluations"] += n_eval
        if p is None or not ok.all():  # the partials where Newton stopped (none ran: all), statuses below
            act = np.flatnonzero(~ok)
            q = _partials(jnp.asarray(y[act]), jnp.asarray(tc[act]), cfg=cfg, full=gradients)
            if p is None:
                p = {k: np.array(v) for k, v in q.items()}
            else:
                for k, v in q.items():
                    p[k][act] = np.asarray(v)
            out["evaluations"] += act.size
    r = p["r"]
    st = p["status"].astype(int)
    st[(st == int(Status.OK)) & ~_converged(r, y, 1e3 * tol)] = int(Status.NOT_CONVERGED)
    out["status"][cyc] = st
    out["y"][cyc] = y
    J = p["J"]  # (b, 2 + 5, 2 + 5): rows residual (2) then observables; columns y (2) then θ (5)
    if gradients:
        dy = fixed_point_sensitivity(J[:, :2, :2], J[:, :2, 2:])  # ∂r/∂y = ∂P/∂y − I, ∂r/∂θ = ∂P/∂θ
    names = ["q_min", "q_max", "q_mean", "period", "throughput"]
    for i, k in enumerate(names):
        out[k][cyc] = p["obs"][:, i]
        if gradients:
            out["d" + k][cyc] = total_derivative(J[:, 2 + i, :2], J[:, 2 + i, 2:], dy)
    out["rho"][cyc] = p["rho"]
    if gradients:
        out["drho"][cyc] = total_derivative(p["drho"][:, :2], p["drho"][:, 2:], dy)
    bad = out["status"] != int(Status.OK)
    for k in names + ["rho"]:
        out[k][bad] = np.nan
        out["d" + k][bad] = np.nan
        if not gradients:
            del out["d" + k]
    return out


def cycle_gradients(K: Any, g: Any, N: Any, C: Any, d: Any, **kw: Any) -> CycleGrad:
    """:func:`cycle_observables` with gradients and ρ (the public name for the gradient check)."""
    return cycle_observables(K, g, N, C, d, gradients=True, **kw)
