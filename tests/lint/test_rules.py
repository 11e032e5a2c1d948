"""Each lint code fires on its "should flag" fixtures, at the marked lines, and nowhere else.

Snapshots (`snapshots/gdNNN.txt`, lines `case line:col CODE message`) pin the
messages; regenerate them with `GRADDOCTOR_UPDATE_SNAPSHOTS=1 pytest tests/lint`.
"""

from __future__ import annotations

import os

import pytest

from graddoctor.lint import lint_source
from graddoctor.lint.checks import all_checks
from graddoctor.lint.selection import Selection
from graddoctor.rules import all_rules

from .cases import FIXTURES, SNAPSHOTS, load

FIXTURE_FILES = sorted(FIXTURES.glob("gd*.py"))
# GD000 (unreadable file) and GD001 (unused noqa) come from the lint engine itself, not from a check.
STATIC_CODES = sorted(r.code for r in all_rules() if "S" in r.detected and "graddoctor.lint.engine" not in r.engines)


def test_every_static_code_has_a_check_and_fixtures():
    assert sorted(c for c in all_checks()) == STATIC_CODES
    assert sorted(p.stem.upper() for p in FIXTURE_FILES) == STATIC_CODES


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_halves(path):
    code = path.stem.upper()
    cases = load(path)
    assert any(c.flag for c in cases) and any(not c.flag for c in cases), "a fixture needs both halves"
    for case in cases:
        assert case.flag == bool(case.expected), f"{case.name}: flag cases mark lines with '# expect:', others none"
        result = lint_source(case.source, path.name, Selection((code,)))
        got = {(f.line, f.code) for f in result.findings}
        assert got == case.expected, f"{path.name} case {case.name!r}: got {sorted(got)}, expected {sorted(case.expected)}"


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_snapshot(path):
    code = path.stem.upper()
    lines = []
    for case in load(path):
        for f in lint_source(case.source, path.name, Selection((code,))).findings:
            lines.append(f"{case.name} {f.line}:{f.column} {f.code} {f.message}")
    text = "\n".join(lines) + "\n"
    snap = SNAPSHOTS / f"{path.stem}.txt"
    if os.environ.get("GRADDOCTOR_UPDATE_SNAPSHOTS") or not snap.exists():
        snap.write_text(text)
    assert text == snap.read_text()


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_no_other_code_fires_on_the_quiet_half(path):
    """The "should not flag" cases are correct code: no rule at all may call them wrong."""
    for case in load(path):
        if case.flag:
            continue
        found = [f for f in lint_source(case.source, path.name).findings if f.severity >= 2]
        assert not found, f"{path.name} case {case.name!r}: {[(f.line, f.code, f.message) for f in found]}"
