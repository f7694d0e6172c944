"""Packet-level core in JAX: slotted single bottleneck, strict-priority data/Scout queues, ECN marking, per-flow
ACK clocking, and the protocols' real per-ACK laws (one module each in :mod:`.laws`), with impairments
(:mod:`.impair`) and workloads (:mod:`.workloads`). Work per slot is the events of that slot (:mod:`.engine`, the
reference); single-bottleneck DCTCP, D2TCP, Reno, DWTCP and TIMELY runs go through a bit-identical native loop by
default (:mod:`.native`)."""

from .batch import run_batch as run_batch
from .batch import run_one as run_one
from .build import PacketRun as PacketRun
from .build import build as build
from .laws import LAWS as LAWS
from .laws import get_law as get_law
from .laws import register_law as register_law
from .result import PacketResult as PacketResult
from .scenarios import SCENARIOS as SCENARIOS
from .scenarios import run as run
from .scenarios import run_many as run_many
from .scenarios import scenario as scenario
from .state import PacketConfig as PacketConfig
from .state import Scenario as Scenario
from .summary import summarize as summarize

__all__ = [
    "LAWS",
    "SCENARIOS",
    "PacketConfig",
    "PacketRun",
    "Scenario",
    "build",
    "get_law",
    "register_law",
    "run",
    "run_batch",
    "run_many",
    "run_one",
    "scenario",
    "summarize",
]
