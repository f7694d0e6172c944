"""The named objectives of :mod:`~dwtcp_fluid.studies.dctcp.tune`, in a module of their own so that the command line can list them in
``--help`` without importing JAX."""

from __future__ import annotations

__all__ = ["OBJECTIVES", "DWTCP_OBJECTIVES"]

#: Named objectives: what is minimized at the worst operating point (all in packets). The queues are counted
#: above the standing queue max(0, 2N − C·d) that N windows at DCTCP's floor of 2 packets hold whatever K and g
#: are (w̄ ≤ 2, [DCTCP-A] section 3.2): no choice of K, g removes it, and counting it would make the worst case
#: flat in (K, g) wherever such a point exists (many flows at a short RTT).
OBJECTIVES = {
    "mean-queue": "worst-case mean queue above the standing queue 2N - C*d (packets)",
    "max-queue": "worst-case peak queue above the standing queue 2N - C*d (packets)",
    "swing": "worst-case queue oscillation q_max - q_min (packets)",
}

#: Named objectives of ``tune dwtcp`` (:mod:`.tune_dwtcp`), in packets. The queue is counted whole: DWTCP's
#: standing queue (N·w* − BDP where Φ(BDP/N) < 1, ``proofs/dwtcp_busy.md``) is set by β, so it is the thing tuned.
DWTCP_OBJECTIVES = {
    "mean-queue": "worst-case mean queue over the range (packets; DWTCP's standing queue included: beta sets it)",
    "max-queue": "worst-case peak queue over the range (packets): the buffer the range needs",
}
