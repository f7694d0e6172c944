"""Benchmark: DCTCP limit cycles, the full Fig. 6 grid and Fig. 7-9 ([DCTCP-A], section 3).

Prints wall times (including JAX compilation, the cold cost a user pays once per process) for

* the paper's full Fig. 6 grid: 60 w̄ (log, 2.01…1000) × 40 g (log, 0.001…1), limit cycle + ρ both ways per point,
  batched JAX (target: ≤ 120 s on 2 cores); the grid's max ρ, the points with ρ ≥ 1 (if any), the SciPy fallbacks;
* Fig. 7/8 data (6 g × 65 w̄) and the full Fig. 9 grid (30+ ψ × w̄ up to 400, worst case over w̄);
* the SciPy path per orbit (Newton + Theorem 1 three ways) for comparison;

and writes the full-grid Fig. 6 and Fig. 9 images to ``benchmarks/results/`` (the registered figures in
``figures/`` use reduced grids so that ``figures --check`` stays fast).

Run: ``.venv/bin/python benchmarks/limit_cycles.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 20 x 12 grid instead of 60 x 40")
    args = ap.parse_args()
    from dwtcp_fluid.analysis.floquet import theorem1
    from dwtcp_fluid.analysis.limit_cycle import find_limit_cycle
    from dwtcp_fluid.analysis.limit_cycle_batch import FALLBACK, OK
    from dwtcp_fluid.plots.style import apply_style, save_figure
    from dwtcp_fluid.studies.dctcp import figures_limit_cycles as lf

    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    apply_style()

    nw, ng = (20, 12) if args.quick else (60, 40)
    t = time.perf_counter()
    d6 = lf.build_fig6(False, n_wbar=nw, n_g=ng)
    t6 = time.perf_counter() - t
    rho = d6["rho_monodromy"]
    st = d6["status"]
    print(
        f"Fig. 6 grid {nw} w̄ × {ng} g = {nw * ng} cycles: {t6:.1f} s (incl. JIT), {nw * ng / t6:.1f} cycles/s"
    )
    print(f"  status: ok {int(np.sum(st == OK))}, SciPy fallback {int(np.sum(st == FALLBACK))}, "
          f"failed {int(np.sum((st != OK) & (st != FALLBACK)))}")  # fmt: skip
    i = np.unravel_index(np.nanargmax(rho), rho.shape)
    print(f"  max ρ(b) = {rho[i]:.5f} at w̄ = {d6['wbar'][i[0]]:.4g}, g = {d6['g'][i[1]]:.4g}; points with ρ ≥ 1: "
          f"{int(np.sum(rho >= 1))}")  # fmt: skip
    diff = np.abs(d6["rho_paper"] - rho)
    j = np.unravel_index(np.nanargmax(diff), diff.shape)
    print(f"  max ρ(a) = {np.nanmax(d6['rho_paper']):.5f}; max |ρ(a) − ρ(b)| = {diff[j]:.4f} at "
          f"w̄ = {d6['wbar'][j[0]]:.4g}, g = {d6['g'][j[1]]:.4g}")  # fmt: skip
    save_figure(lf.plot_fig6(d6), out / f"dctcp_fig6_rho_{nw}x{ng}.png")

    t = time.perf_counter()
    lf._fig78.cache_clear()
    d78 = lf.build_fig78(False)
    t78 = time.perf_counter() - t
    print(f"Fig. 7/8 data ({d78['q_min'].size} cycles): {t78:.1f} s")
    for g, (b, _) in d78["fit"].items():
        k = np.argmin(d78["q_min"][:, list(d78["g"]).index(g)])
        print(f"  g = {g:<5g} worst Q_min = {d78['q_min'][k, list(d78['g']).index(g)]:.4f} at w̄ = "
              f"{d78['wbar'][k]:.3g}; period exponent on [10, 1000] = {b:.3f}")  # fmt: skip

    t = time.perf_counter()
    d9 = lf.build_fig9(False, full=not args.quick)
    t9 = time.perf_counter() - t
    print(f"Fig. 9 ({d9['throughput'].size} (ψ, w̄, g) points, floor re-solved where reached): {t9:.1f} s")
    for jg, g in enumerate(d9["g"]):
        print(f"  g = {g:<5g} worst-case throughput at ψ = {d9['psi'][0]:g}: {100 * d9['worst'][0, jg]:.2f}%; "
              f"100% from ψ = {d9['psi'][np.argmax(d9['worst'][:, jg] >= 1 - 1e-9)]:g}")  # fmt: skip
    save_figure(lf.plot_fig9(d9), out / "dctcp_fig9_throughput_full.png")

    pts = [(10.0, 1 / 16), (100.0, 0.01), (1000.0, 0.25)]
    t = time.perf_counter()
    for w, g in pts:
        theorem1(find_limit_cycle(w, g))
    ts = (time.perf_counter() - t) / len(pts)
    print(f"SciPy path (Newton + Theorem 1 three ways) per cycle: {ts:.2f} s; "
          f"batched JAX Fig. 6: {t6 / (nw * ng) * 1e3:.1f} ms per cycle")  # fmt: skip


if __name__ == "__main__":
    main()
