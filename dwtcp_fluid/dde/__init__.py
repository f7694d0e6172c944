"""Delay-differential solvers for the fluid models: an event-exact SciPy reference and a batched JAX solver.

One entry point, :func:`solve`, returns one result type, :class:`DdeSolution`, for both.
"""

from .history import History as History
from .solution import DdeSolution as DdeSolution
from .solution import Status as Status
from .solve import solve as solve
from .summary import summarize as summarize
