"""dwtcp_fluid: checks stability claims about datacenter congestion control end to end.

The public API, flat: ``import dwtcp_fluid as dw`` gives the verbs and nouns a notebook needs, listed below by
engine and then by study (one study per protocol: its models, checks, analyses and reports). Every name loads on
first use (NumPy behind the parameters, SymPy, JAX, SciPy, xarray behind the models, solvers and analyses): ``import
dwtcp_fluid`` imports nothing heavy, so the console script installs its signal handlers within milliseconds of
starting and ``dwtcp-fluid --help`` stays fast. ``tests/test_public_api.py`` checks that every name is listed here.

Engines (protocol-agnostic)
---------------------------
Parameters and results
    ``LinkParams``, ``DctcpParams``, ``DwtcpParams``, presets ``DCTCP_ANALYSIS``, ``DWTCP_EVALUATION``; paper
    formulas ``kbar_star``, ``dctcp_fixed_point_queue``; ``Status`` and ``Result`` (:mod:`dwtcp_fluid.results`:
    every result has ``status``, ``ok``, ``summary()``, ``to_dataset()``, ``plot(ax=None)``).
Registries (one idiom, :mod:`dwtcp_fluid.registry`; a plugin registers without editing the package)
    ``MODELS`` / ``register_model`` / ``ModelCase`` (fluid models under the contract test), ``LAWS`` /
    ``register_law`` / ``packet_law`` (packet laws), ``CHECKS`` / ``register_check`` / ``get_check`` (cross-checks),
    ``figures`` / ``register_figure`` / ``Figure`` / ``Claim`` (figure recipes), ``load_plugins``.
Fluid models and solvers
    ``FluidModel`` (the contract); ``solve`` (DDE; solver objects ``Reference``, ``JaxRK4``; ``DdeSolution``).
Analysis of any model
    ``limit_cycle``, ``find_limit_cycle``, ``find_limit_cycle_physical``, ``cycles``, ``cycles_batch``,
    ``theorem1`` (Floquet), ``LimitCycle``, ``FixedPoint``, ``return_map``, ``CycleMap``, ``J_of``,
    ``char_roots``, ``char_roots_multi``, ``classify_2x2``, ``stability_2x2``, ``CLASSES``, ``STABILITY``,
    ``phase_portrait``.
Packet core
    ``simulate_packets``, ``simulate_packets_many``, ``packet_build``, ``packet_scenario``, ``packet_dataset``;
    multi-hop ``run_topology``, ``parse_topology``, ``leaf_spine_traffic``, ``hop_signal``; workloads
    ``dctcp_wan_run``, ``dctcp_wan_metrics``, ``d2tcp_microbenchmark``, ``timely_incast_run``,
    ``timely_flow_rates``.
Judge and sweep
    ``PacketClass`` (run classes); ``run_sweep``, ``SweepGrid``, ``sweep_plan``, ``SweepResult``,
    ``packet_outcomes``.
Derivations
    ``derivations`` (every checked SymPy derivation).
Reports
    each command's ``--json`` document without the CLI's header: ``condition_report``, ``eigen_report``,
    ``dwtcp_simulate_report``, ``dctcp_simulate_report``, ``limit_cycle_report``, ``guide_report``,
    ``hybrid_report``, ``phase_dwtcp_report``, ``phase_dctcp_report``, ``compare_fluid_report``,
    ``tune_dctcp_report``, ``tune_dwtcp_report``, ``packet_run_report``, ``packet_scenario_report``,
    ``sweep_report`` (of a sweep or its dataset), ``dctcp_network_report``, ``network_sweep_report``,
    ``timely_network_report``, ``figures_report``, ``proofs_report`` (``run_packet_report``: with the run's data,
    whose ``to_dataset()`` exports the records).
    The sweep commands' orchestrators, each returning the document and the dataset: ``write_sweep``
    (``sweep``), ``write_judged_sweep`` (``sweep --law X``), ``write_network_sweep`` (``dctcp network-sweep``).
Figures and drawing
    ``style`` (context manager), ``apply_style``, ``save_figure``, ``plot_packet_vs_fluid``; subpackages ``plots``,
    ``experiments``.

Studies
-------
DCTCP
    ``DctcpFluid``, ``DctcpNormalized``, ``DctcpWindowFluid``, ``DctcpLagFluid``, ``DctcpHetero``
    (``DctcpHeteroParams``), ``DctcpLossFluid``, ``DctcpDelackFluid``; ``compare_dctcp``, ``within_tolerance``,
    ``PACKET_TOLERANCES``, ``compare_delack``; ``dctcp_portrait``, ``hybrid_summary``, ``guide``,
    ``rtt_fairness``; tuning ``cycle_observables``, ``TuneRange``, ``tune_dctcp``, ``tune_packet_check``;
    derivations ``jf_normalized``, ``alpha_star``, ``rate_ratio``.
DWTCP
    ``DwtcpFluid``, ``DwtcpBusyFluid`` (the Scout-faithful model: the Scout measures the link's busy period),
    ``DwtcpScoutFluid`` (the queue-delay model (3)-(7) with α as a state; not Scout-faithful);
    ``eigenvalues_decrease``, ``frozen_jacobian``, ``jacobian_decrease``, ``char_poly_decrease``, ``spectrum``
    (delay-aware roots), ``dwtcp_portrait``, ``tune_dwtcp``, ``tune_dwtcp_packet_check``; the packet core
    against every DWTCP model ``compare_dwtcp``, ``plot_dwtcp_overlay``; sweep maps ``plot_condition_map``,
    ``plot_outcome_maps``; derivations ``delayed_root``, ``kbar_crit_delay``, ``first_integral``.
D2TCP
    ``D2tcpFluid``, ``D2tcpWindowFluid``, ``compare_d2tcp``, ``D2tcpSetting``, ``d2tcp_cycles``.
TIMELY
    ``TimelyFluid``, ``TimelyParams``, ``compare_timely``, ``TIMELY_TOLERANCES``; over a routing matrix
    ``TimelyNetwork``, ``TimelyNetworkParams``, ``timely_patched_fixed_point``, ``TimelySetting``; [PROXY]'s
    experiments ``noisy_queues``, ``fct_signals``.
CUBIC
    ``CubicFluid``, ``CubicParams``, ``run_cubic`` (the hybrid run), ``cubic_cycle_summary``,
    ``cubic_closed_form``, ``compare_cubic``, ``CUBIC_TOLERANCES``, ``CUBIC_SETTINGS``.
HPCC
    ``HpccFluid``, ``HpccParams``, ``hpcc_fixed_point``.
DCQCN
    ``DcqcnFluid``, ``DcqcnParams``, ``dcqcn_fixed_point``, ``dcqcn_rightmost``.
Swift
    ``SwiftFluid``, ``SwiftParams``, ``swift_fixed_point``, ``compare_swift``, ``SWIFT_TOLERANCES``.
Networks (several bottlenecks)
    ``DctcpNetwork``, ``NetworkParams``, ``parking_lot_routes``, ``parking_lot_fixed_point``,
    ``parking_lot_spectrum``, ``fluid_lot_run``, ``compare_chain``, ``ChainSetting``, ``NetworkGrid``,
    ``run_network_sweep``;
    leaf-spine ``compare_fabric``, ``FabricSetting``, ``network_fixed_point``.
"""

