"""CUBIC: the packet law against the hybrid fluid model, and the loss cycle against its closed form ([CUBIC]
RFC 8312; [DCTCP-WAN]'s CUBIC claims; ``proofs/cubic.md``)."""

from __future__ import annotations

from typing import Any

from ...experiments.figure import Claim, Figure, register
from ...models.cubic import CubicParams
from ...params import LinkParams
from .analysis import cycle_summary, run_cubic
from .checks import SETTINGS, TOLERANCES, compare_cubic
from .derive import closed_form
from .plots import plot_cubic

__all__ = ["build_cubic", "BUFFERS"]

#: Buffers (packets) of the period/utilization sweep: one flow, 950 Mbps, 20 ms (BDP 1583), c = 400.
BUFFERS = (100, 200, 400, 700, 2000, 3000)
#: The setting whose traces are drawn.
TRACED = "wan-1"


def _sweep_params(buffer: float, fc: bool) -> CubicParams:
    return CubicParams(link=LinkParams(capacity="950Mbps", rtt="20ms"), flows=(1,), buffer=float(buffer), c=400.0,
                       fast_convergence=fc)  # fmt: skip


def build_cubic(quick: bool) -> dict[str, Any]:
    """The cross-check's settings through both cores (traces of :data:`TRACED`), and the hybrid model with and
    without fast convergence at each of :data:`BUFFERS` next to the closed form. ``quick`` is ignored: the
    figure is already CI-sized (about a minute)."""
    rows = compare_cubic(SETTINGS, traces=(TRACED,))
    sweep = []
    for b in BUFFERS:
        cf = closed_form(_sweep_params(b, False))
        row: dict[str, Any] = {
            "buffer": b,
            "closed": {k: cf[k] for k in ("period", "period_fc", "utilization")},
        }
        for fc in (False, True):
            P = _sweep_params(b, fc)
            s = cycle_summary(run_cubic(P, 8 * cf["period"], sync="all"))
            row["fc" if fc else "plain"] = {k: s[k] for k in ("period_s", "utilization", "queue_min")}
        sweep.append(row)
    bdp = _sweep_params(100, False).bdp
    return {"rows": rows, "sweep": sweep, "bdp": bdp, "busy_buffer": closed_form(_sweep_params(100, False))[
        "busy_buffer"]}  # fmt: skip


def _c_packet(data: dict[str, Any]) -> tuple[bool, str]:
    rows = data["rows"]
    ok = all(r["agree"] and r["class"] == "loss cycle" for r in rows)
    txt = ", ".join(
        f"{r['setting']} {r['packet']['period_s']:.3g}/{r['fluid']['period_s']:.3g} s" for r in rows
    )
    return ok, "period packet/fluid: " + txt


def _c_plain(data: dict[str, Any]) -> tuple[bool, str]:
    err = [r["plain"]["period_s"] / r["closed"]["period"] - 1 for r in data["sweep"]]
    return max(map(abs, err)) <= 0.02, f"largest |period/K − 1| = {max(map(abs, err)):.4f} over B = 100–3000"


def _c_fc(data: dict[str, Any]) -> tuple[bool, str]:
    ratio = [r["fc"]["period_s"] / r["closed"]["period"] for r in data["sweep"]]
    top = [r["closed"]["period_fc"] / r["closed"]["period"] for r in data["sweep"]][0]
    ok = all(1.0 < x < top for x in ratio)
    return ok, f"period/K with fast convergence {min(ratio):.3f}–{max(ratio):.3f} (τ → 0 bound {top:.3f})"


def _c_util(data: dict[str, Any]) -> tuple[bool, str]:
    sw, bb = data["sweep"], data["busy_buffer"]
    busy = [r["plain"]["utilization"] for r in sw if r["buffer"] >= bb]
    idle = [(r["plain"]["utilization"], r["closed"]["utilization"]) for r in sw if r["buffer"] < bb]
    star = next(r for r in data["rows"] if r["setting"] == "star-2")["packet"]["utilization"]
    wan = next(r for r in data["rows"] if r["setting"] == "wan-1")["packet"]["utilization"]
    ok = min(busy) >= 0.999 and max(abs(a - b) for a, b in idle) <= 0.005 and star >= 0.99 and wan < 0.99
    return ok, (
        f"B ≥ {bb:.0f}: fluid utilization ≥ {min(busy):.4f}; below: fluid − closed form ≤ "
        f"{max(abs(a - b) for a, b in idle):.4f}; packet star {star:.3f}, WAN B = 200 {wan:.3f}"
    )


register(
    Figure(
        name="cubic_cycle",
        title="CUBIC: packet law vs hybrid fluid model, and the loss cycle vs its closed form",
        build=build_cubic,
        plot=plot_cubic,
        claims=(
            Claim(
                "packet core vs the hybrid fluid model at 5 settings (N = 1, 2, 10; B below and above the busy "
                f"buffer; [DCTCP-WAN]'s star): period within {TOLERANCES['period'].rel:.0%}, mean queue and queue range "
                f"within {TOLERANCES['queue_mean'].abs:.0%}/{TOLERANCES['queue_range'].abs:.0%} of B, utilization within "
                f"{TOLERANCES['utilization'].abs}, per-flow share within {TOLERANCES['share'].abs}",
                _c_packet,
            ),
            Claim(
                "without fast convergence the fluid cycle is K = ∛((1 − β)W*/c) within 2 % (proofs/cubic.md)",
                _c_plain,
            ),
            Claim(
                "fast convergence (RFC 8312 §4.6, left out of its §5.1 analysis) lengthens the mean cycle above K, "
                "below the τ → 0 pair (2K_fc + K)/2",
                _c_fc,
            ),
            Claim(
                "[DCTCP-WAN]'s 'massive throughput drop on loss': only below B = (1 − β)/β·BDP — REFUTED at its "
                "star (utilization 1 in the packet core); shown on the WAN path with B = 200",
                _c_util,
            ),
        ),
        slow=True,  # minutes of CPU: make test-all and CI check it
    )
)
