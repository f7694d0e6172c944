"""[DWTCP]'s dynamics claims (§1, §5.2 Fig. 7, §5.4 Fig. 9, App. B Figs. 15-17) as claims of the figure
``dwtcp_claims``: the runs of :mod:`.checks_dynamics` (data under the key ``"dynamics"``), one claim per statement
with its verdict, and the figure's dynamics panels.

The convergence time and the Jain index over time are defined once, in :mod:`.checks_dynamics`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim
from .checks_dynamics import (
    HOLD_RTTS,
    TOL,
    WINDOW_RTTS,
    alpha_beta_table,
    capacity_table,
    join_leave_table,
    long_haul_table,
    senders_table,
)

__all__ = ["DYNAMICS_SETTINGS", "DYNAMICS_CLAIMS", "build_dynamics", "dynamics_summary", "plot_dynamics"]

#: The settings of the dynamics runs (recorded with the data).
DYNAMICS_SETTINGS: dict[str, Any] = {
    "join_leave_step_s": 1.0,
    "join_leave_seeds": (0, 1, 2),
    "fig9_join_s": 0.5,
    "fig9_duration_s": 1.5,
    "fig9_betas": (1e-4, 1e-3, 1e-2, 1e-1),
    "fig9_static_alpha": 10.0,
    "fig9_seeds": (0, 1),
    "senders": (10, 20, 30),
    "senders_duration_s": 0.1,
    "senders_seeds": (0, 1),
    "capacity_seeds": (0,),
    "long_haul_duration_s": 2.0,
    "long_haul_seeds": (0, 1),
    "tol": TOL,
    "window_rtts": WINDOW_RTTS,
    "hold_rtts": HOLD_RTTS,
}


def build_dynamics() -> dict[str, Any]:
    """Every dynamics run at :data:`DYNAMICS_SETTINGS`."""
    s = DYNAMICS_SETTINGS
    dyn = {
        "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in s.items()},
        "join_leave": join_leave_table(step=s["join_leave_step_s"], seeds=s["join_leave_seeds"]),
        "fig9": alpha_beta_table(
            join=s["fig9_join_s"],
            duration=s["fig9_duration_s"],
            betas=s["fig9_betas"],
            static_alpha=s["fig9_static_alpha"],
            seeds=s["fig9_seeds"],
        ),  # fmt: skip
        "senders": senders_table(s["senders"], duration=s["senders_duration_s"], seeds=s["senders_seeds"]),
        "capacity": capacity_table(seeds=s["capacity_seeds"]),
        "long_haul": long_haul_table(duration=s["long_haul_duration_s"], seeds=s["long_haul_seeds"]),
    }
    return dyn | {"summary": dynamics_summary({"dynamics": dyn})}


def dynamics_summary(d: dict[str, Any]) -> dict[str, Any]:
    """The numbers the claims table shows, over seeds: per law, Fig. 7's median convergence time after joins and
    after leaves (ms, None: the median event never converged), the leaves never converged, mean Jain index,
    utilization and queue; Fig. 15's mean queue and Jain per law and N; Fig. 9's utilization and Jain per case;
    Fig. 17's times to 90 % utilization (s, per seed)."""
    laws = ("newreno", "dctcp", "dwtcp")

    def med(law: str, kind: str) -> float | None:
        v = float(np.median(_events(d, law, kind)))
        return v * 1e3 if np.isfinite(v) else None

    dyn = d["dynamics"]
    f9 = {f"{m}-{b:g}": {k: float(np.mean(_f9(d, m, b, k))) for k in ("utilization", "jain_mean", "queue_mean")}
          for m, b in [("static", 1e-3)] + [("dynamic", b) for b in dyn["settings"]["fig9_betas"]]}  # fmt: skip
    return {
        "fig7": {
            law: {
                "join_ms": med(law, "join"),
                "leave_ms": med(law, "leave"),
                "leaves_never": sum(not np.isfinite(v) for v in _events(d, law, "leave")),
                "leaves": len(_events(d, law, "leave")),
            }
            | {k: float(np.mean(_jl(d, law, k))) for k in ("jain_mean", "utilization", "queue_mean")}
            for law in laws
        },  # fmt: skip
        "fig15": {
            f"{law}-{n}": {
                k: float(np.mean([r[k] for r in dyn["senders"] if r["law"] == law and r["flows"] == n]))
                for k in ("queue_mean", "jain_mean", "utilization", "drops")
            }
            for law in laws
            for n in dyn["settings"]["senders"]
        },  # fmt: skip
        "fig9": f9,
        "fig17": {law: [r["time_to_util_s"] for r in dyn["long_haul"] if r["law"] == law] for law in laws},
    }


