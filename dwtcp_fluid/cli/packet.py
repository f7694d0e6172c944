"""``dwtcp-fluid packet compare-fluid`` (and, from :mod:`.packet_run`, ``packet run`` and ``packet scenario``):
the packet-level JAX core (:mod:`dwtcp_fluid.packet`)."""

from __future__ import annotations

import math
from typing import Any

import typer

# ``packet run`` and ``packet scenario`` (flags from the law registry) live in their own module
from . import packet_run as packet_run  # noqa: E402
from .app import packet_app
from .common import UsageError, check_duration, emit_json, link_from_flags, print_written, require_unit
from .compare_table import check_tables, compare_console
from .flags import Use, declared
from .limits import check_budget
from .outputs import check_figure
from .progress import progress_bar

#: Seconds of one packet-vs-fluid comparison (one N, one RTT) on the reference machine (2 cores), for the estimate:
#: dwtcp runs the packet core and every fluid predictor (3 settings took 141 s), dctcp one packet and two fluid runs.
_SECONDS_PER_COMPARISON = {"dwtcp": 47.0, "dctcp": 10.0}


#: The setting flags each law whose settings come from the command line reads; a law without (its check's own
#: stated settings) reads none of them.
_SETTING_FLAGS = {
    "dctcp": ("flows", "capacity", "rtt", "packet_size", "marking_threshold", "g", "duration"),
    "dwtcp": ("flows", "capacity", "rtt", "packet_size", "beta", "target", "buffer", "models", "packet_rtts",
              "fluid_rtts"),
}  # fmt: skip
_ALL_SETTINGS = frozenset(f for fl in _SETTING_FLAGS.values() for f in fl)


def _check_given(ctx: typer.Context, law: str, own: bool) -> None:
    """A setting flag given on the command line that ``law`` does not read (none when ``own``: the check runs its
    own stated settings) is refused, not ignored."""
    src = {p: ctx.get_parameter_source(p) for p in ctx.params}
    given = [p for p in ctx.params if src[p] is not None and src[p].name == "COMMANDLINE"]
    reads = () if own else _SETTING_FLAGS[law]
    for p in given:
        if p in _ALL_SETTINGS and p not in reads:
            users = " | ".join(k for k, v in _SETTING_FLAGS.items() if p in v)
            accepted = (
                f"only with --law {users}; --law {law} runs its check's stated settings (only --seed, --plot, --json)"
                if not reads
                else f"only with --law {users}; --law {law} reads --{' | --'.join(f.replace('_', '-') for f in reads)}"
            )
            raise UsageError("--" + p.replace("_", "-"), ctx.params[p], accepted)


def _check(flag: str, value: float, ok: bool, accepted: str) -> None:
    if not ok:
        raise UsageError(flag, value, accepted)


@packet_app.command("compare-fluid")
@declared(
    law=Use(
        note="Here dctcp (two DCTCP fluid models), dwtcp (every DWTCP one), timely or timely-patched (their fluid "
        "model), d2tcp (its fluid models at d = 0.5, 1, 2), cubic (its hybrid fluid model), swift, hpcc, "
        "hpcc-pint, dcqcn (their fluid models)."
    ),
    flows=Use(default="2,10,100", note="Here comma-separated N values, one comparison per N."),
    rtt=Use(note='With --law dwtcp a list ("100us,1ms").'),
    marking_threshold=Use(note="With --law dctcp."),
    g=Use(note="With --law dctcp."),
    duration=Use(note="With --law dctcp: the last half is compared."),
    beta=Use(note="With --law dwtcp."),
    target=Use(note="With --law dwtcp."),
    buffer=Use(
        default=5000,
        note="With --law dwtcp 5000: no drops, as the fluid models it is compared with have no buffer; packet run's 250 is "
        "[DWTCP]'s switch buffer.",
    ),
    packet_rtts=Use(note="With --law dwtcp."),
    fluid_rtts=Use(note="With --law dwtcp."),
    plot=Use(note="Here the packet-vs-fluid overlay."),
)
def compare_fluid(
    ctx: typer.Context,
    law: str,
    flows: str,
    capacity: str,
    rtt: str,
    packet_size: str,
    marking_threshold: float,
    g: float,
    duration: str,
    beta: float,
    target: float,
    buffer: int,
    models: str,
    packet_rtts: float,
    fluid_rtts: float,
    seed: int,
    plot: str,
    yes: bool,
    json: bool,
) -> None:
    """The packet core next to fluid models at the same parameters.

    --law dctcp: the paper's (5)-(8) and the ACK-clocked model (q = N·W − C·d); mean queue, amplitude, period,
    window, α; the tolerances are judged against the ACK-clocked model, which the packet core follows (the paper's
    queue equation (7) lags by one RTT and lengthens the period 1.6-1.8x).

    --law dwtcp: every registered DWTCP fluid predictor (simplified (5)/(6) and sqrt (3), α fixed or a state, with
    and without the one-RTT Scout delay) at 10 Gbps, β = 0.001, K = 100, buffer 5000 by default, for every N × RTT;
    a table of mean queue, amplitude, period, utilization, window, α and each model's gaps to the packet run.

    Every other law runs its registered check at the check's own stated settings: only --seed, --plot and --json
    apply (a setting flag is refused).
    """
    from ..reports.compare import compare_check, compare_laws, run_compare_fluid

    laws = compare_laws()
    _check("--law", law, law in laws, " | ".join(laws))
    check = compare_check(law)
    _check_given(ctx, law, check.settings_from is None)
    if plot:
        check_figure("--plot", plot)
        _check("--plot", plot, check.figure is not None,
               "a law with an overlay figure: " + " | ".join(x for x in laws if compare_check(x).figure))  # fmt: skip
    opts: dict[str, Any] = {"seed": seed}
    if (
        check.settings_from is not None
    ):  # the settings come from the flags; otherwise the check's own (only --seed)
        opts |= _setting_flags(law, flows, capacity, rtt, packet_size, marking_threshold, g, duration, beta,
                               target, buffer, models, packet_rtts, fluid_rtts, yes)  # fmt: skip
    with progress_bar(f"compare-fluid {law}", "settings") as bar:
        doc, result = run_compare_fluid(law, progress=bar, **opts)
    if plot:
        from ..plots.style import save_figure, style

        with style():
            save_figure(check.figure(result), plot)  # type: ignore[misc]
        if not json:
            print_written([plot])
    if json:
        emit_json(doc)
    else:
        console = compare_console()
        for t in check_tables(law, result):
            console.print(t)
        stated = check.stated_tolerances if check.stated_tolerances is not None else check.tolerances
        text = (
            stated.describe()
            if hasattr(stated, "describe")
            else "; ".join(
                f"{k}: {v.describe()}"
                for k, v in stated.items()  # type: ignore[union-attr]
            )
        )
        console.print(f"tolerances: {text}")
    if check.settings_from is None and not doc["agree"]:  # the check's own stated settings: a miss exits 1
        raise SystemExit(1)


