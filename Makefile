# graddoctor: `make demo` and `make test` set everything up themselves.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed-dev
DEMO_STAMP := $(VENV)/.installed-demo
# torch is pinned to 2.13.0 because that is the version graddoctor is tested against
# (pyproject.toml only asks for torch>=2.2). It is installed first, on its own, so that the
# pin decides the version; pip takes it from a local wheel when one is configured
# (e.g. PIP_FIND_LINKS=/opt/wheels holds torch-2.13.0+cpu), else from the index.
TORCH := torch==2.13.0

.PHONY: demo test test-fast test-durations test-py310 bench lint-docs docs clean venv

venv: $(STAMP)

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip >/dev/null 2>&1 || true

# The demo needs graddoctor with its `torch` extra (torch is optional since lint needs none; the
# pin above installs it first): no dev extra. numpy is not a dependency, but torch's wheel
# imports it when present and prints "Failed to initialize NumPy" on every start without it,
# which would be all over the demo's output.
$(DEMO_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PIP) install -q $(TORCH) numpy
	$(PIP) install -q -e '.[torch]'
	touch $(DEMO_STAMP)

# Tests and benchmarks: the dev extra (pytest, hypothesis, matplotlib, Lightning, Transformers...).
$(STAMP): pyproject.toml $(DEMO_STAMP)
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

demo: $(DEMO_STAMP)
	$(VENV)/bin/graddoctor demo

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q

# Every test not marked slow (over ~3 s), integration (Lightning, Transformers, accelerate,
# torchrun, notebooks) or browser (headless Chromium): the quick check while working.
test-fast: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q -m "not slow and not integration and not browser"

# The whole suite as `make test` runs it, its counts, wall time and load appended to
# docs/test-durations.md (the README's figures come from there).
test-durations: $(STAMP)
	$(PY) benchmarks/test_durations.py

# Python 3.10 (the oldest pyproject.toml allows), in .venv310 from `pip install .` (no torch): lint,
# rules, explain and checklist run there, lint finds what it finds here, run/fix/demo exit 2 naming
# torch. Skipped, with one line, without pyenv's 3.10.
test-py310: $(STAMP)
	PY=$(PY) .ci/test-py310

bench: $(STAMP)
	$(PY) benchmarks/run.py

docs: $(STAMP)
	$(PY) -m graddoctor.docs_build

clean:
	rm -rf $(VENV) .venv310 build dist src/*.egg-info .pytest_cache
