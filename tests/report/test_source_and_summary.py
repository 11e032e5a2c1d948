"""The one source-line reader and the one severity count every renderer shares."""

from __future__ import annotations

from graddoctor.finding import Finding, Severity
from graddoctor.report.lint_text import summary
from graddoctor.report.source import SourceLines, source_line
from graddoctor.report.summary import counts_text


def _finding(code: str, severity: Severity) -> Finding:
    return Finding(code=code, name="n", severity=severity, message="m", hint="h", file="train.py", line=1)


def test_a_latin1_file_with_a_coding_line_reads_as_python_reads_it(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nname = 'caf\xe9'  # the loss\n".encode("latin-1"))
    assert source_line(str(path), 2) == "name = 'café'  # the loss"
    # near miss: a UTF-8 file without a coding line is read as UTF-8
    utf8 = tmp_path / "utf8.py"
    utf8.write_text("x = 1\nname = 'café'\n", encoding="utf-8")
    assert source_line(str(utf8), 2) == "name = 'café'"


def test_lines_outside_the_file_and_pseudo_files_show_nothing(tmp_path):
    path = tmp_path / "train.py"
    path.write_text("a = 1\n")
    reader = SourceLines()
    assert reader.line(str(path), 1) == "a = 1"
    assert reader.line(str(path), 2) is None
    assert reader.line("<stdin>", 1) is None
    assert reader.line(str(tmp_path / "gone.py"), 1) is None


def test_a_notebook_cell_is_read_from_linecache_under_the_name_the_report_shows():
    import linecache

    from graddoctor.locate import display_path, forget_namer, name_files

    # IPython keeps each cell's text in linecache under a file that does not exist on disk
    cell_file = "/tmp/ipykernel_0/graddoctor-test-cell.py"
    linecache.cache[cell_file] = (30, None, ["x = 1\n", "opt.step()\n"], cell_file)

    def namer(filename):
        return "Cell In[7]" if filename == cell_file else None

    name_files(namer)
    try:
        assert display_path(cell_file) == "Cell In[7]"  # as a finding shows it
        assert SourceLines().line("Cell In[7]", 2) == "opt.step()"
        assert SourceLines().line(cell_file, 1) == "x = 1"
        # near miss: another cell's name, never shown by this kernel, has no lines
        assert SourceLines().line("Cell In[8]", 1) is None
    finally:
        forget_namer(namer)
        linecache.cache.pop(cell_file, None)


def test_one_count_wording_for_lint_and_the_terminal():
    findings = [_finding("GD101", Severity.ERROR), _finding("GD201", Severity.WARNING),
                _finding("GD205", Severity.WARNING), _finding("GD306", Severity.INFO), _finding("GD304", Severity.INFO)]
    assert counts_text(findings) == "1 error, 2 warnings, 2 info"
    assert summary(findings, 3) == "Found 5 problems (1 error, 2 warnings, 2 info) in 3 files."
    assert summary([], 1) == "No problems found in 1 file."
