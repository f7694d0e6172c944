"""The two sides of the HPCC cross-check: a packet run of the law :mod:`~dwtcp_fluid.packet.laws.hpcc` and a run of
:class:`~dwtcp_fluid.models.hpcc.HpccFluid`, summarised the same way over the last half of the run: the mean queue
(packets), the link utilization, the senders' mean filtered utilization U, and the mean window in force W per
flow (packets; the packet side's from the pacing rate: W = R·T)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...models.hpcc import HpccFluid, HpccParams, fixed_point
from ...params import LinkParams

__all__ = ["Setting", "packet_run", "fluid_run", "predicted"]


@dataclass(frozen=True)
class Setting:
    """One comparison: N flows on one bottleneck (capacity, base RTT), η, W_AI (packets; None: the sizing rule
    with N_exp = 10), the law's T as a multiple of the base RTT, the run length in base RTTs, the law name."""

    name: str
    flows: int
    capacity: str
    rtt: str
    w_ai: float | None = None
    eta: float = 0.95
    t_ratio: float = 1.0
    rtts: int = 150
    law: str = "hpcc"
    #: HPCC-PINT's sampling probability (law ``hpcc-pint`` only)
    pint_prob: float = 1.0

    def params(self) -> HpccParams:
        link = LinkParams(capacity=self.capacity, rtt=self.rtt)
        return HpccParams(
            link=link, flows=self.flows, eta=self.eta, w_ai=self.w_ai, t_base=link.d * self.t_ratio
        )

    @property
    def duration(self) -> float:
        return self.rtts * float(self.params().link.d)


def packet_run(s: Setting, *, seed: int = 0, **build_options: Any) -> dict[str, Any]:
    """One setting through the packet core (all flows start together at line rate, as [HPCC] starts them)."""
    from ...packet import build, run

    P = s.params()
    link = P.link
    T_slots = float(P.t_base) * float(link.C)
    pr = build(
        s.law,
        link=link,
        flows=s.flows,
        duration=s.duration,
        seed=seed,
        buffer=int(max(2000, (s.flows + 2) * link.C * link.d)),  # lossless, as PFC keeps [HPCC]'s fabric
        trace_points=100,
        start_jitter=False,
        law_params={"eta": s.eta, "w_ai": P.W_AI, "t_base": T_slots}
        | ({"pint_prob": s.pint_prob} if s.law == "hpcc-pint" else {}),
        **build_options,
    )
    pk = run(pr)
    rec = pk["records"]
    half = len(rec["q_end"]) // 2
    act = np.maximum(rec["active"][half:].sum(0), 1)
    U = rec["alpha_sum"][half:].sum(0) / act  # the law's traced field: U
    return {
        "queue_mean": float(pk["queue_mean"]),
        "queue_std": float(np.std(rec["q_end"][half:])),  # over the chunk-end samples
        "utilization": float(pk["utilization"]),
        "U": float(np.mean(U)),
        "drops": int(np.sum(rec["drops"])),
    }


def fluid_run(s: Setting) -> dict[str, Any]:
    """One setting through :class:`HpccFluid` (the JAX solver), from line rate (W_c = C·T, U = 1, q = 0)."""
    from ...dde import solve

    model = HpccFluid()
    P = s.params()
    p = model.numeric_params(P)
    hist = [p["C"] * p["T"], 1.0, 0.0]
    sol = solve(model, P, hist, (0.0, s.duration), method="jax", check=False)
    if sol.status[0] != 0 if np.ndim(sol.status) else sol.status != 0:
        raise RuntimeError(f"fluid run {s.name} failed")
    t = np.asarray(sol.t)
    x = np.asarray(sol.x[0] if np.ndim(sol.x) == 3 else sol.x)
    w = t >= s.duration / 2
    obs = model.observables(list(x[w].T), p, np)
    return {
        "queue_mean": float(np.mean(obs["queue"])),
        "utilization": float(np.mean(obs["utilization"])),
        "U": float(np.mean(obs["U"])),
        "queue_std": float(np.std(obs["queue"])),
    }


def predicted(s: Setting) -> dict[str, float]:
    """The closed-form fixed point (T = d): queue, utilization, U (:func:`~dwtcp_fluid.models.hpcc.fixed_point`),
    κ and the bandwidth-delay product B·T (packets)."""
    p = HpccFluid().numeric_params(s.params())
    fp = fixed_point(p)
    return {"queue_mean": fp["q"], "utilization": fp["utilization"], "U": fp["U"], "kappa": fp["kappa"],
            "bdp": p["C"] * p["T"], "bdp_d": p["C"] * p["d"]}  # fmt: skip
