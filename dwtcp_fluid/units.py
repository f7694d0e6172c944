"""Parsing of rates, times and sizes, and the one place where bytes become packets.

Conventions (see docs/equations.md, "Units used throughout the project"):

* rates are bits per second (SI prefixes k, M, G, T are powers of 1000) or packets per second ("pps");
* times are seconds;
* sizes are bytes (decimal prefixes kB, MB, GB; binary KiB, MiB, GiB);
* windows and queues inside the models are packets of ``packet_size`` bytes. :func:`bytes_to_packets` and
  :func:`rate_to_pps` are the only conversions from bytes/bits to packets in the package.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import cast

__all__ = [
    "Rate",
    "parse_rate",
    "parse_time",
    "parse_size",
    "rate_to_pps",
    "bytes_to_packets",
    "format_rate",
    "format_time",
]

_NUMBER = r"(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
_RATE_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_RATE_RE = re.compile(_NUMBER + r"\s*(?P<prefix>[kKMGT]?)(?P<unit>bps|bit/s|b/s|)$", re.ASCII)
_PPS_RE = re.compile(_NUMBER + r"\s*(?P<prefix>[kKMG]?)pps$", re.ASCII)
_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9, "": 1.0}
_TIME_RE = re.compile(_NUMBER + r"\s*(?P<unit>s|ms|us|µs|μs|ns|)$", re.ASCII)
_SIZE_UNITS = {
    "": 1.0,
    "B": 1.0,
    "kB": 1e3,
    "KB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "KiB": 1024.0,
    "MiB": 1024.0**2,
    "GiB": 1024.0**3,
}
_SIZE_RE = re.compile(_NUMBER + r"\s*(?P<unit>B|kB|KB|MB|GB|KiB|MiB|GiB|)$", re.ASCII)


@dataclass(frozen=True)
class Rate:
    """A link rate, either in bits/s or in packets/s (exactly one of the two is set)."""

    bits_per_s: float | None = None
    packets_per_s: float | None = None

    def pps(self, packet_size: float) -> float:
        """Rate in packets/s for packets of ``packet_size`` bytes."""
        return rate_to_pps(self, packet_size)

    def bps(self, packet_size: float) -> float:
        """Rate in bits/s for packets of ``packet_size`` bytes."""
        if self.bits_per_s is not None:
            return self.bits_per_s
        return float(cast(float, self.packets_per_s)) * packet_size * 8.0  # one of the two is set


def _fail(kind: str, text: object, accepted: str) -> ValueError:
    return ValueError(f"{kind} {text!r} is invalid: expected {accepted}")


def _finite_nonneg(value: float, kind: str, text: str, accepted: str) -> float:
    if not math.isfinite(value) or value < 0:
        raise _fail(kind, text, accepted)
    return value


_RATE_ACCEPTED = 'a non-negative rate such as "10Gbps", "10G", "2.5Mbps" or "833333pps"'
_TIME_ACCEPTED = 'a non-negative time such as "100us", "100µs", "0.1ms", "1e-4s" or "250ns"'
_SIZE_ACCEPTED = 'a non-negative size in bytes such as "1500", "1500B", "64B", "9kB" or "1MiB"'


def parse_rate(text: str | float | int | Rate) -> Rate:
    """Parse a link rate.

    A bare number is bits/s. ``"10G"`` and ``"10Gbps"`` are 10e9 bits/s; ``"833333pps"`` is packets/s.

    Raises
    ------
    ValueError
        On anything else (``"10Gbs"``, ``"-1G"``, ``""``, ``"fast"``), naming the text and the accepted forms.
    """
    if isinstance(text, Rate):
        return text
    if isinstance(text, bool):
        raise _fail("rate", text, _RATE_ACCEPTED)
    if isinstance(text, int | float):
        return Rate(bits_per_s=_finite_nonneg(float(text), "rate", str(text), _RATE_ACCEPTED))
    s = str(text).strip()
    m = _PPS_RE.match(s)
    if m:
        v = float(m["num"]) * _RATE_PREFIX[m["prefix"]]
        return Rate(packets_per_s=_finite_nonneg(v, "rate", s, _RATE_ACCEPTED))
    m = _RATE_RE.match(s)
    if m:
        v = float(m["num"]) * _RATE_PREFIX[m["prefix"]]
        return Rate(bits_per_s=_finite_nonneg(v, "rate", s, _RATE_ACCEPTED))
    raise _fail("rate", text, _RATE_ACCEPTED)


def parse_time(text: str | float | int) -> float:
    """Parse a time and return seconds. A bare number is seconds ("1e-4" = 100 µs)."""
    if isinstance(text, bool):
        raise _fail("time", text, _TIME_ACCEPTED)
    if isinstance(text, int | float):
        return _finite_nonneg(float(text), "time", str(text), _TIME_ACCEPTED)
    s = str(text).strip()
    m = _TIME_RE.match(s)
    if not m:
        raise _fail("time", text, _TIME_ACCEPTED)
    return _finite_nonneg(float(m["num"]) * _TIME_UNITS[m["unit"]], "time", s, _TIME_ACCEPTED)


def parse_size(text: str | float | int) -> float:
    """Parse a size and return bytes. A bare number is bytes."""
    if isinstance(text, bool):
        raise _fail("size", text, _SIZE_ACCEPTED)
    if isinstance(text, int | float):
        return _finite_nonneg(float(text), "size", str(text), _SIZE_ACCEPTED)
    s = str(text).strip()
    m = _SIZE_RE.match(s)
    if not m:
        raise _fail("size", text, _SIZE_ACCEPTED)
    return _finite_nonneg(float(m["num"]) * _SIZE_UNITS[m["unit"]], "size", s, _SIZE_ACCEPTED)


def rate_to_pps(rate: str | float | Rate, packet_size: float) -> float:
    """Convert a rate to packets/s for packets of ``packet_size`` bytes (the bits → packets conversion)."""
    r = parse_rate(rate)
    if r.packets_per_s is not None:
        return float(r.packets_per_s)
    return float(cast(float, r.bits_per_s)) / (8.0 * packet_size)  # one of the two is set


def bytes_to_packets(nbytes: float, packet_size: float) -> float:
    """Convert bytes to (fractional) packets of ``packet_size`` bytes (the bytes → packets conversion)."""
    return float(nbytes) / float(packet_size)


def format_rate(bits_per_s: float) -> str:
    """Format bits/s with the largest SI prefix that keeps the mantissa ≥ 1 (inverse of :func:`parse_rate`)."""
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(bits_per_s) >= scale:
            return f"{bits_per_s / scale:.17g}{prefix}bps"
    return f"{bits_per_s:.17g}bps"


def format_time(seconds: float) -> str:
    """Format seconds with s, ms, us or ns (inverse of :func:`parse_time`)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.17g}{unit}"
    return f"{seconds / 1e-9:.17g}ns"
