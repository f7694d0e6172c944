"""Multi-hop packet chain and network fluid model: time per simulated second, after compile.

Rows (DCTCP, 10 Gbps, 100 µs, K = 65, one flow per group, parking lot of k hops):

1. packet chain (``run_topology``), 100 ms simulated, k = 2 and 4: seconds per simulated second and delivered
   packets per second of wall time (a second call, so compile is excluded; the first call's time is printed too);
2. the network fluid model, reference solver, 100 ms simulated, k = 2 and 4.

No peer tool runs a DCTCP parking lot here (the htsim driver in the anchors is a single bottleneck), so the rows
stand alone. Times are medians of ``--repeat`` runs, printed with the load average (shared machines are noisy).

``--native-ports``: instead, the native loop's CPU time per data packet (DCTCP, N = 10, 10 Gbps, 100 µs, K = 65,
buffer 250, 1 s simulated, least of ``--repeat``) on the single bottleneck, on a one-port route (the routed-port
machinery alone) and on a two-port chain (every flow crosses both ports), with the ratios.

    .venv/bin/python benchmarks/multihop.py [--repeat 3] [--native-ports]
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


def native_ports(repeat: int, duration: str = "1s") -> dict[str, float]:
    """The native loop's CPU ns per data packet delivered: one bottleneck, a one-port route, a two-port chain."""
    import numpy as np

    from dwtcp_fluid.packet import build
    from dwtcp_fluid.packet import engine as E
    from dwtcp_fluid.packet.batch import run_prepared, stack

    pr = build("dctcp", flows=10, duration=duration, seed=1, trace_points=100)
    kth = int(pr.scenario.kth)
    out = {}
    for name, hops in (("single", 0), ("one-port route", 1), ("two-port chain", 2)):
        sc = pr.scenario
        if hops:
            sc = sc._replace(
                route=np.tile(np.arange(hops, dtype=np.int32), (10, 1)),
                port_rate=np.full(hops, 1000, np.int32),
                port_buffer=np.full(hops, int(sc.buffer), np.int32),
                port_kth=np.full(hops, kth, np.int32),
            )
        spec = E.spec_for(pr.cfg, pr.engine_laws, stack([sc]))
        scens = [E.prepare(spec, sc)]
        rec = run_prepared(spec, scens, workers=1, engine="native")[0]  # compile or load outside the timing
        pkts = float(rec["delivered_cum"][-1].sum())
        best = float("inf")
        for _ in range(repeat):
            c0 = time.process_time()
            run_prepared(spec, scens, workers=1, engine="native")
            best = min(best, time.process_time() - c0)
        out[name] = best / pkts * 1e9
        print(
            f"  native DCTCP N=10, {name:>15}: {out[name]:5.1f} ns CPU per data packet ({pkts:,.0f} packets)"
        )
    print(
        f"  ratios to the single bottleneck: one-port route {out['one-port route'] / out['single']:.2f}, "
        f"two-port chain {out['two-port chain'] / out['single']:.2f}"
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--native-ports", action="store_true", help="the native loop on routed ports (see above)")
    a = ap.parse_args()
    if a.native_ports:
        print(f"load average {os.getloadavg()[0]:.2f}")
        native_ports(a.repeat)
        print(f"load average {os.getloadavg()[0]:.2f}")
        return
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
