"""Recording of one part of the figure ``dwtcp_claims``'s data (the overhead claims of :mod:`.figures_overhead`, the
Scout-rate claims of :mod:`.figures_scout_rate`, the leaf-spine FCT claims of :mod:`.figures_fabric`) into the claims data ``docs/data/dwtcp-claims.json``, without
rebuilding the figure's other (slow) experiments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["record_overhead", "record_scout_rate", "record_fabric", "record_part"]


def record_part(key: str, build: Callable[[dict[str, Any]], Any], path: Any = None) -> Any:
    """Build the data under ``key`` with ``build(SETTINGS)`` at :data:`.figures_claims.SETTINGS`, store it in the
    recorded claims data (whose other keys :func:`.figures_claims.record` wrote at the same settings) and
    re-evaluate every claim of the figure."""
    import json
    from pathlib import Path

    from ...atomic import write_text
    from ...experiments.figure import registered
    from ...symbolic.recorded import checkout_root
    from .figures_claims import SETTINGS

    out = Path(path) if path else checkout_root() / "docs" / "data" / "dwtcp-claims.json"
    doc = json.loads(out.read_text("utf-8"))
    data = doc["data"]
    data["settings"] = {k: list(v) if isinstance(v, tuple) else v for k, v in SETTINGS.items()}
    data[key] = json.loads(json.dumps(build(SETTINGS)))
    claims = []
    for c in registered()["dwtcp_claims"].claims:
        ok, measured = c.check(data)
        claims.append({"text": c.text, "passed": bool(ok), "measured": measured})
    doc["claims"] = claims
    write_text(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return out


def record_overhead(path: Any = None) -> Any:
    """The ``overhead`` data (:func:`.figures_overhead.build_overhead`). Run: ``python -m
    dwtcp_fluid.studies.dwtcp.report_overhead``."""
    from .figures_overhead import build_overhead

    return record_part("overhead", build_overhead, path)


def record_scout_rate(path: Any = None) -> Any:
    """The ``scout_rate`` data (:func:`.figures_scout_rate.build_scout_rate`). Run: ``python -m
    dwtcp_fluid.studies.dwtcp.report_overhead scout_rate``."""
    from .figures_scout_rate import build_scout_rate

    return record_part("scout_rate", build_scout_rate, path)


def record_fabric(path: Any = None) -> Any:
    """The ``fabric`` data (:func:`.figures_fabric.build_fabric`: the leaf-spine FCT runs). Run: ``python -m
    dwtcp_fluid.studies.dwtcp.report_overhead fabric``."""
    from .figures_fabric import build_fabric

    return record_part("fabric", build_fabric, path)


if __name__ == "__main__":
    import sys

    parts = {"scout_rate": record_scout_rate, "fabric": record_fabric}
    print(parts[sys.argv[1]]() if sys.argv[1:2] and sys.argv[1] in parts else record_overhead())
