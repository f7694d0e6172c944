"""Writes that cannot lie: every output goes through :mod:`dwtcp_fluid.atomic` (temporary name, fsync, rename), and a
device that cannot take it (full disk, I/O error) gives one error line, exit 1 and nothing left behind.

The command tests fill a real filesystem: a 1 MiB tmpfs mounted for the test (root only; skipped elsewhere). The
helper's own tests inject the fault (``os.fsync`` raising ENOSPC) and run everywhere.
"""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest

from dwtcp_fluid import atomic
from dwtcp_fluid.cli import main


def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_leaves_the_target_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "x.json"
    target.write_text("old\n")
    monkeypatch.setattr(atomic.os, "fsync", _enospc)
    with pytest.raises(atomic.WriteError) as e:
        atomic.write_text(target, "new\n")
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(target)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


def test_a_failed_command_removes_its_new_files_and_directories(tmp_path, monkeypatch):
    """The transaction journals the directories made and the new files published; a failure removes them (files
    written before the failing one too), and keeps what existed before."""
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "old.txt").write_text("old\n")
    with pytest.raises(atomic.WriteError):
        with atomic.transaction():
            atomic.write_text(tmp_path / "a" / "b" / "first.txt", "1\n")
            atomic.write_text(tmp_path / "kept" / "new.txt", "2\n")
            monkeypatch.setattr(atomic.os, "fsync", _enospc)
            atomic.write_text(tmp_path / "a" / "b" / "second.txt", "3\n")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["kept", "kept/old.txt"]


def test_a_successful_write_is_complete_and_has_the_usual_mode(tmp_path):
    with atomic.transaction():
        p = atomic.write_text(tmp_path / "d" / "x.txt", "hello\n")
    assert p.read_text() == "hello\n"
    mask = os.umask(0)
    os.umask(mask)
    assert p.stat().st_mode & 0o777 == 0o666 & ~mask
    assert sorted(q.name for q in p.parent.iterdir()) == ["x.txt"]


def test_cli_full_disk_is_one_line_exit_1(tmp_path, monkeypatch, capsys):
    """Fault injection (any machine): the figure of ``dwtcp simulate --plot`` cannot be synced; exit 1, one line,
    the directory the command made is gone. (This command exited 0 and printed "wrote" on a full disk.)"""
    monkeypatch.setattr(atomic.os, "fsync", _enospc)
    out = tmp_path / "new" / "x.svg"
    code = main(["dwtcp", "simulate", "--duration", "2ms", "--plot", str(out)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err, err
    assert not (tmp_path / "new").exists()


# --- a real full filesystem ------------------------------------------------------------------------------------


def _fill(path: Path) -> None:
    """Write ``path`` until the filesystem refuses another byte."""
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 16, 1 << 12, 1 << 8, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC
    os.sync()


@pytest.fixture
def full_disk(tmp_path):
    """A 1 MiB tmpfs, filled: its only entry is the filler file."""
    mnt = tmp_path / "full"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        _fill(mnt / "filler")
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


TINY_SWEEP = ["--bdp", "10,100", "--flows", "1", "--kbar-ratio", "1", "--frozen-only"]

#: Every command that writes, with its output inside a new directory of the full disk ({d}).
WRITERS = {
    "dwtcp simulate --plot": ["dwtcp", "simulate", "--duration", "2ms", "--plot", "{d}/x.svg"],
    "dctcp simulate --plot": ["dctcp", "simulate", "--duration", "2ms", "--plot", "{d}/x.png"],
    "proofs --out": ["proofs", "--out", "{d}", "--name", "dctcp_rtt_fairness"],
    "sweep": ["sweep", *TINY_SWEEP, "--out", "{d}"],
    "sweep (no figure)": ["sweep", *TINY_SWEEP, "--no-figure", "--out", "{d}"],
    "phase dwtcp": ["phase", "dwtcp", "--no-delay", "--duration", "5ms", "--plot", "{d}/p.png"],
    "packet run --plot": ["packet", "run", "--law", "dctcp", "--flows", "2", "--duration", "2ms", "--plot", "{d}/r.png"],
    "packet compare-fluid --plot": [
        "packet", "compare-fluid", "--flows", "2", "--duration", "5ms", "--plot", "{d}/c.png",
    ],
    "figures --out": ["figures", "--name", "dctcp_rtt_fairness", "--out", "{d}"],
    "dctcp network-sweep": [
        "dctcp", "network-sweep", "--hops", "1", "--cross-load", "1", "--duration", "2ms", "--out", "{d}",
    ],
}  # fmt: skip
FAST = {"sweep (no figure)"}  # the others run in `make test-all`


@pytest.mark.parametrize(
    "name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in WRITERS]
)
def test_every_writer_on_a_full_disk(full_disk, name, capsys):
    before = sorted(p.name for p in full_disk.iterdir())
    args = [a.replace("{d}", str(full_disk / "out" / "sub")) for a in WRITERS[name]]
    code = main(args)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 1, err
    # one error line, the last (a progress bar may precede it), and no traceback
    assert [x for x in lines if x.startswith("error")] == lines[-1:] and "Traceback" not in err, err
    assert "No space left on device" in lines[-1], err
    left = sorted(str(p.relative_to(full_disk)) for p in full_disk.rglob("*"))
    assert left == before, left  # no .creating tree, no temporary file, no empty directory


@pytest.mark.slow
def test_a_disk_filling_during_the_netcdf_write_is_one_error(full_disk):
    """The final NetCDF on a full disk: one WriteError naming the file, nothing left, and the process lives (HDF5
    writing to the disk itself printed a trace per open object and then crashed with SIGSEGV)."""
    import sys

    code = (
        "import sys, numpy as np, xarray as xr\n"
        "from dwtcp_fluid.atomic import WriteError\n"
        "from dwtcp_fluid.sweep.store import write_netcdf_atomic\n"
        "ds = xr.Dataset({'a': (('x',), np.random.default_rng(0).random(200_000))})\n"
        "try:\n"
        f"    write_netcdf_atomic(ds, {str(full_disk / 'd' / 'x.nc')!r})\n"
        "except WriteError as e:\n"
        "    print('WriteError', e.errno, e.filename)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.split() == ["WriteError", str(errno.ENOSPC), str(full_disk / "d" / "x.nc")]
    assert sorted(p.name for p in full_disk.rglob("*")) == [
        "d",
        "filler",
    ]  # the directory: no transaction here


def test_an_interrupt_while_the_temporary_file_is_created_leaves_nothing(tmp_path, monkeypatch):
    """SIGINT delivered just after mkstemp created the temporary file (before its clean-up is armed): the write is
    interrupted and nothing is left in the directory (a sweep's integrity record left ``.1_1.json.*.tmp``); the
    SIGINT handler is the one installed before."""
    import signal
    import tempfile

    real = tempfile.mkstemp

    def mkstemp(*a, **k):
        made = real(*a, **k)
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**5):  # a handler would run at the next bytecode boundary
            pass
        return made

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    # Python's own SIGINT handler, whatever an earlier test in this process left installed
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            atomic.write_text(tmp_path / "r.json", "{}")
        assert list(tmp_path.iterdir()) == []
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, outer)
