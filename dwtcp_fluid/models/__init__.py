"""Fluid models: one definition each (see :mod:`dwtcp_fluid.models.base`)."""

from .base import SYMPY_NS as SYMPY_NS
from .base import FluidModel as FluidModel
from .dctcp import DctcpFluid as DctcpFluid
from .dctcp import DctcpNormalized as DctcpNormalized
from .dwtcp import DWTCP_PAPER as DWTCP_PAPER
from .dwtcp import DwtcpFluid as DwtcpFluid
