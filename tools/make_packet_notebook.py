"""Writes notebooks/packet_vs_fluid.ipynb (outputs stripped): packet core vs the paper's DCTCP fluid model and the
ACK-clocked one."""

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb["cells"] = [
    md(r"""# DCTCP: packet core vs fluid model — which one is wrong?

The cross-check (`dw.PACKET_TOLERANCES`) asks that, for DCTCP at C = 10 Gbps, d = 100 µs, K = 65, g = 1/16 and N = 2, 10 long flows, the packet
core's queue period be within 15 % and its mean queue within 10 packets of the fluid model. Against the paper's
model (5)-(8) of [DCTCP-A] the mean queue agrees but the packet period is only ≈ 0.65× the
fluid one.

The suspect is the queue equation (7). It can be rewritten exactly as a first-order lag:

$$\frac{dq}{dt} = N\frac{W}{R} - C = \frac{N W - C d - q}{R},\qquad R = d + q/C,$$

so (7) relaxes toward $N W - C d$ — the packets the windows hold beyond what the pipe carries — with a time
constant of one RTT. ACK-clocked senders keep exactly $W$ packets in flight: while the link is busy their queue
*is* $N W - C d$, with no lag. The **ACK-clocked model** (`DctcpWindowFluid`) keeps the paper's source
equations (5), (6) and sets $q = \max(N W - C d, 0)$; `DctcpLagFluid(λ)` interpolates,
$dq/dt = (N W - C d - q)/(λ R)$, with λ = 1 the paper's model.

`QUICK` (set by the test suite) shortens the runs and the condition sweep; the numbers quoted in the prose come
from the full run."""),
    code("""%matplotlib inline
import os

import numpy as np
import pandas as pd
import sympy as sp

import dwtcp_fluid as dw

QUICK = os.environ.get("DWTCP_FLUID_QUICK", "0") == "1"
DURATION = 0.03 if QUICK else 0.1  # s of simulated time; the last half is compared
print(dw.PACKET_TOLERANCES)"""),
    md(
        "## (7) is a one-RTT lag toward N·W − C·d\n\nChecked symbolically on the model definitions themselves."
    ),
    code("""paper, window = dw.DctcpFluid(), dw.DctcpWindowFluid()
(W, alpha, q), ps = paper.symbols()
C, d, N = ps["C"], ps["d"], ps["N"]
dq_paper = paper.sym_rhs(1)[2]
R = d + q / C
print("(7) − (N·W − C·d − q)/R =", sp.simplify(dq_paper - (N * W - C * d - q) / R))
lag1 = dw.DctcpLagFluid(1.0).sym_rhs(1)
print("DctcpLagFluid(1) == DctcpFluid:", sp.simplify(lag1 - paper.sym_rhs(1)) == sp.zeros(3, 1))
display(window.sym_rhs(1))"""),
    md("""## Three sources at the issue's setting

Packet core (Linux DCTCP: α and the cut once per window of data), the paper's fluid model, the ACK-clocked fluid
model. The packet period is the autocorrelation peak of the queue; a fluid period is the spacing of its upward
crossings of K (`period_autocorr_s` applies the packet estimator to the fluid traces as a check)."""),
    code("""QUANTITIES = ("queue_mean", "queue_min", "queue_max", "period_s", "period_autocorr_s", "window_mean", "alpha_mean")
data = {n: dw.compare_dctcp(n, duration=DURATION) for n in (2, 10, 100)}
rows = []
for n, c in data.items():
    for k in QUANTITIES:
        rows.append({"N": n, "quantity": k, **{m: c[m].get(k) for m in ("packet", "fluid", "fluid_window")}})
table = pd.DataFrame(rows).set_index(["N", "quantity"])
display(table.style.format("{:.4g}", na_rep="—"))
for n, c in data.items():
    for against in ("fluid_window", "fluid"):
        print(dw.within_tolerance(c, against))"""),
    code("""fig = dw.plot_packet_vs_fluid(data)"""),
    md("""## Only the lag: the family between the two models

Same source equations, same feedback delay R*; only the queue's time constant λ·R changes. The period moves from
the paper's (λ = 1) to the ACK-clocked one (λ → 0, first order in λ); α and the mean queue do not move."""),
    code("""P10 = dw.DCTCP_ANALYSIS.replace(flows=10)
span = (0.0, DURATION)
rows = []
for lag in (1.0, 0.1) if QUICK else (1.0, 0.5, 0.25, 0.1, 0.03, 0.01):
    s = dw.solve(dw.DctcpLagFluid(lag), P10, [1.0, 0.0, 0.0], span).summary()
    rows.append({"lag λ": lag, **{k: s[k] for k in ("period_s", "alpha_mean", "queue_mean", "amplitude")}})
s = dw.solve(dw.DctcpWindowFluid(), P10, [1.0, 0.0], span).summary()
rows.append({"lag λ": 0.0, **{k: s[k] for k in ("period_s", "alpha_mean", "queue_mean", "amplitude")}})
lag_table = pd.DataFrame(rows).set_index("lag λ")
lag_table["period / packet"] = lag_table["period_s"] / data[10]["packet"]["period_s"]
display(lag_table)"""),
    md("""## Not a coincidence: other conditions, and the window law

g = 1/16 and g = 0.4 (Fig. 3 of 001), d = 100 µs and 300 µs (K = 65 kept), and two window laws: Linux DCTCP
(cut on the first mark of a window) and the per-ACK decrease (36), W ← W + 1/W − α/2 on each marked ACK, whose
mean decrease is exactly the fluid term W·α/(2R)·p. Ratios are packet / model."""),
    code("""if QUICK:
    settings = [("300us", 1 / 16, 10, law) for law in ("dctcp", "dctcp-per-ack")]
else:
    settings = [
        (d, g, n, law)
        for law in ("dctcp", "dctcp-per-ack")
        for d in ("100us", "300us")
        for g in (1 / 16, 0.4)
        for n in (2, 10, 100)
    ]
rows = []
for d, g, n, law in settings:
    P = dw.DCTCP_ANALYSIS.replace(link=dw.LinkParams(rtt=d), g=g)
    dur = DURATION * (2 if d == "300us" else 1)
    c = dw.compare_dctcp(n, params=P, duration=dur, law=law)
    if c["fixed_point_queue"] is not None:
        continue  # w̄ ≤ 2: a fixed point, no period (checked above)
    rows.append({
        "law": law, "d": d, "g": round(g, 4), "N": n, "w̄": round(c["wbar"], 1),
        "T packet (ms)": 1e3 * c["packet"]["period_s"],
        "T/T (7)": c["ratio"]["period_s"], "T/T ack-clocked": c["ratio_window"]["period_s"],
        "α/α (7)": c["ratio"]["alpha_mean"], "α/α ack-clocked": c["ratio_window"]["alpha_mean"],
        "Δq (7)": c["diff"]["queue_mean"], "Δq ack-clocked": c["diff_window"]["queue_mean"],
        "g·sqrt(Cd+K)": g * np.sqrt(P.link.bdp + P.K),
    })
cond = pd.DataFrame(rows)
display(cond.style.format(precision=2))"""),
    md(r"""## Finding

Numbers from the full run (seed 0; 100 ms at d = 100 µs, 200 ms at 300 µs).

* **The paper's queue equation (7) is what is off.** At the issue's setting the packet period is 0.68× (N = 2)
  and 0.63× (N = 10) the period of (5)-(8), but 1.10× and 1.12× the ACK-clocked model's; the mean queue is within
  1.3 and 3.6 packets of the ACK-clocked model. The issue's tolerances (15 %, 10 packets) hold against the
  ACK-clocked model and are now stated and tested against it; N = 100 (w̄ ≤ 2) rests at 2N − C·d = 116.7 in all
  three.
* **The lag alone does it.** Shrinking the queue's time constant from one RTT (λ = 1) to zero moves the N = 10
  period from 1.35 ms to 0.76 ms with α (0.373 → 0.371) and the mean queue unchanged.
* **It scales and it is not a coincidence.** With the per-ACK law (36), whose mean decrease is the fluid term, the
  packet period is 0.91–1.10× the ACK-clocked model's and 0.54–0.66× the paper's in 9 of the 10 oscillating
  settings (both g, both d, N = 2, 10, 100), with α 0.91–1.17× and the mean queue within 1.8 packets of the
  ACK-clocked model (the paper's model: up to 21 packets off). The one exception, g = 0.4 at d = 300 µs with
  N = 2, has g ≈ 7× the paper's own bound (18), g ≲ 1/sqrt(C·d + K): α jumps by up to g once per window, the
  cycles alternate deep and shallow, and neither model follows it.
* **What remains is the window law.** Linux DCTCP cuts on the first marked ACK of a window, so a marking episode
  shorter than a window still costs a full W·α/2: its α is 0.74–0.77× the fluid α at g = 1/16 (both models share
  the source equations (5), (6), so both miss it equally; 0.59× at w̄ = 3.1, where W ≈ 3.6 packets and the queue
  empties) and its period is ≈ 10 % longer than the ACK-clocked
  model's (1.21× at d = 300 µs, N = 10 — beyond 15 %; at g = 0.4 irregular cycles, 1.4–2.1×). The stated
  tolerances cover the issue's setting, not α and not g beyond (18).
* **Not the cause:** the marking rule (“> K” instead of “≥ K”: +1 % period), the seed (N = 10, four seeds:
  1.116–1.129×), the period estimator (on the fluid traces the autocorrelation estimator reproduces the crossing
  periods within 0.4 %)."""),
]
nb["metadata"] = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}
nbf.write(nb, "notebooks/packet_vs_fluid.ipynb")
