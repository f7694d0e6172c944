"""Workloads: finite flows with start times from a process, as :func:`~.build.build` arguments.

* :func:`poisson_flows` — flows arriving as a Poisson process whose offered load is a given fraction of the
  bottleneck, sizes drawn from a flow-size distribution (the web-search CDF of [DCTCP] or the data-mining CDF of
  VL2, shipped as data files in ``dwtcp_fluid/packet/data``, or any CDF given as points);
* :func:`incast` — synchronized bursts: N flows of one size start in the same slot, repeatedly.

Each returns ``starts`` (seconds) and ``sizes`` (packets); the runs record each flow's completion slot, so the
summary gives flow completion times and slowdowns (:func:`~.summary.fct_summary`). Randomness is a NumPy
generator seeded by ``seed``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from ..params import LinkParams, check_range
from ..units import parse_time

__all__ = ["CDFS", "load_cdf", "cdf_mean", "sample_sizes", "poisson_flows", "incast"]

#: Shipped flow-size distributions (name → data file).
CDFS = {"websearch": "websearch.csv", "datamining": "datamining.csv"}


def load_cdf(cdf: str | Sequence[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """A flow-size CDF as ``(sizes in bytes, cumulative probabilities)``: a shipped name or ``(size, p)`` points
    (p nondecreasing from 0 to 1, sizes increasing)."""
    if isinstance(cdf, str):
        if cdf not in CDFS:
            raise ValueError(f"cdf={cdf!r} is invalid: accepted one of {', '.join(CDFS)} or (size, p) points")
        text = resources.files("dwtcp_fluid.packet").joinpath("data", CDFS[cdf]).read_text()
        rows = [ln.split(",") for ln in text.splitlines() if ln and not ln.startswith("#")][1:]
        pts = [(float(a), float(b)) for a, b in rows]
    else:
        pts = [(float(a), float(b)) for a, b in cdf]
    x, p = np.asarray([a for a, _ in pts]), np.asarray([b for _, b in pts])
    if x.size < 2 or np.any(np.diff(x) <= 0) or np.any(np.diff(p) < 0) or p[0] != 0.0 or p[-1] != 1.0:
        raise ValueError("cdf points are invalid: accepted increasing sizes with p rising from 0 to 1")
    return x, p


def cdf_mean(cdf: str | Sequence[tuple[float, float]]) -> float:
    """Mean flow size in bytes of the piecewise-linear CDF (uniform between points)."""
    x, p = load_cdf(cdf)
    return float(np.sum(np.diff(p) * 0.5 * (x[1:] + x[:-1])))


def sample_sizes(rng: np.random.Generator, cdf: str | Sequence[tuple[float, float]], n: int) -> np.ndarray:
    """``n`` flow sizes in bytes by inverse transform of the piecewise-linear CDF."""
    x, p = load_cdf(cdf)
    return np.interp(rng.random(n), p, x)


def _link(link: LinkParams | None) -> LinkParams:
    return link or LinkParams()


def poisson_flows(
    load: float,
    cdf: str | Sequence[tuple[float, float]] = "websearch",
    *,
    duration: str | float = "100ms",
    link: LinkParams | None = None,
    seed: int = 0,
    max_flows: int = 20000,
) -> dict[str, Any]:
    """Poisson flow arrivals offering ``load`` × the bottleneck capacity, sizes from ``cdf``.

    The arrival rate is λ = load · C / E[size] (flows/s, C in bytes/s); arrivals are drawn over ``duration``.
    Returns ``{"starts": seconds, "sizes": packets (≥ 1), "rate": λ, "mean_bytes": E[size]}``.
    """
    check_range("load", load, lo=0.0, hi=1.0, lo_open=True, why="offered load, fraction of the capacity")
    link = _link(link)
    dur = parse_time(duration) if isinstance(duration, str) else float(duration)
    mean = cdf_mean(cdf)
    lam = load * link.C * link.L / mean
    rng = np.random.default_rng(seed)
    n_exp = lam * dur
    gaps = rng.exponential(1.0 / lam, size=int(n_exp + 10 * math.sqrt(n_exp) + 20))
    starts = np.cumsum(gaps)
    starts = starts[starts < dur]
    if starts.size > max_flows:
        raise ValueError(
            f"load={load!r} gives {starts.size} flows in {dur:g} s: accepted at most {max_flows}"
        )
    if starts.size == 0:
        raise ValueError(
            f"load={load!r} gives no flow in {dur:g} s: accepted a load or duration with arrivals"
        )
    sizes = np.maximum(np.ceil(sample_sizes(rng, cdf, starts.size) / link.L), 1).astype(np.int64)
    return {"starts": starts, "sizes": sizes, "rate": lam, "mean_bytes": mean}


def incast(
    flows: int, size: float, *, every: str | float | None = None, bursts: int = 1, at: str | float = 0.0
) -> dict[str, Any]:
    """Synchronized bursts: ``flows`` flows of ``size`` packets start together at ``at``, and again every
    ``every`` for ``bursts`` bursts (one flow per sender per burst). Returns ``{"starts", "sizes"}``."""
    check_range("flows", flows, lo=1, integer=True)
    check_range("size", size, lo=1.0, why="packets")
    check_range("bursts", bursts, lo=1, integer=True)
    t0 = parse_time(at) if isinstance(at, str) else float(at)
    gap = 0.0 if every is None else (parse_time(every) if isinstance(every, str) else float(every))
    starts = np.repeat(t0 + gap * np.arange(bursts), flows)
    return {"starts": starts, "sizes": np.full(starts.size, int(size))}
