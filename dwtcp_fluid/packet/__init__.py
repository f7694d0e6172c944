"""Vectorized packet-level core in JAX: slotted single bottleneck, strict-priority data/Scout queues, ECN marking,
per-flow ACK clocking, and the protocols' real per-ACK window laws (one module each in :mod:`.laws`)."""

from .engine import run_batch as run_batch
from .engine import run_one as run_one
from .laws import LAWS as LAWS
from .laws import get_law as get_law
from .scenarios import SCENARIOS as SCENARIOS
from .scenarios import PacketRun as PacketRun
from .scenarios import build as build
from .scenarios import run as run
from .scenarios import run_many as run_many
from .scenarios import scenario as scenario
from .scenarios import summarize as summarize
from .state import PacketConfig as PacketConfig
from .state import Scenario as Scenario

__all__ = [
    "LAWS",
    "SCENARIOS",
    "PacketConfig",
    "PacketRun",
    "Scenario",
    "build",
    "get_law",
    "run",
    "run_batch",
    "run_many",
    "run_one",
    "scenario",
    "summarize",
]
