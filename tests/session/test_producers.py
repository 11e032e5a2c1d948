"""Every runtime code has a producer that declares it, and a test that shows it firing.

The static half has the same guard (tests/lint/test_rules.py); this one keeps the
runtime half honest: a code documented as detected at runtime (R in SPEC) but made
by nothing fails here instead of going unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graddoctor.assembly import standard_observers
from graddoctor.explain.patterns import ALL_PATTERNS
from graddoctor.rules import all_rules
from graddoctor.rules.parts import demo_programs

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = [r.code for r in all_rules() if "R" in r.detected]

# Codes the catalogue documents but no producer makes yet: one explicit list, each
# reported as skipped. Empty: every runtime code of this round has landed.
PLANNED: set[str] = set()


def _declared() -> set[str]:
    codes: set[str] = set()
    for observer in standard_observers(mode="run", deep=True):
        codes |= set(observer.codes)
    codes |= {p.code for p in ALL_PATTERNS}
    return codes


def _firing_evidence() -> str:
    """Test sources and gallery programs (whose `# expect:` markers test_demo checks)."""
    texts = [p.read_text() for p in (ROOT / "tests").rglob("test_*.py") if "lint" not in p.relative_to(ROOT).parts]
    for program in demo_programs():
        # only what the program expects counts: `# allow:` codes are tolerated, not shown
        texts += re.findall(r"#\s*expect(?:-anywhere)?:\s*([^\n]*)", program.read_text())
    return "\n".join(texts)


@pytest.mark.parametrize("code", RUNTIME)
def test_runtime_code_has_a_producer_and_a_firing_test(code):
    if code in PLANNED:
        pytest.skip(f"{code} is planned: no producer yet")
    assert code in _declared(), f"{code} is marked R in the catalogue, but no observer or explain pattern declares it"
    evidence = _firing_evidence()
    assert re.search(rf"{code}\b", evidence), f"no test or gallery program shows {code} firing"


def test_planned_codes_are_really_unproduced():
    assert not (PLANNED & _declared()), "a planned code has a producer now: take it off PLANNED"
