"""The registry of derivations rendered into proofs/, the findings index (proofs/README.md), the equation index
(proofs/INDEX.md, :mod:`.eq_index`), and the check.

:func:`render_all` runs every derivation's checks and returns ``{file name: Markdown}``, each computed number marked
with its tolerance (:mod:`dwtcp_fluid.numtext`); :func:`write_all` writes them (plain text); :func:`check_all`
re-runs every check and compares with the committed files: the text outside the computed numbers character for
character, each computed number within its tolerance (so the files pass on any CPU and BLAS). Each takes
``names`` (derivation slugs) to work on those derivations' files alone: README.md and INDEX.md summarize every
derivation, so they are rendered, written and checked only for the whole registry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..numtext import compare, plain
from ..studies.cubic.derive import cubic
from ..studies.d2tcp.derive import d2tcp
from ..studies.dcqcn.derive import dcqcn
from ..studies.dctcp.derive import dctcp_fixed_points, dctcp_normalization
from ..studies.dctcp.derive_ack_clock import dctcp_ack_clock
from ..studies.dctcp.derive_delack import dctcp_delack
from ..studies.dctcp.derive_hybrid import dctcp_hybrid, dctcp_rtt_fairness
from ..studies.dwtcp.derive_busy import dwtcp_busy
from ..studies.dwtcp.derive_equilibrium import dwtcp_equilibrium, dwtcp_increase_phase
from ..studies.dwtcp.derive_law import dwtcp_fluid_model
from ..studies.dwtcp.derive_linear import dwtcp_condition_numbers, dwtcp_jacobian
from ..studies.dwtcp.derive_orbits import dwtcp_first_integral
from ..studies.dwtcp.derive_overhead import dwtcp_scout_overhead
from ..studies.dwtcp.derive_packet_law import dwtcp_packet_law
from ..studies.dwtcp.derive_priority import dwtcp_scout_amplification
from ..studies.dwtcp.derive_regime import dwtcp_regime
from ..studies.dwtcp.derive_variants import dwtcp_variants
from ..studies.hpcc.derive import hpcc
from ..studies.networks.derive_leafspine import leafspine
from ..studies.networks.derive_multihop import multihop
from ..studies.swift.derive import swift
from ..studies.timely.derive import timely
from ..studies.timely.derive_network import timely_network
from .derivation import Derivation, StepCheckError
from .eq_index import render_index
from .recorded import checkout_root

__all__ = [
    "DERIVATIONS",
    "COVERAGE",
    "build_all",
    "checked",
    "select",
    "render_all",
    "write_all",
    "check_all",
    "default_proofs_dir",
]

#: Every derivation, in the order of the index.
DERIVATIONS: tuple[Callable[[], Derivation], ...] = (
    dwtcp_fluid_model,
    dwtcp_jacobian,
    dwtcp_equilibrium,
    dwtcp_increase_phase,
    dwtcp_first_integral,
    dwtcp_variants,
    dwtcp_condition_numbers,
    dwtcp_busy,
    dwtcp_packet_law,
    dwtcp_regime,
    dctcp_normalization,
    dctcp_fixed_points,
    dctcp_hybrid,
    dctcp_rtt_fairness,
    dctcp_ack_clock,
    timely,
    d2tcp,
    cubic,
    dctcp_delack,
    multihop,
    leafspine,
    timely_network,
    dwtcp_scout_amplification,
    hpcc,
    dcqcn,
    swift,
    dwtcp_scout_overhead,
)


@dataclass(frozen=True)
class Coverage:
    """One "Note" or "Points the project must examine" item of docs/equations.md and the findings that answer it."""

    spec_item: str
    slug: str
    findings: tuple[str, ...]


#: Every Note and every "Points the project must examine" item of docs/equations.md.
COVERAGE: tuple[Coverage, ...] = (
    Coverage(
        "DCTCP Note: fixed point reads 'w̄2 − 1'",
        "dctcp_fixed_points",
        ("Fixed point (15) and the garbled 'w̄2 − 1'",),
    ),
    Coverage(
        "DCTCP Note: exp(∫J ds) vs transition matrix",
        "dctcp_fixed_points",
        ("J_F and exp(∫J ds) in Theorem 1",),
    ),
    Coverage("DCTCP Note: the 1.4× bound drops the '1+' terms", "dctcp_hybrid", ("'β_TCP < 1.4·β_DCTCP'",)),
    Coverage(
        "DWTCP Note: Algorithm 1 line 18 sendTime − rcvTime", "dwtcp_fluid_model", ("Algorithm 1 line 18",)
    ),
    Coverage(
        "DWTCP Note 1: increase per ACK vs per RTT",
        "dwtcp_fluid_model",
        ("Note 1 (increase per ACK vs per RTT)",),
    ),
    Coverage("DWTCP Note 2: α bounds", "dwtcp_fluid_model", ("Note 2 (α bounds)",)),
    Coverage("DWTCP Note 3: units of β", "dwtcp_fluid_model", ("Note 3 (units of β)",)),
    Coverage("DWTCP Note: (3) extracted as −w·√(w·β)/τ", "dwtcp_fluid_model", ("(3) as extracted",)),
    Coverage(
        "DWTCP Note: increase-phase Jacobian (15)/(16)",
        "dwtcp_increase_phase",
        ("Increase-phase Jacobian (15)", "Eigenvalues (16)"),
    ),
    Coverage("Point: (14) is a spiral-vs-node condition", "dwtcp_jacobian", ("(14) and Theorems 1/2",)),
    Coverage(
        "Point: equilibrium (BDP/N, 0) has k̄ = 0; q = k̄ > 0 is no equilibrium",
        "dwtcp_equilibrium",
        ("Claimed equilibrium (BDP/N, 0)", "Linearizing at q = k̄ > 0"),
    ),
    Coverage(
        "Point: first integral H of (6), and of (3)",
        "dwtcp_first_integral",
        ("First integral of (6)", "First integral of (3)", "Where convergence comes from"),
    ),
    Coverage("Point: the Scout feedback delay", "dwtcp_equilibrium", ("Feedback delay",)),
    Coverage(
        "Point: β = 0.001 gives 2·BDP/√β ≈ 63·BDP", "dwtcp_condition_numbers", ("k̄* = 2·BDP/√β in numbers",)
    ),
)


def default_proofs_dir() -> Path:
    """proofs/ of the source checkout when the package runs from one (editable install), else ./proofs."""
    return checkout_root() / "proofs"


def build_all() -> list[Derivation]:
    """Construct every registered derivation (SymPy expressions built; checks not yet run)."""
    return [f() for f in DERIVATIONS]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _readme(derivs: list[Derivation]) -> str:
    by_slug = {d.slug: d for d in derivs}
    out = [
        "# Proofs: checked derivations",
        "",
        "<!-- generated by `dwtcp-fluid proofs` from dwtcp_fluid/symbolic; do not edit by hand -->",
        "",
        "Every file here is rendered from an ordered list of steps in `dwtcp_fluid/symbolic/`; SymPy checks each step",
        "(an identity that simplifies to 0, a `solve`/`dsolve` result, a sign under stated assumptions, or a stated",
        "numerical computation), and every model expression comes from the single model definitions in",
        "`dwtcp_fluid/models/`. `dwtcp-fluid proofs` regenerates the files; `dwtcp-fluid proofs --check` re-runs every",
        "check and fails if a step fails or a committed file differs: its text character for character, each number",
        "a step computes numerically within that number's tolerance (one unit in its last digit shown unless the",
        "step states another), so that the check passes on any CPU, BLAS kernel and compiler.",
        "",
        "## Files",
        "",
    ]
    for d in derivs:
        out.append(f"- [{d.slug}.md]({d.slug}.md) — {d.title} ({len(d.steps)} checked steps)")
    out += [
        "",
        "## Coverage of docs/equations.md",
        "",
        'Every Note and every "Points the project must examine" item of docs/equations.md:',
        "",
        "| docs/equations.md item | where | status |",
        "|---|---|---|",
    ]
    for c in COVERAGE:
        d = by_slug[c.slug]
        fs = [f for f in d.findings if f.item in c.findings]
        if len(fs) != len(c.findings):
            missing = set(c.findings) - {f.item for f in fs}
            raise StepCheckError(f"README coverage: {c.slug}.md has no finding(s) {sorted(missing)}")
        status = "; ".join(f"{f.item}: {f.status}" for f in fs)
        out.append(f"| {_cell(c.spec_item)} | [{c.slug}.md]({c.slug}.md) | {_cell(status)} |")
    out += [
        "",
        "## Findings",
        "",
        "| item | paper says | we find | status | proof |",
        "|---|---|---|---|---|",
    ]
    for d in derivs:
        for f in d.findings:
            ref = f"[{d.slug}.md]({d.slug}.md)" + (f", step {d.step_number(f.step)}" if f.step else "")
            out.append(
                f"| {_cell(f.item)} | {_cell(f.paper)} | {_cell(f.we_find)} | {_cell(f.status)} | {ref} |"
            )
    return "\n".join(out) + "\n"


def select(names: Iterable[str] | None = None) -> tuple[str, ...] | None:
    """The slugs ``names`` selects, in registry order (None: the whole registry); an unknown slug is a ValueError."""
    if names is None:
        return None
    names = list(names)
    slugs = [f.__name__ for f in DERIVATIONS]  # each factory is named as its derivation's slug
    unknown = [n for n in names if n not in slugs]
    if unknown:
        raise ValueError(f"derivation={unknown[0]!r} is not registered: accepted {' | '.join(slugs)}")
    return tuple(n for n in slugs if n in names)


def render_all(derivs: list[Derivation] | None = None, names: Iterable[str] | None = None) -> dict[str, str]:
    """Run every check and render ``{file name: Markdown}`` including README.md; raises StepCheckError on failure.

    Computed numbers are marked with their tolerance (:func:`dwtcp_fluid.numtext.plain` gives a file's text).

    The registered derivations are deterministic, so their rendering is computed once per process (a copy is
    returned; :func:`checked`); passing ``derivs`` always runs their checks. ``names``: only those derivations'
    files (no README.md, INDEX.md).
    """
    if derivs is None:
        return checked(names)[1]
    files = {f"{d.slug}.md": d.render() for d in derivs}
    files["README.md"] = _readme(derivs)
    files["INDEX.md"] = render_index({k: plain(v) for k, v in files.items()})
    return files


def checked(names: Iterable[str] | None = None) -> tuple[list[Derivation], dict[str, str]]:
    """The registered derivations (all, or the slugs ``names``) with every check run, and their rendered files
    (README.md and INDEX.md too for the whole registry); computed once per process and selection."""
    derivs, files = _checked(select(names))
    return list(derivs), dict(files)


@functools.cache
def _checked(names: tuple[str, ...] | None) -> tuple[tuple[Derivation, ...], tuple[tuple[str, str], ...]]:
    derivs = [f() for f in DERIVATIONS if names is None or f.__name__ in names]
    if names is None:
        return tuple(derivs), tuple(render_all(derivs).items())
    return tuple(derivs), tuple((f"{d.slug}.md", d.render()) for d in derivs)


def write_all(outdir: Path | str | None = None, names: Iterable[str] | None = None) -> list[Path]:
    """Regenerate proofs/ (files written to a temporary name, then renamed); ``names``: those derivations' files."""
    outdir = Path(outdir) if outdir is not None else default_proofs_dir()
    from ..atomic import make_dirs, write_text

    files = render_all(names=names)  # every check runs before the first file is written
    make_dirs(outdir)
    written = []
    for name, text in files.items():
        written.append(write_text(outdir / name, plain(text)))
    return written


def check_all(
    outdir: Path | str | None = None, files: dict[str, str] | None = None, names: Iterable[str] | None = None
) -> list[str]:
    """Re-run every check and compare with the files in ``outdir``; return the problems (empty when all is well).

    A failing step is reported as the StepCheckError message (naming the file and the step); a file that differs
    from its regenerated content (:func:`dwtcp_fluid.numtext.compare`: its text outside the computed numbers, or a
    number beyond its tolerance, each named with its line), is missing, or (for the whole registry) is a stale
    extra Markdown file is named. ``files`` (the output of :func:`render_all`) skips re-running the checks when the caller already has
    them; ``names`` checks those derivations' files alone.
    """
    outdir = Path(outdir) if outdir is not None else default_proofs_dir()
    if files is None:
        try:
            files = render_all(names=names)
        except StepCheckError as e:
            return [str(e)]
    problems = []
    for name, text in files.items():
        path = outdir / name
        if not path.is_file():
            problems.append(f"{path}: missing (run `dwtcp-fluid proofs`)")
        else:
            for p in compare(path.read_bytes().decode("utf-8", errors="replace"), text):
                problems.append(
                    f"{path}: differs from the regenerated derivation, {p} (run `dwtcp-fluid proofs`)"
                )
    for path in sorted(outdir.glob("*.md")) if names is None else ():
        if path.name not in files:
            problems.append(f"{path}: not produced by any registered derivation")
    return problems
