"""Laws of the packet core, one module each, registered by name (adding a law = adding a file here).

Every module of this package is imported on first use and registers its law class with :func:`register_law`; a
law defined elsewhere (a notebook, a test) registers the same way and is then available to :func:`get_law`,
:func:`dwtcp_fluid.packet.build` and ``dwtcp-fluid packet run --law NAME`` (whose flags and help come from
:attr:`Law.options`).
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import Events as Events
from .base import Law as Law
from .base import LawOption as LawOption
from .registry import LAWS as LAWS
from .registry import get_law as get_law
from .registry import law_names as law_names
from .registry import on_register as on_register
from .registry import register_law as register_law

__all__ = [
    "Events",
    "Law",
    "LawOption",
    "LAWS",
    "get_law",
    "register_law",
    "on_register",
    "law_names",
    "Reno",
    "Dctcp",
    "DctcpPerAck",
    "Dwtcp",
]


def _discover() -> None:
    for mod in pkgutil.iter_modules(__path__):
        if mod.name not in ("base", "registry"):
            importlib.import_module(f"{__name__}.{mod.name}")


# the built-in laws first, in this order, then any other module dropped into the package
# isort: off
from .reno import Reno as Reno  # noqa: E402
from .dctcp import Dctcp as Dctcp  # noqa: E402
from .dctcp_per_ack import DctcpPerAck as DctcpPerAck  # noqa: E402
from .dwtcp import Dwtcp as Dwtcp  # noqa: E402

# isort: on

_discover()
