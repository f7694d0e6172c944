"""Swift's claims (packet core and fluid model at the cross-check's settings): the queue held at its target,
fairness between flows that start apart, and the stability verdict of ``proofs/swift.md`` in both cores."""

from __future__ import annotations

from typing import Any

from ...experiments.figure import Claim, Figure, register
from ...judge import run_check
from .analysis import critical_beta, fixed_point, normalized
from .checks import CHECK
from .plots import plot_swift_claims


def build_swift_claims(quick: bool) -> dict[str, Any]:
    """The cross-check's settings through both cores, with each setting's fixed point and critical β.
    ``quick`` is ignored: the settings are already CI-sized."""
    res = run_check(CHECK)
    rows = []
    for s, r in zip(CHECK.settings, res.rows, strict=True):
        w, q = fixed_point(s.params())
        rr, k, _ = normalized(s.params())
        row = CHECK.row(r)  # type: ignore[misc]
        rows.append({**row, "w_star": w, "q_star": q, "beta": s.beta, "beta_c": critical_beta(rr, k)})
    return {"rows": rows}


def _stable(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in data["rows"] if r["class"] == "stable"]


def _claim_target(data: dict[str, Any]) -> tuple[bool, str]:
    rows = _stable(data)
    err = [abs(r["packet"]["queue_mean"] - r["q_star"]) for r in rows]
    ok = all(e <= max(4.0, 0.5 * r["q_star"]) for e, r in zip(err, rows, strict=True))
    return ok, "packet mean queue − q* (packets): " + ", ".join(
        f"{r['setting']} {r['packet']['queue_mean']:.1f} vs {r['q_star']:.1f}" for r in rows
    )


def _claim_fair(data: dict[str, Any]) -> tuple[bool, str]:
    rows = _stable(data)
    ratio = [
        max(r["packet"]["w_1"], r["packet"]["w_2"]) / min(r["packet"]["w_1"], r["packet"]["w_2"])
        for r in rows
    ]
    jain = [r["packet"]["jain"] for r in rows]
    ok = max(ratio) <= 1.1 and min(jain) >= 0.95
    return ok, f"group windows within {max(ratio):.3f}× of each other; per-flow Jain ≥ {min(jain):.3f}"


def _claim_region(data: dict[str, Any]) -> tuple[bool, str]:
    rows = data["rows"]
    ok = all((r["beta"] < r["beta_c"]) == (r["class"] == "stable") for r in rows) and all(
        r["agree"] for r in rows
    )
    ok = ok and any(r["class"] == "oscillating" for r in rows) and any(r["class"] == "stable" for r in rows)
    return ok, "; ".join(
        f"{r['setting']}: β = {r['beta']:g}, β_c = {r['beta_c']:.3f}, {r['class']}, "
        f"util {100 * r['packet']['utilization']:.1f} % / {100 * r['fluid']['utilization']:.1f} %"
        for r in rows
    )


register(
    Figure(
        name="swift_claims",
        title="Swift: the queue at its target, fairness, and the stability region in both cores",
        build=build_swift_claims,
        plot=plot_swift_claims,
        slow=True,
        claims=(
            Claim(
                "Swift holds the queue near its target: at every stable setting the packet core's mean queue is"
                " within max(4, 50 %) of the fixed point q* = C(T* − d) − 1 ([Swift] §3.5)",
                _claim_target,
            ),
            Claim(
                "Flows that start at 2 and 20 packets end within 10 % of each other, per-flow Jain ≥ 0.95 (AIMD on a"
                " shared delay, [Swift] Algorithm 1)",
                _claim_fair,
            ),
            Claim(
                "The linear verdict (β < β_c, proofs/swift.md) is what both cores do: stable settings hold full"
                " utilization, β = 3 > β_c empties the queue every cycle, and the cross-check agrees at every setting",
                _claim_region,
            ),
        ),
    )
)
