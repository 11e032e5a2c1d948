"""Run small training scripts in-process under `graddoctor run`'s session, deep mode on."""

from __future__ import annotations

import gc
import linecache
import sys
import textwrap

import pytest

from graddoctor.runner.script import run_target


class Outcome:
    def __init__(self, outcome, namespace_path):
        self.report = outcome.report
        self.session = outcome.session
        self.exception = outcome.user_exception
        self.findings = outcome.report.findings
        assert not outcome.session.internal_errors, outcome.session.internal_errors

    def codes(self) -> list[str]:
        return sorted({f.code for f in self.findings})

    def only(self, code: str):
        found = [f for f in self.findings if f.code == code]
        assert len(found) == 1, f"{code}: {[(f.code, f.file, f.line, f.message) for f in self.findings]}"
        return found[0]

    def serious(self) -> list:
        return [f for f in self.findings if str(f.severity) in ("error", "warning")]


@pytest.fixture
def run_script(tmp_path, monkeypatch):
    """Write files into tmp_path and run `main` (default train.py) like `graddoctor run` does."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))

    def run(files: dict[str, str], main: str = "train.py", **kwargs) -> Outcome:
        for name, text in files.items():
            (tmp_path / name).write_text(textwrap.dedent(text))
        for name in files:
            sys.modules.pop(name.removesuffix(".py"), None)
        linecache.clearcache()  # earlier tests' train.py had other lines
        gc.collect()  # models of earlier tests must not be discovered as this script's
        outcome = run_target(main, [], **kwargs)
        return Outcome(outcome, tmp_path)

    return run


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line containing `needle` (after dedent)."""
    for number, line in enumerate(textwrap.dedent(text).splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in the script")
