"""Fixture files hold cases split at `# case: NAME` lines, in a "should flag" and a "should not flag" half.

Each case is linted on its own, padded with blank lines so that its line numbers
are those of the fixture file; `# expect: GD101` marks each line that must be flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
SNAPSHOTS = Path(__file__).parent / "snapshots"
_EXPECT = re.compile(r"#\s*expect:\s*(GD\d{3})")


@dataclass
class Case:
    name: str
    flag: bool  # in the "should flag" half
    source: str  # padded: line numbers are the fixture file's
    expected: set[tuple[int, str]]


def load(path: Path) -> list[Case]:
    lines = path.read_text().splitlines()
    cases: list[Case] = []
    half = None
    current: tuple[str, int, bool] | None = None

    def close(end: int) -> None:
        if current is None:
            return
        name, start, flag = current
        body = lines[start:end]
        expected = {(start + i + 1, m.group(1)) for i, text in enumerate(body) for m in _EXPECT.finditer(text)}
        cases.append(Case(name, flag, "\n" * start + "\n".join(body) + "\n", expected))

    for i, text in enumerate(lines):
        if text.startswith("# === should flag"):
            close(i)
            current, half = None, True
        elif text.startswith("# === should not flag"):
            close(i)
            current, half = None, False
        elif text.startswith("# case:"):
            close(i)
            current = (text.split(":", 1)[1].strip(), i + 1, bool(half))
    close(len(lines))
    return cases
