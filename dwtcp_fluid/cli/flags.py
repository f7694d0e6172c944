"""The command-line flag vocabulary: one declaration per flag (its meaning, its kind, its accepted range, its help and
its default), read by every command. :func:`declared` generates a command's Typer options from it (a command names
its parameters; a :class:`Use` says where the command reads a flag in its own way: its default, a note after the
help), so no command writes a ``typer.Option`` (tests/test_cli_declarations.py). :func:`install_checks` puts the
declared check on every option of the parsed command tree, so a value is refused while the command line is parsed,
before any work, in one line naming the flag as typed, its value and the accepted range; a flag added to a command
is checked as soon as it is declared here (and tests/test_cli_vocabulary.py fails on a flag that is not).

The ranges are the library's declarations (:data:`dwtcp_fluid.params.BOUNDS`, a packet law's
:class:`~dwtcp_fluid.packet.laws.base.LawOption`), in the flag's unit: seconds for a time, bit/s for a rate, bytes
for a size. A command keeps its own narrower checks (a phase portrait of at most 10 s); the vocabulary refuses what
no command can use (NaN, ±inf, subnormal numbers, non-ASCII digits, values beyond any physical setting, descending
ranges).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import typer

from ..params import (
    BETA_HELP,
    BOUNDS,
    DEFAULT_BETA,
    DEFAULT_CAPACITY,
    DEFAULT_FLOWS,
    DEFAULT_G,
    DEFAULT_RTT,
    DWTCP_TARGET,
    G_HELP,
    TARGET_HELP,
    Bound,
)
from .common import UsageError

try:  # typer >= 0.20 vendors click as typer._click; older releases depend on click itself
    from typer._click.exceptions import BadParameter
except ImportError:  # pragma: no cover
    from click.exceptions import BadParameter

__all__ = [
    "FLAGS",
    "REQUIRED",
    "Flag",
    "Use",
    "declared",
    "install_checks",
    "option",
    "parameter",
    "vocabulary",
]

F = TypeVar("F", bound=Callable[..., Any])

#: Kinds of values: a number, an integer, a quantity with its unit, or text the command parses itself.
KINDS = ("number", "integer", "time", "rate", "size", "text", "path", "switch")


@dataclass(frozen=True)
class Flag:
    """One flag of the vocabulary.

    Parameters
    ----------
    meaning : str
        What the flag sets, in a few words. Two flags with the same meaning are two spellings of one thing
        (refused by the vocabulary test).
    kind : str
        One of :data:`KINDS`. A ``time``/``rate``/``size`` flag takes a value with its unit ("100us", "10Gbps",
        "1500"); a bare number is refused for times and rates (0 excepted). A number, integer or quantity flag
        whose option is text takes a list ("1,2,5") or a range ("1:100", "10:1e4:25log") where the command says so:
        every element is checked, and a range must ascend.
    bound : Bound, optional
        The accepted range, in the flag's unit (seconds, bit/s, bytes).
    help : str
        The help of the option generated from the declaration (:func:`option`); the meaning when empty.
    default : optional
        The default every command shares (a command's own default is a :class:`Use`).
    off : str, optional
        The negative spelling of a switch (``--no-delay``).
    short : str, optional
        A one-letter spelling (``-j``).
    """

    meaning: str
    kind: str = "number"
    bound: Bound | None = None
    help: str = ""
    default: Any = None
    off: str | None = None
    short: str | None = None

    def accepted(self, flag: str) -> str:
        """The accepted values as text, for a refusal."""
        name = flag.lstrip("-").replace("-", "_")
        b = self.bound
        if b is None:
            return self.meaning
        if self.kind in ("time", "rate", "size"):
            from ..units import format_rate, format_time

            fmt = {"time": format_time, "rate": format_rate, "size": lambda v: f"{v:g}B"}[self.kind]
            lo = "" if b.lo is None else fmt(b.lo)
            hi = "" if b.hi is None else fmt(b.hi)
            unit = {"time": '"100us", "20ms"', "rate": '"10Gbps", "833333pps"', "size": '"1500", "9kB"'}
            return f"a {self.kind} such as {unit[self.kind]} within [{lo}, {hi}] ({self.meaning})"
        return f"{b.accepted(name)}; {self.meaning}" if not b.why else b.accepted(name)


def _b(key: str) -> Bound:
    return BOUNDS[key]


#: Every flag of every command, by its spelling: its meaning, kind and range, and the help and default of the Typer
#: option every command generates from it (:func:`declared`). Flags that differ per command only in how many values
#: they take (``--flows 10`` or ``--flows 1,2,5``) are one flag: the bound applies to each value; a command that
#: reads a flag in its own way says so in a note after the declared help (:class:`Use`).
FLAGS: dict[str, Flag] = {
    # the link
    "--capacity": Flag(
        "bottleneck (link) capacity",
        "rate",
        _b("capacity"),
        'Bottleneck capacity ("10Gbps", "833333pps").',
        DEFAULT_CAPACITY,
    ),
    "--rtt": Flag(
        "base round-trip time", "time", _b("rtt"), 'Base RTT d = τ ("100us", "0.1ms", "1e-4s").', DEFAULT_RTT
    ),
    "--rtt-long": Flag(
        "base RTT of the long flows", "time", _b("rtt"), "Base RTT of the long flows (default --rtt)."
    ),
    "--packet-size": Flag("packet size L", "size", _b("packet_size"), "Packet size L in bytes.", "1500"),
    # flows and protocol parameters
    "--flows": Flag("number of flows N", "integer", _b("flows"), "Number of flows N ≥ 1.", DEFAULT_FLOWS),
    "--long-flows": Flag(
        "flows of the long group", "integer", _b("flows"), "Flows of the long group (1..256).", 1
    ),
    "--cross-flows": Flag(
        "flows of each cross group", "integer", _b("flows"), "Flows of each cross group (1..64).", 1
    ),
    "--cross-load": Flag(
        "cross flows per hop", "integer", _b("flows"), "Cross flows per hop (list or range).", "1,2,4"
    ),
    "--hops": Flag(
        "links of the parking lot",
        "integer",
        Bound(1, 64, integer=True, why="hops"),
        'Links of the parking lot: a range "1:6" or a list "2,4".',
        "1:6",
    ),
    "--eta": Flag(
        "HPCC target utilization η",
        "number",
        _b("eta"),
        "HPCC target utilization η, 0 < η ≤ 1 ([HPCC]: 0.95).",
    ),
    "--swift-beta": Flag(
        "Swift multiplicative decrease constant β",
        "number",
        _b("swift_beta"),
        "Swift multiplicative decrease constant β, > 0 ([Swift]; htsim's value 0.8).",
    ),
    "--g": Flag("DCTCP EWMA gain g", "number", _b("g"), G_HELP, DEFAULT_G),
    "--beta": Flag("DWTCP decrease gain β", "number", _b("beta"), BETA_HELP, DEFAULT_BETA),
    "--target": Flag("DWTCP target queue K", "number", _b("k"), TARGET_HELP, DWTCP_TARGET),
    "--marking-threshold": Flag(
        "ECN marking threshold K", "number", _b("K"), "ECN marking threshold K, packets.", 65.0
    ),
    "--wbar": Flag("normalized window w̄", "number", _b("wbar"), "w̄ = (C·d + K)/N in packets (> 0)."),
    "--wstar": Flag(
        "fair-share window W*", "number", _b("w_star"), "Fair-share window W* = (C·d + K)/N in packets (> 0)."
    ),
    "--psi": Flag(
        "queue floor ψ = K/(C·d)",
        "number",
        _b("psi"),
        "ψ = K/(C·d) > 0: queue floor for the throughput (with --wbar).",
    ),
    "--kbar": Flag(
        "queue ahead of the Scout k̄",
        "number",
        _b("kbar"),
        "Queue ahead of the Scout k̄ in packets (decrease).",
    ),
    "--window": Flag(
        "per-flow window w", "number", _b("window"), "Per-flow window w in packets (default BDP/N)."
    ),
    "--bdp": Flag(
        "bandwidth-delay product",
        "number",
        _b("bdp"),
        "BDP values in packets (list or range).",
        "10:10000:25log",
    ),
    "--kbar-ratio": Flag(
        "k̄/k̄*",
        "number",
        Bound(1e-6, 1e6, why="k̄ over k̄* = 2·BDP/√β"),
        "k̄/k̄* values (list or range).",
        "0.01:10:25log",
    ),
    # run lengths
    "--duration": Flag(
        "simulated time", "time", _b("duration"), 'Simulated time ("100ms", "0.1s").', "100ms"
    ),
    "--duration-rstar": Flag(
        "simulated time in R*",
        "number",
        Bound(1e-3, 1e5, why="units of R* (normalized time)"),
        "Simulated time in units of R* (normalized model time, > 0).",
        300.0,
    ),
    "--packet-rtts": Flag(
        "packet run length in RTTs",
        "number",
        Bound(1.0, 1e6, why="base RTTs"),
        "Measured RTTs of the packet run after a 20-RTT warm-up.",
        200.0,
    ),
    "--fluid-rtts": Flag(
        "fluid run length in RTTs",
        "number",
        Bound(1.0, 1e6, why="base RTTs"),
        "Fluid run length in RTTs (last half).",
        1000.0,
    ),
    "--packet-max-rtts": Flag(
        "cap on a packet run's RTTs",
        "number",
        Bound(1.0, 1e6, why="base RTTs"),
        "Cap on a packet run's measured RTTs (3 oscillation periods).",
        400.0,
    ),
    # the packet core
    "--seed": Flag("random seed", "integer", _b("seed"), "Seed of the packet run.", 0),
    "--buffer": Flag(
        "data buffer of the switch", "integer", _b("buffer"), "Data buffer, packets (drop-tail).", 250
    ),
    "--packet-buffer": Flag(
        "data buffer of the sweep's packet runs",
        "integer",
        _b("buffer"),
        "Data buffer of the packet runs, packets.",
        250,
    ),
    "--loss": Flag(
        "random loss probability",
        "number",
        Bound(0.0, 1.0, hi_open=True, why="a probability"),
        "Probability of losing a data packet after the bottleneck.",
        0.0,
    ),
    "--delack": Flag(
        "packets per delayed ACK",
        "integer",
        Bound(1, 64, integer=True, why="packets per ACK"),
        "Delayed ACKs: one ACK per this many packets (1: off).",
        1,
    ),
    "--delack-timeout": Flag(
        "delayed-ACK timeout", "time", Bound(0.0, 1.0, why="seconds"), "Delayed-ACK timeout.", "1ms"
    ),
    "--jitter": Flag(
        "ACK-path jitter",
        "time",
        Bound(0.0, 1.0, why="seconds"),
        "ACK-path jitter: largest delay (uniform) or mean (exponential).",
        "0s",
    ),
    "--rtt-noise": Flag(
        "RTT measurement noise",
        "time",
        Bound(0.0, 1.0, why="seconds"),
        "Per-ACK RTT measurement noise (laws that read the RTT): the width x of uniform noise in [0, x], or the "
        'standard deviation of Gaussian noise ("25us").',
        "0s",
    ),
    "--rto-min": Flag(
        "retransmission timeout",
        "time",
        _b("rto_min"),
        "Retransmission timeout of every sender (Linux's rto_min).",
        "1ms",
    ),
    "--min-cwnd": Flag(
        "window floor",
        "number",
        _b("min_cwnd"),
        "Window floor after a decrease, packets (default: the law's, 2 for DCTCP, Reno and CUBIC, 1 for DWTCP).",
    ),
    "--packet-sample": Flag(
        "grid points run in packets",
        "integer",
        Bound(0, 10**6, integer=True),
        "Points of the sample (implies --packet sample unless --packet is given).",
    ),
    # tuning
    "--throughput-min": Flag(
        "required throughput",
        "number",
        Bound(1e-6, 1.0, why="fraction of C"),
        "Required throughput, 0 < x <= 1.",
        0.99,
    ),
    "--utilization-min": Flag(
        "required utilization",
        "number",
        Bound(1e-6, 1.0, why="fraction of C"),
        "Required utilization at every point, 0 < x <= 1.",
        0.99,
    ),
    "--rho-max": Flag(
        "largest Floquet multiplier",
        "number",
        _b("rho_max"),
        "Largest allowed multiplier rho, 1e-6 <= x < 1.",
        0.9,
    ),
    "--points": Flag(
        "operating points per axis",
        "integer",
        Bound(2, 9, integer=True),
        "Operating points per axis, 2..9 (2: corners only).",
        3,
    ),
    "--max-seconds": Flag(
        "time budget of a search",
        "number",
        Bound(0.0, 1e6, lo_open=True, why="seconds of wall time"),
        "Time budget in seconds, 0 < x <= 1e6 (default: derived from the first evaluation); when it runs out the "
        "best point so far is reported with status BUDGET.",
    ),
    "--perturb": Flag(
        "relative perturbation of the start",
        "number",
        Bound(0.0, 10.0),
        "Chains: packets added to the first link's starting queue, in [0, 1]; 0 starts exactly symmetric, where "
        "the fluid hops stay synchronized (proofs/multihop.md). Default 1e-3.",
    ),
    # work and output
    "--workers": Flag(
        "Dask workers",
        "integer",
        Bound(1, 1024, integer=True),
        "Run chunks on a new Dask LocalCluster of N workers.",
    ),
    "--jobs": Flag(
        "parallel figure builds",
        "integer",
        Bound(1, 1024, integer=True),
        "Build in this many processes (figures are independent; results are the same).",
        1,
        short="-j",
    ),
    "--dpi": Flag(
        "raster resolution",
        "number",
        Bound(10.0, 2400.0, why="dots per inch"),
        "Raster resolution in dots per inch (default 110).",
    ),
    "--out": Flag("output directory", "path", help="Output directory.", default=Path("results")),
    "--plot": Flag(
        "figure file",
        "path",
        help="Figure file to write; the format follows the extension (.png, .svg, .pdf).",
    ),
    # choices and text the command parses (checked by the command, against its own list)
    "--law": Flag("congestion-control law", "text", help="Congestion-control law.", default="dctcp"),
    "--variant": Flag(
        "fluid-model variant", "text", help="paper (eqs. (5)/(6)) or sqrt (eq. (3)).", default="paper"
    ),
    "--solver": Flag(
        "DDE solver",
        "text",
        help="reference (SciPy, event-exact) or jax (fixed-step RK4).",
        default="reference",
    ),
    "--phase": Flag(
        "DWTCP phase (decrease | increase)",
        "text",
        help="decrease (eq. (6)) or increase (eq. (7)).",
        default="decrease",
    ),
    "--topology": Flag(
        "network topology",
        "text",
        help="single | path:K | parking-lot:K (multi-hop chain) | leaf-spine:LxS (--flows per leaf pair).",
        default="single",
    ),
    "--traffic": Flag(
        "leaf-spine traffic pattern",
        "text",
        help="Leaf-spine traffic: all-to-all | permutation (seeded).",
        default="all-to-all",
    ),
    "--signal": Flag("hop signal", "text", help="Hop signal f of [PROXY] §3.2."),
    "--engine": Flag(
        "packet engine",
        "text",
        help="auto (the native loop where it is bit-identical to the JAX reference) | jax | native.",
        default="auto",
    ),
    "--mark-at": Flag(
        "where ECN marks", "text", help="ECN marking at 'enqueue' or 'dequeue'.", default="enqueue"
    ),
    "--mark-cmp": Flag(
        "ECN comparison", "text", help="Mark when queue 'ge' (≥) or 'gt' (>) K.", default="ge"
    ),
    "--jitter-dist": Flag(
        "jitter distribution", "text", help="Jitter distribution: uniform | exponential.", default="uniform"
    ),
    "--rtt-noise-dist": Flag(
        "RTT noise distribution", "text", help="RTT noise distribution: uniform | gauss.", default="uniform"
    ),
    "--models": Flag(
        "fluid predictors compared", "text", help="DWTCP: comma-separated fluid predictors (default: all)."
    ),
    "--objective": Flag(
        "tuning objective", "text", help="What to minimize at the worst point.", default="mean-queue"
    ),
    "--scheduler": Flag("Dask scheduler address", "text", help="Run chunks on the Dask scheduler at ADDR."),
    "--name": Flag("figure or proof names", "text", help="Only these (repeatable)."),
    "--format": Flag(
        "figure file format",
        "text",
        help="png | pdf | svg (--check always compares the committed PNGs).",
        default="png",
    ),
    "--tier": Flag(
        "figures by build cost (all | fast | slow)",
        "text",
        help="all | fast | slow: every figure, or those whose build takes seconds (make test), or minutes.",
        default="all",
    ),
    "--packet": Flag(
        "packet-level pass (a mode in sweep, a switch elsewhere)", "text", help="Packet-level pass."
    ),
    # switches
    "--json": Flag(
        "one JSON object on stdout", "switch", help="Print exactly one JSON object.", default=False
    ),
    "--yes": Flag(
        "run beyond the time and memory limits",
        "switch",
        help="Run even if estimated over 1 h or 2 GiB.",
        default=False,
    ),
    "--force": Flag(
        "replace earlier results",
        "switch",
        help="Replace the results of an earlier run of the same sweep.",
        default=False,
    ),
    "--resume": Flag(
        "keep an interrupted run's verified work",
        "switch",
        help="Keep the verified work of an interrupted run.",
        default=False,
    ),
    "--refuse-damaged": Flag(
        "refuse a damaged store instead of recomputing",
        "switch",
        help="With --resume: stop if a stored chunk fails verification (default: recompute it).",
        default=False,
    ),
    "--check": Flag(
        "rebuild and compare with the committed files",
        "switch",
        help="Rebuild and compare with the committed files.",
        default=False,
    ),
    "--delay": Flag(
        "delayed Scout feedback",
        "switch",
        help="Scout feedback one RTT late (default) or the paper's undelayed model.",
        default=True,
        off="--no-delay",
    ),
    "--figure": Flag(
        "write the sweep's maps",
        "switch",
        help="Write the condition map next to the dataset.",
        default=True,
        off="--no-figure",
    ),
    "--full": Flag(
        "delayed runs and roots besides the frozen Jacobian",
        "switch",
        help="Add delayed fluid runs and delay-aware roots (default) or not.",
        default=True,
        off="--frozen-only",
    ),
    "--queue-floor": Flag(
        "the queue floor q >= 0",
        "switch",
        help="With --capacity: q ≥ 0 (section 3.3.2), ψ = K/(C·d).",
        default=False,
        off="--no-queue-floor",
    ),
    "--quick": Flag(
        "the short version of a scenario", "switch", help="The short version (as CI runs it).", default=False
    ),
    "--list": Flag(
        "list the registered scenarios", "switch", help="List the registered scenarios.", default=False
    ),
    "--reorder": Flag(
        "jittered ACKs may overtake each other",
        "switch",
        help="Jittered ACKs of a flow may overtake each other.",
        default=False,
    ),
    "--ipg": Flag("DWTCP's inter-packet-gap variant", "switch"),
    "--allow-oscillation": Flag(
        "drop the steady-queue constraint", "switch", help="Drop the steady-queue constraint.", default=False
    ),
}


#: A command's option with no default: the flag must be given.
REQUIRED: Any = ...
_DECLARED: Any = object()


@dataclass(frozen=True)
class Use:
    """How one command uses a declared flag, where it differs from the declaration.

    Parameters
    ----------
    default : optional
        The command's own default (:data:`REQUIRED` for a flag that must be given; None for one whose default
        is derived from other flags). tests/test_cli_defaults.py names every command whose default differs from
        the declared one, with the reason.
    note : str
        A sentence after the declared help: how this command reads the flag (a list, a range, its role here).
    flag : str, optional
        The flag, where the parameter's name is not its spelling (``fmt`` for ``--format``: the name is the key
        of the JSON document's ``inputs``).
    """

    default: Any = _DECLARED
    note: str = ""
    flag: str | None = None


def option(flag: str, use: Use | None = None) -> Any:
    """The Typer option of ``flag``, generated from its declaration in :data:`FLAGS` (help, default, negative
    spelling) and the command's :class:`Use`."""
    spec = FLAGS[flag]
    use = use or Use()
    default = spec.default if use.default is _DECLARED else use.default
    decls = [f"{flag}/{spec.off}" if spec.off else flag, *([spec.short] if spec.short else [])]
    text = spec.help or spec.meaning
    return typer.Option(default, *decls, help=f"{text} {use.note}" if use.note else text)


