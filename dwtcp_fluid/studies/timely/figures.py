"""TIMELY and Patched TIMELY in [PROXY]'s incast (packet core): who gets the fair share, RTT CDFs, RTT noise."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from ...packet.scenarios import run_many
from ...packet.scenarios_incast import (
    DRAW_SEEDS,
    INCAST_FLOWS,
    NOISE_US,
    flow_rates,
    incast_run,
    rtt_samples_us,
)
from .plots import plot_timely_incast

#: Simulated time of every run of the figure (s): long enough for the rates to settle, short enough for CI.
DURATION = 0.1
#: [PROXY] §2.4's main noise setting (µs).
NOISE_MAIN = 25.0
#: "Reaches the fair share": throughput within this fraction of C/N over the summary window.
FAIR_BAND = 0.25


def build_timely_incast(quick: bool) -> dict[str, Any]:
    """40 flows at 10 Gbps, 20 µs: TIMELY, Patched TIMELY, DCTCP at 25 µs of noise; both TIMELYs over the noise
    sweep. ``quick`` is ignored: the figure is already CI-sized."""
    laws = ("timely", "timely-patched")
    main = run_many([incast_run(law, noise_us=NOISE_MAIN, duration=DURATION) for law in (*laws, "dctcp")])
    sweep = run_many([incast_run(law, noise_us=x, duration=DURATION) for law in laws for x in NOISE_US])
    draws = run_many([incast_run(law, seed=s, duration=DURATION) for law in laws for s in DRAW_SEEDS])
    out: dict[str, Any] = {"flows": INCAST_FLOWS, "noise_us": NOISE_MAIN, "noise": list(NOISE_US)}
    out["rates"] = {law: flow_rates(r) for law, r in zip(laws, main[:2], strict=True)}
    out["rtt_us"] = {law: rtt_samples_us(r) for law, r in zip((*laws, "dctcp"), main, strict=True)}
    out["jain"] = {law: float(r["jain_index"]) for law, r in zip(laws, main[:2], strict=True)}
    k = len(DRAW_SEEDS)
    out["draw_seeds"] = list(DRAW_SEEDS)
    out["fair_band"] = FAIR_BAND
    out["draw_within"] = {
        law: np.asarray(
            [
                np.mean(np.abs(flow_rates(r) * INCAST_FLOWS - 1) <= FAIR_BAND)
                for r in draws[i * k : (i + 1) * k]
            ]
        )
        for i, law in enumerate(laws)
    }
    n = len(NOISE_US)
    for key, field in (("noise_util", "utilization"), ("noise_jain", "jain_index")):
        out[key] = {
            law: np.asarray([r[field] for r in sweep[i * n : (i + 1) * n]]) for i, law in enumerate(laws)
        }
    return out


def _spread(r: np.ndarray) -> float:
    return float(r.max() / max(r.min(), 1e-12))


def _claim_unfair(data: dict[str, Any]) -> tuple[bool, str]:
    s = _spread(data["rates"]["timely"])
    return s >= 3.0, f"TIMELY: fastest / slowest flow = {s:.1f}"


def _claim_patched(data: dict[str, Any]) -> tuple[bool, str]:
    a, b = data["jain"]["timely"], data["jain"]["timely-patched"]
    return b > a and b >= 0.9, f"Jain index: Patched {b:.3f} vs TIMELY {a:.3f}"


def _claim_noise(data: dict[str, Any]) -> tuple[bool, str]:
    u = data["noise_util"]["timely"]
    i25, i100 = NOISE_US.index(25.0), NOISE_US.index(100.0)
    ok = u[i25] >= 0.9 and u[i100] <= 0.5 * u[i25]
    return ok, f"TIMELY utilization {u[i25]:.3f} at 25 µs, {u[i100]:.3f} at 100 µs"


def _claim_draws(data: dict[str, Any]) -> tuple[bool, str]:
    t, p = data["draw_within"]["timely"], data["draw_within"]["timely-patched"]
    ok = float(t.max()) < 0.5 and float(p.min()) > 0.6
    return (
        ok,
        f"flows within ±25 % of C/N per seed: TIMELY {np.round(t, 2).tolist()}, Patched {np.round(p, 2).tolist()}",
    )


def _claim_rtt(data: dict[str, Any]) -> tuple[bool, str]:
    t, d = (float(np.median(data["rtt_us"][k])) for k in ("timely", "dctcp"))
    return t < d, f"median RTT: TIMELY {t:.1f} µs, DCTCP {d:.1f} µs"


register(
    Figure(
        name="timely_incast",
        title="TIMELY vs Patched TIMELY: [PROXY]'s incast (10 clients × 4 connections), RTT noise",
        build=build_timely_incast,
        plot=plot_timely_incast,
        claims=(
            Claim(
                "TIMELY gives some flows consistently higher rates: fastest ≥ 3× slowest ([PROXY] Fig. 3)",
                _claim_unfair,
            ),
            Claim(
                "Patched TIMELY allocates more fairly than TIMELY, Jain ≥ 0.9 ([PROXY] Fig. 4)",
                _claim_patched,
            ),
            Claim(
                "TIMELY degrades with noise: utilization ≥ 0.9 at 25 µs, at most half of it at 100 µs ([PROXY] §2.4)",
                _claim_noise,
            ),
            Claim("TIMELY's median RTT is below DCTCP's (K = 65) in the incast ([PROXY] Fig. 1)", _claim_rtt),
            Claim(
                "over 5 random draws, fewer than half of TIMELY's flows reach ±25 % of the fair share and more than"
                " 60 % of Patched TIMELY's do ([PROXY] Figs. 3, 4)",
                _claim_draws,
            ),
        ),
    )
)
