"""Writes notebooks/dwtcp_sweep.ipynb (outputs stripped)."""

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb = nbf.v4.new_notebook()
nb["cells"] = [
    md("""# Exploring a DWTCP sweep with xarray

`dwtcp-fluid sweep --beta 0.001` (what `make sweep` runs) writes `results/sweep-beta0.001.nc`. This notebook loads
it — or, in quick mode (`DWTCP_FLUID_QUICK=1`, used by the test suite) or when it is missing, runs a small sweep in
memory — and asks the questions the sweep exists for: does the condition k̄ < 2·BDP/√β ([DWTCP] eq. (14)) predict what the delayed fluid model does?"""),
    code("""%matplotlib inline
import os
from pathlib import Path

import numpy as np
import xarray as xr

import dwtcp_fluid as dw

QUICK = os.environ.get("DWTCP_FLUID_QUICK", "0") == "1"
PATH = Path("../results/sweep-beta0.001.nc")
if PATH.exists() and not QUICK:
    result = dw.SweepResult(xr.load_dataset(PATH, engine="h5netcdf"))
else:
    grid = dw.SweepGrid(beta=(0.001,), bdp=np.geomspace(10, 1e4, 5), flows=(1, 10, 100), kbar_ratio=(0.01, 0.1, 1.0))
    result = dw.run_sweep(grid, plan=dw.sweep_plan(grid, "full"))
print(result.describe())  # solver status of every delayed fluid run
ds = result.to_dataset()
ds"""),
    md(
        "## Provenance and units\n\nEvery variable carries `long_name` and `units`; the dataset carries the grid, the solver and the git revision."
    ),
    code("""print({k: ds.attrs[k] for k in ("package_version", "git_revision", "solver", "created")})
for v in ("kbar_crit", "delayed_kbar_obs", "delayed_q_amplitude", "delay_abscissa"):
    print(f"{v:22s} [{ds[v].attrs.get('units')}]  {ds[v].attrs.get('long_name')}")"""),
    md(
        "## The frozen check: condition ⇔ spiral\n\nBy construction of (14) the two agree; the eigenvalues do not depend on N at w = BDP/N."
    ),
    code("""s = result.summary()
print({k: s[k] for k in ("points", "class_counts", "agreement_rate", "frozen_asymptotically_stable_fraction")})"""),
    md(
        "## What the delayed fluid model does\n\nOne run per (β, BDP, N). `undelayed_*` is the paper's model (5)-(7) as written (predictor `simplified-nodelay`); `delayed_*` is that model with the one-RTT Scout delay and a physical queue, which the paper does not analyse (predictor `simplified`); `sqrt_*` the same with the sqrt(w) decrease (3)."
    ),
    code("""cols = ["delayed_converged", "delayed_kbar_obs", "delayed_q_amplitude", "delayed_period_rtts", "undelayed_converged"]
table = ds[cols + ["kbar_crit"]].isel(beta=0).to_dataframe()[cols + ["kbar_crit"]]
table["kbar_obs/kbar*"] = table["delayed_kbar_obs"] / table["kbar_crit"]
table.round(3)"""),
    md(
        "## Does the condition predict it?\n\nThe condition is evaluated at the run's observed k̄ and predicts convergence."
    ),
    code("""scored = (ds["delayed_status"] == 0) & ds["delayed_settled"]
for name in ("fluid_condition_agrees", "fluid_frozen_agrees", "fluid_delay_agrees"):
    print(f"{name:24s} {float(ds[name].where(scored).mean()):.0%}")
print("condition holds but the run oscillates at",
      int((ds["fluid_condition_obs"] & ds["delayed_oscillating"]).sum()), "of", int(scored.sum()), "points")"""),
    md(
        "## Observed k̄ against N/√β\n\nThe cycle's peak queue follows N(1+S/L)/√β (the phase-portrait analysis), not BDP: the condition's scale 2·BDP/√β is the wrong one."
    ),
    code("""pred = ds["flows"] * (1 + 64 / 1500) / np.sqrt(ds["beta"])  # N(1 + S/L)/√β
(ds["delayed_kbar_obs"] / pred).isel(beta=0).plot(x="bdp", xscale="log", yscale="log", y="flows", cmap="coolwarm", vmin=0.5, vmax=1.5)"""),
    md(
        "## The delay-aware roots at the frozen points\n\n`delay_abscissa` is the rightmost real part of det(λI − A0 − A1 e^{−λτ}) = 0 at (w = BDP/N, q = k̄); the delayed arc is locally unstable below k̄_c ≈ BDP."
    ),
    code("""(ds["kbar_critical_delay"] / ds["bdp"]).isel(kbar_ratio=0).to_series().describe()"""),
]
nb["metadata"] = {
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
}
nbf.write(nb, "notebooks/dwtcp_sweep.ipynb")
