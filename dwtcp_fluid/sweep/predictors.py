"""Registry of DWTCP predictors: everything that claims to say what the packet law does, judged against it.

A :class:`DwtcpPredictor` has up to two faces:

* ``simulate(P, duration_s) -> {"summary": {...}, "traces": {...}}`` — one setting (a
  :class:`~dwtcp_fluid.params.DwtcpParams`) solved for ``duration_s`` seconds, summarised over the last half of the
  run: :data:`SUMMARY_KEYS` (queue_mean, queue_min, queue_max, amplitude in packets; period_s in s, None without
  one; utilization; window_mean in packets; alpha_mean, the Scout coefficient α, 1 for models with a fixed α;
  status, "ok" or the solver's message) and traces over the last half (``t`` in s, ``q``, ``w`` in packets).
  ``dwtcp-fluid packet compare-fluid --law dwtcp`` puts every predictor with this face next to the packet core.
* ``verdict(inputs) -> Verdict`` — at many sweep points at once (:class:`VerdictInputs`): whether the predictor
  expects a *steady* run (converges, the queue stays small) and where it makes a prediction at all. The sweep
  scores every predictor with this face against the packet runs' classes (steady ⇔ predicted steady).

Registered here: the paper's analysis at the packet run's observed k̄ (``condition`` (14), ``frozen`` class of (8),
``delay-roots`` of the delayed linearization), and the fluid models (3)-(7) named by their decrease law,
``simplified`` ((5)/(6): sqrt(w) dropped) or ``sqrt`` ((3)), each with the Scout coefficient fixed (α = 1, as the
paper's (7)) or as a state (``-scout``), with the one-RTT Scout delay or without it (``-nodelay``): only
``simplified-nodelay`` is the model the paper analyses; ``simplified`` adds the Scout's one-RTT delay. The sweep's
verdicts of the fluid models are its own fluid runs (:mod:`dwtcp_fluid.sweep.outcomes_fluid`: ``simplified``,
``sqrt`` and ``simplified-nodelay`` from its ``delayed``, ``sqrt`` and ``undelayed`` runs).

Adding a model is one call::

    register_predictor(DwtcpPredictor("scout-faithful", "Scout-faithful fluid model", "fluid",
                                      simulate=my_simulate, verdict=my_verdict))

:data:`SCOUT_FAITHFUL` ("scout-faithful") is the Scout-faithful model
(:class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid`, proofs/dwtcp_busy.md). Its ``simulate`` face runs the model
(:func:`~dwtcp_fluid.studies.dwtcp.analysis_busy.run_busy_model`); its ``verdict`` at sweep points is the model's regime
criterion Φ(BDP/N) < 1 (:func:`~dwtcp_fluid.studies.dwtcp.analysis_busy.criterion`: a standing queue, a stable rest point
the queue's ripple never empties, hence steady; otherwise the model cycles through q = 0), defined where BDP/N ≥ 1
packet. The criterion does not involve k, so it applies at the sweep's k = 0, where the model itself (threshold
k/C on the busy age) is not defined, and a run at k = 1 packet would need a step of 1/(40·BDP) RTT (1.6·10⁸ steps
at BDP = 10⁴).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..judge.tolerance import Tolerance, Tolerances
from ..params import DwtcpParams
from ..registry import Registry

__all__ = [
    "DwtcpPredictor",
    "Verdict",
    "VerdictInputs",
    "SUMMARY_KEYS",
    "SCOUT_FAITHFUL",
    "REGIME",
    "STATE_TOLERANCES",
    "register_predictor",
    "predictors",
    "fluid_summary",
    "LAW_NAMES",
    "migrate_names",
]

#: Keys of a ``simulate`` summary, in the order of the comparison table.
SUMMARY_KEYS = (
    "queue_mean",
    "queue_min",
    "queue_max",
    "amplitude",
    "period_s",
    "utilization",
    "window_mean",
    "alpha_mean",
)
#: Predictor name of each decrease law of :class:`~dwtcp_fluid.models.dwtcp.DwtcpFluid` (its ``variant``).
LAW_NAMES = {"paper": "simplified", "sqrt": "sqrt"}
#: The per-predictor variable keys (``packet_<key>_*``) under which earlier versions wrote the fluid predictors
#: now named by their law, and their current keys: :func:`migrate_names` renames them on reading.
LEGACY_NAMES = {
    "paper": "simplified",
    "paper_scout": "simplified_scout",
    "paper_nodelay": "simplified_nodelay",
    "paper_scout_nodelay": "simplified_scout_nodelay",
}
#: The registry name reserved for the Scout-faithful fluid model.
SCOUT_FAITHFUL = "scout-faithful"
#: The registry name of the regime model (:class:`~dwtcp_fluid.studies.dwtcp.analysis_regime.DwtcpRegimeModel`).
REGIME = "regime"
#: How close a class predictor's state must be to a steady packet run's: mean queue within max(5 packets, 25 %),
#: utilization within 0.03 (the judge's tolerance type; the sweep applies the bounds over its points at once).
STATE_TOLERANCES = Tolerances(
    Tolerance("queue_mean", unit="packets", abs=5.0, rel=0.25),
    Tolerance("utilization", unit="1", abs=0.03),
)


@dataclass(frozen=True)
class VerdictInputs:
    """Sweep points handed to a predictor's ``verdict`` (arrays of one shape; units: packets, packets/s, bytes).

    ``kbar_obs`` is the observed k̄ of each point's packet run (its peak queue, NaN where no run); ``fluid`` maps the
    sweep's fluid-run variable names (``delayed_converged``, ...) to arrays at the same points, or is None when the
    sweep ran no fluid models; ``k`` and ``buffer`` are the packet runs' target K and drop-tail buffer (packets).
    """

    beta: np.ndarray
    bdp: np.ndarray
    flows: np.ndarray
    capacity_pps: float
    packet_size: float
    kbar_obs: np.ndarray
    fluid: Mapping[str, np.ndarray] | None = None
    k: float = 0.0
    buffer: float = 250.0


@dataclass(frozen=True)
class Verdict:
    """``steady``: the predictor expects a steady run; ``defined``: it makes a prediction there (bool arrays).

    A *class predictor* also gives ``classes`` (the :class:`~dwtcp_fluid.judge.classes.PacketClass` code it
    expects: steady, oscillating or collapse) and its ``queue_mean`` (packets) and ``utilization``: it is scored at
    every classified point (collapse included) and its state against the steady runs (:data:`STATE_TOLERANCES`).
    """

    steady: np.ndarray
    defined: np.ndarray
    classes: np.ndarray | None = None
    queue_mean: np.ndarray | None = None
    utilization: np.ndarray | None = None


@dataclass(frozen=True)
class DwtcpPredictor:
    """A registered predictor (see the module docstring). ``kind`` is "analysis" or "fluid"."""

    name: str
    label: str
    kind: Literal["analysis", "fluid"]
    simulate: Callable[[DwtcpParams, float], dict[str, Any]] | None = None
    verdict: Callable[[VerdictInputs], Verdict | None] | None = None


def _accept(p: Any) -> DwtcpPredictor:
    if p.kind not in ("analysis", "fluid"):
        raise ValueError(f"kind={p.kind!r} is invalid: accepted 'analysis' or 'fluid'")
    if p.simulate is None and p.verdict is None:
        raise ValueError(f"predictor={p.name!r} is invalid: accepted one with simulate, verdict or both")
    return p


#: name → predictor, in registration order (:class:`dwtcp_fluid.registry.Registry`; a second one of the same name
#: replaces the first).
PREDICTORS: Registry[DwtcpPredictor] = Registry("predictor", lambda p: p.name, accept=_accept)


def register_predictor(p: DwtcpPredictor) -> DwtcpPredictor:
    """Add (or replace) a predictor under ``p.name``; returns it."""
    return PREDICTORS.register(p)


def predictors(*, simulate: bool = False, verdict: bool = False) -> dict[str, DwtcpPredictor]:
    """The registered predictors in registration order, optionally only those with a ``simulate`` / ``verdict``."""
    return {
        k: p
        for k, p in PREDICTORS.items()
        if (not simulate or p.simulate is not None) and (not verdict or p.verdict is not None)
    }


# --- fluid models ------------------------------------------------------------------------------------------------


def fluid_summary(model: Any, P: DwtcpParams, duration_s: float, *, samples: int = 4001) -> dict[str, Any]:
    """Solve a DWTCP fluid model (reference solver) from w = 1, q = 0 (α = 1), summarise the last half.

    ``model`` is a :class:`~dwtcp_fluid.models.DwtcpFluid` or a subclass with a ``log2_alpha`` state; the
    period is the mean spacing of the upward crossings of q = k (None without two in the last half).
    """
    import warnings

    from ..dde import solve

    hist = [1.0, 0.0] + [0.0] * (len(model.states) - 2)
    with warnings.catch_warnings():
        # the sqrt(w) form evaluates sqrt at trial steps below w = 0 that the solver then rejects
        warnings.simplefilter("ignore", RuntimeWarning)
        sol = solve(model, P, hist, (0.0, duration_s), method="reference")
        s = sol.summary().to_dict()
    t = np.linspace(duration_s / 2, duration_s, samples)
    x = np.asarray(sol(t, 0))
    alpha = 2.0 ** x[:, model.state_index("log2_alpha")] if "log2_alpha" in model.states else np.ones_like(t)
    summary = {k: s.get(k) for k in SUMMARY_KEYS if k != "alpha_mean"}
    summary["alpha_mean"] = float(np.mean(alpha))
    summary["status"] = s["status"]
    return {"summary": summary, "traces": {"t": t, "q": x[:, 1], "w": x[:, 0], "alpha": alpha}}


def _fluid_entry(variant: str, delay: bool, scout: bool) -> DwtcpPredictor:
    from ..models.dwtcp import DwtcpFluid
    from ..models.dwtcp_scout import DwtcpScoutFluid

    cls = DwtcpScoutFluid if scout else DwtcpFluid
    model = cls(variant=variant, delay_rtts=1.0 if delay else 0.0)
    name = LAW_NAMES[variant] + ("-scout" if scout else "") + ("" if delay else "-nodelay")
    eq = "(5)/(6)" if variant == "paper" else "(3)"
    label = f"fluid {eq}{', α state' if scout else ', α = 1'}, {'one-RTT delay' if delay else 'no delay'}"
    # the sweep's own fluid runs (outcomes_fluid.FLUID_VARIANTS) give the verdicts of three of these models
    prefix = {
        ("paper", True, False): "delayed",
        ("sqrt", True, False): "sqrt",
        ("paper", False, False): "undelayed",
    }
    pre = prefix.get((variant, delay, scout))

    def simulate(P: DwtcpParams, duration_s: float) -> dict[str, Any]:
        return fluid_summary(model, P, duration_s)

    def verdict(v: VerdictInputs) -> Verdict | None:
        if v.fluid is None or f"{pre}_converged" not in v.fluid:
            return None
        ok = (np.asarray(v.fluid[f"{pre}_status"]) == 0) & np.asarray(v.fluid[f"{pre}_settled"], dtype=bool)
        return Verdict(np.asarray(v.fluid[f"{pre}_converged"], dtype=bool) & ok, ok)

    return DwtcpPredictor(name, label, "fluid", simulate=simulate, verdict=verdict if pre else None)


def migrate_names(ds: Any) -> Any:
    """``ds`` with the per-predictor variables of a dataset written under the fluid predictors' former names
    (``packet_paper_*``, ``packet_paper_nodelay_*``, …) renamed to the current ones (``packet_simplified_*``, …),
    with one warning line; a dataset that carries both spellings is refused (ValueError). Other datasets are
    returned as they are."""
    import warnings

    renames = {}
    for v in ds.data_vars:
        for old, new in LEGACY_NAMES.items():
            for tail in ("_predicts_steady", "_defined", "_agrees"):
                if v == f"packet_{old}{tail}":
                    renames[v] = f"packet_{new}{tail}"
    if not renames:
        return ds
    clash = sorted(n for n in renames.values() if n in ds.data_vars)
    if clash:
        raise ValueError(f"the dataset carries both the former and the current predictor names ({clash[0]})")
    warnings.warn(
        f"the dataset names its fluid predictors as written before they were named by their law ({len(renames)} "
        "variables packet_paper*); read as packet_simplified*",
        UserWarning,
        stacklevel=2,
    )
    return ds.rename(renames)


# --- the paper's analysis at the observed k̄ ----------------------------------------------------------------------


def _analysis(key: str, defined_key: str | None) -> Callable[[VerdictInputs], Verdict]:
    def verdict(v: VerdictInputs) -> Verdict:
        from .outcomes_delay import verdicts_at_kbar

        out = verdicts_at_kbar(v.beta, v.bdp, v.flows, v.kbar_obs, capacity_pps=v.capacity_pps)
        defined = out[defined_key] if defined_key else np.isfinite(np.asarray(v.kbar_obs, dtype=float))
        return Verdict(out[key] & defined, defined)

    return verdict


register_predictor(
    DwtcpPredictor(
        "condition",
        "condition k̄ < 2·BDP/√β (14) at the observed k̄",
        "analysis",
        verdict=_analysis("condition", None),
    )
)
register_predictor(
    DwtcpPredictor(
        "frozen",
        "frozen Jacobian (8) at the observed k̄ is a spiral",
        "analysis",
        verdict=_analysis("frozen_spiral", None),
    )
)
register_predictor(
    DwtcpPredictor(
        "delay-roots",
        "delayed linearization at the observed k̄ > 0 is stable",
        "analysis",
        verdict=_analysis("delay_stable", "delay_defined"),
    )
)
for _variant in ("paper", "sqrt"):
    for _scout in (False, True):
        for _delay in (True, False):
            register_predictor(_fluid_entry(_variant, _delay, _scout))


# --- the Scout-faithful model ---------------------------------------------------------------------------------


def _busy_simulate(P: DwtcpParams, duration_s: float) -> dict[str, Any]:
    """The Scout-faithful model over ``duration_s``, summarised over its last half (status "not defined" at k = 0)."""
    from ..studies.dwtcp.analysis_busy import run_busy_model

    if P.k <= 0:
        summary = {k: None for k in SUMMARY_KEYS} | {"status": "not defined: the model needs a target k > 0"}
        return {"summary": summary, "traces": {}}
    r = run_busy_model(P, warmup=duration_s / 2, window=duration_s / 2, traces=True)
    summary = {k: r.get(k) for k in SUMMARY_KEYS} | {"status": r["status"], "regime": r["regime"]}
    return {"summary": summary, "traces": r["traces"]}


def _busy_verdict(v: VerdictInputs) -> Verdict:
    """Steady where the model stands (Φ(BDP/N) < 1), defined where BDP/N ≥ 1 packet."""
    from ..params import LinkParams
    from ..studies.dwtcp.analysis_busy import criterion

    beta, bdp, flows = (np.asarray(a, dtype=float) for a in (v.beta, v.bdp, v.flows))
    phi = np.full(beta.shape, np.nan)
    for i in np.ndindex(beta.shape):
        link = LinkParams(
            capacity=f"{v.capacity_pps!r}pps", rtt=bdp[i] / v.capacity_pps, packet_size=v.packet_size
        )
        phi[i] = criterion(DwtcpParams(link=link, flows=int(flows[i]), beta=float(beta[i])))
    defined = bdp / flows >= 1.0
    return Verdict((phi < 1.0) & defined, defined)


register_predictor(
    DwtcpPredictor(
        SCOUT_FAITHFUL,
        "Scout-faithful model (busy period): steady where it stands, Φ(BDP/N) < 1",
        "fluid",
        simulate=_busy_simulate,
        verdict=_busy_verdict,
    )
)


# --- the regime model -----------------------------------------------------------------------------------------


def _regime_verdict(v: VerdictInputs) -> Verdict:
    """The regime model's class at every point: collapse → collapse, oscillation → oscillating (its amplitude above
    the packet rule's threshold), idle link, ripple and standing queue → steady."""
    from ..judge.classes import PacketClass, oscillation_threshold
    from ..studies.dwtcp.analysis_regime import COLLAPSE, OSCILLATION, DwtcpRegimeModel

    flows = np.asarray(v.flows, dtype=float)
    thr = np.vectorize(lambda n: oscillation_threshold(int(n), int(v.buffer)), otypes=[float])(flows)
    r = DwtcpRegimeModel().evaluate(
        v.beta, v.bdp, flows, k=v.k, buffer=v.buffer, packet_size=v.packet_size, threshold=thr
    )
    cls = np.select(
        [r["regime"] == COLLAPSE, r["regime"] == OSCILLATION],
        [int(PacketClass.COLLAPSE), int(PacketClass.OSCILLATING)],
        default=int(PacketClass.STEADY),
    )
    return Verdict(
        cls == int(PacketClass.STEADY),
        np.ones(flows.shape, dtype=bool),
        classes=cls,
        queue_mean=r["queue_mean"],
        utilization=r["utilization"],
    )


register_predictor(
    DwtcpPredictor(
        REGIME,
        "regime model (standing queue, cycle, collapse at the buffer): names every class",
        "analysis",
        verdict=_regime_verdict,
    )
)
