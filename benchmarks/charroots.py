"""Benchmark: characteristic roots of x' = A0 x + A1 x(t − τ), systems per second, batched (target ≥ 2000/s at 1e-10).

For each case it prints systems/s of :func:`dwtcp_fluid.analysis.charroots.char_roots` (pseudospectral generator +
Newton polish, one batched ``eigvals``), the same batch split over 2 threads (LAPACK releases the GIL), and the
same algorithm called one system at a time (the unbatched peer); and the accuracy actually reached:

* scalar systems: each of the K returned roots against the nearest ``scipy.special.lambertw`` root (branches
  k = −15..15), and the abscissa against the rightmost branch,
* 2×2 random systems: against the same method at M = 40 (a converged discretisation), abscissa and roots,
* DWTCP delayed decrease branch (``dwtcp_delay_spectrum`` without the critical-parameter search).

Run: ``.venv/bin/python benchmarks/charroots.py [--quick]``. Prints a table and one JSON line.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.special import lambertw

from dwtcp_fluid.analysis.charroots import char_roots
from dwtcp_fluid.models.dwtcp import DwtcpFluid
from dwtcp_fluid.params import DwtcpParams, LinkParams
from dwtcp_fluid.studies.dwtcp.analysis_charroots import dwtcp_delay_spectrum

TOL = 1e-10


def _sorted(lam: np.ndarray, tau: np.ndarray) -> np.ndarray:
    order = np.lexsort((lam.imag, -np.round(lam.real * tau[:, None], 9)), axis=-1)
    return np.take_along_axis(lam, order, axis=-1)


def _rate(fn, n: int, repeat: int = 2) -> float:
    fn()  # warm caches
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def _threads(A0, A1, tau, **kw):
    parts = np.array_split(np.arange(len(tau)), 2)
    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(lambda ix: char_roots(A0[ix], A1[ix], tau[ix], **kw), parts))


def case_scalar(B: int, K: int, M: int, rng) -> dict:
    a = rng.uniform(-2, 1, B)
    b = rng.uniform(-3, 3, B)
    tau = rng.uniform(0.2, 3, B)
    A0, A1 = a[:, None, None], b[:, None, None]
    r = char_roots(A0, A1, tau, n_roots=K, M=M)
    ks = np.arange(-15, 16)
    lam = _sorted(
        a[:, None] + lambertw((b * tau * np.exp(-a * tau))[:, None], k=ks[None]) / tau[:, None], tau
    )
    # distance of each returned root to the nearest Lambert-W root (a conjugate pair cut at K sorts either way)
    dist = np.min(np.abs(r.roots[:, :, None] - lam[:, None, :]), axis=-1)
    err = dist * tau[:, None] / np.maximum(1.0, np.abs(r.roots) * tau[:, None])
    return {
        "case": f"scalar, K={K}, M={M}",
        "systems_per_s": _rate(lambda: char_roots(A0, A1, tau, n_roots=K, M=M), B),
        "systems_per_s_2threads": _rate(lambda: _threads(A0, A1, tau, n_roots=K, M=M), B),
        "loop_per_s": _rate(
            lambda: [char_roots(A0[i], A1[i], tau[i], n_roots=K, M=M) for i in range(200)], 200, 1
        ),
        "max_err": float(np.nanmax(err)),
        "frac_within_tol": float(np.mean(np.all(err < TOL, axis=-1))),
        "abscissa_err": float(np.max(np.abs(r.abscissa - lam[:, 0].real) * tau)),
    }


def case_2x2(B: int, K: int, M: int, rng) -> dict:
    A0 = rng.normal(size=(B, 2, 2))
    A1 = rng.normal(size=(B, 2, 2))
    tau = rng.uniform(0.2, 3, B)
    r = char_roots(A0, A1, tau, n_roots=K, M=M)
    ref = char_roots(A0, A1, tau, n_roots=K + 2, M=40)
    err = (
        np.abs(r.roots - ref.roots[:, :K])
        * tau[:, None]
        / np.maximum(1.0, np.abs(ref.roots[:, :K]) * tau[:, None])
    )
    return {
        "case": f"2x2, K={K}, M={M}",
        "systems_per_s": _rate(lambda: char_roots(A0, A1, tau, n_roots=K, M=M), B),
        "systems_per_s_2threads": _rate(lambda: _threads(A0, A1, tau, n_roots=K, M=M), B),
        "loop_per_s": _rate(
            lambda: [char_roots(A0[i], A1[i], tau[i], n_roots=K, M=M) for i in range(200)], 200, 1
        ),
        "max_err": float(np.nanmax(err)),
        "frac_within_tol": float(np.mean(np.all(err < TOL, axis=-1))),
        "abscissa_err": float(np.max(np.abs(r.abscissa - ref.abscissa) * tau)),
        "max_residual": float(np.nanmax(r.residual)),
    }


def case_dwtcp(B: int, M: int, rng) -> dict:
    P = DwtcpParams(link=LinkParams("10Gbps", "100us"), flows=10, beta=0.001)
    p = DwtcpFluid().numeric_params(P)
    p["beta"] = np.geomspace(1e-4, 0.5, B)
    kbar = rng.uniform(0.1, 100.0, B) * P.bdp
    out = dwtcp_delay_spectrum(p, kbar, n_roots=2, M=M, critical=False)
    ref = dwtcp_delay_spectrum(p, kbar, n_roots=2, M=40, critical=False)
    err = np.abs(out["abscissa"] - ref["abscissa"]) * P.tau
    return {
        "case": f"DWTCP delayed decrease branch, K=2, M={M}",
        "systems_per_s": _rate(lambda: dwtcp_delay_spectrum(p, kbar, n_roots=2, M=M, critical=False), B),
        "abscissa_err": float(np.max(err)),
        "frac_within_tol": float(np.mean(err < TOL)),
    }


def main(quick: bool = False) -> dict:
    rng = np.random.default_rng(0)
    B = 1000 if quick else 5000
    rows = [
        case_scalar(B, 4, 12, rng),
        case_scalar(B, 4, 16, rng),
        case_scalar(B, 8, 24, rng),
        case_2x2(B, 2, 12, rng),
        case_2x2(B, 4, 16, rng),
        case_dwtcp(B, 16, rng),
    ]
    print(f"{'case':44s} {'sys/s':>9s} {'2 thr':>9s} {'loop':>7s} {'max err':>9s} {'ok@1e-10':>8s}")
    for r in rows:
        print(
            f"{r['case']:44s} {r['systems_per_s']:9.0f} {r.get('systems_per_s_2threads', float('nan')):9.0f} "
            f"{r.get('loop_per_s', float('nan')):7.0f} {r.get('max_err', r['abscissa_err']):9.1e} "
            f"{r['frac_within_tol']:8.4f}"
        )
    summary = {"benchmark": "charroots", "target_systems_per_s": 2000, "tol": TOL, "batch": B, "rows": rows}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
