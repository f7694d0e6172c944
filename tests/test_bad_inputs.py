"""Bad inputs through the whole CLI: every one exits 2 (usage: a flag or a path the command cannot use) or 1 (a
failure during work, reported as a status), with exactly one stderr line naming the flag or path, no traceback,
and nothing left on disk (the working directory and every output location are compared before and after).

``python -m tests.test_bad_inputs`` prints the table (input, exit code, message) with counts.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from dwtcp_fluid.cli import main

CASES = [
    # sweep: grid flags
    ("sweep --beta 0", 2, "--beta"),
    ("sweep --beta 1.5", 2, "--beta"),
    ("sweep --beta -0.1", 2, "--beta"),
    ("sweep --beta nan", 2, "--beta"),
    ("sweep --beta inf", 2, "--beta"),
    ("sweep --beta 1e-300", 2, "--beta"),
    ("sweep --bdp 1e-300", 2, "--bdp"),
    ("sweep --bdp 1e300", 2, "--bdp"),
    ("sweep --bdp 10,10", 2, "--bdp"),
    ("sweep --bdp 10:1e4:100000000", 2, "--bdp"),
    ("sweep --bdp 10:1e4", 2, "--bdp"),
    ("sweep --bdp 0:10:5log", 2, "--bdp"),
    ("sweep --flows 0", 2, "--flows"),
    ("sweep --flows 10000000", 2, "--flows"),
    ("sweep --flows 1.5", 2, "--flows"),
    ("sweep --kbar-ratio 1e308", 2, "--kbar-ratio"),
    ("sweep --kbar-ratio 0", 2, "--kbar-ratio"),
    ("sweep --kbar-ratio x", 2, "--kbar-ratio"),
    ("sweep --capacity 0Gbps", 2, "--capacity"),
    ("sweep --packet-size 0", 2, "--packet-size"),
    ("sweep --bdp 10:10000:2000 --flows 1:100:100 --kbar-ratio 0.1:10:25", 2, "--yes"),
    ("sweep --bdp 10:1e4:100000 --flows 1:1000:1000 --kbar-ratio 0.1:10:1000 --yes", 2, "memory"),
    ("sweep --beta 0.001,0.01,0.1 --bdp 10:1e4:1000 --kbar-ratio 0.01:10:1000 --frozen-only", 2, "--yes"),
    # 7 min of work, but each chunk's batch of 10,000 delayed fluid runs of 5,071 samples holds 2.3 GiB
    ("sweep --bdp 10:1000:5log --flows 1:2000:2000 --kbar-ratio 1 --packet none", 2, "--yes"),
    ("sweep --workers 0", 2, "--workers"),
    ("sweep --workers 2 --scheduler 127.0.0.1:1", 2, "--scheduler"),
    ("sweep --scheduler 127.0.0.1:1", 2, "--scheduler"),
    ("sweep --scheduler tcp://127.0.0.1:1", 2, "--scheduler"),
    ("sweep --scheduler nowhere", 2, "--scheduler"),
    ("sweep --scheduler udp://1.2.3.4:5", 2, "--scheduler"),
    ("sweep --packet some", 2, "--packet"),
    ("sweep --packet-sample -1", 2, "--packet-sample"),
    ("sweep --packet-buffer 0", 2, "--packet-buffer"),
    ("sweep --target -1", 2, "--target"),
    ("sweep --target nan", 2, "--target"),
    ("sweep --packet-max-rtts 1", 2, "--packet-max-rtts"),
    # sweep: output locations
    ("sweep --out /proc/x", 2, "/proc/x"),
    ("sweep --out {file}", 2, "{file}"),
    ("sweep --out {file}/sub", 2, "{file}"),
    ("sweep --out {ncdir} --bdp 10,100 --flows 1 --kbar-ratio 1 --frozen-only", 2, "{ncdir}"),
    ("sweep --out {zarrfile} --bdp 10,100 --flows 1 --kbar-ratio 1 --frozen-only", 2, "{zarrfile}"),
    ("sweep --out {zarrfile} --bdp 10,100 --flows 1 --kbar-ratio 1 --frozen-only --resume", 2, "{zarrfile}"),
    ("sweep --out {foreign} --bdp 10,100 --flows 1 --kbar-ratio 1 --frozen-only --resume", 2, "--resume"),
    # figures / proofs
    ("figures --out /proc/x", 2, "/proc/x"),
    ("figures --out {file}", 2, "{file}"),
    ("figures --name nope", 2, "--name"),
    ("figures --jobs 0", 2, "--jobs"),
    ("figures --check --out {empty}", 1, "{empty}"),
    ("figures --check --out {tmp}/missing", 1, "missing"),
    ("proofs --out /proc/x", 2, "/proc/x"),
    ("proofs --out {file}", 2, "{file}"),
    ("proofs --check --out {empty}", 1, "{empty}"),
    ("proofs --check --out {tmp}/missing", 1, "missing"),
    # phase
    ("phase dwtcp --plot /proc/x.png", 2, "/proc/x.png"),
    ("phase dwtcp --plot {tmp}", 2, "--plot"),
    ("phase dwtcp --plot {file}/x.png", 2, "{file}"),
    ("phase dwtcp --plot x.gif", 2, "--plot"),
    ("phase dctcp --plot /proc/x.png", 2, "/proc/x.png"),
    # packet
    ("packet run --plot /proc/x.png", 2, "/proc/x.png"),
    ("packet run --plot {tmp}/d.png/", 2, "--plot"),
    ("packet run --plot x.txt", 2, "--plot"),
    ("packet run --rtt 1ns", 2, "--rtt"),
    ("packet run --rtt 10s", 2, "--rtt"),
    ("packet run --capacity 100Tbps --rtt 1ms --duration 10ms", 2, "--yes"),  # a 2^23-slot ACK ring: 4 GiB
    ("packet run --capacity 100Tbps --duration 100s", 2, "--duration"),  # beyond the engine's 2^31 slots
    ("packet run --duration 1000s", 2, "--duration"),
    ("packet run --duration 0s", 2, "--duration"),
    ("packet run --flows 10000000", 2, "--flows"),
    ("packet run --flows 0", 2, "--flows"),
    ("packet run --law cubicx", 2, "--law"),
    ("packet run --loss 1", 2, "--loss"),
    ("packet run --buffer 0", 2, "--buffer"),
    ("packet run --capacity 1e999Gbps", 2, "--capacity"),
    ("packet compare-fluid --plot /proc/x.png", 2, "/proc/x.png"),
    # a setting the law does not read is refused, not ignored (swift runs its check's own settings)
    ("packet compare-fluid --law swift --flows 4", 2, "--flows"),
    ("packet compare-fluid --law dctcp --beta 0.01", 2, "--beta"),
    ("packet compare-fluid --rtt 100us,1ms", 2, "--rtt"),
    # simulate / limit cycle / condition
    ("dwtcp simulate --solver jax --duration 1000s", 2, "--duration"),
    ("dwtcp simulate --solver rk45", 2, "--solver"),
    ("dwtcp simulate --variant nope", 2, "--variant"),
    ("dwtcp simulate --duration -1s", 2, "--duration"),
    ("dwtcp simulate --beta 0", 2, "--beta"),
    ("dwtcp simulate --flows 0", 2, "--flows"),
    ("dwtcp simulate --variant paper-scout --no-delay --target 0 --json", 1, "too_many_events"),
    ("dwtcp simulate --plot /proc/x.png", 2, "/proc/x.png"),
    ("dctcp simulate --g 0", 2, "--g"),
    ("dctcp simulate --marking-threshold -1", 2, "--marking-threshold"),
    ("dctcp limit-cycle --wbar 1e-6", 1, "did NOT converge"),
    ("dctcp limit-cycle --wbar 1e8", 1, "no crossing"),
    ("dctcp limit-cycle --wbar 1e9", 2, "--wbar"),
    ("dctcp limit-cycle --wbar -1", 2, "--wbar"),
    ("dctcp limit-cycle --wbar 2 --g 0", 2, "--g"),
    ("dwtcp condition --packet-size 1e9", 2, "--packet-size"),
    ("dwtcp condition --rtt 1e999s", 2, "--rtt"),
    ("dwtcp eigen --kbar 1e400", 2, "--kbar"),
    ("nosuchcommand", 2, "nosuchcommand"),
    ("sweep --bogus 1", 2, "--bogus"),
]


TINY = ["--bdp", "10,100", "--flows", "1", "--kbar-ratio", "1", "--frozen-only", "--no-figure"]


def make_fixtures(tmp: Path) -> dict[str, str]:
    """Output locations in every state the table needs; returns the placeholders' values."""
    (tmp / "afile").write_text("not a directory\n")
    (tmp / "empty").mkdir()
    done = tmp / "done"
    with open(os.devnull, "w") as null:
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = null
        try:
            assert main(["sweep", *TINY, "--out", str(done)]) == 0
        finally:
            sys.stdout, sys.stderr = old
    (nc,) = done.glob("*.nc")
    store = nc.with_suffix(".zarr")  # the store's name (a finished sweep leaves its results only)
    ncdir, zarrfile, foreign = tmp / "ncdir", tmp / "zarrfile", tmp / "foreign"
    for d in (ncdir, zarrfile, foreign):
        d.mkdir()
    (ncdir / store.with_suffix(".nc").name).mkdir()
    (zarrfile / store.name).write_text("a file where the store goes\n")
    (foreign / store.name).mkdir()  # a directory that is no Zarr store
    (foreign / store.name / "junk").write_text("x")
    return {
        "tmp": str(tmp),
        "file": str(tmp / "afile"),
        "empty": str(tmp / "empty"),
        "done": str(done),
        "ncdir": str(ncdir),
        "zarrfile": str(zarrfile),
        "foreign": str(foreign),
    }