def flag_of(name: str) -> str:
    """The flag a command parameter named ``name`` stands for: ``packet_size`` is ``--packet-size``, ``list_``
    is ``--list`` (a trailing underscore avoids a Python name)."""
    return "--" + name.rstrip("_").replace("_", "-")


def declared(**uses: Use) -> Callable[[F], F]:
    """Generate a command's options from the flag vocabulary: each parameter of the decorated function (its
    name and Python type) is the flag :func:`flag_of` names, its Typer option built by :func:`option` with the
    command's :class:`Use` of it (keyword ``uses`` by parameter name). A parameter that no declaration covers, or
    a use of a parameter the function lacks, is refused when the module loads."""

    def wrap(fn: F) -> F:
        sig = inspect.signature(fn, eval_str=True)
        unknown = set(uses) - set(sig.parameters)
        if unknown:
            raise TypeError(f"declared({sorted(unknown)}): {fn.__name__} has no such parameter")
        params = []
        for p in sig.parameters.values():
            if (
                isinstance(p.default, typer.models.ArgumentInfo) or p.annotation is typer.Context
            ):  # not a flag
                params.append(p)
                continue
            use = uses.get(p.name)
            flag = use.flag if use is not None and use.flag else flag_of(p.name)
            if flag not in FLAGS:
                raise TypeError(f"{fn.__name__}({p.name}): {flag} is not declared in cli/flags.py FLAGS")
            if p.default is not p.empty:
                raise TypeError(
                    f"{fn.__name__}({p.name}): the default is declared in FLAGS or a Use, not here"
                )
            params.append(p.replace(default=option(flag, use)))
        fn.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        return fn

    return wrap