from __future__ import annotations

import importlib
from typing import Any

#: name → (module, attribute) of everything loaded on first use.
_LAZY: dict[str, tuple[str, str]] = {
    # the version, parameters, paper formulas and the result protocol
    "__version__": ("_provenance", "__version__"),
    "kbar_star": ("formulas", "kbar_star"),
    "dctcp_fixed_point_queue": ("formulas", "dctcp_fixed_point_queue"),
    "DCTCP_ANALYSIS": ("params", "DCTCP_ANALYSIS"),
    "DWTCP_EVALUATION": ("params", "DWTCP_EVALUATION"),
    "DctcpParams": ("params", "DctcpParams"),
    "DwtcpParams": ("params", "DwtcpParams"),
    "LinkParams": ("params", "LinkParams"),
    "Result": ("results", "Result"),
    "Status": ("results", "Status"),
    # models
    "FluidModel": ("models.base", "FluidModel"),
    "DctcpFluid": ("models.dctcp", "DctcpFluid"),
    "DctcpNormalized": ("models.dctcp", "DctcpNormalized"),
    "DctcpWindowFluid": ("models.dctcp_window", "DctcpWindowFluid"),
    "DctcpLagFluid": ("models.dctcp_window", "DctcpLagFluid"),
    "DctcpHetero": ("models.dctcp_hetero", "DctcpHetero"),
    "D2tcpFluid": ("models.dctcp_ext", "D2tcpFluid"),
    "DctcpLossFluid": ("models.dctcp_ext", "DctcpLossFluid"),
    "D2tcpWindowFluid": ("models.dctcp_ext", "D2tcpWindowFluid"),
    "DctcpDelackFluid": ("models.dctcp_ext", "DctcpDelackFluid"),
    "DctcpHeteroParams": ("models.dctcp_hetero", "DctcpHeteroParams"),
    "DwtcpFluid": ("models.dwtcp", "DwtcpFluid"),
    "DwtcpScoutFluid": ("models.dwtcp_scout", "DwtcpScoutFluid"),
    "DwtcpBusyFluid": ("models.dwtcp_busy", "DwtcpBusyFluid"),
    "TimelyFluid": ("models.timely", "TimelyFluid"),
    "CubicFluid": ("models.cubic", "CubicFluid"),
    "CubicParams": ("models.cubic", "CubicParams"),
    "run_cubic": ("studies.cubic.analysis", "run_cubic"),
    "cubic_cycle_summary": ("studies.cubic.analysis", "cycle_summary"),
    "cubic_closed_form": ("studies.cubic.derive", "closed_form"),
    "TimelyParams": ("models.timely", "TimelyParams"),
    "DcqcnFluid": ("models.dcqcn", "DcqcnFluid"),
    "DcqcnParams": ("models.dcqcn", "DcqcnParams"),
    "dcqcn_fixed_point": ("studies.dcqcn.analysis", "fixed_point"),
    "dcqcn_rightmost": ("studies.dcqcn.analysis", "rightmost"),
    "DctcpNetwork": ("models.dctcp_network", "DctcpNetwork"),
    "TimelyNetwork": ("models.timely_network", "TimelyNetwork"),
    "TimelyNetworkParams": ("models.timely_network", "TimelyNetworkParams"),
    "timely_patched_fixed_point": ("studies.timely.analysis_network", "patched_fixed_point"),
    "TimelySetting": ("studies.timely.checks_network", "TimelySetting"),
    "NetworkParams": ("models.dctcp_network", "NetworkParams"),
    "parking_lot_routes": ("models.dctcp_network", "parking_lot_routes"),
    "parking_lot_fixed_point": ("studies.networks.analysis_multihop", "parking_lot_fixed_point"),
    "parking_lot_spectrum": ("studies.networks.analysis_multihop", "parking_lot_spectrum"),
    "fluid_lot_run": ("studies.networks.analysis_multihop_dde", "fluid_lot_run"),
    "NetworkGrid": ("studies.networks.checks_sweep", "NetworkGrid"),
    "run_network_sweep": ("studies.networks.checks_sweep", "run_network_sweep"),
    "char_roots_multi": ("analysis.charroots", "char_roots_multi"),
    "run_topology": ("packet.multihop_run", "run_topology"),
    "compare_chain": ("studies.networks.checks_multihop", "compare_chain"),
    "ChainSetting": ("studies.networks.checks_multihop", "ChainSetting"),
    "parse_topology": ("packet.topology", "parse_topology"),
    "leaf_spine_traffic": ("packet.leafspine", "leaf_spine_traffic"),
    "compare_fabric": ("studies.networks.checks_leafspine", "compare_fabric"),
    "FabricSetting": ("studies.networks.checks_leafspine", "FabricSetting"),
    "network_fixed_point": ("studies.networks.analysis_fixed_point", "network_fixed_point"),
    "noisy_queues": ("studies.timely.figures_proxy_signals", "noisy_queues"),
    "fct_signals": ("studies.timely.figures_proxy_signals", "fct_signals"),
    "hop_signal": ("packet.hop_signals", "hop_signal"),
    "packet_law": ("packet.laws", "get_law"),
    "MODELS": ("models.registry", "MODELS"),
    "register_model": ("models.registry", "register_model"),
    "ModelCase": ("models.registry", "ModelCase"),
    "LAWS": ("packet.laws.registry", "LAWS"),
    "register_law": ("packet.laws.registry", "register_law"),
    "CHECKS": ("judge.check", "CHECKS"),
    "register_check": ("judge.check", "register_check"),
    "get_check": ("judge.check", "get_check"),
    "register_figure": ("experiments.figure", "register"),
    "Figure": ("experiments.figure", "Figure"),
    "Claim": ("experiments.figure", "Claim"),
    "load_plugins": ("registry", "load_plugins"),
    "eigenvalues_decrease": ("models.dwtcp", "eigenvalues_decrease"),
    "frozen_jacobian": ("models.dwtcp", "frozen_jacobian"),
    "jacobian_decrease": ("models.dwtcp", "jacobian_decrease"),
    "char_poly_decrease": ("models.dwtcp", "char_poly_decrease"),
    # delay-differential solvers
    "solve": ("dde.solve", "solve"),
    "Reference": ("dde.solvers", "Reference"),
    "JaxRK4": ("dde.solvers", "JaxRK4"),
    "DdeSolution": ("dde.solution", "DdeSolution"),
    # limit cycles, Floquet, spectra, portraits
    "limit_cycle": ("analysis.limit_cycle", "limit_cycle"),
    "find_limit_cycle": ("analysis.limit_cycle", "find_limit_cycle"),
    "find_limit_cycle_physical": ("analysis.limit_cycle", "find_limit_cycle_physical"),
    "return_map": ("analysis.return_map", "return_map"),
    "CycleMap": ("analysis.return_map", "CycleMap"),
    "J_of": ("analysis.return_map", "J_of"),
    "cycles": ("analysis.limit_cycle_batch", "cycles"),
    "d2tcp_cycles": ("studies.d2tcp.analysis", "d2tcp_cycles"),
    "cycles_batch": ("analysis.limit_cycle_batch", "cycles_batch"),
    "theorem1": ("analysis.floquet", "theorem1"),
    "LimitCycle": ("analysis.cycle_results", "LimitCycle"),
    "FixedPoint": ("analysis.cycle_results", "FixedPoint"),
    "spectrum": ("studies.dwtcp.analysis_charroots", "dwtcp_delay_spectrum"),
    "char_roots": ("analysis.charroots", "char_roots"),
    "classify_2x2": ("analysis.linear", "classify_2x2"),
    "stability_2x2": ("analysis.linear", "stability_2x2"),
    "CLASSES": ("analysis.linear", "CLASSES"),
    "STABILITY": ("analysis.linear", "STABILITY"),
    "phase_portrait": ("analysis.phase", "phase_portrait"),
    "dwtcp_portrait": ("studies.dwtcp.figures_phase", "dwtcp_portrait"),
    "dctcp_portrait": ("studies.dctcp.figures_phase", "dctcp_portrait"),
    "hybrid_summary": ("studies.dctcp.analysis_hybrid", "hybrid_summary"),
    "guide": ("studies.dctcp.analysis_guidelines", "guide"),
    "rtt_fairness": ("studies.dctcp.analysis_rtt_fairness", "rtt_fairness"),
    # differentiable tuning
    "cycle_observables": ("studies.dctcp.analysis_cycle_grad", "cycle_observables"),
    "TuneRange": ("studies.dctcp.tune", "TuneRange"),
    "tune_dctcp": ("studies.dctcp.tune", "tune_dctcp"),
    "tune_packet_check": ("studies.dctcp.checks_tune", "packet_check"),
    "tune_dwtcp": ("studies.dwtcp.tune", "tune_dwtcp"),
    "tune_dwtcp_packet_check": ("studies.dctcp.checks_tune", "packet_check_dwtcp"),
    # sweep
    "run_sweep": ("sweep.result", "sweep"),
    "SweepResult": ("sweep.result", "SweepResult"),
    "sweep_plan": ("sweep.run", "make_plan"),
    "SweepGrid": ("sweep.grid", "SweepGrid"),
    # packet core
    "simulate_packets": ("packet.scenarios", "run"),
    "packet_dataset": ("packet.dataset", "to_dataset"),
    "simulate_packets_many": ("packet.scenarios", "run_many"),
    "packet_build": ("packet.scenarios", "build"),
    "packet_scenario": ("packet.scenarios", "scenario"),
    "compare_dctcp": ("studies.dctcp.checks", "compare_dctcp"),
    "dctcp_wan_run": ("packet.scenarios_wan", "wan_run"),
    "dctcp_wan_metrics": ("packet.scenarios_wan", "wan_metrics"),
    "d2tcp_microbenchmark": ("packet.deadlines", "microbenchmark"),
    "within_tolerance": ("studies.dctcp.checks", "within_tolerance"),
    "PACKET_TOLERANCES": ("studies.dctcp.checks", "TOLERANCES"),
    "compare_timely": ("studies.timely.checks", "compare_timely"),
    "TIMELY_TOLERANCES": ("studies.timely.checks", "TOLERANCES"),
    "compare_cubic": ("studies.cubic.checks", "compare_cubic"),
    "CUBIC_TOLERANCES": ("studies.cubic.checks", "TOLERANCES"),
    "CUBIC_SETTINGS": ("studies.cubic.checks", "SETTINGS"),
    "compare_d2tcp": ("studies.d2tcp.checks", "compare_d2tcp"),
    "D2tcpSetting": ("studies.d2tcp.checks", "D2tcpSetting"),
    "compare_delack": ("studies.dctcp.checks_delack", "compare_delack"),
    "timely_incast_run": ("packet.scenarios_incast", "incast_run"),
    "timely_flow_rates": ("packet.scenarios_incast", "flow_rates"),
    # symbolic derivations (SymPy), for notebooks that show a step
    "derivations": ("symbolic.registry", "build_all"),
    "jf_normalized": ("studies.dctcp.derive", "jf_normalized"),
    "alpha_star": ("studies.dctcp.derive_hybrid", "alpha_star"),
    "rate_ratio": ("studies.dctcp.derive_hybrid", "rate_ratio"),
    "delayed_root": ("studies.dwtcp.derive_delay_roots", "delayed_root"),
    "kbar_crit_delay": ("studies.dwtcp.derive_delay_roots", "kbar_crit_delay"),
    "first_integral": ("studies.dwtcp.derive_orbits", "first_integral"),
    # each command's JSON document (dwtcp_fluid.reports): dw.<name>_report(...) == `--json` minus its header
    "condition_report": ("studies.dwtcp.report", "condition_report"),
    "eigen_report": ("studies.dwtcp.report", "eigen_report"),
    "dwtcp_simulate_report": ("studies.dwtcp.report", "dwtcp_simulate_report"),
    "dctcp_simulate_report": ("studies.dctcp.report", "dctcp_simulate_report"),
    "limit_cycle_report": ("studies.dctcp.report", "limit_cycle_report"),
    "guide_report": ("studies.dctcp.report", "guide_report"),
    "hybrid_report": ("studies.dctcp.report", "hybrid_report"),
    "phase_dwtcp_report": ("reports.phase", "phase_dwtcp_report"),
    "phase_dctcp_report": ("reports.phase", "phase_dctcp_report"),
    "compare_fluid_report": ("reports.compare", "compare_fluid_report"),
    "tune_dctcp_report": ("reports.tune", "tune_dctcp_report"),
    "tune_dwtcp_report": ("reports.tune", "tune_dwtcp_report"),
    "sweep_report": ("reports.sweep", "sweep_report"),
    "network_sweep_report": ("studies.networks.report", "network_sweep_report"),
    "dctcp_network_report": ("studies.networks.report", "dctcp_network_report"),
    "figures_report": ("reports.figures", "figures_report"),
    "proofs_report": ("reports.proofs", "proofs_report"),
    "packet_run_report": ("reports.packet", "packet_run_report"),
    "run_packet_report": ("reports.packet", "run_packet_report"),
    "packet_scenario_report": ("reports.packet_scenario", "packet_scenario_report"),
    "timely_network_report": ("studies.timely.report_network", "timely_network_report"),
    "write_sweep": ("reports.sweep", "write_sweep"),
    "write_judged_sweep": ("reports.sweep_study", "write_judged_sweep"),
    "write_network_sweep": ("studies.networks.report", "write_network_sweep"),
    # DWTCP at packet level against its fluid models
    "compare_dwtcp": ("studies.dwtcp.checks", "compare_dwtcp"),
    "packet_outcomes": ("sweep.outcomes_packet", "packet_outcomes"),
    "PacketClass": ("judge.classes", "PacketClass"),
    "plot_dwtcp_overlay": ("studies.dwtcp.plots_packet", "plot_dwtcp_overlay"),
    # figures and drawing
    "figures": ("experiments.catalog", "registry"),
    "apply_style": ("plots.style", "apply_style"),
    "style": ("plots.style", "style"),
    "save_figure": ("plots.style", "save_figure"),
    "plot_condition_map": ("studies.dwtcp.plots_sweep_maps", "plot_condition_map"),
    "plot_outcome_maps": ("studies.dwtcp.plots_sweep_outcomes", "plot_outcome_maps"),
    "plot_packet_vs_fluid": ("plots.packet", "plot_packet_vs_fluid"),
    "SwiftFluid": ("models.swift", "SwiftFluid"),
    "SwiftParams": ("models.swift", "SwiftParams"),
    "swift_fixed_point": ("studies.swift.analysis", "fixed_point"),
    "compare_swift": ("studies.swift.checks", "compare_swift"),
    "SWIFT_TOLERANCES": ("studies.swift.checks", "TOLERANCES"),
    "HpccFluid": ("models.hpcc", "HpccFluid"),
    "HpccParams": ("models.hpcc", "HpccParams"),
    "hpcc_fixed_point": ("models.hpcc", "fixed_point"),
    # subpackages, for what the flat names do not cover (a subpackage's name is its module once imported:
    # no verb may share one, e.g. ``sweep``)
    "plots": ("plots", ""),
    "experiments": ("experiments", ""),
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    # PEP 562: load the module that defines ``name`` on first use, then keep the attribute
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'dwtcp_fluid' has no attribute {name!r}") from None
    mod = importlib.import_module(f".{module}", __name__)
    value = getattr(mod, attr) if attr else mod
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
