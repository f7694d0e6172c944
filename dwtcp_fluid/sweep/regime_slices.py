"""The regime predictor's agreement with the packet law per (β, K, B) slice of the default BDP × N grid.

:func:`slice_agreement` runs the packet pass (:func:`~.outcomes_packet.packet_outcomes`) at every point of one
slice with target K and buffer B, and scores every registered predictor there (:func:`~.outcomes_packet.packet_agreement`);
:func:`record_slices` runs the slices of [DWTCP]'s settings (β ∈ {1e-4, 1e-3, 1e-2} × K ∈ {0, 100} × B ∈ {250, 5000})
and writes ``docs/data/regime-slices.json``, which proofs/dwtcp_regime.md states.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..judge.classes import PacketClass
from .outcomes_packet import PacketPassOptions, packet_agreement, packet_outcomes

__all__ = [
    "SLICES",
    "DEFAULT_BDP",
    "DEFAULT_FLOWS",
    "slice_agreement",
    "record_slices",
    "regime_detail",
    "utilization_wander",
    "WANDER_POINTS",
]

#: (β, K, B) of the slices: [DWTCP]'s β, the sweep's K = 0 and [DWTCP]'s K = 100, its 250-packet switch buffer and
#: a deep 5,000-packet one.
SLICES = tuple((b, k, buf) for b in (1e-4, 1e-3, 1e-2) for k in (0.0, 100.0) for buf in (250, 5000))
#: The default sweep grid: BDP 10…10,000 packets (25 log-spaced), N.
DEFAULT_BDP = tuple(float(v) for v in np.logspace(1, 4, 25))
DEFAULT_FLOWS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
_C = 10e9 / 8 / 1500  # 10 Gbps in 1500-byte packets/s


def slice_agreement(
    beta: float,
    k: float,
    buffer: int,
    *,
    bdp: Sequence[float] = DEFAULT_BDP,
    flows: Sequence[int] = DEFAULT_FLOWS,
    capacity_pps: float = _C,
    seed: int = 0,
    cache: str | Path | None = None,
) -> dict[str, Any]:
    """Packet runs at every (BDP, N) of one slice, and each predictor's agreement there.

    ``cache``: a folder where the slice's packet outcomes are kept (``.npz``, keyed by the slice and grid) and
    read back instead of re-running them, so that predictors can be re-scored without the packet pass.

    Returns ``beta``, ``k``, ``buffer``, ``points``, ``class_counts``, ``seconds`` (the packet pass),
    ``agreement`` (per predictor, :func:`~.outcomes_packet.packet_agreement`'s summary without labels) and
    ``regime_detail`` (:func:`regime_detail`).
    """
    import hashlib
    import json

    D, N = np.meshgrid(np.asarray(bdp, float), np.asarray(flows, float), indexing="ij")
    opts = PacketPassOptions(k=float(k), buffer=int(buffer), seed=seed)
    key = json.dumps([beta, list(D.ravel()), list(N.ravel()), capacity_pps, repr(opts)])
    path = None if cache is None else Path(cache) / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz"
    if path is not None and path.is_file():
        with np.load(path) as z:
            o = {n: z[n] for n in z.files if n != "seconds"}
            seconds = float(z["seconds"])
    else:
        t0 = time.perf_counter()
        o = packet_outcomes(
            np.full(D.size, beta), D.ravel(), N.ravel(), capacity_pps=capacity_pps, options=opts
        )
        seconds = time.perf_counter() - t0
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            np.savez(path, seconds=seconds, **o)
    _, summ = packet_agreement(
        np.full(D.size, beta),
        D.ravel(),
        N.ravel(),
        o,
        capacity_pps=capacity_pps,
        k=float(k),
        buffer=int(buffer),
    )
    cls = o["packet_class"]
    return {
        "beta": float(beta),
        "k": float(k),
        "buffer": int(buffer),
        "points": int(D.size),
        "class_counts": {c.label: int((cls == int(c)).sum()) for c in PacketClass},
        "seconds": seconds,
        "agreement": {n: {kk: v for kk, v in a.items() if kk != "label"} for n, a in summ.items()},
        "regime_detail": regime_detail(beta, k, buffer, D.ravel(), N.ravel(), o),
    }


def regime_detail(
    beta: float, k: float, buffer: float, bdp: np.ndarray, flows: np.ndarray, o: dict[str, np.ndarray]
) -> dict[str, Any]:
    """Where the regime model's state misses, per slice (packet outcomes ``o`` at points ``bdp``, ``flows``).

    ``utilization``: per model regime, the steady runs there and those whose utilization is not within
    :data:`~.predictors.STATE_TOLERANCES` of the model's; ``little_within``: the share of the steady runs in
    the model's cycle (idle link, ripple) whose utilization is within that tolerance of N·w̄/(BDP + q̄) (their own mean window and queue: the ACK clock's
    throughput, Little's law), i.e. where the window alone sets the utilization; ``relaxation``: per packet class,
    the standing-queue points (model regime) and the median of the model's relaxation time T (base RTTs) and of
    the run's length (warm-up and window, base RTTs) there.
    """
    from ..judge.classes import PacketClass, oscillation_threshold
    from ..studies.dwtcp.analysis_regime import IDLE, REGIMES, RIPPLE, STANDING, DwtcpRegimeModel
    from .predictors import STATE_TOLERANCES

    thr = np.array([oscillation_threshold(int(n), int(buffer)) for n in flows], dtype=float)
    r = DwtcpRegimeModel().evaluate(beta, bdp, flows, k=k, buffer=buffer, threshold=thr)
    cls = np.asarray(o["packet_class"])
    st = cls == int(PacketClass.STEADY)
    tol = STATE_TOLERANCES["utilization"].abs
    pu = np.asarray(o["packet_utilization"], float)
    miss = np.abs(r["utilization"] - pu) > tol
    little = np.minimum(1.0, flows * o["packet_window_mean"] / (bdp + o["packet_queue_mean"]))
    cyc = st & np.isin(r["regime"], [IDLE, RIPPLE])
    stand = r["regime"] == STANDING
    relax = {}
    for c in PacketClass:
        m = stand & (cls == int(c))
        if m.any():
            relax[c.label] = {
                "points": int(m.sum()),
                "relax_rtts_median": float(np.median(r["relax_rtts"][m])),
                "run_rtts_median": float(np.median(o["packet_duration_rtts"][m])),
            }
    return {
        "utilization": {
            name: {
                "steady": int((st & (r["regime"] == g)).sum()),
                "missed": int((st & miss & (r["regime"] == g)).sum()),
            }
            for g, name in enumerate(REGIMES)
        },
        "little_within": float((cyc & (np.abs(little - pu) <= tol)).sum() / max(int(cyc.sum()), 1)),
        "relaxation": relax,
    }


#: Cycle points (β = 1e-3, K = 0, B = 250; default-grid BDP, N) whose utilization :func:`utilization_wander` follows
#: over a long run: a locked single flow, and 5 to 20 flows in the model's idle link and ripple.
WANDER_POINTS = ((DEFAULT_BDP[16], 1), (DEFAULT_BDP[12], 5), (DEFAULT_BDP[10], 10), (DEFAULT_BDP[16], 10),
                 (DEFAULT_BDP[16], 20))  # fmt: skip


def utilization_wander(
    beta: float,
    k: float,
    buffer: int,
    points: Sequence[tuple[float, int]] = WANDER_POINTS,
    *,
    rtts: float = 600.0,
    segment_rtts: float = 50.0,
    capacity_pps: float = _C,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """The utilization of consecutive ``segment_rtts`` segments (the sweep's measurement window) of one long run
    of ``rtts`` base RTTs after the warm-up, at each (BDP, N) of ``points``, with the regime model's utilization:
    how far a window of the sweep's length can land from another one of the same run."""
    from ..studies.dwtcp.analysis_regime import REGIMES, DwtcpRegimeModel
    from .packet_batch import rtt_slots

    bdp = np.array([float(b) for b, _ in points])
    flows = np.array([float(n) for _, n in points])
    opts = PacketPassOptions(
        k=float(k), buffer=int(buffer), seed=seed, min_rtts=rtts, max_rtts=rtts, trend_rtts=rtts
    )
    records: dict[int, tuple[Any, dict[str, np.ndarray]]] = {}
    packet_outcomes(
        np.full(bdp.size, beta), bdp, flows, capacity_pps=capacity_pps, options=opts, records=records
    )
    model = DwtcpRegimeModel().evaluate(beta, bdp, flows, k=k, buffer=buffer)
    out = []
    for i in range(bdp.size):
        pr, rec = records[i]
        chunk, rtt = pr.cfg.chunk, rtt_slots(bdp[i])
        w0 = int(np.ceil(opts.warmup_rtts * rtt / chunk))
        per = max(int(round(segment_rtts * rtt / chunk)), 1)
        busy = np.asarray(rec["busy"], float)[w0:]
        segs = [float(busy[j : j + per].sum() / (per * chunk)) for j in range(0, busy.size - per + 1, per)]
        out.append(
            {
                "bdp": float(bdp[i]),
                "flows": int(flows[i]),
                "regime": REGIMES[int(model["regime"][i])],
                "model_utilization": float(model["utilization"][i]),
                "run_utilization": float(busy.sum() / (busy.size * chunk)),
                "segments": segs,
            }
        )
    return out


def record_slices(
    path: str | Path, slices: Sequence[tuple[float, float, int]] = SLICES, *, cache: str | Path | None = None
) -> dict[str, Any]:
    """Run ``slices`` (packet outcomes kept in ``cache``, see :func:`slice_agreement`) and the long runs of
    :func:`utilization_wander` (β = 1e-3, K = 0, B = 250), and write them as one JSON document at ``path``
    (atomically); returns the document."""
    import json

    from ..atomic import write_text

    doc = {"grid": {"bdp": list(DEFAULT_BDP), "flows": list(DEFAULT_FLOWS), "capacity_pps": _C},
           "slices": [slice_agreement(b, k, buf, cache=cache) for b, k, buf in slices],
           "wander": {"beta": 1e-3, "k": 0.0, "buffer": 250, "rtts": 600.0, "segment_rtts": 50.0,
                      "points": utilization_wander(1e-3, 0.0, 250)}}  # fmt: skip
    write_text(Path(path), json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    return doc