def parameter(name: str, annotation: Any, use: Use | None = None) -> inspect.Parameter:
    """A keyword-only parameter of a generated signature (a command built from a registry, as ``packet run``):
    ``name`` is the flag :func:`flag_of` names, its option generated by :func:`option`."""
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=option(flag_of(name), use), annotation=annotation
    )


def vocabulary() -> dict[str, Flag]:
    """:data:`FLAGS` and, when the packet commands are loaded, every packet law's numeric option (its
    :class:`~dwtcp_fluid.packet.laws.base.LawOption` range)."""
    out = dict(FLAGS)
    if "dwtcp_fluid.cli.packet_run" in sys.modules:
        from .packet_laws import law_flags

        for flag, (opt, _) in law_flags().items():
            if flag in out:
                continue
            if opt.option is not None:  # a switch or a choice of the law object
                meaning = opt.help.split(",")[0].split(" (")[0].rstrip(".")
                out[flag] = Flag(meaning, "switch" if opt.is_switch else "text")
                continue
            meaning = opt.help.split(",")[0].split(" (")[0].rstrip(".")
            if opt.quantity is None:
                out[flag] = Flag(meaning, "number", opt.bound)
            else:  # a time or a rate: its range in seconds or bit/s
                kind, scale = opt.quantity
                b = opt.bound
                si = Bound(
                    None if b.lo is None else b.lo * scale,
                    None if b.hi is None else b.hi * scale,
                    b.lo_open,
                    b.hi_open,
                    why=b.why,
                )
                out[flag] = Flag(meaning, kind, si)
    return out


