"""``dwtcp-fluid dctcp simulate`` and ``dwtcp-fluid dwtcp simulate``: solve a fluid model as a DDE, summarize."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .. import units
from ..params import (
    DctcpParams,
    DwtcpParams,
)
from .app import dctcp_app, dwtcp_app
from .common import (
    UsageError,
    WorkError,
    emit_json,
    link_from_flags,
    print_quantities,
    print_written,
    require_unit,
    warn_implausible,
)
from .flags import Use, declared
from .outputs import check_figure
from .progress import progress_bar

#: ``--plot`` of the simulate commands: a time series.
_PLOT = Use(note="Here a time-series plot of the run.")

if TYPE_CHECKING:  # imported where used, so `--help` stays fast
    from ..models.dwtcp import DwtcpFluid


def _duration(text: str, link: Any = None, queue: float = 0.0) -> float:
    """``--duration`` in seconds; with ``link``, the span is checked against the delay at the operating point
    (base RTT plus ``queue`` packets of queueing delay, :func:`check_span`)."""

    require_unit("--duration", text, "time")
    try:
        d = units.parse_time(text)
    except ValueError:
        raise UsageError("--duration", text, 'a positive time such as "100ms" or "0.1s"') from None
    if not (math.isfinite(d) and d > 0):
        raise UsageError("--duration", text, 'a positive time such as "100ms" or "0.1s"')
    if link is not None:
        check_span("--duration", text, d, link.rtt + queue / link.C)
        warn_implausible(link, d)
    return d


#: The most delays one fluid run may span: both solvers take at least one piece or step per delay (the RTT at the
#: operating point, base RTT plus queueing delay), so the work grows with duration/delay; 10⁶ take minutes, 10³⁰⁰
#: (an RTT of 1e-320 s with no queue) would never end.
MAX_SPAN_RTTS = 1e6


def check_span(flag: str, text: str, duration: float, delay: float) -> None:
    """The pre-flight estimate of a fluid run: refuse a duration of more than :data:`MAX_SPAN_RTTS` delays."""
    n = duration / delay if delay > 0 else math.inf
    if not n <= MAX_SPAN_RTTS:
        raise UsageError(
            flag,
            text,
            f"at most {MAX_SPAN_RTTS:.0e} RTTs ({n:.3g} RTTs of {delay:.3g} s at the operating point asked: the "
            "solvers take at least one step per RTT)",
        )


def _solver(solver: str) -> str:
    if solver not in ("reference", "jax"):
        raise UsageError("--solver", solver, "reference or jax")
    return solver


def _run(fn: Any, *args: Any, **kw: Any) -> Any:
    """Run a report; a span the fixed-step solver would need too many steps for is refused as --duration."""
    try:
        return fn(*args, **kw)
    except ValueError as e:
        if str(e).startswith("t_span="):
            raise UsageError("--duration", f"{kw['duration']:g}s", str(e).split("accepted ", 1)[-1]) from None
        raise


def _simulated_us(bar: Any) -> Any:
    """The CLI bar as a solve's ``progress`` hook: simulated seconds shown as whole µs."""
    return lambda done, total: bar(done * 1e6, total * 1e6)


def _print(title: str, out: dict[str, Any], as_json: bool) -> None:
    if out.get("status") not in (None, "ok", "resolved"):
        if as_json:
            emit_json(out)
        raise WorkError(
            f"the {out.get('solver')} solver stopped at t = {out['stopped_at_s']:.6g} s with status "
            f"{out['status']}: {out['message']} (no observables reported)"
        )
    if as_json:
        emit_json(out)
        return
    print_quantities(title, out)


def _plot(sol: Any, path: str, title: str, marks: dict[str, float]) -> None:
    import matplotlib.pyplot as plt

    from ..plots.style import save_figure, style
    from ..plots.timeseries import plot_timeseries

    with style():
        fig = plot_timeseries(sol, title=title, queue_marks=marks)
        save_figure(fig, path)
        plt.close(fig)
    print_written([path])


