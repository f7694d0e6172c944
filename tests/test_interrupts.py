"""Ctrl-C and SIGTERM at any moment exit cleanly (130, 143) with the resume hint where chunks were kept, even when
the signal lands inside a library's lock handshake; a SIGKILL's lock and temporary files are removed by the next run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dwtcp_fluid.interrupts import Interrupts as _Interrupts


def test_handler_records_the_interrupt_and_restores_the_previous_handler():
    before = signal.getsignal(signal.SIGINT)
    seen = _Interrupts()
    assert not seen()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**6):  # the handler runs at the next bytecode boundary
            pass
    assert seen()
    seen.restore()
    assert signal.getsignal(signal.SIGINT) is before


def test_without_an_interrupt_nothing_is_recorded():
    seen = _Interrupts()
    try:
        assert not seen()
    finally:
        seen.restore()


def test_a_killed_runs_lock_and_temporaries_are_removed_by_the_next_run(tmp_path):
    """SIGKILL leaves the lock file (no process holds its flock any more, its pid is dead), a temporary NetCDF and a
    half-created store: the next run of that output removes them; a lock a live writer holds is kept."""
    from dwtcp_fluid.sweep.integrity import output_lock, remove_stale

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / ".s.lock").write_text(f"pid {dead.pid}")
    (tmp_path / ".s.nc.x1y2.tmp").write_bytes(b"partial")
    (tmp_path / "s.zarr.creating").mkdir()
    (tmp_path / "s.zarr.creating" / "zarr.json").write_text("{")
    (tmp_path / "s.nc").write_bytes(b"a result")
    with output_lock(tmp_path / ".other.lock"):
        removed = remove_stale(tmp_path, "s")
        assert (tmp_path / ".other.lock").exists()  # held by this live process
    assert sorted(p.name for p in removed) == [".s.lock", ".s.nc.x1y2.tmp", "s.zarr.creating"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.nc"]


ROOT = Path(__file__).resolve().parents[1]
SWEEP = ["sweep", "--bdp", "10:10000:30log", "--flows", "1,10", "--kbar-ratio", "0.1,1,10", "--frozen-only"]
SWEEP += ["--beta", "0.001,0.01", "--no-figure", "--json"]


def _as_a_terminal_starts_it() -> None:
    """``preexec_fn`` of every command these tests interrupt: SIGINT and SIGTERM at their defaults and unblocked, as
    a terminal starts a command. (A background job of a non-interactive shell starts with SIGINT ignored, POSIX's
    rule, and Python, like the CLI, then leaves it ignored: a test run from such a job must not inherit that.)"""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


def _sweep(out: Path, *extra: str) -> subprocess.Popen:
    exe = str(Path(sys.executable).with_name("dwtcp-fluid"))
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.Popen(
        [exe, *SWEEP, "--out", str(out), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        preexec_fn=_as_a_terminal_starts_it,
    )


def _debris(out: Path) -> list[str]:
    pats = ("*.creating", "*.tmp", ".*.tmp", ".*.lock")
    return sorted(str(p.relative_to(out)) for pat in pats for p in out.rglob(pat))


@pytest.mark.slow
def test_interrupts_at_random_moments_exit_cleanly_and_resume(tmp_path):
    """SIGINT or SIGTERM at a random moment of a sweep (start-up, chunks, the NetCDF, teardown): exit 130 or 143
    (or 0 when it finished first), never a signal death; one error line with the resume hint when chunks were kept;
    no temporary file, half-created store or lock left; --resume then gives the uninterrupted dataset."""
    import random
    import time

    import numpy as np
    import xarray as xr

    ref_dir = tmp_path / "ref"
    t0 = time.time()
    ref = _sweep(ref_dir)
    _, err = ref.communicate(timeout=600)
    span = time.time() - t0
    assert ref.returncode == 0, err
    (nc,) = ref_dir.glob("*.nc")
    truth = xr.load_dataset(nc, engine="h5netcdf")
    rng = random.Random(20261128)
    codes = []
    for trial in range(8):
        out = tmp_path / f"t{trial}"
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        run = _sweep(out)
        time.sleep(rng.uniform(1.0, 1.1 * span))  # after the interpreter and numpy start (~0.7 s)
        run.send_signal(sig)
        _, err = run.communicate(timeout=600)
        codes.append(run.returncode)
        assert run.returncode in (0, 128 + sig), (trial, sig, run.returncode, err)
        assert "Traceback" not in err and "Segmentation" not in err, err
        assert _debris(out) == [] if out.exists() else True, _debris(out)
        if run.returncode == 0:
            continue
        lines = [x for x in err.strip().splitlines() if x.startswith("error")]
        assert len(lines) == 1 and "interrupted" in lines[0], err
        if "--resume" in lines[0]:
            resumed = _sweep(out, "--resume")
            _, err = resumed.communicate(timeout=600)
            assert resumed.returncode == 0, err
            got = xr.load_dataset(out / nc.name, engine="h5netcdf")
            for v in truth.data_vars:
                assert np.array_equal(got[v].values, truth[v].values, equal_nan=got[v].dtype.kind == "f"), v
            assert not list(out.glob("*.zarr"))
        else:  # nothing was kept: nothing is there
            assert not out.exists() or not any(out.iterdir()), list(out.iterdir())
    assert any(c != 0 for c in codes), codes


@pytest.mark.slow
def test_sigkill_then_resume_removes_the_stale_lock(tmp_path):
    """The next run takes over the dead writer's lock, finishes from the kept chunks, and leaves no lock."""
    import time

    run = _sweep(tmp_path)
    t0 = time.time()
    while time.time() - t0 < 300 and len(list(tmp_path.glob("*.zarr/integrity/*.json"))) < 1:
        time.sleep(0.02)
    run.kill()
    run.wait()
    assert list(tmp_path.glob(".*.lock"))  # what a SIGKILL leaves (its flock died with the process)
    resumed = _sweep(tmp_path, "--resume")
    _, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    assert _debris(tmp_path) == [] and len(list(tmp_path.glob("*.nc"))) == 1


