"""JSON documents of ``dctcp network`` (the DCTCP network fluid model on a chain or a leaf-spine fabric, optionally
against the packet core) and ``dctcp network-sweep`` (the summary of a hops × cross-load dataset).

As for ``sweep``, the network sweep's document summarizes a dataset, so :func:`network_sweep_report` takes one
(``dw.network_sweep_report(dw.run_network_sweep(grid, store))`` or the NetCDF read back); the command's orchestrator
:func:`write_network_sweep` adds the output directory, its lock and ``--resume``, and the CLI the progress bar.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...params import DEFAULT_CAPACITY, DEFAULT_RTT, LinkParams, check_range
from ...reports._json import to_jsonable

__all__ = ["TRAFFIC", "check_network", "dctcp_network_report", "network_sweep_report", "write_network_sweep"]


#: Traffic patterns of a leaf-spine fabric.
TRAFFIC = ("all-to-all", "permutation")


def check_network(
    topology: Any,
    *,
    flows: int,
    link: LinkParams,
    K: float,
    duration: float,
    traffic: str,
    perturb: float | None = None,
) -> Any:
    """Validate the inputs of :func:`dctcp_network_report`; return the parsed topology. Each ValueError names the
    parameter (``topology``, ``flows``, ``K``, ``duration``, ``traffic``, ``perturb``), its value and what is
    accepted."""
    from ...packet.topology import parse_topology

    topo = parse_topology(topology) if isinstance(topology, str) else topology
    if topo.kind == "single":
        raise ValueError(
            f"topology={topo.name!r} is invalid: accepted path:K, parking-lot:K or leaf-spine:LxS "
            "(one link: dctcp limit-cycle)"
        )
    hi = 64 if topo.kind == "leaf-spine" else 256
    check_range("flows", flows, lo=1, hi=hi, integer=True, why="flows per leaf pair" if hi == 64 else "")
    check_range("K", K, lo=0.0, why="packets")
    if not 20 * link.d <= duration <= 10.0:  # also refuses NaN
        raise ValueError(
            f"duration={duration!r} is out of range: accepted seconds between 20 base RTTs ({20 * link.d:g} s) "
            "and 10 s"
        )
    if traffic not in TRAFFIC:
        raise ValueError(f"traffic={traffic!r} is invalid: accepted {' | '.join(TRAFFIC)}")
    if perturb is not None and not (topo.kind != "leaf-spine" and 0.0 <= perturb <= 1.0):
        raise ValueError(
            f"perturb={perturb!r} is out of range: accepted packets in [0, 1], on path:K or parking-lot:K"
        )
    return topo


def dctcp_network_report(
    topology: Any = "parking-lot:2",
    *,
    flows: int = 1,
    link: LinkParams | None = None,
    K: float = 65.0,
    duration: float = 0.1,
    traffic: str = "all-to-all",
    seed: int = 1,
    packet: bool = False,
    perturb: float | None = None,
    progress: Callable[[float, float], None] | None = None,
) -> dict[str, Any]:
    """``dctcp network --json``'s document: DCTCP over several bottlenecks, [DCTCP-A] eqs. (5)-(8) per link.

    On a chain (``path:K``, ``parking-lot:K``): the parking lot's fixed points (independent and synchronized
    marks), a reference-solver run from near the independent one (per-link mean queue and utilization, per-group
    share of C over the run's second half) and with ``packet`` the packet chain at the same setting. On
    ``leaf-spine:LxS``: the fabric's ECMP routing of the traffic pattern (ports as links), each route's per-flow
    share in the DDE and at the mean-field fixed point with line-rate access links, and with ``packet`` the packet
    fabric's cross-check.

    Parameters
    ----------
    topology : str or Topology
        ``path:K``, ``parking-lot:K`` or ``leaf-spine:LxS`` (:func:`~dwtcp_fluid.parse_topology`).
    flows : int
        Flows per group (1..256); on leaf-spine flows per talking leaf pair (1..64).
    link : LinkParams, optional
        Rate of every link and base RTT of every flow (default 10 Gbps, 100 µs).
    K : float
        Marking threshold of every link, packets.
    duration : float
        Fluid (and packet) run length, s: between 20 base RTTs and 10 s.
    traffic : {"all-to-all", "permutation"}
        Leaf-spine only: the traffic pattern (a seeded permutation).
    seed : int
        Leaf-spine only: seed of the permutation and of the ECMP hash.
    packet : bool
        Also run the packet core at the same setting and report it next to the fluid model.
    perturb : float, optional
        Chains: packets added to the first link's starting queue, in [0, 1] (default
        :data:`~dwtcp_fluid.studies.networks.analysis_multihop_dde.START_ASYMMETRY`, 1e-3). 0 starts exactly symmetric, where the
        fluid hops stay synchronized whatever their stability (proofs/multihop.md); the document echoes it.
    progress : callable, optional
        ``progress(done, total)`` in simulated seconds: the fluid run as it goes (chains), then the packet run.
    """
    link = link if link is not None else LinkParams(DEFAULT_CAPACITY, DEFAULT_RTT)
    topo = check_network(
        topology, flows=flows, link=link, K=K, duration=duration, traffic=traffic, perturb=perturb
    )
    total = duration * (2 if packet else 1)
    if progress is not None:
        progress(0.0, total)
    if topo.kind == "leaf-spine":
        doc = _fabric(topo, link, flows, K, duration, traffic, seed, packet)
    else:
        doc = _chain(topo, link, flows, K, duration, packet, perturb, progress)
    if progress is not None:
        progress(total, total)
    return doc


def _chain(
    topo: Any,
    link: LinkParams,
    flows: int,
    K: float,
    T: float,
    packet: bool,
    perturb: float | None,
    progress: Callable[[float, float], None] | None = None,
) -> dict[str, Any]:
    import numpy as np

    from ...dde import solve
    from ...dde.summary import time_mean
    from ...models.dctcp_network import DctcpNetwork, NetworkParams
    from .analysis_multihop import parking_lot_fixed_point
    from .analysis_multihop_dde import START_ASYMMETRY, start_queues

    C, d = link.C, link.d
    model = DctcpNetwork(topo.routes)
    P = NetworkParams(
        topo.routes, capacity=link.capacity, K=K, rtt=d, flows=flows, packet_size=float(link.packet_size)
    )
    p = model.numeric_params(P)
    out: dict[str, Any] = {
        "topology": topo.name,
        "flows_per_group": flows,
        "K": K,
        "capacity_pps": C,
        "rtt_s": d,
    }
    hist_W = [5.0] * model.groups
    if topo.kind == "parking-lot":
        fps = {
            m: parking_lot_fixed_point(topo.hops, C, K, d, flows, flows, marks=m)
            for m in ("independent", "synchronized")
        }
        out["fixed_point"] = {
            m: {"p": f.p, "long_share": flows * f.x_long / C, "W_long": f.W_long, "W_cross": f.W_cross}
            for m, f in fps.items()
        }
        f = fps["independent"]
        hist_W = [f.W_long] + [f.W_cross] * topo.hops
    eps = START_ASYMMETRY if perturb is None else perturb
    out["perturb"] = eps
    hist = tuple(hist_W) + (0.5,) * model.groups + start_queues(K, model.links, eps)
    total = T * (2 if packet else 1)
    sol = solve(model, P, hist, (0.0, T), progress=(lambda d, _t: progress(d, total)) if progress else None)
    ts = np.linspace(T / 2, T, 10001)
    obs = model.observables(tuple(sol(ts, 0).T), p, np)
    out["fluid"] = {
        "status": sol.describe(),
        "queue_mean": [time_mean(ts, obs[f"queue_{l + 1}"]) for l in range(model.links)],
        "utilization": [time_mean(ts, obs[f"utilization_{l + 1}"]) for l in range(model.links)],
        "group_share": [flows * time_mean(ts, obs[f"rate_{i + 1}"]) / C for i in range(model.groups)],
    }
    if packet:
        from ...packet.multihop_run import run_topology

        s = run_topology(topo, "dctcp", link=link, flows=flows, K=K, duration=T)
        out["packet"] = {
            "queue_mean": s.queue_mean.tolist(),
            "utilization": s.utilization.tolist(),
            "group_share": (s.group_share * np.array(s.flows_per_group)).tolist(),
        }
    return to_jsonable(out)


def _fabric(
    topo: Any, link: LinkParams, flows: int, K: float, T: float, traffic: str, seed: int, packet: bool
) -> dict[str, Any]:
    """The network model on the fabric's ECMP routing (and the packet fabric with ``packet``)."""
    import numpy as np

    from ...packet.leafspine import leaf_spine_traffic
    from .analysis_fixed_point import network_fixed_point
    from .checks_leafspine import FabricSetting, compare_fabric, fluid_fabric

    tr = leaf_spine_traffic(topo, traffic, flows, seed)
    fab = tr.topology
    rtt = link.d + 1.0 / link.C  # the packets' empty-network RTT: one forwarding slot
    f = fluid_fabric(fab.groups, tr.flows_per_group, rtt, link, K, T)
    mf = network_fixed_point(
        fab.groups, tr.flows_per_group, link.C, K, rtt, access=link.C, links=np.flatnonzero(tr.queueable())
    )
    out: dict[str, Any] = {
        "topology": fab.name,
        "traffic": traffic,
        "seed": seed,
        "flows_per_pair": flows,
        "K": K,
        "capacity_pps": link.C,
        "rtt_s": link.d,
        "ports": [fab.port_name(int(h)) for h in f["ports"]],
        "routes": [[fab.port_name(h) for h in r] for r in fab.groups],
        "flows_per_group": list(tr.flows_per_group),
        "fluid": {
            "status": f["status"],
            "queue_mean": f["queue"].tolist(),
            "utilization": f["utilization"].tolist(),
            "flow_share": f["share"].tolist(),
        },
        "mean_field": {"flow_share": (mf.x / link.C).tolist(), "residual": mf.residual},
    }
    if packet:
        st = FabricSetting(
            fab.name,
            traffic,
            flows,
            seed,
            K,
            f"{link.capacity / 1e9:g}Gbps",
            f"{link.d * 1e6:g}us",
            f"{T * 1e3:g}ms",
        )
        c = compare_fabric(st)
        out["packet"] = {
            "run_class": c.run_class,
            "passed": c.passed,
            "errors": c.errors,
            "queue_mean": c.queue_packet.tolist(),
            "utilization": c.util_packet.tolist(),
            "flow_share": c.share_packet.tolist(),
        }
    return to_jsonable(out)


