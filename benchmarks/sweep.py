"""Benchmark of the default DWTCP condition sweep (`dwtcp-fluid sweep --beta 0.001`).

Prints cold wall time (a fresh process: imports, grid, evaluation, NetCDF and figure written), warm wall time
(in-process, second run), points per second, and — side by side on the same grid — the obvious per-point
implementation (a Python loop of ``scipy.linalg.eigvals`` on each 2×2 Jacobian) as the peer baseline.

Run: ``.venv/bin/python benchmarks/sweep.py``. Target (issue 2): default sweep ≤ 20 s warm on 2 cores.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.linalg


def cold(outdir: Path) -> float:
    exe = Path(sys.executable).with_name("dwtcp-fluid")
    t = time.perf_counter()
    subprocess.run(
        [str(exe), "sweep", "--beta", "0.001", "--out", str(outdir), "--json"],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - t


def warm(outdir: Path) -> tuple[float, int]:
    from dwtcp_fluid.plots.style import apply_style, save_figure
    from dwtcp_fluid.plots.sweep_maps import plot_condition_map
    from dwtcp_fluid.sweep import SweepGrid, run_sweep, write_netcdf_atomic

    grid = SweepGrid()
    run_sweep(grid)  # warm caches (lambdified Jacobian)
    t = time.perf_counter()
    ds = run_sweep(grid)
    write_netcdf_atomic(ds, outdir / "warm.nc")
    apply_style()
    save_figure(plot_condition_map(ds), outdir / "warm.png")
    return time.perf_counter() - t, grid.size


def evaluation_only() -> tuple[float, float, int]:
    from dwtcp_fluid.sweep import SweepGrid, run_sweep

    grid = SweepGrid()
    run_sweep(grid)
    t = time.perf_counter()
    ds = run_sweep(grid)
    t_ours = time.perf_counter() - t
    J = ds["jacobian"].values.reshape(-1, 2, 2)
    t = time.perf_counter()
    ev = [scipy.linalg.eigvals(j) for j in J]
    t_loop = time.perf_counter() - t
    assert len(ev) == grid.size and np.isfinite(np.asarray(ev)).all()
    return t_ours, t_loop, grid.size


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        t_cold = cold(d)
        t_warm, n = warm(d)
    t_eval, t_loop, n = evaluation_only()
    rows = [
        ("default sweep, cold (new process, incl. imports, files)", t_cold, n / t_cold),
        ("default sweep, warm (in-process, incl. NetCDF + figure)", t_warm, n / t_warm),
        ("evaluation only (batched, lambdified J + eigvals)", t_eval, n / t_eval),
        ("peer: per-point scipy.linalg.eigvals loop (eigs only)", t_loop, n / t_loop),
    ]
    print(f"grid: {n} points (1 β × 25 BDP × 10 N × 25 k̄/k̄*), target ≤ 20 s warm")
    print(f"{'what':58s} {'seconds':>9s} {'points/s':>12s}")
    for name, t, pps in rows:
        print(f"{name:58s} {t:9.3f} {pps:12.0f}")


if __name__ == "__main__":
    main()
