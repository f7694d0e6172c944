"""Parameter sweeps over (β, BDP, N, k̄/k̄*): grid, evaluation, atomic storage."""

from .grid import SweepGrid as SweepGrid
from .run import run_sweep as run_sweep
from .run import summarize as summarize
from .store import write_netcdf_atomic as write_netcdf_atomic
