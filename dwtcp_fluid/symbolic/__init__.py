"""Checked symbolic derivations of the DWTCP and DCTCP fluid models, rendered into proofs/.

See :mod:`.derivation` for the mechanism and :mod:`.registry` for the list of derivations.
"""

from .derivation import Derivation as Derivation
from .derivation import Finding as Finding
from .derivation import Step as Step
from .derivation import StepCheckError as StepCheckError
