"""The figure catalog: every registered figure (:mod:`.figure`) built, or checked against the committed image.

``dwtcp-fluid figures`` builds every registered figure into ``figures/<name>.png``; ``--check`` rebuilds into a
temporary directory, asserts every claim, and compares each image with the committed one
(``matplotlib.testing.compare.compare_images``, RMS tolerance :data:`IMAGE_TOL`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

# one recipe module per capability, most of them a study's figures module: importing it registers its figures
# (add a new one here)
from ..studies.cubic import figures as cubic
from ..studies.d2tcp import figures as d2tcp
from ..studies.d3 import figures as d3
from ..studies.dcqcn import figures as dcqcn
from ..studies.dctcp import figures_hybrid as hybrid
from ..studies.dctcp import figures_limit_cycles as limit_cycles
from ..studies.dctcp import figures_phase as phase_dctcp
from ..studies.dctcp import figures_tuning as tuning
from ..studies.dctcp import figures_wan as dctcp_wan
from ..studies.dwtcp import figures_charroots as charroots
from ..studies.dwtcp import figures_claims as dwtcp_claims
from ..studies.dwtcp import figures_packet_truth as dwtcp_packet_truth
from ..studies.dwtcp import figures_phase as phase_dwtcp
from ..studies.dwtcp import figures_regime as dwtcp_regime
from ..studies.dwtcp import figures_sweep_maps as sweep_maps
from ..studies.dwtcp import figures_sweep_outcomes as sweep_outcomes
from ..studies.dwtcp import figures_tuning as tuning_dwtcp
from ..studies.hpcc import figures as hpcc
from ..studies.networks import figures_multihop as multihop
from ..studies.networks import figures_sweep as network_sweep
from ..studies.swift import figures as swift
from ..studies.timely import figures as timely
from ..studies.timely import figures_network as timely_network
from ..studies.timely import figures_proxy_signals as proxy_signals
from . import figure as _figure
from . import packet, timeseries
from .figure import Claim, ClaimResult, Figure, FigureResult, register

RECIPES = (
    sweep_maps,
    sweep_outcomes,
    dwtcp_packet_truth,
    dwtcp_regime,
    hybrid,
    charroots,
    timeseries,
    packet,
    limit_cycles,
    phase_dwtcp,
    phase_dctcp,
    timely,
    dctcp_wan,
    d2tcp,
    cubic,
    tuning,
    tuning_dwtcp,
    multihop,
    proxy_signals,
    network_sweep,
    timely_network,
    dwtcp_claims,
    hpcc,
    dcqcn,
    swift,
    d3,
)

__all__ = [
    "Claim",
    "Figure",
    "ClaimResult",
    "FigureResult",
    "register",
    "registry",
    "build_figure",
    "build_all",
    "check_all",
    "RECIPES",
    "IMAGE_TOL",
]

#: RMS tolerance (0-255 scale) for image comparison: absorbs anti-aliasing differences between FreeType builds.
IMAGE_TOL = 2.0


def registry() -> dict[str, Figure]:
    """All registered figures, by name (every module of :data:`RECIPES` registered its own on import)."""
    return _figure.registered()


#: Formats ``figures --format`` writes (the committed, CI-compared figures are PNG at the style's 110 dpi).
FORMATS = ("png", "pdf", "svg")


def build_figure(
    fig: Figure, outdir: Path, *, quick: bool = False, fmt: str = "png", dpi: float | None = None
) -> FigureResult:
    """Build one figure's data, evaluate its claims and write ``outdir/<name>.<fmt>`` (``dpi``: raster
    resolution, default the style's 110)."""
    if fmt not in FORMATS:
        raise ValueError(f"format={fmt!r} is invalid: accepted {' | '.join(FORMATS)}")
    if dpi is not None and not (10 <= dpi <= 2400):
        raise ValueError(f"dpi={dpi!r} is invalid: accepted 10 <= dpi <= 2400")
    import time

    import matplotlib.pyplot as plt

    from ..plots.style import save_figure, style

    t0 = time.perf_counter()
    with style():  # the caller's rcParams come back afterwards
        data = fig.build(quick)
        results = []
        for c in fig.claims:
            try:
                passed, measured = c.check(data)
            except Exception as e:  # a claim that cannot be evaluated has failed, and says why
                passed, measured = False, f"error: {type(e).__name__}: {e}"
            results.append(ClaimResult(c.text, bool(passed), str(measured)))
        mpl_fig = fig.plot(data)
        path = Path(outdir) / f"{fig.name}.{fmt}"
        save_figure(mpl_fig, path, dpi=dpi)
        plt.close(mpl_fig)
    return FigureResult(fig.name, path, tuple(results), seconds=time.perf_counter() - t0)


