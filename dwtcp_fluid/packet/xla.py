"""Compiling the packet core: one native kernel per run, and a persistent cache of compiled programs.

**Why.** The packet core is an event loop: per slot it does a handful of scalar steps (one ACK, one send, one
departure). XLA:CPU's default runtime launches every fused operation as a separate kernel (~50 ns each), so such a
loop pays for dispatch, not work (4 µs per slot measured). XLA has a pass that compiles a *small* while loop into
one native function (``SmallWhileLoopHoistingPass``, gated by the backend option
``xla_cpu_small_while_loop_byte_threshold``, 64 kB of loop state by default). Raising the threshold for the packet
core's programs only turns its slot loop into one kernel: 80-90 ns per slot for one scenario. The option is a
map-valued debug option that ``compiler_options`` cannot pass, so :func:`compile_packet` adds it to the serialized
compile options of the packet core's own compilations (nothing else in the process is affected). If the JAX
internals it relies on change, the option is dropped with a warning: results are the same, only slower
(``tests/test_packet_engine.py`` checks that the compiled program is one kernel).

**Cache.** Compiled programs are stored with ``jax.experimental.serialize_executable`` under
``$DWTCP_FLUID_CACHE_DIR`` (default ``~/.cache/dwtcp_fluid/packet``), keyed by the static configuration, the JAX
version, the CPU and a hash of the packet core's source files, so a changed engine never loads a stale program. Set
``DWTCP_FLUID_CACHE_DIR=off`` to disable it. Nothing depends on the cache being present.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jax

from .._provenance import tree_digest
from ..atomic import write_bytes

__all__ = ["compile_packet", "hoisting_active", "cache_dir", "SMALL_LOOP_THRESHOLD", "PINNED_OPTIONS"]

#: Byte threshold given to XLA's small-while-loop pass for the packet core (loop state up to 256 MB: every
#: configuration the core builds).
SMALL_LOOP_THRESHOLD = 1 << 28

#: Debug options every packet-core compile pins, whatever ``XLA_FLAGS`` says. XLA:CPU's region-analysis copy
#: insertion (off by default) miscompiles the slot loop's in-place ring updates: measured with jax 0.10.2, records
#: changed (DCTCP, 300 ms: Σ cwnd_end 52976 → 205828) and two runs of one scenario differed.
PINNED_OPTIONS = {"xla_cpu_copy_insertion_use_region_analysis": False}

_local = threading.local()
_patched = False
_warned = False


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint((number << 3) | 2) + _varint(len(payload)) + payload


def _extra_option(key: str, value: str) -> bytes:
    """Serialized ``CompileOptionsProto`` fragment setting ``executable_build_options.debug_options.
    xla_backend_extra_options[key] = value`` (fields 3 → 3 → 500; protobuf merges a repeated message field)."""
    entry = _field(1, key.encode()) + _field(2, value.encode())
    return _field(3, _field(3, _field(500, entry)))


def _install() -> None:
    global _patched
    if _patched:
        return
    from jax._src import compiler as _compiler

    original = _compiler.get_compile_options

    def get_compile_options(*args: Any, **kwargs: Any) -> Any:
        opts = original(*args, **kwargs)
        extra = getattr(_local, "extra", None)
        if not extra:
            return opts
        try:
            return type(opts).ParseFromString(opts.SerializeAsString() + extra)
        except Exception as e:  # pragma: no cover - only if the JAX internals change
            _warn(f"could not set the small-loop option ({type(e).__name__}: {e})")
            return opts

    _compiler.get_compile_options = get_compile_options
    _patched = True


def _warn(msg: str) -> None:
    global _warned
    if not _warned:
        warnings.warn(f"packet core: {msg}; runs are correct but slower", RuntimeWarning, stacklevel=3)
        _warned = True


@contextlib.contextmanager
def _small_loops() -> Iterator[None]:
    try:
        _install()
    except Exception as e:  # pragma: no cover
        _warn(f"could not install the compile-option hook ({type(e).__name__}: {e})")
        yield
        return
    _local.extra = _extra_option("xla_cpu_small_while_loop_byte_threshold", str(SMALL_LOOP_THRESHOLD))
    try:
        yield
    finally:
        _local.extra = None


def hoisting_active(compiled: Any) -> bool:
    """True when the compiled program runs its loops as single native kernels (XLA's ``xla_cpu_small_call``)."""
    return "xla_cpu_small_call" in compiled.as_text()


def cache_dir() -> Path | None:
    """The persistent cache directory, or None when disabled (``DWTCP_FLUID_CACHE_DIR=off``)."""
    env = os.environ.get("DWTCP_FLUID_CACHE_DIR")
    if env is not None and env.strip().lower() in ("", "0", "off", "none", "false"):
        return None
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dwtcp_fluid" / "packet"


_SOURCE_HASH: str | None = None


def _source_hash() -> str:
    """Hash of the packet core's source files (engine, switch, laws, ...): part of every cache key."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        _SOURCE_HASH = tree_digest(Path(__file__).resolve().parent)
    return _SOURCE_HASH


def _machine() -> str:
    """The CPU the program is compiled for (a program built with AVX-512 must not load on a CPU without it)."""
    import platform

    flags = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(("flags", "Features", "model name")):
                flags += line
                if line.startswith(("flags", "Features")):
                    break
    except OSError:
        pass
    return platform.machine() + platform.processor() + hashlib.sha256(flags.encode()).hexdigest()[:12]


def _key(static_key: Any, args: Any) -> str:
    shapes = jax.tree.map(lambda a: (tuple(a.shape), str(a.dtype)), args)
    options = (SMALL_LOOP_THRESHOLD, PINNED_OPTIONS)
    text = repr((static_key, shapes, jax.__version__, _source_hash(), options, _machine()))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _without_jax_cache() -> contextlib.AbstractContextManager[Any]:
    """JAX's own persistent compilation cache off for the packet core's compilations (``JAX_COMPILATION_CACHE_DIR``
    set by a user or the test suite): an executable JAX loads from its cache and this module then serializes does
    not carry its kernels, and running it fails ("Function ... not found"). This module's cache holds these
    programs instead; other programs in the process keep JAX's cache."""
    try:
        from jax._src.config import enable_compilation_cache

        return enable_compilation_cache(False)
    except (ImportError, AttributeError, TypeError):  # a JAX without the switch: nothing to turn off
        return contextlib.nullcontext()


def compile_packet(fn: Callable[..., Any], args: tuple[Any, ...], static_key: Any) -> Any:
    """Compile ``fn(*args)`` (abstract shapes taken from ``args``) with the packet core's options, loading it
    from / storing it in the persistent cache. Returns a compiled callable.

    A cache entry that loads but does not run ("Function ... not found": its kernels did not travel with it) is
    replaced at its first call by a fresh compilation: the cache is an optimisation only, never a failure."""
    d = cache_dir()
    path = d / f"{_key(static_key, args)}.bin" if d is not None else None
    if path is not None and path.is_file():
        try:
            from jax.experimental.serialize_executable import deserialize_and_load

            payload, in_tree, out_tree = pickle.loads(path.read_bytes())
            loaded = deserialize_and_load(payload, in_tree, out_tree)
        except Exception:  # a cache entry from another build: recompile and overwrite it
            pass
        else:
            return _Cached(loaded, lambda: _compile_and_store(fn, args, path))
    return _compile_and_store(fn, args, path)


def _compile_and_store(fn: Callable[..., Any], args: tuple[Any, ...], path: Path | None) -> Any:
    with _small_loops(), _without_jax_cache():
        compiled = jax.jit(fn).lower(*args).compile(compiler_options=dict(PINNED_OPTIONS))
    if not hoisting_active(compiled):
        _warn("XLA did not compile the slot loop into one kernel")
    if path is not None:
        try:
            from jax.experimental.serialize_executable import serialize

            blob = pickle.dumps(serialize(compiled))
            write_bytes(path, blob, journal=False)
        except Exception:  # the cache is an optimisation only
            pass
    return compiled


class _Cached:
    """A compiled program loaded from the cache; if its first call fails because the entry cannot run, the program
    is compiled again (and the entry overwritten) and the call repeated."""

    def __init__(self, loaded: Any, recompile: Callable[[], Any]) -> None:
        self._fn, self._recompile, self._checked = loaded, recompile, False

    def __call__(self, *a: Any, **k: Any) -> Any:
        if self._checked:
            return self._fn(*a, **k)
        try:
            out = jax.block_until_ready(self._fn(*a, **k))  # the error shows when the result is computed
        except Exception as e:  # XlaRuntimeError / JaxRuntimeError: "NOT_FOUND: Function ... not found"
            if "not found" not in str(e).lower():
                raise
            self._fn = self._recompile()
            out = self._fn(*a, **k)
        self._checked = True
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)