def _elements(text: str) -> list[tuple[str, bool]]:
    """The values of a list ("1,2,5") or a range ("1:100", "10:1e4:25log"): (text, is a range end)."""
    s = text.strip()
    if ":" in s:
        parts = s.split(":")
        return [(p.strip(), True) for p in parts[:2]]
    return [(p.strip(), False) for p in s.split(",")]


def _value(flag: str, spec: Flag, text: str) -> float:
    """One value of a flag in its unit (seconds, bit/s, bytes), or a usage error."""
    from .. import units
    from .common import require_unit

    if spec.kind == "time":
        require_unit(flag, text, "time")
        return units.parse_time(text)
    if spec.kind == "rate":
        require_unit(flag, text, "rate")
        return units.parse_rate(text).bps(1500.0)  # pps: the bound is checked at the default packet size
    if spec.kind == "size":
        return units.parse_size(text)
    return float(text)


def check_value(flag: str, spec: Flag, raw: Any) -> None:
    """Refuse ``raw`` (as typed, or as the option's default) unless every value it holds is accepted."""
    if raw is None or spec.bound is None or isinstance(raw, bool):
        return
    if isinstance(raw, list | tuple):
        for r in raw:
            check_value(flag, spec, r)
        return
    text = str(raw)
    if not text.isascii():
        raise UsageError(flag, text, f"ASCII digits: {spec.accepted(flag)}")
    is_text = isinstance(raw, str)
    ends: list[float] = []
    for tok, is_end in _elements(text) if is_text else [(text, False)]:
        try:
            v = _value(flag, spec, tok)
        except ValueError:
            raise UsageError(flag, text, spec.accepted(flag)) from None
        if not spec.bound.ok(v) or (spec.kind == "integer" and v != int(v)):
            raise UsageError(flag, text, spec.accepted(flag))
        if is_end:
            ends.append(v)
    if len(ends) == 2 and ends[1] < ends[0]:
        raise UsageError(flag, text, "an ascending range start:stop[:num] (start <= stop)")


def install_checks(command: Any) -> Any:
    """Put the vocabulary's check on every option of ``command`` and its subcommands (a click command tree): each
    option's value, as typed or defaulted, is checked before the option's own conversion. Returns ``command``."""
    vocab = vocabulary()
    stack = [command]
    while stack:
        cmd = stack.pop()
        stack.extend(getattr(cmd, "commands", {}).values())
        for p in getattr(cmd, "params", []):
            if p.param_type_name != "option" or getattr(p, "is_flag", False):
                continue
            spec = next((vocab[o] for o in p.opts if o in vocab), None)
            if spec is None or spec.bound is None or getattr(p, "_vocabulary_checked", False):
                continue
            p.process_value = _checked(p.process_value, p.opts[0], spec)
            p._vocabulary_checked = True
    return command


def _checked(process: Any, flag: str, spec: Flag) -> Any:
    def process_value(ctx: Any, value: Any) -> Any:
        check_value(flag, spec, value)
        try:
            return process(ctx, value)
        except BadParameter:
            raise UsageError(flag, value, spec.accepted(flag)) from None

    return process_value
