"""Each command's JSON document as a library function: ``dw.<name>_report(...)`` returns exactly the dict that
``dwtcp-fluid <command> --json`` prints, without the header the CLI puts in front of it (``schema_version``,
``package_version``, ``command``, ``inputs``: those describe a command line, not a computation).

The values are plain JSON types (:func:`to_jsonable`: numpy scalars and arrays become numbers and lists, a
non-finite float becomes None), so ``json.dumps(report)`` is the command's document. The CLI parses its flags into
the library's parameter objects, calls the function here and prints; these functions take those objects.

A run that fails (a solver status other than ok) is a document too: its ``status``, ``message`` and where it
stopped, no observables; the CLI prints it and exits 1.

The commands that write a dataset (``sweep``, ``dctcp network-sweep``) print a summary of it: their functions take
the dataset (``dw.sweep_report(dw.run_sweep(grid))``, or a NetCDF read back), so a notebook summarizes the run it
already has, and what the dataset cannot know about its own run (paths written, seconds) enters as keywords.
Each of those commands calls one orchestrator, which returns the document and the dataset: ``write_sweep``
(``sweep``), ``write_judged_sweep`` (``sweep --law X``), ``write_network_sweep`` (``dctcp network-sweep``); the
CLI parses the flags, shows progress and prints.
``figures`` and ``proofs`` run the figure catalog and the proof registry: their documents list each file written
or compared, with its claims or checks.
"""

from __future__ import annotations

from ._json import to_jsonable

#: command (as typed after ``dwtcp-fluid``) → (module under ``dwtcp_fluid``, function) of its JSON document.
REPORTS: dict[str, tuple[str, str]] = {
    "dwtcp condition": ("studies.dwtcp.report", "condition_report"),
    "dwtcp eigen": ("studies.dwtcp.report", "eigen_report"),
    "dwtcp simulate": ("studies.dwtcp.report", "dwtcp_simulate_report"),
    "dctcp simulate": ("studies.dctcp.report", "dctcp_simulate_report"),
    "dctcp limit-cycle": ("studies.dctcp.report", "limit_cycle_report"),
    "dctcp guide": ("studies.dctcp.report", "guide_report"),
    "dctcp hybrid": ("studies.dctcp.report", "hybrid_report"),
    "phase dwtcp": ("reports.phase", "phase_dwtcp_report"),
    "phase dctcp": ("reports.phase", "phase_dctcp_report"),
    "packet compare-fluid": ("reports.compare", "compare_fluid_report"),
    "tune dctcp": ("reports.tune", "tune_dctcp_report"),
    "tune dwtcp": ("reports.tune", "tune_dwtcp_report"),
    "sweep": ("reports.sweep", "sweep_report"),
    "dctcp network-sweep": ("studies.networks.report", "network_sweep_report"),
    "dctcp network": ("studies.networks.report", "dctcp_network_report"),
    "figures": ("reports.figures", "figures_report"),
    "proofs": ("reports.proofs", "proofs_report"),
    "packet run": ("reports.packet", "packet_run_report"),
    "packet scenario": ("reports.packet_scenario", "packet_scenario_report"),
    "timely network": ("studies.timely.report_network", "timely_network_report"),
}

__all__ = ["REPORTS", "to_jsonable"]
