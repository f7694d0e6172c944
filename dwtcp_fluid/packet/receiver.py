"""The receiving side of the packet core: a packet leaves the bottleneck and its receiver acknowledges it.

At each service slot the head packet leaves; unless it is lost after the bottleneck (random loss), its receiver
acknowledges it at once or, with delayed ACKs, together with others (DCTCP's two-state receiver). The ACK reaches
the sender one base RTT later, plus seeded ACK-path jitter; it is filed in the ACK wheel at its arrival slot. An
idle service slot serves the queued Scouts, whose ACKs return the same way.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from .flows import inputs, rd
from .laws.base import INT, NEVER
from .switch import red_probability, uniform
from .wheels import _JITTER, _LOSS, _RED, DE, MARK_BIT, SCOUT_BIT, Ctx, _i, _wake_due, arm, insert_ack

__all__ = ["delack_receive", "emit", "depart", "deliver", "serve_scouts", "ack_scout"]


def emit(
    x: Ctx, c: dict, f: Any, F: dict, fi: dict, t: Any, on: Any, n: Any, mark: Any, nloss: Any, sent: Any
) -> tuple[dict, dict]:
    """The receiver of flow ``f`` acknowledges ``n`` packets now: the ACK reaches the sender one base RTT later
    (plus seeded jitter; without reordering, no earlier than the flow's previous ACK)."""
    arr = t + fi["rtt"]
    F = dict(F)
    if x.has("jitter"):
        sc = x.sc
        J = x.spec.jitter_points
        u = uniform(sc["seed"], t, f, _JITTER)
        j = jnp.minimum((u * J).astype(INT), J - 1)
        q = lax.dynamic_slice(sc["jitter_table"], (j,), (1,))[0]
        arr = arr + jnp.floor(q + 0.5).astype(INT)
        arr = jnp.where(sc["jitter_reorder"], arr, jnp.maximum(arr, F["r_last"]))
        F["r_last"] = jnp.where(on, arr, F["r_last"])
    flags = jnp.where(mark, MARK_BIT, 0)
    return insert_ack(x, c, arr, f, flags, nloss, n, sent, on), F


def delack_receive(st: dict, got: Any, mark: Any, nloss: Any, sent: Any, m: Any) -> dict:
    """DCTCP's delayed-ACK receiver ([DCTCP] section 3.1) on the arrival of one data packet.

    ``st`` holds the packets held (``cnt``), their CE state (``ce``), the losses they report (``nloss``) and the
    send slot of the last one (``sent``). A packet whose CE differs from the held packets' first acknowledges
    those at once with the old ECE (``flush``); then it joins the held packets, and when ``m`` are held they are
    acknowledged (``full``). Returns both possible ACKs (packets, ECE, losses, send slot) and the new state.
    (The timeout flush is the engine's timer.) ``got`` False (the packet was lost) changes nothing.
    """
    held = st["cnt"] > 0
    flush = got & held & (mark != (st["ce"] > 0))
    out = {
        "flush": flush,
        "flush_n": st["cnt"],
        "flush_ece": st["ce"] > 0,
        "flush_nloss": st["nloss"],
        "flush_sent": st["sent"],
    }
    cnt = jnp.where(flush, 0, st["cnt"]) + got.astype(INT)
    nl = jnp.where(flush, 0, st["nloss"]) + jnp.where(got, nloss, 0)
    ce = jnp.where(got, mark.astype(INT), st["ce"])
    snt = jnp.where(got, sent, st["sent"])
    full = got & (cnt >= m)
    out.update(full=full, full_n=cnt, full_ece=ce > 0, full_nloss=nl, full_sent=snt)
    out["state"] = {
        "cnt": jnp.where(full, 0, cnt),
        "ce": ce,
        "nloss": jnp.where(full, 0, nl),
        "sent": snt,
    }
    return out


def depart(x: Ctx, c: dict, t: Any, qpre: Any) -> dict:
    """The packet at the head of the queue leaves in this service slot (``qpre``: occupancy before service,
    this packet included): its receiver acknowledges it (now, or later with delayed ACKs) unless it is lost."""
    sc, spec = x.sc, x.spec
    if spec.has("int"):  # the port's telemetry as this packet leaves: queue behind it, packets sent, slot
        c = dict(c)
        c["txc"] = c["txc"] + 1
        c["int_now"] = jnp.stack([qpre - 1, c["txc"], jnp.asarray(t, INT)]).astype(INT)
    d = rd(c["dep"], (t & (spec.dep_rows - 1)) * DE, DE)
    f, nloss, sent = d[0], d[2], d[3]
    if x.has("red"):
        u = uniform(sc["seed"], t, _RED, 1)
        red = u < red_probability(qpre, sc["K"], sc["red_kmax"], sc["red_pmax"])
        mark = (d[1] > 0) | (sc["mark_dequeue"] & red)
    else:
        mark = (d[1] > 0) | (sc["mark_dequeue"] & (qpre >= sc["kth"]))
    return deliver(x, c, t, f, mark, nloss, sent)


def deliver(x: Ctx, c: dict, t: Any, f: Any, mark: Any, nloss: Any, sent: Any) -> dict:
    """Data packet of flow ``f`` (ECN ``mark``, reporting ``nloss`` losses, sent in slot ``sent``) leaves the
    last port of its route in slot ``t``: its receiver acknowledges it (now, or later with delayed ACKs) unless
    it is lost after that port."""
    sc, spec = x.sc, x.spec
    carried = nloss
    if not (spec.has("loss") or spec.has("delack") or spec.has("jitter")):
        fi = {"rtt": inputs(sc["fin"], f)["rtt"]}
        return insert_ack(
            x, c, t + fi["rtt"], f, jnp.where(mark, MARK_BIT, 0), nloss, 1, sent, jnp.asarray(True)
        )
    F, fi = x.lay.read(c["fs"], f), inputs(sc["fin"], f)
    F = dict(F)
    got = jnp.asarray(True)
    if spec.has("loss"):
        lost = uniform(sc["seed"], t, _LOSS) < sc["loss_p"]
        c = dict(c)
        c["rlosses"] = c["rlosses"] + lost.astype(INT)
        nloss = jnp.where(lost, 0, nloss + F["r_loss"])
        F["r_loss"] = jnp.where(lost, F["r_loss"] + 1 + carried, 0)  # its own loss and the ones it carried
        got = ~lost
    if spec.has("delack"):
        r = delack_receive(
            {k: F["r_" + k] for k in ("cnt", "ce", "nloss", "sent")}, got, mark, nloss, sent, sc["delack_m"]
        )
        c, F = emit(
            x, c, f, F, fi, t, r["flush"], r["flush_n"], r["flush_ece"], r["flush_nloss"], r["flush_sent"]
        )
        c, F = emit(x, c, f, F, fi, t, r["full"], r["full_n"], r["full_ece"], r["full_nloss"], r["full_sent"])
        first = got & (F["r_cnt"] == 0) | (r["flush"] & (r["state"]["cnt"] > 0))
        F["r_dl"] = jnp.where(first, t + sc["delack_timeout"], F["r_dl"])
        F.update({"r_" + k: v for k, v in r["state"].items()})
    else:
        c, F = emit(x, c, f, F, fi, t, got, _i(1), mark, nloss, sent)
    # a loss may leave every outstanding packet lost (retransmission timeout), a held packet needs its flush
    c, F = arm(x, c, f, F, _wake_due(x, F, fi, t, _i(NEVER)), t)
    c = dict(c)
    c["fs"] = x.lay.write(c["fs"], f, F)
    return c


def serve_scouts(x: Ctx, c: dict, t: Any, on: Any) -> dict:
    """An idle service slot serves every queued Scout; each Scout ACK returns one base RTT later. ``s_wait`` adds
    each served Scout's slots in the Scout queue (service slot − send slot)."""
    n = jnp.where(on, c["sqn"], 0)

    def body(i: Any, c: dict) -> dict:
        e = rd(c["sq"], i * 2, 2)
        return ack_scout(x, c, t, e[0], e[1], jnp.asarray(True))

    c = lax.fori_loop(0, n, body, c)
    c = dict(c)
    c["s_served"] = c["s_served"] + n
    c["sqn"] = c["sqn"] - n
    return c


def ack_scout(x: Ctx, c: dict, t: Any, f: Any, seq: Any, on: Any) -> dict:
    """Scout ``seq`` of flow ``f`` leaves the last port of its route in slot ``t`` (when ``on``): its ACK returns
    one base RTT later (plus seeded ACK-path jitter); ``s_wait`` adds its slots since it was sent."""
    fi = inputs(x.sc["fin"], f)
    arr = t + fi["rtt"]
    if x.has("jitter"):
        u = uniform(x.sc["seed"], t, f, _JITTER, 7)
        J = x.spec.jitter_points
        q = lax.dynamic_slice(x.sc["jitter_table"], (jnp.minimum((u * J).astype(INT), J - 1),), (1,))[0]
        arr = arr + jnp.floor(q + 0.5).astype(INT)
    wait = t - (fi["start"] + seq * fi["scouts"])
    c = dict(c, s_wait=c["s_wait"] + jnp.where(on, wait, 0))  # slots since it was sent
    return insert_ack(x, c, arr, f, SCOUT_BIT, 0, seq, t, on)