def network_sweep_report(
    sweep: Any, *, dataset: str | Path | None = None, seconds: float | None = None
) -> dict[str, Any]:
    """``dctcp network-sweep --json``'s document: per (hops, cross-flow load) point of the parking lot, the long
    group's share of C in the fluid network model ([DCTCP-A] (5)-(8) per link) and in the packet chain, and
    their agreement class; counts per class.

    Parameters
    ----------
    sweep : xarray.Dataset
        :func:`dwtcp_fluid.run_network_sweep`'s dataset (also one read back from its NetCDF).
    dataset : str or Path, optional
        Where the NetCDF was written (recorded, not read).
    seconds : float, optional
        Wall-clock seconds of the run.

    Returns
    -------
    dict
        ``dataset``, ``points``, ``seconds``, ``agreement`` (points per class), ``fluid_long_share`` and
        ``packet_long_share`` (hops × load), their axes ``hops`` and ``cross_load``, and ``point_agreement`` (the
        class of each point, hops × load).
    """
    from .checks_sweep import AGREEMENT

    agree = sweep["agreement"].values
    return to_jsonable(
        {
            "dataset": None if dataset is None else str(dataset),
            "points": int(agree.size),
            "seconds": seconds,
            "agreement": {name: int((agree == i).sum()) for i, name in enumerate(AGREEMENT)},
            "fluid_long_share": sweep["fluid_long_share"].values,
            "packet_long_share": sweep["packet_long_share"].values,
            "hops": sweep["hops"].values,
            "cross_load": sweep["load"].values,
            "point_agreement": [[AGREEMENT[int(a)] for a in row] for row in agree],
        }
    )


