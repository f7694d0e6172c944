"""Checked derivations: an ordered list of steps, each with a check SymPy decides, rendered to Markdown + LaTeX.

A :class:`Step` states a claim (SymPy objects or LaTeX), cites the paper equation it corresponds to, says in one
sentence why it follows, and carries a :class:`Check`. :meth:`Derivation.run` evaluates every check in order and
raises :class:`StepCheckError` naming the derivation and the step when one fails. :meth:`Derivation.render`
produces deterministic Markdown (no timings, no object ids, fixed number formats) in which every computed number
is marked with its tolerance (:func:`fmt`, :mod:`dwtcp_fluid.numtext`): ``proofs --check`` compares the text
outside those numbers exactly and each number within its tolerance.

The check constructors (:func:`identity`, :func:`holds`, :func:`positive`, :func:`solutions`, :func:`dsolve_equals`,
:func:`differs`, :func:`numeric`) cover what the derivations need; :func:`predicate` wraps any other decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..numtext import num, plain

__all__ = [
    "Check",
    "Step",
    "Finding",
    "Derivation",
    "StepCheckError",
    "identity",
    "holds",
    "positive",
    "solutions",
    "dsolve_equals",
    "differs",
    "numeric",
    "predicate",
    "fmt",
    "tex_num",
    "tex_matrix",
    "tex",
    "eq",
]


class StepCheckError(AssertionError):
    """A derivation step whose check failed; the message names the derivation and the step."""


@dataclass(frozen=True)
class Check:
    """A decision procedure: ``fn() -> (passed, detail)``; ``how`` says in words what is checked."""

    how: str
    fn: Callable[[], tuple[bool, str]]
    #: Whether the rendered proof repeats the check's detail (numbers for numeric checks; generic texts are omitted).
    show_detail: bool = False


def _zero(expr: Any) -> bool:
    """True when SymPy proves ``expr`` == 0 (matrix: every entry), trying cheap simplifications first."""
    if isinstance(expr, sp.MatrixBase):
        return all(_zero(e) for e in expr)
    e = sp.sympify(expr)
    if e == 0:
        return True
    for f in (
        sp.cancel,
        sp.simplify,
        lambda z: sp.simplify(sp.expand_log(sp.powsimp(z, force=True), force=True)),
    ):
        try:
            if f(e) == 0:
                return True
        except (TypeError, NotImplementedError, ValueError):  # pragma: no cover - SymPy internals
            continue
    return False


def identity(lhs: Any, rhs: Any, *, subs: dict | None = None, how: str = "") -> Check:
    """``lhs − rhs`` simplifies to 0 (after optional substitutions ``subs``), entrywise for matrices."""

    def fn() -> tuple[bool, str]:
        a, b = sp.sympify(lhs), sp.sympify(rhs)
        if subs:
            a, b = a.subs(subs), b.subs(subs)
        ok = _zero(a - b)
        return (
            ok,
            "simplify(lhs − rhs) = 0" if ok else f"lhs − rhs does not simplify to 0: {sp.simplify(a - b)}",
        )

    return Check(how or "SymPy simplifies lhs − rhs to 0", fn)


def holds(statement: Any, *, how: str = "") -> Check:
    """A SymPy Boolean/Relational that evaluates or simplifies to ``True`` under the symbols' assumptions."""

    def fn() -> tuple[bool, str]:
        s = sp.sympify(statement)
        if s is sp.true:
            return True, "evaluates to True"
        try:
            r = sp.simplify(s)
        except (TypeError, NotImplementedError):  # pragma: no cover
            r = s
        return (r is sp.true), ("simplifies to True" if r is sp.true else f"does not reduce to True: {r}")

    return Check(how or "SymPy reduces the statement to True", fn)


def positive(expr: Any, *, how: str = "") -> Check:
    """``expr > 0`` follows from the symbols' assumptions (SymPy's ``is_positive`` after simplification)."""

    def fn() -> tuple[bool, str]:
        e = sp.sympify(expr)
        for f in (lambda z: z, sp.factor, sp.simplify):
            if f(e).is_positive:
                return True, "is_positive is True under the symbol assumptions"
        return False, f"SymPy cannot show {e} > 0"

    return Check(how or "SymPy's assumptions system proves the expression positive", fn)


