"""JSON document of ``packet compare-fluid``: the packet core next to fluid models at the same parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..params import DEFAULT_BETA, DEFAULT_G, DWTCP_TARGET, DctcpParams, LinkParams
from ._json import to_jsonable

__all__ = ["compare_fluid_report", "run_compare_fluid", "TIMELY_LAWS", "COMPARE_LAWS"]

#: The TIMELY laws compare-fluid runs at their cross-check's own settings.
TIMELY_LAWS = ("timely", "timely-patched")
COMPARE_LAWS = ("dctcp", "dwtcp", *TIMELY_LAWS)


def run_compare_fluid(
    law: str,
    flows: Sequence[int] = (2, 10, 100),
    *,
    links: Sequence[LinkParams] | None = None,
    marking_threshold: float = 65.0,
    g: float = DEFAULT_G,
    duration: float = 0.1,
    beta: float = DEFAULT_BETA,
    k: float = DWTCP_TARGET,
    buffer: int = 5000,
    models: tuple[str, ...] | None = None,
    packet_rtts: float = 200.0,
    fluid_rtts: float = 1000.0,
    seed: int = 0,
) -> tuple[dict[str, Any], Any]:
    """:func:`compare_fluid_report` and what its figure draws (dctcp: ``{N: comparison}``; dwtcp: the
    comparisons with their traces; timely: None)."""
    if law not in COMPARE_LAWS:
        raise ValueError(f"law={law!r} is invalid: accepted {' | '.join(COMPARE_LAWS)}")
    if law in TIMELY_LAWS:  # the cross-check's own settings (flows, rates, link); only the seed applies
        from ..packet.crosscheck_timely import SETTINGS, TOLERANCES, compare_timely

        rows = compare_timely(tuple(s for s in SETTINGS if s.law == law), seed=seed)
        doc = {"law": law, "tolerances": TOLERANCES, "rows": rows, "agree": all(r["agree"] for r in rows)}
        return to_jsonable(doc), None
    links = list(links or [LinkParams()])
    if law == "dwtcp":
        from ..crosscheck.compare_dwtcp import TOLERANCES as DW_TOL
        from ..crosscheck.compare_dwtcp import compare_dwtcp

        results = [
            compare_dwtcp(
                int(n),
                link.d,
                capacity=link.capacity,
                packet_size=link.packet_size,
                beta=beta,
                k=k,
                buffer=buffer,
                models=models,
                packet_rtts=packet_rtts,
                fluid_rtts=fluid_rtts,
                seed=seed,
            )
            for link in links
            for n in flows
        ]
        rows = [{key: v for key, v in r.items() if key != "traces"} for r in results]
        return to_jsonable({"law": "dwtcp", "tolerances": DW_TOL, "rows": rows}), results
    from ..packet.crosscheck import TOLERANCES, compare_dctcp, within_tolerance

    rows, data = [], {}
    for n in (int(x) for x in flows):
        P = DctcpParams(link=links[0], flows=n, K=marking_threshold, g=g)
        c = compare_dctcp(n, params=P, duration=duration, seed=seed)
        ok, text = within_tolerance(c)
        data[n] = c
        keys = ("wbar", "packet", "fluid", "fluid_window", "diff", "diff_window", "ratio", "ratio_window")
        rows.append({"flows": n, **{key: c[key] for key in keys}, "within_tolerance": ok, "measured": text})
    return to_jsonable({"law": "dctcp", "tolerances": TOLERANCES, "rows": rows, "duration_s": duration}), data


def compare_fluid_report(
    law: str,
    flows: Sequence[int] = (2, 10, 100),
    *,
    links: Sequence[LinkParams] | None = None,
    marking_threshold: float = 65.0,
    g: float = DEFAULT_G,
    duration: float = 0.1,
    beta: float = DEFAULT_BETA,
    k: float = DWTCP_TARGET,
    buffer: int = 5000,
    models: tuple[str, ...] | None = None,
    packet_rtts: float = 200.0,
    fluid_rtts: float = 1000.0,
    seed: int = 0,
) -> dict[str, Any]:
    """The packet core next to fluid models at the same parameters, one row per N (× link for dwtcp).

    Parameters
    ----------
    law : {"dctcp", "dwtcp", "timely", "timely-patched"}
        dctcp: the paper's (5)-(8) and the ACK-clocked model, tolerances judged against the latter
        (:func:`~dwtcp_fluid.packet.crosscheck.compare_dctcp`); dwtcp: every registered DWTCP fluid predictor with
        its verdict (:func:`~dwtcp_fluid.crosscheck.compare_dwtcp.compare_dwtcp`); timely: the cross-check's own
        settings (only ``seed`` applies).
    flows : sequence of int
        N values.
    links : sequence of LinkParams
        dwtcp: one comparison per link and N; dctcp: the first link (default 10 Gbps, 100 µs, 1500 B).
    marking_threshold, g, duration
        DCTCP: K (packets), EWMA gain, simulated time (s; the last half is compared).
    beta, k, buffer, models, packet_rtts, fluid_rtts
        DWTCP: β (byte convention), target K (packets), data buffer (packets), predictor names (None: all),
        measured RTTs of the packet run and length of the fluid runs (base RTTs).
    seed : int
        Seed of the packet runs.
    """
    return run_compare_fluid(
        law,
        flows,
        links=links,
        marking_threshold=marking_threshold,
        g=g,
        duration=duration,
        beta=beta,
        k=k,
        buffer=buffer,
        models=models,
        packet_rtts=packet_rtts,
        fluid_rtts=fluid_rtts,
        seed=seed,
    )[0]
