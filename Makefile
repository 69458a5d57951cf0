# Set-up and checks. `make demo` and `make test` work on a fresh clone of a
# machine that has only python3.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint docs bench bench-quick clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,docs]'
	touch $@

demo: $(VENV)/.installed-base
	$(BIN)/python examples/quickstart.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

test: $(VENV)/.installed-test lint
	$(BIN)/python -m pytest -n 2 --dist loadfile

docs: $(VENV)/.installed-docs
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

bench-quick: $(VENV)/.installed-docs
	$(BIN)/python -m benchmarks --quick

bench: $(VENV)/.installed-docs
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) docs/_build docs/auto_examples docs/generated build *.egg-info
