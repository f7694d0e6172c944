"""Checked symbolic derivations of the DWTCP and DCTCP fluid models, rendered into proofs/.

See :mod:`.derivation` for the mechanism and :mod:`.registry` for the list of derivations.
"""

from .dctcp import jf_normalized as jf_normalized
from .dctcp import jf_normalized_fn as jf_normalized_fn
from .derivation import Derivation as Derivation
from .derivation import Finding as Finding
from .derivation import Step as Step
from .derivation import StepCheckError as StepCheckError
from .registry import check_all as check_all
from .registry import render_all as render_all
from .registry import write_all as write_all
