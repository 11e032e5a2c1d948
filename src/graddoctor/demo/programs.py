"""Read the gallery: each program says what graddoctor must find in it.

A program marks the line a finding must point at with `# expect: GD104` at the
end of that line, a finding without a fixed line with `# expect-anywhere: GD304`,
and secondary findings that may appear with `# allow: GD305 GD306`. Anything
else at warning or error level is a wrong diagnosis.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from graddoctor.rules.parts import demo_programs

_EXPECT = re.compile(r"#\s*expect:\s*(GD\d{3}(?:[\s,]+GD\d{3})*)")
_ANYWHERE = re.compile(r"#\s*expect-anywhere:\s*(GD\d{3}(?:[\s,]+GD\d{3})*)")
_ALLOW = re.compile(r"#\s*allow:\s*(GD\d{3}(?:[\s,]+GD\d{3})*)")


@dataclass
class Program:
    name: str
    path: Path
    title: str
    expected: list[tuple[str, int | None]] = field(default_factory=list)
    allowed: set[str] = field(default_factory=set)

    @property
    def codes(self) -> list[str]:
        return sorted({code for code, _ in self.expected})

    def judge(self, report: dict) -> list[str]:
        """What is wrong with the diagnosis (empty when it is as expected)."""
        problems = []
        found = [(f["code"], f["line"], f["severity"]) for f in report.get("findings", [])]
        for code, line in self.expected:
            lines = [ln for c, ln, _ in found if c == code]
            if not lines:
                problems.append(f"{code} not reported")
            elif line is not None and line not in lines:
                problems.append(f"{code} reported at line {lines[0]}, expected line {line}")
        wanted = set(self.codes) | self.allowed
        for code, line, severity in found:
            if severity in ("error", "warning") and code not in wanted:
                problems.append(f"unexpected {code} at line {line}")
        return problems


def load(path: Path) -> Program:
    text = path.read_text()
    title = (ast.get_docstring(ast.parse(text)) or path.stem).strip().splitlines()[0]
    program = Program(name=path.stem, path=path, title=title)
    for number, line in enumerate(text.splitlines(), start=1):
        for regex, anywhere in ((_EXPECT, False), (_ANYWHERE, True)):
            match = regex.search(line)
            if match:
                for code in re.findall(r"GD\d{3}", match.group(1)):
                    program.expected.append((code, None if anywhere else number))
        allow = _ALLOW.search(line)
        if allow:
            program.allowed |= set(re.findall(r"GD\d{3}", allow.group(1)))
    return program


def gallery() -> list[Program]:
    """Every rule's demo programs (`rules/<family>/gdNNN_*/gdNNN_<program>.py`), by name."""
    return [load(path) for path in demo_programs()]
