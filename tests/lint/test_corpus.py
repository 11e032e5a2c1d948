"""The corpus of correct training programs must lint clean: no error, no warning.

Each file is written in the style of a well-known public training script (see
its docstring). When a false alarm is found, add the program here. The programs
of the runtime corpus (tests/corpus/programs, run under `graddoctor run`) must
lint clean too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graddoctor.finding import Severity
from graddoctor.lint import lint_source

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
RUN_CORPUS = sorted((Path(__file__).parent.parent / "corpus" / "programs").glob("*.py"))


def test_corpus_is_large_enough():
    assert len(CORPUS) >= 25


@pytest.mark.parametrize("path", CORPUS + RUN_CORPUS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_correct_program_is_silent(path):
    result = lint_source(path.read_bytes(), str(path))
    loud = [f"{f.line}: {f.code} {f.message}" for f in result.findings if f.severity >= Severity.WARNING]
    assert not loud, "\n".join(loud)
