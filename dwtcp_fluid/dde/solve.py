"""The single entry point :func:`solve` for both DDE solvers."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..models.base import FluidModel
from ..results import Status
from .history import as_history, history_crossings
from .jax_rk import JaxConfig, buffer_length, solve_jax_batch
from .problem import Problem, make_problem
from .scipy_steps import solve_reference
from .solution import DdeSolution
from .solvers import JaxRK4, Reference, make_solver

__all__ = ["solve", "default_step"]

_OPTIONS = {
    "rtol",
    "atol",
    "integrator",
    "dt",
    "save_every",
    "max_substeps",
    "crossing_buffer",
    "exact_exits",
    "check",
}

#: Default fixed step of the JAX solver as a fraction of the fastest time scale (:func:`default_step`); 1/20 gives
#: max |Δq| ≈ 1e-5 packets on DCTCP N = 10 against the reference (tests/test_dde_agreement.py).
STEPS_PER_DELAY = 20
#: The most fixed steps one JAX solve may take (checked before any work).
MAX_STEPS = 20_000_000
#: Default number of saved output intervals of the JAX solver.
DEFAULT_SAVES = 2000


def _split_batch(params: Any) -> tuple[list[Any], bool]:
    """A batch is a sequence of parameter objects/mappings or a mapping with array values."""
    if isinstance(params, Mapping):
        sizes = {np.size(v) for v in params.values() if np.ndim(v) > 0}
        if not sizes:
            return [params], False
        if len(sizes) > 1 or any(np.ndim(v) > 1 for v in params.values()):
            raise ValueError(
                f"params has array values of sizes {sorted(sizes)}: accepted scalars or 1-D arrays of one length"
            )
        (b,) = sizes
        return [{k: (np.ravel(v)[i] if np.ndim(v) else v) for k, v in params.items()} for i in range(b)], True
    if isinstance(params, Sequence) and not isinstance(params, str):
        if len(params) == 0:
            raise ValueError("params=[] is invalid: accepted a non-empty batch")
        return list(params), True
    return [params], False


def _split_history(history: Any, b: int, n: int) -> list[Any]:
    if callable(history):
        return [history] * b
    arr = (
        np.asarray(history, dtype=float)
        if not isinstance(history, list | tuple) or np.ndim(history)
        else None
    )
    if arr is not None and arr.ndim == 2:
        if arr.shape != (b, n):
            raise ValueError(f"history has shape {arr.shape}: accepted ({n},) or (batch={b}, {n})")
        return list(arr)
    if isinstance(history, list | tuple) and history and callable(history[0]):
        if len(history) != b:
            raise ValueError(f"history has {len(history)} entries: accepted one per batch element ({b})")
        return list(history)
    return [history] * b


def default_step(problems: Sequence[Problem], span: float) -> float:
    """1/:data:`STEPS_PER_DELAY` of the fastest time scale of the batch: the smaller of each model's smallest
    positive delay and its :meth:`~dwtcp_fluid.models.base.FluidModel.step_scale` (the fastest rate of its
    right-hand side, e.g. DCTCP's base RTT d, which sets dW/dt = 1/R when the queue is empty even when the
    feedback delay R* = d + K/C is far longer); without any delay also at most span/20000."""

    def scale(pr: Problem) -> float:
        s = pr.model.step_scale(pr.p)
        return pr.min_positive_delay if s is None else min(float(s), pr.min_positive_delay)

    dmin = min(scale(pr) for pr in problems)
    if not math.isfinite(dmin):
        return span / 20_000
    h = dmin / STEPS_PER_DELAY
    if not any(math.isfinite(pr.min_positive_delay) for pr in problems):
        # no delay: the model's time scale bounds the step (never coarser, whatever the span), and a short span
        # is still resolved in 20,000 steps (the fixed step's artefacts at a switch shrink with it)
        h = min(h, span / 20_000)
    return h


def solve(
    model: FluidModel,
    params: Any,
    history: Any,
    t_span: tuple[float, float],
    *,
    solver: Reference | JaxRK4 | None = None,
    method: str | None = None,
    progress: Callable[[float, float], None] | None = None,
    **options: Any,
) -> DdeSolution:
    """Solve a fluid model's switched delay system on ``t_span``.

    Parameters
    ----------
    model : FluidModel
        The model definition (e.g. ``DctcpFluid()``, ``DwtcpFluid(delay_rtts=1.0)``).
    params : parameter object, mapping, or batch
        A parameter object (``DctcpParams``...), a mapping of floats, a mapping of equal-length 1-D arrays, or a
        sequence of objects/mappings. Times in the model's unit (seconds for the physical models).
    history : array-like or callable
        x(t) for t ≤ t0: a constant state of length n (or shape (batch, n)), or a callable of t returning a
        state (for the JAX solver it must be traceable with ``jax.numpy``).
    t_span : (t0, t1)
        Integration interval, t1 > t0.
    solver : Reference or JaxRK4, optional
        The solver object (:mod:`.solvers`), default ``Reference()``: the SciPy method of steps with exact events
        (batches run one by one). ``JaxRK4()``: batched event-aware fixed-step RK4.
    method : {"reference", "jax"}, optional
        Shorthand that builds the solver from ``options``: ``rtol``, ``atol``, ``integrator`` (reference);
        ``dt``, ``save_every``, ``max_substeps``, ``crossing_buffer``, ``exact_exits``, ``check``, ``atol``, ``rtol``
        (jax; there ``atol``/``rtol`` are the step-doubling check's tolerance). See the solver
        classes for their meaning and ranges.
    progress : callable, optional
        ``progress(done, total)``, the package's progress convention (as :func:`~dwtcp_fluid.run_sweep`'s): the
        simulated time covered, summed over the batch, of ``total`` = batch size × (t1 − t0). The reference solver
        reports as it goes (at most every 0.2 s); the JAX solver, one compiled loop, at its start and end. Without
        it nothing is drawn: where a bar belongs and how long a run takes are the caller's to know
        (docs/quickstart.md, "More from Python", plugs in a rich or tqdm bar).

    Returns
    -------
    DdeSolution
    """
    if solver is None:
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            raise TypeError(f"solve() got an unexpected keyword argument {unknown[0]!r}")
        solver = make_solver("reference" if method is None else method, **options)
    elif options or method is not None:
        raise ValueError(
            f"solver={solver!r} is given: accepted no method= or solver options besides it (got "
            f"{sorted(options) + (['method'] if method is not None else [])})"
        )
    if not isinstance(solver, Reference | JaxRK4):
        raise ValueError(f"solver={solver!r} is invalid: accepted a Reference or JaxRK4 solver object")
    try:
        t0, t1 = (float(v) for v in t_span)
    except (TypeError, ValueError):
        raise ValueError(
            f"t_span={t_span!r} is invalid: accepted a pair (t0, t1) of finite numbers"
        ) from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or t1 <= t0:
        raise ValueError(f"t_span={t_span!r} is out of range: accepted finite t0 < t1")
    plist, batched = _split_batch(params)
    problems = [make_problem(model, pp) for pp in plist]
    n = len(model.states)
    hists = [
        as_history(hh, n, t0, pr.max_delay)
        for hh, pr in zip(_split_history(history, len(problems), n), problems, strict=True)
    ]
    total = len(problems) * (t1 - t0)
    if progress is not None:
        progress(0.0, total)
    if isinstance(solver, Reference):
        return _run_reference(model, problems, hists, t0, t1, solver, batched, progress)
    import jax

    with jax.enable_x64(True):  # the inputs are built as float64 too (no global switch at import)
        sol = _run_jax(model, problems, hists, t0, t1, solver, batched)
    if progress is not None:
        progress(total, total)
    return sol


def _run_reference(model, problems, hists, t0, t1, solver: Reference, batched, progress=None) -> DdeSolution:
    total = len(problems) * (t1 - t0)

    def reached(i: int):
        return (lambda t: progress(i * (t1 - t0) + (t - t0), total)) if progress is not None else None

    runs = [
        solve_reference(pr, hh, t0, t1, solver=solver, progress=reached(i))
        for i, (pr, hh) in enumerate(zip(problems, hists, strict=True))
    ]
    if len(runs) == 1:
        t, x = runs[0]["t"], runs[0]["x"][None]
    else:  # elements have different step times: put all on the union grid through their dense outputs
        t = np.unique(np.concatenate([r["t"] for r in runs]))
        t = t[t <= min(r["t"][-1] for r in runs)]
        x = np.stack([r["dense"](t) for r in runs])
    return DdeSolution(
        model=model,
        params=[pr.p for pr in problems],
        t=t,
        x=x,
        status=np.array([int(r["status"]) for r in runs]),
        fail_t=np.array([r["fail_t"] for r in runs], dtype=float),
        fail_x=np.stack([r["fail_x"] for r in runs]),
        crossings=[r["crossings"] for r in runs],
        crossing_up=[r["crossing_up"] for r in runs],
        method="reference",
        options=solver.options(),
        batched=batched,
        messages=[r["message"] for r in runs],
        _dense=[r["dense"] for r in runs],
    )


def _run_jax(model, problems, hists, t0, t1, solver: JaxRK4, batched) -> DdeSolution:
    span = t1 - t0
    structure = {
        (
            pr.uses_xd,
            pr.tau_d > 0,
            len(pr.state_delays),
            len(pr.switch_delays),
            tuple((i, s) for i, _, s in pr.bounds),
        )
        for pr in problems
    }
    if len(structure) > 1:
        raise ValueError(
            "params is invalid: all batch elements must share the delay structure (all delayed or none)"
        )
    dmin = min(pr.min_positive_delay for pr in problems)
    dt, S = solver.dt, solver.crossing_buffer
    h = default_step(problems, span) if dt is None else dt
    if h > dmin * (1 + 1e-12):
        raise ValueError(
            f"dt={dt!r} is out of range: accepted 0 < dt <= {dmin!r} (the smallest positive delay)"
        )
    n_min = math.ceil(span / h - 1e-9)
    n_check = 3 * n_min if solver.check else 0  # the check's runs cost at most three times the steps
    if n_min + n_check > MAX_STEPS:  # refused before any work: at ~1 µs per step and element, minutes
        raise ValueError(
            f"t_span={(t0, t1)!r} is out of range: accepted at most {MAX_STEPS:,} fixed steps of dt = {h:.3g} "
            f"(a span of at most {MAX_STEPS * h / (4 if solver.check else 1):.3g} time units)"
        )
    save_every = max(1, math.ceil(n_min / DEFAULT_SAVES)) if solver.save_every is None else solver.save_every
    n_save_int = math.ceil(n_min / save_every)
    h = span / (n_save_int * save_every)
    B, n = len(problems), len(model.states)
    pr0 = problems[0]
    max_tau = max(pr.tau_d for pr in problems) if pr0.uses_xd else 0.0
    buf_len = buffer_length(max_tau, h)
    if buf_len > MAX_STEPS:  # a span far below the delay: the history buffer alone would take hours to fill
        raise ValueError(
            f"t_span={(t0, t1)!r} is out of range: accepted a span whose step dt = {h:.3g} keeps the delay "
            f"history ({max_tau:.3g}) within {MAX_STEPS:,} steps (it needs {buf_len:,})"
        )
    # the step-doubling check, first at twice the step in the same compiled call (the step is per element; the
    # check's elements run the same number of steps, to twice the span, and their saved points are every other
    # one of the run's); |x_h − x_2h| is an upper estimate of the run's error for any convergence order >= 1
    together = solver.check and 2 * h <= dmin * (1 + 1e-12)
    steps = [h] * B + ([2 * h] * B if together else [])
    arrays, sign0, count0 = _inputs(problems + problems if together else problems, hists * (2 if together else 1),
                                    t0, np.array(steps), buf_len, S)  # fmt: skip
    out = solve_jax_batch(_config(model, pr0, n_save_int + 1, save_every, buf_len, solver), arrays, t0)
    status = out["status"].astype(int)[:B]
    err = np.full((B, n), np.nan)
    tol = np.full((B, n), np.nan)
    first_bad = np.full(B, np.nan)
    if together:
        chk = {k: v[B:] for k, v in out.items()}
        out = {k: v[:B] for k, v in out.items()}
        sign0, count0 = sign0[:B], count0[:B]
        fine = out["x"][:, ::2, :n]
        diff = np.abs(fine - chk["x"][:, : fine.shape[1], :n])
        tol = solver.atol + solver.rtol * np.abs(out["x"][..., :n]).max(axis=1)
        err = diff.max(axis=1)
        failed = (chk["status"] != Status.OK) & (chk["fail_t"] <= t1)  # beyond t1 nothing is compared
        err[failed] = np.inf
    fail_t = out["fail_t"]
    h2 = 2 * h if together else h / 2
    if solver.check:
        # 2. where twice the step is not within the tolerance (or not allowed), the run at half the step decides
        # (a second compiled call): for order p >= 1 the run's error is |x_h − x_{h/2}|·2^p/(2^p − 1) <= twice it
        # (at twice the step a fixed step can leave an artefact the run itself does not have)
        again = np.flatnonzero((status == Status.OK) & ~(err <= tol).all(axis=1))
        if again.size:
            h2 = h / 2
            sub = [problems[e] for e in again]
            buf2 = buffer_length(max_tau, h2)
            arrays2, _, _ = _inputs(sub, [hists[e] for e in again], t0, np.full(again.size, h2), buf2, S)
            fin = solve_jax_batch(
                _config(model, pr0, n_save_int + 1, 2 * save_every, buf2, solver), arrays2, t0
            )
            diff2 = 2 * np.abs(out["x"][again, :, :n] - fin["x"][..., :n])
            tol[again] = solver.atol + solver.rtol * np.abs(out["x"][again, :, :n]).max(axis=1)
            err[again] = diff2.max(axis=1)
            bad = (diff2 > tol[again][:, None, :]).any(axis=2)
            for j, e in enumerate(again):
                if fin["status"][j] != Status.OK:
                    err[e] = np.inf
                    first_bad[e] = fin["fail_t"][j]
                elif bad[j].any():
                    first_bad[e] = t0 + np.argmax(bad[j]) * save_every * h
        for e in np.flatnonzero((status == Status.OK) & ~(err <= tol).all(axis=1)):
            status[e], fail_t[e] = Status.INACCURATE, first_bad[e]
    crossings, crossing_up = [], []
    for e in range(B):
        c = int(out["count"][e])
        idx = np.arange(max(0, c - S), c)
        crossings.append(out["ctimes"][e, idx % S].astype(float))
        # signs alternate: the sign before the first logged crossing is sign0 undone by the history's crossings
        initial_positive = bool(sign0[e]) ^ bool(count0[e] % 2)
        crossing_up.append(initial_positive ^ ((idx + 1) % 2 == 1))
    messages = []
    for e, st in enumerate(status):
        if st == Status.OK:
            messages.append("")
        elif st == Status.INACCURATE:
            if not np.isfinite(err[e]).all():
                messages.append(
                    f"the check at step {h2:.3g} stopped at t={float(fail_t[e]):.6g} where the run at step "
                    f"{h:.3g} went on: no error estimate (a smaller dt, or the reference solver)"
                )
                continue
            worst = model.states[int(np.argmax(err[e] / tol[e]))]
            messages.append(
                f"from t={float(fail_t[e]):.6g} the error estimate of {worst} (the run at step {h:.3g} against "
                f"the check at step {h2:.3g}) is {float(err[e][model.states.index(worst)]):.3g}, over the "
                f"tolerance atol={solver.atol:g} + rtol={solver.rtol:g}·max|{worst}| (a smaller dt, or the "
                "reference solver)"
            )
        else:
            messages.append(f"{Status(int(st)).name} at t={float(fail_t[e])!r}")
    fail_x = out["fail_x"].copy()
    for e in range(B):
        if status[e] == Status.INACCURATE and not np.isfinite(fail_x[e]).all():
            k = int(round((fail_t[e] - t0) / (save_every * h))) if np.isfinite(fail_t[e]) else 0
            fail_x[e] = out["x"][e, min(max(k, 0), n_save_int), : len(model.states)]
    return DdeSolution(
        model=model,
        params=[pr.p for pr in problems],
        t=t0 + np.arange(n_save_int + 1) * save_every * h,
        x=out["x"],
        status=status,
        fail_t=fail_t,
        fail_x=fail_x,
        crossings=crossings,
        crossing_up=crossing_up,
        method="jax",
        options={
            "dt": h,
            "save_every": save_every,
            "max_substeps": solver.max_substeps,
            "crossing_buffer": S,
            "exact_exits": solver.exact_exits,
            "check": solver.check,
            "atol": solver.atol,
            "rtol": solver.rtol,
        },
        batched=batched,
        messages=messages,
        error_estimate=err,
    )


def _inputs(
    problems, hists, t0: float, h: np.ndarray, buf_len: int, S: int
) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """The per-element inputs of :func:`~.jax_rk.solve_jax_batch` (element e steps by ``h[e]``), with the sign of
    σ at t0 and the number of crossings in each history."""
    import jax.numpy as jnp

    pr0 = problems[0]
    n, m = pr0.n, len(pr0.switch_delays)
    B = len(problems)
    hist_x = np.zeros((B, buf_len, n))
    hist_f = np.zeros((B, buf_len, n))
    cross0 = np.zeros((B, S))
    count0 = np.zeros(B, dtype=np.int64)
    ptr0 = np.zeros((B, m), dtype=np.int64)
    u0 = np.zeros((B, m))
    sign0 = np.zeros(B, dtype=bool)
    for e, (pr, hh) in enumerate(zip(problems, hists, strict=True)):
        oldest = t0 - pr.max_delay - 3 * h[e]  # slots further back are never read (a coarser check's step)
        for k in range(-(buf_len - 1), 1):
            tk = max(t0 + k * h[e], oldest)
            hist_x[e, k % buf_len] = hh(tk)
            hist_f[e, k % buf_len] = hh.derivative(tk)
        sig = lambda y, pr=pr: float(pr.model.surface(y, pr.p, np))  # noqa: E731
        log = history_crossings(hh, sig, t0, max(pr.switch_delays))
        times = log.times
        count0[e] = len(times)
        for i in range(max(0, len(times) - S), len(times)):
            cross0[e, i % S] = times[i]
        for j, d in enumerate(pr.switch_delays):
            ptr0[e, j] = bisect.bisect_right(times, t0 - d)
            u0[e, j] = 1.0 if log.sign_at(t0 - d) else 0.0
            if ptr0[e, j] < len(times) - S:
                raise ValueError(
                    f"history changes sign {len(times)} times within one delay: accepted at most "
                    f"crossing_buffer={S} pending crossings"
                )
        sign0[e] = sig(hh(t0)) > 0
    keys = list(pr0.p)
    arrays = {
        "p": {k: jnp.asarray([pr.p[k] for pr in problems]) for k in keys},
        "x0": jnp.asarray(np.stack([hh(t0) for hh in hists])),
        "hist_x": jnp.asarray(hist_x),
        "hist_f": jnp.asarray(hist_f),
        "cross0": jnp.asarray(cross0),
        "count0": jnp.asarray(count0),
        "ptr0": jnp.asarray(ptr0),
        "u0": jnp.asarray(u0),
        "sign0": jnp.asarray(sign0),
        "bvals": jnp.asarray(
            np.array([[b for _, b, _ in pr.bounds] for pr in problems], dtype=float).reshape(B, -1)
        ),
        "sdel": jnp.asarray(np.array([pr.switch_delays for pr in problems], dtype=float)),
        "tau_d": jnp.asarray(np.array([pr.state_delays for pr in problems], dtype=float)),
        "h": jnp.asarray(np.asarray(h, dtype=float)),
    }
    return arrays, sign0, count0


def _config(model, pr0: Problem, n_save: int, save_every: int, buf_len: int, solver: JaxRK4) -> JaxConfig:
    return JaxConfig(
        model=model,
        n_switch=len(pr0.switch_delays),
        bound_idx=tuple(i for i, _, _ in pr0.bounds),
        bound_sign=tuple(s for _, _, s in pr0.bounds),
        uses_xd=pr0.uses_xd,
        n_save=n_save,
        save_every=save_every,
        buf_len=buf_len,
        crossing_buffer=solver.crossing_buffer,
        max_substeps=solver.max_substeps,
        exact_exits=solver.exact_exits,
        n_delays=len(pr0.state_delays) if pr0.uses_xd else 1,
    )
