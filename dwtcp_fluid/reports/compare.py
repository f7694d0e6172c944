"""JSON document of ``packet compare-fluid``: the packet core next to fluid models at the same parameters.

One path for every law: the registered :class:`~dwtcp_fluid.judge.CrossCheck` that serves the law
(:func:`~dwtcp_fluid.judge.check_for_law`) runs through :func:`~dwtcp_fluid.judge.run_check`, at the settings the
command line gives (a check with ``settings_from``: dctcp, dwtcp) or at the check's own stated settings (only the
seed applies: timely, timely-patched, d2tcp, cubic). The checks register when their study's ``checks*`` modules are
imported; :func:`compare_laws` imports every one it finds under ``dwtcp_fluid.studies`` (a new study's check is
found without editing this file).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from typing import Any

from ..judge import CheckResult, CrossCheck, check_for_law, run_check
from ..judge import compare_laws as _registered_laws
from ..params import DEFAULT_BETA, DEFAULT_G, DWTCP_TARGET, LinkParams
from ._json import to_jsonable

__all__ = ["compare_fluid_report", "run_compare_fluid", "compare_laws", "compare_check"]


def _discover() -> None:
    """Import every study's ``checks*`` modules, so that their cross-checks register."""
    from .. import studies

    for info in pkgutil.walk_packages(studies.__path__, studies.__name__ + "."):
        if info.name.rsplit(".", 1)[-1].startswith("checks"):
            importlib.import_module(info.name)


def compare_laws() -> tuple[str, ...]:
    """The laws ``packet compare-fluid`` serves: every law of a registered cross-check, sorted."""
    _discover()
    return tuple(sorted(_registered_laws()))


def compare_check(law: str) -> CrossCheck[Any]:
    """The registered cross-check that serves ``law`` (ValueError naming the accepted laws otherwise)."""
    if law not in compare_laws():
        raise ValueError(f"law={law!r} is invalid: accepted {' | '.join(compare_laws())}")
    return check_for_law(law)


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
) -> tuple[dict[str, Any], CheckResult]:
    """:func:`compare_fluid_report` and the :class:`~dwtcp_fluid.judge.CheckResult` it is made of (traces
    included, for the figure). ``progress(done, total)`` counts the packet runs."""
    check = compare_check(law)
    flags = {"flows": [int(n) for n in flows], "links": list(links or [LinkParams()]),
             "marking_threshold": marking_threshold, "g": g, "beta": beta, "k": k}  # fmt: skip
    settings = check.settings_from(**flags) if check.settings_from else check.settings
    options = {"duration": duration, "buffer": buffer, "models": models, "packet_rtts": packet_rtts,
               "fluid_rtts": fluid_rtts}  # fmt: skip
    res = run_check(check, settings, seed=seed, progress=progress, **options)
    extra = check.document(options) if callable(check.document) else dict(check.document)
    doc = {
        "law": law,
        "tolerances": check.stated(),
        "rows": [check.row(r) if check.row else r.to_dict() for r in res.rows],
        "agree": res.agree,
        **extra,
    }
    return to_jsonable(doc), res


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
    """The packet core next to fluid models at the same parameters: the law's registered cross-check, judged.

    Parameters
    ----------
    law : str
        A law some registered cross-check serves (:func:`compare_laws`): dctcp (the paper's (5)-(8) and the
        ACK-clocked model, judged against the latter, one row per N; :mod:`~dwtcp_fluid.studies.dctcp.checks`),
        dwtcp (every registered DWTCP fluid predictor, each judged, one row per N × link;
        :mod:`~dwtcp_fluid.studies.dwtcp.checks`), timely and timely-patched, d2tcp (at imminence d = 0.5, 1, 2)
        and cubic (against its hybrid fluid model): their cross-check's own settings (only ``seed`` applies).
    flows : sequence of int
        N values (dctcp, dwtcp).
    links : sequence of LinkParams
        dwtcp: one comparison per link and N; dctcp: the first link (default 10 Gbps, 100 µs, 1500 B).
    marking_threshold, g, duration
        DCTCP: K (packets), EWMA gain, simulated time (s; the last half is compared).
    beta, k, buffer, models, packet_rtts, fluid_rtts
        DWTCP: β (byte convention), target K (packets), data buffer (packets), predictor names (None: all),
        measured RTTs of the packet run and length of the fluid runs (base RTTs).
    seed : int
        Seed of the packet runs.

    Returns
    -------
    dict
        ``law``, ``tolerances`` (the check's stated tolerances, name → bound), ``rows`` (one per setting, the
        check's JSON row), ``agree`` (every setting agrees) and the check's own keys (dctcp: ``duration_s``; d2tcp:
        ``period_ratio_far``).
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