def solutions(found: Callable[[], Sequence[Any]], expected: Sequence[Any], *, how: str = "") -> Check:
    """The solution set returned by ``found()`` (a ``solve`` call) equals ``expected`` (as sets, simplified)."""

    def fn() -> tuple[bool, str]:
        got = list(found())
        if len(got) != len(expected):
            return False, f"{len(got)} solutions found, {len(expected)} expected: {got}"
        unmatched = list(expected)
        for g in got:
            hit = next((i for i, e in enumerate(unmatched) if _zero(sp.sympify(g) - sp.sympify(e))), None)
            if hit is None:
                return False, f"solution {g} is not among the expected {unmatched}"
            unmatched.pop(hit)
        return True, f"{len(got)} solution(s), all as expected"

    return Check(how or "SymPy's solve returns exactly the stated solutions", fn)


def dsolve_equals(ode: sp.Eq, func: sp.Expr, ics: dict, expected: Any, *, how: str = "") -> Check:
    """``dsolve(ode, func, ics=ics)`` returns ``func = expected``."""

    def fn() -> tuple[bool, str]:
        sol = sp.dsolve(ode, func, ics=ics)
        ok = _zero(sol.rhs - expected)
        return ok, "dsolve agrees with the stated solution" if ok else f"dsolve gives {sol.rhs}"

    return Check(how or "SymPy's dsolve with the stated initial condition returns the stated solution", fn)


def differs(a: Any, b: Any, *, how: str = "") -> Check:
    """``a − b`` is provably not identically zero (a refutation: the paper's expression is not ours)."""

    def fn() -> tuple[bool, str]:
        d = sp.simplify(sp.sympify(a) - sp.sympify(b))
        nonzero = (d != sp.zeros(*d.shape)) if isinstance(d, sp.MatrixBase) else (d != 0)
        return bool(nonzero), ("the difference is not identically 0" if nonzero else "the two are identical")

    return Check(how or "the difference simplifies to a non-zero expression", fn)


def numeric(value: Callable[[], float], expected: float, *, rtol: float = 1e-9, how: str = "") -> Check:
    """A number computed by ``value()`` equals ``expected`` to relative tolerance ``rtol``."""

    def fn() -> tuple[bool, str]:
        v = float(value())
        ok = abs(v - expected) <= rtol * max(abs(expected), 1e-300)
        return ok, f"computed {fmt(v, rtol=rtol)}, expected {fmt(expected)} (rtol {rtol:g})"

    return Check(how or f"numerical value within rtol {rtol:g}", fn, show_detail=True)


def predicate(fn: Callable[[], tuple[bool, str]], how: str) -> Check:
    """Any other decision, described in words by ``how``; ``fn`` returns ``(passed, detail)``."""
    return Check(how, fn, show_detail=True)


# --- rendering ----------------------------------------------------------------------------------------------------


def fmt(
    x: float, sig: int = 6, *, spec: str | None = None, rtol: float | None = None, atol: float | None = None
) -> str:
    """A computed number to ``sig`` significant digits (or in the format ``spec``, e.g. ``".2f"``), marked with its tolerance for ``proofs --check``
    (:func:`dwtcp_fluid.numtext.num`): ``rtol``/``atol`` when given, and at least one unit in the last digit shown.

    The mark survives string formatting and concatenation; :func:`dwtcp_fluid.numtext.plain` removes it (the
    rendered files and every message hold plain text). A SymPy object cannot hold it: render a computed number
    with ``fmt`` into a LaTeX string, never through ``sp.Float``.
    """
    return num(x, sig, spec=spec, rtol=rtol, atol=atol)


def tex_num(x: float, sig: int = 6, *, rtol: float | None = None) -> str:
    """LaTeX for a computed number (:func:`fmt`'s mark kept): ``6.313 \\cdot 10^{7}`` outside [1e-3, 1e4), the
    mantissa carrying the tolerance (``rtol``, at least one unit in its last digit)."""
    v = float(x)
    if v == 0 or 1e-3 <= abs(v) < 1e4:
        return fmt(v, sig, rtol=rtol)
    e = int(f"{v:.{sig - 1}e}".split("e")[1])
    return rf"{fmt(v / 10.0**e, sig, rtol=rtol)} \cdot 10^{{{e}}}"


def tex_matrix(rows: Any, sig: int = 4, *, rtol: float | None = None) -> str:
    """LaTeX for a matrix (or a tuple, one row) of computed numbers, each rendered by :func:`tex_num`."""
    body = r"\\".join(" & ".join(tex_num(v, sig, rtol=rtol) for v in row) for row in rows)
    return rf"\left[\begin{{matrix}}{body}\end{{matrix}}\right]"


#: LaTeX for model parameter names that SymPy would otherwise print literally (``s_over_l`` → S/L).
DISPLAY_NAMES: dict[str, str] = {"s_over_l": r"\tfrac{S}{L}"}


