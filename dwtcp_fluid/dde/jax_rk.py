"""Batched JAX solver: event-aware fixed-step RK4 in float64, ``jit`` + ``vmap`` over parameters and histories.

Each fixed step [t_n, t_n + h] is covered by sub-steps of the JAX integration core (:mod:`.segment_jax`). A
sub-step starts by applying the switches that are due (crossing time + channel delay D_j ≤ now), runs RK4 up to
the next scheduled switch or the end of the step and stops at the first event inside it (a crossing of σ = 0, a
state passing its bound, a held state released), located on the step's Hermite interpolant. No RK stage ever
straddles a switch or a bound change, so the order of the smooth problem is kept through the discontinuities.

Delayed states x(t − τ_d) are read from a ring buffer of (x, x') at grid points by cubic Hermite interpolation;
h ≤ τ_d guarantees every read is of an already computed point. Crossing times live in a ring buffer too; each
channel keeps a pointer to its next pending crossing. Failures set a per-element :class:`Status` and freeze that
element; no exception is raised inside the compiled code.

Known limitation: by default, leaving a bound is located by linear interpolation of the unheld derivative (a
Newton solve costs extra right-hand-side evaluations in every sub-step of every element under ``vmap``; it is
the option ``exact_exits=True`` of :func:`~.solve`). The state
error this causes is second order in the location error, so it is harmless by itself; but when the switching
surface coincides with the bound (DWTCP with k = 0 and a nonlinear increase, as in the Scout-α model) the
crossing of σ, and hence the delayed switch time, inherits the O(h²) error, and without ``exact_exits`` the
solver converges only at about first order there (tests/test_dde_models.py).
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..models.base import FluidModel
from ..results import Status
from .segment_jax import JaxSegment, hermite

__all__ = ["JaxConfig", "solve_jax_batch"]


class JaxConfig:
    """Static (compile-time) configuration of one batched run; hashable so compiled functions are cached."""

    def __init__(
        self,
        model: FluidModel,
        n_switch: int,
        bound_idx: tuple[int, ...],
        bound_sign: tuple[int, ...],
        uses_xd: bool,
        n_save: int,
        save_every: int,
        buf_len: int,
        crossing_buffer: int,
        max_substeps: int,
        exact_exits: bool = False,
        n_delays: int = 1,
    ) -> None:
        self.model = model
        self.n = len(model.states)
        self.m = n_switch
        self.bound_idx, self.bound_sign = bound_idx, bound_sign
        self.uses_xd = uses_xd
        self.n_save, self.save_every = n_save, save_every
        self.buf_len = buf_len
        self.S = crossing_buffer
        self.max_substeps = max_substeps
        self.exact_exits = exact_exits
        self.n_delays = n_delays

    def _key(self) -> tuple:
        return (self.model, self.m, self.bound_idx, self.bound_sign, self.uses_xd, self.n_save, self.save_every,
                self.buf_len, self.S, self.max_substeps, self.exact_exits, self.n_delays)  # fmt: skip

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JaxConfig) and self._key() == other._key()


class Carry(NamedTuple):
    """The ``while_loop`` carry of the sub-steps inside one fixed step (one element)."""

    s: Any  # time reached
    x: Any  # state (n,)
    held: Any  # bound modes (nb,)
    u: Any  # switching input per channel (m,)
    ctimes: Any  # ring buffer of crossing times (S,)
    count: Any  # crossings logged so far
    ptr: Any  # per channel, the next crossing whose switch is pending (m,)
    sign_pos: Any  # σ > 0 now
    it: Any  # sub-steps taken in this step
    status: Any  # Status code
    f_last: Any  # held derivative at the end of the last full sub-step (for the history buffer)


class State(NamedTuple):
    """The ``scan`` state between fixed steps (one element)."""

    x: Any
    held: Any
    u: Any
    ctimes: Any
    count: Any
    ptr: Any
    sign_pos: Any
    status: Any
    fail_t: Any
    fail_x: Any
    buf_x: Any  # ring buffer of x at grid points (buf_len, n), for the delayed reads
    buf_f: Any  # and of x' there


def _make_trajectory(cfg: JaxConfig):
    model = cfg.model
    n, m, S = cfg.n, cfg.m, cfg.S
    bidx = np.array(cfg.bound_idx, dtype=int)
    bsgn = np.array(cfg.bound_sign, dtype=float)
    nb = len(bidx)

    def trajectory(p, x0, hist_x, hist_f, cross0, count0, ptr0, u0, sign0, bvals, sdel, tau_d, h, t0):
        """One element. Shapes: x0 (n,), hist_x/hist_f (buf_len, n), cross0 (S,), ptr0/u0/sdel (m,),
        tau_d (k,) the state delays; h () the element's step (elements may differ: the step-doubling check)."""
        eps = 1e-9 * h
        bval = bvals  # (nb,)
        # filled in below once the derivative at t0 is known (closures read it when the steps are traced)
        start = {"f0_right": jnp.zeros(n)}

        def u_arg(u):
            return u[0] if m == 1 else tuple(u[j] for j in range(m))

        def read_xd(tq, buf_x, buf_f):
            kf = (tq - t0) / h
            k = jnp.floor(kf)
            th = kf - k
            k = k.astype(jnp.int64)
            i0, i1 = k % cfg.buf_len, (k + 1) % cfg.buf_len
            # x' may jump at t0 (history → solution): the first interval needs the right derivative at t0
            f_left = jnp.where(k == 0, start["f0_right"], buf_f[i0])
            return hermite(buf_x[i0], f_left, buf_x[i1], buf_f[i1], h, th)

        def raw_rhs(tt, x, u, buf_x, buf_f):
            # x(t − τ_j) for each of the model's state delays (one ring buffer holds all)
            if cfg.n_delays > 1:
                xd: Any = tuple(read_xd(tt - tau_d[j], buf_x, buf_f) for j in range(cfg.n_delays))
            else:
                xd = read_xd(tt - tau_d[0], buf_x, buf_f) if cfg.uses_xd else x
            return jnp.stack(
                [jnp.asarray(v, dtype=x.dtype) + 0 * x[0] for v in model.rhs(x, xd, u_arg(u), p, jnp)]
            )

        def segment(buf_x, buf_f) -> JaxSegment:
            return JaxSegment(
                lambda tt, y, u: raw_rhs(tt, y, u, buf_x, buf_f),
                lambda y: model.surface(y, p, jnp),
                cfg.bound_idx,
                cfg.bound_sign,
                exact_exits=cfg.exact_exits,
            )

        def substep(c: Carry, te, seg: JaxSegment) -> Carry:
            # 1. switches that are due (crossing + channel delay ≤ now)
            pending = c.ptr < c.count
            sw = jnp.where(pending, c.ctimes[c.ptr % S] + sdel, jnp.inf)
            due = sw <= c.s + eps
            u = jnp.where(due, 1.0 - c.u, c.u)
            ptr = c.ptr + due.astype(c.ptr.dtype)
            # 2. a switch may move a state onto or off its bound
            x, held, F0 = seg.modes(c.s, c.x, u, c.held, bval, jnp.any(due))
            # 3. one sub-step up to the next switch or the end of the step, cut at the first event
            pending = ptr < c.count
            nsw = jnp.min(jnp.where(pending, c.ctimes[ptr % S] + sdel, jnp.inf))
            target = jnp.minimum(te, jnp.maximum(nsw, c.s))
            r = seg.advance(c.s, x, held, c.sign_pos, u, target, bval, F0)
            # 4. log a crossing: channel j switches D_j after it
            ctimes = jnp.where(r.crossed, c.ctimes.at[c.count % S].set(r.s), c.ctimes)
            count = c.count + r.crossed.astype(c.count.dtype)
            overflow = (count - jnp.min(ptr)) > S
            status = jnp.where(
                c.status != Status.OK,
                c.status,
                jnp.where(
                    r.nonfinite,
                    int(Status.NON_FINITE),
                    jnp.where(overflow, int(Status.BUFFER_OVERFLOW), c.status),
                ),
            )
            f_last = jnp.where(r.has_event, c.f_last, r.f_end)
            return Carry(r.s, r.x, r.held, u, ctimes, count, ptr, r.sign_pos, c.it + 1, status, f_last)

        def step(st: State, nidx):
            t = t0 + nidx * h
            te = t0 + (nidx + 1) * h
            seg = segment(st.buf_x, st.buf_f)
            carry = Carry(t, st.x, st.held, st.u, st.ctimes, st.count, st.ptr, st.sign_pos, 0, st.status,
                          jnp.zeros_like(st.x))  # fmt: skip

            def cond(c: Carry):
                return (c.s < te - eps) & (c.it < cfg.max_substeps) & (c.status == Status.OK)

            c = jax.lax.while_loop(cond, lambda c: substep(c, te, seg), carry)
            st1 = jnp.where((c.status == Status.OK) & (c.s < te - eps), int(Status.TOO_MANY_EVENTS), c.status)
            ok = st1 == Status.OK
            newly_failed = (st.status == Status.OK) & ~ok
            fail_t = jnp.where(newly_failed, c.s, st.fail_t)
            fail_x = jnp.where(newly_failed, c.x, st.fail_x)
            # a failed element is frozen at its last good state
            keep = lambda new, old: jnp.where(ok, new, old)  # noqa: E731
            x_o = keep(c.x, st.x)
            buf_x, buf_f = st.buf_x, st.buf_f
            if cfg.uses_xd:
                slot = (nidx + 1) % cfg.buf_len
                buf_x = buf_x.at[slot].set(x_o)
                buf_f = buf_f.at[slot].set(keep(c.f_last, buf_f[nidx % cfg.buf_len]))
            new = State(x_o, keep(c.held, st.held), keep(c.u, st.u), keep(c.ctimes, st.ctimes),
                        keep(c.count, st.count), keep(c.ptr, st.ptr), keep(c.sign_pos, st.sign_pos), st1, fail_t,
                        fail_x, buf_x, buf_f)  # fmt: skip
            return new, None

        def chunk(st: State, cidx):
            base = cidx * cfg.save_every
            st, _ = jax.lax.scan(step, st, base + jnp.arange(cfg.save_every))
            return st, st.x

        held0 = jnp.zeros(nb, dtype=bool)
        x = x0
        seg0 = segment(hist_x, hist_f)
        # bound modes at t0 (a queue that starts empty and is draining stays at 0)
        if nb:
            F = raw_rhs(t0, x, u0, hist_x, hist_f)
            enter = (bsgn * (x[bidx] - bval) <= 0) & (bsgn * F[bidx] < 0)
            held0 = enter
            x = seg0.put(x, enter, bval)
        if cfg.uses_xd:
            start["f0_right"] = seg0.mask(raw_rhs(t0, x, u0, hist_x, hist_f), held0)
        st = State(x, held0, u0, cross0, count0, ptr0, sign0, jnp.asarray(int(Status.OK)), jnp.asarray(jnp.nan),
                   jnp.full(n, jnp.nan), hist_x, hist_f)  # fmt: skip
        st, xs = jax.lax.scan(chunk, st, jnp.arange(cfg.n_save - 1))
        xs = jnp.concatenate([x[None], xs], axis=0)
        return xs, st.status, st.fail_t, st.fail_x, st.ctimes, st.count

    return trajectory