def _events(d: dict[str, Any], law: str, kind: str) -> list[float]:
    """Convergence times (s) of every ``kind`` event of Fig. 7 that leaves ≥ 2 flows (inf: not before the next
    event), over seeds."""
    return [
        np.inf if e["convergence_s"] is None else e["convergence_s"]
        for r in d["dynamics"]["join_leave"][law]
        for e in r["events"]
        if e["kind"] == kind and e["flows_after"] >= 2
    ]


def _ms(v: float) -> str:
    return "never" if not np.isfinite(v) else f"{v * 1e3:.1f}"


def _jl(d: dict[str, Any], law: str, key: str) -> list[float]:
    return [r[key] for r in d["dynamics"]["join_leave"][law]]


def _c_converge(d: dict[str, Any]) -> tuple[bool, str]:
    j = {law: float(np.median(_events(d, law, "join"))) for law in ("newreno", "dctcp", "dwtcp")}
    lv = {law: float(np.median(_events(d, law, "leave"))) for law in ("newreno", "dctcp", "dwtcp")}
    never = {law: sum(not np.isfinite(v) for v in _events(d, law, "leave")) for law in ("dctcp", "dwtcp")}
    fin = [
        v
        for law in ("dctcp", "dwtcp")
        for k in ("join", "leave")
        for v in _events(d, law, k)
        if np.isfinite(v)
    ]
    step = d["dynamics"]["settings"]["join_leave_step_s"]
    ok = j["dctcp"] >= 2 * j["dwtcp"] and never["dwtcp"] > never["dctcp"] and max(fin) < step / 10
    return ok, (
        "median time to within 10 % of the fair share after a join (≥ 2 flows): "
        + ", ".join(f"{k} {_ms(v)} ms" for k, v in j.items())
        + f" (DCTCP/DWTCP {j['dctcp'] / j['dwtcp']:.1f}×); after a leave: "
        + ", ".join(f"{k} {_ms(v)} ms" for k, v in lv.items())
        + f"; leaves never converged: DCTCP {never['dctcp']}, DWTCP {never['dwtcp']} of {len(_events(d, 'dwtcp', 'leave'))}"
    )


def _c_fair(d: dict[str, Any]) -> tuple[bool, str]:
    jm = {law: float(np.mean(_jl(d, law, "jain_mean"))) for law in ("newreno", "dctcp", "dwtcp")}
    sen = [r["jain_mean"] for r in d["dynamics"]["senders"] if r["law"] == "dwtcp"]
    cap = [r["jain_mean"] for r in d["dynamics"]["capacity"] if r["law"] == "dwtcp"]
    ok = jm["dwtcp"] < jm["dctcp"] and jm["dwtcp"] > jm["newreno"] and min(sen) > 0.98 and min(cap) > 0.97
    return ok, (
        "Fig. 7 mean Jain index over time: "
        + ", ".join(f"{k} {v:.3f}" for k, v in jm.items())
        + f"; Fig. 15 DWTCP {min(sen):.3f}-{max(sen):.3f}; Fig. 16 DWTCP per rate {min(cap):.3f}-{max(cap):.3f}"
    )


def _c_throughput(d: dict[str, Any]) -> tuple[bool, str]:
    u = {law: float(np.mean(_jl(d, law, "utilization"))) for law in ("newreno", "dctcp", "dwtcp")}
    red = 1 - u["dwtcp"] / u["dctcp"]
    f9 = [r["utilization"] for r in d["dynamics"]["fig9"] if r["alpha"] == "dynamic" and r["beta"] == 1e-3]
    sen = [r["utilization"] for r in d["dynamics"]["senders"] if r["law"] == "dwtcp"]
    ok = 0.03 < red < 0.05 and max(f9) < 0.97 and min(sen) > 0.99
    return ok, (
        f"Fig. 7 utilization: DCTCP {u['dctcp']:.2%}, NewReno {u['newreno']:.2%}, DWTCP {u['dwtcp']:.2%} "
        f"(−{red:.1%}); two flows (Fig. 9 setting, β = 0.001): {min(f9):.1%}-{max(f9):.1%}; "
        f"10-30 senders: {min(sen):.2%}-{max(sen):.2%}"
    )


def _c_queue(d: dict[str, Any]) -> tuple[bool, str]:
    q = {law: float(np.mean(_jl(d, law, "queue_mean"))) for law in ("newreno", "dctcp", "dwtcp")}
    sen = {(r["law"], r["flows"]): r for r in d["dynamics"]["senders"]}
    ns = d["dynamics"]["settings"]["senders"]

    def qs(law: str, n: int) -> float:
        return float(np.mean([r["queue_mean"] for (lw, m), r in sen.items() if lw == law and m == n]))

    drops = sum(r["drops"] for r in d["dynamics"]["senders"] if r["law"] == "dwtcp" and r["flows"] == max(ns))
    ok = q["dwtcp"] < 5 and q["dctcp"] > 40 and qs("dwtcp", max(ns)) > qs("dctcp", max(ns)) and drops > 0
    return ok, (
        "Fig. 7 mean queue (packets): "
        + ", ".join(f"{k} {v:.1f}" for k, v in q.items())
        + "; Fig. 15 DWTCP "
        + ", ".join(f"N = {n}: {qs('dwtcp', n):.0f}" for n in ns)
        + f" (DCTCP {qs('dctcp', min(ns)):.0f}-{qs('dctcp', max(ns)):.0f}); DWTCP drops at N = {max(ns)}: {drops}"
    )


