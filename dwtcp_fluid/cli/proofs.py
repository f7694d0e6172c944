"""``dwtcp-fluid proofs [--check] [--json]``: render proofs/ from the checked derivations, or verify it is up to date."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from .app import app
from .common import WorkError, emit_json, status
from .outputs import check_dir


@app.command("proofs")
def proofs(
    check: bool = typer.Option(
        False, "--check", help="Re-run every check and compare with the committed files."
    ),
    out: Path = typer.Option(
        None, "--out", help="Directory of the proofs (default: ./proofs under the working directory)."
    ),
    json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
) -> None:
    """Render proofs/ from the SymPy-checked derivations; with --check, fail (exit 1) on a failed step or a stale file."""
    from ..symbolic.registry import build_all, check_all, write_all

    outdir = out if out is not None else Path.cwd() / "proofs"
    if check and (not outdir.is_dir() or not any(outdir.glob("*.md"))):
        msg = f"proofs --check: {outdir} holds no proofs to check (run `dwtcp-fluid proofs --out {outdir}`)"
        if json:
            emit_json({"ok": False, "dir": str(outdir), "error": msg, "problems": [msg]})
        raise WorkError(msg)
    if not check:
        check_dir("--out", outdir)
    if check:
        with status("proofs --check: re-running every SymPy step"):
            problems = check_all(outdir)
            derivs = build_all()
        if json:
            emit_json(
                {
                    "ok": not problems,
                    "dir": str(outdir),
                    "files": [f"{d.slug}.md" for d in derivs] + ["README.md", "INDEX.md"],
                    "steps": sum(len(d.steps) for d in derivs),
                    "findings": sum(len(d.findings) for d in derivs),
                    "problems": problems,
                }
            )
        if problems:
            for p in problems:
                sys.stderr.write(f"proofs --check: {p}\n")
            # SystemExit, not typer.Exit: with standalone_mode=False click turns Exit into a return value that the
            # entry point may drop, and a failed check must never exit 0.
            raise SystemExit(1)
        if not json:
            sys.stdout.write(f"proofs --check: every step passed and {outdir} is up to date\n")
        return
    with status("proofs: deriving and checking every step"):
        written = write_all(outdir)
    if json:
        emit_json({"ok": True, "dir": str(outdir), "files": [p.name for p in written]})
    else:
        sys.stdout.write(f"proofs: wrote {len(written)} files to {outdir}\n")