def tex(obj: Any) -> str:
    """LaTeX for a SymPy object (``Eq``, expression, matrix) or a string passed through unchanged."""
    if isinstance(obj, str):
        return obj
    names = {x: DISPLAY_NAMES[x.name] for x in getattr(obj, "free_symbols", ()) if x.name in DISPLAY_NAMES}
    return sp.latex(obj, symbol_names=names) if names else sp.latex(obj)


def eq(lhs: Any, rhs: Any, rel: str = "=") -> str:
    """LaTeX ``lhs = rhs`` without letting SymPy evaluate the equation (``Eq(x, Matrix)`` would become False)."""
    return f"{tex(lhs)} {rel} {tex(rhs)}"


@dataclass(frozen=True)
class Step:
    """One step of a derivation.

    Parameters
    ----------
    title : str
        Short name; failures name it.
    cite : str
        The paper equation(s) it corresponds to, e.g. "[DWTCP] eq. (8)" ("" if none).
    why : str
        One sentence: why the step follows.
    show : sequence
        SymPy objects or LaTeX strings displayed as the step's statement.
    check : Check
        The decision SymPy makes.
    """

    title: str
    cite: str
    why: str
    show: Sequence[Any]
    check: Check


@dataclass(frozen=True)
class Finding:
    """A row of the findings table: what the paper says, what the derivation shows, and a status word."""

    item: str
    paper: str
    we_find: str
    status: str
    step: str = ""


@dataclass
class Derivation:
    """An ordered list of checked steps with its findings, rendered into one Markdown file.

    Parameters
    ----------
    slug : str
        File stem in proofs/ (``<slug>.md``).
    title : str
    covers : str
        The equations the file covers, with their source document.
    findings : list of Finding
        Stated in plain words at the top of the file and collected in proofs/README.md.
    steps : list of Step
    notes : list of str
        Extra Markdown paragraphs appended after the steps (tables of numbers, remarks).
    """

    slug: str
    title: str
    covers: str
    findings: list[Finding]
    steps: list[Step]
    notes: list[str] = field(default_factory=list)

    def run(self) -> list[str]:
        """Evaluate every check in order; return their details, or raise :class:`StepCheckError` at the first failure."""
        titles = {s.title for s in self.steps}
        for f in self.findings:
            if f.step and f.step not in titles:
                raise StepCheckError(f"{self.slug}: finding {f.item!r} cites unknown step {f.step!r}")
        details = []
        for i, s in enumerate(self.steps, 1):
            try:
                ok, detail = s.check.fn()
            except Exception as e:  # a crashing check is a failed check, reported with the step's name
                raise StepCheckError(
                    f"{self.slug}.md step {i} ({s.title!r}): check raised {plain(repr(e))}"
                ) from e
            if not ok:
                raise StepCheckError(f"{self.slug}.md step {i} ({s.title!r}) failed: {plain(detail)}")
            details.append(detail)
        return details

    def step_number(self, title: str) -> int:
        return next(i for i, s in enumerate(self.steps, 1) if s.title == title)

    def render(self, details: Sequence[str] | None = None) -> str:
        """Markdown with LaTeX, its computed numbers marked (:func:`fmt`; :func:`dwtcp_fluid.numtext.plain` gives the
        file's text); runs the checks first unless their ``details`` are given."""
        details = self.run() if details is None else details
        out = [
            f"# {self.title}",
            "",
            "<!-- generated by `dwtcp-fluid proofs` from dwtcp_fluid/symbolic; do not edit by hand -->",
            "",
            f"**Covers:** {self.covers}",
            "",
            "## Findings",
            "",
        ]
        for f in self.findings:
            ref = f" (step {self.step_number(f.step)})" if f.step else ""
            out.append(f"- **{f.item}** — *{f.status}*{ref}. {f.we_find}")
        out += ["", "## Derivation", ""]
        for i, (s, d) in enumerate(zip(self.steps, details, strict=True), 1):
            cite = f" — {s.cite}" if s.cite else ""
            out += [f"### Step {i}. {s.title}{cite}", "", s.why, ""]
            for obj in s.show:
                out += ["$$", tex(obj), "$$", ""]
            detail = f" ({d})" if s.check.show_detail else ""
            out += [f"Check: {s.check.how} — passed{detail}.", ""]
        if self.notes:
            out += ["## Notes", ""]
            for n in self.notes:
                out += [n, ""]
        return "\n".join(out).rstrip() + "\n"