def _setting_flags(
    law: str, flows: str, capacity: str, rtt: str, packet_size: str, marking_threshold: float, g: float,
    duration: str, beta: float, target: float, buffer: int, models: str | None, packet_rtts: float,
    fluid_rtts: float, yes: bool,
) -> dict[str, Any]:  # fmt: skip
    """The flags of a law whose settings come from the command line, checked, as ``run_compare_fluid`` options."""
    from ..units import parse_time
    from .common import parse_list

    ns = parse_list("--flows", flows)
    if not all(n >= 1 and n == int(n) for n in ns):
        raise UsageError("--flows", flows, "comma-separated integers >= 1")
    if law != "dwtcp" and "," in str(rtt):
        raise UsageError(
            "--rtt", rtt, f'one time such as "100us" with --law {law} (a list only with --law dwtcp)'
        )
    rtts = [r.strip() for r in str(rtt).split(",") if r.strip()] if law == "dwtcp" else [rtt]
    check_budget(
        "--flows",
        flows if len(str(flows)) <= 40 else f"{str(flows)[:40]}…",
        f"{len(ns) * len(rtts)} comparisons",
        seconds=len(ns) * len(rtts) * _SECONDS_PER_COMPARISON.get(law, 10.0),
        nbytes=50e6,  # the comparisons run one after another
        yes=yes,
    )
    if law == "dwtcp":
        from ..sweep.predictors import predictors

        _check("--beta", beta, math.isfinite(beta) and 0 < beta <= 1, "a number with 0 < beta <= 1")
        _check("--target", target, math.isfinite(target) and target >= 0, "packets >= 0")
        _check("--buffer", buffer, 1 <= buffer <= 10**6, "an integer in [1, 1000000]")
        for flag, v in (("--packet-rtts", packet_rtts), ("--fluid-rtts", fluid_rtts)):
            _check(flag, v, math.isfinite(v) and 10 <= v <= 1e5, "RTTs in [10, 1e5]")
        _check("--flows", flows, all(1 <= n <= 10000 for n in ns), "integers in [1, 10000]")
        _check("--rtt", rtt, bool(rtts), 'times such as "100us,1ms"')
        links = [link_from_flags(capacity, r, packet_size) for r in rtts]
        names = tuple(predictors(simulate=True))
        if models:
            chosen = tuple(m.strip() for m in models.split(",") if m.strip())
            bad = [m for m in chosen if m not in names]
            _check("--models", models, bool(chosen) and not bad, " | ".join(names))
            names = chosen
        return {"flows": [int(n) for n in ns], "links": links, "beta": beta, "k": target, "buffer": buffer,
                "models": names, "packet_rtts": packet_rtts, "fluid_rtts": fluid_rtts}  # fmt: skip
    _check("--g", g, math.isfinite(g) and 0 < g <= 1, "a number with 0 < g <= 1")
    _check(
        "--marking-threshold",
        marking_threshold,
        math.isfinite(marking_threshold) and marking_threshold >= 0,
        "packets >= 0",
    )
    link = link_from_flags(capacity, rtt, packet_size)
    require_unit("--duration", duration, "time")
    try:
        dur = parse_time(duration)
    except ValueError:
        raise UsageError("--duration", duration, 'a positive time such as "100ms"') from None
    _check("--duration", duration, 200.0 / link.C <= dur <= 10.0, "a time between 200 slots and 10 s")
    check_duration(link, dur)
    return {"flows": [int(n) for n in ns], "links": [link], "marking_threshold": marking_threshold, "g": g,
            "duration": dur}  # fmt: skip
