"""Interrupts of a command (SIGINT, SIGTERM): the status they exit with, the handler that tells an interrupt from the
error a library raises when Ctrl-C lands inside it (:class:`Interrupts`), and the re-delivery of one a finalizer or
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

__all__ = ["INTERRUPT_CODE", "Interrupts", "redelivering", "swallowed_interrupt"]

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


class Interrupts:
    """A SIGINT and SIGTERM handler that remembers it fired (and the exit status the signal asks for, 130 or 143,
    in :data:`INTERRUPT_CODE`) and then raises KeyboardInterrupt as the default SIGINT handler does. Ctrl-C can land
    inside a library's lock or thread handshake, which then raises its own error (a Dask/threading wait: "RuntimeError:
    release unlocked lock") instead of KeyboardInterrupt: calling the object tells that error from a failure.
    Installed only in the main thread; :meth:`restore` puts the previous handlers back."""

    def __init__(self) -> None:
        self.fired = False
        self._old: dict = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handler)

    def _handler(self, signum: int, frame: object) -> None:
        self.fired = True
        INTERRUPT_CODE[0] = 128 + signum
        raise KeyboardInterrupt

    def __call__(self) -> bool:
        return self.fired

    def restore(self) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}
