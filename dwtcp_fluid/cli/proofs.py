"""``dwtcp-fluid proofs [--check] [--name SLUG] [--json]``: render proofs/ from the checked derivations, or verify it is
up to date."""

from __future__ import annotations

import sys
from pathlib import Path

from .app import app
from .common import WorkError, emit_json, usage_from
from .flags import Use, declared
from .outputs import check_dir
from .progress import status


@app.command("proofs")
@declared(
    out=Use(default=None, note="Default: ./proofs under the working directory."),
    name=Use(
        note="Here a derivation's file (e.g. dctcp_rtt_fairness): README.md and INDEX.md, which summarize every "
        "derivation, are then neither written nor checked."
    ),
)
def proofs(
    check: bool,
    out: Path,
    name: list[str] | None,
    json: bool,
) -> None:
    """Render proofs/ from the SymPy-checked derivations; with --check, fail (exit 1) on a failed step or a stale file."""
    from ..reports.proofs import default_proofs_out, proofs_report
    from ..symbolic.registry import select

    try:
        select(name or None)
    except ValueError as e:
        raise usage_from(e, {"derivation": ("--name", name)}) from None
    outdir = out if out is not None else default_proofs_out()
    if not check:
        check_dir("--out", outdir)
    scope = "every SymPy step" if not name else f"the steps of {', '.join(name)}"
    with status(f"proofs --check: re-running {scope}" if check else f"proofs: deriving and checking {scope}"):
        doc = proofs_report(outdir, name or None, check=check)
    if json:
        emit_json(doc)
    if "error" in doc:
        raise WorkError(doc["error"])
    if not doc["ok"]:
        for p in doc["problems"]:
            sys.stderr.write(f"proofs --check: {p}\n")
        # SystemExit, not typer.Exit: with standalone_mode=False click turns Exit into a return value that the
        # entry point may drop, and a failed check must never exit 0.
        raise SystemExit(1)
    if json:
        return
    if check:
        sys.stdout.write(
            f"proofs --check: all {doc['steps']} steps passed and the {len(doc['files'])} files in {doc['dir']} "
            "are up to date\n"
        )
    else:
        sys.stdout.write(f"proofs: wrote {len(doc['files'])} files to {doc['dir']}\n")
