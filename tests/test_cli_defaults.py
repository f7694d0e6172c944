"""One default per parameter across commands: every flag that two commands share has one default, read from
:mod:`dwtcp_fluid.params` (``DEFAULT_*``, ``DWTCP_TARGET``), except the few allowed below, each with the reason its
meaning differs. ``packet run`` builds its law flags from the law registry (default None on the command line, the
law's default applied after parsing): those are read from the registry.
"""

from __future__ import annotations

from typing import Any

import pytest

from dwtcp_fluid import params

#: (flag, command) whose default may differ from the other commands' because the flag means something else there.
ALLOWED: dict[tuple[str, str], str] = {
    ("--flows", "sweep"): "a list of N (the grid's axis), not one N",
    (
        "--law",
        "sweep",
    ): "the command's own subject, [DWTCP]'s condition sweep; another law's judged sweep is named",
    (
        "--target",
        "sweep",
    ): "the sweep's packet runs at d_t = τ (K = 0), the setting its recorded counts and figures"
    " state; [DWTCP]'s K = 100 is one slice of it (--target 100, docs/data/regime-slices.json)",
    ("--flows", "packet compare-fluid"): "a list of N, one comparison per N",
    ("--flows", "tune dctcp"): "a range of N (the operating range the tuning covers)",
    ("--flows", "dctcp network"): "flows per group on each path of a multi-bottleneck topology, not N",
    (
        "--flows",
        "dctcp hybrid",
    ): "N of the worst-case convergence run (one flow starts with the whole window): 2 is its smallest case",
    ("--rtt", "tune dctcp"): "a range of RTTs (the operating range)",
    ("--flows", "tune dwtcp"): "a range of N (the operating range the tuning covers)",
    ("--rtt", "tune dwtcp"): "a range of RTTs (the operating range)",
    ("--buffer", "packet compare-fluid"): "set so that no packet is dropped: the fluid models it is compared "
    "with have no buffer; packet run's 250 is [DWTCP]'s switch buffer",
    ("--topology", "dctcp network"): "multi-bottleneck topologies only (one link is dctcp limit-cycle)",
    ("--topology", "timely network"): "parking lots only (the TIMELY network cross-check's topology)",
    ("--flows", "timely network"): "flows of the long group of a parking lot, not N",
    (
        "--rtt",
        "timely network",
    ): "TIMELY's 20 µs (below T_low = 50 µs, as TimelyParams and [PROXY]'s experiments)",
    (
        "--duration",
        "timely network",
    ): "TIMELY's additive start (δ per segment) needs ~40 ms to fill the links",
    ("--law", "timely network"): "the TIMELY family only: timely | patched",
    (
        "--signal",
        "packet run",
    ): "each hop law's own default (dctcp-hops: ind, timely-hops: sum); timely network "
    "runs the TIMELY family, whose default is sum as timely-hops'",
}


