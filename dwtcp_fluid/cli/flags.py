"""The command-line flag vocabulary: one declaration per flag (its meaning, its kind and its accepted range), read
by every command. :func:`install_checks` puts the declared check on every option of the parsed command tree, so
a value is refused while the command line is parsed, before any work, in one line naming the flag as typed, its
value and the accepted range; a flag added to a command is checked as soon as it is declared here (and
tests/test_cli_vocabulary.py fails on a flag that is not).

The ranges are the library's declarations (:data:`dwtcp_fluid.params.BOUNDS`, a packet law's
:class:`~dwtcp_fluid.packet.laws.base.LawOption`), in the flag's unit: seconds for a time, bit/s for a rate, bytes
for a size. A command keeps its own narrower checks (a phase portrait of at most 10 s); the vocabulary refuses what
no command can use (NaN, ±inf, subnormal numbers, non-ASCII digits, values beyond any physical setting, descending
ranges).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from ..params import BOUNDS, Bound
from .common import UsageError

try:  # typer >= 0.20 vendors click as typer._click; older releases depend on click itself
    from typer._click.exceptions import BadParameter
except ImportError:  # pragma: no cover
    from click.exceptions import BadParameter

__all__ = ["FLAGS", "Flag", "install_checks", "vocabulary"]

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
    """

    meaning: str
    kind: str = "number"
    bound: Bound | None = None

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