def write_network_sweep(
    grid: Any,
    out: str | Path,
    *,
    resume: bool = False,
    progress: Callable[[float, int], None] | None = None,
    report: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
    check: Callable[[list[str]], None] | None = None,
) -> tuple[dict[str, Any], Any]:
    """``dctcp network-sweep``'s orchestrator: run (or resume) the network sweep of ``grid``
    (:class:`~.checks_sweep.NetworkGrid`) into directory ``out`` as ``<out>/network-sweep-<hash>.nc`` and return
    its document (:func:`network_sweep_report`, with the seconds it took) and dataset.

    Under the output's lock (:func:`~dwtcp_fluid.sweep.outputs.locked_output`) the sweep runs on a Zarr store next
    to the result (:func:`~.checks_sweep.run_network_sweep`), which ``resume`` continues and a finished run removes.
    An interrupt, or a result that cannot be written, raises :class:`~dwtcp_fluid.sweep.outputs.SweepStopped`
    saying what was kept. ``progress(done, total)`` counts points; ``report`` gets the resumed store's verification,
    ``note`` the stale files removed, one line each; ``check(keep)`` is the caller's check of the output location,
    given the products that may exist already, called before the lock and again under it."""
    import time

    from ...atomic import remove_tree
    from ...sweep.outputs import SweepStopped, locked_output
    from ...sweep.store import write_netcdf_atomic
    from .checks_sweep import network_stem, run_network_sweep

    out = Path(out)
    stem = network_stem(grid)
    keep = [f"{stem}.nc", f"{stem}.zarr"] if resume else []
    if check is not None:
        check(keep)
    store = out / f"{stem}.zarr"
    t0 = time.perf_counter()
    with locked_output(out, stem, check=None if check is None else lambda: check(keep), note=note):
        try:
            ds = run_network_sweep(grid, store, resume=resume, progress=progress, report=report)
        except KeyboardInterrupt:
            raise SweepStopped(
                f"network sweep interrupted: finished points kept in {store}; rerun with --resume", code=130
            ) from None
        try:
            nc = write_netcdf_atomic(ds, out / f"{stem}.nc")
        except OSError as e:
            raise SweepStopped(
                f"network sweep could not write its results: {e.strerror or type(e).__name__} ({e.filename}); "
                f"every point is kept in {store}: free space and rerun the same command with --resume"
            ) from e
        remove_tree(store)  # finished: the store served the resume; the result is the NetCDF
    return network_sweep_report(ds, dataset=nc, seconds=round(time.perf_counter() - t0, 1)), ds
