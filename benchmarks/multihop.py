"""Multi-hop packet chain and network fluid model: time per simulated second, after compile.

Rows (DCTCP, 10 Gbps, 100 µs, K = 65, one flow per group, parking lot of k hops):

1. packet chain (``run_topology``), 100 ms simulated, k = 2 and 4: seconds per simulated second and delivered
   packets per second of wall time (a second call, so compile is excluded; the first call's time is printed too);
2. the network fluid model, reference solver, 100 ms simulated, k = 2 and 4.

No peer tool runs a DCTCP parking lot here (the htsim driver in the anchors is a single bottleneck), so the rows
stand alone. Times are medians of ``--repeat`` runs, printed with the load average (shared machines are noisy).

    .venv/bin/python benchmarks/multihop.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _median(fn, repeat: int) -> float:
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    import dwtcp_fluid as dw

    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    for k in (2, 4):
        t0 = time.perf_counter()
        s = dw.run_topology(f"parking-lot:{k}", "dctcp", duration="100ms")
        first = time.perf_counter() - t0
        t = _median(lambda k=k: dw.run_topology(f"parking-lot:{k}", "dctcp", duration="100ms"), a.repeat)
        pk = int(s.records["delivered"].sum())
        print(
            f"packet chain k={k}: first call {first:.2f} s; {t / 0.1:.2f} s per simulated s, {pk / t:,.0f} pkt/s"
        )
    for k in (2, 4):
        m, P = dw.DctcpNetwork(dw.parking_lot_routes(k)), dw.NetworkParams.parking_lot(k)
        fp = dw.parking_lot_fixed_point(k, dw.LinkParams().C, 65.0, 1e-4)
        h = (fp.W_long,) + (fp.W_cross,) * k + (fp.P_long,) + (fp.p,) * k + (65.0,) * k
        t = _median(lambda m=m, P=P, h=h: dw.solve(m, P, h, (0.0, 0.1)), a.repeat)
        print(
            f"fluid network model k={k} ({len(m.states)} states), reference solver: {t / 0.1:.2f} s per simulated s"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
