"""DWTCP fluid model that follows the Scout: the Scout measures the link's busy period, not the queue.

A Scout waits in the low-priority queue until the data queue is empty, so its delay is the time to the link's next
idle slot, and while the link stays busy no Scout is served at all: the decrease of Algorithm 1 of [DWTCP] is then
driven by line 18's pending term, now − send time of the oldest unacknowledged Scout, checked continuously. The
packet core shows it at every setting (its records ``scouts_served`` and ``pending_end``; ``proofs/dwtcp_busy.md``). This model keeps
exactly that mechanism and nothing of the queue-delay reading k̄ = q of (3)-(7):

State ``(w, log2_alpha, b)``: per-flow window w (packets), log2 of the Scout coefficient α, and the *busy age* b
(seconds): how long the link has gone without an idle slot. Time in seconds.

* ACK clock (as the packet core's senders, which keep w packets in flight): q = max(N·w − C·τ, 0) packets,
  R = τ + q/C, link utilization min(N·w/(C·τ), 1). The link is saturated (no idle slot) exactly when N·w ≥ C·τ.
* Busy age: the link idles D = max(C·τ − N·w, 0) slots per RTT, and the idle slots come in *gaps*: the ACK clock
  sends each flow's window back to back at line rate, so an RTT holds N trains and the D idle slots fall in the N
  spaces between them. With the trains at independent uniform phases the spaces are uniform spacings of D, and
  each is at least one slot long (a gap; shorter, the trains merge) with probability (1 − 1/D)^{N−1}, so an RTT
  holds G = min(D, N·(1 − 1/D)^{N−1}) gaps. A gap serves every queued Scout and ends the busy period: the busy age
  resets G/τ times per second, not D/τ (consecutive idle slots reset it once). The mean age of a renewal process
  with reset rate ν obeys b' = 1 − ν·b: b grows at rate 1 while the link is saturated and relaxes to τ/G when it
  is not. ν is capped at ``gap_cap``·C/k per second (b ≥ k/(gap_cap·C), far below the lateness threshold k/C),
  which keeps the equation non-stiff.
* Ripple: each flow has an integer number of packets in flight, so the instantaneous queue scatters around the
  fluid queue N·w − C·τ and its trough reaches zero while the fluid queue is still positive. Below
  ``ripple``·N packets of fluid queue the trough touches zero once per RTT (the ACK clock repeats the queue's
  pattern every RTT): the busy age is then a sawtooth of period τ, mean τ/2, and ν ≥ 2/τ. ``ripple`` = 1/4 is
  measured, not derived: in the packet core (100 µs, N = 10, seeds 0, 1; 19 cycles each) the fluid queue
  Σ cwnd − C·τ at the first idle slot after a long busy period is 2.1 and 3.2 packets.
* Scout delay, line 18: the oldest unacknowledged Scout of a flow was sent at the first Scout instant after the
  busy period began, φ ∈ [0, τ) after it (τ/2 on average), and its ACK would take τ: so d_s(t) = τ + b(t − τ_s)
  with τ_s = ``lag_rtts``·τ (1.5 τ), and the Scout is late (d_s > d_t = τ + k/C, eq. (2)) exactly when
  b(t − τ_s) > k/C: the switching surface is σ = b − k/C, read τ_s late (``switch_delays``). The size of the
  lateness needs b(t − τ_s) itself; the right-hand side reads the state one RTT late (``delay`` = τ), and while
  the link stays busy b grows at rate 1, so b(t − τ_s) = b(t − τ) − (τ_s − τ).
* In-time Scouts: a Scout sent at t − τ and answered by t found gaps starting at rate ν(t − τ); with gaps at
  random instants its wait is exponential, so it is within d_t with probability p_in = 1 − exp(−ν(t − τ)·k/C).
  While the link is saturated (ν = 0) no Scout is answered and nothing changes until the pending Scout is late: a
  Scout is answered, pending, or late.
* Window, eq. (1) and Algorithm 1 per unit time:  w' = 1/R  (a data ACK adds 1/w)
  + (1 − u)·p_in·α·(S/L)/τ  (one Scout per base RTT, each answered one adding α·S bytes)
  − u·(ŵ/τ)·min(β_w·sqrt(ŵ)·(d_s − d_t)/d_s, 1/2)  (line 22, at most once per T = τ, factor floored at 1/2),
  with ŵ = w + ``saw``·τ/R the window *at the decrease*: between two decreases one τ apart the data ACKs add τ/R,
  so the decrease meets the top of a sawtooth whose mean is w (``saw`` = 1/2, exact for a linear sawtooth).
* α, section 3.3: doubled per answered Scout, halved per lost or late one, one Scout per τ:
  (log2 α)' = ((1 − u)·p_in − u)/τ, held in [log2 alpha_min, log2 alpha_max] as sliding modes (the packet law's
  bounds).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..params import MODEL_BOUNDS, Bound, DwtcpParams, check_range
from .base import FluidModel

__all__ = ["DwtcpBusyFluid", "busy_queue", "busy_utilization"]

#: Idle slots below which 1 − 1/D is evaluated at this floor instead (the gap count is 0 there anyway).
#: Packets of fluid queue over which the ripple's reset switches on: a step, smoothed so that the fixed-step JAX
#: solver follows the reference (a ramp one packet wide instead lets the model rest inside it, which the packet
#: core's discrete resets never do: at 100 µs, N = 10 the cycle then shrinks to 2.3-3.6 packets).
_TROUGH_RAMP = 0.1


def busy_queue(w: Any, p: Mapping[str, Any], xp: Any = np) -> Any:
    """ACK-clocked queue q = max(N·w − C·τ, 0) in packets (w in packets, C in packets/s, τ in s)."""
    return xp.maximum(p["N"] * w - p["C"] * p["tau"], 0 * w)


def busy_utilization(w: Any, p: Mapping[str, Any], xp: Any = np) -> Any:
    """Link utilization min(N·w/(C·τ), 1) of ACK-clocked senders."""
    return xp.minimum(p["N"] * w / (p["C"] * p["tau"]), 1 + 0 * w)


@dataclass(frozen=True)
class DwtcpBusyFluid(FluidModel):
    """The Scout-faithful DWTCP model (``dw.DwtcpBusyFluid``; ``scout-faithful`` in the comparisons): the Scout is
    served only in idle time, Algorithm 1 and eqs. (1), (2) of [DWTCP]. Unlike
    :class:`~.dwtcp_scout.DwtcpScoutFluid` (the queue-delay model with α as a state) its Scout measures the link's
    busy period.

    Parameters
    ----------
    lag_rtts : float
        τ_s/τ ≥ 1: how long after the link's state the sender's d_s reflects it (its ACK's return, τ, plus the
        Scout's send phase, τ/2 on average).
    alpha_min, alpha_max : float
        Bounds of α (the packet law's: 1 and 1000).
    gap_cap : float
        Cap of the reset rate in units of C/k (idle gaps closer than k/gap_cap slots count as that).
    saw : float
        ŵ − w at the decrease, in units of one RTT's data-ACK growth τ/R (1/2: the top of a linear sawtooth).
    ripple : float
        Depth of the queue's trough below the fluid queue, in packets per flow (measured, module docstring).
    """

    param_bounds: ClassVar[Mapping[str, Bound] | None] = MODEL_BOUNDS

    lag_rtts: float = 1.5
    alpha_min: float = 1.0
    alpha_max: float = 1000.0
    gap_cap: float = 20.0
    saw: float = 0.5
    ripple: float = 0.25

    name: ClassVar[str] = "dwtcp-busy"
    states: ClassVar[tuple[str, ...]] = ("w", "log2_alpha", "b")
    state_units: ClassVar[tuple[str, ...]] = ("packets", "log2(1)", "s")
    param_names: ClassVar[tuple[str, ...]] = ("beta_w", "tau", "C", "N", "k", "s_over_l")
    sample_domain: ClassVar[Mapping[str, tuple]] = {
        "w": (0.5, 1e3),
        "log2_alpha": ("lin", 0.0, 10.0),
        "b": (1e-7, 1e-2),
        "beta_w": (1e-3, 0.1),
        "tau": (1e-5, 1e-2),
        "C": (1e4, 1e7),
        "N": (1.0, 1e3),
        "k": (1.0, 500.0),
        "s_over_l": (0.01, 0.1),
    }

    def __post_init__(self) -> None:
        check_range(
            "lag_rtts", self.lag_rtts, lo=1.0, why="Scout delay lag in base RTTs, at least the ACK's return"
        )
        check_range("alpha_min", self.alpha_min, lo=0.0, lo_open=True)
        check_range("alpha_max", self.alpha_max, lo=self.alpha_min, why="alpha_max >= alpha_min")
        check_range("gap_cap", self.gap_cap, lo=1.0, why="idle gaps per k slots")
        check_range("saw", self.saw, lo=0.0, hi=1.0, why="fraction of one RTT's growth")
        check_range("ripple", self.ripple, lo=0.0, why="packets per flow")

    def lateness(self, bd: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """(d_s − d_t)/d_s of line 22 from the busy age one RTT ago, ``bd`` = b(t − τ) ([DWTCP] eq. (2)).

        d_s = τ + b(t − τ_s) with b(t − τ_s) = b(t − τ) − (τ_s − τ) on a busy link; 0 while the Scout is in time.
        """
        bs = xp.maximum(bd - (self.lag_rtts - 1) * p["tau"], 0 * bd)
        return xp.maximum(bs - p["k"] / p["C"], 0 * bd) / (p["tau"] + bs)

    def gaps(self, w: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """Idle gaps per RTT, G = min(D, N·(1 − 1/D)^{N−1}), D = max(C·τ − N·w, 0) idle slots (N trains per RTT)."""
        idle = xp.maximum(p["C"] * p["tau"] - p["N"] * w, 0 * w)
        # (1 − 1/D)^{N−1} for D > 1 and its limit 0^{N−1} (1 for a single flow) below; the base is taken at
        # max(D, 1) so that neither branch, nor its derivative, raises a negative number to a fractional power
        keep = xp.where(
            idle > 1, (1 - 1 / xp.maximum(idle, 1 + 0 * w)) ** (p["N"] - 1), 0 * w + 0 ** (p["N"] - 1)
        )
        return xp.minimum(idle, p["N"] * keep)

    def reset_rate(self, w: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """Busy-age resets per second: G/τ, at least 2/τ while the fluid queue is below ripple·N (the trough
        touches zero once per RTT), capped at gap_cap·C/k."""
        nu = self.gaps(w, p, xp) / p["tau"]
        # the trough's depth below zero (packets); the switch to one trough per RTT is smoothed over _TROUGH_RAMP
        depth = self.ripple * p["N"] + p["C"] * p["tau"] - p["N"] * w
        on = xp.minimum(xp.maximum(depth, 0 * w) / _TROUGH_RAMP, 1 + 0 * w)
        nu = xp.maximum(nu, 2 * on / p["tau"])
        return xp.minimum(nu, self.gap_cap * p["C"] / p["k"] + 0 * w)

    def window_at_decrease(self, w: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """ŵ = w + saw·τ/R: the window when line 22 fires, one τ of data-ACK growth after the last decrease."""
        R = p["tau"] + busy_queue(w, p, xp) / p["C"]
        return xp.maximum(w, 0 * w) + self.saw * p["tau"] / R

    def in_time(self, wd: Any, p: Mapping[str, Any], xp: Any) -> Any:
        """p_in = 1 − exp(−ν·k/C): a Scout sent one RTT ago (window ``wd`` = w(t − τ)) met a gap within d_t."""
        return 1 - xp.exp(-self.reset_rate(wd, p, xp) * p["k"] / p["C"])

    def rhs(self, x: Sequence[Any], xd: Sequence[Any], u: Any, p: Mapping[str, Any], xp: Any) -> tuple:
        """w', (log2 α)', b' of the Scout-faithful model, [DWTCP] eqs. (1), (2) and Algorithm 1."""
        w, a, b = x
        R = p["tau"] + busy_queue(w, p, xp) / p["C"]
        alpha = 2.0**a
        # w > 0 on every solution; the guard in ŵ keeps a rejected trial stage of the adaptive solver finite
        wh = self.window_at_decrease(w, p, xp)
        cut = xp.minimum(p["beta_w"] * xp.sqrt(wh) * self.lateness(xd[2], p, xp), 0.5 + 0 * w)
        ok = self.in_time(xd[0], p, xp)
        dw = 1 / R + xp.where(u > 0, -cut * wh / p["tau"], ok * alpha * p["s_over_l"] / p["tau"])
        da = (xp.where(u > 0, 0 * a, ok) - u) / p["tau"]
        db = 1 - b * self.reset_rate(w, p, xp)
        return (dw, da, db)

    def surface(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> Any:
        """σ = b − k/C: the Scout is late (d_s > d_t, [DWTCP] eq. (2)) when the link has been busy for more than k
        slots."""
        return x[2] - p["k"] / p["C"]

    def delay(self, p: Mapping[str, Any]) -> Any:
        """τ (seconds): the right-hand side reads the state one RTT late (the Scout's round trip)."""
        return p["tau"]

    def switch_delays(self, p: Mapping[str, Any]) -> tuple:
        """τ_s = lag_rtts·τ (seconds): the Scout is seen late once b(t − τ_s) > k/C."""
        return (self.lag_rtts * p["tau"],)

    def step_scale(self, p: Mapping[str, Any]) -> float:
        """τ/4 and the busy age's reset time at the gap cap, k/C·10/gap_cap (seconds): the window's slope jumps
        at every switch and the reset rate reaches gap_cap·C/k, so the default JAX step (1/20 of this) is the
        smaller of τ/80 and k/(40·C)·20/gap_cap."""
        return min(p["tau"] / 4.0, p["k"] / (2.0 * p["C"]) * 20.0 / self.gap_cap)

    def floors(self, p: Mapping[str, Any]) -> dict[int, Any]:
        return {1: math.log2(self.alpha_min)}

    def ceilings(self, p: Mapping[str, Any]) -> dict[int, Any]:
        """log2 α ≤ log2(alpha_max), held as a sliding mode by the solvers."""
        return {1: math.log2(self.alpha_max)}

    def observables(self, x: Sequence[Any], p: Mapping[str, Any], xp: Any) -> dict[str, Any]:
        """The ACK-clocked queue max(N·w − C·τ, 0), the window, the Scout coefficient α = 2^log2_alpha
        (``scout_alpha``; DWTCP has no DCTCP-style α) and the utilization min(N·w/(C·τ), 1)."""
        w, a, _ = x
        return {
            "queue": busy_queue(w, p, xp),
            "window": w,
            "scout_alpha": 2.0**a,
            "utilization": busy_utilization(w, p, xp),
        }

    def numeric_params(self, params: DwtcpParams) -> dict[str, float]:
        """Floats for :meth:`rhs` (β_w in the packet convention, τ in s, C in packets/s, k in packets)."""
        if params.k <= 0:
            raise ValueError(
                f"k={params.k!r} is out of range: accepted k > 0 (the target K of eq. (2), packets)"
            )
        return {
            "beta_w": float(params.beta_sqrt_packets),
            "tau": float(params.tau),
            "C": float(params.link.C),
            "N": float(params.flows),
            "k": float(params.k),
            "s_over_l": float(params.scout_ratio),
        }
