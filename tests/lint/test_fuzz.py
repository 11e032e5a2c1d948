"""Fuzzing: whatever the text, lint returns findings and never raises.

Two generators: arbitrary text (mostly GD000), and corpus programs with lines
deleted, duplicated, swapped or cut, which stay parseable often enough to drive
the analysis through odd shapes. Bounded to a few seconds.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graddoctor.finding import Finding
from graddoctor.lint import lint_source

CORPUS = [p.read_text() for p in sorted((Path(__file__).parent / "corpus").glob("*.py"))]
FIXTURES = [p.read_text() for p in sorted((Path(__file__).parent / "fixtures").glob("*.py"))]
SOURCES = CORPUS + FIXTURES
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


def _check(source) -> None:
    result = lint_source(source, "fuzz.py")
    assert all(isinstance(f, Finding) and f.code.startswith("GD") for f in result.findings)
    for f in result.findings:
        assert f.line is None or f.line >= 1


@FAST
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    _check(text)


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data):
    _check(data)


@st.composite
def mutated_program(draw):
    lines = draw(st.sampled_from(SOURCES)).splitlines()
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "cut", "dedent", "insert"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "dedent":
            lines[i] = lines[i].lstrip()
        else:
            lines.insert(i, draw(st.sampled_from([
                "    optimizer.zero_grad()", "    loss.backward()", "    optimizer.step()", "    scheduler.step()",
                "with torch.no_grad():", "    total += loss", "    torch.nn.utils.clip_grad_norm_(p, 1.0)",
                "    x.item().backward()", "class M(nn.Module):", "    self.l = [nn.Linear(1, 1)]",
            ])))
    return "\n".join(lines) + "\n"


@FAST
@given(mutated_program())
def test_mutated_programs(source):
    _check(source)
