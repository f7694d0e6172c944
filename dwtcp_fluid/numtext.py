"""Generated text whose computed numbers carry a tolerance, and the check of a committed copy against it.

A generated document (a proof in ``proofs/``, a table in the README) embeds numbers that the code computes: a
period found by an adaptive ODE solve, a count from a simulation. Their last digits depend on the CPU, the BLAS
kernel and the compiler's contractions, so a committed copy is compared number by number, not byte for byte:

- :func:`num` renders a computed number and marks it, invisibly, with its tolerance (the value as computed and the
  largest accepted difference, in the quantity's unit). The default tolerance is one unit in the last digit shown:
  the rendering states what the check guarantees, so a number shown to 4 digits is checked to its 4th digit.
- :func:`plain` removes the marks: the text a file holds.
- :func:`compare` checks a committed text against a marked one: every character outside the marked numbers must
  be equal, and each marked number must be within its tolerance of the number at the same place in the committed
  text, plus half a unit of the committed number's last digit (its own rounding). A number written without
  :func:`num` is text and compares exactly.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass

__all__ = ["num", "plain", "marked_numbers", "compare", "MarkedNumber"]

_OPEN, _SEP, _CLOSE = (
    "\ue000",
    "\ue001",
    "\ue002",
)  # Unicode private-use code points: never in a document's text
_MARK = re.compile(f"{_OPEN}([^{_SEP}]*){_SEP}([^{_CLOSE}]*){_CLOSE}")
#: A number as :func:`num` renders one (Python's ``g``/``f``/``e`` formats), and as it is read back.
NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan"


@dataclass(frozen=True)
class MarkedNumber:
    """A number :func:`num` rendered: its text, the value as computed and the accepted absolute difference."""

    text: str
    value: float
    tol: float


def _last_unit(text: str) -> float:
    """One unit in the last digit of a rendered number ("0.9363" -> 1e-4, "140" -> 1, "6.7e+03" -> 100)."""
    m = re.fullmatch(r"[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?", text)
    if not m:
        return 0.0
    decimals = len(m.group(2) or "")
    exponent = int(m.group(3) or 0)
    return 10.0 ** (exponent - decimals)


def num(
    value: float,
    sig: int = 4,
    *,
    spec: str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
) -> str:
    """``value`` rendered and marked with its tolerance for :func:`compare`.

    Parameters
    ----------
    value : float
        The computed number.
    sig : int
        Significant digits (Python's ``g`` format) when ``spec`` is not given.
    spec : str, optional
        A format spec instead (``".2f"``, ``".0f"``, ``"d"`` for an integer count).
    rtol, atol : float, optional
        The accepted difference: relative to ``value``, or absolute in the quantity's unit (the larger of the two
        when both are given), and never less than one unit in the last digit shown, which is the default.
    """
    v = float(value)
    text = format(int(round(v)), spec) if spec == "d" else format(v, spec if spec is not None else f".{sig}g")
    tol = max(atol or 0.0, (rtol or 0.0) * abs(v), _last_unit(text))
    return f"{_OPEN}{text}{_SEP}{v!r};{tol!r}{_CLOSE}"


def plain(text: str) -> str:
    """The text with every mark removed: each number as rendered."""
    return _MARK.sub(lambda m: m.group(1), text)


def marked_numbers(text: str) -> list[MarkedNumber]:
    """The marked numbers of ``text``, in order."""
    out = []
    for m in _MARK.finditer(text):
        value, tol = m.group(2).split(";")
        out.append(MarkedNumber(m.group(1), float(value), float(tol)))
    return out


def _first_difference(committed: str, text: str) -> str:
    a, b = committed.splitlines(), text.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"line {i}: committed {x.strip()[:90]!r}, regenerated {y.strip()[:90]!r}"
    if len(a) != len(b):
        return f"{len(a)} lines committed, {len(b)} regenerated"
    d = next(difflib.unified_diff(a, b, lineterm="", n=0), "")  # pragma: no cover - same lines, same text
    return d


def compare(committed: str, regenerated: str) -> list[str]:
    """Where ``committed`` (a file's text) disagrees with ``regenerated`` (marked by :func:`num`); [] when it agrees.

    The text outside the marked numbers must be equal character for character; at each marked number the
    committed text must hold a number within the mark's tolerance, plus half a unit of its own last digit. Each
    problem names the line, both numbers and the tolerance.
    """
    parts = _MARK.split(regenerated)  # text, number text, "value;tol", text, ...
    texts, marks = parts[0::3], marked_numbers(regenerated)
    pattern = "".join(re.escape(t) + (f"({NUMBER})" if i < len(marks) else "") for i, t in enumerate(texts))
    m = re.fullmatch(pattern, committed, flags=re.S)
    if m is None:
        return [f"differs outside its computed numbers: {_first_difference(committed, plain(regenerated))}"]
    problems = []
    for i, mark in enumerate(marks):
        got = m.group(i + 1)
        if got == mark.text:
            continue
        c = float(got)
        slack = mark.tol + _last_unit(got) / 2
        if not (math.isfinite(c) and math.isfinite(mark.value)) or abs(c - mark.value) > slack:
            line = committed.count("\n", 0, m.start(i + 1)) + 1
            problems.append(
                f"line {line}: {got} differs from the regenerated {mark.value:.6g} by more than its tolerance "
                f"{mark.tol:.2g} (+ half its last digit)"
            )
    return problems
