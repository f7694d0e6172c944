"""Congestion signals over the per-path vector of hop queues, [PROXY] section 3.2: f(q) = SUM, MAX, SUM_SQU, IND.

[PROXY] writes every scheme as a function of the hop-by-hop queue vector q = (q_1, …, q_n): SUM Σq_i (the queueing
delay an RTT measures, TIMELY's signal), SUM_SQU √(Σq_i²) (long queues weigh more), MAX max_i q_i (only the
bottleneck), IND 1{∃i: q_i ≥ thresh} (ECN). Elementwise over the leading axes, reducing the last one, on NumPy or
JAX arrays (the packet core's ``ev.hop_queues`` is ``[..., n_hops]`` with 0 off the flow's path, which none of
the four functions notices). Any law may call :func:`hop_signal`; :mod:`.laws.dctcp_hops` is the DCTCP-style one.

A remark the four definitions imply: a law that *thresholds* the signal at K (as DCTCP thresholds the queue)
cannot tell MAX from IND, since max_i q_i ≥ K ⟺ ∃i: q_i ≥ K; MAX differs from IND only for a law that uses the
signal's size (a rate or delay-gradient law such as TIMELY).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

__all__ = ["HOP_SIGNALS", "hop_signal", "signal_option"]

#: The signal names of [PROXY] section 3.2, lower case.
HOP_SIGNALS = ("sum", "max", "sum_squ", "ind")


def hop_signal(q: Any, kind: str, thresh: Any = 0.0) -> Any:
    """f(q) over the last axis of the hop-queue vector ``q`` (packets), [PROXY] section 3.2.

    ``kind``: ``"sum"``, ``"max"``, ``"sum_squ"`` or ``"ind"`` (``thresh``: IND's threshold, packets; IND is
    1.0 or 0.0). Returns packets (SUM, MAX, SUM_SQU) or an indicator (IND).
    """
    q = jnp.asarray(q, jnp.float32)
    if kind == "sum":
        return jnp.sum(q, axis=-1)
    if kind == "max":
        return jnp.max(q, axis=-1)
    if kind == "sum_squ":
        return jnp.sqrt(jnp.sum(q * q, axis=-1))
    if kind == "ind":
        return jnp.any(q >= thresh, axis=-1).astype(jnp.float32)
    raise ValueError(f"kind={kind!r} is invalid: accepted one of {', '.join(HOP_SIGNALS)}")


def signal_option(default: str, choices: tuple[str, ...]) -> Any:
    """The ``--signal`` flag of a hop-signal law (a :class:`~.laws.base.LawOption` setting the law's ``signal``
    field): one definition, so every hop law's flag reads the same and ``packet run`` lists each law's choices."""
    from .laws.base import LawOption  # here, not at the top: the laws package imports this module

    return LawOption(
        "--signal",
        "Hop signal f(q) over the queues the packet found on its path, [PROXY] section 3.2: sum Σq, max max q, "
        "sum_squ √Σq², ind 1{some q ≥ K_hop}.",
        default,
        option="signal",
        choices=choices,
    )


def check_signal(law: str, signal: str, choices: tuple[str, ...]) -> None:
    """``ValueError`` naming the law's ``signal`` and ``choices`` unless ``signal`` is one of them."""
    if signal not in choices:
        raise ValueError(
            f"signal={signal!r} is invalid for law {law!r}: accepted one of {', '.join(choices)}"
        )
