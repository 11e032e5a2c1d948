"""What `graddoctor fix` must never do: write a file it may not, write over a file that changed since the
run, edit a file outside the script's project, or write an edit that did not verify."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"


def _copy(graddoctor_cli, program: str) -> tuple[Path, str]:
    target = graddoctor_cli.path / "train.py"
    shutil.copy(PROGRAMS / program, target)
    return target, target.read_text()


def test_no_verify_writes_the_unverified_edit_once_and_says_so_loudly(graddoctor_cli):
    target, original = _copy(graddoctor_cli, "gd206_regression.py")
    ran = graddoctor_cli("fix", "--write", "--no-verify", "train.py", timeout=300)
    assert ran.returncode == 1, ran.stderr  # the original program has the warning
    assert "Not verified" in ran.stdout
    assert "verify: the edited program" not in ran.stdout  # nothing was re-run
    assert "wrote 1 edit to train.py" in ran.stderr
    assert "graddoctor fix: WARNING: --no-verify: 1 edit written WITHOUT verification" in ran.stderr
    edited = target.read_text()
    backward, clip, step = (edited.index(s) for s in ("loss.backward()", "clip_grad_norm_", "optimizer.step()"))
    assert backward < clip < step
    assert len(edited.splitlines()) == len(original.splitlines())
    again = graddoctor_cli("fix", "--write", "train.py", timeout=300)
    assert again.returncode == 0, again.stdout
    assert "no finding has an edit" in again.stdout
    assert target.read_text() == edited


def test_read_only_file_is_not_written(graddoctor_cli):
    target, original = _copy(graddoctor_cli, "gd202_regression.py")
    target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    try:
        ran = graddoctor_cli("fix", "--write", "train.py", timeout=300)
    finally:
        target.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert ran.returncode == 2
    errors = [line for line in ran.stderr.splitlines() if line.startswith("graddoctor fix: error:")]
    assert errors == ["graddoctor fix: error: cannot write train.py: the file is read-only; nothing written"], ran.stderr
    assert target.read_text() == original


def test_file_changed_during_the_run_is_not_written(graddoctor_cli):
    target, original = _copy(graddoctor_cli, "gd202_edits_itself.py")
    ran = graddoctor_cli("fix", "--write", "train.py", timeout=300)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "graddoctor fix: error: train.py changed since graddoctor ran it; nothing written" in ran.stderr
    assert target.read_text() == original + "# saved while training ran\n"


def test_finding_in_a_file_outside_the_project_gets_no_edit(graddoctor_cli):
    case = graddoctor_cli.path / "case"
    shutil.copytree(PROGRAMS / "library_case", case)
    library = (case / "lib" / "trainer.py").read_text()
    ran = graddoctor_cli("fix", "--write", "--json", "fix.json", "case/project/train.py", timeout=300)
    assert ran.returncode == 1
    report = json.loads((graddoctor_cli.path / "fix.json").read_text())
    gd201 = [f for f in report["findings"] if f["code"] == "GD201"]
    assert gd201 and gd201[0]["file"].endswith("trainer.py"), report["findings"]
    assert "fix" not in gd201[0]
    assert "no finding has an edit" in ran.stdout
    assert (case / "lib" / "trainer.py").read_text() == library


def test_edit_that_does_not_verify_is_reported_failed_and_not_written(graddoctor_cli):
    target, original = _copy(graddoctor_cli, "gd110_teacher_in_block.py")
    # --write alone verifies first
    ran = graddoctor_cli("fix", "--write", "--json", "fix.json", "train.py", timeout=600)
    assert ran.returncode == 1
    finding = next(f for f in json.loads((graddoctor_cli.path / "fix.json").read_text())["findings"] if f["code"] == "GD110")
    fix = finding["fix"]
    assert fix["verified"] is False
    # Out of no_grad, the teacher (in no optimizer) now gets gradients: the re-run names it.
    assert fix["new_findings"] == ["GD106@train.py:11"]
    assert "-    with torch.no_grad():" in fix["diff"]
    assert "GD110 train.py:15  FAILED (not written): new: GD106@train.py:11" in ran.stdout
    assert "nothing written (no edit verified)" in ran.stderr
    assert target.read_text() == original


def test_run_report_offers_the_edit(graddoctor_cli):
    shutil.copy(PROGRAMS / "gd201_regression.py", graddoctor_cli.path / "train.py")
    ran = graddoctor_cli("run", "train.py", timeout=300)
    fix = ran.finding("GD201")["fix"]
    assert fix["verified"] is None and fix["loss_before"] is None and fix["new_findings"] == []
    assert "+    optimizer.zero_grad()\n     loss.backward()\n" in fix["diff"]
    assert "edit: `graddoctor fix` can apply it" in ran.stdout


def test_edited_run_gets_the_same_arguments_cwd_and_step_count(graddoctor_cli):
    import torch

    target, original = _copy(graddoctor_cli, "gd201_with_args.py")
    torch.save({"x": torch.randn(4, 64, 8), "w": torch.randn(8, 1)}, graddoctor_cli.path / "data.pt")
    ran = graddoctor_cli("fix", "--verify", "--max-steps", "6", "--json", "fix.json", "train.py", "--lr", "0.05",
                         timeout=600)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    # The original was stopped by --max-steps: the edited program is stopped after as many steps.
    assert "verify: the edited program ran 6 optimizer steps (stopped)" in ran.stdout
    fix = next(f for f in json.loads((graddoctor_cli.path / "fix.json").read_text())["findings"] if f["code"] == "GD201")["fix"]
    assert fix["verified"] is True
    assert target.read_text() == original  # no --write: the user's file is untouched


def test_edit_whose_program_crashes_is_not_written_and_the_crash_is_named(graddoctor_cli):
    # Dropping `.item()` leaves tensors in the history the script dumps as JSON at its end.
    target, original = _copy(graddoctor_cli, "gd101_history_json.py")
    ran = graddoctor_cli("fix", "--write", "--json", "fix.json", "train.py", timeout=600)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    fix = next(f for f in json.loads((graddoctor_cli.path / "fix.json").read_text())["findings"] if f["code"] == "GD101")["fix"]
    assert fix["verified"] is False
    line = next(x for x in ran.stdout.splitlines() if x.startswith("  GD101 train.py:"))
    assert "FAILED (not written): the edited program crashed: TypeError: Object of type Tensor is not JSON serializable" in line
    assert "gone" not in line and "nothing new" not in line
    assert "nothing written (no edit verified)" in ran.stderr
    assert target.read_text() == original


def test_edit_that_trains_another_quantity_is_rejected(graddoctor_cli):
    # The triplet case: the real cause is the unpacking order; dropping `.item()` on the similarity
    # trains the similarity (its backward line's series falls) while the triplet loss the script prints rises.
    target, original = _copy(graddoctor_cli, "gd101_tuple_order.py")
    ran = graddoctor_cli("fix", "--write", "train.py", timeout=600)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    line = next(x for x in ran.stdout.splitlines() if x.startswith("  GD101 train.py:"))
    assert "FAILED (not written): the loss it prints went" in line, ran.stdout
    assert target.read_text() == original


def test_verify_and_no_verify_together_are_a_usage_error(graddoctor_cli):
    _copy(graddoctor_cli, "gd206_regression.py")
    ran = graddoctor_cli("fix", "--verify", "--no-verify", "--write", "train.py", timeout=120)
    assert ran.returncode == 2
    assert "contradict" in ran.stderr
