"""Fluid models: one definition each (see :mod:`dwtcp_fluid.models.base`)."""

from .base import SYMPY_NS as SYMPY_NS
from .base import FluidModel as FluidModel
from .cubic import CubicFluid as CubicFluid
from .cubic import CubicParams as CubicParams
from .dctcp import DctcpFluid as DctcpFluid
from .dctcp import DctcpNormalized as DctcpNormalized
from .dctcp_ext import D2tcpFluid as D2tcpFluid
from .dctcp_ext import D2tcpWindowFluid as D2tcpWindowFluid
from .dctcp_ext import DctcpDelackFluid as DctcpDelackFluid
from .dctcp_ext import DctcpLossFluid as DctcpLossFluid
from .dctcp_window import DctcpLagFluid as DctcpLagFluid
from .dctcp_window import DctcpWindowFluid as DctcpWindowFluid
from .dwtcp import DWTCP_PAPER as DWTCP_PAPER
from .dwtcp import DwtcpFluid as DwtcpFluid
from .dwtcp_busy import DwtcpBusyFluid as DwtcpBusyFluid
from .hpcc import HpccFluid as HpccFluid
from .hpcc import HpccParams as HpccParams
from .swift import SwiftFluid as SwiftFluid
from .swift import SwiftParams as SwiftParams
from .timely import TimelyFluid as TimelyFluid
from .timely import TimelyParams as TimelyParams