@dctcp_app.command("simulate")
@declared(plot=_PLOT)
def dctcp_simulate(
    capacity: str,
    rtt: str,
    packet_size: str,
    flows: int,
    marking_threshold: float,
    g: float,
    duration: str,
    solver: str,
    plot: str | None,
    json: bool,
) -> None:
    """Simulate the DCTCP fluid model (5)-(8) of [DCTCP-A] with the physical queue floor.

    History before t = 0: W = 1, α = 0, q = 0. The summary covers the last half of the run; the period is the
    mean spacing of the upward crossings of q = K (null when the queue stops crossing K).
    """
    from ..studies.dctcp.report import run_dctcp_simulate

    if plot:
        check_figure("--plot", plot)
    link = link_from_flags(capacity, rtt, packet_size)
    P = DctcpParams(link=link, flows=flows, K=marking_threshold, g=g)
    T = _duration(duration, link, queue=P.K)
    # the run and its figure under the bar: a failed status or a failed write leaves only its error line
    with progress_bar("dctcp simulate", "simulated µs") as bar:
        out, sol = _run(
            run_dctcp_simulate, P, duration=T, solver=_solver(solver), progress=_simulated_us(bar)
        )
        if out.get("status") not in (None, "ok", "resolved"):
            bar.discard()
        elif plot and out["status"] == "ok":
            _plot(sol, plot, f"DCTCP fluid, N = {P.flows}, K = {P.K:g}, g = {P.g:g}", {"K": P.K})
    _print("DCTCP fluid simulation (last half of the run)", out, json)


def dwtcp_model(variant: str, delay: bool) -> DwtcpFluid:
    """The DWTCP fluid model behind ``--variant`` and ``--delay/--no-delay``."""
    from ..studies.dwtcp.report import DWTCP_VARIANTS
    from ..studies.dwtcp.report import dwtcp_model as model_of

    if variant not in DWTCP_VARIANTS:
        raise UsageError("--variant", variant, " | ".join(DWTCP_VARIANTS))
    return model_of(variant, delay)


@dwtcp_app.command("simulate")
@declared(plot=_PLOT, variant=Use(note="Here also paper-scout | sqrt-scout (the Scout-faithful models)."))
def dwtcp_simulate(
    capacity: str,
    rtt: str,
    packet_size: str,
    flows: int,
    beta: float,
    target: float,
    delay: bool,
    variant: str,
    duration: str,
    solver: str,
    plot: str | None,
    json: bool,
) -> None:
    """Simulate the DWTCP fluid model (3)-(7) of [DWTCP] with the physical queue floor.

    History before t = 0: w = 1 packet, q = 0 (and α = 1 for the -scout variants). The summary covers the last
    half of the run; the period is the mean spacing of the upward crossings of q = k (null without two).
    """
    if plot:
        check_figure("--plot", plot)
    link = link_from_flags(capacity, rtt, packet_size)
    P = DwtcpParams(link=link, flows=flows, beta=beta, k=target)
    from ..studies.dwtcp.report import run_dwtcp_simulate

    model = dwtcp_model(variant, delay)
    T = _duration(duration, link, queue=P.k)
    with progress_bar("dwtcp simulate", "simulated µs") as bar:  # as dctcp simulate's
        out, sol = _run(
            run_dwtcp_simulate, P, duration=T, variant=variant, delay=delay, solver=_solver(solver),
            progress=_simulated_us(bar),
        )  # fmt: skip
        if out.get("status") not in (None, "ok", "resolved"):
            bar.discard()
        elif plot and out["status"] == "ok":
            _plot(
                sol,
                plot,
                f"DWTCP fluid ({variant}, delay {model.delay_rtts:g} RTT), N = {P.flows}",
                {"k": P.k},
            )
    _print("DWTCP fluid simulation (last half of the run)", out, json)
