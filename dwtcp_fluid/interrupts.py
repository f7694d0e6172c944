"""Interrupts of a command (SIGINT, SIGTERM): the status they exit with, and the re-delivery of one a finalizer or
GC callback swallowed.

A signal's Python handler runs in whatever Python code the main thread is executing, which may be a garbage
collector callback (JAX registers one) or a finalizer. The KeyboardInterrupt raised there is swallowed: the
interpreter prints "Exception ignored in ..." through :data:`sys.unraisablehook` and goes on, so the command would
run to its end and exit 0. :func:`redelivering` wraps that hook: an interrupt it receives is sent again 10 ms later
from a thread (once the callback has returned), to be raised in the command's own code. ``dwtcp-fluid`` installs it
before its imports (:mod:`dwtcp_fluid.__main__`), and each command run installs it for its duration.

A leaf: it imports only the standard library, so the console script can install it before anything else.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["INTERRUPT_CODE", "redelivering", "swallowed_interrupt"]

#: The exit status of the interrupt being handled: 130 for SIGINT (Ctrl-C), 143 for SIGTERM (set by the handler).
INTERRUPT_CODE = [130]

#: Timers re-delivering a swallowed interrupt that have not been cancelled.
_REDELIVER: list[threading.Timer] = []


def redelivering(hook: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An unraisable hook that sends a swallowed interrupt's signal again (SIGTERM when :data:`INTERRUPT_CODE`
    says 143, else SIGINT) and passes every other unraisable exception to ``hook``; ``hook`` itself when it
    already does."""
    if getattr(hook, "redelivers", False):
        return hook

    def on_unraisable(u: Any) -> None:
        if u.exc_type is not None and issubclass(u.exc_type, KeyboardInterrupt):
            sig = signal.SIGTERM if INTERRUPT_CODE[0] == 143 else signal.SIGINT
            again = threading.Timer(0.01, os.kill, (os.getpid(), sig))
            again.daemon = True
            _REDELIVER.append(again)
            again.start()
            return
        hook(u)

    on_unraisable.redelivers = True  # type: ignore[attr-defined]
    return on_unraisable


def swallowed_interrupt() -> bool:
    """Whether a swallowed interrupt still waits for its delivery (its timer is cancelled: the caller delivers
    it), e.g. when the command finished within the 10 ms before the timer fired."""
    timers = list(_REDELIVER)
    _REDELIVER.clear()
    for t in timers:
        t.cancel()
    return bool(timers)
