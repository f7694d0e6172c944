"""JSON document of ``packet compare-fluid``: the packet core next to fluid models at the same parameters."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..params import DEFAULT_BETA, DEFAULT_G, DWTCP_TARGET, DctcpParams, LinkParams
from ._json import to_jsonable

__all__ = ["compare_fluid_report", "run_compare_fluid", "TIMELY_LAWS", "OWN_SETTINGS_LAWS", "COMPARE_LAWS"]

#: The TIMELY laws compare-fluid runs at their cross-check's own settings.
TIMELY_LAWS = ("timely", "timely-patched")
#: Laws whose cross-check runs at its own settings (flows, link, rates, d): only the seed applies.
OWN_SETTINGS_LAWS = (*TIMELY_LAWS, "d2tcp", "cubic")
COMPARE_LAWS = ("dctcp", "dwtcp", *OWN_SETTINGS_LAWS)


def _own_settings_doc(law: str, seed: int) -> dict[str, Any]:
    """The document of a law whose cross-check has its own settings (TIMELY, D2TCP, CUBIC)."""
    if law in TIMELY_LAWS:
        from ..studies.timely.checks import SETTINGS, TOLERANCES, compare_timely

        rows = compare_timely(tuple(s for s in SETTINGS if s.law == law), seed=seed)
        return {"law": law, "tolerances": TOLERANCES, "rows": rows, "agree": all(r["agree"] for r in rows)}
    if law == "d2tcp":
        from ..studies.d2tcp.checks import PERIOD_RATIO_FAR, compare_d2tcp
        from ..studies.d2tcp.checks import TOLERANCES as D2_TOL

        rows = [_d2tcp_row(r) for r in compare_d2tcp(seed=seed)]
        return {
            "law": "d2tcp",
            "tolerances": D2_TOL,
            "period_ratio_far": PERIOD_RATIO_FAR,
            "rows": rows,
            "agree": all(r["agree"] for r in rows),
        }
    from ..studies.cubic.checks import SETTINGS as CUBIC_SETTINGS
    from ..studies.cubic.checks import TOLERANCES as CUBIC_TOL
    from ..studies.cubic.checks import compare_cubic

    rows = compare_cubic(CUBIC_SETTINGS, seed=seed)
    return {"law": "cubic", "tolerances": CUBIC_TOL, "rows": rows, "agree": all(r["agree"] for r in rows)}


def _d2tcp_row(r: dict[str, Any]) -> dict[str, Any]:
    """The JSON row of one D2TCP setting: summaries without the traces."""
    keys = ("packet", "fluid", "fluid_window", "imminence", "checks", "class", "agree", "measured")
    out = {k: r[k] for k in keys}
    out["q_extremes"] = {k: r[k] for k in ("q_min_packet", "q_min_fluid", "q_max_packet", "q_max_fluid")}
    return {"flows": r["flows"], "dimm": r["dimm"], **out}


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
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], Any]:
    """:func:`compare_fluid_report` and what its figure draws (dctcp: ``{N: comparison}``; dwtcp: the
    comparisons with their traces; timely: None). ``progress(done, total)`` counts the runs: per setting the
    packet run and each fluid model (dwtcp), or one comparison per N (dctcp)."""
    if law not in COMPARE_LAWS:
        raise ValueError(f"law={law!r} is invalid: accepted {' | '.join(COMPARE_LAWS)}")
    if law in OWN_SETTINGS_LAWS:  # the cross-check's own settings (flows, rates, link); only the seed applies
        return to_jsonable(_own_settings_doc(law, seed)), None
    links = list(links or [LinkParams()])
    if law == "dwtcp":
        from ..studies.dwtcp.checks import TOLERANCES as DW_TOL
        from ..studies.dwtcp.checks import compare_dwtcp

        settings = [(link, n) for link in links for n in flows]
        per = 1 + (len(models) if models is not None else len(_dwtcp_models()))

        def part(i: int):
            return (lambda d, _t: progress(i * per + d, len(settings) * per)) if progress else None

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
                progress=part(i),
            )
            for i, (link, n) in enumerate(settings)
        ]
        rows = [{key: v for key, v in r.items() if key != "traces"} for r in results]
        return to_jsonable({"law": "dwtcp", "tolerances": DW_TOL, "rows": rows}), results
    from ..studies.dctcp.checks import TOLERANCES, compare_dctcp, within_tolerance

    rows, data = [], {}
    ns = [int(x) for x in flows]
    for i, n in enumerate(ns):
        if progress:
            progress(i, len(ns))
        P = DctcpParams(link=links[0], flows=n, K=marking_threshold, g=g)
        c = compare_dctcp(n, params=P, duration=duration, seed=seed)
        ok, text = within_tolerance(c)
        data[n] = c
        keys = ("wbar", "packet", "fluid", "fluid_window", "diff", "diff_window", "ratio", "ratio_window")
        rows.append({"flows": n, **{key: c[key] for key in keys}, "within_tolerance": ok, "measured": text})
    if progress:
        progress(len(ns), len(ns))
    return to_jsonable({"law": "dctcp", "tolerances": TOLERANCES, "rows": rows, "duration_s": duration}), data


def _dwtcp_models() -> tuple[str, ...]:
    """The fluid predictors compare_dwtcp runs by default (every one with a ``simulate`` face)."""
    from ..sweep.predictors import predictors

    return tuple(predictors(simulate=True))


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
    law : {"dctcp", "dwtcp", "timely", "timely-patched", "d2tcp", "cubic"}
        dctcp: the paper's (5)-(8) and the ACK-clocked model, tolerances judged against the latter
        (:func:`~dwtcp_fluid.studies.dctcp.checks.compare_dctcp`); dwtcp: every registered DWTCP fluid predictor with
        its verdict (:func:`~dwtcp_fluid.studies.dwtcp.checks.compare_dwtcp`); timely, d2tcp and cubic: their
        cross-check's own settings (only ``seed`` applies; d2tcp at imminence d = 0.5, 1, 2,
        :func:`~dwtcp_fluid.studies.d2tcp.checks.compare_d2tcp`; cubic against its hybrid fluid model,
        :func:`~dwtcp_fluid.studies.cubic.checks.compare_cubic`).
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
