"""The return map of :mod:`.return_map` in JAX, batched: the traced half orbit of the batched limit cycles.

Each half is a ``lax.while_loop`` over sub-steps of the JAX integration core
(:class:`~dwtcp_fluid.dde.segment_jax.JaxSegment`, the same as the batched DDE solver's) on a fixed grid
h = D/M, so the switch one delay after the crossing falls on a step boundary; the crossing that ends a half and
any contact with a bound (a sliding mode) are located by Newton on the step's Hermite interpolant, and the end is
moved onto S along the flow (one Newton step in time, then the lift onto S). Along the orbit the vector carries
the throughput integral (:func:`.return_map.throughput_rate`), the queue's integral (last) and, without bounds, the variational matrix Φ (Φ' = J_F Φ, J_F by ``jax.jacfwd`` of the model's
right-hand side, which the contract test checks against the symbolic Jacobian) and the entry-wise ∫ J_F ds.
The queue's extremes are sampled at the sub-step ends.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import sympy as sp

from ..dde.segment_jax import JaxSegment
from ..models.base import FluidModel
from ..results import Status
from .return_map import _symbols, throughput_rate

__all__ = ["Cfg", "map_batch"]

OK = int(Status.OK)


class Cfg(NamedTuple):
    """Static (compile-time) configuration of the half orbit."""

    model: FluidModel
    M: int  # steps per delay
    nmax: int  # step budget after the last switch
    var: bool  # carry Φ and ∫J
    bound_idx: tuple[int, ...]
    bound_sign: tuple[int, ...]


class _Carry(NamedTuple):
    """The ``while_loop`` carry of one half orbit (one element)."""

    s: Any  # time since the crossing
    y: Any  # state, ∫ utilization, (Φ, ∫ J)
    held: Any  # bound modes
    u: Any  # input per channel
    sign_pos: Any  # σ > 0 now
    k: Any  # grid points passed
    done: Any  # crossed S after the last switch
    early: Any  # crossed S before it (structure broken)
    qmin: Any
    qmax: Any
    bad: Any  # non-finite


@functools.lru_cache(maxsize=16)
def _lift_jax(model: FluidModel) -> Callable[..., Any]:
    xs, ps = model.symbols()
    i = _symbols(model)["index"]
    sol = sp.solve(sp.Eq(sp.sympify(model.surface(xs, ps, sp)), 0), xs[i])[0]
    rest = [xs[j] for j in range(len(xs)) if j != i]
    return sp.lambdify(rest + [ps[k] for k in model.param_names], sol, modules="jax")


def _half(cfg: Cfg, p: Mapping[str, Any], x0: Any, u_first: Any) -> tuple[Any, Any, Any, Any, Any]:
    """One half orbit of one element; returns (y_end, t_end, q_min, q_max, status)."""
    model, M, var = cfg.model, cfg.M, cfg.var
    n = len(model.states)
    delays = jnp.stack([jnp.asarray(d, dtype=jnp.float64) for d in model.switch_delays(p)])
    m = delays.shape[0]
    D = jnp.max(delays)
    h = D / M
    eps = 1e-9 * h
    bounds = {
        **{("f", i): b for i, b in model.floors(p).items()},
        **{("c", i): b for i, b in model.ceilings(p).items()},
    }
    bval = jnp.stack([jnp.asarray(v, dtype=jnp.float64) for v in bounds.values()]) if bounds else jnp.zeros(0)

    def u_arg(u: Any) -> Any:
        return u[0] if m == 1 else tuple(u[j] for j in range(m))

    def F_state(x: Any, u: Any) -> Any:
        return jnp.stack(
            [jnp.asarray(v, dtype=x.dtype) + 0 * x[0] for v in model.rhs(x, x, u_arg(u), p, jnp)]
        )

    def f(tt: Any, y: Any, u: Any) -> Any:
        x = y[:n]
        if var:  # F and J_F in one forward-mode pass
            J, F = jax.jacfwd(lambda z: (F_state(z, u),) * 2, has_aux=True)(x)
        else:
            F = F_state(x, u)
        util = jnp.asarray(throughput_rate(model, x, p, jnp, F=F)) + 0 * x[0]
        parts = [F, util[None]]
        if var:
            parts += [(J @ y[n + 1 : n + 1 + n * n].reshape(n, n)).ravel(), J.ravel()]
        parts.append(queue(y)[None])  # ∫ queue, last rider: the cycle's mean queue
        return jnp.concatenate(parts)

    def sigma(y: Any) -> Any:
        return model.surface(y[:n], p, jnp)

    def queue(y: Any) -> Any:
        return jnp.asarray(model.observables(tuple(y[i] for i in range(n)), p, jnp)["queue"]) + 0 * y[0]

    seg = JaxSegment(f, sigma, cfg.bound_idx, cfg.bound_sign)
    y0 = jnp.zeros(n + 2 + (2 * n * n if var else 0)).at[:n].set(x0)
    if var:
        y0 = y0.at[n + 1 : n + 1 + n * n].set(jnp.eye(n).ravel())
    u0 = jnp.full(m, u_first)
    q0 = queue(y0)
    c0 = _Carry(jnp.asarray(0.0), y0, jnp.zeros(len(bounds), dtype=bool), u0, u_first < 0.5, jnp.int64(0),
                jnp.bool_(False), jnp.bool_(False), q0, q0, jnp.bool_(False))  # fmt: skip

    def body(c: _Carry) -> _Carry:
        u = jnp.where(delays <= c.s + eps, 1.0 - u_first, u_first)
        y, held, F0 = seg.modes(c.s, c.y, u, c.held, bval, jnp.any(u != c.u))
        nsw = jnp.min(jnp.where(delays > c.s + eps, delays, jnp.inf))
        target = jnp.minimum((c.k + 1) * h, nsw)
        r = seg.advance(c.s, y, held, c.sign_pos, u, target, bval, F0)
        after = r.s >= D - eps
        q = queue(r.x)
        return _Carry(
            r.s, r.x, r.held, u, r.sign_pos, c.k + (r.s >= (c.k + 1) * h - eps).astype(jnp.int64),
            r.crossed & after, r.crossed & ~after, jnp.minimum(c.qmin, q), jnp.maximum(c.qmax, q), r.nonfinite,
        )  # fmt: skip

    def cond(c: _Carry) -> Any:
        return ~(c.done | c.early | c.bad) & (c.k < M + cfg.nmax)

    c = jax.lax.while_loop(cond, body, c0)
    # onto S along the flow: one Newton step in time, then σ = 0 exactly through the lift
    fy = seg.mask(f(c.s, c.y, c.u), c.held)
    cf = jnp.dot(jax.grad(lambda x: model.surface(x, p, jnp))(c.y[:n]), fy[:n])
    dt = jnp.where(c.done & (cf != 0), -sigma(c.y) / jnp.where(cf != 0, cf, 1.0), 0.0)
    y = c.y + dt * fy
    i_s = _symbols(model)["index"]
    rest = [y[j] for j in range(n) if j != i_s]
    lifted = jnp.asarray(_lift_jax(model)(*rest, *(p[k] for k in model.param_names)), dtype=y.dtype)
    y = jnp.where(c.done, y.at[i_s].set(lifted), y)
    status = jnp.where(
        c.bad,
        int(Status.NON_FINITE),
        jnp.where(c.early, int(Status.STRUCTURE), jnp.where(c.done, OK, int(Status.NO_CROSSING))),
    )
    return y, c.s + dt, jnp.minimum(c.qmin, queue(y)), jnp.maximum(c.qmax, queue(y)), status


@functools.partial(jax.jit, static_argnames=("cfg",))
def map_batch(x0: Any, params: dict[str, Any], *, cfg: Cfg) -> dict[str, Any]:
    """Both halves of the return map for a batch; the two halves share one traced body (``lax.scan``)."""

    def one(xx: Any, pp: dict[str, Any]) -> dict[str, Any]:
        def half(x: Any, u_first: Any) -> tuple[Any, Any]:
            ye, te, qn, qx, st = _half(cfg, pp, x, u_first)
            return ye[: len(cfg.model.states)], (ye, te, qn, qx, st)

        _, (ye, te, qn, qx, st) = jax.lax.scan(half, xx, jnp.array([1.0, 0.0]))
        first_bad = jnp.where(st[0] != OK, st[0], st[1])
        return {"aug": ye, "t": te, "q_min": jnp.min(qn), "q_max": jnp.max(qx), "status": first_bad}

    return jax.vmap(one)(x0, params)
