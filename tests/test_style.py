"""Importing the toolkit never changes the user's matplotlib backend or rcParams; drawing restores them."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r"""
import matplotlib
matplotlib.use("svg")                      # the user's choice, not the library's
matplotlib.rcParams["lines.linewidth"] = 7.5
matplotlib.rcParams["font.size"] = 21.0
before = dict(matplotlib.rcParams)
import importlib, pkgutil
import dwtcp_fluid as dw
import dwtcp_fluid.plots as plots, dwtcp_fluid.experiments as ex, dwtcp_fluid.studies as st
for pkg in (plots, ex):
    for m in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"{pkg.__name__}.{m.name}")
for m in pkgutil.walk_packages(st.__path__, f"{st.__name__}."):  # the studies' plots and figures modules
    importlib.import_module(m.name)
dw.apply_style  # resolve the lazy re-export too
assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
assert dict(matplotlib.rcParams) == before, "import changed rcParams"
with dw.style():
    assert matplotlib.rcParams["lines.linewidth"] == 1.4 and matplotlib.rcParams["font.size"] == 9.0
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.plot([0, 1])
assert matplotlib.rcParams["lines.linewidth"] == 7.5 and matplotlib.rcParams["font.size"] == 21.0
assert matplotlib.get_backend() == "svg"
print("ok")
"""


def test_import_and_style_leave_backend_and_rcparams_alone(tmp_path):
    env = {
        "JAX_PLATFORMS": "cpu",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "MPLCONFIGDIR": str(tmp_path),
    }
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_save_figure_is_byte_stable_under_a_user_style(tmp_path):
    """The project style applies at save time whatever the user's rcParams (so CI and a notebook agree)."""
    import matplotlib
    import matplotlib.pyplot as plt

    from dwtcp_fluid.plots.style import save_figure, style

    paths = []
    for k, lw in enumerate((1.0, 9.0)):
        with matplotlib.rc_context({"savefig.dpi": 37, "lines.linewidth": lw}), style():
            fig, ax = plt.subplots()
            ax.plot([0, 1], [1, 0])
            paths.append(tmp_path / f"f{k}.png")
            save_figure(fig, paths[-1])
            plt.close(fig)
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_fig6_panels_in_order_and_no_cycle_region_not_drawn_as_rho_zero():
    """[DCTCP-A] Fig. 6: panels read (a), (b); cells start at w̄ = 2, the region below is the 'no cycle' band."""
    import numpy as np

    from dwtcp_fluid.studies.dctcp.plots_limit_cycles import plot_fig6

    w, g = np.geomspace(2.01, 1000, 5), np.geomspace(1e-3, 1, 4)
    rho = np.full((5, 4), 0.5)
    fig = plot_fig6({"wbar": w, "g": g, "rho_paper": rho, "rho_monodromy": rho * 0.9})
    titles = [ax.get_title() for ax in fig.axes[:3]]
    assert titles[0].startswith("(a)") and titles[1].startswith("(b)"), titles
    for ax in fig.axes[:3]:
        mesh = ax.collections[0]
        ys = mesh.get_coordinates()[:, 0, 1]  # the lowest row of cell corners
        assert np.min(ys) >= 2.0 - 1e-12  # nothing is coloured below w̄ = 2
        assert ax.get_ylim()[0] < 2.0 and any("no cycle" in t.get_text() for t in ax.texts)
