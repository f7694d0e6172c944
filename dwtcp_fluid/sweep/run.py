"""Evaluation of the DWTCP condition sweep: the paper's frozen Jacobian (8) at (w = BDP/N, q = k̄).

For every grid point (β, BDP, N, k̄/k̄*): k̄* = 2·BDP/√β (14), the condition k̄ < k̄*, the eigenvalues of (8) by
``numpy.linalg.eigvals`` (not from the closed form (11), so the check is independent of the algebra that gives
(14)), their class (spiral / node / degenerate) and whether the condition and the class agree. Later capabilities
(delayed fluid outcome, characteristic roots, packet runs) add variables to the same dataset.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from ..analysis.linear import CLASSES, STABILITY, classify_2x2, stability_2x2
from ..formulas import kbar_star
from ..models.dwtcp import frozen_jacobian
from ..references import references_attr
from .engine import Evaluator, SweepPlan, evaluate_chunk, run_plan
from .grid import SweepGrid
from .packet_batch import PacketPassOptions
from .store import provenance

__all__ = ["run_sweep", "summarize", "make_plan", "FROZEN", "BOUNDARY_RTOL"]

#: Points with |k̄/k̄* − 1| below this are on the boundary: the class there is "degenerate" by construction and
#: agreement is not scored.
BOUNDARY_RTOL = 1e-6


def _evaluate_block(grid: SweepGrid, ib: int, ibdp: int) -> dict[str, np.ndarray]:
    """All (N, k̄/k̄*) points for one (β, BDP): arrays of shape (n_flows, n_ratio)."""
    beta = grid.beta[ib]
    bdp = grid.bdp[ibdp]
    C = grid.C
    tau = bdp / C
    N = grid.flows[:, None]
    ratio = grid.kbar_ratio[None, :]
    kbar_crit = kbar_star(bdp, beta)
    kbar = ratio * kbar_crit
    w = bdp / N
    p = {
        "beta": beta,
        "beta_w": beta,
        "tau": tau,
        "C": C,
        "N": N,
        "k": 0.0,
        "s_over_l": 0.0,
        "alpha": 1.0,
    }
    J = frozen_jacobian(p, kbar, w)
    J = np.broadcast_to(J, np.broadcast_shapes(N.shape, ratio.shape) + (2, 2))
    ev = np.linalg.eigvals(J)
    ev = np.take_along_axis(ev, np.argsort(ev.imag, axis=-1, kind="stable"), axis=-1)
    cls = classify_2x2(J)
    stab = stability_2x2(J)
    condition = kbar < kbar_crit
    boundary = np.abs(ratio - 1.0) <= BOUNDARY_RTOL
    spiral = cls == CLASSES.index("spiral")
    agree = np.where(boundary, True, condition == spiral)
    shape = J.shape[:-2]
    return {
        "kbar": np.broadcast_to(kbar, shape),
        "condition": np.broadcast_to(condition, shape),
        "boundary": np.broadcast_to(boundary, shape),
        "eig_real": ev.real,
        "eig_imag": ev.imag,
        "jacobian": J,
        "eig_class": cls,
        "frozen_stability": stab,
        "agree": agree,
    }


_D4 = ("beta", "bdp", "flows", "kbar_ratio")

#: The frozen-Jacobian variables: (dims, dtype, attrs).
FROZEN_VARIABLES: dict[str, tuple[tuple[str, ...], str, dict[str, Any]]] = {
    "kbar": (_D4, "float64", {"long_name": "queue ahead of the Scout k̄ (= q)", "units": "packets"}),
    "condition": (_D4, "bool", {"long_name": "condition k̄ < 2·BDP/√β holds", "units": "1"}),
    "boundary": (
        _D4,
        "bool",
        {"long_name": f"on the boundary |k̄/k̄* − 1| <= {BOUNDARY_RTOL:g}", "units": "1"},
    ),
    "eig_real": (
        _D4 + ("root",),
        "float64",
        {"long_name": "real part of the eigenvalues of (8)", "units": "1/s"},
    ),
    "eig_imag": (
        _D4 + ("root",),
        "float64",
        {"long_name": "imaginary part of the eigenvalues of (8)", "units": "rad/s"},
    ),
    "jacobian": (
        _D4 + ("row", "col"),
        "float64",
        {"long_name": "frozen Jacobian (8) at (w = BDP/N, q = k̄)", "units": "1/s and packets-ratio"},
    ),
    "eig_class": (
        _D4,
        "int8",
        {
            "long_name": "class of the frozen linearization",
            "flag_values": np.arange(len(CLASSES), dtype=np.int8),
            "flag_meanings": " ".join(CLASSES),
        },
    ),
    "frozen_stability": (
        _D4,
        "int8",
        {
            "long_name": "stability of the frozen linearization (eq. (12))",
            "flag_values": np.arange(len(STABILITY), dtype=np.int8),
            "flag_meanings": " ".join(s.replace(" ", "_") for s in STABILITY),
        },
    ),
    "agree": (_D4, "bool", {"long_name": "condition ⇔ spiral (not scored on the boundary)", "units": "1"}),
}

EXTRA_COORDS = (("root", np.arange(2)), ("row", np.arange(2)), ("col", np.arange(2)))


def _frozen_fn(grid: SweepGrid, ib: int, sl: slice) -> dict[str, np.ndarray]:
    blocks = [_evaluate_block(grid, ib, j) for j in range(sl.start, sl.stop)]
    return {name: np.stack([b[name] for b in blocks])[None] for name in FROZEN_VARIABLES}


FROZEN = Evaluator("frozen", FROZEN_VARIABLES, _frozen_fn)


def make_plan(
    grid: SweepGrid, evaluators: tuple[Evaluator, ...] | str = (FROZEN,), chunk_bdp: int = 5
) -> SweepPlan:
    """A sweep plan over ``grid``, for ``run_sweep(grid, plan=...)``.

    Parameters
    ----------
    grid : SweepGrid
        The points (β, BDP, N, k̄/k̄*).
    evaluators : tuple of Evaluator or "full"
        What runs at each point: the frozen-Jacobian check alone (default), or ``"full"``, which adds the delayed
        fluid runs and the delay-aware roots (what ``dwtcp-fluid sweep`` runs).
    chunk_bdp : int
        BDP values per chunk (the unit of work, of the Zarr store and of resume).
    """
    if isinstance(evaluators, str):
        if evaluators != "full":
            raise ValueError(f"evaluators={evaluators!r} is invalid: accepted 'full' or a tuple of Evaluator")
        from .evaluators import DELAY, FLUID

        evaluators = (FROZEN, FLUID, DELAY)
    return SweepPlan(grid, tuple(evaluators), chunk=chunk_bdp, extra_coords=EXTRA_COORDS)


def _in_memory(plan: SweepPlan, progress: Callable[[float, int], None] | None) -> xr.Dataset:
    sizes = plan.dim_sizes()
    arrays = {
        name: np.empty(tuple(sizes[d] for d in dims), dtype=dtype)
        for name, (dims, dtype, _a) in plan.variables().items()
    }
    chunks = list(plan.chunks())
    for i, (ib, c) in enumerate(chunks):
        sl = plan.chunk_slice(c)
        part = None if progress is None else (lambda f, i=i: progress(i + f, len(chunks)))
        for name, arr in evaluate_chunk(plan, ib, c, part).items():
            arrays[name][ib : ib + 1, sl] = arr
        if progress is not None:
            progress(i + 1, len(chunks))
    coords: dict[str, Any] = dict(plan.grid.coords())
    coords.update({n: (n, np.asarray(v)) for n, v in plan.extra_coords})
    return xr.Dataset(
        {name: (dims, arrays[name], attrs) for name, (dims, _dt, attrs) in plan.variables().items()},
        coords=coords,
    )


def run_sweep(
    grid: SweepGrid,
    *,
    plan: SweepPlan | None = None,
    progress: Callable[[int, int], None] | None = None,
    store: str | Path | None = None,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    packet: str | None = None,
    packet_sample: int = 0,
    packet_options: PacketPassOptions | None = None,
    packet_progress: Callable[[int, int], None] | None = None,
    packet_report: dict[str, Any] | None = None,
    seed: int = 0,
    repair: bool = True,
    report: Callable[[str], None] | None = None,
) -> xr.Dataset:
    """Evaluate the sweep ([DWTCP] eqs. (8)-(14) and any further evaluators) on ``grid``.

    Parameters
    ----------
    grid : SweepGrid
    plan : SweepPlan, optional
        Evaluators and chunking (default: the frozen-Jacobian check only).
    progress : callable, optional
        Called as ``progress(done, total)`` in chunks (``done`` moves by fractions within a chunk).
    store : path, optional
        A Zarr store for complete chunks (resumable); without it the sweep runs in memory. The packet pass keeps
        its points in ``<store stem>.packet.zarr`` next to it.
    resume : bool
        Keep the chunks (and packet points) already done in ``store``.
    workers, scheduler
        Run the chunks on a new Dask ``LocalCluster(n_workers=workers)`` or on the scheduler at this address.
    packet : {"none", "sample", "all"}, optional
        The packet pass (:mod:`.packet_pass`, after the chunks, in the driver): the packet core's DWTCP law at
        every (β, BDP, N) point, at ``packet_sample`` seeded points, or not at all. Default: "sample" when
        ``packet_sample`` > 0, else "none".
    packet_options : PacketPassOptions, optional
        Settings of the packet runs (default: k = 0, buffer 250, 20 RTTs of warm-up, ≥ 50 RTTs measured, ``seed``).
    packet_progress : callable, optional
        ``packet_progress(points_done, points_total)``.
    packet_report : dict, optional
        Receives the packet pass's cost breakdown and per-predictor agreement.
    seed : int
        Seed of the packet sample (points) and runs.
    repair, report
        On resume, every stored chunk and the packet points are verified against their checksums; what cannot be
        trusted is reported (one line each through ``report``) and recomputed, or with ``repair=False`` refused
        (:class:`~.integrity.StoreDamagedError`).

    Returns
    -------
    xarray.Dataset
        Dims (beta, bdp, flows, kbar_ratio[, root, row, col, ...]); see the variables' attrs for units.
    """
    from .packet_pass import packet_pass

    plan = plan or make_plan(grid)
    mode = packet if packet is not None else ("sample" if packet_sample else "none")
    if store is None:
        if workers is not None or scheduler is not None:
            raise ValueError(
                "store=None is invalid with workers/scheduler: accepted a store path for Dask runs"
            )
        ds = _in_memory(plan, progress)
    else:
        ds = run_plan(
            plan,
            Path(store),
            resume=resume,
            workers=workers,
            scheduler=scheduler,
            progress=progress,
            repair=repair,
            report=report,
        )
    if mode != "none":
        fluid = {k: ds[k].values for k in ds.data_vars if ds[k].dims == ("beta", "bdp", "flows")}
        pstore = None if store is None else Path(store).with_suffix(".packet.zarr")
        opts = packet_options or PacketPassOptions(seed=seed)
        for name, var in packet_pass(
            grid,
            mode,
            m=packet_sample,
            seed=seed,
            options=opts,
            fluid=fluid or None,
            store=pstore,
            resume=resume,
            progress=packet_progress,
            report=packet_report,
            on_damage=report,
            repair=repair,
        ).items():
            ds[name] = var
    ds["kbar_crit"] = (
        ("beta", "bdp"),
        kbar_star(grid.bdp[None, :], grid.beta[:, None]),
        {"long_name": "k̄* = 2·BDP/√β, [DWTCP] eq. (14)", "units": "packets"},
    )
    ds["tau"] = (("bdp",), grid.bdp / grid.C, {"long_name": "base RTT τ = BDP/C", "units": "s"})
    ds["window"] = (
        ("bdp", "flows"),
        grid.bdp[:, None] / grid.flows[None, :],
        {"long_name": "fair-share window w = BDP/N (the point of linearization)", "units": "packets"},
    )
    ds.attrs.update(
        provenance(
            grid.to_dict(),
            solver="frozen Jacobian (8) lambdified from the DWTCP model; numpy.linalg.eigvals; "
            + ", ".join(ev.name for ev in plan.evaluators),
            tolerance=f"classification rtol 1e-9; boundary rtol {BOUNDARY_RTOL:g}",
        )
    )
    ds.attrs["model"] = "DWTCP decrease phase (6), [DWTCP], linearized at (w = BDP/N, q = k̄), k = 0"
    ds.attrs["references"] = references_attr(ds.attrs["model"])
    return ds


def summarize(ds: xr.Dataset, *, max_disagreements: int = 5) -> dict[str, Any]:
    """Counts per class, agreement rate, where disagreements sit, and what the frozen analysis says."""
    cls = ds["eig_class"].values
    counts = {name: int((cls == i).sum()) for i, name in enumerate(CLASSES) if (cls == i).any()}
    scored = ~ds["boundary"].values
    agree = ds["agree"].values
    n_scored = int(scored.sum())
    rate = float(agree[scored].mean()) if n_scored else float("nan")
    bad = np.argwhere(scored & ~agree)
    dis = []
    for idx in bad[:max_disagreements]:
        sel = {d: ds[d].values[i] for d, i in zip(ds["agree"].dims, idx, strict=True)}
        dis.append({k: float(v) for k, v in sel.items()})
    stab = ds["frozen_stability"].values
    # det J = β·w·N/(τ²·BDP) = β/τ² at w = BDP/N: the eigenvalues cannot depend on N. Measured, not assumed:
    re = ds["eig_real"]
    spread_N = float((re.max("flows") - re.min("flows")).pipe(abs).max() / max(float(abs(re).max()), 1e-300))
    out = {
        "points": int(cls.size),
        "beta": [float(b) for b in ds["beta"].values],
        "kbar_crit_over_bdp": {f"{b:g}": float(kbar_star(1.0, b)) for b in ds["beta"].values},
        "class_counts": counts,
        "condition_true": int(ds["condition"].values.sum()),
        "boundary_points": int((~scored).sum()),
        "agreement_rate": rate,
        "disagreements": int(len(bad)),
        "disagreement_examples": dis,
        "frozen_asymptotically_stable_fraction": float((stab == 0).mean()),
        "eigenvalue_spread_over_flows": spread_N,
    }
    out.update(_summarize_outcomes(ds))
    return out


def _frac(x: xr.DataArray, where: xr.DataArray | None = None) -> float | None:
    v = x.values if where is None else x.values[where.values]
    return float(v.mean()) if v.size else None


def _summarize_outcomes(ds: xr.Dataset) -> dict[str, Any]:
    """What the delayed fluid runs, the delay-aware roots and the packet sample say (when present)."""
    out: dict[str, Any] = {}
    if "delayed_status" in ds:
        fluid: dict[str, Any] = {}
        for v in ("delayed", "sqrt", "undelayed"):
            if f"{v}_status" not in ds:
                continue
            ok = ds[f"{v}_status"] == 0
            kobs = ds[f"{v}_kbar_obs"].where(ok)
            fluid[v] = {
                "runs": int(ds[f"{v}_status"].size),
                "failed": int((~ok).sum()),
                "converged_fraction": _frac(ds[f"{v}_converged"], ok),
                "oscillating_fraction": _frac(ds[f"{v}_oscillating"], ok),
                "kbar_obs_max": float(kobs.max()),
                "kbar_obs_over_kbar_crit_max": float((kobs / ds["kbar_crit"]).max()),
                "condition_held_fraction": _frac(ds[f"{v}_condition_held"], ok),
                "q_amplitude_median": float(ds[f"{v}_q_amplitude"].where(ok).median()),
                "period_rtts_median": float(ds[f"{v}_period_rtts"].where(ok).median()),
                "utilization_min": float(ds[f"{v}_utilization"].where(ok).min()),
            }
        out["fluid"] = fluid
        scored = ds["delayed_status"] == 0
        out["fluid_agreement"] = {
            "condition_agrees": _frac(ds["fluid_condition_agrees"], scored),
            "frozen_class_agrees": _frac(ds["fluid_frozen_agrees"], scored),
            "delay_roots_agree": _frac(ds["fluid_delay_agrees"], scored),
            "condition_holds_but_oscillates": int(
                (ds["fluid_condition_obs"] & ds["delayed_oscillating"]).sum()
            ),
            "missed_by_condition": int(ds["fluid_missed_by_condition"].sum()),
        }
    if "delay_abscissa" in ds:
        known = np.isfinite(ds["delay_abscissa"])
        out["delay_roots"] = {
            "points": int(known.size),
            "with_roots": int(known.sum()),
            "delay_stable_fraction": _frac(ds["delay_stable"], known),
            "frozen_stable_fraction": _frac(ds["frozen_abscissa"] < 0, known),
            "condition_holds_but_delay_unstable": int(ds["delay_missed_by_condition"].sum()),
            "condition_fails_but_delay_stable": int(ds["delay_condition_too_strict"].sum()),
            "kbar_critical_over_bdp_range": [
                float((ds["kbar_critical_delay"] / ds["bdp"]).min()),
                float((ds["kbar_critical_delay"] / ds["bdp"]).max()),
            ],
        }
    if "packet_class" in ds:
        from .packet_pass import summarize_packet

        out["packet"] = summarize_packet(ds)
    return out
