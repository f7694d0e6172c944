"""JSON document of ``timely network``: the TIMELY family's fluid model on a parking lot, its fixed point, and with
``packet`` the packet core's parking lot at the same setting, scored against the stated tolerances."""

from __future__ import annotations

from typing import Any

from ...reports._json import to_jsonable

__all__ = ["timely_network_report"]


def timely_network_report(setting: Any, *, packet: bool = False, seed: int = 0) -> dict[str, Any]:
    """``timely network --json``'s document.

    Parameters
    ----------
    setting : TimelySetting
        Hops, law (``"timely"``/``"patched"``), signal, flows of the long and of each cross group, link rate,
        base RTT, duration (:class:`~dwtcp_fluid.studies.timely.checks_network.TimelySetting`).
    packet : bool
        Also run the packet core (``timely-hops`` / ``timely-patched-hops``) and score the pair.
    seed : int
        Seed of the packet run.

    Returns
    -------
    dict
        ``setting``; ``fixed_point`` (Patched: per-group share R_i/C and per-hop queue q_l, packets; TIMELY: the
        continuum, no point); ``fluid`` and, with ``packet``, ``packet`` (``share`` per group, per flow,
        fraction of line rate; ``queue`` per hop, packets; ``rtt_us`` per group) and ``score`` (run class,
        errors, tolerances, what is scored, pass/fail).
    """
    from ...models.dctcp_network import parking_lot_routes
    from ...models.timely_network import TimelyNetwork
    from . import checks_network as xc
    from .analysis_network import patched_fixed_point

    s = setting
    model = TimelyNetwork(parking_lot_routes(s.hops), patched=s.law == "patched", signal=s.signal)
    P = xc.fluid_params(s)
    C = P.network.capacity[0]
    out: dict[str, Any] = {
        "setting": {
            "topology": f"parking-lot:{s.hops}", "law": s.law, "signal": s.signal, "flows": list(s.flow_counts),
            "capacity_pps": C, "rtt_s": P.network.rtt[0], "duration_s": xc._seconds(s.duration),
        },
    }  # fmt: skip
    if s.law == "patched":
        x = patched_fixed_point(model, P)
        m = model.groups
        q, d = x[2 * m :], P.network.rtt
        rtt = [d[i] + sum(q[l] / P.network.capacity[l] for l in r) for i, r in enumerate(model.routes)]
        out["fixed_point"] = {
            "share": (x[:m] / C).tolist(),
            "queue": q.tolist(),
            "rtt_us": [v * 1e6 for v in rtt],
        }
    else:
        out["fixed_point"] = {
            "continuum": "TIMELY's equilibria form a continuum (any long rate with full links and every path RTT"
            " in [T_low, T_high]): the run's start and its path decide the split (proofs/timely_network.md)"
        }
    (fl,) = xc.fluid_side([s])
    out["fluid"] = _side(fl)
    if packet:
        pk = xc.packet_side(s, seed=seed)
        out["packet"] = {**_side(pk), "class": pk.run_class}
        out["score"] = {**xc.judged(s, pk, fl), "tolerances": xc.TOLERANCES.to_dict()}
    return to_jsonable(out)


def _side(side: Any) -> dict[str, Any]:
    return {"share": side.share.tolist(), "queue": side.queue.tolist(), "rtt_us": (side.rtt * 1e6).tolist()}
