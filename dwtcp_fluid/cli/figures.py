"""``dwtcp-fluid figures [--check]``: build or verify every registered figure."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from .app import app
from .common import UsageError, WorkError, emit_json, print_written, steps
from .outputs import check_dir


def default_figures_dir() -> Path:
    """``./figures`` under the working directory (never the checkout the package was imported from)."""
    return Path.cwd() / "figures"


@app.command("figures")
def figures(
    check: bool = typer.Option(
        False, "--check", help="Rebuild in a temp dir, assert claims, compare images."
    ),
    out: Path | None = typer.Option(None, "--out", help="Directory (default: figures/ in the checkout)."),
    name: list[str] | None = typer.Option(None, "--name", help="Only these figures (repeatable)."),
    fmt: str = typer.Option(
        "png", "--format", help="png | pdf | svg (--check always compares the committed PNGs)."
    ),
    dpi: float | None = typer.Option(None, "--dpi", help="Raster resolution in dots per inch (default 110)."),
    jobs: int = typer.Option(
        1,
        "--jobs",
        "-j",
        help="Build in this many processes (figures are independent; results are the same).",
    ),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """Build every registered figure into figures/, or with --check verify claims and committed images."""
    from ..experiments import catalog  # every recipe and what it runs: imported only when asked for

    outdir = out or default_figures_dir()
    reg = catalog.registry()
    if not reg:
        Console().print("nothing registered yet")
        return
    for n in name or ():
        if n not in reg:
            raise UsageError("--name", n, " | ".join(sorted(reg)))
    if fmt not in catalog.FORMATS:
        raise UsageError("--format", fmt, " | ".join(catalog.FORMATS))
    if dpi is not None and not (10 <= dpi <= 2400):
        raise UsageError("--dpi", dpi, "a number in [10, 2400]")
    if check and (fmt != "png" or dpi is not None):
        raise UsageError(
            "--format" if fmt != "png" else "--dpi",
            fmt if fmt != "png" else dpi,
            "the defaults with --check (it compares the committed PNGs)",
        )
    if not (1 <= jobs <= 64):
        raise UsageError("--jobs", jobs, "an integer in [1, 64]")
    selected = catalog.selected_names(name)
    if check:
        if not outdir.is_dir() or not any((outdir / f"{n}.png").exists() for n in selected):
            msg = f"figures --check: {outdir} holds none of the figures to check (run `dwtcp-fluid figures --out {outdir}`)"
            if json:
                emit_json({"ok": False, "error": msg, "figures": []})
            raise WorkError(msg)
    else:
        check_dir("--out", outdir)
    with steps(len(selected), "figures --check" if check else "figures") as start:
        if check:
            results = catalog.check_all(outdir, selected, on_figure=start, jobs=jobs)
        else:
            results = catalog.build_all(outdir, selected, fmt=fmt, dpi=dpi, on_figure=start, jobs=jobs)
    ok = all(r.ok for r in results)
    if not check:
        print_written(r.path for r in results)
    if json:
        emit_json(
            {
                "ok": ok,
                "figures": [
                    {
                        "name": r.name,
                        "path": str(r.path),
                        "image_ok": r.image_ok,
                        "image": r.image_message,
                        "seconds": round(r.seconds, 2),
                        "claims": [
                            {"text": c.text, "passed": c.passed, "measured": c.measured} for c in r.claims
                        ],
                    }
                    for r in results
                ],
            }
        )
    else:
        con = Console()
        t = Table(title="figures --check" if check else "figures")
        t.add_column("figure")
        t.add_column("claim / image")
        t.add_column("result")
        t.add_column("measured")
        for r in results:
            for c in r.claims:
                t.add_row(r.name, c.text, "[green]pass" if c.passed else "[red]FAIL", c.measured)
            if r.image_ok is not None:
                t.add_row(
                    r.name,
                    "image",
                    "[green]pass" if r.image_ok else "[red]FAIL",
                    f"{r.image_message} (built in {r.seconds:.1f} s)",
                )
            elif not check:
                t.add_row(r.name, "written", "", str(r.path))
        con.print(t)
    if not ok:
        raise typer.Exit(1)
