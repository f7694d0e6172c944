"""``dwtcp-fluid tune dctcp``: choose K and g over an operating range by gradients through the limit cycles;
``dwtcp-fluid tune dwtcp``: choose β and K on the Scout-faithful busy-period model (derivative-free)."""

from __future__ import annotations

import math
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from ..analysis.tune_objectives import DWTCP_OBJECTIVES, OBJECTIVES
from ..units import parse_time
from .app import app
from .common import UsageError, emit_json
from .flags import Use, declared
from .progress import progress_bar

tune_app = typer.Typer(
    help="Choose protocol parameters over an operating range by gradients through the fluid models.",
    no_args_is_help=True,
)
app.add_typer(tune_app, name="tune")


def _split(flag: str, text: str) -> tuple[str, str]:
    parts = str(text).split(":")
    if len(parts) == 1:
        return parts[0], parts[0]
    if len(parts) != 2 or not all(parts):
        raise UsageError(flag, text, "LO:HI or one value")
    return parts[0], parts[1]


def _rtt_range(text: str) -> tuple[float, float]:
    out = []
    for tok in _split("--rtt", text):
        try:
            v = parse_time(tok)
        except ValueError:
            raise UsageError("--rtt", text, 'times LO:HI with LO <= HI, e.g. "100us:300us"') from None
        if not (math.isfinite(v) and v > 0):
            raise UsageError("--rtt", text, 'times > 0 as LO:HI, e.g. "100us:300us"')
        out.append(v)
    if out[0] > out[1]:
        raise UsageError("--rtt", text, 'times LO:HI with LO <= HI, e.g. "100us:300us"')
    return out[0], out[1]


def _flow_range(text: str) -> tuple[int, int]:
    out = []
    for tok in _split("--flows", text):
        try:
            v = int(tok)
        except ValueError:
            raise UsageError("--flows", text, 'integers LO:HI with 1 <= LO <= HI, e.g. "2:100"') from None
        out.append(v)
    if not (1 <= out[0] <= out[1] <= 100_000):
        raise UsageError("--flows", text, 'integers LO:HI with 1 <= LO <= HI <= 100000, e.g. "2:100"')
    return out[0], out[1]


def _range(capacity: str, rtt: str, flows: str, points: int, packet_size: str) -> Any:
    """The TuneRange of the flags, or a one-line usage error naming the flag."""
    from ..studies.dctcp.tune import TuneRange

    d_rng, n_rng = _rtt_range(rtt), _flow_range(flows)
    try:
        return TuneRange(capacity, d_rng, n_rng, points, packet_size)
    except ValueError as e:
        flag = "--packet-size" if "packet_size" in str(e) else "--capacity"
        raise UsageError(flag, packet_size if flag == "--packet-size" else capacity, str(e)) from None


_HELP = (
    "Tune DCTCP's marking threshold K and EWMA gain g over an operating range ([DCTCP-A] fluid model with the"
    " physical queue floor).\n\nDefault objective: minimize the worst-case mean queue over the range (counted above"
    " the standing queue 2N - C*d that N windows of 2 packets hold at any K, g) subject to throughput >= 99 % and"
    " the cycle's return-map multiplier rho <= 0.9 at every operating point. The range is covered by a grid of"
    " --points per axis (corners and interior, geometric in RTT and N); SLSQP uses exact gradients from implicit"
    " differentiation of each point's periodic orbit."
)


#: The operating range both tuners cover: ranges of RTT and N.
_RANGE = {
    "rtt": Use(default="100us:300us", note='Here a range LO:HI ("100us:300us") or one value.'),
    "flows": Use(default="2:100", note='Here a range LO:HI ("2:100") or one value.'),
}


def _objectives(table: dict[str, str]) -> Use:
    return Use(note="; ".join(f"{k}: {v}" for k, v in table.items()) + ".")


def _max_seconds(value: float | None) -> float | None:
    from .flags import FLAGS

    bound = FLAGS["--max-seconds"].bound
    if value is not None and not bound.ok(value):
        raise UsageError("--max-seconds", value, bound.accepted("x"))
    return value


