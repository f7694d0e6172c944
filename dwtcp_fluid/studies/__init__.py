"""The science of each protocol, one folder per study, on top of the protocol-agnostic engines.

The engines are horizontal: units, parameters and results; the fluid models (``models/``), the DDE solvers (``dde/``)
and the generic analysis (``analysis/``: roots, limit cycles, return maps, Floquet, phase portraits); the packet
simulator (``packet/``, with one per-ACK law per protocol in ``packet/laws/``); the sweep engine (``sweep/``); the
derivation machinery (``symbolic/``) and the figure machinery (``experiments/``). A protocol is a model file, a law
file and one study folder here: ``dctcp``, ``dwtcp``, ``timely``, ``d2tcp``, ``cubic``, and ``networks`` (the DCTCP
network model on chains and leaf-spine fabrics).

Every module of a study is named for its role, ``<role>.py`` or ``<role>_<topic>.py``; a role means the same in
every study and sits in the layer of the engine it uses (``tests/test_layers.py``):

``derive``
    checked SymPy derivations rendered into ``proofs/`` (registered in :mod:`dwtcp_fluid.symbolic.registry`).
``analysis``
    numerics over the study's fluid models: cycles, fixed points, roots, convergence (on ``models/``, ``dde/``,
    ``analysis/``).
``checks``
    the packet simulator judged against the study's fluid models: settings, stated tolerances, verdicts.
``tune``
    choosing the protocol's parameters over an operating range.
``plots``
    drawing only, over data and result objects (nothing computed).
``figures``
    registered figure recipes: build, plot and numeric claims (listed in :mod:`dwtcp_fluid.experiments.catalog`).
``report``
    a command's JSON document as a library function.
``cli``
    the study's own commands of ``dwtcp-fluid`` (Typer), loaded by :mod:`dwtcp_fluid.cli`.

The package files (this one and each study's ``__init__.py``) import nothing: import a study's module by its path,
``from dwtcp_fluid.studies.dctcp.checks import compare_dctcp``, or use the names :mod:`dwtcp_fluid` exports.
"""