_ORDER = (
    "p",
    "x0",
    "hist_x",
    "hist_f",
    "cross0",
    "count0",
    "ptr0",
    "u0",
    "sign0",
    "bvals",
    "sdel",
    "tau_d",
    "h",
)


@functools.lru_cache(maxsize=32)
def _compiled(cfg: JaxConfig, n_dev: int):
    traj = _make_trajectory(cfg)
    in_axes = (0,) * len(_ORDER) + (None,)
    batched = jax.vmap(traj, in_axes=in_axes)
    if n_dev > 1:
        # one shard of the batch per device (e.g. XLA_FLAGS=--xla_force_host_platform_device_count=2 on a
        # 2-core CPU): XLA runs a while loop on one thread, so a single vmapped loop leaves the other cores idle
        return jax.pmap(batched, in_axes=in_axes)
    return jax.jit(batched)


def solve_jax_batch(cfg: JaxConfig, arrays: dict[str, Any], t0: float) -> dict[str, np.ndarray]:
    """Run the compiled batched solver. ``arrays`` holds the per-element inputs prepared by :func:`~.solve`
    (the step ``h`` among them, one per element).

    With several JAX devices and a batch divisible by their number, the batch is split across them.
    """
    with jax.enable_x64(True):  # float64 inside, whatever the caller's JAX mode (no global switch at import)
        return _solve_jax_batch(cfg, arrays, t0)


