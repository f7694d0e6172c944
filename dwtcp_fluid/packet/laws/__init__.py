"""Window laws of the packet core, one module each, sharing :class:`~.base.Law` (adding a law = adding a file)."""

from __future__ import annotations

from typing import Any

from .base import Events as Events
from .base import Law as Law
from .dctcp import Dctcp as Dctcp
from .dctcp_per_ack import DctcpPerAck as DctcpPerAck
from .dwtcp import Dwtcp as Dwtcp
from .reno import Reno as Reno

#: Law classes by command-line name.
LAWS: dict[str, type[Law]] = {cls.name: cls for cls in (Reno, Dctcp, DctcpPerAck, Dwtcp)}


def get_law(name: str, **options: Any) -> Law:
    """The law called ``name`` with its static options, e.g. ``get_law("dctcp", cwr_hold=True)``."""
    if name not in LAWS:
        raise ValueError(f"law={name!r} is invalid: accepted one of {', '.join(LAWS)}")
    return LAWS[name](**options)


__all__ = ["Events", "Law", "LAWS", "get_law", "Reno", "Dctcp", "DctcpPerAck", "Dwtcp"]
