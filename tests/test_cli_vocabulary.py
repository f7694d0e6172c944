"""One flag vocabulary across commands (dwtcp_fluid/cli/flags.py): every option of every command is declared once,
with its meaning, kind and accepted range; no two declared flags mean the same thing (a second spelling); help
texts name only flags that exist; a figure file is ``--plot`` and an output directory ``--out`` everywhere."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dwtcp_fluid.cli.flags import FLAGS, Flag, vocabulary

#: Options of the root command and click's own.
ROOT = {
    "--help",
    "-h",
    "--version",
    "-V",
    "--quiet",
    "-q",
    "--install-completion",
    "--show-completion",
    "--debug",
}


def _leaves(cmd: Any, path: tuple[str, ...] = ()) -> dict[str, Any]:
    subs = getattr(cmd, "commands", None)
    if not subs:
        return {" ".join(path): cmd}
    out: dict[str, Any] = {}
    for name, sub in subs.items():
        out |= _leaves(sub, (*path, name))
    return out


@pytest.fixture(scope="module")
def tree() -> tuple[dict[str, Any], dict[str, Flag]]:
    from dwtcp_fluid.cli import _command, _load

    _load(["packet"])  # the packet group loads only when named (it imports JAX)
    return _leaves(_command()), vocabulary()


def undeclared(commands: dict[str, Any], vocab: dict[str, Flag]) -> list[str]:
    """``command: --flag`` for every option no declaration covers."""
    return [
        f"{path}: {p.opts[0]}"
        for path, cmd in commands.items()
        for p in cmd.params
        if p.param_type_name == "option" and p.opts[0] not in vocab and p.opts[0] not in ROOT
    ]


def second_spellings(vocab: dict[str, Flag]) -> list[str]:
    """Pairs of flags declared with the same meaning."""
    seen: dict[str, str] = {}
    out = []
    for flag, spec in vocab.items():
        key = spec.meaning.casefold()
        if key in seen:
            out.append(f"{seen[key]} and {flag}: {spec.meaning}")
        seen.setdefault(key, flag)
    return out


def test_every_option_is_declared(tree):
    commands, vocab = tree
    assert len(commands) >= 20
    assert undeclared(commands, vocab) == []


def test_no_second_spelling(tree):
    assert second_spellings(tree[1]) == []


def test_kinds_are_known_and_numeric_flags_have_a_range(tree):
    from dwtcp_fluid.cli.flags import KINDS

    for flag, spec in tree[1].items():
        assert spec.kind in KINDS, flag
        if spec.kind in ("number", "integer", "time", "rate", "size"):
            assert spec.bound is not None, flag


def test_help_names_only_existing_flags(tree):
    """A help text that mentions ``-K`` or ``--wbar`` names a flag that exists (somewhere in the tree)."""
    commands, _ = tree
    known = set(ROOT) | {
        o for cmd in commands.values() for p in cmd.params for o in (*p.opts, *p.secondary_opts)
    }
    bad = []
    for path, cmd in commands.items():
        texts = [cmd.help or ""] + [getattr(p, "help", "") or "" for p in cmd.params]
        for text in texts:
            for tok in re.findall(r"(?<![\w/-])(--[A-Za-z][\w-]*|-[A-Za-z](?![\w-]))", text):
                if tok not in known:
                    bad.append(f"{path}: {tok!r} in {text[:60]!r}")
    assert bad == []


def test_figure_file_is_plot_and_directory_is_out(tree):
    """``--plot FILE`` writes a figure in every command that draws one; ``--out DIR`` is a directory."""
    commands, _ = tree
    for path, cmd in commands.items():
        for p in cmd.params:
            if p.param_type_name != "option":
                continue
            text = (getattr(p, "help", "") or "").lower()
            if p.opts[0] == "--out":
                assert "directory" in text, (path, text)
            if p.opts[0] == "--plot":
                assert "figure" in text or "plot" in text, (path, text)
    assert {"phase dwtcp", "phase dctcp"} <= {
        path for path, cmd in commands.items() if any(p.opts[0] == "--plot" for p in cmd.params)
    }


def test_checker_finds_a_second_spelling_and_an_undeclared_flag():
    import typer

    demo = typer.Typer()

    @demo.command("a")
    def a(fig: str = typer.Option("x.png", "--figure-file")) -> None: ...

    @demo.command("b")
    def b(plot: str = typer.Option("x.png", "--plot")) -> None: ...

    cmds = _leaves(typer.main.get_command(demo))
    assert undeclared(cmds, dict(FLAGS)) == ["a: --figure-file"]
    twice = {**FLAGS, "--figure-file": Flag("figure file", "path")}
    assert second_spellings(twice) == ["--plot and --figure-file: figure file"]


@pytest.mark.slow
def test_rto_and_window_floor_from_the_command_line(capsys):
    """``--rto-min`` sets the packet core's RTO (in slots of L/C) and ``--min-cwnd`` the laws' window floor: 10
    flows held at ≥ 40 packets each put 400 packets in flight over a BDP of 83 with a 250-packet buffer, so the queue
    sits at the buffer (the default floor of 2 keeps it near K = 65)."""
    import json

    from dwtcp_fluid.cli import main
    from dwtcp_fluid.params import LinkParams
    from dwtcp_fluid.reports.packet import plan_packet_run

    link = LinkParams("10Gbps", "100us")
    plan = plan_packet_run("dctcp", link=link, duration=5e-3, rto_min=5e-3, min_cwnd=40.0)
    assert int(plan.packet_run.scenario.rto) == round(5e-3 * link.C)  # 4167 slots
    assert main(["packet", "run", "--duration", "5ms", "--min-cwnd", "40", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["min_cwnd_packets"] == 40.0 and doc["rto_min_s"] == 1e-3
    assert doc["queue_mean"] > 0.9 * 250 and doc["drops"] > 0
    assert main(["packet", "run", "--law", "timely", "--min-cwnd", "4"]) == 2
    assert "only with a law that keeps a window floor" in capsys.readouterr().err


def test_quiet_works_after_the_subcommand(capsys):
    """``--quiet`` silences the notes wherever it stands on the command line."""
    from dwtcp_fluid.cli import main

    argv = ["dwtcp", "condition", "--capacity", "833333bps", "--rtt", "100us"]
    assert main(argv) == 0 and "warning: BDP" in capsys.readouterr().err
    assert main([*argv, "--quiet"]) == 0 and "warning" not in capsys.readouterr().err
    assert main(["-q", *argv]) == 0 and "warning" not in capsys.readouterr().err
    main(["dwtcp", "condition", "-h"])  # reset the module-level quiet flag for the other tests
    capsys.readouterr()


@pytest.mark.slow
def test_sweep_warns_a_bdp_below_one_packet_before_the_work(capsys, tmp_path):
    """A BDP below one packet is legal but odd: one warning line, before the work, as every command with a link."""
    from dwtcp_fluid.cli import main

    argv = ["sweep", "--bdp", "0.5,0.9", "--flows", "1", "--kbar-ratio", "1", "--frozen-only", "--no-figure"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    warnings = [ln for ln in err.splitlines() if ln.startswith("warning:")]
    assert len(warnings) == 1 and "--bdp '0.5,0.9' holds BDPs below one packet" in warnings[0]
    assert err.index("warning:") < err.index("wrote ")


def test_command_lists_show_one_line_summaries():
    """A group's help lists each subcommand with the first paragraph of its help on one logical line (rich keeps a
    docstring's line breaks there, which broke ``sweep``'s summary mid-sentence in ``dwtcp-fluid --help``)."""
    from dwtcp_fluid.cli import _command, _load

    _load(["packet"])
    broken, seen = [], 0

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        nonlocal seen
        for name, sub in getattr(cmd, "commands", {}).items():
            seen += 1
            summary = sub.short_help or (sub.help or "").strip().split("\n\n")[0]
            if "\n" in summary:
                broken.append(" ".join((*path, name)))
            walk(sub, (*path, name))

    walk(_command(), ())
    assert seen >= 20 and broken == [], broken


def test_every_option_is_generated_from_its_declaration(tree):
    """Walks every command's options: each flag's help is its one declaration's (tests/test_cli_declarations.py;
    ``packet run``'s law flags are generated from their own declarations, the laws' LawOption)."""
    from dwtcp_fluid.cli.packet_laws import law_flags
    from tests.test_cli_declarations import second_declarations

    commands, _ = tree
    laws = set(law_flags())
    own = [
        b
        for b in second_declarations(commands, set())
        if not (b.startswith("packet run: ") and b[12:] in laws)
    ]
    assert own == []