def _solve_jax_batch(cfg: JaxConfig, arrays: dict[str, Any], t0: float) -> dict[str, np.ndarray]:
    B = int(arrays["x0"].shape[0])
    n_dev = jax.local_device_count()
    n_dev = n_dev if n_dev > 1 and B % n_dev == 0 else 1
    args = [arrays[k] for k in _ORDER]
    if n_dev > 1:
        args = jax.tree_util.tree_map(lambda a: jnp.reshape(a, (n_dev, B // n_dev) + a.shape[1:]), args)
    out = _compiled(cfg, n_dev)(*args, jnp.asarray(t0, dtype=jnp.float64))
    out = jax.block_until_ready(out)
    if n_dev > 1:
        out = jax.tree_util.tree_map(lambda a: jnp.reshape(a, (B,) + a.shape[2:]), out)
    xs, status, fail_t, fail_x, ctimes, count = out
    return {
        "x": np.asarray(xs),
        "status": np.asarray(status),
        "fail_t": np.array(fail_t),
        "fail_x": np.array(fail_x),
        "ctimes": np.asarray(ctimes),
        "count": np.asarray(count),
    }


def buffer_length(max_tau: float, h: float) -> int:
    """Ring-buffer length for delayed reads up to ``max_tau`` with step ``h`` (a few spare slots)."""
    return int(math.ceil(max_tau / h)) + 3 if max_tau > 0 else 2