def _f9(d: dict[str, Any], alpha: str, beta: float, key: str) -> list[float]:
    return [r[key] for r in d["dynamics"]["fig9"] if r["alpha"] == alpha and r["beta"] == beta]


def _c_beta(d: dict[str, Any]) -> tuple[bool, str]:
    betas = d["dynamics"]["settings"]["fig9_betas"]
    u = {b: float(np.mean(_f9(d, "dynamic", b, "utilization"))) for b in betas}
    ok = max(u.values()) - min(u.values()) > 0.1 and u[1e-4] > u[1e-3]
    return ok, "two DWTCP flows, utilization after the join: " + ", ".join(
        f"β = {b:g}: {v:.1%}" for b, v in u.items()
    )


def _c_alpha(d: dict[str, Any]) -> tuple[bool, str]:
    a = d["dynamics"]["settings"]["fig9_static_alpha"]
    ct = {m: _f9(d, m, 1e-3, "convergence_s") for m in ("dynamic", "static")}
    done = {m: sum(v is not None for v in ct[m]) for m in ct}
    jm = {m: float(np.mean(_f9(d, m, 1e-3, "jain_mean"))) for m in ("dynamic", "static")}
    ok = done["dynamic"] < done["static"] == len(ct["static"]) and jm["dynamic"] < jm["static"]

    def ms(v: list[float | None]) -> str:
        return " / ".join("never" if x is None else f"{x * 1e3:.1f}" for x in v)

    return ok, (
        f"convergence after the join (per seed): dynamic α {ms(ct['dynamic'])} ms, static α = {a:g} "
        f"{ms(ct['static'])} ms; mean Jain after it: dynamic {jm['dynamic']:.3f}, static {jm['static']:.3f}"
    )


