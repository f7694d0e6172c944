"""[DWTCP]'s at-scale claims (§1, §5.3, Figs. 8 and 14) for the figure ``dwtcp_claims``: flow completion times
on the leaf-spine fabric of :mod:`.checks_fabric`, DWTCP vs DCTCP, with Scouts through every hop.

:func:`build_fabric` runs :func:`.checks_fabric.fabric_table` at the settings of :data:`.figures_claims.SETTINGS`
(keys ``fabric_*``) and pools the seeds; :data:`FABRIC_CLAIMS` judge the paper's statements, each with its
verdict (:func:`.report_overhead.record_fabric` records them); :func:`plot_fabric` draws the figure's panel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...experiments.figure import Claim
from .checks_fabric import FABRIC, FABRIC_LAWS, SIZE_BINS, fabric_table, slowdown_stats

__all__ = ["build_fabric", "FABRIC_CLAIMS", "plot_fabric", "load_key"]


def load_key(load: float) -> str:
    """The key of a load in the recorded summary: its percentage ("20" for 0.2)."""
    return f"{round(load * 100):d}"


def build_fabric(s: dict[str, Any]) -> dict[str, Any]:
    """Every fabric run at ``s`` (the ``fabric_*`` settings), per workload: ``runs`` (one row per load, seed and
    law, without the per-flow slowdowns), ``summary[law][load]`` (the seeds pooled: :func:`~.checks_fabric.
    slowdown_stats` of every measured flow, the per-seed means and p99 as ``seed_mean`` / ``seed_p99``, and
    the means of the queues and Scout counters over the seeds) and ``ratio[load]`` (DCTCP's pooled statistic over
    DWTCP's: above 1 where DWTCP is better); ``wall_s`` the wall time of the runs."""
    import time

    t0 = time.perf_counter()
    out: dict[str, Any] = {"fabric": {k: v for k, v in vars(FABRIC).items()}}
    for cdf in s["fabric_cdfs"]:
        rows = fabric_table(
            s["fabric_loads"],
            seeds=s["fabric_seeds"],
            cdf=cdf,
            arrivals=s["fabric_arrivals_s"],
            duration=s["fabric_duration_s"],
            warmup=s["fabric_warmup_s"],
        )
        summary: dict[str, dict[str, Any]] = {law: {} for law in FABRIC_LAWS}
        for law in FABRIC_LAWS:
            for load in s["fabric_loads"]:
                rs = [r for r in rows if r["law"] == law and r["load"] == load]
                sl = np.concatenate([np.asarray(r["slowdowns"], float) for r in rs])
                nb = np.concatenate([np.asarray(r["bytes"], float) for r in rs])
                m = slowdown_stats(sl, nb)
                m |= {
                    "seed_mean": [r["slowdown"]["mean"] for r in rs],
                    "seed_p99": [r["slowdown"]["p99"] for r in rs],
                }
                for k in ("queue_nic", "queue_core", "queue_host", "queue_port_max", "queue_delay_host_us"):
                    m[k] = float(np.mean([r[k] for r in rs]))
                for k in ("unfinished", "drops", "timeouts", "spill", "timers_lost", "measured"):
                    m[k] = int(sum(r[k] for r in rs))
                sent = sum(r["scouts_sent"] for r in rs)
                m["scout_drop_fraction"] = sum(r["scouts_dropped"] for r in rs) / sent if sent else 0.0
                m["scout_bytes_sent"] = sent * 64.0 / max(1.0, 1500.0 * sum(r["data_packets"] for r in rs))
                summary[law][load_key(load)] = m
        ratio = {}
        for load in s["fabric_loads"]:
            a, b = summary["dctcp"][load_key(load)], summary["dwtcp"][load_key(load)]
            ratio[load_key(load)] = {
                "mean": a["mean"] / b["mean"],
                "p99": a["p99"] / b["p99"],
                **{f"{k}_{q}": a[k][q] / b[k][q] for k in SIZE_BINS for q in ("mean", "p99")},
            }
        for r in rows:
            r.pop("slowdowns")
            r.pop("bytes")
        out[cdf] = {"runs": rows, "summary": summary, "ratio": ratio}
    out["wall_s"] = time.perf_counter() - t0  # the campaign's cost on the recording machine
    return out


def _ws(d: dict[str, Any]) -> dict[str, Any]:
    return d["fabric"]["websearch"]


#: The runs are sound when no timer was lost, at most this fraction of the ACKs was deferred by a slot (the event
#: engine's per-slot ACK lanes) and at most :data:`UNFINISHED` of the measured flows were still running at the end.
SPILL = 1e-5
UNFINISHED = 0.01


def _clean(d: dict[str, Any]) -> tuple[bool, str]:
    rows = [r for cdf in d["settings"]["fabric_cdfs"] for r in d["fabric"][cdf]["runs"]]
    bad = [(r["cdf"], r["law"], r["load"], r["seed"]) for r in rows
           if r["timers_lost"] or r["spill"] > SPILL * r["data_packets"]]  # fmt: skip
    unf = max(r["unfinished"] / max(r["measured"], 1) for r in rows)
    spill = sum(r["spill"] for r in rows) / sum(r["data_packets"] for r in rows)
    ok = not bad and unf <= UNFINISHED
    return ok, (
        f"runs with lost timers or deferred ACKs above {SPILL:g}: {bad or 'none'}; deferred ACKs {spill:.1e} of "
        f"the data packets; at most {unf:.1%} of a run's measured flows unfinished (allowed {UNFINISHED:.0%}); "
        f"{len(rows)} runs"
    )


def _ratios(d: dict[str, Any], key: str, cdf: str = "websearch") -> dict[str, float]:
    return {k: v[key] for k, v in d["fabric"][cdf]["ratio"].items()}


def _fmt(r: dict[str, float]) -> str:
    return ", ".join(f"{k} %: {v:.2f}×" for k, v in r.items())


#: A paper's ratio is reproduced when the measured ratio (the seeds pooled) is within this factor of it, refuted
#: when it stays below the paper's by more (and DWTCP is better, ratio > 1): a decision margin for pooled
#: statistics of 180-2,000 flows per load (docs/dwtcp-claims.md; the per-seed ratios are recorded).
MARGIN = 1.2


def _c_web_overall(d: dict[str, Any]) -> tuple[bool, str]:
    m, t = _ratios(d, "mean"), _ratios(d, "p99")
    ok = min(m.values()) > 1 and min(t.values()) > 1
    ok = ok and max(m.values()) < 2.0 / MARGIN and max(t.values()) < 3.5 / MARGIN
    return (
        ok,
        f"DCTCP/DWTCP mean slowdown {_fmt(m)}; p99 {_fmt(t)} (refuted below 2/{MARGIN:g} and 3.5/{MARGIN:g})",
    )


def _c_web_bins(d: dict[str, Any]) -> tuple[bool, str]:
    r = {b: _ratios(d, f"{b}_p99") for b in SIZE_BINS}
    paper = {"small": 8.0, "medium": 3.5, "large": 3.5}
    ok = all(max(r[b].values()) < paper[b] / MARGIN for b in SIZE_BINS)
    s = list(r["small"].values())
    ok = ok and s[-1] > s[0]  # the small flows' tail gain grows with load
    return ok, "; ".join(f"{b} p99 ratio {_fmt(r[b])} (paper {paper[b]:g}×)" for b in SIZE_BINS)


#: A near-zero queue: a port's mean queue (over the arrivals after the warm-up) below one packet, the port empty
#: most of the time.
NEAR_ZERO = 1.0


def _c_queues(d: dict[str, Any]) -> tuple[bool, str]:
    top = load_key(d["settings"]["fabric_loads"][-1])
    q = {c: {law: d["fabric"][c]["summary"][law][top] for law in FABRIC_LAWS} for c in _CDFS}
    ws, dm = q["websearch"], q["datamining"]
    ok = dm["dwtcp"]["queue_host"] < NEAR_ZERO <= ws["dwtcp"]["queue_host"]
    ok = ok and all(q[c]["dwtcp"]["queue_host"] < 0.5 * q[c]["dctcp"]["queue_host"] for c in _CDFS)
    return ok, (
        f"at {top} %, mean host-port queue (packets) DWTCP vs DCTCP: web search {ws['dwtcp']['queue_host']:.2f} vs "
        f"{ws['dctcp']['queue_host']:.2f} (NIC {ws['dwtcp']['queue_nic']:.2f} vs {ws['dctcp']['queue_nic']:.2f}, "
        f"busiest port {ws['dwtcp']['queue_port_max']:.1f} vs {ws['dctcp']['queue_port_max']:.1f}); data mining "
        f"{dm['dwtcp']['queue_host']:.2f} vs {dm['dctcp']['queue_host']:.2f} (near zero: below {NEAR_ZERO:g} packet)"
    )


def _c_overhead(d: dict[str, Any]) -> tuple[bool, str]:
    ov = {c: {k: v["scout_bytes_sent"] for k, v in d["fabric"][c]["summary"]["dwtcp"].items()} for c in _CDFS}
    lost = {k: v["scout_drop_fraction"] for k, v in _ws(d)["summary"]["dwtcp"].items()}
    w = list(ov["websearch"].values())
    ok = max(w[:-1]) < 0.002 < w[-1] and max(ov["datamining"].values()) < 0.002
    return ok, (
        "Scout bytes sent / data bytes, web search: "
        + ", ".join(f"{k} %: {v:.3%}" for k, v in ov["websearch"].items())
        + "; data mining: "
        + ", ".join(f"{k} %: {v:.3%}" for k, v in ov["datamining"].items())
        + "; web search's Scouts dropped at an LPQ: "
        + ", ".join(f"{k} %: {v:.0%}" for k, v in lost.items())
    )


_CDFS = ("websearch", "datamining")


def _c_dm_overall(d: dict[str, Any]) -> tuple[bool, str]:
    m, t = _ratios(d, "mean", "datamining"), _ratios(d, "p99", "datamining")
    ok = 1 < min(m.values()) and max(m.values()) < 1.5 / MARGIN
    ok = ok and 3.0 / MARGIN <= max(t.values()) <= 3.0 * MARGIN
    return ok, f"data mining, DCTCP/DWTCP mean slowdown {_fmt(m)}; p99 {_fmt(t)}"


def _c_dm_bins(d: dict[str, Any]) -> tuple[bool, str]:
    r = {b: _ratios(d, f"{b}_p99", "datamining") for b in SIZE_BINS}
    loads = list(r["medium"])
    med = [r["medium"][k] for k in loads[1:]]
    runs = d["fabric"]["datamining"]["runs"] + _ws(d)["runs"]
    to = sum(x["timeouts"] for x in runs if x["law"] == "dctcp")
    ok = max(r["small"].values()) < 2.8 / MARGIN
    ok = ok and all(2.0 / MARGIN <= v <= 3.2 * MARGIN for v in med)
    ok = ok and to == 0 and max(r["large"].values()) < 10.0
    return ok, "; ".join(
        f"{b} p99 ratio {_fmt(r[b])}" for b in SIZE_BINS
    ) + f"; DCTCP timeouts in all runs: {to}"


FABRIC_CLAIMS: tuple[Claim, ...] = (
    Claim(
        "leaf-spine runs are sound: no timer lost, ACKs deferred by a slot at most 1e-5 of the data packets, at most "
        "1 % of a run's measured flows unfinished at its end (16 hosts, web search and data mining, loads 20-80 %, "
        "seeds 0-2)",
        _clean,
    ),
    Claim(
        "'DWTCP improves the mean slowdown by up to 2× and the tail (p99) by up to 3.5× over DCTCP' (web search; §1, "
        "§5.3, App. B Fig. 14): REFUTED on the 16-host leaf-spine (10/40 Gbps, 100 µs, 250 packets) — DWTCP is "
        "better at every load from 20 to 80 %, but by less than 2/1.2 at the mean and 3.5/1.2 at p99",
        _c_web_overall,
    ),
    Claim(
        "'tail slowdown better by 8× for small, 3.5× for medium and large flows' (web search, Fig. 14b-d): REFUTED "
        "in magnitude (every bin's p99 ratio below the paper's / 1.2); the small flows' tail gain grows with the "
        "load, as the paper's",
        _c_web_bins,
    ),
    Claim(
        "'DWTCP maintains near-zero queue lengths ... even at 80 % load' (§1; the leaf-spine at 80 %): DEPENDS on "
        "the workload — near zero (a mean host-port queue below one packet) with data mining, a few packets with web "
        "search; below half of DCTCP's with both",
        _c_queues,
    ),
    Claim(
        "'Scout incurs very little overhead (less than 0.2 % in our experiments)' (§1) with Scouts through every hop "
        "of the leaf-spine: DEPENDS on the load — Scout bytes sent below 0.2 % of the data bytes up to 60 % web-search "
        "load and at every data-mining load, above it at 80 % web search",
        _c_overhead,
    ),
    Claim(
        "'up to 1.5× at the mean and 3× at the tail over DCTCP' (data mining; §5 — '1x' in §1, '97 %' in §5.3, "
        "Fig. 8): mean REFUTED (DWTCP better at every load, by less than 1.5/1.2), tail REPRODUCED (the best "
        "load's p99 ratio within a factor 1.2 of 3×)",
        _c_dm_overall,
    ),
    Claim(
        "data-mining tails per size (§5.3, Fig. 8b-d): small flows' '1.5-2.8×' REFUTED (below 2.8/1.2 at every "
        "load); medium flows' '2-3.2×' REPRODUCED from 40 % load (within a factor 1.2 of the range); large flows' "
        "'3-100×, as it does not experience any timeouts' REFUTED — DCTCP has no timeout in any run and the ratio "
        "stays below 10×",
        _c_dm_bins,
    ),
)


def plot_fabric(ax: Any, data: dict[str, Any]) -> None:
    """Mean and p99 slowdown vs load, DWTCP and DCTCP, both workloads, seeds pooled (per-seed p99 as dots)."""
    loads = data["settings"]["fabric_loads"]
    x = [100 * v for v in loads]
    for cdf, mk in (("websearch", "o"), ("datamining", "^")):
        d = data["fabric"][cdf]["summary"]
        for law, c in (("dctcp", "C1"), ("dwtcp", "C0")):
            rows = [d[law][load_key(v)] for v in loads]
            ls = "-" if cdf == "websearch" else ":"
            ax.plot(
                x, [r["mean"] for r in rows], mk + ls, color=c, mfc="none", label=f"{law.upper()} {cdf} mean"
            )
            ax.plot(x, [r["p99"] for r in rows], mk + ls, color=c, label=f"{law.upper()} {cdf} p99")
            for xi, r in zip(x, rows, strict=True):
                ax.plot([xi] * len(r["seed_p99"]), r["seed_p99"], ".", color=c, alpha=0.4)
    ax.set_yscale("log")
    ax.set_xlabel("load (% of the 10 Gbps edge)")
    ax.set_ylabel("FCT slowdown (mean: open, p99: filled)")
    ax.legend(fontsize=6, ncol=2)
    ax.set_title(f"leaf-spine FCT, {FABRIC.n_hosts} hosts (§5.3, Figs. 8, 14)")
