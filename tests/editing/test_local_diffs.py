"""Each planned edit's diff is computed on the lines it touches. On a short file it reads exactly as a
diff of the whole file does (same hunks, same line numbers); on a long one it must make the same
edit at the same lines (difflib's whole-file diff there treats the lines repeated in every function
as junk and shows bigger hunks than the edit has)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from graddoctor.editing import plan as plan_module
from graddoctor.editing.plan import plan, unified_diff
from graddoctor.lint.engine import lint_file

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "tests" / "fix" / "programs").glob("*.py")) + sorted((ROOT / "benchmarks" / "blind" / "programs").glob("*.py"))

LOOP = '''

def train_{k}(model, loader, criterion, epochs=2):
    """Variant {k}: no zero_grad, and a running total that keeps every graph."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    total = 0.0
    for epoch in range(epochs):
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss
    return total
'''


def _diffs(tmp_path, monkeypatch, source: Path, whole: bool) -> list[tuple[str, int, str]]:
    target = tmp_path / source.name
    target.write_text(source.read_text())
    findings = lint_file(str(target)).findings
    if whole:
        monkeypatch.setattr(plan_module, "_diff_of_change", lambda shown, before, after, *rest: unified_diff(shown, before, after))
    planned = plan(findings, str(tmp_path))
    monkeypatch.undo()
    return [(f.finding.code, f.finding.line, f.diff) for f in planned.fixes]


def test_a_long_file_of_loops_gets_the_diffs_a_whole_file_diff_gives(tmp_path, monkeypatch):
    long = tmp_path / "src"
    long.mkdir()
    program = long / "many_loops.py"
    program.write_text("import torch\n" + "".join(LOOP.format(k=k) for k in range(40)))
    local = _diffs(tmp_path, monkeypatch, program, whole=False)
    assert len(local) >= 40  # an edit per function at least
    whole = _diffs(tmp_path, monkeypatch, program, whole=True)
    original = program.read_text()
    assert [(code, line) for code, line, _ in local] == [(code, line) for code, line, _ in whole]
    for (_, line, mine), (_, _, theirs) in zip(local, whole):
        assert _patched(original, mine) == _patched(original, theirs) != original, line
        assert mine.count("\n+") <= theirs.count("\n+")  # never a bigger hunk than the whole-file diff's
    assert any(f"@@ -{n}" in diff for _, _, diff in local for n in range(400, 520))  # numbered deep in the file


def _patched(text: str, diff: str) -> str:
    """`text` with the unified diff applied (hunks in order, as `patch` reads them)."""
    lines = text.splitlines(keepends=True)
    out, at = [], 0
    body = diff.splitlines(keepends=True)[2:]
    i = 0
    while i < len(body):
        header = body[i].split(" ")
        start = int(header[1][1:].split(",")[0])
        count = int(header[1].split(",")[1]) if "," in header[1] else 1
        begin = start - 1 if count else start
        out += lines[at:begin]
        at = begin
        i += 1
        while i < len(body) and not body[i].startswith("@@ "):
            mark, rest = body[i][0], body[i][1:]
            if mark in " -":
                assert lines[at] == rest, (lines[at], rest)
                at += 1
            if mark in " +":
                out.append(rest)
            i += 1
    return "".join(out + lines[at:])


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_real_programs_get_the_diffs_a_whole_file_diff_gives(tmp_path, monkeypatch, program):
    assert _diffs(tmp_path, monkeypatch, program, whole=False) == _diffs(tmp_path, monkeypatch, program, whole=True)


def test_a_region_at_the_end_of_a_file_without_a_final_newline(tmp_path, monkeypatch):
    program = tmp_path / "tail.py"
    program.write_text(textwrap.dedent(LOOP.format(k=0)).lstrip("\n").replace("import", "import") .rstrip("\n"))
    program.write_text("import torch\n" + program.read_text())
    assert _diffs(tmp_path, monkeypatch, program, whole=False) == _diffs(tmp_path, monkeypatch, program, whole=True)