def _commands(group: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, cmd in getattr(group, "commands", {}).items():
        if hasattr(cmd, "commands"):
            out |= _commands(cmd, (*path, name))
        else:
            out[" ".join((*path, name))] = cmd
    return out


def _value(v: Any) -> Any:
    """Defaults compare as numbers where they are numbers ("0.001" given as a string equals 0.001)."""
    if isinstance(v, bool) or v is None:
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


def defaults_by_flag(
    commands: dict[str, Any], resolve: dict[str, Any] | None = None
) -> dict[str, dict[str, Any]]:
    """``{flag: {command: default}}`` of every option with a default. None means "not given" (a quantity derived
    from other flags, or a required one) and is skipped unless ``resolve`` names the flag's real default."""
    out: dict[str, dict[str, Any]] = {}
    for path, cmd in commands.items():
        for p in cmd.params:
            if p.param_type_name != "option" or not p.opts[0].startswith("--"):
                continue
            flag, default = p.opts[0], p.default
            if default is None and resolve and (path, flag) in resolve:
                default = resolve[(path, flag)]
            if default is None or flag in ("--help", "--json", "--plot", "--force", "--quiet", "--seed"):
                continue
            out.setdefault(flag, {})[path] = _value(default)
    return out


def conflicts(by_flag: dict[str, dict[str, Any]], allowed: dict[tuple[str, str], str]) -> list[str]:
    """One line per flag whose default differs between two commands outside ``allowed``."""
    bad = []
    for flag, per_cmd in sorted(by_flag.items()):
        kept = {c: v for c, v in per_cmd.items() if (flag, c) not in allowed}
        if len({repr(v) for v in kept.values()}) > 1:
            bad.append(f"{flag}: {kept}")
    return bad


@pytest.fixture(scope="module")
def cli_defaults() -> dict[str, dict[str, Any]]:
    import typer

    from dwtcp_fluid.cli import _load, app
    from dwtcp_fluid.cli.packet_laws import law_flags

    _load(["packet"])  # the packet group loads only when named (it imports JAX)
    cmds = _commands(typer.main.get_command(app))
    laws = {("packet run", flag): opt.default for flag, (opt, _) in law_flags().items()}
    return defaults_by_flag(cmds, resolve=laws)


def test_one_default_per_flag(cli_defaults):
    assert conflicts(cli_defaults, ALLOWED) == []


def test_allow_list_is_not_stale(cli_defaults):
    """Every allowed exception still exists and still differs (an exception that no longer differs is removed)."""
    for flag, cmd in ALLOWED:
        # compared with the commands that follow the shared default (two allowed ranges may agree with each other)
        others = {repr(v) for c, v in cli_defaults.get(flag, {}).items() if (flag, c) not in ALLOWED}
        assert cmd in cli_defaults.get(flag, {}) and others, (flag, cmd)
        assert repr(cli_defaults[flag][cmd]) not in others, (flag, cmd)


def test_defaults_are_the_named_constants(cli_defaults):
    """The shared defaults are the constants of dwtcp_fluid.params: K = 100 wherever DWTCP runs, N = 10."""
    expect = {
        "--target": params.DWTCP_TARGET,
        "--flows": params.DEFAULT_FLOWS,
        "--beta": params.DEFAULT_BETA,
        "--g": params.DEFAULT_G,
        "--capacity": params.DEFAULT_CAPACITY,
        "--rtt": params.DEFAULT_RTT,
    }
    for flag, value in expect.items():
        seen = {c: v for c, v in cli_defaults[flag].items() if (flag, c) not in ALLOWED}
        assert len(seen) >= 2 and set(seen.values()) == {_value(value)}, (flag, seen)
    assert cli_defaults["--target"].keys() >= {
        "dwtcp simulate",
        "phase dwtcp",
        "packet run",
        "packet compare-fluid",
    }


def test_checker_finds_a_conflict():
    """The scan itself: two commands defaulting --target to 0 and 100 are reported, unless allowed."""
    import typer

    demo = typer.Typer()

    @demo.command("a")
    def a(target: float = typer.Option(0.0, "--target")) -> None: ...

    @demo.command("b")
    def b(
        target: float = typer.Option(100.0, "--target"), flows: str = typer.Option("10", "--flows")
    ) -> None: ...

    @demo.command("c")
    def c(flows: int = typer.Option(10, "--flows")) -> None: ...

    found = defaults_by_flag(_commands(typer.main.get_command(demo)))
    assert conflicts(found, {}) == ["--target: {'a': 0.0, 'b': 100.0}"]
    assert conflicts(found, {("--target", "a"): "why"}) == []


#: Library parameter objects' defaults that differ from the command line's, each with its reason.
LIBRARY_ALLOWED: dict[tuple[str, str], str] = {
    (
        "DwtcpParams",
        "k",
    ): "the fluid analysis of [DWTCP] appendix A takes d_t = τ (K = 0); every command that "
    "runs the protocol defaults --target to DWTCP_TARGET (K = 100, the evaluation's)",
}


def test_library_defaults_are_the_command_line_defaults(cli_defaults):
    """``DctcpParams()``, ``DwtcpParams()`` and ``LinkParams()`` default every parameter a flag sets to the flag's
    default (one default per parameter), except :data:`LIBRARY_ALLOWED`."""
    from dwtcp_fluid.params import DctcpParams, DwtcpParams, LinkParams
    from dwtcp_fluid.units import parse_rate, parse_time

    link = LinkParams()
    assert link.capacity == parse_rate(params.DEFAULT_CAPACITY).bps(1500.0)
    assert link.rtt == parse_time(params.DEFAULT_RTT)
    fields = {
        ("DctcpParams", "flows", "--flows"): DctcpParams().flows,
        ("DctcpParams", "g", "--g"): DctcpParams().g,
        ("DctcpParams", "K", "--marking-threshold"): DctcpParams().K,
        ("DwtcpParams", "flows", "--flows"): DwtcpParams().flows,
        ("DwtcpParams", "beta", "--beta"): DwtcpParams().beta,
        ("DwtcpParams", "k", "--target"): DwtcpParams().k,
    }
    differ = []
    for (cls, name, flag), value in fields.items():
        shared = {v for c, v in cli_defaults[flag].items() if (flag, c) not in ALLOWED}
        if shared != {_value(value)}:
            differ.append((cls, name))
    assert sorted(differ) == sorted(LIBRARY_ALLOWED)