#: The console script's start (``from dwtcp_fluid.__main__ import entry; entry()``) with a signal sent to itself the
#: moment a given module starts to load: a deterministic "very early" interrupt, at each heavy import of the start.
_TRIP = """
import os, signal, sys
class Trip:
    def find_spec(self, name, path=None, target=None):
        if name == {target!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {sig})
            for _ in range(10**6):  # the handler runs at the next bytecode boundary
                pass
        return None
sys.meta_path.insert(0, Trip())
sys.argv = ["dwtcp-fluid", "dwtcp", "condition"]
from dwtcp_fluid.__main__ import entry
entry()
"""


@pytest.mark.parametrize("target", ["numpy", "typer", "dwtcp_fluid.cli.common"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_start_up_imports_exits_cleanly(target, sig):
    """SIGINT or SIGTERM while the console script is still importing NumPy, typer or the CLI: exit 130 or 143 and
    one error line, never a traceback or a signal death (the handlers are installed before anything heavy loads)."""
    code = _TRIP.format(target=target, sig=int(sig))
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        preexec_fn=_as_a_terminal_starts_it,
    )
    assert r.returncode == 128 + sig, (r.returncode, r.stderr[-2000:])
    assert r.stderr.strip().splitlines() == ["error: interrupted (nothing was written)"], r.stderr[-2000:]
    assert r.stdout == ""


def _start_up_seconds() -> float:
    """The fastest of three bare starts of the interpreter up to the package's entry module (this machine, now)."""
    import time

    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import dwtcp_fluid.__main__"], check=True, timeout=60)
        times.append(time.perf_counter() - t0)
    return min(times)


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` installed (Linux: the SigCgt mask of /proc/PID/status)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            mask = next((line.split()[1] for line in f if line.startswith("SigCgt:")), "0")
    except OSError:
        return False
    return bool(int(mask, 16) >> (sig - 1) & 1)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the signal masks in /proc")
def test_a_signal_at_any_delay_after_the_interpreter_starts_exits_cleanly():
    """SIGINT and SIGTERM at delays from just after the interpreter's own start-up (twice its measured bare start)
    through the imports into the command's work: always exit 130 or 143 with one error line. The command (a 2 s
    DWTCP fluid run) is still running at the last delay. A signal is sent only once the console script's entry has
    installed its SIGTERM handler (the process's SigCgt mask): before that the interpreter starts and the script
    imports its entry module, a window Python's defaults own (SIGINT: a traceback and a death by SIGINT; SIGTERM:
    a death by SIGTERM) whose length on a loaded machine no fixed delay bounds."""
    import time

    exe = str(Path(sys.executable).with_name("dwtcp-fluid"))
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    first = 2 * _start_up_seconds() + 0.01
    for delay in (first, first + 0.05, 0.15, 0.3, 0.42, 0.5, 0.8):
        for sig in (signal.SIGINT, signal.SIGTERM):
            run = subprocess.Popen(
                [exe, "dwtcp", "simulate", "--duration", "100ms"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                preexec_fn=_as_a_terminal_starts_it,
            )
            time.sleep(delay)
            while not _catches(run.pid, signal.SIGTERM) and run.poll() is None:
                time.sleep(0.001)
            run.send_signal(sig)
            _, err = run.communicate(timeout=120)
            assert run.returncode == 128 + sig, (delay, sig, run.returncode, err[-2000:])
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: interrupted"), (delay, sig, err[-2000:])


_IN_GC = """
import gc, os, signal, sys
fired = []
def cb(phase, info):
    handler = signal.getsignal(signal.SIGTERM)
    if phase == "start" and not fired and getattr(handler, "__name__", "") == {handler!r}:
        fired.append(1)
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(10**5):  # the handler raises here, inside the GC callback, where it is swallowed
            pass
gc.callbacks.append(cb)
sys.argv = ["dwtcp-fluid", "dwtcp", "simulate", "--duration", "100ms"]
from dwtcp_fluid.__main__ import entry
entry()
"""


@pytest.mark.slow
@pytest.mark.parametrize("handler", ["_on_term", "on_term"], ids=["during-imports", "in-the-command"])
def test_an_interrupt_swallowed_by_a_gc_callback_is_delivered_again(handler):
    """SIGTERM landing inside a GC callback (JAX registers one) at the first collection once the console script's
    handler (during the CLI's imports) or the command's is installed: its KeyboardInterrupt is swallowed there
    ("Exception ignored in ...") and the command would run on to exit 0; it is delivered again: exit 143, one
    line."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    r = subprocess.run(
        [sys.executable, "-c", _IN_GC.replace("{handler!r}", repr(handler))],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        preexec_fn=_as_a_terminal_starts_it,
    )
    assert r.returncode == 143, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: interrupted"), r.stderr[-2000:]