@tune_app.command("dctcp", help=_HELP)
@declared(**_RANGE, objective=_objectives(OBJECTIVES))
def dctcp(
    capacity: str,
    rtt: str,
    flows: str,
    objective: str,
    throughput_min: float,
    rho_max: float,
    points: int,
    packet_size: str,
    max_seconds: float | None,
    json: bool,
) -> None:
    from ..reports.tune import tune_dctcp_report

    if objective not in OBJECTIVES:
        raise UsageError("--objective", objective, "one of " + ", ".join(OBJECTIVES))
    rng = _range(capacity, rtt, flows, points, packet_size)
    with progress_bar("tune dctcp: SLSQP over K and g", "iterations (at most)") as bar:
        s = tune_dctcp_report(
            rng,
            objective=objective,
            throughput_min=throughput_min,
            rho_max=rho_max,
            max_seconds=_max_seconds(max_seconds),
            progress=bar,
        )
    if json:
        emit_json(s)
    else:
        out = Console()
        t = Table(title=f"tune dctcp: {s['objective_description']}", show_header=False)
        w = s["worst_point"]
        for k, v in [
            ("status", s["status"] if s["status"] == "ok" else f"{s['status']}: {s['message']}"),
            ("K", f"{s['K_packets']:.2f} packets"),
            ("g", f"{s['g']:.5f}"),
            ("objective", f"{s['objective_value']:.2f} packets"),
            ("worst point", f"rtt {w['rtt_s'] * 1e6:.0f} us, N = {w['flows']}"),
            ("throughput min", f"{s['throughput_min']:.4f} (required {throughput_min:g})"),
            ("rho max", f"{s['rho_max']:.4f} (allowed {rho_max:g})"),
            ("active constraints", "; ".join(s["active_constraints"]) or "none"),
            (
                "evaluations",
                f"{s['iterations']} SLSQP iterations, {s['cycle_solves']} cycle solves,"
                f" {s['period_maps']} period maps, {s['seconds']:.1f} s",
            ),  # fmt: skip
        ]:
            t.add_row(k, str(v))
        out.print(t)
    if s["status"] != "ok":
        raise typer.Exit(1)


_HELP_DWTCP = (
    "Tune DWTCP's decrease gain beta (the paper's byte convention) and target K (d_t = RTT + K*L/C, packets) over an"
    " operating range on the Scout-faithful busy-period model ([DWTCP] Algorithm 1 with the Scout served only in"
    " idle time; the model the packet core follows).\n\nDefault objective: minimize the worst-case mean queue over"
    " the range (DWTCP's standing queue included: beta sets it) subject to utilization >= 99 % and a steady queue"
    " (amplitude <= max(5, N) packets, the packet classes' oscillation threshold) at every operating point."
    " The model's observables are window statistics of a hybrid system with two regimes (standing queue, cycle):"
    " not differentiable across the regime boundary the optimum sits on, so the search is derivative-free: a"
    " batched compass search in (log beta, log K) from [DWTCP]'s beta = 0.001, K = 100, box beta in 1e-5..1e-2,"
    " K in 20..1000."
)


@tune_app.command("dwtcp", help=_HELP_DWTCP)
@declared(**_RANGE, objective=_objectives(DWTCP_OBJECTIVES))
def dwtcp(
    capacity: str,
    rtt: str,
    flows: str,
    objective: str,
    utilization_min: float,
    allow_oscillation: bool,
    points: int,
    packet_size: str,
    max_seconds: float | None,
    json: bool,
) -> None:
    from ..reports.tune import tune_dwtcp_report

    if objective not in DWTCP_OBJECTIVES:
        raise UsageError("--objective", objective, "one of " + ", ".join(DWTCP_OBJECTIVES))
    rng = _range(capacity, rtt, flows, points, packet_size)
    with progress_bar("tune dwtcp: compass search over beta and K", "polls (at most)") as bar:
        s = tune_dwtcp_report(
            rng,
            objective=objective,
            utilization_min=utilization_min,
            steady=not allow_oscillation,
            max_seconds=_max_seconds(max_seconds),
            progress=bar,
        )
    if json:
        emit_json(s)
    else:
        t = Table(title=f"tune dwtcp: {s['objective_description']}", show_header=False)
        w = s["worst_point"]
        for k, v in [
            ("status", s["status"] if s["status"] == "ok" else f"{s['status']}: {s['message']}"),
            ("beta", f"{s['beta']:.4g} (byte convention; beta_w = {s['beta_sqrt_packets']:.4g} per sqrt(packet))"),
            ("K", f"{s['K_packets']:.1f} packets"),
            ("objective", f"{s['objective_value']:.1f} packets"),
            ("worst point", f"rtt {w['rtt_s'] * 1e6:.0f} us, N = {w['flows']} ({w['regime']})"),
            ("utilization min", f"{s['utilization_min']:.4f} (required {utilization_min:g})"),
            ("amplitude / threshold max", f"{s['amplitude_over_threshold_max']:.2f}"),
            ("active constraints", "; ".join(s["active_constraints"]) or "none"),
            ("evaluations", f"{s['iterations']} polls, {s['evaluations']} candidates, {s['model_runs']} model runs,"
                            f" {s['seconds']:.1f} s"),
        ]:  # fmt: skip
            t.add_row(k, str(v))
        Console().print(t)
    if s["status"] != "ok":
        raise typer.Exit(1)
