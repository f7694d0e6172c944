"""The derivation machinery: checked symbolic derivations, rendered into proofs/.

See :mod:`.derivation` for the mechanism and :mod:`.registry` for the list of derivations; each study's derivations
live in its ``derive`` modules (:mod:`dwtcp_fluid.studies`). The names below load on first use, so that a study's
derivation module can import :mod:`.derivation` without loading the registry of every derivation.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "jf_normalized": "..studies.dctcp.derive",
    "jf_normalized_fn": "..studies.dctcp.derive",
    "Derivation": ".derivation",
    "Finding": ".derivation",
    "Step": ".derivation",
    "StepCheckError": ".derivation",
    "check_all": ".registry",
    "render_all": ".registry",
    "write_all": ".registry",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name], __name__), name)
