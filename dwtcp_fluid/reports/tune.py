"""JSON documents of ``tune dctcp`` and ``tune dwtcp``: the tuner's summary, every operating point's observables at
the tuned parameters, and the search path."""

from __future__ import annotations

from typing import Any

from ._json import to_jsonable

__all__ = ["tune_document", "tune_dctcp_report", "tune_dwtcp_report"]


def tune_document(res: Any) -> dict[str, Any]:
    """The document of a tuning result (:func:`~dwtcp_fluid.studies.dctcp.tune.tune_dctcp` or
    :func:`~dwtcp_fluid.studies.dwtcp.tune.tune_dwtcp`): its summary, ``operating_points`` (RTT in s, N and the
    observables at the tuned parameters) and ``path`` (the search's iterates).

    Parameters
    ----------
    res : TuneResult or DwtcpTuneResult
        A finished tuning run.
    """
    s = res.summary().to_dict()
    s["operating_points"] = [
        {"rtt_s": float(d), "flows": int(n), **{k: v[i].item() for k, v in res.observables.items()}}
        for i, (d, n) in enumerate(zip(res.points_d, res.points_N, strict=True))
    ]
    s["path"] = res.path.tolist()
    return to_jsonable(s)


def tune_dctcp_report(rng: Any, **options: Any) -> dict[str, Any]:
    """``tune dctcp --json``'s document: K and g tuned over the operating range ``rng``.

    Parameters
    ----------
    rng : TuneRange
        Capacity, RTTs and flow counts of the operating points.
    **options
        ``objective``, ``throughput_min``, ``rho_max``, ``max_seconds`` of :func:`~dwtcp_fluid.studies.dctcp.tune.tune_dctcp`.
    """
    from ..studies.dctcp.tune import tune_dctcp

    return tune_document(tune_dctcp(rng, **options))


def tune_dwtcp_report(rng: Any, **options: Any) -> dict[str, Any]:
    """``tune dwtcp --json``'s document: β and the target K tuned over the operating range ``rng``.

    Parameters
    ----------
    rng : TuneRange
        Capacity, RTTs and flow counts of the operating points.
    **options
        ``objective``, ``utilization_min``, ``steady``, ``max_seconds`` of :func:`~dwtcp_fluid.studies.dwtcp.tune.tune_dwtcp`.
    """
    from ..studies.dwtcp.tune import tune_dwtcp

    return tune_document(tune_dwtcp(rng, **options))
