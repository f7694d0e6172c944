"""DCQCN ([DCQCN], [ECN-OR-DELAY]): fixed point, linear stability, packet-vs-fluid cross-check, claims."""
