"""Worker processes for large batches of the packet core (XLA:CPU runs one computation at a time per process).

A worker is ``python -m dwtcp_fluid.packet.workers``: it reads pickled jobs ``(spec, scenarios, max_batch)`` from
its stdin and writes pickled results to its stdout, length-prefixed, until stdin closes. Workers are started by
:func:`pool` (once, then kept) as plain subprocesses, not ``multiprocessing`` children, so the caller's main
module is never re-imported (scripts need no ``if __name__ == "__main__"`` guard). A worker loads compiled
programs from the persistent cache (:mod:`.xla`) or compiles them itself.
"""

from __future__ import annotations

import atexit
import pickle
import struct
import subprocess
import sys
import threading
from typing import Any

__all__ = ["Worker", "pool"]

_HEADER = struct.Struct("<Q")


def _send(stream: Any, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _recv(stream: Any) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError("packet worker closed its pipe")
    (n,) = _HEADER.unpack(head)
    return pickle.loads(stream.read(n))


class Worker:
    """One worker process; :meth:`submit` runs a job in it (returns a thread-safe handle with ``result()``)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dwtcp_fluid.packet.workers"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.lock = threading.Lock()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def submit(self, job: tuple) -> _Job:
        return _Job(self, job)

    def close(self) -> None:
        if self.alive():
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
                self.proc.wait(timeout=5)
            except Exception:
                self.proc.kill()


class _Job:
    def __init__(self, worker: Worker, job: tuple) -> None:
        self.out: Any = None
        self.err: BaseException | None = None

        def go() -> None:
            try:
                with worker.lock:
                    _send(worker.proc.stdin, job)
                    status, value = _recv(worker.proc.stdout)
                if status == "ok":
                    self.out = value
                else:
                    self.err = RuntimeError(f"packet worker failed: {value}")
            except BaseException as e:  # a dead worker: the caller reruns the job itself
                self.err = e

        self.thread = threading.Thread(target=go, daemon=True)
        self.thread.start()

    def result(self) -> Any:
        self.thread.join()
        if self.err is not None:
            raise self.err
        return self.out


_POOL: list[Worker] = []


def pool(n: int) -> list[Worker]:
    """``n`` live workers (started on first use and kept for the life of the process)."""
    _POOL[:] = [w for w in _POOL if w.alive()]
    while len(_POOL) < n:
        _POOL.append(Worker())
    return _POOL[:n]


@atexit.register
def _close() -> None:
    for w in _POOL:
        w.close()


def _main() -> None:
    from .calls import _run_calls

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed goes to stderr, never into the result pipe
    while True:
        try:
            spec, scens, max_batch = _recv(stdin)
        except EOFError:
            return
        try:
            _send(stdout, ("ok", _run_calls(spec, scens, max_batch)))
        except Exception as e:  # report, keep serving
            _send(stdout, ("error", f"{type(e).__name__}: {e}"))


if __name__ == "__main__":
    _main()
