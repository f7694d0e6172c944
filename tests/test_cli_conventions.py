"""CLI conventions: --version, -h, python -m, completion, --quiet, lazy imports, units that cannot surprise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from dwtcp_fluid import __version__
from dwtcp_fluid.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version_and_short_help(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"dwtcp-fluid {__version__}"
    for argv in (["-h"], ["dwtcp", "-h"], ["dwtcp", "condition", "-h"], ["packet", "run", "-h"]):
        code, out, _ = run(capsys, *argv)
        assert code == 0 and "Usage:" in out, argv
    code, out, _ = run(capsys, "--help")
    assert "--install-completion" in out and "--quiet" in out


def test_python_m_is_the_same_program():
    r = subprocess.run(
        [sys.executable, "-m", "dwtcp_fluid", "--version"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and r.stdout.strip() == f"dwtcp-fluid {__version__}"


def test_help_does_not_import_the_heavy_stack():
    """``dwtcp-fluid --help`` loads no JAX, SymPy, SciPy or xarray (it took 2.6 s when it did)."""
    code = (
        "import sys; from dwtcp_fluid.cli import main; rc = main(['--help']); "
        "heavy = sorted(m for m in ('jax', 'sympy', 'scipy', 'xarray', 'matplotlib') if m in sys.modules); "
        "print('HEAVY', heavy)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-1000:]
    assert "HEAVY []" in r.stdout, r.stdout[-300:]


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["dwtcp", "condition", "--rtt", "100"], "--rtt"),
        (["dwtcp", "condition", "--capacity", "833333"], "--capacity"),
        (["dwtcp", "simulate", "--duration", "100"], "--duration"),
        (["dctcp", "simulate", "--duration", "0.02"], "--duration"),
        (["sweep", "--capacity", "10000000000"], "--capacity"),
        (["packet", "run", "--duration", "5"], "--duration"),
    ],
)
def test_bare_numbers_are_refused_with_the_accepted_forms(capsys, argv, flag):
    code, _, err = run(capsys, *argv)
    assert code == 2
    line = err.strip()
    assert "\n" not in line and line.startswith(f"error: {flag}") and "with its unit" in line, line
    assert ("10Gbps" in line) if flag == "--capacity" else ("100us" in line), line


def test_implausible_inputs_warn_before_work(capsys):
    """BDP below one packet (833 kbit/s × 100 µs) warns; so does a run above 10⁴ RTTs; --quiet silences both."""
    code, out, err = run(capsys, "dwtcp", "condition", "--capacity", "833333bps", "--rtt", "100us", "--json")
    assert code == 0 and "warning: BDP = C·τ = 0.00694 packets is below one packet" in err
    from dwtcp_fluid.cli.common import flush_warnings, warn_implausible
    from dwtcp_fluid.params import LinkParams

    warn_implausible(LinkParams("10Gbps", "100us"), 2.0)  # 2 s = 20,000 RTTs
    flush_warnings()  # queued until the work starts or the command ends well
    assert "20000 RTTs (> 10⁴)" in capsys.readouterr().err.replace("2e+04", "20000")
    code, out, err = run(capsys, "--quiet", "dwtcp", "condition", "--capacity", "833333bps", "--rtt", "100us")
    assert code == 0 and "warning" not in err
    main(["dwtcp", "condition", "-h"])  # reset the module-level quiet flag for the other tests
    capsys.readouterr()


@pytest.mark.parametrize(
    "argv, inputs",
    [
        (
            ["dwtcp", "eigen", "--kbar", "100"],
            {"kbar": 100.0, "beta": 0.001, "capacity": "10Gbps", "flows": 10},
        ),
        (
            ["dwtcp", "simulate", "--duration", "2ms"],
            {"duration": "2ms", "target": 100.0, "solver": "reference"},
        ),
        (["dctcp", "limit-cycle", "--wbar", "10"], {"wbar": 10.0, "g": 0.0625}),
    ],
)
def test_json_carries_schema_version_and_full_inputs(capsys, argv, inputs):
    import json

    code, out, _ = run(capsys, *argv, "--json")
    d = json.loads(out)
    assert code == 0 and d["schema_version"] == 2 and d["package_version"] == __version__
    assert d["command"] == " ".join(argv[:2])
    assert inputs.items() <= d["inputs"].items()
    assert "period" not in d  # unit-suffixed: period_s (seconds) or period_rtt (normalized time)


def test_missing_value_never_reads_none(capsys):
    code, _, err = run(capsys, "dwtcp", "eigen")
    assert code == 2 and "None" not in err and err.startswith("error: --kbar is missing: give")


@pytest.mark.parametrize(
    "argv",
    [
        ["dwtcp", "simulate", "--duration", "10s", "--plot", "x.txt"],
        ["dctcp", "simulate", "--duration", "10s", "--plot", "x.txt"],
        ["packet", "run", "--duration", "10s", "--plot", "x.txt"],
    ],
)
def test_plot_path_refused_before_the_run(capsys, argv):
    """A 10 s simulation would take minutes: the bad --plot is refused first, in well under a second of work."""
    import time

    t0 = time.perf_counter()
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith("error: --plot 'x.txt' is invalid"), err
    assert time.perf_counter() - t0 < 20  # parsing only (generous: the machine is shared)


def test_commands_say_what_they_wrote(capsys, tmp_path):
    out = tmp_path / "p.svg"
    code, _, err = run(capsys, "phase", "dwtcp", "--no-delay", "--duration", "2ms", "--plot", str(out))
    assert code == 0 and f"wrote {out}" in err and out.is_file()
