"""What a failed or interrupted sweep says (every sweep command alike): the one-line error of a failure, and the
signal handler that tells an interrupt from the error a library raises when Ctrl-C lands inside it."""

from __future__ import annotations

from .common import UsageError, WorkError

__all__ = ["_Interrupts", "_sweep_error"]


def _sweep_error(e: Exception, store: object, refuse_damaged: bool, kept) -> None:
    """The one-line error for a sweep that failed (not interrupted): a damaged store, a refused resume, a failure."""
    from ..sweep.integrity import StoreDamagedError

    if isinstance(e, StoreDamagedError):
        raise WorkError(f"{e} (rerun without --refuse-damaged to recompute those chunks)") from None
    if isinstance(e, ValueError):
        if str(e).startswith("resume="):
            raise UsageError("--resume", str(store), str(e).split("accepted ", 1)[-1]) from None
        raise WorkError(f"sweep failed: {type(e).__name__}: {e}; {kept()}") from None
    if isinstance(e, OSError | RuntimeError | ArithmeticError | MemoryError):
        raise WorkError(f"sweep failed: {type(e).__name__}: {e}; {kept()}") from None
    raise e


class _Interrupts:
    """A SIGINT and SIGTERM handler that remembers it fired (and the exit status the signal asks for: 130, 143)
    and then raises KeyboardInterrupt as the default SIGINT handler does."""

    def __init__(self) -> None:
        import signal
        import threading

        self.fired = False
        self._old: dict = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handler)

    def _handler(self, signum: int, frame: object) -> None:
        from ..interrupts import INTERRUPT_CODE

        self.fired = True
        INTERRUPT_CODE[0] = 128 + signum
        raise KeyboardInterrupt

    def __call__(self) -> bool:
        return self.fired

    def restore(self) -> None:
        import signal

        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}
