"""Compile the native packet loop ahead of its first use (``make install``), saying what it is doing.

The loop is one Numba function (:func:`.native.loop.run_scenario`) into which every helper of the package is
inlined, so one compile serves every law. Numba reports its compiler passes as events (:mod:`numba.core.event`);
:func:`precompile` listens to them, without changing what is compiled, and reports each helper module as its first
function is inlined (its laws, from the module's docstring), each pass of the loop that takes a second or more
(type inference and the lowering through LLVM take nearly all of the time), and, while a pass runs longer, a
line every ``every`` seconds with the time so far. ``python -m dwtcp_fluid.packet.precompile`` prints them.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .batch import stack
from .build import build
from .engine import prepare, spec_for
from .native import run_prepared_native

__all__ = ["precompile"]

_ENTRY = "run_scenario"
#: Numba's pass names, in words (any other pass is reported under its own name).
_PASSES = {
    "nopython_type_inference": "type inference",
    "native_lowering": "lowering to LLVM IR and machine code",
    "inline_inlinables": "inlining the helpers",
}


def _module_label(module: str) -> str:
    """A native module's name and what it runs: its docstring's first sentence, up to the first colon."""
    mod = sys.modules.get(module)
    doc = (getattr(mod, "__doc__", None) or "").strip().split("\n")[0]
    head = doc.split(": ")[0].split(" (")[0].rstrip(".")
    return f"{module.rsplit('.', 1)[-1]} ({head})" if head else module.rsplit(".", 1)[-1]


class _Listener:
    """Turns Numba's pass events into lines: the first function compiled or inlined from each module of
    ``package``, each pass of the function ``entry`` lasting ``min_seconds`` or more, and a heartbeat every ``every``
    seconds while one of its passes runs."""

    def __init__(
        self,
        say: Callable[[str], None],
        every: float,
        *,
        entry: str = _ENTRY,
        package: str = __name__.rsplit(".", 1)[0] + ".native",
        min_seconds: float = 1.0,
    ) -> None:
        from numba.core import event as ev

        self._ev, self._say, self._every = ev, say, every
        self.t0 = time.perf_counter()
        self.modules: list[str] = []
        self.compiled = False
        self._stage: str | None = None
        self._stage_t0 = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        outer = self

        class _L(ev.Listener):  # type: ignore[misc]
            def on_start(self, event: Any) -> None:
                d = event.data or {}
                qual, module = str(d.get("qualname", "")), str(d.get("module", ""))
                if (module == package or module.startswith(package + ".")) and module not in outer.modules:
                    outer.modules.append(module)
                    outer._line(f"inlining {_module_label(module)}")
                if qual == entry:
                    outer.compiled = True
                    name = str(d.get("name", "")).split(" [")[0]
                    with outer._lock:
                        outer._stage, outer._stage_t0 = _PASSES.get(name, name), time.perf_counter()

            def on_end(self, event: Any) -> None:
                d = event.data or {}
                if str(d.get("qualname", "")) != entry:
                    return
                with outer._lock:
                    stage, dt = outer._stage, time.perf_counter() - outer._stage_t0
                    outer._stage = None
                if stage is not None and dt >= min_seconds:
                    outer._line(f"{stage} done ({dt:.0f} s)")

        self._listener = _L()

    def _line(self, text: str) -> None:
        self._say(f"[{time.perf_counter() - self.t0:5.0f} s] {text}")

    def _beat(self) -> None:
        while not self._stop.wait(self._every):
            with self._lock:
                stage, dt = self._stage, time.perf_counter() - self._stage_t0
            if stage is not None:
                self._line(f"{stage}: {dt:.0f} s so far")

    def __enter__(self) -> _Listener:
        self._ev.register("numba:run_pass", self._listener)
        self._thread = threading.Thread(target=self._beat, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._ev.unregister("numba:run_pass", self._listener)


def precompile(say: Callable[[str], None] | None = None, *, every: float = 30.0) -> float:
    """Compile the native loop now (one compiled signature serves every law) and store it in Numba's on-disk cache,
    so that later processes load it (a few seconds) instead of each compiling it (about 50 s of CPU on an idle
    core; minutes on a loaded one): ``make install`` calls it once, as a package with a C extension compiles it at
    install time. ``say`` receives one line per event of the compile (see the module docstring; ``every`` seconds
    between heartbeat lines), or when the compiled loop was loaded from the cache. Returns the seconds it took."""
    t0 = time.perf_counter()
    pr = build("dwtcp", flows=2, duration="1ms", trace_points=7)
    spec = spec_for(pr.cfg, pr.engine_laws, stack([pr.scenario]))
    scen = prepare(spec, pr.scenario)
    if say is None:
        run_prepared_native(spec, [scen], 1)
        return time.perf_counter() - t0
    say(
        "native packet loop: one Numba function, every law inlined; compiled once (minutes on a loaded machine),"
        " then loaded from the cache"
    )
    with _Listener(say, every) as lis:
        run_prepared_native(spec, [scen], 1)
    if not lis.compiled:
        say(f"loaded from the cache in {Path(__file__).parent / 'native' / '__pycache__'}")
    return time.perf_counter() - t0


if __name__ == "__main__":  # pragma: no cover (make install)
    print(f"native packet loop ready in {precompile(lambda s: print(s, flush=True)):.0f} s", flush=True)
