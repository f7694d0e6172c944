"""DCQCN's claims ([ECN-OR-DELAY]) with verdicts: the stability region over (N, delay) and the unique fixed point.

The stability boundary τ_c(N) comes from the characteristic roots of the linearized fluid model
(:func:`.derive.critical_delays`, ``proofs/dcqcn.md``); the fluid runs (batched JAX solver) confirm it on both
sides at one delay, and show that starts far apart end at the one fixed point.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from ...models.dcqcn import DcqcnFluid
from .analysis import fixed_point
from .derive import FLOWS, SETTING, critical_delays
from .plots import plot_dcqcn_claims

#: The delay of the N sweep of fluid runs (s): between τ_c(2) and the peak of τ_c(N) at 100 Gbps.
D_SWEEP = 63e-6
#: N of the fluid runs at that delay.
RUN_FLOWS = (2, 4, 16)
#: A fluid run at rest: queue amplitude over the last half at most this fraction of its mean.
REST = 0.05
DURATION = 0.06
#: A fluid run oscillates: amplitude above this fraction of its mean queue.
SWING = 0.1


def _runs(params: list[Any], hist: list[list[float]]) -> list[np.ndarray]:
    from ...dde import solve

    sol = solve(DcqcnFluid(), params, np.array(hist), (0.0, DURATION), method="jax", check=False)
    t = np.asarray(sol.t)
    out = []
    for k in range(len(params)):
        if sol.status[k] != 0:
            raise RuntimeError(f"fluid run {k} failed: {sol.message_of(k)}")
        out.append(np.column_stack([t, np.asarray(sol.x[k])]))
    return out


def _swing(tx: np.ndarray) -> float:
    q = tx[tx[:, 0] >= DURATION / 2, 4]
    return 0.5 * (float(np.percentile(q, 95)) - float(np.percentile(q, 5))) / max(float(q.mean()), 1.0)


def build_dcqcn_claims(quick: bool) -> dict[str, Any]:
    """τ_c(N) and τ_c for halved/doubled gains at 100 Gbps; fluid runs at 63 µs for N = 2, 4, 16 (from 0.9·q*);
    two runs at 100 Gbps, 50 µs, N = 10 from 30 % and 100 % of line rate (α = α*). ``quick`` is ignored."""
    tc = critical_delays()
    sweep = [SETTING.replace(flows=n, link=SETTING.link.replace(rtt=D_SWEEP)) for n in RUN_FLOWS]
    hist = []
    for P in sweep:
        fp = fixed_point(P, 120)
        hist.append([fp.R_C, fp.R_T, fp.alpha, 0.9 * fp.q])
    fp10 = fixed_point(SETTING, 120)
    C = float(SETTING.link.C)
    starts = [[0.3 * C / 10, 0.3 * C / 10, fp10.alpha, 0.0], [C, C, fp10.alpha, 0.0]]
    runs = _runs(sweep + [SETTING, SETTING], hist + starts)
    return {
        "flows": list(FLOWS),
        "tau_c_us": tc["flows"] * 1e6,
        "gains_tau_c_us": tc["gains"] * 1e6,
        "d_sweep_us": D_SWEEP * 1e6,
        "run_flows": list(RUN_FLOWS),
        "runs": runs[: len(RUN_FLOWS)],
        "swings": [_swing(r) for r in runs[: len(RUN_FLOWS)]],
        "starts": runs[len(RUN_FLOWS) :],
        "q_star": fp10.q,
        "sign_changes": fp10.sign_changes,
    }


def _claim_n(data: dict[str, Any]) -> tuple[bool, str]:
    tc = np.asarray(data["tau_c_us"])
    i = int(np.nanargmax(tc))
    sw = data["swings"]
    ok = 0 < i < tc.size - 1 and sw[0] > SWING and sw[1] <= REST and sw[2] > SWING
    return ok, (
        f"τ_c(N) peaks at N = {data['flows'][i]} ({tc[i]:.1f} µs; N = 2: {tc[0]:.1f}, N = 20: {tc[-1]:.1f}); at "
        f"{data['d_sweep_us']:g} µs the fluid swings {sw[0]:.2f}, {sw[1]:.3f}, {sw[2]:.2f} for N = "
        f"{', '.join(map(str, data['run_flows']))}"
    )


def _claim_delay(data: dict[str, Any]) -> tuple[bool, str]:
    from .derive import _one_crossing

    ok, detail = _one_crossing()
    return ok, detail


def _claim_unique(data: dict[str, Any]) -> tuple[bool, str]:
    q = [float(r[r[:, 0] >= DURATION * 0.8, 4].mean()) for r in data["starts"]]
    ok = data["sign_changes"] == 1 and all(abs(v - data["q_star"]) <= 0.05 * data["q_star"] for v in q)
    return (
        ok,
        f"q* = {data['q_star']:.2f}; runs from 30 % and 100 % of line rate end at {q[0]:.2f}, {q[1]:.2f}",
    )


def _claim_gains(data: dict[str, Any]) -> tuple[bool, str]:
    g = np.asarray(data["gains_tau_c_us"])
    base = float(np.asarray(data["tau_c_us"])[data["flows"].index(10)])
    return bool(
        g[0] > base > g[1]
    ), f"τ_c at N = 10: R_AI/2 {g[0]:.1f}, R_AI {base:.1f}, 2·R_AI {g[1]:.1f} µs"


register(
    Figure(
        name="dcqcn_claims",
        title="DCQCN ([DCQCN] fluid model): stability region over N and delay, unique fixed point",
        build=build_dcqcn_claims,
        plot=plot_dcqcn_claims,
        slow=True,
        claims=(
            Claim(
                "REPRODUCED: stability is non-monotonic in N ([ECN-OR-DELAY]): at 100 Gbps τ_c(N) has an interior"
                " maximum, and at 63 µs N = 2 and 16 oscillate while N = 4 rests",
                _claim_n,
            ),
            Claim(
                "REFUTED at these settings: stability is non-monotonic in the delay ([ECN-OR-DELAY]) — along"
                " τ* = 5-400 µs the abscissa crosses zero once for every N = 2-20 (100 Gbps)",
                _claim_delay,
            ),
            Claim(
                "REPRODUCED: DCQCN has a unique fixed point ([ECN-OR-DELAY]; TIMELY has a continuum,"
                " proofs/timely.md): one root of (D3) on the ramp, and starts far apart end at it",
                _claim_unique,
            ),
            Claim("a larger R_AI shrinks the stable delay range ([DCQCN] §5 gains)", _claim_gains),
        ),
    )
)
