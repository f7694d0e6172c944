"""Recording of the overhead claims of the figure ``dwtcp_claims`` (:mod:`.figures_overhead`) into the claims data
``docs/data/dwtcp-claims.json``, without rebuilding the figure's other (slow) experiments."""

from __future__ import annotations

from typing import Any

__all__ = ["record_overhead"]


def record_overhead(path: Any = None) -> Any:
    """Build the ``overhead`` data at :data:`.figures_claims.SETTINGS`, store it in the recorded claims data (whose
    other keys :func:`.figures_claims.record` wrote at the same settings) and re-evaluate every claim of the
    figure. Run: ``python -m dwtcp_fluid.studies.dwtcp.report_overhead``."""
    import json
    from pathlib import Path

    from ...atomic import write_text
    from ...experiments.figure import registered
    from ...symbolic.recorded import checkout_root
    from .figures_claims import SETTINGS
    from .figures_overhead import build_overhead

    out = Path(path) if path else checkout_root() / "docs" / "data" / "dwtcp-claims.json"
    doc = json.loads(out.read_text("utf-8"))
    data = doc["data"]
    data["settings"] = {k: list(v) if isinstance(v, tuple) else v for k, v in SETTINGS.items()}
    data["overhead"] = json.loads(json.dumps(build_overhead(SETTINGS)))
    claims = []
    for c in registered()["dwtcp_claims"].claims:
        ok, measured = c.check(data)
        claims.append({"text": c.text, "passed": bool(ok), "measured": measured})
    doc["claims"] = claims
    write_text(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return out


if __name__ == "__main__":
    print(record_overhead())
