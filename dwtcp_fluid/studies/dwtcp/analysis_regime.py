"""DWTCP's regime at many points at once: which of five regimes the protocol settles in, and its mean queue,
utilization, window and queue swing there (a mean-field model of Algorithm 1 of [DWTCP], evaluated in closed form
and by vectorized bisection; no time integration).

It assembles what the busy-period model (:class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid`,
proofs/dwtcp_busy.md) and the packet law (proofs/dwtcp_packet_law.md) derive, with the drop-tail buffer B and the
target K added. Units: packets (windows, queues, K, B, BDP), RTTs; β_w = β·√L is β in the packet convention,
x = BDP/N the fair share, c = ``ripple`` and s = ``saw`` the busy-period model's constants.

1. **Standing-queue window** w*: the root of x/w = β_w·(w + s·x/w)^{3/2} (the busy-period model's rest point: on a
   link that never idles the Scout is never served, line 18's lateness tends to 1 and the full decrease, met at the
   top of the data-ACK sawtooth, balances the +1 packet per RTT). Its queue q* = N·max(w*, w_min + 1) − BDP: a
   window at its floor w_min = 1 still keeps two packets in flight (its ACK adds 1/w = 1 packet and releases two).
2. **Above the buffer** (q* ≥ B) the delay decrease cannot hold the windows inside BDP + B and the drop-tail
   buffer sets the queue; each flow holds w_B = (BDP + B)/N packets.
   * **collapse** where w_B < ``loss_window``: losses end in timeouts, the queue stays pinned at B (mean queue B,
     utilization 1, window w_B);
   * a **loss cycle** (an oscillation) otherwise: a loss halves a window large enough to recover, and the queue
     swings across the buffer (amplitude B/2, mean queue B/2).
3. **Standing queue** where q* ≥ c·N (the ripple leaves it alone; for the unfloored root this is the busy-period
   criterion Φ(x) < 1, :func:`~.analysis_busy.busy_phi`): queue q*, utilization 1, window w*, a ripple of c·N.
4. **Cycle** otherwise (Φ ≥ 1): the windows fall back to the idle link, the busy age resets, and the queue rebuilds.
   Line 18's lateness at busy age b is ℓ(b) = (b − K/C)/(τ + b); the fullest decrease at the ripple's reach is Φ
   times the +1 per RTT, so the decrease first matches the growth at ℓ = 1/Φ, i.e. at the busy age
   b/τ = (K/BDP + 1/Φ)/(1 − 1/Φ). Until then the N windows grow by one packet per RTT each into the queue, for at
   most one RTT beyond the lateness threshold K/C (the ripple's trough resets the busy age once per RTT): the swing
   is N·min(b/τ, 1 + K/BDP), the amplitude half of it (at most half the buffer) and the mean queue half the
   amplitude.
   * **oscillation** where that amplitude exceeds the caller's threshold (the packet law's rule, see
     :mod:`dwtcp_fluid.sweep.predictors`);
   * **idle link** where the windows cannot even fill the pipe: with trains of u·x packets per flow and RTT at
     utilization u, a Scout finds the link busy with probability u and waits W ~ uniform(0, u·x) slots behind a
     train, late by (W − K)⁺; the decrease β_w·(u·x)^{3/2}·u·E[(W − K)⁺]/BDP per RTT balances the +1 at
     u < 1 when it exceeds 1 at u = 1 (the root u, window u·x, queue as in the cycle);
   * **ripple** around an empty queue otherwise (utilization 1, window x).

5. **Relaxation** of the standing queue: linearizing x/w − β_w·(w + s·x/w)^{3/2} (the window's drift per base RTT)
   at w* gives the time constant T = −1/g'(w*) base RTTs, (2/5)·w*²/x = (2/5)·x^{−1/5}·β_w^{−4/5} without the saw: a
   packet run shorter than a few T after its warm-up still carries its start.

Not modelled: the Scout coefficient α (the α·S increases of answered Scouts, which drive the cycle at K > 0), and
the jitter of a standing queue beyond the ripple.

proofs/dwtcp_regime.md derives each boundary and states where it departs from [DWTCP] eq. (14).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...models.dwtcp_busy import DwtcpBusyFluid
from .analysis_busy import busy_phi

__all__ = ["REGIMES", "IDLE", "RIPPLE", "STANDING", "OSCILLATION", "COLLAPSE", "DwtcpRegimeModel"]

#: Regime names by code.
REGIMES = ("idle link", "ripple", "standing queue", "oscillation", "collapse")
IDLE, RIPPLE, STANDING, OSCILLATION, COLLAPSE = range(5)

_BISECT_STEPS = 80


def _bisect(g: Any, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Root of g, decreasing from g(lo) > 0 to g(hi) < 0, by bisection at every point (relative width 2⁻⁸⁰)."""
    for _ in range(_BISECT_STEPS):
        m = 0.5 * (lo + hi)
        pos = g(m) > 0
        lo, hi = np.where(pos, m, lo), np.where(pos, hi, m)
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class DwtcpRegimeModel:
    """The regime model of the module docstring.

    Parameters
    ----------
    ripple, saw : float
        The busy-period model's c and s (:class:`~dwtcp_fluid.models.dwtcp_busy.DwtcpBusyFluid`).
    min_cwnd : float
        The window's floor, packets (the packet law's one packet).
    loss_window : float
        Per-flow share w_B of pipe and buffer below which losses at a full buffer collapse the link rather than
        cycle it (packets; between the packet runs' last collapse at w_B = 7.75 and first loss cycle at 7.92,
        β = 1e-4, K = 0, B = 250, proofs/dwtcp_regime.md step 4).
    """

    ripple: float = DwtcpBusyFluid.ripple
    saw: float = DwtcpBusyFluid.saw
    min_cwnd: float = 1.0
    loss_window: float = 8.0

    def standing_window(self, x: np.ndarray, beta_w: np.ndarray) -> np.ndarray:
        """w*: the root of x/w = β_w·(w + s·x/w)^{3/2} above √(s·x), where both sides are monotone (√(s·x) itself
        where the decrease already exceeds the growth there)."""
        x, bw = np.broadcast_arrays(np.asarray(x, float), np.asarray(beta_w, float))
        s = self.saw

        def g(w: np.ndarray) -> np.ndarray:
            return x / w - bw * (w + s * x / w) ** 1.5

        lo = np.sqrt(np.maximum(s * x, 1e-300))
        # without the saw the root is (x/β_w)^{2/5}; the saw only lowers it
        hi = np.maximum((x / bw) ** 0.4, lo) * (1 + 1e-9) + 1e-12
        return np.where(g(lo) <= 0, lo, _bisect(g, lo, hi))

    def relaxation_rtts(self, x: np.ndarray, beta_w: np.ndarray) -> np.ndarray:
        """T = −1/g'(w*), base RTTs, of the window's drift g(w) = x/w − β_w·(w + s·x/w)^{3/2} at the standing
        window w* (:meth:`standing_window`); (2/5)·w*²/x when s = 0."""
        x, bw = np.broadcast_arrays(np.asarray(x, float), np.asarray(beta_w, float))
        w = self.standing_window(x, bw)
        s = self.saw
        slope = -x / w**2 - 1.5 * bw * np.sqrt(w + s * x / w) * (1.0 - s * x / w**2)
        return -1.0 / slope

    def cycle_busy_rtts(self, phi: np.ndarray, k_over_bdp: np.ndarray) -> np.ndarray:
        """b/τ at which the decrease first matches the growth in a cycle: (K/BDP + 1/Φ)/(1 − 1/Φ) (Φ > 1)."""
        inv = 1.0 / np.asarray(phi, float)
        return (np.asarray(k_over_bdp, float) + inv) / (1.0 - inv)

    def idle_cut(
        self, u: np.ndarray, x: np.ndarray, bw: np.ndarray, bdp: np.ndarray, k: np.ndarray
    ) -> np.ndarray:
        """Decrease per RTT, in units of the +1 growth, at utilization u of an idle link:
        β_w·w^{3/2}·u·E[(W − K)⁺]/BDP with w = u·x and W ~ uniform(0, w), E[(W − K)⁺] = ((w − K)⁺)²/(2w)."""
        w = u * x
        return bw * w**1.5 * u * np.maximum(w - k, 0.0) ** 2 / (2.0 * w * bdp)

    def evaluate(
        self,
        beta: Any,
        bdp: Any,
        flows: Any,
        *,
        k: Any = 0.0,
        buffer: Any = 250.0,
        packet_size: float = 1500.0,
        threshold: Any = None,
    ) -> dict[str, np.ndarray]:
        """The regime and its statistics at every point (arrays broadcast together).

        Parameters
        ----------
        beta : array_like
            β in the paper's byte convention (β_w = β·√L).
        bdp, flows : array_like
            BDP (packets) and N.
        k, buffer : array_like
            Target K and drop-tail buffer B, packets.
        packet_size : float
            L, bytes.
        threshold : array_like, optional
            Amplitude (packets) above which a cycle counts as an oscillation; default: never (no oscillation
            regime, the cycle is an idle link or a ripple).

        Returns
        -------
        dict of ndarray
            ``regime`` (int codes of :data:`REGIMES`), ``phi``, ``w_star``, ``q_star``, ``busy_rtts`` (NaN outside
            the cycle), ``queue_mean``, ``utilization``, ``window_mean``, ``amplitude`` (packets), ``relax_rtts``
            (the standing queue's relaxation time :meth:`relaxation_rtts`, base RTTs; NaN outside the standing
            queue).
        """
        beta, bdp, n, k, b = np.broadcast_arrays(
            *(np.asarray(a, float) for a in (beta, bdp, flows, k, buffer))
        )
        bw = beta * np.sqrt(float(packet_size))
        x = bdp / n
        c = self.ripple
        phi = busy_phi(x, bw, c, self.saw)
        ws = self.standing_window(x, bw)
        qs = n * np.maximum(ws, self.min_cwnd + 1.0) - bdp
        over = qs >= b
        w_full = (bdp + b) / n
        collapse = over & (w_full < self.loss_window)
        loss_cycle = over & ~collapse
        standing = ~over & (qs >= c * n)
        cycle = ~over & ~standing
        bt = np.where(cycle, self.cycle_busy_rtts(np.maximum(phi, 1 + 1e-12), k / bdp), np.nan)
        amp_cycle = np.where(
            loss_cycle, 0.5 * b, np.minimum(0.5 * n * np.minimum(np.nan_to_num(bt), 1.0 + k / bdp), 0.5 * b)
        )
        one = np.ones_like(x)
        idle = cycle & (self.idle_cut(one, x, bw, bdp, k) > 1.0)
        u_idle = _bisect(lambda u: 1.0 - self.idle_cut(u, x, bw, bdp, k), np.full_like(x, 1e-9), one)
        u = np.where(idle, u_idle, 1.0)
        thr = (
            np.full_like(x, np.inf)
            if threshold is None
            else np.broadcast_to(np.asarray(threshold, float), x.shape)
        )
        osc = loss_cycle | (cycle & (amp_cycle > thr))
        regime = np.select(
            [collapse, standing, osc, idle], [COLLAPSE, STANDING, OSCILLATION, IDLE], default=RIPPLE
        ).astype(np.int8)
        return {
            "regime": regime,
            "phi": phi,
            "w_star": ws,
            "q_star": qs,
            "busy_rtts": bt,
            "queue_mean": np.where(
                collapse, b, np.where(standing, qs, 0.5 * amp_cycle + 0.5 * b * loss_cycle)
            ),
            "utilization": u,
            "window_mean": np.where(over, w_full, np.where(standing, np.maximum(ws, self.min_cwnd), u * x)),
            "amplitude": np.where(collapse, 0.0, np.where(standing, c * n, amp_cycle)),
            "relax_rtts": np.where(standing, self.relaxation_rtts(x, bw), np.nan),
        }
