"""The bibliography behind the toolkit's citation tags (``[DCTCP-A] eq. (8)``); REFERENCES.md renders it.

Every docstring, help text, JSON document, NetCDF attribute, proof and figure title cites a source by one of these
tags followed by the paper's own numbering.
"""

from __future__ import annotations

import re

__all__ = ["REFERENCES", "cite", "references_attr", "tags_in"]

#: tag -> full reference.
REFERENCES: dict[str, str] = {
    "DWTCP": "Scout service and the Double-Window Transmission Control Protocol (DWTCP), preprint",
    "DCTCP-A": "M. Alizadeh, A. Javanmard, B. Prabhakar, Analysis of DCTCP: Stability, Convergence, and Fairness, "
    "ACM SIGMETRICS 2011",
    "DCTCP": "M. Alizadeh et al., Data Center TCP (DCTCP), ACM SIGCOMM 2010",
    "DCTCP-WAN": "Investigating DCTCP Beyond the Data Center, course project report (Mininet study)",
    "PROXY": "S. Arslan, C. Voss, Moving Beyond Proxy Signals for Datacenter Congestion Control, "
    "CS 244 report, Stanford University, 2019",
    "TIMELY": "R. Mittal et al., TIMELY: RTT-based Congestion Control for the Datacenter, ACM SIGCOMM 2015",
    "D2TCP": "B. Vamanan, J. Hasan, T. N. Vijaykumar, Deadline-Aware Datacenter TCP (D2TCP), ACM SIGCOMM 2012",
    "CUBIC": "S. Ha, I. Rhee, L. Xu, CUBIC: A New TCP-Friendly High-Speed TCP Variant, "
    "ACM SIGOPS OSR 42(5), 2008; RFC 9438",
    "HPCC": "Y. Li et al., HPCC: High Precision Congestion Control, ACM SIGCOMM 2019",
    "PINT": "R. Ben Basat et al., PINT: Probabilistic In-band Network Telemetry, ACM SIGCOMM 2020",
    "DCQCN": "Y. Zhu et al., Congestion Control for Large-Scale RDMA Deployments, ACM SIGCOMM 2015",
    "ECN-OR-DELAY": "Y. Zhu, M. Ghobadi, V. Misra, J. Padhye, ECN or Delay: Lessons Learnt from Analysis of DCQCN "
    "and TIMELY, ACM CoNEXT 2016",
    "Swift": "G. Kumar et al., Swift: Delay is Simple and Effective for Congestion Control in the Datacenter, "
    "ACM SIGCOMM 2020",
    "D3": "C. Wilson, H. Ballani, T. Karagiannis, A. Rowstron, Better Never than Late: Meeting Deadlines in "
    "Datacenter Networks, ACM SIGCOMM 2011",
}


def cite(tag: str, where: str = "") -> str:
    """``cite("DCTCP-A", "eq. (8)")`` -> ``"[DCTCP-A] eq. (8)"``; raises ``ValueError`` for an unknown tag."""
    if tag not in REFERENCES:
        raise ValueError(f"tag={tag!r} is not a known reference: accepted {sorted(REFERENCES)}")
    return f"[{tag}] {where}".rstrip()


_TAG = re.compile(r"\[([A-Z0-9][A-Za-z0-9-]*)\]")


def tags_in(text: str | None) -> list[str]:
    """The known reference tags cited in ``text``, in order of first appearance (``"[DWTCP] eq. (3)"`` -> ``["DWTCP"]``)."""
    seen: list[str] = []
    for tag in _TAG.findall(text or ""):
        if tag in REFERENCES and tag not in seen:
            seen.append(tag)
    return seen


def references_attr(*texts: str | None) -> str:
    """A NetCDF/JSON ``references`` attribute: each tag cited in ``texts`` with its full reference, ``"; "``-joined."""
    tags: list[str] = []
    for t in texts:
        tags += [g for g in tags_in(t) if g not in tags]
    return "; ".join(f"[{t}] {REFERENCES[t]}" for t in tags)
