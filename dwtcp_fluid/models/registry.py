"""The model registry: every fluid model the project ships, each with a setting that exercises it.

``tests/test_model_contract.py`` runs one contract over every entry (declarations, SymPy vs NumPy vs JAX
right-hand side, symbolic Jacobian vs ``jax.jacfwd``, reference vs JAX solver on a short run, summary), and
fails when a :class:`~.base.FluidModel` subclass of this package has no entry. A new model is therefore tested
the moment it is registered here: one :func:`register_model` call with a parameter setting, a history and a
short time span.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..params import DCTCP_ANALYSIS, DWTCP_EVALUATION, LinkParams
from ..registry import Registry
from .base import FluidModel
from .cubic import CubicFluid, CubicParams
from .dcqcn import DcqcnFluid, DcqcnParams
from .dctcp import DctcpFluid, DctcpNormalized
from .dctcp_ext import D2tcpFluid, D2tcpWindowFluid, DctcpDelackFluid, DctcpLossFluid
from .dctcp_hetero import DctcpHetero, DctcpHeteroParams
from .dctcp_network import DctcpNetwork, NetworkParams, parking_lot_routes
from .dctcp_window import DctcpLagFluid, DctcpWindowFluid
from .dwtcp import DwtcpFluid
from .dwtcp_busy import DwtcpBusyFluid
from .dwtcp_scout import DwtcpScoutFluid
from .hpcc import HpccFluid, HpccParams
from .swift import SwiftFluid, SwiftParams
from .timely import TimelyFluid, TimelyParams
from .timely_network import TimelyNetwork, TimelyNetworkParams

__all__ = ["ModelCase", "MODELS", "register_model", "registered"]


@dataclass(frozen=True)
class ModelCase:
    """A registered model and a setting that exercises it.

    Attributes
    ----------
    key : str
        Unique name of the entry (test ids).
    model : FluidModel
    params : parameter object or mapping
        What :func:`dwtcp_fluid.dde.solve` accepts for this model.
    history : array-like
        Constant state for t ≤ t0.
    t_span : (float, float)
        A short run in the model's time unit: a few delays, with switching.
    agreement : float
        Largest max |x_reference − x_jax| / (1 + max |x_reference|) over the run the contract accepts between the
        event-exact reference and the JAX solver at its default step (dde.solve.default_step): the fixed-step RK4
        error.
    """

    key: str
    model: FluidModel
    params: Any
    history: Sequence[float]
    t_span: tuple[float, float]
    agreement: float = 2e-5


def _accept(case: Any) -> ModelCase:
    if not isinstance(case, ModelCase) or not isinstance(case.model, FluidModel):
        raise ValueError(f"model={getattr(case, 'model', case)!r} is invalid: accepted a FluidModel instance")
    return case


#: key → case, in registration order (:class:`dwtcp_fluid.registry.Registry`: a plugin's model registers without
#: editing the package; a key is registered once).
MODELS: Registry[ModelCase] = Registry("model", lambda case: case.key, accept=_accept, replace=False)


def register_model(case: ModelCase) -> ModelCase:
    """Add a model case to :data:`MODELS` (its key must be new)."""
    return MODELS.register(case)


def registered() -> dict[str, ModelCase]:
    """A copy of :data:`MODELS`."""
    return dict(MODELS)


_DCTCP = DCTCP_ANALYSIS  # 10 Gbps, 100 µs, K = 65, g = 1/16, N = 10: a limit cycle of period ≈ 1.3 ms
# 10 Gbps, 100 µs, N = 5, a target queue above the floor, and β = 0.05 so that a cycle (≈ π/√β RTTs) is short
_DWTCP = DWTCP_EVALUATION.replace(k=20.0, beta=0.02)

register_model(ModelCase("dctcp", DctcpFluid(), _DCTCP, (1.0, 0.0, 0.0), (0.0, 0.004)))
register_model(
    ModelCase(
        "dctcp-normalized", DctcpNormalized(), {"wbar": 10.0, "g": 0.25, "psi": 0.2}, (8.0, 0.4, 0.1), (0, 20)
    )
)
register_model(
    ModelCase(
        "dctcp-normalized-underflow",
        DctcpNormalized(underflow=True),
        {"wbar": 10.0, "g": 0.25, "psi": 0.05},
        (8.0, 0.4, 0.1),
        (0.0, 20.0),
    )
)
# α starts above 0: α^d with d < 1 has an infinite slope at α = 0, where fixed-step RK4 loses its order
register_model(ModelCase("d2tcp", D2tcpFluid(imminence=0.5), _DCTCP, (1.0, 0.2, 0.0), (0.0, 0.004)))
register_model(ModelCase("d2tcp-window", D2tcpWindowFluid(imminence=2.0), _DCTCP, (1.0, 0.2), (0.0, 0.004)))
register_model(ModelCase("dctcp-loss", DctcpLossFluid(loss=0.001), _DCTCP, (1.0, 0.0, 0.0), (0.0, 0.004)))
register_model(ModelCase("dctcp-delack", DctcpDelackFluid(acks=2), _DCTCP, (1.0, 0.0), (0.0, 0.004)))
register_model(ModelCase("dctcp-window", DctcpWindowFluid(), _DCTCP, (1.0, 0.0), (0.0, 0.004)))
register_model(ModelCase("dctcp-lag", DctcpLagFluid(0.5), _DCTCP, (1.0, 0.0, 0.0), (0.0, 0.004)))
register_model(
    ModelCase(
        "dctcp-hetero",
        DctcpHetero(groups=2),
        DctcpHeteroParams(_DCTCP, ("100us", "250us"), (3, 3)),
        (1.0, 1.0, 0.0, 0.0, 0.0),
        (0.0, 0.004),
    )
)
for _variant in ("paper", "sqrt", "ipg"):
    # the sqrt(w) law (3) reads β in the byte convention (β·√L per packet): β/10 keeps its cut comparable
    _p = _DWTCP.replace(beta=0.002) if _variant == "sqrt" else _DWTCP
    register_model(ModelCase(f"dwtcp-{_variant}", DwtcpFluid(_variant), _p, (175.0, 30.0), (0.0, 0.005)))
    register_model(
        ModelCase(
            f"dwtcp-{_variant}-delayed", DwtcpFluid(_variant, delay_rtts=1.0), _p, (175.0, 30.0), (0.0, 0.005)
        )
    )
register_model(
    ModelCase("dwtcp-scout", DwtcpScoutFluid(delay_rtts=1.0), _DWTCP, (175.0, 30.0, 2.0), (0.0, 0.005))
)
# the Scout-faithful model at the evaluation's K = 100 and 5 flows: busy periods, Scout ACKs and cuts within 5 ms
register_model(
    ModelCase(
        "dwtcp-busy",
        DwtcpBusyFluid(),
        DWTCP_EVALUATION.replace(k=100.0, flows=5),
        (10.0, 2.0, 0.0),
        (0.0, 0.005),
        # the window's slope jumps by α·S/(L·τ) at every switch and the gap count rises steeply as the link leaves
        # saturation: at the model's default step (its step_scale/20 = τ/80 here) RK4 is 1.9e-4 relative off
        agreement=5e-4,
    )
)
# TIMELY and Patched TIMELY, two groups of two flows at 10 Gbps, 20 µs, starting at unequal rates (packets/s)

for _patched in (False, True):
    register_model(
        ModelCase(
            "timely-patched" if _patched else "timely",
            TimelyFluid(groups=2, patched=_patched),
            TimelyParams(),
            (1.0e5, 3.0e5, 0.0, 0.0, 20.0),
            (0.0, 0.002),
            # Algorithm 1 switches its rate law on the sign of g and on T_low: RK4 steps across the switches
            agreement=2e-3,
        )
    )
# a 2-hop parking lot (one long group over both links, one cross group per link), 3 flows per group: each link's
# mark is read from the delayed state, which the fixed-step JAX solver resolves to its step (delay/20), not exactly
register_model(
    ModelCase(
        "dctcp-network",
        DctcpNetwork(parking_lot_routes(2)),
        NetworkParams.parking_lot(2, flows=3),
        (15.0,) * 3 + (0.0,) * 3 + (0.0, 0.0),
        (0.0, 0.004),
        agreement=2e-3,
    )
)
# the same lot with a loop delay per group (several discrete delays) and a longer base RTT for the long flow
register_model(
    ModelCase(
        "dctcp-network-paths",
        DctcpNetwork(parking_lot_routes(2), group_delays=True),
        NetworkParams.parking_lot(2, flows=3, rtt=("200us", "100us", "100us")),
        (15.0,) * 3 + (0.0,) * 3 + (0.0, 0.0),
        (0.0, 0.004),
        agreement=2e-3,
    )
)
# the same lot with ramp marking of width 20 packets (the smooth variant the characteristic roots linearize)
register_model(
    ModelCase(
        "dctcp-network-ramp",
        DctcpNetwork(parking_lot_routes(2), ramp=20.0),
        NetworkParams.parking_lot(2, flows=3),
        (15.0,) * 3 + (0.0,) * 3 + (0.0, 0.0),
        (0.0, 0.004),
        agreement=2e-3,
    )
)
# the TIMELY family on a 2-hop parking lot: Patched TIMELY on MAX (one loop delay) and TIMELY on SUM_SQU with a loop
# delay per group (the cross flows 30 µs); queues start above T_low so the band laws switch (SUM is a sum of the same
# hop terms; tests/test_timely_network.py checks the one-link reduction to TimelyFluid)
for _key, _model, _rtt in (
    ("timely-patched-network-max", TimelyNetwork(parking_lot_routes(2), patched=True, signal="max"), "20us"),
    (
        "timely-network-paths",
        TimelyNetwork(parking_lot_routes(2), signal="sum_squ", group_delays=True),
        ("20us", "30us", "30us"),
    ),
):
    register_model(
        ModelCase(
            _key,
            _model,
            TimelyNetworkParams.parking_lot(2, flows=(1, 2, 2), rtt=_rtt),
            (2.0e5, 3.0e5, 2.5e5, 0.0, 0.0, 0.0, 30.0, 20.0),
            (0.0, 0.002),
            agreement=2e-3,  # Algorithm 1's switches on the sign of g and on T_low, as for TimelyFluid
        )
    )
# CUBIC between losses: two groups (1 and 3 flows) at 950 Mbps, 1 ms, 100-packet buffer, c = 400 so that the cubic
# term moves within 10 ms; the queue fills, rests on its ceiling B and crosses the loss surface (the hybrid map's
# event; the jump itself is analysis.cubic_cycle's)
register_model(
    ModelCase(
        "cubic",
        CubicFluid(groups=2),
        CubicParams(link=LinkParams(capacity="950Mbps", rtt="1ms"), flows=(1, 3), buffer=100.0, c=400.0),
        (-0.05, -0.02, 60.0, 45.0, 42.0, 31.5, 60.0),
        (0.0, 0.01),
    )
)
# HPCC, 4 flows at 25 Gbps, 20 µs, W_AI = 1 packet: from line rate (W_c = B·T, U = 1) to its standing queue
register_model(
    ModelCase("hpcc", HpccFluid(), HpccParams(w_ai=1.0), (41.7, 1.0, 0.0), (0.0, 0.0002), agreement=2e-3)
)
# DCQCN, 2 flows at 40 Gbps, 20 µs, starting at line rate with α = 1 above K_min: the CP's ramp, the cuts and the
# increase terms all act within the span
register_model(ModelCase("dcqcn", DcqcnFluid(), DcqcnParams(), (3.0e6, 3.2e6, 1.0, 100.0), (0.0, 0.00015)))
# Swift: two groups (2 and 3 flows) at 10 Gbps, 20 µs, starting at unequal windows above the target: the windows
# decrease, cross the target and switch to the additive increase (the per-ACK test D ⋛ T, read from the delayed queue)
register_model(
    ModelCase(
        "swift",
        SwiftFluid(groups=2),
        SwiftParams(flows=(2, 3)),
        (8.0, 4.0, 30.0),
        (0.0, 0.0006),
        agreement=2e-3,  # RK4 steps across the AI/MD switch
    )
)
