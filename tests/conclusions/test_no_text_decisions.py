"""No decision is taken from a finding's text: conclusions and judges read fields (issue #28, item 3).

A reworded message or hint must not change what the report concludes. These checks read
the source: the patterns that decided from text before (GD306's `o.code not in f.message`,
`f.message.replace`, GD305's hint prefixes, `f.message +=` on a finding) are gone from
src/, and nothing in `conclusions/` or in a rule's judge reads a `.message` or `.hint`.
"""

from __future__ import annotations

import re
from pathlib import Path

import graddoctor

SRC = Path(graddoctor.__file__).resolve().parent

# Anywhere in src/: a finding's text searched, rewritten in place or matched by its start.
_TEXT_DECISIONS = [
    re.compile(r"\bin\s+\w+\.message\b"),
    re.compile(r"\bin\s+\w+\.hint\b"),
    re.compile(r"\.message\.replace\("),
    re.compile(r"\.(message|hint)\.startswith\("),
    re.compile(r"\.(message|hint)\s+or\s+\"\"\)\.startswith\("),
    re.compile(r"\w\.(message|hint)\s*\+?=[^=]"),  # assignment to a finding's text (Findings are frozen)
]
# In conclusions/ and judges: any read of a finding's text at all (`cut.hint()`, a method, is not one).
_TEXT_READ = re.compile(r"\w\.(message|hint)\b(?!\s*\()")


def _sources(paths) -> list[tuple[Path, int, str]]:
    return [(path, n, line) for path in paths for n, line in enumerate(path.read_text().splitlines(), 1)
            if not line.lstrip().startswith("#")]


def _shown(hits) -> list[str]:
    return [f"{path.relative_to(SRC)}:{n}: {line.strip()}" for path, n, line in hits]


def test_no_finding_text_is_searched_or_rewritten_anywhere_in_src():
    hits = [(p, n, line) for p, n, line in _sources(SRC.rglob("*.py")) if any(r.search(line) for r in _TEXT_DECISIONS)]
    assert _shown(hits) == []


def test_conclusions_judges_and_edits_never_read_a_message_or_a_hint():
    # an edit decides what to write from fields too (GD107's statement is its cause, not hint text)
    files = [*(SRC / "conclusions").rglob("*.py"), *(SRC / "rules").glob("*/*/judge.py"), *(SRC / "rules").glob("*/*/edit.py")]
    assert len(files) > 20  # the judges were found
    hits = [(p, n, line) for p, n, line in _sources(files) if _TEXT_READ.search(line)]
    assert _shown(hits) == []


def test_the_checks_would_catch_the_old_code():
    # the lines these checks exist for, as they were before this round
    old = ['        named = [o for o in others if o.code not in f.message]',
           '            f.message = f.message.replace(_LOOK_AT_DATA, (',
           '            f.message += f" Also reported: {listed}."',
           '    return finding.code == "GD305" and (finding.hint or "").startswith((_LOWER, _BELOW))',
           '        if _LOOK_AT_DATA in f.message:']
    for line in old:
        assert any(r.search(line) for r in _TEXT_DECISIONS), line
    assert _TEXT_READ.search('    return finding.code == "GD305" and finding.hint.startswith("Lower")')
    assert not _TEXT_READ.search("    hint = cut.hint() or hint")
