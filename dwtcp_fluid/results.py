"""The result protocol: one status family for every batch element, and what every result object offers.

Every computation of the package that can fail for one element of a batch reports it as a :class:`Status` per
element (a code in an integer array, ``status``) with a message (``messages``), never as an exception under
``vmap`` and never as a silent wrong number. Every result object derives from :class:`Result` and offers:

* ``status`` (int array, one :class:`Status` code per element) and ``messages`` (one string per element, empty
  when there is nothing to say), ``.ok`` (every element usable), :meth:`Result.status_of`, :meth:`Result.describe`;
* ``.summary()``: a typed, frozen summary (a :class:`Summary` dataclass, ``.to_dict()`` for JSON);
* ``.to_dataset()``: an ``xarray.Dataset`` with units and provenance attributes;
* ``.plot(ax=None)``: draws onto ``ax`` (a new figure when None) and returns the axes.

A new result type (the packet core's runs, for instance) adopts the protocol by deriving from :class:`Result`,
storing its per-element codes in ``status`` and messages in ``messages``, choosing codes from :class:`Status`
(adding a member here if none fits), and implementing the three methods.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

__all__ = ["Status", "Result", "Summary", "status_message", "new_axes"]


class Status(enum.IntEnum):
    """Outcome of one batch element; the same codes for every result of the package.

    Codes 0-4 are stored in datasets (the sweep's ``*_status`` variables) and keep their values.
    """

    #: computed, nothing to report
    OK = 0
    #: the state or its derivative became NaN or ±inf
    NON_FINITE = 1
    #: more crossings of the switching surface were pending than the JAX crossing buffer holds
    BUFFER_OVERFLOW = 2
    #: more events (crossings, bound hits) in one fixed step than ``max_substeps`` allows, or a chattering stop
    TOO_MANY_EVENTS = 3
    #: the reference solver's ``solve_ivp`` failed (message in ``messages``)
    INTEGRATOR_FAILED = 4
    #: a cycle left the structure its return map assumes (a recrossing of the surface within one delay)
    STRUCTURE = 5
    #: no crossing of the switching surface within the time budget (no cycle)
    NO_CROSSING = 6
    #: an iteration (Newton on a return map, a fixed-point approach) did not converge
    NOT_CONVERGED = 7
    #: the fast path failed and the element was solved again by the event-exact one (usable)
    RESOLVED = 8
    #: the fixed-step solver's error estimate (the run against one at twice the step) exceeds its tolerance
    INACCURATE = 9
    #: the work budget derived from the inputs (pieces, steps, iterations) ran out before the end
    BUDGET = 10

    @property
    def ok(self) -> bool:
        """Whether an element with this status carries a usable result."""
        return self in (Status.OK, Status.RESOLVED)

    @property
    def message(self) -> str:
        """What the code means, in words."""
        return _MESSAGES[self]


_MESSAGES = {
    Status.OK: "ok",
    Status.NON_FINITE: "the state became non-finite",
    Status.BUFFER_OVERFLOW: "more pending crossings than the crossing buffer holds",
    Status.TOO_MANY_EVENTS: "too many events in one step (or chattering on the switching surface)",
    Status.INTEGRATOR_FAILED: "the integrator failed",
    Status.STRUCTURE: "the orbit recrossed the switching surface within one delay",
    Status.NO_CROSSING: "no crossing of the switching surface within the time budget",
    Status.NOT_CONVERGED: "the iteration did not converge",
    Status.RESOLVED: "solved again by the event-exact path",
    Status.INACCURATE: "the step-doubling error estimate exceeds the solver's tolerance",
    Status.BUDGET: "the work budget ran out before the end",
}


def status_message(code: int, message: str = "") -> str:
    """``"OK"`` style name of a code, with its message when there is one."""
    st = Status(int(code))
    return st.name if not message else f"{st.name}: {message}"


@dataclass(frozen=True)
class Summary:
    """Base of the typed summaries that ``Result.summary()`` returns."""

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (JSON-ready): arrays become lists, a :class:`Status` its name."""
        out = {}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out

    def __getitem__(self, key: str) -> Any:
        # read like dicts (``s["queue_mean"]``)
        if key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return getattr(self, key)

    def keys(self) -> list[str]:
        return [f.name for f in fields(self)]

    def items(self) -> list[tuple[str, Any]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key, default) if key in self.keys() else default


def _plain(v: Any) -> Any:
    if isinstance(v, Status):
        return v.name.lower()
    if isinstance(v, Summary):
        return v.to_dict()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v


class Result:
    """Base class of every result object: per-element status and messages, ``ok``, summary, dataset, plot.

    Subclasses hold ``status`` (an integer array of :class:`Status` codes, one per element) and ``messages``
    (a list of strings, one per element) and implement :meth:`summary`, :meth:`to_dataset` and :meth:`plot`.
    """

    status: np.ndarray
    messages: list[str]

    @property
    def ok(self) -> bool:
        """Whether every element carries a usable result."""
        return all(Status(int(s)).ok for s in np.ravel(self.status))

    def status_of(self, element: int = 0) -> Status:
        """The :class:`Status` of one element."""
        return Status(int(np.ravel(self.status)[element]))

    def message_of(self, element: int = 0) -> str:
        """The message of one element (its status' meaning when the computation left none)."""
        msg = self.messages[element] if element < len(self.messages) else ""
        return msg or self.status_of(element).message

    def describe(self) -> str:
        """One line per element that is not ok, or ``"all N ok"``."""
        codes = np.ravel(self.status)
        bad = [i for i, s in enumerate(codes) if not Status(int(s)).ok]
        if not bad:
            return f"all {codes.size} ok"
        lines = [f"{len(bad)} of {codes.size} failed:"]
        lines += [f"  element {i}: {self._describe_element(i)}" for i in bad]
        return "\n".join(lines)

    def _describe_element(self, i: int) -> str:
        return status_message(
            int(np.ravel(self.status)[i]), self.messages[i] if i < len(self.messages) else ""
        )

    def summary(self) -> Summary:
        raise NotImplementedError

    def to_dataset(self) -> Any:
        raise NotImplementedError

    def plot(self, ax: Any = None) -> Any:
        raise NotImplementedError


def new_axes(ax: Any = None) -> Any:
    """``ax`` or the axes of a new figure (a plain ``matplotlib.figure.Figure``, no pyplot state)."""
    if ax is not None:
        return ax
    from matplotlib.figure import Figure

    return Figure(figsize=(6.4, 4.0), layout="constrained").subplots()
