# graddoctor: `make demo` and `make test` set everything up themselves.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
TORCH := torch==2.13.0

.PHONY: demo test bench lint-docs docs clean venv

venv: $(STAMP)

# torch first, pinned: a bare `torch` requirement may pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip >/dev/null 2>&1 || true
	$(PIP) install -q $(TORCH)
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/graddoctor demo

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q

bench: $(STAMP)
	$(PY) benchmarks/run.py

docs: $(STAMP)
	$(PY) -m graddoctor.docs_build

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache
