"""Shared CLI helpers: usage errors (exit 2, one line), JSON output, common flags."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import numpy as np

from ..params import LinkParams

__all__ = ["UsageError", "WorkError", "emit_json", "link_from_flags", "parse_list", "to_jsonable"]


class UsageError(Exception):
    """Bad command-line input: printed as one line on stderr, exit status 2."""

    def __init__(self, flag: str, value: Any, accepted: str) -> None:
        self.flag, self.value, self.accepted = flag, value, accepted
        super().__init__(f"{flag} {value!r} is invalid: accepted {accepted}")


class WorkError(Exception):
    """A failure while the work ran (not the user's input): one line on stderr saying what failed and what was
    kept, exit status 1 (``code`` overrides it, e.g. 130 after Ctrl-C)."""

    def __init__(self, message: str, code: int = 1) -> None:
        self.code = code
        super().__init__(message)


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and non-finite floats (→ null) to plain JSON types."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, np.bool_ | bool):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating | float):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, complex | np.complexfloating):
        return [to_jsonable(obj.real), to_jsonable(obj.imag)]
    return obj


def emit_json(obj: dict[str, Any]) -> None:
    """Print exactly one JSON object on stdout."""
    sys.stdout.write(json.dumps(to_jsonable(obj), sort_keys=False) + "\n")
    sys.stdout.flush()


def link_from_flags(capacity: str, rtt: str, packet_size: str | float = 1500) -> LinkParams:
    """Build a :class:`LinkParams` from ``--capacity``, ``--rtt`` and ``--packet-size``, as usage errors."""
    try:
        size = LinkParams(packet_size=packet_size).packet_size
    except ValueError:
        raise UsageError("--packet-size", packet_size, 'bytes in [1, 65536], e.g. "1500"') from None
    try:
        LinkParams(capacity=capacity, packet_size=size)
    except ValueError:
        raise UsageError(
            "--capacity", capacity, 'a positive rate such as "10Gbps", "10G" or "833333pps"'
        ) from None
    try:
        return LinkParams(capacity=capacity, rtt=rtt, packet_size=size)
    except ValueError:
        raise UsageError("--rtt", rtt, 'a positive time such as "100us", "0.1ms" or "1e-4s"') from None


#: The most values one list or range flag may hold (the grid's size is checked separately, before any work).
MAX_LIST = 100_000


def _parse_number(flag: str, tok: str, accepted: str) -> float:
    try:
        v = float(tok)
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
        if not num_s.isdigit() or int(num_s) < 1:
            raise UsageError(flag, text, accepted)
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
