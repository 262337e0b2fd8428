# `make validate` renders and checks every root; `make test` runs the test suite.
# Both create .venv/ and install trainops into it on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Render remote bases offline from the shared mirror beside this repository when there is one;
# otherwise kustomize fetches them from GitHub. An explicit TRAINOPS_MIRROR wins.
TRAINOPS_MIRROR ?= $(wildcard $(abspath ../shared/mirror))
export TRAINOPS_MIRROR

.PHONY: validate test lock clean

validate: $(STAMP)
	$(BIN)/trainops validate

test: $(STAMP)
	$(BIN)/python -m pytest -n 2

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet --constraint constraints.txt --editable '.[test]'
	touch $@

# Refresh constraints.txt (the lock) from a fresh resolution of pyproject.toml's ranges.
lock:
	rm -rf $(VENV)-lock
	$(PYTHON) -m venv $(VENV)-lock
	$(VENV)-lock/bin/python -m pip install --quiet '.[test]'
	$(VENV)-lock/bin/python -m pip freeze --exclude trainops > constraints.txt
	rm -rf $(VENV)-lock

clean:
	rm -rf $(VENV) .cache .pytest_cache
