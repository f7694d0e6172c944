"""Per-chunk records of the packet core: what the chunk-end pass keeps, and their host-side form.

At every chunk end a vectorised pass over the flows closes the window integrals (exact for the piecewise-constant
window: it changes only at events) and snapshots the cumulative counters; the host turns the snapshots into
per-chunk differences. Memory is bounded by the number of chunks (``trace_points``), whatever the run length.

Record keys (``[chunk]`` per scenario, ``[chunk, N]`` per flow): ``q_sum``, ``q_min``, ``q_max`` (queue after
service, summed/min/max over the chunk's slots), ``busy`` (slots with a departure), ``opps`` (service slots),
``q_end``, ``delivered``, ``sent``, ``drops``, ``timeouts``, ``active`` (active slots), ``cwnd_sum`` and
``alpha_sum`` (window and the law's traced field summed over active slots), ``cwnd_end``, ``alpha_end``,
``inflight_end``, ``pending_end``, ``marks``, ``scouts_sent``, ``scouts_served``, ``scouts_dropped``,
``scouts_lost``, ``scouts_wait`` (slots the served Scouts spent in the Scout queue, summed), ``random_losses``;
with routed ports (``[chunk, P]``) ``port_q_sum``, ``port_busy``, ``port_opps``, ``port_drops`` and ``port_q_end``
(the scalar queue records then stay zero); per flow ``finish`` (slot of the last ACK of a finite flow, else -1); per run
``spill`` (ACKs pushed to a later slot by a full wheel row), ``timer_overflows`` (timers kept in the overflow
list) and ``timers_lost`` (always 0: a full overflow list); ``residual`` in debug mode.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .events import AE, DE, SCOUT_BIT
from .flows import FIN_COLS, active_slots, f2i, i2f, integrate
from .laws.base import FLOAT, INT, NEVER
from .switch import departure_slot, is_service_slot

__all__ = ["chunk_records", "debug_residual", "finish_records"]

# counters kept per flow as cumulative snapshots → per-chunk differences (record name: snapshot name)
_PER_FLOW_CUM = {"delivered": "acked", "sent": "nxt", "drops": "drops", "timeouts": "tmo"}
# counters kept per scenario as cumulative snapshots
_SUMMED_CUM = {
    "marks": "marks",
    "scouts_served": "s_served",
    "scouts_dropped": "s_dropped",
    "scouts_lost": "s_lost",
    "scouts_wait": "s_wait",
    "random_losses": "rlosses",
}


def _columns(x: Any, c: dict) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    lay, N = x.lay, x.N
    fs = c["fs"][: N * lay.S].reshape(N, lay.S)
    F = {n: (i2f(fs[:, i]) if fl else fs[:, i]) for i, (n, fl) in enumerate(lay.fields)}
    fin = x.sc["fin"].reshape(N, len(FIN_COLS))
    fi = {n: fin[:, i] for i, n in enumerate(FIN_COLS)}
    fi["sdt"] = i2f(fi["sdt"])
    return fs, F, fi


def chunk_records(x: Any, c: dict, t0: Any, t1: Any) -> tuple[dict, dict]:
    """Close the chunk [t0, t1): records of the chunk, and the carry with the window integrals reset."""
    lay, N = x.lay, x.N
    fs, F, fi = _columns(x, c)
    act = active_slots(F, fi, t0, t1)
    G = integrate(F, fi, t1)
    for name, val in (
        ("cw_int", jnp.zeros(N, FLOAT)),
        ("aux_int", jnp.zeros(N, FLOAT)),
        ("t_int", jnp.full(N, t1, INT)),
    ):
        col = f2i(val) if lay.is_float[name] else jnp.asarray(val, INT)
        fs = lax.dynamic_update_slice(fs, col[:, None], (0, lay.index[name]))
    c = dict(c)
    c["fs"] = lax.dynamic_update_slice(c["fs"], fs.reshape(-1), (0,))
    pend = F["pend"] + (F["r_loss"] if "r_loss" in F else 0)
    rec = {
        "q_sum": c["q_sum"],
        "q_min": c["q_min"],
        "q_max": c["q_max"],
        "busy": c["busy"],
        "opps": c["opps"],
        "q_end": c["qlen"],
        "active": act,
        "cwnd_sum": G["cw_int"],
        "alpha_sum": G["aux_int"],
        "cwnd_end": F["cwnd"],
        "alpha_end": F["aux"],
        "inflight_end": F["infl"],
        "pending_end": pend,
        "scouts_sent_cum": jnp.sum(F["s_sent"]) if "s_sent" in F else jnp.zeros((), INT),
    }
    if x.spec.has("ports"):  # per port, [chunk, P]
        P = x.spec.n_ports
        rec.update(
            port_q_sum=c["pq_sum"][:P],
            port_busy=c["pbusy"][:P],
            port_opps=c["popps"][:P],
            port_drops=c["pdrops"][:P],
            port_q_end=c["pq"][:P],
        )
    for key, src in _PER_FLOW_CUM.items():
        rec[f"{key}_cum"] = F[src]
    for key, src in _SUMMED_CUM.items():
        rec[f"{key}_cum"] = c[src]
    return c, rec


def debug_residual(x: Any, c: dict, t: Any) -> Any:
    """Largest |inflight − (packets of the flow still in the network + losses not yet reported)| over flows at
    slot ``t``: queued packets (departure ring, each with the losses it carries), ACKs on the way back (their
    packets and losses), drops not yet attached, packets lost after the bottleneck and packets held by a
    delayed-ACK receiver. Zero when every packet is accounted for."""
    spec, s, N = x.spec, x.sc, x.N
    _, F, _ = _columns(x, c)
    back = F["pend"]
    for k in ("r_loss", "r_cnt", "r_nloss"):
        if k in F:
            back = back + F[k]
    # ACK wheel: live data entries (stamp ≥ t)
    a = c["ackw"][: spec.ack_rows * spec.ack_lanes * AE].reshape(-1, AE)
    live = (a[:, 0] >= t) & ((a[:, 2] & SCOUT_BIT) == 0)
    back = back + jnp.zeros(N, INT).at[jnp.where(live, a[:, 1], 0)].add(jnp.where(live, a[:, 4] + a[:, 3], 0))
    # departure ring: the queued packets leave in the next qlen service slots
    R = spec.dep_rows
    d = c["dep"][: R * DE].reshape(R, DE)
    slot = t + (jnp.arange(R, dtype=INT) - t) % R
    if spec.has("capacity"):
        last = departure_slot(t, c["qlen"] - 1, s["cap_start"], s["cap_rate"], s["cap_opp"])
        svc = jax.vmap(lambda u: is_service_slot(u, s["cap_start"], s["cap_rate"], s["cap_opp"]))(slot)
        queued = (c["qlen"] > 0) & (slot <= last) & svc
    else:
        queued = (slot - t) < c["qlen"]
    back = back + jnp.zeros(N, INT).at[jnp.where(queued, d[:, 0], 0)].add(jnp.where(queued, 1 + d[:, 2], 0))
    return jnp.max(jnp.abs(F["infl"] - back))


def finish_records(raw: dict[str, np.ndarray], n_chunks: int, n_flows: int) -> dict[str, np.ndarray]:
    """Engine output → records: chunks trimmed to ``n_chunks``, flows to ``n_flows``, cumulative snapshots as
    per-chunk differences. Arrays keep a leading batch axis."""
    out: dict[str, np.ndarray] = {}
    for k, v in raw.items():
        a = np.asarray(v)
        if k == "finish":
            a = a[:, :n_flows]
            out[k] = np.where(a == NEVER, -1, a).astype(np.int64)
        elif k in ("spill", "tw_over", "tw_lost"):
            out[{"tw_over": "timer_overflows", "tw_lost": "timers_lost"}.get(k, k)] = a
        else:
            a = a[:, :n_chunks]
            out[k] = a[..., :n_flows] if a.ndim == 3 and not k.startswith("port_") else a

    def diff(a: np.ndarray) -> np.ndarray:
        a = a.astype(np.int64)
        return np.diff(a, axis=1, prepend=np.zeros_like(a[:, :1]))

    for key in list(_PER_FLOW_CUM) + list(_SUMMED_CUM) + ["scouts_sent"]:
        out[key] = diff(out.pop(f"{key}_cum"))
    return out
