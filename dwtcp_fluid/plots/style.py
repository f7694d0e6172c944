"""A fixed, deterministic matplotlib style, so committed figures can be compared byte- and pixel-wise.

Importing this module (or anything in the package) changes neither the matplotlib backend nor the user's
rcParams: the toolkit draws inside :func:`style`, a context manager that restores the caller's settings on exit.
:func:`apply_style` is the explicit, global opt-in for a notebook that wants every figure in the project's style.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import matplotlib
from cycler import cycler

__all__ = ["apply_style", "style", "save_figure", "PNG_METADATA", "SVG_METADATA", "PDF_METADATA"]

_RC: dict[str, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "legend.fontsize": 8.0,
    "xtick.labelsize": 8.0,
    "ytick.labelsize": 8.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.4,
    "image.cmap": "viridis",
    "svg.hashsalt": "dwtcp_fluid",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "path.simplify": True,
    "axes.prop_cycle": cycler(
        color=["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]
    ),
}

#: Metadata that would make two builds differ (software version, creation date) is stripped.
PNG_METADATA = {"Software": None}
SVG_METADATA = {"Date": None, "Creator": None}
PDF_METADATA = {"CreationDate": None, "Creator": None, "Producer": None}


@contextmanager
def style() -> Iterator[None]:
    """Draw in the project's fixed style: ``with style(): fig = ...; save_figure(fig, path)``.

    Inside the block rcParams are matplotlib's defaults plus the project's settings, whatever the user's
    matplotlibrc says (so figures are reproducible); on exit the caller's rcParams come back. The backend is never
    touched.
    """
    with matplotlib.rc_context():
        matplotlib.rcdefaults()  # keeps the backend: rcdefaults skips it
        matplotlib.rcParams.update(cast(Any, _RC))
        yield


def apply_style() -> None:
    """Apply the project's style globally (explicit opt-in, e.g. at the top of a notebook); the backend is kept.

    Unlike :func:`style` this does not reset other rcParams, so a notebook's inline settings survive.
    """
    matplotlib.rcParams.update(cast(Any, _RC))


def save_figure(fig, path, dpi: float | None = None) -> None:
    """Save ``fig`` to ``path`` with metadata stripped; the format follows the extension (png, svg, pdf).

    ``dpi`` is the raster resolution (default the style's ``savefig.dpi``, 110); vector formats keep their text.
    """
    from pathlib import Path

    from ..atomic import atomic_path

    path = Path(path)
    ext = path.suffix.lower().lstrip(".")
    meta = {"png": PNG_METADATA, "svg": SVG_METADATA, "pdf": PDF_METADATA}.get(ext)
    if meta is None:
        raise ValueError(f"out={str(path)!r} is invalid: accepted a file ending in .png, .svg or .pdf")
    with atomic_path(path) as tmp, style():  # savefig.dpi, svg.hashsalt, fonttypes are read at save time
        kw = {} if dpi is None else {"dpi": dpi}  # None: rcParams["savefig.dpi"] of the style
        fig.savefig(tmp, format=ext, metadata=meta, **kw)
