"""JSON document of ``figures``: the registered figures built (files written) or checked (every claim re-evaluated,
every image compared with the committed one), from the figure catalog (:mod:`dwtcp_fluid.experiments.catalog`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ._json import to_jsonable

__all__ = ["check_figures", "default_figures_dir", "figures_document", "figures_report"]


def default_figures_dir() -> Path:
    """``./figures`` under the working directory (never the checkout the package was imported from)."""
    return Path.cwd() / "figures"


def figures_document(results: Iterable[Any]) -> dict[str, Any]:
    """The document of the catalog's results (:class:`~dwtcp_fluid.experiments.figure.FigureResult`): ``ok`` and
    per figure its name, path, image verdict (None when only built), build seconds and every claim with its
    verdict and measured value."""
    results = list(results)
    return to_jsonable(
        {
            "ok": all(r.ok for r in results),
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


def check_figures(
    names: Iterable[str] | None = None,
    *,
    check: bool = False,
    fmt: str = "png",
    dpi: float | None = None,
    jobs: int = 1,
    tier: str = "all",
) -> list[str]:
    """Validate the inputs of :func:`figures_report`; return the selected figures' names in registry order. Each
    ValueError names the parameter (``figure``, ``fmt``, ``dpi``, ``jobs``, ``tier``), its value and what is
    accepted."""
    from ..experiments import catalog

    selected = catalog.selected_names(None if names is None else list(names), tier)
    if fmt not in catalog.FORMATS:
        raise ValueError(f"fmt={fmt!r} is invalid: accepted {' | '.join(catalog.FORMATS)}")
    if dpi is not None and not 10 <= dpi <= 2400:
        raise ValueError(f"dpi={dpi!r} is out of range: accepted 10 <= dpi <= 2400 (dots per inch)")
    if check and fmt != "png":
        raise ValueError(f"fmt={fmt!r} is invalid: accepted png with check (it compares the committed PNGs)")
    if check and dpi is not None:
        raise ValueError(f"dpi={dpi!r} is invalid: accepted None with check (it compares the committed PNGs)")
    if not 1 <= jobs <= 64:
        raise ValueError(f"jobs={jobs!r} is out of range: accepted an integer in [1, 64]")
    return selected


def figures_report(
    out: str | Path | None = None,
    names: Iterable[str] | None = None,
    *,
    check: bool = False,
    fmt: str = "png",
    dpi: float | None = None,
    jobs: int = 1,
    tier: str = "all",
    on_start: Callable[[int], None] | None = None,
    on_figure: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """``figures --json``'s document: build the registered figures into ``out``, or with ``check`` rebuild them in a
    temporary directory, evaluate every claim and compare each image with the one committed in ``out``.

    Parameters
    ----------
    out : str or Path, optional
        Directory of the figures (default ``./figures`` under the working directory).
    names : iterable of str, optional
        Only these registered figures (default: all, in registry order); an unknown name is a ValueError.
    check : bool
        Verify instead of build. With no committed figure of the selection in ``out`` the document is a failure
        (``ok`` False, ``error`` saying so, no figures), not a check of nothing.
    fmt : {"png", "pdf", "svg"}
        File format of a build (a check compares the committed PNGs).
    dpi : float, optional
        Raster resolution of a build, dots per inch in [10, 2400] (default 110).
    jobs : int
        Build in this many processes (the figures are independent; the results are the same).
    tier : {"all", "fast", "slow"}
        Every selected figure, or only those not marked slow (``make test``), or only those marked slow.
    on_start, on_figure : callable, optional
        Progress: ``on_start(number of figures)`` once the inputs passed every check and the work begins (not
        called for a failure document), then ``on_figure(name)`` as each figure starts (as each one ends with
        ``jobs`` > 1).

    Returns
    -------
    dict
        :func:`figures_document`: ``ok`` and each figure's path, image verdict, build seconds and claims.
    """
    from ..experiments import catalog  # every recipe and what it runs: imported only when asked for

    outdir = Path(out) if out is not None else default_figures_dir()
    selected = check_figures(names, check=check, fmt=fmt, dpi=dpi, jobs=jobs, tier=tier)
    if check and (not outdir.is_dir() or not any((outdir / f"{n}.png").exists() for n in selected)):
        return {
            "ok": False,
            "error": f"figures --check: {outdir} holds none of the figures to check "
            f"(run `dwtcp-fluid figures --out {outdir}`)",
            "figures": [],
        }
    if on_start is not None:
        on_start(len(selected))
    if check:
        results = catalog.check_all(outdir, selected, on_figure=on_figure, jobs=jobs)
    else:
        results = catalog.build_all(outdir, selected, fmt=fmt, dpi=dpi, on_figure=on_figure, jobs=jobs)
    return figures_document(results)
