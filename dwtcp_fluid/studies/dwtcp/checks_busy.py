"""The Scout-faithful DWTCP model against the packet core's DWTCP law, and the older fluid models beside it.

Settings: 10 Gbps, 1500-byte packets, β = 0.001 (byte convention), target K = 100, 64-byte Scouts, α₀ = 20, data
buffer 5000 packets (the issue's setting), RTT 100 µs and 1 ms, N = 2, 10, 50 (:data:`SETTINGS`).

Measurement window (both sides): the first :data:`WARMUP_RTTS` RTTs are excluded (slow start and the first
decreases), then :data:`WINDOW_RTTS` RTTs are measured — at least max(50 RTTs, 3 periods) for every cycle seen here
— or :data:`WINDOW_RTTS_AT` where the queue fluctuates irregularly. The packet run is classified, its period taken
and the model judged by the one definition the sweep and ``packet compare-fluid --law dwtcp`` use
(:mod:`dwtcp_fluid.judge.classes`: classes steady / oscillating / collapse / not_stationary / failed, only
the first two scored; :func:`~dwtcp_fluid.judge.classes.regular_period`;
:func:`~dwtcp_fluid.studies.dwtcp.checks.model_gaps` with its ``TOLERANCES``: mean queue within 10 packets
or 20 %, utilization within 0.02, and — in the cycle regime — period within 15 % where the packet period is
regular; in the standing-queue regime the packet queue must never empty, the regime's signature).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...params import DwtcpParams, LinkParams
from .analysis_busy import run_busy_model

__all__ = [
    "SETTINGS",
    "WARMUP_RTTS",
    "WINDOW_RTTS",
    "WINDOW_RTTS_AT",
    "measured_rtts",
    "PACKET_BUFFER",
    "setting",
    "packet_dwtcp",
    "model_dwtcp",
    "EXISTING_MODELS",
    "existing_dwtcp",
    "comparison_table",
    "CHECK",
]

#: (base RTT in s, N) of the cross-check.
SETTINGS: tuple[tuple[float, int], ...] = (
    (1e-4, 2),
    (1e-4, 10),
    (1e-4, 50),
    (1e-3, 2),
    (1e-3, 10),
    (1e-3, 50),
)
WARMUP_RTTS = 100
WINDOW_RTTS = 300
PACKET_BUFFER = 5000
#: Longer windows (RTTs) where the queue fluctuates irregularly on a 10-40 ms scale: at 1 ms, N = 10 a 300-RTT
#: window fails the stationarity test on two of three seeds, 1,500 RTTs pass it.
WINDOW_RTTS_AT = {(1e-3, 10): 1500}


def setting(rtt: float, flows: int) -> DwtcpParams:
    """DWTCP parameters of one cross-check setting (10 Gbps, β = 0.001 in bytes, K = 100, S = 64 B, α₀ = 20)."""
    return DwtcpParams(
        link=LinkParams("10Gbps", rtt), flows=flows, beta=0.001, k=100.0, scout_size=64.0, alpha0=20.0
    )


def measured_rtts(rtt: float, flows: int) -> int:
    """Measured RTTs at a setting: :data:`WINDOW_RTTS` unless :data:`WINDOW_RTTS_AT` names it."""
    return WINDOW_RTTS_AT.get((rtt, flows), WINDOW_RTTS)


def packet_dwtcp(
    runs: list[tuple[float, int]] | None = None,
    *,
    seed: int = 0,
    warmup_rtts: int = WARMUP_RTTS,
    window_rtts: int | None = None,
) -> list[dict[str, Any]]:
    """Run the packet core's DWTCP law at ``runs`` (default :data:`SETTINGS`) and classify the window.

    One definition: each setting goes through :func:`~dwtcp_fluid.studies.dwtcp.checks.packet_setting` (a
    point of the sweep's packet pass, as ``packet compare-fluid --law dwtcp`` runs it) with this cross-check's
    warm-up and window. Each result is that summary (queue_mean/min/max, amplitude, period_s — None unless the run
    oscillates —, utilization, window_mean, alpha_mean = the Scout α, ``class``, ``period_regular``,
    ``cycle_cv``, ``drops``, ``timeouts``, ``trend_flags``, ``scouts_served_per_rtt``) plus ``rtt`` and
    ``flows``. ``window_rtts`` None: per setting, :func:`measured_rtts`.
    """
    from .checks import packet_setting

    out = []
    for rtt, n in runs or SETTINGS:
        win = window_rtts or measured_rtts(rtt, n)
        pk = packet_setting(
            setting(rtt, n), buffer=PACKET_BUFFER, warmup_rtts=warmup_rtts, packet_rtts=win, seed=seed
        )
        out.append({"rtt": rtt, "flows": n, **pk["summary"]})
    return out


def model_dwtcp(
    runs: list[tuple[float, int]] | None = None, *, method: str = "reference"
) -> list[dict[str, Any]]:
    """:func:`~.checks_busy.run_busy_model` at each setting with the same warm-up and window as the packet runs."""
    return [
        run_busy_model(
            setting(rtt, n), warmup=WARMUP_RTTS * rtt, window=measured_rtts(rtt, n) * rtt, method=method
        )
        for rtt, n in (runs or SETTINGS)
    ]


def _existing() -> dict[str, Any]:
    from ...models.dwtcp import DwtcpFluid
    from ...models.dwtcp_scout import DwtcpScoutFluid

    out: dict[str, Any] = {}
    for variant in ("paper", "sqrt"):
        for d in (0.0, 1.0):
            tail = "" if d == 0 else " +1RTT"
            out[f"{variant}{tail}"] = DwtcpFluid(variant=variant, delay_rtts=d)
            out[f"{variant}-scout{tail}"] = DwtcpScoutFluid(variant=variant, delay_rtts=d)
    return out


#: The fluid models that read the Scout's delay as the queue's (k̄ = q, [DWTCP] eqs. (3)-(7)): the variants of
#: ``dwtcp-fluid dwtcp simulate`` (paper, sqrt, paper-scout, sqrt-scout), undelayed and with the one-RTT delay.
EXISTING_MODELS: dict[str, Any] = _existing()


def existing_dwtcp(
    runs: list[tuple[float, int]] | None = None, *, method: str = "reference"
) -> list[dict[str, dict[str, Any]]]:
    """Every model of :data:`EXISTING_MODELS` at each setting (history w = 1, q = 0, α = 1 as the CLI's), same
    warm-up and window as the packet runs; per setting ``{model name: summary}`` with the packet summary's keys."""
    from ...dde import solve

    out = []
    for rtt, n in runs or SETTINGS:
        P = setting(rtt, n)
        win = measured_rtts(rtt, n)
        frac = win / (WARMUP_RTTS + win)
        row = {}
        for name, m in EXISTING_MODELS.items():
            hist = [1.0, 0.0] + ([0.0] if len(m.states) == 3 else [])
            opts = {"exact_exits": True} if method == "jax" else {}
            sol = solve(m, P, hist, (0.0, (WARMUP_RTTS + win) * rtt), method=method, **opts)
            sm = sol.summary(last_fraction=frac).to_dict()
            if "log2_alpha" in m.states:
                i, warm = m.state_index("log2_alpha"), WARMUP_RTTS * rtt
                if sol.method == "reference":
                    la = sol(np.linspace(warm, (WARMUP_RTTS + win) * rtt, 5001))[:, i]
                else:
                    la = sol.x[0, sol.t >= warm, i]
                sm["alpha_mean"] = float(np.mean(2.0**la))
            else:
                sm["alpha_mean"] = 1.0  # (7) of the paper's model: α = 1
            row[name] = sm
        out.append(row)
    return out


#: Columns of :func:`comparison_table`.
TABLE_KEYS = ("queue_mean", "queue_min", "queue_max", "amplitude", "period_s", "utilization", "window_mean",
              "alpha_mean")  # fmt: skip


def comparison_table(
    packet: list[dict[str, Any]],
    model: list[dict[str, Any]],
    existing: list[dict[str, dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """One row per (setting, source): ``rtt_us``, ``flows``, ``source`` ("packet", "dwtcp-busy" or an existing
    model's name), the :data:`TABLE_KEYS`, and for the Scout-faithful model ``verdict`` and ``why``
    (:func:`~dwtcp_fluid.studies.dwtcp.checks.model_gaps`)."""
    from .checks import model_gaps

    rows = []
    for i, (pk, md) in enumerate(zip(packet, model, strict=True)):
        base = {"rtt_us": round(pk["rtt"] * 1e6), "flows": pk["flows"]}
        rows.append({**base, "source": "packet", "class": pk["class"], **{k: pk[k] for k in TABLE_KEYS}})
        v = model_gaps(pk, md)
        rows.append(
            {**base, "source": "dwtcp-busy", "verdict": v["verdict"], "why": v["why"],
             **{k: md[k] for k in TABLE_KEYS}}
        )  # fmt: skip
        for name, sm in (existing[i] if existing else {}).items():
            rows.append({**base, "source": name, **{k: sm.get(k) for k in TABLE_KEYS}})
    return rows


def _label(setting: tuple[float, int]) -> str:
    return f"τ = {setting[0] * 1e6:.0f} µs, N = {setting[1]}"


def _check() -> Any:
    """The Scout-faithful model's cross-check: the DWTCP check's judge (classes, tolerances, period rules) with this
    study's settings, warm-up and windows."""
    from ...judge import register_check
    from .checks import CHECK as DWTCP

    return register_check(
        DWTCP.replace(
            name="dwtcp-busy",
            claim="the Scout-faithful DWTCP model says what the packet law does (proofs/dwtcp_busy.md)",
            settings=SETTINGS,
            packet=lambda s, seed=0, **_: {"summary": packet_dwtcp([s], seed=seed)[0]},
            fluid=lambda settings, packets, method="reference", **_: [
                {"dwtcp-busy": m} for m in model_dwtcp(list(settings), method=method)
            ],
            laws=(),
            row=None,
            label=_label,
            settings_from=None,
            figure=None,
        )
    )


#: The Scout-faithful model's cross-check (:func:`~dwtcp_fluid.judge.run_check` runs it at :data:`SETTINGS`).
CHECK = _check()
