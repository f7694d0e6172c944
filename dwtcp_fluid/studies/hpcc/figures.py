"""HPCC's claims in the packet core, each with a verdict: "near-zero queue at full utilization" (against the closed
form of ``proofs/hpcc.md``) and the convergence to the fair share after a join (HPCC, HPCC-PINT)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim, Figure, register
from ...params import LinkParams
from .checks_runs import Setting, packet_run, predicted
from .plots import plot_hpcc_claims

#: The links: the queue sweep at 100 Gbps, 20 µs (B·T = 167 packets of 1500 B), the joins at 100 Gbps, 10 µs
#: (B·T = 83.3); W_AI sized for N_exp = 10 flows.
CAPACITY, RTT, JOIN_RTT = "100Gbps", "20us", "10us"
N_EXP = 10
#: Flow counts of the queue sweep (N_exp/5 … 4·N_exp).
FLOWS = (2, 5, 10, 20, 40)
#: The join: a second flow starts JOIN base RTTs after the first; the run lasts JOIN + AFTER base RTTs.
JOIN, AFTER = 50, 400
#: "Within 10 % of the fair share": every flow's throughput (smoothed over SMOOTH base RTTs) within this band of the
#: mean of the flows, from then to the end of the run.
BAND, SMOOTH = 0.10, 2
#: The join variants: (label, law, law parameters of the joining flow, of the first flow).
JOINS = (
    ("HPCC", "hpcc", {}, {}),
    ("HPCC-PINT, p = 1/16", "hpcc-pint", {"pint_prob": 1 / 16}, {"pint_prob": 1 / 16}),
    ("HPCC, joiner at 0.1·B·T", "hpcc", {"w0": 0.1}, {}),
)


def join_run(law: str, joiner: dict[str, float], first: dict[str, float]) -> dict[str, Any]:
    """Two flows, the second joining after JOIN base RTTs: per-flow throughput (fraction of C) per chunk, time in
    base RTTs after the join, and the time after which both stay within BAND of their mean."""
    from ...packet import build, run
    from ...packet.laws import get_law

    link = LinkParams(capacity=CAPACITY, rtt=JOIN_RTT)
    d = float(link.d)
    pr = build(
        [get_law(law), get_law(law)],
        link=link,
        flows=2,
        duration=(JOIN + AFTER) * d,
        starts=[0.0, JOIN * d],
        buffer=4000,
        trace_points=2 * (JOIN + AFTER),
        start_jitter=False,
        law_params=[first, joiner],
        law_of_flow=[0, 1],
    )
    rec = run(pr)["records"]
    half = len(rec["q_end"]) // 2
    U = rec["alpha_sum"][half:].sum(0) / np.maximum(rec["active"][half:].sum(0), 1)  # the law's traced U
    dl = np.asarray(rec["delivered"], float)
    chunk = pr.duration / dl.shape[0]
    thr = dl / (chunk * float(link.C))
    t = (np.arange(dl.shape[0]) + 1) * chunk / d - JOIN
    k = max(1, int(round(SMOOTH * d / chunk)))
    sm = np.stack([np.convolve(thr[:, i], np.ones(k) / k, mode="same") for i in range(2)], axis=1)
    after = t > SMOOTH
    err = np.max(np.abs(sm / np.maximum(sm.mean(axis=1, keepdims=True), 1e-9) - 1.0), axis=1)
    bad = np.nonzero(after & (err > BAND) & (t < AFTER - SMOOTH))[0]
    t_conv = float(t[bad[-1] + 1]) if bad.size else float(t[after][0])
    return {"t": t, "thr": thr, "t_conv": t_conv, "U": U[:2].tolist(), "bdp": float(link.C) * d}


def ai_only_rtts(e0: float, kappa: float, eta: float = 0.95) -> float:
    """RTTs for the relative window difference of two flows to fall from e0 to BAND when only the additive
    increase equalizes: each update multiplies the difference by η/U* = η/(η + κ) (``proofs/hpcc.md``)."""
    return float(np.log(BAND / e0) / np.log(eta / (eta + kappa)))


def build_hpcc_claims(quick: bool) -> dict[str, Any]:
    """The queue sweep over N and the three joins (``quick`` is ignored: the figure is CI-sized)."""
    sweep = []
    for n in FLOWS:
        s = Setting(f"n{n}", n, CAPACITY, RTT, rtts=max(150, 4 * n))
        sweep.append({"flows": n, "packet": packet_run(s), "closed": predicted(s)})
    joins = {label: join_run(law, j, f) for label, law, j, f in JOINS}
    kappa = 2 * (1 - 0.95) / N_EXP  # two flows, W_AI sized for N_exp
    # the joiner at w0·B·T against the first flow at (η + κ)·B·T, both scaled alike by the first decrease
    w1, w2 = 0.95 + kappa, 0.1
    e0 = 2 * (w1 - w2) / (w1 + w2)
    return {"sweep": sweep, "joins": joins, "ai_only": ai_only_rtts(e0, kappa), "e0": e0, "kappa2": kappa}


def _row(data: dict[str, Any], n: int) -> dict[str, Any]:
    return next(r for r in data["sweep"] if r["flows"] == n)


def _claim_zero_queue(data: dict[str, Any]) -> tuple[bool, str]:
    r = _row(data, N_EXP)
    q = r["packet"]["queue_mean"] / r["closed"]["bdp"]
    u = r["packet"]["utilization"]
    return q <= 0.05 and u >= 0.97, f"N = N_exp = {N_EXP}: queue {q:.3f}·B·T, utilization {u:.3f}"


def _claim_standing_queue(data: dict[str, Any]) -> tuple[bool, str]:
    r = _row(data, 4 * N_EXP)
    bdp = r["closed"]["bdp"]
    qp, qc = r["packet"]["queue_mean"] / bdp, r["closed"]["queue_mean"] / bdp
    return abs(
        qp - qc
    ) <= 0.07 and qp >= 0.1, f"N = {4 * N_EXP}: queue {qp:.3f}·B·T, closed form {qc:.3f}·B·T"


def _claim_underuse(data: dict[str, Any]) -> tuple[bool, str]:
    r = _row(data, 2)
    up, uc = r["packet"]["utilization"], r["closed"]["utilization"]
    return abs(up - uc) <= 0.03 and up < 0.98, f"N = 2: utilization {up:.3f}, closed form η + κ = {uc:.3f}"


def _claim_join(data: dict[str, Any]) -> tuple[bool, str]:
    t = data["joins"]["HPCC"]["t_conv"]
    return t <= 20.0, f"HPCC: both flows within ±10 % of their mean {t:.1f} RTTs after the join"


def _claim_pint(data: dict[str, Any]) -> tuple[bool, str]:
    a, b = data["joins"]["HPCC"]["t_conv"], data["joins"]["HPCC-PINT, p = 1/16"]["t_conv"]
    return b <= max(4 * a, 60.0), f"HPCC-PINT (1 packet in 16 carries U): {b:.1f} RTTs vs HPCC {a:.1f}"


def _claim_ai(data: dict[str, Any]) -> tuple[bool, str]:
    j = data["joins"]["HPCC, joiner at 0.1·B·T"]
    t, pred = j["t_conv"], data["ai_only"]
    dU = j["U"][1] - j["U"][0]
    ok = t >= 1.4 * pred and dU >= 0.4 / j["bdp"]
    return ok, (
        f"joiner at 0.1·B·T: not within ±10 % after {t:.0f} RTTs (additive increase alone: {pred:.0f}); its U reads"
        f" {dU:.4f} above the incumbent's ({dU * j['bdp']:.2f}/(B·T)), κ = {data['kappa2']:.3f}"
    )


register(
    Figure(
        name="hpcc_claims",
        title="HPCC ([HPCC] Alg. 1, packet core): queue and utilization vs N, convergence after a join",
        build=build_hpcc_claims,
        plot=plot_hpcc_claims,
        slow=True,
        claims=(
            Claim(
                "[HPCC]: near-zero queue at full utilization — holds at N·W_AI = (1 − η)·B·T (here N = N_exp = 10):"
                " queue ≤ 0.05·B·T, utilization ≥ 0.97",
                _claim_zero_queue,
            ),
            Claim(
                "it depends on N: at N = 4·N_exp a standing queue (N/N_exp − 1)(1 − η)·B·T stands (closed form within"
                " 0.07·B·T)",
                _claim_standing_queue,
            ),
            Claim(
                "and at N = N_exp/5 the link runs at η + κ < 1 (closed form within 0.03)",
                _claim_underuse,
            ),
            Claim(
                "[HPCC]: fast convergence — a flow joining at line rate is within ±10 % of the fair share within 20"
                " RTTs",
                _claim_join,
            ),
            Claim(
                "[PINT]: HPCC on one sampled value (p = 1/16) converges within 4× HPCC's time (or 60 RTTs)",
                _claim_pint,
            ),
            Claim(
                "the fast convergence is the line-rate start: a joiner at 0.1·B·T is still unfair after 1.4× the"
                " additive-increase time ln(0.1/e0)/ln(η/(η + κ)), because its paced packets leave with the"
                " incumbent's behind them: its U reads ≥ 0.4/(B·T) higher, and W_c* = W_AI·U/(U − η) magnifies that"
                " by 1/κ (fluid models with one U per link cannot show it)",
                _claim_ai,
            ),
        ),
    )
)
