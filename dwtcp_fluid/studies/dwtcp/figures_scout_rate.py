"""The Scout-rate claims of [DWTCP] (§3.3, §5.4 Fig. 9b) for the figure ``dwtcp_claims``.

:func:`build_scout_rate` runs :func:`.checks_scout_rate.rate_join_table` at the settings of
:data:`.figures_claims.SETTINGS` (keys ``rate_*``); :data:`SCOUT_RATE_CLAIMS` judge them, each with its verdict
(:func:`.report_overhead.record_scout_rate` records them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim
from .checks_scout_rate import datapath_table, rate_join_table

__all__ = ["build_scout_rate", "SCOUT_RATE_CLAIMS"]


def build_scout_rate(s: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """``rate``: the two-flow join at every static-α and dynamic-α Scout rate and seed; ``datapath``: per-flow vs
    per-datapath Scouts with many long flows on the testbed's host pairs; ``datapath_join``: the join with both
    flows on one host pair (dynamic α, one Scout per RTT)."""
    kw = dict(join=s["rate_join_s"], duration=s["rate_duration_s"], seeds=s["rate_seeds"])
    return {
        "rate": rate_join_table(
            s["rate_static"], s["rate_dynamic"], static_alpha=s["rate_static_alpha"], **kw
        ),
        "datapath": datapath_table(
            s["datapath_flows"],
            paths=s["datapath_paths"],
            duration=s["datapath_duration_s"],
            seeds=s["rate_seeds"],
        ),
        "datapath_join": rate_join_table((), (1.0,), scout_per="datapath", **kw),
    }


def _by(d: dict[str, Any], mode: str) -> dict[float, dict[str, Any]]:
    """Per Scout rate of ``mode`` ("static" / "dynamic"): seed means of the numeric fields, the reaction times in
    ms (None: never) and how many runs reacted."""
    rows = [r for r in d["scout_rate"]["rate"] if r["alpha"] == mode]
    out: dict[float, dict[str, Any]] = {}
    for x in sorted({r["rate"] for r in rows}):
        rs = [r for r in rows if r["rate"] == x]
        m: dict[str, Any] = {
            k: float(np.mean([r[k] for r in rs]))
            for k in (
                "bytes_sent",
                "bytes_served",
                "scout_drop_fraction",
                "utilization",
                "queue_mean",
                "jain_mean",
            )
        }
        react = [None if r["reaction_s"] is None else r["reaction_s"] * 1e3 for r in rs]
        hit = [v for v in react if v is not None]
        m |= {"react_ms": react, "reacted": len(hit), "runs": len(rs)}
        m["react_median_ms"] = float(np.median([np.inf if v is None else v for v in react]))
        out[x] = m
    return out


def _ms(v: list[float | None]) -> str:
    return "/".join("never" if x is None else f"{x:.1f}" for x in v)


def _c_overhead(d: dict[str, Any]) -> tuple[bool, str]:
    b = _by(d, "static")
    xs = sorted(b)
    sent = [b[x]["bytes_sent"] for x in xs]
    served = [b[x]["bytes_served"] for x in xs]
    drop = [b[x]["scout_drop_fraction"] for x in xs]
    ok = sent[-1] / sent[0] >= 0.9 * xs[-1] / xs[0] and all(
        a < c for a, c in zip(served, served[1:], strict=False)
    )
    ok = ok and 2.5 <= served[-1] / served[0] <= 5.0
    ok = ok and all(a < c for a, c in zip(drop, drop[1:], strict=False)) and drop[0] < 0.01 and drop[-1] > 0.5
    txt = ", ".join(
        f"x = {x:g}: sent {b[x]['bytes_sent']:.2%}, served {b[x]['bytes_served']:.2%}, LPQ drops "
        f"{b[x]['scout_drop_fraction']:.0%}"
        for x in xs
    )
    return ok, txt


def _c_high(d: dict[str, Any]) -> tuple[bool, str]:
    s, y = _by(d, "static"), _by(d, "dynamic")
    gain = s[1.0]["react_median_ms"] / s[max(s)]["react_median_ms"]
    ok = all(m["reacted"] == m["runs"] for m in s.values()) and 1.0 <= gain <= 2.0
    ok = ok and y[2.0]["reacted"] == y[2.0]["runs"] and y[1.0]["reacted"] < y[1.0]["runs"]
    ok = ok and y[4.0]["queue_mean"] > 5 * y[1.0]["queue_mean"]
    ok = ok and y[4.0]["react_median_ms"] == min(m["react_median_ms"] for m in y.values())
    return ok, (
        f"static α: reaction {_ms(s[1.0]['react_ms'])} ms at x = 1, {_ms(s[max(s)]['react_ms'])} ms at "
        f"x = {max(s):g} (median gain ×{gain:.2f}); dynamic α: x = 1 {_ms(y[1.0]['react_ms'])}, x = 2 "
        f"{_ms(y[2.0]['react_ms'])}, x = 4 {_ms(y[4.0]['react_ms'])} ms; mean queue x = 1 "
        f"{y[1.0]['queue_mean']:.1f}, x = 4 {y[4.0]['queue_mean']:.1f} packets"
    )


def _c_low(d: dict[str, Any]) -> tuple[bool, str]:
    y = _by(d, "dynamic")
    low = [x for x in y if x < 1.0]
    hits = [v for x in low for v in y[x]["react_ms"] if v is not None]
    runs = sum(y[x]["runs"] for x in low)
    one = y[1.0]["react_median_ms"]
    ok = bool(low) and len(hits) <= runs // 2 and np.isfinite(one) and all(v > 5 * one for v in hits)
    txt = "; ".join(f"x = {x:g}: {_ms(y[x]['react_ms'])} ms" for x in sorted(y) if x <= 1.0)
    return ok, f"{txt} ({len(hits)} of {runs} runs below one Scout per RTT react within the run)"


def _c_one(d: dict[str, Any]) -> tuple[bool, str]:
    s, y = _by(d, "static"), _by(d, "dynamic")
    ok = s[1.0]["scout_drop_fraction"] < 0.01 and y[1.0]["scout_drop_fraction"] < 0.01
    ok = ok and all(m["scout_drop_fraction"] > 0.1 for b in (s, y) for x, m in b.items() if x >= 2.0)
    ok = ok and min(s[1.0]["utilization"], y[1.0]["utilization"]) >= 0.94
    ok = ok and y[1.0]["reacted"] < y[1.0]["runs"] and y[1.0]["jain_mean"] < y[2.0]["jain_mean"] - 0.01
    return ok, (
        f"x = 1: LPQ drops {s[1.0]['scout_drop_fraction']:.0%} (static) / {y[1.0]['scout_drop_fraction']:.0%} "
        f"(dynamic), utilization {s[1.0]['utilization']:.1%} / {y[1.0]['utilization']:.1%}; x ≥ 2 drops "
        f"{min(m['scout_drop_fraction'] for b in (s, y) for x, m in b.items() if x >= 2.0):.0%}-"
        f"{max(m['scout_drop_fraction'] for b in (s, y) for x, m in b.items() if x >= 2.0):.0%}; dynamic α "
        f"reacts in {y[1.0]['reacted']} of {y[1.0]['runs']} runs at x = 1 (Jain {y[1.0]['jain_mean']:.3f}) and "
        f"{y[2.0]['reacted']} of {y[2.0]['runs']} at x = 2 (Jain {y[2.0]['jain_mean']:.3f})"
    )


def _c_datapath(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["scout_rate"]["datapath"]

    def mean(mode: str, n: int, k: str) -> float:
        return float(np.mean([r[k] for r in rows if r["scouts_per"] == mode and r["flows"] == n]))

    ok, txt = True, []
    for n in sorted({r["flows"] for r in rows}):
        paths = next(r["paths"] for r in rows if r["scouts_per"] == "datapath")
        cut = mean("flow", n, "bytes_sent") / mean("datapath", n, "bytes_sent")
        du = mean("datapath", n, "utilization") - mean("flow", n, "utilization")
        dj = mean("datapath", n, "jain_mean") - mean("flow", n, "jain_mean")
        qf, qd = mean("flow", n, "queue_mean"), mean("datapath", n, "queue_mean")
        ok = (
            ok
            and abs(cut / (n / paths) - 1) <= 0.02
            and abs(du) <= 0.005
            and abs(dj) <= 0.005
            and qd <= 1.1 * qf
        )
        txt.append(
            f"N = {n} on {paths} pairs: Scouts sent ÷{cut:.2f}, utilization {du:+.2%}, Jain {dj:+.4f}, mean queue "
            f"{qf:.1f} → {qd:.1f} packets"
        )
    one = [r for r in d["scout_rate"]["rate"] if r["alpha"] == "dynamic" and r["rate"] == 1.0]
    dp = d["scout_rate"]["datapath_join"]
    conv = [sum(r["convergence_s"] is not None for r in rs) for rs in (one, dp)]
    jain = [float(np.mean([r["jain_mean"] for r in rs])) for rs in (one, dp)]
    ok = ok and conv[1] < conv[0] and jain[1] < jain[0]
    txt.append(
        f"two flows on one pair, the second joining: converged after the join in {conv[1]} of {len(dp)} runs "
        f"(per-flow {conv[0]} of {len(one)}), Jain {jain[1]:.3f} (per-flow {jain[0]:.3f})"
    )
    return ok, "; ".join(txt)


SCOUT_RATE_CLAIMS: tuple[Claim, ...] = (
    Claim(
        "§5.4 Fig. 9b 'sub-RTT Scout injection significantly increases the Scout overhead, in bandwidth and in the "
        "Scout queue' (two flows, the second at 0.5 s; static α = 10; the flows' own Scouts at x = 1-8 per RTT): "
        "REPRODUCED — Scout bytes sent grow as x, served ones ~3.5× by x = 8, and the 10-Scout LPQ goes from no "
        "drops to dropping most Scouts",
        _c_overhead,
    ),
    Claim(
        "§3.3 'too high a Scout rate (sub-RTT) … not significant benefits for congestion detection': DEPENDS on α "
        "— with static α (detection alone) 8 Scouts per RTT react to the join at most 2× faster than one "
        "(REPRODUCED); with Algorithm 1's dynamic α every Scout ACK also doubles α, so x = 2 reacts on every seed "
        "where x = 1 does not, and x = 4 reacts fastest but holds a > 5× larger queue",
        _c_high,
    ),
    Claim(
        "§3.3 'too low a Scout rate (one packet every few RTTs) severely impacts the timeliness': REPRODUCED — "
        "with dynamic α at 1/2 and 1/4 Scout per RTT the incumbent flow cedes to within 10 % of its fair share in "
        "at most half the runs, and > 5× later than at one Scout per RTT",
        _c_low,
    ),
    Claim(
        "§5.4 'one Scout per RTT … high throughput and faster convergence without requiring larger Scout "
        "buffers': DEPENDS — REPRODUCED for the buffer (no LPQ drops at x = 1, > 10 % at x ≥ 2) and throughput "
        "(≥ 94 %); with dynamic α some seeds never converge after the join at x = 1 and Jain's index is below "
        "x = 2's",
        _c_one,
    ),
    Claim(
        "§3.3 per-datapath Scouts 'do not affect the performance, yet reduce the Scout overhead significantly': "
        "DEPENDS — with 10 and 20 long flows on the §6.2 testbed's 5 host pairs REPRODUCED (Scouts sent fall by "
        "the flows per pair, utilization and Jain's index within 0.5 %, the mean queue no higher); with two flows "
        "on one pair, the second joining (Fig. 9's setting), the pair converges after the join less often than "
        "per-flow Scouts and its Jain index is lower",
        _c_datapath,
    ),
)