#: ``tier`` values: every figure, those not marked slow, those marked slow (:attr:`Figure.slow`).
TIERS = ("all", "fast", "slow")


def selected_names(names: Iterable[str] | None = None, tier: str = "all") -> list[str]:
    """The registered figures ``names`` selects (all when None) within ``tier``, in registry order; unknown names
    are refused."""
    reg = registry()
    if tier not in TIERS:
        raise ValueError(f"tier={tier!r} is invalid: accepted {' | '.join(TIERS)}")
    selected = list(reg) if names is None else list(names)
    unknown = [n for n in selected if n not in reg]
    if unknown:
        raise ValueError(f"figure={unknown[0]!r} is not registered: accepted {' | '.join(sorted(reg))}")
    return [n for n in selected if tier == "all" or reg[n].slow == (tier == "slow")]


def _build_in_worker(name: str, outdir: str, quick: bool, fmt: str, dpi: float | None) -> FigureResult:
    """One figure in a worker process (spawned: it imports the catalog, which registers every recipe)."""
    return build_figure(registry()[name], Path(outdir), quick=quick, fmt=fmt, dpi=dpi)


def build_all(
    outdir: Path,
    names: Iterable[str] | None = None,
    *,
    quick: bool = False,
    fmt: str = "png",
    dpi: float | None = None,
    on_figure: Callable[[str], None] | None = None,
    jobs: int = 1,
) -> list[FigureResult]:
    """Build the selected figures into ``outdir``; ``on_figure(name)`` is called as each one starts (progress).

    ``jobs`` > 1 builds them in that many worker processes (spawned, so no JAX state is forked); every figure is
    built from its own recipe alone, so the files and claims do not depend on ``jobs``, and the results come
    back in registry order.
    """
    if jobs < 1:
        raise ValueError(f"jobs={jobs!r} is invalid: accepted an integer >= 1")
    from ..atomic import make_dirs, publish_new

    reg = registry()
    selected = selected_names(names)
    make_dirs(outdir)
    for (
        n
    ) in selected:  # a failed command removes the new figures again, those written by worker processes too
        if not (target := Path(outdir) / f"{n}.{fmt}").exists():
            publish_new(target)
    if jobs == 1 or len(selected) <= 1:
        out = []
        for n in selected:
            if on_figure is not None:
                on_figure(n)
            out.append(build_figure(reg[n], Path(outdir), quick=quick, fmt=fmt, dpi=dpi))
        return out
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    done: dict[str, FigureResult] = {}
    with ProcessPoolExecutor(min(jobs, len(selected)), mp_context=mp.get_context("spawn")) as pool:
        # the slow builds first, so that the short ones fill the workers at the end
        order = sorted(selected, key=lambda n: not reg[n].slow)
        futs = {pool.submit(_build_in_worker, n, str(outdir), quick, fmt, dpi): n for n in order}
        for f in as_completed(futs):
            if on_figure is not None:
                on_figure(futs[f])  # counted as it finishes: the workers' start times are not observable here
            done[futs[f]] = f.result()
    return [done[n] for n in selected]


def check_all(
    committed_dir: Path,
    names: Iterable[str] | None = None,
    *,
    on_figure: Callable[[str], None] | None = None,
    jobs: int = 1,
) -> list[FigureResult]:
    """Rebuild into a temporary directory (``jobs`` processes, see :func:`build_all`), evaluate claims, and
    compare with ``committed_dir``."""
    from matplotlib.testing.compare import compare_images

    out: list[FigureResult] = []
    with tempfile.TemporaryDirectory(prefix="dwtcp-figures-") as tmp:
        for r in build_all(Path(tmp), names, on_figure=on_figure, jobs=jobs):
            ref = Path(committed_dir) / r.path.name
            if not ref.exists():
                ok, msg = False, f"{ref} is not committed (run `dwtcp-fluid figures`)"
            else:
                diff = compare_images(str(ref), str(r.path), tol=IMAGE_TOL, in_decorator=True)
                ok = diff is None
                msg = "matches" if ok else f"differs from {ref}: RMS {diff['rms']:.3f} > {IMAGE_TOL}"
            out.append(FigureResult(r.name, ref, r.claims, ok, msg, r.seconds))
    return out
