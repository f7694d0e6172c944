"""Benchmark: differentiable tuning of DCTCP's K and g against a brute-force grid over the same objective.

For the issue's range (10 Gbps, RTT 100-300 us, 2-100 flows, 3 × 3 operating points, default objective: worst-case
mean queue above the standing queue, throughput ≥ 99 %, ρ ≤ 0.9) prints, with the load average:

* ``tune_dctcp`` (SLSQP, implicit-differentiation gradients): K, g, objective, SLSQP iterations, cycle solves
  (operating points × objective evaluations), period maps (Newton steps included), wall time (first call includes
  the JAX compilation; the later ones are quoted as the median of ``--repeat``);
* ``grid_search`` on a K × g grid (linear in K, geometric in g) around it: the feasible grid optimum, its counts
  and time; and whether the two optima agree within one grid spacing;
* with ``--packet``, the packet core at the range's corners with the tuned (K, g) next to the fluid values.

With ``--dwtcp``: the same for ``tune_dwtcp`` (β and K on the Scout-faithful busy-period model, derivative-free
compass search on a working set of operating points, certified over every point; default objective worst-case
mean queue, utilization ≥ 99 %, steady queue) against a (β, K) grid geometric in both (``--dwtcp-grid``, default
``GRID`` = 31 × 18: 0.1 decade in β over 1e-5-1e-2 and in K over 20-1000), counting model runs (one
candidate at one operating point: the grid runs every candidate at every point, the search the points it ran each
candidate at); ``--packet`` then runs the packet check of
:func:`dwtcp_fluid.studies.dctcp.checks_tune.packet_check_dwtcp`.

Run: ``.venv/bin/python benchmarks/tune.py [--grid 24x16] [--repeat 3] [--packet] [--dwtcp]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np


def _load() -> str:
    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default="24x16", help="K points x g points of the brute-force grid")
    ap.add_argument("--repeat", type=int, default=3, help="timed repeats of the tuner after the first call")
    ap.add_argument("--packet", action="store_true", help="run the packet check at the corners")
    ap.add_argument("--dwtcp", action="store_true", help="benchmark tune_dwtcp instead of tune_dctcp")
    ap.add_argument(
        "--dwtcp-grid", default=None, help="beta points x K points of the DWTCP grid (default 31x18)"
    )
    args = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if args.dwtcp:
        _dwtcp(args)
        return
    from dwtcp_fluid.studies.dctcp.tune import TuneRange, grid_search, tune_dctcp

    rng = TuneRange("10Gbps", ("100us", "300us"), (2, 100), points=3)
    print(f"range: 10 Gbps, RTT 100-300 us, flows 2-100, {rng.grid()[0].size} operating points; {_load()}")
    t = time.perf_counter()
    r = tune_dctcp(rng)
    first = time.perf_counter() - t
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        tune_dctcp(rng)
        times.append(time.perf_counter() - t)
    s = r.summary()
    print(f"gradient (SLSQP): K = {r.K:.2f} packets, g = {r.g:.5f}, objective {s.objective_value:.3f} packets;"
          f" {r.iterations} iterations, {r.cycle_solves} cycle solves, {r.period_maps} period maps;"
          f" first call {first:.1f} s (incl. JIT), median of {args.repeat} {statistics.median(times):.1f} s"
          f" ({_load()})")  # fmt: skip
    print(f"  active: {'; '.join(s.active_constraints) or 'none'}; worst point {s.worst_point['rtt_s'] * 1e6:.0f} us,"
          f" N = {s.worst_point['flows']}")  # fmt: skip
    nk, ng = (int(v) for v in args.grid.split("x"))
    Ks = np.linspace(max(1.0, 0.2 * r.K), 3.0 * r.K, nk)
    gs = np.geomspace(r.g / 8, min(1.0, r.g * 8), ng)
    G = grid_search(rng, Ks, gs)
    dK, dlg = Ks[1] - Ks[0], np.log(gs[1] / gs[0])
    agree = abs(r.K - G["K"]) <= dK and abs(np.log(r.g / G["g"])) <= dlg
    print(
        f"grid {nk} x {ng}: K = {G['K']:.2f}, g = {G['g']:.5f}, objective {G['objective_value']:.3f} packets;"
        f" {G['cycle_solves']} cycle solves, {G['period_maps']} period maps, {G['seconds']:.1f} s ({_load()})"
    )
    print(f"  spacing dK = {dK:.2f} packets, g ratio {np.exp(dlg):.3f}: optima agree within one spacing: {agree};"
          f" cycle solves ratio grid/gradient = {G['cycle_solves'] / r.cycle_solves:.1f}x,"
          f" time ratio (grid / tuner median) = {G['seconds'] / statistics.median(times):.1f}x")  # fmt: skip
    if args.packet:
        from dwtcp_fluid.studies.dctcp.checks_tune import TOLERANCE, packet_check

        t = time.perf_counter()
        rows = packet_check(rng, r.K, r.g)
        print(f"packet check at the corners (tolerance {TOLERANCE:g} packets on the mean queue above 2N - C*d,"
              f" 0.01 on utilization), {time.perf_counter() - t:.0f} s ({_load()}):")  # fmt: skip
        for w in rows:
            print(f"  RTT {w['rtt_s'] * 1e6:.0f} us N = {w['flows']:3d}: fluid {w['fluid_queue_mean']:6.1f},"
                  f" packet {w['packet_queue_mean']:6.1f} packets; throughput fluid {w['fluid_throughput']:.4f},"
                  f" packet {w['packet_utilization']:.4f}: {w['class']}")  # fmt: skip


def _dwtcp(args: argparse.Namespace) -> None:
    from dwtcp_fluid.studies.dctcp.tune import TuneRange
    from dwtcp_fluid.studies.dwtcp.tune import BETA_BOX, GRID, K_BOX, grid_search, tune_dwtcp

    rng = TuneRange("10Gbps", ("100us", "300us"), (2, 100), points=3)
    print(f"range: 10 Gbps, RTT 100-300 us, flows 2-100, {rng.grid()[0].size} operating points; {_load()}")
    t = time.perf_counter()
    r = tune_dwtcp(rng)
    first = time.perf_counter() - t
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        tune_dwtcp(rng)
        times.append(time.perf_counter() - t)
    s = r.summary()
    med = statistics.median(times) if times else first
    print(f"compass search: beta = {r.beta:.3g}, K = {r.K:.1f} packets, objective {s.objective_value:.1f} packets;"
          f" {r.iterations} polls, {r.evaluations} candidates, {r.model_runs} model runs"
          f" ({r.model_runs / r.evaluations:.1f} points per candidate of {r.points_d.size}; working set"
          f" {', '.join(s.working_set)}), {r.solves} batched solves;"
          f" first call {first:.1f} s (incl. JIT), median of {len(times)} {med:.1f} s ({_load()})")  # fmt: skip
    print(f"  active: {'; '.join(s.active_constraints) or 'none'}; worst point {s.worst_point['rtt_s'] * 1e6:.0f} us,"
          f" N = {s.worst_point['flows']} ({s.worst_point['regime']})")  # fmt: skip
    nb, nk = (int(v) for v in (args.dwtcp_grid or f"{GRID[0]}x{GRID[1]}").split("x"))
    bs, ks = np.geomspace(*BETA_BOX, nb), np.geomspace(*K_BOX, nk)
    G = grid_search(rng, bs, ks)
    db, dk = np.log10(bs[1] / bs[0]), np.log10(ks[1] / ks[0])
    # K is compared through the objective: the worst-case queue is nearly flat in K inside the feasible wedge
    agree = (
        abs(np.log10(r.beta / G["beta"])) <= db + 1e-9 and s.objective_value <= G["objective_value"] + 1e-6
    )
    print(f"grid {nb} x {nk}: beta = {G['beta']:.3g}, K = {G['K']:.1f}, objective {G['objective_value']:.1f} packets;"
          f" {G['evaluations']} candidates, {G['model_runs']} model runs, {G['seconds']:.1f} s ({_load()})")  # fmt: skip
    print(f"  spacing {db:.3f} decade in beta, {dk:.3f} in K: beta within one spacing and objective no worse: {agree};"
          f" model runs ratio grid/search = {G['model_runs'] / r.model_runs:.1f}x,"
          f" time ratio (grid / search median) = {G['seconds'] / med:.1f}x")  # fmt: skip
    if args.packet:
        from dwtcp_fluid.studies.dctcp.checks_tune import packet_check_dwtcp

        t = time.perf_counter()
        rows = packet_check_dwtcp(rng, r.beta, r.K)
        print(f"packet check at the corners, {time.perf_counter() - t:.0f} s ({_load()}):")
        for w in rows:
            print(f"  RTT {w['rtt_s'] * 1e6:.0f} us N = {w['flows']:3d}: mean queue fluid {w['fluid_queue_mean']:7.1f}"
                  f" packet {w['packet_queue_mean']:7.1f}; utilization fluid {w['fluid_utilization']:.4f} packet"
                  f" {w['packet_utilization']:.4f}; packet class {w['packet_class']}: {w['class']}")  # fmt: skip


if __name__ == "__main__":
    main()
