"""The accepted range of a numeric parameter (:class:`Bound`) and the one check every range reads.

:mod:`dwtcp_fluid.params` declares the package's ranges with it (``BOUNDS``, ``MODEL_BOUNDS``); a packet law's
options and the command-line flags read those declarations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["TINY", "Bound", "check_range"]


#: The smallest positive normal float64: a nonzero value below it (a subnormal such as 1e-320) is refused by every
#: range check, whatever its declared range (it is a degenerate value: 1/x overflows and x·y underflows to 0).
TINY = 2.2250738585072014e-308


@dataclass(frozen=True)
class Bound:
    """The accepted range of one numeric parameter: the one declaration a parameter's checks read (a library
    parameter object, a model's parameter mapping, a packet law's option, a command-line flag).

    ``lo``/``hi`` are inclusive unless ``lo_open``/``hi_open``; ``integer`` accepts integers only; ``why`` says
    what the parameter is (shown with the range). NaN, ±inf and subnormal numbers are refused always.
    """

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False
    why: str = ""

    def accepted(self, name: str) -> str:
        """The accepted range as text, e.g. ``0 < beta <= 1 (decrease gain)``."""

        def num(v: float) -> str:
            return str(int(v)) if self.integer and abs(v) < 1e15 else f"{v:g}"

        lo_s = "" if self.lo is None else f"{num(self.lo)} {'<' if self.lo_open else '<='} "
        hi_s = "" if self.hi is None else f" {'<' if self.hi_open else '<='} {num(self.hi)}"
        rng = f"{lo_s}{name}{hi_s}" if (self.lo is not None or self.hi is not None) else f"finite {name}"
        kind = "an integer, " if self.integer else ""
        return f"{kind}{rng}" + (f" ({self.why})" if self.why else "")

    def ok(self, value: Any) -> bool:
        """Whether ``value`` is accepted."""
        if isinstance(value, bool):
            return False
        try:
            v = float(value)
        except (TypeError, ValueError, OverflowError):
            return False
        if not math.isfinite(v) or (v != 0.0 and abs(v) < TINY):
            return False
        if self.integer and v != int(v):
            return False
        if self.lo is not None and (v < self.lo or (self.lo_open and v == self.lo)):
            return False
        return not (self.hi is not None and (v > self.hi or (self.hi_open and v == self.hi)))

    def check(self, name: str, value: Any) -> Any:
        """``value`` as float (int when ``integer``), or ``ValueError`` naming ``name``, the value and the range,
        e.g. ``beta=-1.0 is out of range: accepted 0 < beta <= 1``."""
        if not self.ok(value):
            raise ValueError(f"{name}={value!r} is out of range: accepted {self.accepted(name)}")
        return int(value) if self.integer else float(value)


def check_range(
    name: str,
    value: Any,
    *,
    lo: float | None = None,
    hi: float | None = None,
    lo_open: bool = False,
    hi_open: bool = False,
    integer: bool = False,
    why: str = "",
) -> float:
    """Validate a scalar parameter against the :class:`Bound` given by the keywords; return it as float (or int
    when ``integer``). The error names the parameter, its value and the accepted range."""
    return Bound(lo, hi, lo_open, hi_open, integer, why).check(name, value)
