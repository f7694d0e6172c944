"""``dwtcp-fluid figures [--check]``: build or verify every registered figure."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from .app import app
from .common import WorkError, emit_json, print_written, usage_from
from .flags import Use, declared
from .outputs import check_dir
from .progress import steps


@app.command("figures")
@declared(
    check=Use(note="Here in a temp dir: assert the claims, compare the images."),
    out=Use(default=None, note="Default: ./figures under the working directory."),
    name=Use(note="Figure names."),
    fmt=Use(flag="--format"),
)
def figures(
    check: bool,
    out: Path | None,
    name: list[str] | None,
    fmt: str,
    dpi: float | None,
    jobs: int,
    tier: str,
    json: bool,
) -> None:
    """Build every registered figure into figures/, or with --check verify claims and committed images."""
    from contextlib import ExitStack

    from ..reports.figures import check_figures, default_figures_dir, figures_report

    given = {
        "figure": ("--name", name),
        "fmt": ("--format", fmt),
        "dpi": ("--dpi", dpi),
        "jobs": ("--jobs", jobs),
        "tier": ("--tier", tier),
    }
    try:
        check_figures(name or None, check=check, fmt=fmt, dpi=dpi, jobs=jobs, tier=tier)
    except ValueError as e:
        raise usage_from(e, given) from None
    if not check:
        out = check_dir("--out", out if out is not None else default_figures_dir())
    with ExitStack() as bar:
        title = "figures --check" if check else "figures"
        start: list = []

        def on_start(total: int) -> None:
            start.append(bar.enter_context(steps(total, title)))

        doc = figures_report(
            out,
            name or None,
            check=check,
            fmt=fmt,
            dpi=dpi,
            jobs=jobs,
            tier=tier,
            on_start=on_start,
            on_figure=lambda n: start[0](n),
        )
    if json:
        emit_json(doc)
    if "error" in doc:
        raise WorkError(doc["error"])
    if not check:
        print_written(f["path"] for f in doc["figures"])
    if not json:
        Console().print(figures_table(doc, title))
    if not doc["ok"]:
        raise typer.Exit(1)


def figures_table(doc: dict, title: str) -> Table:
    """The human form of a figures document: each claim, then the image verdict (check) or the file written."""
    t = Table(title=title)
    t.add_column("figure")
    t.add_column("claim / image")
    t.add_column("result")
    t.add_column("measured")
    for f in doc["figures"]:
        for c in f["claims"]:
            t.add_row(f["name"], c["text"], "[green]pass" if c["passed"] else "[red]FAIL", c["measured"])
        if f["image_ok"] is not None:
            t.add_row(
                f["name"],
                "image",
                "[green]pass" if f["image_ok"] else "[red]FAIL",
                f"{f['image']} (built in {f['seconds']:.1f} s)",
            )
        else:
            t.add_row(f["name"], "written", "", f["path"])
    return t
