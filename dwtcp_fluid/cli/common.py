"""Shared CLI helpers: usage errors (exit 2, one line), JSON output, common flags."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..params import BOUNDS, LinkParams
from ..reports import to_jsonable

__all__ = [
    "UsageError",
    "WorkError",
    "check_duration",
    "drop_warnings",
    "emit_json",
    "flush_warnings",
    "is_quiet",
    "link_from_flags",
    "parse_list",
    "require_unit",
    "set_quiet",
    "to_jsonable",
    "warn",
    "warn_implausible",
]

_QUIET = False


def set_quiet(quiet: bool) -> None:
    """``dwtcp-fluid --quiet``: commands show no progress bars or notes on stderr."""
    global _QUIET
    _QUIET = bool(quiet)


def is_quiet() -> bool:
    """Whether ``--quiet`` was given (progress bars pass ``disable=is_quiet()``)."""
    return _QUIET


class UsageError(Exception):
    """Bad command-line input: printed as one line on stderr, exit status 2."""

    def __init__(self, flag: str, value: Any, accepted: str) -> None:
        self.flag, self.value, self.accepted = flag, value, accepted
        if value is None:  # a flag that was needed and not given: never "--kbar None is invalid"
            super().__init__(f"{flag} is missing: give {accepted}")
        else:
            super().__init__(f"{flag} {value!r} is invalid: accepted {accepted}")


def accepted_of(e: Exception) -> str:
    """What a library ValueError says is accepted (after its last "accepted "), or why it refused."""
    msg = str(e)
    if "accepted " in msg:
        return msg.rsplit("accepted ", 1)[-1]
    return msg.split(": ", 1)[-1]


def usage_from(e: ValueError, given: dict[str, tuple[str, Any]]) -> UsageError:
    """A library ValueError that names its parameter (``name=value is out of range: accepted ...``) as the usage
    error of the flag that gave it; ``given`` maps each parameter name to (flag, the value as typed; for a
    repeatable flag the list of values, of which the error's is shown). An error naming no parameter of ``given``
    is not the user's input: it is raised as it is."""
    name = str(e).split("=", 1)[0].strip()
    if name not in given:
        raise e
    flag, value = given[name]
    if isinstance(value, list | tuple):  # a repeatable flag: the value the error names
        value = next((v for v in value if str(e).startswith(f"{name}={v!r}")), value)
    return UsageError(flag, value, accepted_of(e))


class WorkError(Exception):
    """A failure while the work ran (not the user's input): one line on stderr saying what failed and what was
    kept, exit status 1 (``code`` overrides it, e.g. 130 after Ctrl-C)."""

    def __init__(self, message: str, code: int = 1) -> None:
        self.code = code
        super().__init__(message)


#: Version of the JSON documents' layout: bumped when a key is renamed or removed (adding keys does not bump it).
#: 1: every document starts with ``schema_version``, ``package_version``, ``command`` and ``inputs`` (every flag
#: of the command, as given or defaulted); quantities carry their unit in the key (``period_s``, ``period_rtt``).
#: 2: ``packet run`` echoes the options of its own laws only, with the unit in the key (``t_low_us``); the packet
#: summary's ``throughput_by_law`` is ``throughput_by_law_pps``.
SCHEMA_VERSION = 2


def _context() -> Any:
    """The running command's click context (None outside a command)."""
    try:
        from typer._click.globals import get_current_context  # typer >= 0.20 vendors click
    except ImportError:  # pragma: no cover
        from click import get_current_context
    return get_current_context(silent=True)


def echo_inputs(values: dict[str, Any]) -> None:
    """Record flags whose default is decided after parsing (a law's own defaults) in the JSON's ``inputs``."""
    ctx = _context()
    if ctx is not None:
        ctx.params.update(values)


def json_envelope(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` behind the common header: schema version, package version, the command and its full inputs."""
    from .._provenance import __version__

    head: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "package_version": __version__}
    ctx = _context()
    if ctx is not None:
        head["command"] = " ".join(ctx.command_path.split()[1:])
        head["inputs"] = {k: v for k, v in ctx.params.items() if k != "json"}
    return {**head, **obj}


def emit_json(obj: dict[str, Any]) -> None:
    """Print exactly one JSON object on stdout, behind :func:`json_envelope`'s header."""
    sys.stdout.write(json.dumps(to_jsonable(json_envelope(obj)), sort_keys=False, default=str) + "\n")
    sys.stdout.flush()


#: The accepted forms of a quantity flag, shown when a value is refused. ``--packet-size`` alone has a documented
#: default unit (bytes); a rate or a time must name its unit, because a bare ``100`` read as 100 s (or 100 bit/s)
#: silently gives nonsense.
UNIT_FORMS = {
    "rate": '"10Gbps", "10G", "100Mbps" or "833333pps"',
    "time": '"100us", "0.1ms", "20ms" or "1e-4s"',
}


def require_unit(flag: str, text: object, kind: str) -> None:
    """Refuse a bare number (other than 0) for a rate or time flag, with the accepted forms."""
    try:
        v = float(str(text).strip())
    except ValueError:
        return  # has a unit (or is garbage, which the parser refuses with its own message)
    if v != 0.0:
        raise UsageError(
            flag, text, f"a {kind} with its unit, such as {UNIT_FORMS[kind]} (a bare number has none)"
        )


_PENDING: list[str] = []


def warn(message: str) -> None:
    """Queue one ``warning:`` line for stderr (silenced by ``--quiet``). Queued lines are written by
    :func:`flush_warnings`: when work starts (:func:`status`, :func:`steps`, a command's own call once its inputs
    passed every check) or when the command ends well; a command that ends in an error drops them, so a refused
    input gets its one error line and nothing else."""
    if not _QUIET:
        _PENDING.append(message)


def flush_warnings() -> None:
    """Write the queued warnings (see :func:`warn`)."""
    for message in _PENDING:
        sys.stderr.write(f"warning: {message}\n")
    _PENDING.clear()
    sys.stderr.flush()


def drop_warnings() -> None:
    """Forget the queued warnings (the command failed; its error line says what matters)."""
    _PENDING.clear()


def warn_implausible(link: LinkParams, duration_s: float | None = None) -> None:
    """Warn before work starts when the inputs are legal but implausible: a BDP below one packet, or a simulated
    time above 10⁴ RTTs. A simulated time shorter than one RTT is refused (``--duration``): no feedback arrives
    within it, so a run would report the start-up as a result."""
    if duration_s is not None:
        check_duration(link, duration_s)
    bdp = link.bdp
    if bdp < 1.0:
        warn(
            f"BDP = C·τ = {bdp:.3g} packets is below one packet (capacity {link.capacity:.4g} bit/s, "
            f"RTT {link.rtt:.4g} s): check the units of --capacity and --rtt"
        )
    if duration_s is not None and duration_s > 1e4 * link.rtt:
        warn(f"--duration is {duration_s / link.rtt:.3g} RTTs (> 10⁴): the run may take a long time")


def check_duration(link: LinkParams, duration_s: float) -> None:
    """Refuse a simulated time (``--duration``) shorter than one base RTT: no feedback arrives within it, so a run
    would report the start-up as a result. Every command with a ``--duration`` and a link calls it."""
    if duration_s < link.rtt:
        from ..units import format_time

        raise UsageError(
            "--duration",
            format_time(duration_s),
            f"a time of at least one base RTT ({format_time(link.rtt)}): feedback takes one RTT to arrive",
        )


def link_from_flags(
    capacity: str, rtt: str, packet_size: str | float = 1500, *, warn_now: bool = True
) -> LinkParams:
    """Build a :class:`LinkParams` from ``--capacity``, ``--rtt`` and ``--packet-size``, as usage errors.

    Capacity and RTT must carry a unit (:func:`require_unit`); the packet size is in bytes. A BDP below one packet
    is warned about (:func:`warn_implausible`), unless ``warn_now`` is False: a command whose later checks may
    still refuse the input warns itself once they passed, so an error is never preceded by warnings.
    """
    require_unit("--capacity", capacity, "rate")
    require_unit("--rtt", rtt, "time")
    link = _link(capacity, rtt, packet_size)
    if warn_now:
        warn_implausible(link)
    return link


def _link(capacity: str, rtt: str, packet_size: str | float) -> LinkParams:
    try:
        size = LinkParams(packet_size=packet_size).packet_size
    except ValueError:
        raise UsageError(
            "--packet-size", packet_size, f'{BOUNDS["packet_size"].accepted("packet_size")}, e.g. "1500"'
        ) from None
    try:
        LinkParams(capacity=capacity, packet_size=size)
    except ValueError:
        raise UsageError("--capacity", capacity, f"a positive rate such as {UNIT_FORMS['rate']}") from None
    try:
        return LinkParams(capacity=capacity, rtt=rtt, packet_size=size)
    except ValueError:
        raise UsageError("--rtt", rtt, f"a positive time such as {UNIT_FORMS['time']}") from None


#: The most values one list or range flag may hold (the grid's size is checked separately, before any work).
MAX_LIST = 100_000


def _parse_number(flag: str, tok: str, accepted: str) -> float:
    try:
        v = float(tok) if tok.strip().isascii() else math.nan
    except ValueError:
        raise UsageError(flag, tok, accepted) from None
    if not math.isfinite(v):
        raise UsageError(flag, tok, accepted)
    return v


def parse_list(flag: str, text: str) -> np.ndarray:
    """Parse ``"10,100,1000"`` or a range ``"start:stop:num"`` (``"...:25log"`` for log spacing) into floats."""
    accepted = 'comma-separated numbers ("10,100,1000") or a range "start:stop:num" ("10:10000:25log" for log spacing)'
    s = str(text).strip()
    if not s:
        raise UsageError(flag, text, accepted)
    if ":" in s:
        parts = s.split(":")
        if len(parts) != 3:
            raise UsageError(flag, text, accepted)
        start = _parse_number(flag, parts[0], accepted)
        stop = _parse_number(flag, parts[1], accepted)
        num_s = parts[2].strip()
        log = num_s.endswith("log")
        num_s = num_s[:-3] if log else num_s
        if not (num_s.isascii() and num_s.isdigit()) or int(num_s) < 1:
            raise UsageError(flag, text, accepted)
        if stop < start:
            raise UsageError(flag, text, "an ascending range start:stop:num (start <= stop)")
        if int(num_s) > MAX_LIST:
            raise UsageError(flag, text, f"a range of at most {MAX_LIST} values")
        num = int(num_s)
        if log:
            if start <= 0 or stop <= 0:
                raise UsageError(flag, text, "a log range needs positive start and stop")
            return np.geomspace(start, stop, num)
        return np.linspace(start, stop, num)
    if s.count(",") >= MAX_LIST:
        raise UsageError(flag, f"{s[:20]}…", f"a list of at most {MAX_LIST} values")
    return np.array([_parse_number(flag, t.strip(), accepted) for t in s.split(",")], dtype=float)


#: Units of the keys commands print, for the human tables (JSON keys carry theirs as a suffix where ambiguous).
_UNITS = {
    "queue": "packets",
    "window": "packets",
    "cwnd": "packets",
    "amplitude": "packets",
    "bdp": "packets",
    "kbar": "packets",
    "k": "packets",
    "target": "packets",
    "marking_threshold": "packets",
    "buffer": "packets",
    "hop_threshold": "packets",
    "cubic_c": "packets/s³",
    "rate_mean": "fraction of C",  # a pacing rate in packets per slot: one packet per slot is C
    "q_min": "C·R*",
    "q_max": "C·R*",
    "utilization": "fraction of C",
    "throughput": "fraction of C",
    "alpha": "1",
    "wbar": "packets",
    "w_star": "packets",
    "fixed_point_queue": "packets",
    "drops": "packets",
}
_SUFFIX_UNITS = (
    ("_packets", "packets"),
    ("_pkt", "packets"),
    ("_pps", "packets/s"),
    ("_bps", "bit/s"),
    ("_gbps", "Gbit/s"),
    ("_mbps", "Mbit/s"),
    ("_bytes", "bytes"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_rtts", "RTT"),
    ("_rtt", "RTT (R*)"),
    ("_s", "s"),
    ("_fraction", "fraction"),
)


def unit_of(key: str) -> str:
    """The unit a printed quantity is in, from its name (``period_s`` → s; ``queue_mean`` → packets); "" if none."""
    for suffix, unit in _SUFFIX_UNITS:
        if key.endswith(suffix):
            return unit
    base = key.split("_")[0] if key not in _UNITS else key
    return _UNITS.get(key, _UNITS.get(base, ""))


def print_quantities(title: str, out: dict[str, Any], skip: tuple[str, ...] = ()) -> None:
    """The human form of a command's result: one table, quantity | value | unit."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title, show_header=True)
    t.add_column("quantity", style="bold")
    t.add_column("value", justify="right")
    t.add_column("unit")
    for k, v in out.items():
        if k in skip or isinstance(v, dict | list):
            continue
        unit = "" if isinstance(v, bool) or isinstance(v, str) else unit_of(k)
        t.add_row(k, f"{v:.6g}" if isinstance(v, float) else ("—" if v is None else str(v)), unit)
    Console().print(t)


def print_written(paths: Iterable[Any]) -> None:
    """Say what a command wrote, one ``wrote PATH`` line each, on stderr (stdout stays the result / JSON)."""
    if _QUIET:
        return
    for p in paths:
        sys.stderr.write(f"wrote {p}\n")