def _snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))
    }


def run_case(argv: str, fx: dict[str, str], capsys) -> tuple[int, str, str]:
    args = [a.format(**fx) for a in shlex.split(argv)]
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad")
    cwd = Path.cwd()
    os.chdir(tmp)  # figures/proofs default to the working directory: nothing may appear there either
    try:
        yield make_fixtures(tmp)
    finally:
        os.chdir(cwd)


def test_the_table_is_large_enough():
    assert len(CASES) >= 60 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("argv,code,needle", CASES, ids=[c[0] for c in CASES])
def test_bad_input(fixtures, capsys, argv, code, needle):
    root = Path(fixtures["tmp"])
    before = _snapshot(root)
    got, out, err = run_case(argv, fixtures, capsys)
    lines = err.strip().splitlines()
    assert got == code, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert needle.format(**fixtures) in lines[0], lines[0]
    assert "Traceback" not in err and "Warning" not in err
    assert _snapshot(root) == before, "something was left on disk"


if __name__ == "__main__":  # the table for the report
    import tempfile

    class _Cap:
        def readouterr(self):
            o, e = sys.stdout.getvalue(), sys.stderr.getvalue()
            return o, e

    import io

    counts: dict[int, int] = {}
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        fx = make_fixtures(Path(d))
        rows = []
        for argv, _code, _needle in CASES:
            real = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
            try:
                got, _o, err = run_case(argv, fx, _Cap())
            finally:
                sys.stdout, sys.stderr = real
            counts[got] = counts.get(got, 0) + 1
            msg = err.strip().replace(d, "$TMP")
            rows.append(f"| `{argv}` | {got} | {msg} |")
        print("| input | exit | message |\n|---|---|---|")
        print("\n".join(rows))
        print(f"\n{len(CASES)} inputs: " + ", ".join(f"exit {k}: {v}" for k, v in sorted(counts.items())))
        shutil.rmtree(d, ignore_errors=True)


def test_debug_shows_the_traceback(fixtures, capsys):
    """--debug adds the traceback before the same one-line message (and still writes nothing)."""
    code, _, err = run_case("sweep --out /proc/x --debug", fixtures, capsys)
    assert code == 2 and "Traceback" in err and err.strip().splitlines()[-1].startswith("error: --out")
