"""dwtcp_fluid: checks stability claims about datacenter congestion control (DCTCP, DWTCP) end to end."""

from .params import DCTCP_ANALYSIS as DCTCP_ANALYSIS
from .params import DWTCP_EVALUATION as DWTCP_EVALUATION
from .params import DctcpParams as DctcpParams
from .params import DwtcpParams as DwtcpParams
from .params import LinkParams as LinkParams

__version__ = "0.1.0"
