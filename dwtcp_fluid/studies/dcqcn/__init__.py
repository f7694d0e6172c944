"""DCQCN ([DCQCN], [ECN-or-Delay]): fixed point, linear stability, packet-vs-fluid cross-check, claims."""
