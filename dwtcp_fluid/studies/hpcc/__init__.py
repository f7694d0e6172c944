"""HPCC and HPCC-PINT: packet laws against the fluid model, the fixed point and stability region, the claims."""
