"""The hand count of per-flow Scouts ([DWTCP] §3.3, §3.4; derived in :mod:`.derive_overhead`,
``proofs/dwtcp_scout_overhead.md``): Scout bytes and packets sent against the data a bottleneck carries."""

from __future__ import annotations

from ...params import LinkParams

__all__ = ["overhead_formula", "SCOUT_BYTES"]

#: [DWTCP]'s Scout size in bytes (§3.1: 64-byte Scouts).
SCOUT_BYTES = 64.0
_LINK = LinkParams(capacity="10Gbps", rtt="100us")


def overhead_formula(
    flows: float, utilization: float, *, per_rtt: float = 1.0, link: LinkParams = _LINK
) -> dict:
    """The hand count of per-flow Scouts: ``flows`` × ``per_rtt`` Scouts of 64 B per base RTT against
    u·C·τ data packets of L bytes: byte and packet ratios of the Scouts *sent*."""
    data = utilization * link.C * link.d  # data packets per RTT
    sc = flows * per_rtt
    return {"bytes": sc * SCOUT_BYTES / (data * link.L), "packets": sc / data}
