"""Run the doctests in graddoctor's docstrings, rule docs included (STYLE: examples run as doctests)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re

import pytest
import torch

import graddoctor

# Optional integrations import their framework at module level; the rules' demo programs are
# scripts that run (and fail, on purpose) when imported.
_SKIP_PREFIXES = ("graddoctor.integrations.", "graddoctor.__main__")
_DEMO = re.compile(r"\.gd\d{3}_\w+\.gd\d{3}_\w+$")


def _modules() -> list[str]:
    """Modules whose source holds a `>>>` example; nothing else is imported."""
    names = ["graddoctor"]
    for info in pkgutil.walk_packages(graddoctor.__path__, prefix="graddoctor.", onerror=lambda name: None):
        # rule pages are packages: their docstrings hold the rules' examples
        if info.name.startswith(_SKIP_PREFIXES) or _DEMO.search(info.name) or info.name in names:
            continue
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec else None
        if origin and origin.endswith(".py") and ">>>" in open(origin, encoding="utf-8").read():
            names.append(info.name)
    return sorted(names)


def _with_examples() -> list[str]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    out = []
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if any(test.examples for test in finder.find(module, name)):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _with_examples())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs={"__name__": name}):
        torch.manual_seed(0)
        runner.run(test, clear_globs=True)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} doctest examples failed in {name}"


def test_the_helpers_are_among_the_doctested_modules():
    names = _with_examples()
    assert {"graddoctor.helpers.loss", "graddoctor.helpers.backward", "graddoctor.helpers.verify",
            "graddoctor.helpers.loop"} <= set(names)
