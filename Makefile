# dwtcp_fluid — the two README commands are `make sweep` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
CLI    := $(VENV)/bin/dwtcp-fluid
PIP    := $(PY) -m pip install -q --disable-pip-version-check -c constraints.txt
STAMP_RUN  := $(VENV)/.stamp-install
STAMP_TEST := $(VENV)/.stamp-test
export JAX_PLATFORMS ?= cpu
export MPLBACKEND ?= Agg
# Compiled XLA programs are kept in .cache/jax (JAX's persistent cache; the packet core keeps its own): the test
# workers, the figure builds and the notebook kernels of one `make test` compile each program once, and a second run
# compiles nothing. It changes no number: a cached program is the same executable.
export JAX_COMPILATION_CACHE_DIR ?= $(CURDIR)/.cache/jax
export JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS ?= 0.5
# make test runs the tests (pytest-xdist, one file per worker), the proofs, the figures and the docs side by side,
# one process per core each (-O prints each one's output as a block when it ends)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: install install-test sweep test check-pytest check-proofs check-figures check-figures-slow test-all test-portable figures proofs lint docs doc-values docs-data clean

install: $(STAMP_RUN)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP_RUN): pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PIP) -e .
	JAX_PLATFORMS=cpu $(PY) -m dwtcp_fluid.packet.precompile
	@touch $@

$(STAMP_TEST): $(STAMP_RUN) pyproject.toml constraints.txt
	$(PIP) -e '.[test,docs]'
	@touch $@

install-test: $(STAMP_TEST)

sweep: $(STAMP_RUN)
	$(CLI) sweep --beta 0.001

test: $(STAMP_TEST)
	@$(MAKE) --no-print-directory -j 4 -O check-pytest check-proofs check-figures docs

check-pytest: $(STAMP_TEST)
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile --durations=20

check-proofs: $(STAMP_TEST)
	$(CLI) proofs --check

# The figures whose build takes seconds; those marked slow (from about 20 s to minutes of CPU each) are checked by
# test-all and CI (check-figures-slow).
check-figures: $(STAMP_TEST)
	$(CLI) figures --check --tier fast --jobs $(JOBS)

check-figures-slow: $(STAMP_TEST)
	$(CLI) figures --check --tier slow --jobs $(JOBS)

# The documentation site (MkDocs): API reference from the docstrings, notebooks rendered without executing them.
# --strict turns every warning (a broken link, an unresolved reference, a bad docstring) into a failure.
docs: $(STAMP_TEST)
	COLUMNS=100 NO_COLOR=1 $(CLI) --help > docs/cli-help.txt
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# Numbers the README, docs/ and notebook prose quote are rendered from docs/data/ (tools/docvalues.py; the tests check
# them). doc-values re-renders them; docs-data re-records the data (the default sweep, the packet benchmark against
# htsim and the long runs proofs/multihop.md states: several minutes), then re-renders (proofs: dwtcp-fluid proofs).
doc-values: $(STAMP_RUN)
	$(PY) tools/docvalues.py --write

docs-data: $(STAMP_RUN)
	$(CLI) --quiet sweep --beta 0.001 --out results/docs-data --force --json | $(PY) -m json.tool --indent 1 --no-ensure-ascii > docs/data/sweep-beta0.001.json.tmp
	mv docs/data/sweep-beta0.001.json.tmp docs/data/sweep-beta0.001.json
	$(CLI) --quiet sweep --law dctcp --marking-threshold 10:100:10log --g 0.01,0.0625,0.2 --out results/docs-data --force --json | $(PY) -m json.tool --indent 1 --no-ensure-ascii > docs/data/sweep-dctcp.json.tmp
	mv docs/data/sweep-dctcp.json.tmp docs/data/sweep-dctcp.json
	$(PY) benchmarks/packet.py --repeat 2 --record docs/data/packet-benchmark.json
	$(PY) tools/record_proof_data.py > /dev/null
	$(PY) tools/docvalues.py --write

test-all: $(STAMP_TEST)
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile -m "slow or not slow"
	$(CLI) proofs --check
	$(CLI) figures --check --jobs $(JOBS)
	$(MAKE) --no-print-directory docs

# The committed artefacts (proofs, figure claims and images, the notebooks' numbers) checked under other numeric
# configurations than this machine's, as on another CPU (tests/test_portable.py says which).
test-portable: $(STAMP_TEST)
	$(PY) -m pytest -q -n $(JOBS) -m slow tests/test_portable.py

figures: $(STAMP_RUN)
	$(CLI) figures

proofs: $(STAMP_RUN)
	$(CLI) proofs

lint: $(STAMP_TEST)
	$(VENV)/bin/ruff check dwtcp_fluid tests benchmarks
	$(VENV)/bin/ruff format --check dwtcp_fluid tests benchmarks
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) results .pytest_cache site