def _c_capacity(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["dynamics"]["capacity"]
    dw = [r for r in rows if r["law"] == "dwtcp"]
    dc = [r for r in rows if r["law"] == "dctcp"]
    ok = min(r["utilization"] for r in dw) > 0.97 and max(r["queue_max_chunk"] for r in dw) < 20
    ok = ok and min(r["jain_mean"] for r in dw) > min(r["jain_mean"] for r in dc)
    return ok, (
        "DWTCP per rate (0.4, 0.7, 1, 10, 0.8 Gbps): utilization "
        + ", ".join(f"{r['utilization']:.1%}" for r in dw)
        + f"; largest queue {max(r['queue_max_chunk'] for r in dw):.0f} packets (DCTCP "
        f"{max(r['queue_max_chunk'] for r in dc):.0f}); Jain {min(r['jain_mean'] for r in dw):.3f}-"
        f"{max(r['jain_mean'] for r in dw):.3f} (DCTCP {min(r['jain_mean'] for r in dc):.3f}-"
        f"{max(r['jain_mean'] for r in dc):.3f})"
    )


def _c_long_haul(d: dict[str, Any]) -> tuple[bool, str]:
    rows = d["dynamics"]["long_haul"]

    def by(law: str, key: str) -> list[float]:
        return [np.inf if r[key] is None else r[key] for r in rows if r["law"] == law]

    t = {law: by(law, "time_to_util_s") for law in ("newreno", "dctcp", "dwtcp")}
    ok = max(t["dwtcp"]) * 10 > min(t["dctcp"]) and max(t["dwtcp"]) > min(t["newreno"])
    ok = ok and not np.isfinite(by("dwtcp", "convergence_s")).any()
    u = by("dwtcp", "utilization")
    return ok, (
        "time to 90 % utilization (s): "
        + "; ".join(f"{k} " + ", ".join(f"{v:.2f}" for v in vs) for k, vs in t.items())
        + "; DWTCP fair-share convergence within 2 s: none; DWTCP utilization (last second) "
        + ", ".join(f"{v:.1%}" for v in u)
    )


#: The dynamics claims of ``dwtcp_claims``, each with its verdict.
DYNAMICS_CLAIMS: tuple[Claim, ...] = (
    Claim(
        "'DWTCP improves convergence time by 2×' (§1, §5.2 Fig. 7: 5 flows join, then leave, 1 s apart; 10 Gbps, "
        "100 µs, 250 packets; seeds 0-2): DEPENDS — REPRODUCED after joins (DWTCP reaches 10 % of the fair share "
        "≥ 2× sooner than DCTCP), REFUTED after leaves (DCTCP re-converges within ~1 ms; DWTCP's two remaining flows "
        "never come within 10 % of their share)",
        _c_converge,
    ),
    Claim(
        "'near-perfect fairness … compared to TCP and DCTCP' (§1, §5.2 Fig. 7b): REFUTED against DCTCP in Fig. 7 "
        "(DWTCP's Jain index over time below DCTCP's, above NewReno's); near 1 (> 0.98) with 10-30 senders "
        "(Fig. 15) and through the capacity schedule (Fig. 16, > 0.97)",
        _c_fair,
    ),
    Claim(
        "'throughput comparable … (1-3 % reduction)' (§2): DEPENDS — 3-5 % below DCTCP in Fig. 7 and below 97 % "
        "with two flows; full with 10-30 senders",
        _c_throughput,
    ),
    Claim(
        "'near-zero queues' (§1, §5.2 Fig. 7a) and 'maintains small queues' with 10-30 senders (App. B Fig. 15b): "
        "DEPENDS on N — REPRODUCED in Fig. 7 (< 5 packets vs DCTCP's ~K = 65), REFUTED at 30 senders (DWTCP's mean "
        "queue above DCTCP's, with drops)",
        _c_queue,
    ),
    Claim(
        "'DWTCP is not sensitive to parameter settings' (§1) against §5.4 Fig. 9c (two flows, the second at 0.5 s; "
        "β = 1e-4-0.1): REFUTED — utilization spans more than 10 points over β, and β = 1e-4 beats the recommended "
        "1e-3",
        _c_beta,
    ),
    Claim(
        "'dynamic α helps converge faster and improves fairness compared to a static α' (§5.4 Fig. 9a, static α = "
        "10): REFUTED — after the second flow's join dynamic α converges on fewer seeds than static α (which "
        "converges on every seed), and static α is fairer",
        _c_alpha,
    ),
    Claim(
        "'adapts to bandwidth increases and decreases very quickly without any queue buildups or sacrificing "
        "fairness' (App. B Fig. 16: 5 flows, 0.4, 0.7, 1, 10, 0.8 Gbps every 0.1 s): REPRODUCED — utilization "
        "> 97 % at every rate, queue < 20 packets, Jain above DCTCP's",
        _c_capacity,
    ),
    Claim(
        "'orders of magnitude faster convergence' on a 1 Gbps, 6 ms long-haul link (App. B Fig. 17: 5 flows, "
        "TCP ~1 s, DCTCP ~0.4 s): REFUTED — DWTCP reaches 90 % utilization less than 10× sooner than DCTCP and "
        "not before NewReno in every seed; its flows never reach the fair share within 2 s",
        _c_long_haul,
    ),
)


def plot_dynamics(ax: Any, data: dict[str, Any]) -> None:
    """Two panels: Fig. 7 convergence times per event and law; Fig. 15-17 summaries (Jain and utilization)."""
    a = ax[0]
    for k, (law, mk) in enumerate((("newreno", "s"), ("dctcp", "^"), ("dwtcp", "o"))):
        for kind, fill in (("join", None), ("leave", "none")):
            v = np.asarray(_events(data, law, kind), float)
            shown = np.where(np.isfinite(v), v, 1.0)  # never: drawn at the 1 s phase length
            x = k + (0.15 if kind == "leave" else -0.15) + np.linspace(-0.05, 0.05, len(v))
            a.semilogy(x, shown * 1e3, mk, color=f"C{k}", mfc=fill, label=f"{law} {kind}")
    a.set_xticks([0, 1, 2], ["NewReno", "DCTCP", "DWTCP"])
    a.set_ylabel("time to within 10 % of fair share (ms)")
    a.set_title("join/leave, 2-5 flows (Fig. 7); 1,000 ms = never")
    a.legend(fontsize=6, ncol=2)
    a = ax[1]
    betas = data["dynamics"]["settings"]["fig9_betas"]
    u = [float(np.mean(_f9(data, "dynamic", b, "utilization"))) for b in betas]
    jn = [float(np.mean(_f9(data, "dynamic", b, "jain_mean"))) for b in betas]
    a.semilogx(betas, u, "o-", label="utilization")
    a.semilogx(betas, jn, "s--", label="Jain index")
    a.axhline(
        float(np.mean(_f9(data, "static", 1e-3, "jain_mean"))), color="C2", ls=":", label="Jain, static α"
    )
    a.set_xlabel("β")
    a.set_title("two DWTCP flows, β sensitivity (Fig. 9)")
    a.legend(fontsize=7)
