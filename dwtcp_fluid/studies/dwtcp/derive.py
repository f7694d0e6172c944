"""DWTCP derivations of appendix A of [DWTCP], gathered from their topic modules.

* :func:`dwtcp_fluid_model` — law (1) → fluid (3), simplification (5), (6), (7); notes 1-3, Algorithm 1 line 18.
* :func:`dwtcp_jacobian` — Jacobian (8), (10), (11), (12)-(14).
* :func:`dwtcp_equilibrium` — equilibria, the center at (BDP/N, 0), the Scout's feedback delay.
* :func:`dwtcp_increase_phase` — (7) against the paper's (15), (16).
* :func:`dwtcp_first_integral` — first integrals of (6), (3), (7) and the return map at the switch.
* :func:`dwtcp_variants` — what replaces (14) for the sqrt(w) form and the inter-packet-gap variant.
* :func:`dwtcp_condition_numbers` — k̄* = 2·BDP/√β in numbers.
"""

from .derive_equilibrium import delayed_root as delayed_root
from .derive_equilibrium import dwtcp_equilibrium as dwtcp_equilibrium
from .derive_equilibrium import dwtcp_increase_phase as dwtcp_increase_phase
from .derive_law import dwtcp_fluid_model as dwtcp_fluid_model
from .derive_linear import dwtcp_condition_numbers as dwtcp_condition_numbers
from .derive_linear import dwtcp_jacobian as dwtcp_jacobian
from .derive_linear import kbar_crit_table as kbar_crit_table
from .derive_orbits import dwtcp_first_integral as dwtcp_first_integral
from .derive_orbits import first_integral as first_integral
from .derive_orbits import return_map_series as return_map_series
from .derive_variants import dwtcp_variants as dwtcp_variants
from .derive_variants import kbar_crit_ipg as kbar_crit_ipg
from .derive_variants import kbar_crit_sqrt as kbar_crit_sqrt
