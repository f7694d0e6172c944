"""Batched limit cycles and Theorem 1 multipliers (``jit`` + ``vmap`` over parameter grids), any switched model.

The same return map as :mod:`.return_map` (any model whose delay enters through the switch), traced in JAX by
:mod:`.return_map_jax` on the JAX integration core; Newton on P(y) = y runs on the host for the whole batch, with
the exact Jacobian of P (Φ projected onto S) or, when a state has a bound (a sliding mode), finite differences.

Per-element :class:`~dwtcp_fluid.results.Status` instead of exceptions: OK, STRUCTURE (recrossing within one
delay), NO_CROSSING (step budget), NOT_CONVERGED / NON_FINITE, RESOLVED (solved again by the SciPy path of
:mod:`.limit_cycle`). :func:`cycles_batch` is the normalized DCTCP model (11)-(14) of [DCTCP-A] over (w̄, g[, ψ]).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..dde.problem import make_problem
from ..models.base import FluidModel
from ..models.dctcp import DctcpNormalized
from ..results import Status
from .cycle_results import FALLBACK, OK, BatchCycles, BatchCyclesSummary
from .return_map import CycleMap, _symbols
from .return_map_jax import Cfg as _Cfg
from .return_map_jax import map_batch

__all__ = ["BatchCycles", "BatchCyclesSummary", "cycles", "cycles_batch", "STEPS_PER_UNIT", "OK", "FALLBACK"]

#: Default RK4 steps per delay (per R* in the normalized model): ρ and T agree with the SciPy path to ~1e-6.
STEPS_PER_UNIT = 40


# --- host side: Newton on P(y) = y for the whole batch --------------------------------------------------------


def _u(model: FluidModel, params: Mapping[str, Any], v: float) -> Any:
    m = len(model.switch_delays({k: np.ravel(a)[0] for k, a in params.items()}))
    return v if m == 1 else (v,) * m


def _projections(model: FluidModel, x: np.ndarray, u: Any, params: Mapping[str, np.ndarray]) -> np.ndarray:
    """I − F ∇σᵀ/(∇σ·F) for a batch of states on S (NumPy; F and ∇σ from the model), see
    :meth:`.return_map.CycleMap.saltation`."""
    xs = tuple(x.T)
    F = np.stack(np.broadcast_arrays(*model.rhs(xs, xs, u, params, np)), axis=-1)
    c = _symbols(model)["grad_sigma"](*xs, *(params[k] for k in model.param_names))
    c = np.stack(np.broadcast_arrays(*[np.asarray(v, float) + 0 * x[:, 0] for v in c]), axis=-1)
    cf = np.sum(c * F, axis=-1)
    return np.eye(x.shape[1])[None] - F[:, :, None] * c[:, None, :] / cf[:, None, None]


def _lift(
    model: FluidModel, y: np.ndarray, params: Mapping[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """States on S for coordinates ``y`` (B, n − 1), and ∂x/∂y (B, n, n − 1)."""
    sym = _symbols(model)
    i_s, n = sym["index"], y.shape[1] + 1
    pv = [params[k] for k in model.param_names]
    x = np.insert(y, i_s, 0.0, axis=1)
    x[:, i_s] = np.broadcast_to(sym["lift"](*y.T, *pv), y.shape[0])
    L = np.zeros((y.shape[0], n, n - 1))
    keep = [j for j in range(n) if j != i_s]
    L[:, keep, :] = np.eye(n - 1)
    grads = sym["lift_grad"](*y.T, *pv)
    L[:, i_s, :] = np.stack([np.broadcast_to(np.asarray(g, float), y.shape[0]) for g in grads], axis=-1)
    return x, L


def _unpack(
    model: FluidModel, out: dict[str, Any], params: Mapping[str, np.ndarray], var: bool, paper: bool
) -> dict:
    """Host-side results of :func:`.return_map_jax.map_batch`: P(y), times, and (with ``var``) Z1·Z2 both ways."""
    from scipy.linalg import expm

    n = len(model.states)
    o = {k: np.asarray(v) for k, v in out.items()}
    aug = o["aug"]
    res = {
        "x_next": aug[:, 1, :n],
        "x_beta": aug[:, 0, :n],
        "t_a": o["t"][:, 0],
        "t_b": o["t"][:, 1],
        "q_min": o["q_min"],
        "q_max": o["q_max"],
        "utilization": aug[:, 0, n] + aug[:, 1, n],
        "status": o["status"],
    }
    if var:
        Pa = _projections(model, aug[:, 0, :n], _u(model, params, 0.0), params)
        Pb = _projections(model, aug[:, 1, :n], _u(model, params, 1.0), params)
        sl = slice(n + 1, n + 1 + n * n)
        phi_a, phi_b = aug[:, 0, sl].reshape(-1, n, n), aug[:, 1, sl].reshape(-1, n, n)
        res["z_true"] = (Pb @ phi_b) @ (Pa @ phi_a)
        if paper:
            # the paper's exp(∫ J_F ds), batched (only for the final evaluation: it is the costly part)
            ja, jb = (
                aug[:, 0, n + 1 + n * n : n + 1 + 2 * n * n].reshape(-1, n, n),
                aug[:, 1, n + 1 + n * n : n + 1 + 2 * n * n].reshape(-1, n, n),
            )
            good = np.all(np.isfinite(ja), axis=(1, 2)) & np.all(np.isfinite(jb), axis=(1, 2))
            ea, eb = np.full_like(ja, np.nan), np.full_like(jb, np.nan)
            if good.any():
                ea[good], eb[good] = expm(ja[good]), expm(jb[good])
            res["z_paper"] = (Pb @ eb) @ (Pa @ ea)
    return res


def _rho(Z: np.ndarray) -> np.ndarray:
    return np.max(np.abs(np.linalg.eigvals(np.asarray(Z))), axis=-1)


Feasible = Callable[[np.ndarray, Mapping[str, np.ndarray]], np.ndarray]


def _cycles_chunk(
    cfg: _Cfg, params: dict[str, np.ndarray], y: np.ndarray, approach: int, newton: int, tol: float,
    feasible: Feasible | None,
) -> dict[str, np.ndarray]:  # fmt: skip
    model = cfg.model
    B, k = y.shape
    sliding = bool(cfg.bound_idx)
    keep = [j for j in range(k + 1) if j != _symbols(model)["index"]]

    def run(yy: np.ndarray, pp: dict[str, np.ndarray], var: bool) -> dict[str, Any]:
        x0, _ = _lift(model, yy, pp)
        return map_batch(
            jnp.asarray(x0), {kk: jnp.asarray(v) for kk, v in pp.items()}, cfg=cfg._replace(var=var)
        )

    # one compiled shape per mode: without bounds every call carries the variational equations (batch B); with
    # a sliding mode every call evaluates P at y and at k finite-difference neighbours (batch (k + 1)·B)
    def evaluate(yy: np.ndarray, paper: bool = False) -> dict[str, Any]:
        if sliding:
            d = 1e-6 * np.maximum(np.abs(yy), 1e-3)
            ys = np.concatenate([yy] + [yy + d * np.eye(k)[j] for j in range(k)])
            tiled = {kk: np.tile(v, k + 1) for kk, v in params.items()}
            o = _unpack(model, run(ys, tiled, False), tiled, False, False)
            first = {kk: v[:B] for kk, v in o.items()}
            P = o["x_next"][:, keep].reshape(k + 1, B, k)
            first["DP"] = np.stack([(P[j + 1] - P[0]) / d[:, j : j + 1] for j in range(k)], axis=2)
            first["status"] = o["status"].reshape(k + 1, B).max(axis=0)
            return first
        o = _unpack(model, run(yy, params, True), params, True, paper)
        _, L = _lift(model, yy, params)
        o["DP"] = (o["z_true"] @ L)[:, keep, :]
        return o

    for _ in range(approach):
        y = evaluate(y)["x_next"][:, keep]
    for _ in range(newton):
        out = evaluate(y)
        r = out["x_next"][:, keep] - y
        res = np.max(np.abs(r), axis=1)
        done = (res < tol * np.maximum(1.0, np.max(np.abs(y), axis=1))) | (out["status"] != OK)
        if np.all(done):
            break
        with np.errstate(all="ignore"):
            step = np.linalg.solve(out["DP"] - np.eye(k), -r[..., None])[..., 0]
        step = np.where(np.isfinite(step) & ~done[:, None], step, 0.0)
        # keep the iterate where a downward crossing exists by halving offending steps
        for _ in range(10 if feasible is not None else 0):
            ok = feasible(y + step, params)
            if np.all(ok):
                break
            step = np.where(ok[:, None], step, 0.5 * step)
        y = y + step
    fin = evaluate(y, paper=True)
    res = np.max(np.abs(fin["x_next"][:, keep] - y), axis=1)
    status = fin["status"].copy()
    status[(status == OK) & ~(res < 1e3 * tol * np.maximum(1.0, np.max(np.abs(y), axis=1)))] = int(
        Status.NOT_CONVERGED
    )
    T = fin["t_a"] + fin["t_b"]
    D = np.max(np.stack([np.broadcast_to(d, B) for d in model.switch_delays(params)]), axis=0)
    if sliding:
        rp = rm = np.full(B, np.nan)
    else:
        rp, rm = _rho(fin["z_paper"]), _rho(fin["z_true"])
    return {
        "x_alpha": _lift(model, y, params)[0],
        "period": T,
        "h_alpha": fin["t_a"] - D,
        "h_beta": fin["t_b"] - D,
        "q_min": fin["q_min"],
        "q_max": fin["q_max"],
        "throughput": fin["utilization"] / T,
        "rho_paper": rp,
        "rho_monodromy": rm,
        "residual": res,
        "status": status,
    }


def _fallback(
    model: FluidModel, params: dict[str, np.ndarray], y0: np.ndarray, cat: dict, feasible: Any
) -> None:
    """Re-solve failed elements one by one with the event-exact SciPy path (status RESOLVED when it works)."""
    from .floquet import paper_z1z2_of, spectral_radius
    from .limit_cycle import limit_cycle

    for i in np.flatnonzero(cat["status"] != OK):
        p = {k: float(v[i]) for k, v in params.items()}
        fe = (
            None
            if feasible is None
            else (lambda v, p=p: bool(feasible(v[None], {k: np.array([x]) for k, x in p.items()})[0]))
        )
        c = limit_cycle(model, p, y0[i], feasible=fe)
        if not c.ok:
            continue
        cat["x_alpha"][i] = c.x_alpha
        for k in ("period", "h_alpha", "h_beta", "q_min", "q_max", "throughput", "residual"):
            cat[k][i] = getattr(c, k)
        if c.monodromy is not None:
            cat["rho_monodromy"][i] = c.rho
            cm = CycleMap(model, p)
            first, second = cm.return_map(c.x_alpha[cm.keep], variational=True)
            cat["rho_paper"][i] = spectral_radius(paper_z1z2_of(cm, first, second))
        cat["status"][i] = FALLBACK


def cycles(
    model: FluidModel,
    params: Mapping[str, Any],
    y0: np.ndarray,
    *,
    steps_per_unit: int = STEPS_PER_UNIT,
    approach: int = 0,
    newton: int = 12,
    tol: float = 1e-9,
    max_time: float = 2000.0,
    chunk: int = 256,
    fallback: bool = True,
    feasible: Feasible | None = None,
) -> BatchCycles:
    """Limit cycles (and Theorem 1's ρ both ways when no state has a bound) of ``model`` for a batch of parameters.

    Parameters
    ----------
    model : FluidModel
        Any model whose delay enters through the switch only (as :func:`.limit_cycle.limit_cycle`).
    params : mapping of name → array
        One entry per parameter of the model, broadcast to one length B.
    y0 : array (B, n − 1)
        Guesses of the downward crossing, coordinates on S (the state without the component σ = 0 is solved for).
    tol : float
        Newton stops when max |P(y) − y| < tol·max(1, |y|).
    steps_per_unit : int
        RK4 steps per delay.
    approach, newton : int
        Return-map iterations before Newton, and Newton iterations.
    max_time : float
        Longest half orbit allowed, in delays (a step budget).
    chunk : int
        Batch elements per compiled call (memory and while-loop length: elements sharing a chunk wait for the
        slowest). Every chunk is padded to this length so the compiled function is reused.
    fallback : bool
        Re-solve elements the batched solver could not with the SciPy path; they get status RESOLVED.
    feasible : callable, optional
        ``feasible(y, params) -> bool array``: Newton steps are halved until it holds.
    """
    if not (isinstance(steps_per_unit, int) and steps_per_unit >= 4):
        raise ValueError(f"steps_per_unit={steps_per_unit!r} is out of range: accepted an integer >= 4")
    names = list(model.param_names)
    missing = [k for k in names if k not in params]
    if missing:
        raise ValueError(f"params is invalid: missing {missing}; accepted keys {names}")
    arrs = [a.ravel() for a in np.broadcast_arrays(*[np.asarray(params[k], dtype=float) for k in names])]
    P = dict(zip(names, arrs, strict=True))
    B = arrs[0].size
    y0 = np.asarray(y0, dtype=float).reshape(B, -1)
    if y0.shape[1] != len(model.states) - 1:
        raise ValueError(f"y0 has {y0.shape[1]} columns: accepted {len(model.states) - 1} (coordinates on S)")
    prob = make_problem(model, {k: v[0] for k, v in P.items()})
    cfg = _Cfg(
        model, steps_per_unit, int(math.ceil(max_time * steps_per_unit)), True,
        tuple(i for i, _, _ in prob.bounds), tuple(s for _, _, s in prob.bounds),
    )  # fmt: skip
    chunk = max(1, min(int(chunk), B))
    parts = []
    for i in range(0, B, chunk):
        sl = slice(i, i + chunk)
        n = arrs[0][sl].size
        # pad every chunk to the same length so one compiled function serves all chunks (and all callers)
        pad = lambda a, sl=sl, n=n: np.concatenate([a[sl], np.repeat(a[sl][-1:], chunk - n, axis=0)])  # noqa: E731
        with jax.enable_x64(
            True
        ):  # float64 inside, whatever the caller's JAX mode (no global switch at import)
            out = _cycles_chunk(
                cfg, {k: pad(v) for k, v in P.items()}, pad(y0), approach, newton, tol, feasible
            )
        parts.append({k: v[:n] for k, v in out.items()})
    cat = {k: np.concatenate([pt[k] for pt in parts]) for k in parts[0]}
    if fallback:
        _fallback(model, P, y0, cat, feasible)
    messages = ["" if Status(int(s)).ok else Status(int(s)).message for s in cat["status"]]
    return BatchCycles(model=model, params=P, messages=messages, **cat)


def _normalized_feasible(y: np.ndarray, params: Mapping[str, np.ndarray]) -> np.ndarray:
    # a downward crossing of q̃ = 0 needs W̃ < w̄ (dq̃/dt < 0), and 0 < α̃ ≤ 1
    return (y[:, 0] > 0) & (y[:, 0] < params["wbar"]) & (y[:, 1] > 0) & (y[:, 1] <= 1)


def cycles_batch(
    wbar: np.ndarray,
    g: np.ndarray,
    *,
    psi: np.ndarray | None = None,
    steps_per_unit: int = STEPS_PER_UNIT,
    approach: int = 0,
    newton: int = 12,
    tol: float = 1e-9,
    max_time: float = 2000.0,
    chunk: int = 256,
    fallback: bool = True,
    y0: np.ndarray | None = None,
) -> BatchCycles:
    """Limit cycles (and Theorem 1's ρ both ways when ``psi`` is None) for many (w̄, g), [DCTCP-A] eqs. (11)-(14).

    ``wbar``, ``g`` (and ``psi``, the queue floor q̃ ≥ −ψ/(1+ψ) of section 3.3.2, where ρ is not computed) are
    broadcast together; w̄ > 2 packets, 0 < g ≤ 1, ψ > 0. ``y0`` (n, 2): initial (W̃, α̃) at a downward
    crossing per element (e.g. the floor-free cycle when solving with ``psi``); default the sawtooth guess
    W̃ = w̄(1 − α̃/4), α̃ = min(1, sqrt(2/w̄)). The options ``steps_per_unit``, ``approach``, ``newton``,
    ``tol``, ``max_time``, ``chunk``, ``fallback`` are those of :func:`cycles` (times in R*).
    """
    arrs = [np.asarray(wbar, float), np.asarray(g, float)]
    if psi is not None:
        arrs.append(np.asarray(psi, float))
    arrs = [a.ravel() for a in np.broadcast_arrays(*arrs)]
    wb, gg = arrs[0], arrs[1]
    if np.any(~np.isfinite(wb)) or np.any(wb <= 2.0):
        bad = wb[~(np.isfinite(wb) & (wb > 2.0))][0]
        raise ValueError(
            f"wbar={bad!r} is out of range: accepted 2 < wbar (w̄ ≤ 2 has a fixed point, no cycle)"
        )
    if np.any(~np.isfinite(gg)) or np.any((gg <= 0) | (gg > 1)):
        bad = gg[~((gg > 0) & (gg <= 1))][0]
        raise ValueError(f"g={bad!r} is out of range: accepted 0 < g <= 1")
    ps = np.zeros_like(wb) if psi is None else arrs[2]
    if psi is not None and (np.any(~np.isfinite(ps)) or np.any(ps <= 0)):
        raise ValueError(f"psi={ps[~(ps > 0)][0]!r} is out of range: accepted psi > 0")
    if y0 is None:
        a = np.minimum(1.0, np.sqrt(2.0 / wb))
        y = np.stack([wb * (1.0 - 0.25 * a), a], axis=1)
    else:
        y = np.asarray(y0, dtype=float).reshape(-1, 2).copy()
        if y.shape[0] != wb.size:
            raise ValueError(f"y0 has {y.shape[0]} rows: accepted one (W, alpha) row per element ({wb.size})")
    y[:, 0] = np.minimum(y[:, 0], wb * (1 - 1e-3))  # a downward crossing needs W̃ < w̄
    return cycles(
        DctcpNormalized(underflow=psi is not None), {"wbar": wb, "g": gg, "psi": ps}, y,
        steps_per_unit=steps_per_unit, approach=approach, newton=newton, tol=tol, max_time=max_time, chunk=chunk,
        fallback=fallback, feasible=_normalized_feasible,
    )  # fmt: skip