#: Every flag of every command, by its spelling. Flags that differ per command only in how many values they take
#: (``--flows 10`` or ``--flows 1,2,5``) are one flag: the bound applies to each value.
FLAGS: dict[str, Flag] = {
    # the link
    "--capacity": Flag("bottleneck (link) capacity", "rate", _b("capacity")),
    "--rtt": Flag("base round-trip time", "time", _b("rtt")),
    "--rtt-long": Flag("base RTT of the long flows", "time", _b("rtt")),
    "--packet-size": Flag("packet size L", "size", _b("packet_size")),
    # flows and protocol parameters
    "--flows": Flag("number of flows N", "integer", _b("flows")),
    "--long-flows": Flag("flows of the long group", "integer", _b("flows")),
    "--cross-flows": Flag("flows of each cross group", "integer", _b("flows")),
    "--cross-load": Flag("cross flows per hop", "integer", _b("flows")),
    "--hops": Flag("links of the parking lot", "integer", Bound(1, 64, integer=True, why="hops")),
    "--g": Flag("DCTCP EWMA gain g", "number", _b("g")),
    "--beta": Flag("DWTCP decrease gain β", "number", _b("beta")),
    "--target": Flag("DWTCP target queue K", "number", _b("k")),
    "--marking-threshold": Flag("ECN marking threshold K", "number", _b("K")),
    "--wbar": Flag("normalized window w̄", "number", _b("wbar")),
    "--wstar": Flag("fair-share window W*", "number", _b("w_star")),
    "--psi": Flag("queue floor ψ = K/(C·d)", "number", _b("psi")),
    "--kbar": Flag("queue ahead of the Scout k̄", "number", _b("kbar")),
    "--window": Flag("per-flow window w", "number", _b("window")),
    "--bdp": Flag("bandwidth-delay product", "number", _b("bdp")),
    "--kbar-ratio": Flag("k̄/k̄*", "number", Bound(1e-6, 1e6, why="k̄ over k̄* = 2·BDP/√β")),
    # run lengths
    "--duration": Flag("simulated time", "time", _b("duration")),
    "--duration-rstar": Flag(
        "simulated time in R*", "number", Bound(1e-3, 1e5, why="units of R* (normalized time)")
    ),
    "--packet-rtts": Flag("packet run length in RTTs", "number", Bound(1.0, 1e6, why="base RTTs")),
    "--fluid-rtts": Flag("fluid run length in RTTs", "number", Bound(1.0, 1e6, why="base RTTs")),
    "--packet-max-rtts": Flag("cap on a packet run's RTTs", "number", Bound(1.0, 1e6, why="base RTTs")),
    # the packet core
    "--seed": Flag("random seed", "integer", _b("seed")),
    "--buffer": Flag("data buffer of the switch", "integer", _b("buffer")),
    "--packet-buffer": Flag("data buffer of the sweep's packet runs", "integer", _b("buffer")),
    "--loss": Flag("random loss probability", "number", Bound(0.0, 1.0, hi_open=True, why="a probability")),
    "--delack": Flag("packets per delayed ACK", "integer", Bound(1, 64, integer=True, why="packets per ACK")),
    "--delack-timeout": Flag("delayed-ACK timeout", "time", Bound(0.0, 1.0, why="seconds")),
    "--jitter": Flag("ACK-path jitter", "time", Bound(0.0, 1.0, why="seconds")),
    "--rtt-noise": Flag("RTT measurement noise", "time", Bound(0.0, 1.0, why="seconds")),
    "--rto-min": Flag("retransmission timeout", "time", _b("rto_min")),
    "--min-cwnd": Flag("window floor", "number", _b("min_cwnd")),
    "--packet-sample": Flag("grid points run in packets", "integer", Bound(0, 10**6, integer=True)),
    # tuning
    "--throughput-min": Flag("required throughput", "number", Bound(1e-6, 1.0, why="fraction of C")),
    "--utilization-min": Flag("required utilization", "number", Bound(1e-6, 1.0, why="fraction of C")),
    "--rho-max": Flag("largest Floquet multiplier", "number", _b("rho_max")),
    "--points": Flag("operating points per axis", "integer", Bound(2, 9, integer=True)),
    "--max-seconds": Flag(
        "time budget of a search", "number", Bound(0.0, 1e6, lo_open=True, why="seconds of wall time")
    ),
    "--perturb": Flag("relative perturbation of the start", "number", Bound(0.0, 10.0)),
    # work and output
    "--workers": Flag("Dask workers", "integer", Bound(1, 1024, integer=True)),
    "--jobs": Flag("parallel figure builds", "integer", Bound(1, 1024, integer=True)),
    "--dpi": Flag("raster resolution", "number", Bound(10.0, 2400.0, why="dots per inch")),
    "--out": Flag("output directory", "path"),
    "--plot": Flag("figure file", "path"),
    # choices and text the command parses (checked by the command, against its own list)
    "--law": Flag("congestion-control law", "text"),
    "--variant": Flag("fluid-model variant", "text"),
    "--solver": Flag("DDE solver", "text"),
    "--phase": Flag("DWTCP phase (decrease | increase)", "text"),
    "--topology": Flag("network topology", "text"),
    "--traffic": Flag("leaf-spine traffic pattern", "text"),
    "--signal": Flag("hop signal", "text"),
    "--engine": Flag("packet engine", "text"),
    "--mark-at": Flag("where ECN marks", "text"),
    "--mark-cmp": Flag("ECN comparison", "text"),
    "--jitter-dist": Flag("jitter distribution", "text"),
    "--rtt-noise-dist": Flag("RTT noise distribution", "text"),
    "--models": Flag("fluid predictors compared", "text"),
    "--objective": Flag("tuning objective", "text"),
    "--scheduler": Flag("Dask scheduler address", "text"),
    "--name": Flag("figure or proof names", "text"),
    "--format": Flag("figure file format", "text"),
    "--tier": Flag("figures by build cost (all | fast | slow)", "text"),
    "--packet": Flag("packet-level pass (a mode in sweep, a switch elsewhere)", "text"),
    # switches
    "--json": Flag("one JSON object on stdout", "switch"),
    "--yes": Flag("run beyond the time and memory limits", "switch"),
    "--force": Flag("replace earlier results", "switch"),
    "--resume": Flag("keep an interrupted run's verified work", "switch"),
    "--refuse-damaged": Flag("refuse a damaged store instead of recomputing", "switch"),
    "--check": Flag("rebuild and compare with the committed files", "switch"),
    "--delay": Flag("delayed Scout feedback", "switch"),
    "--figure": Flag("write the sweep's maps", "switch"),
    "--full": Flag("delayed runs and roots besides the frozen Jacobian", "switch"),
    "--queue-floor": Flag("the queue floor q >= 0", "switch"),
    "--quick": Flag("the short version of a scenario", "switch"),
    "--list": Flag("list the registered scenarios", "switch"),
    "--reorder": Flag("jittered ACKs may overtake each other", "switch"),
    "--ipg": Flag("DWTCP's inter-packet-gap variant", "switch"),
    "--allow-oscillation": Flag("drop the steady-queue constraint", "switch"),
}


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
