"""JSON document of ``proofs``: the proof files rendered from the SymPy-checked derivations (files written), or with
``check`` every step re-run and every file compared with the committed one (:mod:`dwtcp_fluid.symbolic.registry`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._json import to_jsonable

__all__ = ["default_proofs_out", "proofs_report"]


def default_proofs_out() -> Path:
    """``./proofs`` under the working directory (never the checkout the package was imported from)."""
    return Path.cwd() / "proofs"


def proofs_report(
    out: str | Path | None = None, names: Iterable[str] | None = None, *, check: bool = False
) -> dict[str, Any]:
    """``proofs --json``'s document: render the derivations into ``out``, or with ``check`` re-run every step and
    compare each file with the one in ``out``.

    Parameters
    ----------
    out : str or Path, optional
        Directory of the proofs (default ``./proofs`` under the working directory).
    names : iterable of str, optional
        Only these derivations (slugs, e.g. ``"dctcp_rtt_fairness"``; an unknown one is a ValueError): their
        files alone, without README.md and INDEX.md, which summarize every derivation. Default: all.
    check : bool
        Verify instead of write. With no proof in ``out`` the document is a failure (``ok`` False, ``error`` and
        ``problems`` saying so), not a check of nothing.

    Returns
    -------
    dict
        Written: ``ok``, ``dir``, ``files`` (names written). Checked: ``ok``, ``dir``, ``files`` (names compared),
        ``steps`` and ``findings`` (counts over the derivations), ``problems`` (a failed step, a differing, missing
        or stale file; empty when all is well).
    """
    from ..symbolic.derivation import StepCheckError
    from ..symbolic.registry import DERIVATIONS, check_all, checked, select, write_all

    outdir = Path(out) if out is not None else default_proofs_out()
    names = select(names)
    if not check:
        return to_jsonable(
            {"ok": True, "dir": str(outdir), "files": [p.name for p in write_all(outdir, names)]}
        )
    if not outdir.is_dir() or not any(outdir.glob("*.md")):
        msg = f"proofs --check: {outdir} holds no proofs to check (run `dwtcp-fluid proofs --out {outdir}`)"
        return {"ok": False, "dir": str(outdir), "error": msg, "problems": [msg]}
    try:
        derivs, files = checked(names)
    except StepCheckError as e:
        # the failed step is the problem; the counts are those of the derivations as built (checks not run)
        derivs = [f() for f in DERIVATIONS if names is None or f.__name__ in names]
        problems, files = [str(e)], {f"{d.slug}.md": "" for d in derivs}
        if names is None:
            files.update({"README.md": "", "INDEX.md": ""})
    else:
        problems = check_all(outdir, files=files, names=names)
    return to_jsonable(
        {
            "ok": not problems,
            "dir": str(outdir),
            "files": list(files),
            "steps": sum(len(d.steps) for d in derivs),
            "findings": sum(len(d.findings) for d in derivs),
            "problems": problems,
        }
    )
