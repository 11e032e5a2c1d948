"""The terminal report at the 80 columns of a pipe or a narrow window: code lines are never
wrapped mid-expression, the header is never split inside a place or a step, paths have one style."""

from __future__ import annotations

from graddoctor.finding import Finding, Related, Severity
from graddoctor.report.report import Report
from graddoctor.report.terminal import render_text

LONG = ("    total_training_loss_over_the_whole_epoch = total_training_loss_over_the_whole_epoch + "
        "loss * weights.sum() / batches_seen\n")


def _report(tmp_path, monkeypatch, **finding) -> str:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text("import torch\n" * 11 + LONG + "loss.backward()\n")
    args = dict(code="GD207", name="graph-kept-alive", severity=Severity.WARNING,
                message="This line adds to a tensor whose autograd graph was built in an earlier iteration.",
                hint="Accumulate `loss.item()`.", file="train.py", line=12, step=7)
    args.update(finding)
    return render_text(Report(command="run", target="train.py", findings=[Finding(**args)]), width=80)


def test_a_long_code_line_ends_in_an_ellipsis_on_one_line(tmp_path, monkeypatch):
    text = _report(tmp_path, monkeypatch)
    (code,) = [line for line in text.splitlines() if "│" in line]
    assert code.startswith("    12 │ total_training_loss_over_the_whole_epoch = ")
    assert code.endswith("…") and len(code) == 80
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "batches_seen" not in text  # the rest is cut, not wrapped onto a line of its own


def test_the_header_keeps_the_place_and_step_together(tmp_path, monkeypatch):
    text = _report(tmp_path, monkeypatch, name="a-rule-name-long-enough-to-push-the-place-past-the-edge-of-80")
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if "GD207" in line)
    assert lines[header + 1] == "  train.py:12  step 7"
    short = _report(tmp_path, monkeypatch)
    assert "warning GD207 graph-kept-alive  train.py:12  step 7" in short


def test_related_lines_under_the_working_directory_are_relative_like_the_finding(tmp_path, monkeypatch):
    related = [Related(file=str(tmp_path / "train.py"), line=13, note="the backward that follows")]
    text = _report(tmp_path, monkeypatch, related=related)
    assert "also: train.py:13" in text
    assert str(tmp_path) not in text


def test_no_line_ends_in_blanks(tmp_path, monkeypatch):
    assert all(line == line.rstrip() for line in _report(tmp_path, monkeypatch).splitlines())
