"""The judge: the packet core against the fluid models, written once for every protocol.

* :mod:`.classes` — what a packet run says (steady, oscillating, collapse, not stationary, failed), its period
  and regularity: the vocabulary the sweep's packet pass and the checks share;
* :mod:`.tolerance` — one :class:`~.tolerance.Tolerance` type (absolute, relative, ratio or one-sided bounds per
  quantity, with units) and one :func:`~.tolerance.verdict` (agree, disagree, or the run's own class, never
  counted as agreement);
* :mod:`.check` — :class:`~.check.CrossCheck` (settings, packet side, fluid side, classifier, tolerances),
  :func:`~.check.run_check` returning a :class:`~.check.CheckResult` (the package's result protocol), and the
  registry that ``packet compare-fluid --law`` reads.

Each study declares its checks (instances, in ``studies/<study>/checks*.py``); nothing here names a protocol.
"""

from __future__ import annotations

from .check import (
    CheckResult,
    CheckRow,
    CrossCheck,
    check_for_law,
    check_names,
    compare_laws,
    fluid_row,
    get_check,
    judge,
    register_check,
    run_check,
)
from .tolerance import Tolerance, Tolerances, Verdict, verdict

__all__ = [
    "CheckResult",
    "CheckRow",
    "CrossCheck",
    "Tolerance",
    "Tolerances",
    "Verdict",
    "check_for_law",
    "check_names",
    "compare_laws",
    "fluid_row",
    "get_check",
    "judge",
    "register_check",
    "run_check",
    "verdict",
]
