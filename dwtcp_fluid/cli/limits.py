"""Up-front limits: the size, memory and time a command will need, estimated before any work and refused beyond
stated limits (or, between the soft and the hard limit, run only with ``--yes``).

The estimates are deliberately simple (counts × measured unit costs on the reference machine, 2 cores); they exist
to stop a mistyped grid or duration from running for days or dying of memory, not to predict to the second.
"""

from __future__ import annotations

import os
import socket

from .common import UsageError

__all__ = ["check_budget", "check_scheduler", "available_memory", "fmt_bytes", "fmt_seconds"]

#: Soft limits: beyond them a command needs ``--yes``.
SOFT_SECONDS = 3600.0
SOFT_BYTES = 2 * 2**30


def available_memory() -> int:
    """Physical memory in bytes (the hard limit on a command's estimate is half of it)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 * 2**30


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} TiB"  # pragma: no cover


def fmt_seconds(s: float) -> str:
    if s < 120:
        return f"{s:.3g} s"
    if s < 7200:
        return f"{s / 60:.3g} min"
    if s < 2 * 86400:
        return f"{s / 3600:.3g} h"
    return f"{s / 86400:.3g} days"


def check_budget(flag: str, value: object, what: str, *, seconds: float, nbytes: float, yes: bool) -> None:
    """Refuse (UsageError naming ``flag``) work whose estimate exceeds the hard memory limit (half the machine's
    memory), or the soft limits (1 h, 2 GiB) without ``--yes``."""
    hard = available_memory() / 2
    est = f"{what} needs about {fmt_bytes(nbytes)} and {fmt_seconds(seconds)}"
    if nbytes > hard:
        raise UsageError(flag, value, f"work within half this machine's memory, {fmt_bytes(hard)} ({est})")
    if not yes and (seconds > SOFT_SECONDS or nbytes > SOFT_BYTES):
        raise UsageError(
            flag,
            value,
            f"work under {fmt_seconds(SOFT_SECONDS)} and {fmt_bytes(SOFT_BYTES)} without --yes ({est})",
        )


def check_scheduler(address: str, timeout: float = 3.0) -> None:
    """Refuse ``--scheduler`` unless a TCP connection to it opens within ``timeout`` seconds."""
    accepted = "the address of a running Dask scheduler, host:port or tcp://host:port"
    addr = address.strip()
    if "://" in addr:
        proto, addr = addr.split("://", 1)
        if proto not in ("tcp", "tls"):
            raise UsageError("--scheduler", address, accepted)
    host, sep, port_s = addr.rpartition(":")
    if not sep or not host or not (port_s.isascii() and port_s.isdigit()) or not 0 < int(port_s) < 65536:
        raise UsageError("--scheduler", address, accepted)
    try:
        with socket.create_connection((host.strip("[]"), int(port_s)), timeout=timeout):
            pass
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise UsageError("--scheduler", address, f"{accepted} (no scheduler answers there: {why})") from None
