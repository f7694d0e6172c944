"""Closed forms of the slotted strict-priority switch (derived and checked in :mod:`.derive_priority`,
``proofs/dwtcp_scout_amplification.md``): the data packets' and the Scouts' mean waits and where their ratio lies
in a band. Arithmetic only, so the same functions take floats or SymPy symbols."""

from __future__ import annotations

from typing import Any

__all__ = ["slotted_waits", "wait_formulas", "amplification_band"]


def slotted_waits(rho: Any, m2: Any) -> tuple[Any, Any, Any]:
    """(E[Q], W_H, W_L) in slots at load ``rho`` with factorial moment ``m2`` = E[A(A−1)] of the data arrivals
    per slot: the mean queue after service m₂/(2(1 − ρ)); a data packet's wait E[Q] + m₂/(2ρ); a Scout's wait (for
    a vanishing Scout load) (E[Q] + ρ)/(1 − ρ)."""
    eq = m2 / (2 * (1 - rho))
    return eq, eq + m2 / (2 * rho), (eq + rho) / (1 - rho)


def wait_formulas(rho: float, m2: float) -> dict[str, float]:
    """``W_H``, ``W_L`` (slots), ``ratio`` = W_L/W_H and ``cobham`` = 1/(1 − ρ), the continuous M/G/1
    non-preemptive ratio (Poisson arrivals: m₂ = ρ²; n Bernoulli senders of load ρ/n each: ρ²(1 − 1/n))."""
    _, wh, wl = slotted_waits(float(rho), float(m2))
    return {"W_H": wh, "W_L": wl, "ratio": wl / wh, "cobham": 1.0 / (1.0 - rho)}


def amplification_band(lo: float = 5.0, hi: float = 15.0) -> dict[str, tuple[float, float]]:
    """The loads at which the Poisson wait ratio lies in [lo, hi]: slotted (2 − ρ)/(1 − ρ) = v at
    ρ = (v − 2)/(v − 1); Cobham 1/(1 − ρ) = v at ρ = 1 − 1/v."""
    return {
        "slotted": ((lo - 2) / (lo - 1), (hi - 2) / (hi - 1)),
        "cobham": (1 - 1 / lo, 1 - 1 / hi),
    }
